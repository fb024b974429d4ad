//! JSON lines: one object per finished game, for other programs: the
//! event's name and round, then the [`GameRecord`]'s fields as serde writes
//! them (the same object the store keeps and the web API serves).

use serde::{Deserialize, Serialize};

use super::{EventInfo, RecordFormat};
use arbiter_core::model::GameRecord;

/// One line of a JSON-lines file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonLine {
    /// The event's name.
    pub event: String,
    /// The round within the event.
    pub round: u32,
    /// The game itself.
    #[serde(flatten)]
    pub record: GameRecord,
}

/// The JSON-lines format.
pub struct JsonLines;

impl RecordFormat for JsonLines {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn title(&self) -> &'static str {
        "JSON lines"
    }
    fn media_type(&self) -> &'static str {
        "application/x-ndjson"
    }
    fn extension(&self) -> &'static str {
        "jsonl"
    }

    fn write(&self, record: &GameRecord, event: &EventInfo) -> String {
        let line = JsonLine { event: event.event.clone(), round: event.round, record: record.clone() };
        // A record is plain data (strings, numbers, maps with string keys).
        let mut text = serde_json::to_string(&line).expect("a game record serialises");
        text.push('\n');
        text
    }
}
