//! What a finished game leaves: the record every writer, the store, the
//! worker wire and the web API share.

use arbiter_api::Viewer;
use serde::{Deserialize, Serialize};

use super::Seat;
use crate::clock::TimeControl;
use crate::verdict::GameResult;

/// One ply of a game, as the referee recorded it. Records write the move
/// id as `id` and leave out what is unknown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlyRecord {
    /// Who moved.
    pub player: Seat,
    /// The move id.
    #[serde(rename = "id")]
    pub mv: u64,
    /// The move in the variant's notation, as the referee sees it.
    pub text: String,
    /// The move in the coordinates engines read and write (UCI's `e2e4`,
    /// Fairy-Stockfish's `P@e4` for ini variants), for perfect-information
    /// variants that offer them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<String>,
    /// Wall time the player took, measured by the host, in microseconds.
    pub used_us: u64,
    /// Time the player said it used (engines), for the host-latency figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_ms: Option<u64>,
    /// The mover's clock after the move (`None`: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
    /// The mover's evaluation in centipawns (or the variant's unit), if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i32>,
    /// The depth of the mover's search, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// The nodes the mover searched, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The selective depth of the mover's search, if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seldepth: Option<u32>,
    /// The mover's principal variation, in its engine protocol's notation
    /// (UCI's `e2e4`), if reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pv: Option<String>,
    /// Whether the mover had pondered on the opponent's move just played (a
    /// ponder hit) or on another (a miss); `None` if it did not ponder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ponder_hit: Option<bool>,
}

/// A finished game: everything the records need. This one shape crosses the
/// worker wire, is a JSON line, is kept by the store and served by the web
/// API (serde, field names as below).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Variant id.
    pub variant: String,
    /// Plugin crate name and version.
    pub plugin: String,
    /// Player names, in turn order.
    pub players: Vec<String>,
    /// Time controls, in turn order.
    pub time_controls: Vec<TimeControl>,
    /// The variant options the game was created with.
    pub options: serde_json::Map<String, serde_json::Value>,
    /// The start position (referee's full view).
    pub start_position: String,
    /// Whether the start is the variant's standard start.
    pub standard_start: bool,
    /// Every ply played.
    pub plies: Vec<PlyRecord>,
    /// The result.
    pub result: GameResult,
    /// The final position (referee's full view).
    pub final_position: String,
    /// Unix time the game started, in seconds.
    pub started_at: u64,
    /// Wall time of the whole game.
    pub duration_ms: u64,
    /// `None` for the referee's full record; the viewer of a redacted export.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<Viewer>,
    /// The variant's extra record tags (PDN `GameType`...).
    #[serde(default)]
    pub record_tags: Vec<(String, String)>,
    /// What each engine called itself, in turn order (`""` for a player
    /// that said no name), kept when `players` holds the names a match or
    /// tournament gave them; empty in records written before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<String>,
}
