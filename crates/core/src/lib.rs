//! arbiter's ground floor: what every other crate of the host stands on,
//! and nothing about how a game is played.
//!
//! - [`model`]: game records, what onlookers see, seats, seeds, dates.
//! - [`verdict`]: how a game ended and who is to blame.
//! - [`clock`]: time controls and clocks.
//! - [`seat`]: what a player sees and answers (the referee's and players' shared types).
//! - [`process`]: child processes spoken to by lines.
//! - [`plugin`]: finding, loading and indexing plugins and their variants.
//! - [`stats`]: Elo, LOS, ratings, SPRT, SPSA.
//! - [`sync`]: lock helpers.

pub mod clock;
pub mod model;
pub mod plugin;
pub mod process;
pub mod seat;
pub mod stats;
pub mod sync;
pub mod verdict;
