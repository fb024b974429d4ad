//! Draughts for arbiter: one rules engine, several rule sets. The plugin
//! exports `international` (FMJD, 10x10), `brazilian` (FMJD rules on 8x8),
//! `russian` and `checkers` (English/American).

pub mod game;
pub mod geometry;
pub mod pdn;
pub mod position;
pub mod rules;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{BoardGeometry, Capabilities, OptionSpec, PieceSet, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

use game::{DraughtsGame, DrawLimits};
use geometry::{Eight, Geometry, Ten};
use position::Position;
use rules::RuleSet;

/// One draughts variant: a rule set on a board.
pub struct Draughts<G: Geometry> {
    id: &'static str,
    name: &'static str,
    summary: &'static str,
    rules: RuleSet,
    game_type: u32,
    geometry: std::marker::PhantomData<G>,
}

impl<G: Geometry> Draughts<G> {
    const fn new(id: &'static str, name: &'static str, summary: &'static str, rules: RuleSet, game_type: u32) -> Self {
        Draughts { id, name, summary, rules, game_type, geometry: std::marker::PhantomData }
    }

    fn limits(&self, options: &Map<String, Value>) -> DrawLimits {
        let int = |k: &str| options.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
        DrawLimits {
            repetitions: int("repetitions"),
            quiet_plies: 2 * int("quiet_moves"),
            three_v_one_plies: 2 * int("one_v_three_moves"),
            two_v_one_plies: 2 * int("one_v_two_moves"),
        }
    }
}

/// International draughts (FMJD, 10x10).
pub const INTERNATIONAL: Draughts<Ten> = Draughts::new(
    "international",
    "International draughts",
    "FMJD rules on 10x10: men capture backwards, flying kings, the capture taking the most pieces is compulsory, \
     no Turkish strike, a man is crowned only when its move ends on the far row. Draws: third repetition, \
     25 moves each with only kings and no capture, 16 moves in one king against three pieces (with a king), \
     5 moves in one king against at most two.",
    rules::FMJD,
    20,
);

/// Brazilian draughts: the FMJD rules on 8x8.
pub const BRAZILIAN: Draughts<Eight> = Draughts::new(
    "brazilian",
    "Brazilian draughts",
    "The FMJD international rules on an 8x8 board with 12 men each.",
    rules::FMJD,
    26,
);

/// Russian draughts (shashki).
pub const RUSSIAN: Draughts<Eight> = Draughts::new(
    "russian",
    "Russian draughts",
    "8x8, men capture backwards, flying kings, free choice among captures (each continued to the end), a man \
     reaching the far row during a capture is crowned at once and goes on capturing as a king.",
    rules::RUSSIAN,
    25,
);

/// English / American checkers.
pub const CHECKERS: Draughts<Eight> = Draughts::new(
    "checkers",
    "English checkers",
    "8x8, Black moves first, men move and capture forwards only, kings move one square, free choice among \
     captures, a man crowned during a capture ends its move there.",
    rules::CHECKERS,
    21,
);

fn int_option(name: &str, default: u32, description: &str) -> OptionSpec {
    OptionSpec {
        name: name.into(),
        kind: "int".into(),
        default: default.into(),
        choices: Vec::new(),
        description: description.into(),
    }
}

impl<G: Geometry> Variant for Draughts<G> {
    type Game = DraughtsGame<G>;

    fn info(&self) -> VariantInfo {
        let d = self.rules.draws;
        let start = Position::<G>::start(&self.rules);
        let first = if self.rules.black_first { "Black" } else { "White" };
        let second = if self.rules.black_first { "White" } else { "Black" };
        VariantInfo {
            id: self.id.into(),
            name: self.name.into(),
            summary: format!("{} PDN GameType {}.", self.summary, self.game_type),
            players: vec![first.into(), second.into()],
            board: BoardGeometry::Grid {
                width: G::WIDTH,
                height: G::WIDTH,
                checkered: true,
                files: (0..G::WIDTH).map(|c| ((b'a' + c as u8) as char).to_string()).collect(),
                ranks: (1..=G::WIDTH).map(|r| r.to_string()).collect(),
            },
            notation:
                "PDN: 32-28, 28x19 (landing squares 28x19x10 only when two captures share origin and destination); \
                       Hub captures (origin x destination x captured squares) are accepted"
                    .into(),
            position_notation: "PDN FEN (W:W31,32:BK5), then the running draw counters when any: :Q plies since a man move or capture, :E plies left in the endgame count, :R times the position has been seen".into(),
            start_position: pdn::write_fen(&start),
            options: vec![
                int_option("repetitions", 3, "Occurrences of one position (same side to move) that draw; 0: off."),
                int_option(
                    "quiet_moves",
                    d.kings_only_moves.max(d.quiet_moves),
                    "Moves by each side without a man move or a capture that draw; 0: off.",
                ),
                int_option(
                    "one_v_three_moves",
                    d.three_v_one_moves,
                    "Moves by each side that draw one king against three pieces including a king; 0: off.",
                ),
                int_option(
                    "one_v_two_moves",
                    d.two_v_one_moves,
                    "Moves by each side that draw one king against at most two pieces including a king; 0: off.",
                ),
            ],
            capabilities: Capabilities { hidden_information: false, evaluate: true, sample_world: false },
            default_time_control: "60+1".into(),
            max_plies: None,
            record_tags: vec![("GameType".into(), self.game_type.to_string())],
        }
    }

    fn new_game(&self, options: &Map<String, Value>) -> Result<DraughtsGame<G>, Error> {
        Ok(DraughtsGame::new(Position::start(&self.rules), self.rules, self.limits(options)))
    }

    fn from_position(&self, text: &str, options: &Map<String, Value>) -> Result<DraughtsGame<G>, Error> {
        DraughtsGame::from_text(text, self.rules, self.limits(options))
    }

    /// Men and crowned kings as the Unicode draughts glyphs.
    fn piece_sets(&self) -> Vec<PieceSet> {
        vec![PieceSet::new("draughts men", true, &[("man", "⛂"), ("king", "⛃")])]
    }
}

arbiter_api::export_plugin!(INTERNATIONAL, BRAZILIAN, RUSSIAN, CHECKERS);
