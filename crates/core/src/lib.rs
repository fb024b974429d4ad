//! arbiter's ground floor: what every other crate of the host stands on,
//! and nothing about how a game is played.
//!
//! - [`model`]: game records, what onlookers see, seats, seeds, dates.
//! - [`verdict`]: how a game ended and who is to blame.
//! - [`clock`]: time controls and clocks.
//! - [`seat`]: what a player sees and answers (the referee's and players' shared types).
//! - [`process`]: child processes spoken to by lines.
//! - [`sandbox`]: engines compiled to WebAssembly, run sandboxed on a virtual clock.
//! - [`engine`]: an engine's running program, native or sandboxed.
//! - [`plugin`]: finding, loading and indexing plugins and their variants.
//! - [`stats`]: Elo, LOS, ratings, SPRT, SPSA.
//! - [`sync`]: lock helpers.

pub mod clock;
pub mod engine;
pub mod model;
pub mod plugin;
pub mod process;
pub mod sandbox;
pub mod seat;
pub mod stats;
pub mod sync;
pub mod verdict;
