//! How a game ended: the [`GameResult`] (who won) and its [`Termination`]
//! (why, as a type: who is to blame follows from the variant, never from the
//! wording of a message). Records carry it, the store keeps its
//! [`Termination::kind`] beside its text, and PGN writes its
//! [`Termination::pgn_category`]. The referee decides it; players are told it.

use arbiter_api::Outcome;
use serde::{Deserialize, Serialize};

/// How a game ended. In records it reads
/// `{"outcome": {"win": 0} | "draw" | "no_result", "termination": {...}, "pgn": "1-0"}`
/// (`pgn` is written for readers' convenience and ignored on reading).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct GameResult {
    /// Win, draw, or `Ongoing` for a game stopped without a result.
    #[serde(with = "recorded_outcome")]
    pub outcome: Outcome,
    /// Why, and so who is to blame.
    pub termination: Termination,
}

impl Serialize for GameResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut r = s.serialize_struct("GameResult", 3)?;
        r.serialize_field("outcome", &recorded_outcome::Recorded::from(self.outcome))?;
        r.serialize_field("termination", &self.termination)?;
        r.serialize_field("pgn", self.pgn())?;
        r.end()
    }
}

/// A finished game's outcome as records write it: a win of a seat, a draw,
/// or no result (a game stopped, or voided by its plugin).
mod recorded_outcome {
    use arbiter_api::Outcome;
    use serde::{Deserialize, Deserializer, Serialize};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub(super) enum Recorded {
        Win(u32),
        Draw,
        NoResult,
    }

    impl From<Outcome> for Recorded {
        fn from(o: Outcome) -> Recorded {
            match o {
                Outcome::Win(p) => Recorded::Win(p),
                Outcome::Draw => Recorded::Draw,
                Outcome::Ongoing | Outcome::Faulted => Recorded::NoResult,
            }
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Outcome, D::Error> {
        Ok(match Recorded::deserialize(d)? {
            Recorded::Win(p) => Outcome::Win(p),
            Recorded::Draw => Outcome::Draw,
            Recorded::NoResult => Outcome::Ongoing,
        })
    }
}

impl GameResult {
    /// The PGN result token: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn pgn(&self) -> &'static str {
        match self.outcome {
            Outcome::Win(0) => "1-0",
            Outcome::Win(_) => "0-1",
            Outcome::Draw => "1/2-1/2",
            _ => "*",
        }
    }
}

/// Why a game ended. The detail strings are for people; the variant decides
/// scoring and blame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Termination {
    /// The rules ended it; the plugin's reason ("checkmate", "stalemate").
    Rules(String),
    /// A flag fell, this many ms past the clock (with the margin; stores
    /// written before it was kept: `None`).
    TimeForfeit(Option<u64>),
    /// A flag fell while the opponent could not win: a draw.
    TimeForfeitInsufficientMaterial,
    /// A player answered with a move that is not legal (what it sent).
    IllegalMove(String),
    /// An engine process exited, or could not be started.
    EngineCrashed(String),
    /// An engine broke its protocol (garbage, a missing handshake).
    EngineProtocol(String),
    /// An engine gave no answer within its hang limit (games without a clock).
    EngineHung(String),
    /// The plugin panicked, aborted, or its state faulted.
    PluginCrashed(String),
    /// A call into the plugin never returned (the watchdog's verdict).
    PluginHung(String),
    /// The plugin broke its contract (an ongoing game without legal moves...).
    PluginContract(String),
    /// A player resigned.
    Resignation,
    /// The players agreed a draw.
    DrawAgreed,
    /// A claimable draw was claimed (the plugin's reason: "threefold repetition").
    DrawClaimed(String),
    /// The referee adjudicated it ("ply limit", "game time cap").
    Adjudication(String),
    /// The game was stopped before it ended.
    Unterminated(String),
}

