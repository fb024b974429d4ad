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
    /// The tournament the game belongs to, if any.
    pub tournament: Option<TournamentSlot>,
}

/// Where a game sits in a tournament's schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentSlot {
    /// The tournament's id in the store.
    pub id: i64,
    /// The game's index in the schedule (unique within the tournament).
    pub index: u32,
    /// Games sharing an opening with colours swapped share a pair id.
    pub pair: Option<u32>,
    /// Entrant indices in turn order.
    pub seats: Vec<usize>,
}
