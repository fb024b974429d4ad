//! One game of arbiter: the referee that runs it, the players that play it,
//! the records it leaves, and the conformance check of the plugins and
//! engines it is played with. A library user who wants the referee alone
//! needs this crate and `arbiter-core`, no store or server.
//!
//! - [`referee`]: running one game, each player seeing only its own view.
//! - [`players`]: the built-in players and the engine protocols.
//! - [`record`]: record formats, redaction and replay.
//! - [`check`]: the plugin conformance suite, each variant in a child process.

pub mod check;
pub mod players;
pub mod record;
pub mod referee;

/// What this crate's unit tests need beside `arbiter-testing`, whose
/// `game_config` is of the `arbiter-play` it was built against, not of
/// this test build.
#[cfg(test)]
mod testing {
    use arbiter_core::clock::TimeControl;

    use crate::referee::GameConfig;

    /// Two players' settings for a test game: a minute and a second each.
    pub fn game_config() -> GameConfig {
        GameConfig::new(vec![TimeControl::parse("60+1").unwrap(); 2], 1000)
    }
}
