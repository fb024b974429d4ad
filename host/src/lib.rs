//! arbiter: a host for board-game variants. It loads each variant's rules from
//! a plugin at run time, referees games between players, and reports results.
//!
//! This crate is the `arbiter` command line ([`cli`]: parse, call the
//! library, print) and [`scaffold`] (new variant crates for authors); the
//! library is the crates below it, re-exported here under the names their
//! modules had:
//!
//! - `arbiter-core`: [`model`], [`verdict`], [`clock`], [`seat`], [`process`],
//!   [`sandbox`], [`engine`], [`plugin`], [`stats`], [`sync`].
//! - `arbiter-play`: [`referee`], [`players`], [`record`], [`check`].
//! - `arbiter-store`: [`store`]; `arbiter-tournament`: [`tournament`];
//!   `arbiter-fleet`: [`fleet`]; `arbiter-web`: [`web`].

pub mod cli;
pub mod scaffold;

pub use arbiter_api::{host::Game, host::VariantHandle, Error, Outcome, Status, Viewer};
pub use arbiter_core::{clock, engine, model, plugin, process, sandbox, seat, stats, sync, verdict};
pub use arbiter_fleet as fleet;
pub use arbiter_play::{check, players, record, referee};
pub use arbiter_store as store;
pub use arbiter_tournament as tournament;
pub use arbiter_web as web;
