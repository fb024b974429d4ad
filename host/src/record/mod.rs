//! Records of finished games: PGN (and the PDN conventions for draughts) in
//! [`pgn`], the embedded SQLite store in [`store`], JSON lines in [`jsonl`].
//! Every writer takes the referee's [`crate::referee::GameRecord`]; exports
//! for one player of a hidden-information game go through [`redact`].

pub mod jsonl;
pub mod pgn;
pub mod redact;
pub mod replay;
pub mod store;

/// Context a record carries beyond the game itself.
#[derive(Clone, Debug, Default)]
pub struct EventInfo {
    /// Event name (`arbiter match`, a tournament's name).
    pub event: String,
    /// Round number within the event (1-based).
    pub round: u32,
}
