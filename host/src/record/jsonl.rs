//! JSON lines: one object per finished game, for other programs. The same
//! fields as the SQLite store's `games` table.

use serde_json::{json, Value};

use super::EventInfo;
use crate::referee::GameRecord;

/// One game as a JSON object.
pub fn game_json(record: &GameRecord, event: &EventInfo) -> Value {
    let winner = match record.result.outcome {
        arbiter_api::Outcome::Win(p) => Some(p),
        _ => None,
    };
    json!({
        "event": event.event,
        "round": event.round,
        "variant": record.variant,
        "plugin": record.plugin,
        "players": record.players,
        "time_controls": record.time_controls.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        "options": record.options,
        "start_position": record.start_position,
        "result": record.result.pgn(),
        "winner": winner,
        "termination": record.result.termination.to_string(),
        "termination_kind": record.result.termination.kind(),
        "plies": record.plies.len(),
        "moves": record.plies.iter().map(|p| json!({
            "player": p.player,
            "id": p.mv,
            "text": p.text,
            "used_us": p.used_us,
            "reported_ms": p.reported_ms,
            "clock_ms": p.clock_ms,
            "score": p.score,
        })).collect::<Vec<_>>(),
        "final_position": record.final_position,
        "started_at": record.started_at,
        "duration_ms": record.duration_ms,
        "viewer": record.viewer.map(|v| v.to_string()),
    })
}