impl Termination {
    /// The category PGN's `Termination` tag holds, in fastchess's words:
    /// `normal` (mate included), `time forfeit`, `illegal move`,
    /// `abandoned` (an engine that crashed, hung or broke its protocol),
    /// `adjudication`, `unterminated`; a plugin's fault, which fastchess
    /// cannot have, is the PGN standard's `emergency`.
    pub fn pgn_category(&self) -> &'static str {
        use Termination::*;
        match self {
            Rules(_) | Resignation | DrawAgreed | DrawClaimed(_) => "normal",
            TimeForfeit(_) | TimeForfeitInsufficientMaterial => "time forfeit",
            IllegalMove(_) => "illegal move",
            EngineCrashed(_) | EngineHung(_) | EngineProtocol(_) => "abandoned",
            PluginCrashed(_) | PluginHung(_) | PluginContract(_) => "emergency",
            Adjudication(_) => "adjudication",
            Unterminated(_) => "unterminated",
        }
    }

    /// Whether the plugin is to blame: such a game has no result and is
    /// never scored against a player.
    pub fn is_plugin_fault(&self) -> bool {
        matches!(self, Termination::PluginCrashed(_) | Termination::PluginHung(_) | Termination::PluginContract(_))
    }

    /// Whether the player who caused it is to blame (it loses the game).
    pub fn is_player_fault(&self) -> bool {
        matches!(
            self,
            Termination::TimeForfeit(_)
                | Termination::IllegalMove(_)
                | Termination::EngineCrashed(_)
                | Termination::EngineProtocol(_)
                | Termination::EngineHung(_)
        )
    }

    /// A short snake_case name of the variant, as the store keeps it.
    pub fn kind(&self) -> &'static str {
        use Termination::*;
        match self {
            Rules(_) => "rules",
            TimeForfeit(_) => "time_forfeit",
            TimeForfeitInsufficientMaterial => "time_forfeit_insufficient_material",
            IllegalMove(_) => "illegal_move",
            EngineCrashed(_) => "engine_crashed",
            EngineProtocol(_) => "engine_protocol",
            EngineHung(_) => "engine_hung",
            PluginCrashed(_) => "plugin_crashed",
            PluginHung(_) => "plugin_hung",
            PluginContract(_) => "plugin_contract",
            Resignation => "resignation",
            DrawAgreed => "draw_agreed",
            DrawClaimed(_) => "draw_claimed",
            Adjudication(_) => "adjudication",
            Unterminated(_) => "unterminated",
        }
    }

    /// The detail carried by the variant, if any.
    pub fn detail(&self) -> Option<&str> {
        use Termination::*;
        match self {
            Rules(d) | IllegalMove(d) | EngineCrashed(d) | EngineProtocol(d) | EngineHung(d) | PluginCrashed(d)
            | PluginHung(d) | PluginContract(d) | DrawClaimed(d) | Adjudication(d) | Unterminated(d) => Some(d),
            TimeForfeit(_) | TimeForfeitInsufficientMaterial | Resignation | DrawAgreed => None,
        }
    }

    /// Rebuilds a termination from the store's kind and text columns
    /// (stores written before the kind existed hold `None`: the text is then
    /// read as the plugin's reason, as those stores scored it).
    pub fn from_stored(kind: Option<&str>, text: &str) -> Termination {
        use Termination::*;
        let detail = |prefix: &str| text.strip_prefix(prefix).unwrap_or(text).to_string();
        match kind {
            Some("time_forfeit") => TimeForfeit(
                text.strip_prefix("time forfeit: ")
                    .and_then(|t| t.strip_suffix(" ms over"))
                    .and_then(|n| n.parse().ok()),
            ),
            Some("time_forfeit_insufficient_material") => TimeForfeitInsufficientMaterial,
            Some("illegal_move") => IllegalMove(detail("illegal move: ")),
            Some("engine_crashed") => EngineCrashed(detail("engine crashed: ")),
            Some("engine_protocol") => EngineProtocol(detail("engine protocol error: ")),
            Some("engine_hung") => EngineHung(detail("engine hung: ")),
            Some("plugin_crashed") => PluginCrashed(detail("plugin crashed: ")),
            Some("plugin_hung") => PluginHung(detail("plugin hung: ")),
            Some("plugin_contract") => PluginContract(detail("plugin contract violation: ")),
            Some("resignation") => Resignation,
            Some("draw_agreed") => DrawAgreed,
            Some("draw_claimed") => DrawClaimed(text.strip_suffix(" (claimed)").unwrap_or(text).to_string()),
            Some("adjudication") => Adjudication(detail("adjudication: ")),
            Some("unterminated") => Unterminated(detail("unterminated: ")),
            _ => Rules(text.to_string()),
        }
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Termination::*;
        match self {
            Rules(reason) => f.write_str(reason),
            TimeForfeit(None) => f.write_str("time forfeit"),
            TimeForfeit(Some(ms)) => write!(f, "time forfeit: {ms} ms over"),
            TimeForfeitInsufficientMaterial => f.write_str("time forfeit against insufficient material"),
            IllegalMove(m) => write!(f, "illegal move: {m}"),
            EngineCrashed(d) => write!(f, "engine crashed: {d}"),
            EngineProtocol(d) => write!(f, "engine protocol error: {d}"),
            EngineHung(d) => write!(f, "engine hung: {d}"),
            PluginCrashed(d) => write!(f, "plugin crashed: {d}"),
            PluginHung(d) => write!(f, "plugin hung: {d}"),
            PluginContract(d) => write!(f, "plugin contract violation: {d}"),
            Resignation => f.write_str("resignation"),
            DrawAgreed => f.write_str("draw agreed"),
            DrawClaimed(reason) => write!(f, "{reason} (claimed)"),
            Adjudication(d) => write!(f, "adjudication: {d}"),
            Unterminated(d) => write!(f, "unterminated: {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Termination::{self, *};
    use super::{GameResult, Outcome};

    fn all() -> Vec<Termination> {
        vec![
            Rules("checkmate".into()),
            TimeForfeit(None),
            TimeForfeit(Some(12)),
            TimeForfeitInsufficientMaterial,
            IllegalMove("Ke8-h1".into()),
            EngineCrashed("'eng' exited (exit status: 3)".into()),
            EngineProtocol("not JSON: x".into()),
            EngineHung("no answer in 60 s".into()),
            PluginCrashed("panicked in apply: boom".into()),
            PluginHung("no progress for 30 s".into()),
            PluginContract("ongoing game without legal moves".into()),
            Resignation,
            DrawAgreed,
            DrawClaimed("threefold repetition".into()),
            Adjudication("ply limit".into()),
            Unterminated("stopped".into()),
        ]
    }

    #[test]
    fn every_termination_survives_the_store_columns() {
        for t in all() {
            assert_eq!(Termination::from_stored(Some(t.kind()), &t.to_string()), t);
        }
    }

    #[test]
    fn every_result_survives_json() {
        for outcome in [Outcome::Win(0), Outcome::Win(1), Outcome::Draw, Outcome::Ongoing] {
            let r = GameResult { outcome, termination: DrawAgreed };
            let text = serde_json::to_string(&r).unwrap();
            assert!(text.contains(&format!("\"pgn\":\"{}\"", r.pgn())), "{text}");
            assert_eq!(serde_json::from_str::<GameResult>(&text).unwrap(), r, "{text}");
        }
        assert_eq!(
            serde_json::to_value(GameResult { outcome: Outcome::Win(1), termination: TimeForfeit(None) }).unwrap(),
            serde_json::json!({"outcome": {"win": 1}, "termination": {"kind": "time_forfeit", "detail": null}, "pgn": "0-1"})
        );
        // Records written before the overrun was kept have no detail.
        assert_eq!(serde_json::from_str::<Termination>(r#"{"kind":"time_forfeit"}"#).unwrap(), TimeForfeit(None));
    }

    #[test]
    fn every_termination_survives_json() {
        for t in all() {
            let text = serde_json::to_string(&t).unwrap();
            assert_eq!(serde_json::from_str::<Termination>(&text).unwrap(), t, "{text}");
        }
    }

    #[test]
    fn pgn_categories_follow_fastchess() {
        assert_eq!(Rules("checkmate".into()).pgn_category(), "normal");
        assert_eq!(TimeForfeit(Some(3)).pgn_category(), "time forfeit");
        assert_eq!(IllegalMove("x".into()).pgn_category(), "illegal move");
        assert_eq!(EngineProtocol("x".into()).pgn_category(), "abandoned");
        assert_eq!(EngineCrashed("x".into()).pgn_category(), "abandoned");
        assert_eq!(PluginHung("x".into()).pgn_category(), "emergency");
        assert_eq!(Adjudication("x".into()).pgn_category(), "adjudication");
        assert_eq!(Unterminated("x".into()).pgn_category(), "unterminated");
    }

    #[test]
    fn blame_is_exclusive() {
        for t in all() {
            assert!(!(t.is_plugin_fault() && t.is_player_fault()), "{t}");
        }
        assert!(PluginContract(String::new()).is_plugin_fault());
        assert!(EngineHung(String::new()).is_player_fault());
    }

    #[test]
    fn stores_without_kinds_read_as_rules() {
        assert_eq!(Termination::from_stored(None, "checkmate"), Rules("checkmate".into()));
    }
}
