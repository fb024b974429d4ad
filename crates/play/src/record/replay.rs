//! Replaying recorded games through their plugin to verify them: every move
//! of every game must be legal from the recorded start; a stored record must
//! also end where the rules say and with a result its termination allows.

use arbiter_api::{Outcome, Viewer};
use serde_json::{Map, Value};

use super::pgn::GameReader;
use arbiter_core::clock::Limit;
use arbiter_core::model::{GameRecord, PlyRecord, Seat};
use arbiter_core::plugin::Registry;
use arbiter_core::verdict::Termination;

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
            (None, Some(ply)) => write!(f, "ply {ply}: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

/// Where `again`, a game played again from the setup of `played`, first
/// differs from it: the ply (1-based) and what differs there (the move, its
/// clocks, what the player reported of its search), or the result, the
/// final position or the length; `None` if it is the same game (the day
/// it was played aside).
pub fn first_difference(played: &GameRecord, again: &GameRecord) -> Option<String> {
    for (i, (a, b)) in played.plies.iter().zip(&again.plies).enumerate() {
        let ply = i + 1;
        // A record written before its variant had a notation of its own
        // holds the move's coordinates as its text, and none apart.
        let older = a.coordinates.is_none() && b.coordinates.as_ref() == Some(&a.text);
        let b = &PlyRecord {
            text: if older { a.text.clone() } else { b.text.clone() },
            coordinates: if a.coordinates.is_none() { None } else { b.coordinates.clone() },
            ..b.clone()
        };
        let what = if a.mv != b.mv || a.text != b.text {
            format!("the move is {} in the record, {} played again", a.text, b.text)
        } else if a.used_us != b.used_us || a.clock_ms != b.clock_ms {
            let clock = |p: &arbiter_core::model::PlyRecord| match p.clock_ms {
                Some(ms) => format!("{} us, {ms} ms left", p.used_us),
                None => format!("{} us", p.used_us),
            };
            format!("{} took {} in the record, {} played again", a.text, clock(a), clock(b))
        } else if a != b {
            format!("{}: what the player reported of its search differs", a.text)
        } else {
            continue;
        };
        return Some(format!("at ply {ply}: {what}"));
    }
    let (n, m) = (played.plies.len(), again.plies.len());
    if n != m {
        return Some(format!("the record has {n} plies, the game played again {m}"));
    }
    if played.result != again.result {
        return Some(format!(
            "after ply {n}: the record ends {} ({}), the game played again {} ({})",
            played.result.pgn(),
            played.result.termination,
            again.result.pgn(),
            again.result.termination
        ));
    }
    if played.final_position != again.final_position {
        return Some(format!("after ply {n}: the final positions differ"));
    }
    (played.engines != again.engines).then(|| "the engines named themselves otherwise".to_string())
}

/// The registry's variant for a PGN `Variant` tag (PGN's "Standard" is chess).
pub fn variant_id(tag: Option<&str>) -> String {
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

/// Replays a stored game through its variant's plugin and checks that it
/// holds: the recorded start, every move legal for the player recorded as
/// moving and written as the referee writes it, the recorded final
/// position, and a result its termination allows in that position (the
/// rules' own ending and reason; a claimed draw the rules offer; a time
/// forfeit lost by the player to move, on a clock; an illegal move that is
/// illegal there; no result only for a plugin's fault or a stopped game).
/// What the record cannot show (an engine's crash, a resignation, an
/// adjudication's inputs) is checked only for its shape.
pub fn verify_record(registry: &Registry, record: &GameRecord) -> Result<(), ReplayError> {
    let fail = |ply: Option<usize>, message: String| ReplayError { game: None, ply, message };
    if let Some(viewer) = record.viewer {
        return Err(fail(None, format!("a redacted view (as {viewer} saw it): its hidden moves cannot be re-checked")));
    }
    let variant = registry.get(&record.variant).map_err(|e| fail(None, e.to_string()))?;
    let mut game = if record.standard_start {
        let game = variant.new_game(&record.options).map_err(|e| fail(None, e.to_string()))?;
        if game.position_text() != record.start_position {
            return Err(fail(None, format!("the recorded start '{}' is not the variant's", record.start_position)));
        }
        game
    } else {
        variant.from_position(&record.start_position, &record.options).map_err(|e| fail(None, e.to_string()))?
    };
    for (i, ply) in record.plies.iter().enumerate() {
        let at = Some(i + 1);
        if !game.status().is_ongoing() {
            return Err(fail(at, format!("a move after the rules ended the game ({})", game.status().reason)));
        }
        let to_move = Seat::new(game.to_move());
        if to_move != ply.player {
            return Err(fail(at, format!("recorded as player {}'s move, but player {to_move} is to move", ply.player)));
        }
        let text =
            game.move_text(ply.mv, Viewer::Referee).map_err(|e| fail(at, format!("move '{}': {e}", ply.text)))?;
        if text != ply.text {
            return Err(fail(at, format!("move id {:#x} is '{text}', recorded as '{}'", ply.mv, ply.text)));
        }
        game.apply(ply.mv).map_err(|e| fail(at, format!("move '{}': {e}", ply.text)))?;
    }
    let end = game.position_text();
    if end != record.final_position {
        return Err(fail(None, format!("the moves end at '{end}', recorded as '{}'", record.final_position)));
    }
    let status = game.status();
    let (outcome, termination) = (record.result.outcome, &record.result.termination);
    let to_move = Seat::new(game.to_move());
    let wrong = |why: String| Err(fail(None, format!("{} recorded as {termination:?}: {why}", outcome_text(outcome))));
    // The first arm that matches settles the record: a check inside an arm
    // must not fall through to the arms below (as guards would).
    #[allow(clippy::collapsible_match)]
    match termination {
        // What cannot be played on is checked no further.
        _ if termination.is_plugin_fault() || matches!(termination, Termination::Unterminated(_)) => {
            if outcome != Outcome::Ongoing {
                return wrong("a plugin's fault or a stopped game has no result".into());
            }
        }
        _ if !status.is_ongoing() => {
            if !matches!(termination, Termination::Rules(reason) if *reason == status.reason)
                || outcome != status.outcome
            {
                return wrong(format!(
                    "the rules end the game here: {} ({})",
                    outcome_text(status.outcome),
                    status.reason
                ));
            }
        }
        Termination::Rules(_) => return wrong("the rules do not end the game here".into()),
        Termination::DrawClaimed(reason) => {
            if outcome != Outcome::Draw || status.claimable != reason.as_str() {
                return wrong(format!("the draw the rules offer here is '{}'", status.claimable));
            }
        }
        Termination::TimeForfeit(_) => {
            if outcome != to_move.opponent().wins() || to_move > Seat::SECOND {
                return wrong(format!("the flag that falls is player {to_move}'s, the player to move"));
            }
            let clock = record.time_controls.get(to_move.index()).map(|tc| &tc.limit);
            if matches!(clock, None | Some(Limit::Infinite)) {
                return wrong(format!("player {to_move} played without a clock"));
            }
        }
        Termination::TimeForfeitInsufficientMaterial => {
            if outcome != Outcome::Draw || game.can_win(to_move.opponent().number()) {
                return wrong("the opponent of the player whose flag fell can still win".into());
            }
        }
        Termination::IllegalMove(text) => {
            if game.parse_move(text).is_ok() {
                return wrong(format!("'{text}' is legal here"));
            }
            if outcome != to_move.opponent().wins() || to_move > Seat::SECOND {
                return wrong(format!("the player to move, {to_move}, made it and loses"));
            }
        }
        Termination::DrawAgreed if outcome != Outcome::Draw => return wrong("an agreed draw is a draw".into()),
        Termination::Resignation
        | Termination::EngineCrashed(_)
        | Termination::EngineHung(_)
        | Termination::EngineProtocol(_)
            if !matches!(outcome, Outcome::Win(_)) =>
        {
            return wrong("someone is to blame, so someone wins".into())
        }
        Termination::Adjudication(_) if outcome == Outcome::Ongoing => {
            return wrong("an adjudication has a result".into())
        }
        _ => {}
    }
    Ok(())
}

fn outcome_text(outcome: Outcome) -> String {
    match outcome {
        Outcome::Win(p) => format!("a win for player {p}"),
        Outcome::Draw => "a draw".into(),
        Outcome::Ongoing => "no result".into(),
        Outcome::Faulted => "a faulted game".into(),
    }
}
