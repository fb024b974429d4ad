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
        "standard_start": record.standard_start,
        "result": record.result.pgn(),
        "winner": winner,
        "termination": record.result.termination,
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

/// Reads back a record written by [`game_json`] (the worker processes send
/// their games to the tournament this way). `None` if a field is missing.
pub fn record_from_json(v: &Value) -> Option<GameRecord> {
    use crate::clock::TimeControl;
    use crate::referee::{GameResult, PlyRecord};
    use arbiter_api::Outcome;
    let outcome = match (v["result"].as_str()?, v["winner"].as_u64()) {
        (_, Some(p)) => Outcome::Win(p as u32),
        ("1/2-1/2", None) => Outcome::Draw,
        _ => Outcome::Ongoing,
    };
    let plies = v["moves"]
        .as_array()?
        .iter()
        .map(|m| {
            Some(PlyRecord {
                player: m["player"].as_u64()? as u32,
                mv: m["id"].as_u64()?,
                text: m["text"].as_str()?.to_string(),
                used_us: m["used_us"].as_u64()?,
                reported_ms: m["reported_ms"].as_u64(),
                clock_ms: m["clock_ms"].as_u64(),
                score: m["score"].as_i64().map(|s| s as i32),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(GameRecord {
        variant: v["variant"].as_str()?.to_string(),
        plugin: v["plugin"].as_str()?.to_string(),
        players: v["players"].as_array()?.iter().map(|p| p.as_str().map(String::from)).collect::<Option<_>>()?,
        time_controls: v["time_controls"]
            .as_array()?
            .iter()
            .map(|t| t.as_str().and_then(|t| TimeControl::parse(t).ok()))
            .collect::<Option<_>>()?,
        options: v["options"].as_object()?.clone(),
        start_position: v["start_position"].as_str()?.to_string(),
        standard_start: v["standard_start"].as_bool().unwrap_or(false),
        plies,
        result: GameResult { outcome, termination: v["termination"].as_str()?.to_string() },
        final_position: v["final_position"].as_str()?.to_string(),
        started_at: v["started_at"].as_u64()?,
        duration_ms: v["duration_ms"].as_u64()?,
        viewer: None,
    })
}
