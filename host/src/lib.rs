//! arbiter: a host for board-game variants. It loads each variant's rules from
//! a plugin at run time, referees games between players, and reports results.
//!
//! - [`plugin`]: finding, loading and indexing plugins and their variants.
//! - [`perft`]: move-tree counting, in the plugin or driven through the ABI.
//! - [`referee`]: running one game, each player seeing only its own view.
//! - [`scaffold`]: new variant crates for authors.
//! - [`seat`]: what a player sees and answers (the referee's and players' shared types).
//! - [`players`]: the built-in players; [`process`]: child processes spoken to by lines.
//! - [`check`]: the plugin conformance suite.
//! - [`cli`]: the `arbiter` command line (parse, call the library, print).

pub mod check;
pub mod cli;
pub mod clock;
pub mod perft;
pub mod players;
pub mod plugin;
pub mod process;
pub mod record;
pub mod referee;
pub mod scaffold;
pub mod seat;
pub mod stats;
pub mod sync;
pub mod tournament;
pub mod verdict;
pub mod web;

pub use arbiter_api::{host::Game, host::VariantHandle, Error, Outcome, Status, Viewer};
