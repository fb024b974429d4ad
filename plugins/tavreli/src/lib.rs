//! Tavreli (RULES.md §4, §7.2) for arbiter: chess where nothing leaves the
//! board. Moving onto a piece stacks on top; a tower belongs to and moves as
//! its top piece, whole or split; pawns promote to the piece that started
//! behind them (the e-pawn to the Helgi, queen plus knight) and are demoted
//! when an enemy covers them; check looks at tower tops only.
//!
//! Notation: `e2-e4`, with `(k)` when k >= 2 pieces move (`d4-d5(2)`);
//! castling is the Magus's move (`e1-g1`). Positions list every square's tower
//! top first (see `game::parse_position`): pieces `K Q R B N P H` (White upper
//! case), a pawn followed by its designation (`Ph` = the e-pawn), `*` after a
//! promoted pawn, `'` after a piece that has moved.

pub mod game;
pub mod position;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{BoardGeometry, Capabilities, OptionSpec, PieceSet, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

use game::{Draws, TavreliGame};
use position::{Position, Rules};

/// The `tavreli` variant.
pub struct Tavreli;

fn settings(options: &Map<String, Value>) -> (Rules, Draws) {
    let int = |k: &str, d: u32| options.get(k).and_then(Value::as_u64).map_or(d, |v| v as u32);
    (
        Rules { demote_on_any_cover: options.get("demotion").and_then(Value::as_str) == Some("any-cover") },
        Draws { repetitions: int("repetitions", 3), quiet_moves: int("quiet_moves", 50) },
    )
}

impl Variant for Tavreli {
    type Game = TavreliGame;

    fn info(&self) -> VariantInfo {
        let start = TavreliGame::new(
            Position::start(),
            0,
            Rules { demote_on_any_cover: false },
            Draws { repetitions: 3, quiet_moves: 50 },
        );
        VariantInfo {
            id: "tavreli".into(),
            name: "Tavreli".into(),
            summary: "Russian tower chess: moving onto any piece stacks on top, so nothing leaves the board; a tower \
                      belongs to and moves as its top piece, whole or split (one split a turn); no piece goes onto a \
                      Magus, which may climb onto an unattacked tower; pawns promote to their designated piece and \
                      revert when covered by an enemy; check, mate and stalemate look at tower tops."
                .into(),
            players: vec!["White".into(), "Black".into()],
            board: BoardGeometry::Grid {
                width: 8,
                height: 8,
                checkered: true,
                files: "abcdefgh".chars().map(String::from).collect(),
                ranks: (1..=8).map(|r| r.to_string()).collect(),
            },
            notation: "from-to, (k) when k >= 2 pieces move: e2-e4, d4-d5(2); castling e1-g1".into(),
            position_notation: "every square's tower top first (see the plugin documentation)".into(),
            start_position: arbiter_api::kit::Game::position_text(&start),
            options: vec![
                OptionSpec {
                    name: "demotion".into(),
                    kind: "choice".into(),
                    default: "enemy-cover".into(),
                    choices: vec!["enemy-cover".into(), "any-cover".into()],
                    description: "T3: a promoted pawn reverts when an enemy piece covers it, or when any piece does."
                        .into(),
                },
                OptionSpec {
                    name: "repetitions".into(),
                    kind: "int".into(),
                    default: 3.into(),
                    choices: Vec::new(),
                    description: "T7: occurrences of the full stack configuration that draw (0: off).".into(),
                },
                OptionSpec {
                    name: "quiet_moves".into(),
                    kind: "int".into(),
                    default: 50.into(),
                    choices: Vec::new(),
                    description: "T7: moves by each side without a pawn-top move or a capture that draw (0: off)."
                        .into(),
                },
            ],
            capabilities: Capabilities { hidden_information: false, evaluate: false, sample_world: false },
            default_time_control: "300+3".into(),
            max_plies: None,
            record_tags: Vec::new(),
        }
    }

    fn new_game(&self, options: &Map<String, Value>) -> Result<TavreliGame, Error> {
        let (rules, draws) = settings(options);
        Ok(TavreliGame::new(Position::start(), 0, rules, draws))
    }

    fn from_position(&self, text: &str, options: &Map<String, Value>) -> Result<TavreliGame, Error> {
        let (rules, draws) = settings(options);
        let (pos, clock) = game::parse_position(text)?;
        Ok(TavreliGame::new(pos, clock, rules, draws))
    }

    /// The chess figurines for the pieces that move as chess pieces do (the
    /// Magus as the king); Helgi keeps its letter.
    fn piece_sets(&self) -> Vec<PieceSet> {
        let glyphs =
            [("magus", "♚"), ("prince", "♛"), ("warrior", "♜"), ("archer", "♝"), ("horseman", "♞"), ("pawn", "♟")];
        vec![PieceSet::new("figurines", true, &glyphs)]
    }
}

arbiter_api::export_plugin!(Tavreli);
