//! arbiter: a host for board-game variants. It loads each variant's rules from
//! a plugin at run time, referees games between players, and reports results.
//!
//! - [`plugin`]: finding, loading and indexing plugins and their variants.
//! - [`model`]: the ground floor: game records, what onlookers see, dates.
//! - [`referee`]: running one game, each player seeing only its own view.
//! - [`scaffold`]: new variant crates for authors.
//! - [`seat`]: what a player sees and answers (the referee's and players' shared types).
//! - [`players`]: the built-in players; [`process`]: child processes spoken to by lines.
//! - [`check`]: the plugin conformance suite, each variant in a child process.
//! - [`clock`]: time controls and clocks; [`verdict`]: how a game ended and who is to blame.
//! - [`record`]: record formats, redaction and replay; [`store`]: the store (SQLite or PostgreSQL).
//! - [`tournament`]: schedules, the runner and its workers, tournaments, matches and SPRT.
//! - [`stats`]: Elo, LOS, ratings, SPRT; [`web`]: `arbiter serve`; [`sync`]: lock helpers.
//! - [`cli`]: the `arbiter` command line (parse, call the library, print).
//! - [`layers`]: which module sits on which floor (a test keeps imports pointing down).

pub mod check;
pub mod cli;
pub mod clock;
pub mod layers;
pub mod model;
pub mod players;
pub mod plugin;
pub mod process;
pub mod record;
pub mod referee;
pub mod scaffold;
pub mod seat;
pub mod stats;
pub mod store;
pub mod sync;
#[cfg(test)]
mod testing;
pub mod tournament;
pub mod verdict;
pub mod web;

pub use arbiter_api::{host::Game, host::VariantHandle, Error, Outcome, Status, Viewer};
