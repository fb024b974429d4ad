//! Replaying recorded games through their plugin to verify them: every move
//! of every game must be legal from the recorded start.

use serde_json::{Map, Value};

use super::pgn::GameReader;
use crate::plugin::Registry;

/// The first problem met while replaying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based game number in the file; `None` for the file as a whole.
    pub game: Option<usize>,
    /// 1-based ply, if the problem is a move.
    pub ply: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.game, self.ply) {
            (Some(game), Some(ply)) => write!(f, "game {game}, ply {ply}: {}", self.message),
            (Some(game), None) => write!(f, "game {game}: {}", self.message),
            (None, _) => f.write_str(&self.message),
        }
    }
}

/// The registry's variant for a PGN `Variant` tag (PGN's "Standard" is chess).
pub(crate) fn variant_id(tag: Option<&str>) -> String {
    match tag.map(str::to_lowercase).as_deref() {
        None | Some("standard") | Some("normal") | Some("from position") => "chess".to_string(),
        Some("chess960") | Some("fischerandom") => "chess".to_string(),
        Some(other) => other.to_string(),
    }
}

/// Replays every game of a PGN stream, read one game at a time; returns
/// how many games were replayed. A stream with no game is an error: a
/// check of nothing is no check.
pub fn replay_pgn(registry: &Registry, input: impl std::io::BufRead) -> Result<usize, ReplayError> {
    let mut count = 0;
    for (i, g) in GameReader::new(input).enumerate() {
        let game_no = i + 1;
        let g = g.map_err(|e| ReplayError { game: None, ply: None, message: e.to_string() })?;
        count = game_no;
        let fail = |ply: Option<usize>, message: String| ReplayError { game: Some(game_no), ply, message };
        // An `--as` export shows one player's view: what it hid cannot be replayed.
        if let Some(viewer) = g.tag("Viewer") {
            return Err(fail(
                None,
                format!(
                    "a redacted view (Viewer \"{viewer}\"), written with --as: its hidden moves cannot be re-checked; \
                     replay the full record (arbiter results ID --pgn FILE)"
                ),
            ));
        }
        let variant = registry.get(&variant_id(g.tag("Variant"))).map_err(|e| fail(None, e.to_string()))?;
        let mut options: Map<String, Value> = match g.tag("VariantOptions") {
            Some(o) => serde_json::from_str(o).map_err(|e| fail(None, format!("VariantOptions tag: {e}")))?,
            None => Map::new(),
        };
        if g.tag("Variant").is_some_and(|v| matches!(v.to_lowercase().as_str(), "chess960" | "fischerandom")) {
            options.entry("chess960").or_insert(Value::Bool(true));
        }
        let mut game = match g.tag("FEN") {
            Some(fen) => variant.from_position(fen, &options),
            None => variant.new_game(&options),
        }
        .map_err(|e| fail(None, e.to_string()))?;
        for (ply, text) in g.moves.iter().enumerate() {
            let mv = game.parse_move(text).map_err(|e| fail(Some(ply + 1), format!("move '{text}': {e}")))?;
            game.apply(mv).map_err(|e| fail(Some(ply + 1), format!("move '{text}': {e}")))?;
        }
    }
    if count == 0 {
        return Err(ReplayError { game: None, ply: None, message: "holds no PGN game".into() });
    }
    Ok(count)
}
