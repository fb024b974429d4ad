//! Records of finished games. One shape, the referee's [`GameRecord`], is
//! written by every [`RecordFormat`] (PGN with the PDN conventions for
//! draughts in [`pgn`], JSON lines in [`jsonl`], final positions in [`epd`]),
//! kept by the store (a floor above) and read back from it whole, so any
//! format can be written again from the store. Exports for one player of a
//! hidden-information game go through [`redact`].

pub mod epd;
pub mod files;
pub mod jsonl;
pub mod pgn;
pub mod redact;
pub mod replay;
#[cfg(test)]
mod tests;

use arbiter_core::model::GameRecord;

/// A file format for finished games: one game in, its text out (ending in a
/// newline, so that games append). Adding a format is a file implementing
/// this and one line in [`FORMATS`].
pub trait RecordFormat: Sync {
    /// The name `--out NAME=FILE` takes (`pgn`).
    fn name(&self) -> &'static str;
    /// What people call it, for messages (`PGN`).
    fn title(&self) -> &'static str;
    /// Its media type, as the web view serves it (`application/x-chess-pgn`).
    fn media_type(&self) -> &'static str;
    /// Its file extension (`pgn`).
    fn extension(&self) -> &'static str;
    /// One game as this format writes it.
    fn write(&self, record: &GameRecord, event: &EventInfo) -> String;
}

/// Every record format arbiter writes.
pub const FORMATS: &[&dyn RecordFormat] = &[&pgn::Pgn, &jsonl::JsonLines, &epd::Epd];

/// The format named `name`, or an error listing the known ones.
pub fn format(name: &str) -> Result<&'static dyn RecordFormat, arbiter_core::model::UnknownName> {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| arbiter_core::model::UnknownName::new("record format", name, FORMATS.iter().map(|f| f.name())))
}

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
