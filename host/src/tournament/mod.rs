//! Running many games: the players (entrants), the schedule of games, and a
//! runner that plays them with a given concurrency and hands each finished
//! game back the moment it ends.

pub mod runner;

pub use runner::{run_games, Entrant, RunConfig, ScheduledGame};
