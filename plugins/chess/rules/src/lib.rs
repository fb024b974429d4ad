//! FIDE chess rules for arbiter: the [`Chess`] variant and its [`ChessGame`],
//! FEN ([`fen`]) and SAN/UCI notation ([`san`]). Move generation is
//! cozy-chess's; this crate adds the Laws around it (game endings, draw
//! claims, notation, validation). Bluff chess builds on the same types.

pub mod fen;
pub mod game;
pub mod san;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{BoardGeometry, Capabilities, OptionSpec, PieceSet, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

pub use game::ChessGame;

/// The `chess` variant: FIDE Laws of Chess.
#[derive(Default)]
pub struct Chess;

/// Chess pieces as Unicode figurines (drawn in their owner's colour; the
/// glyphs come from the viewer's fonts, nothing is bundled), for any variant
/// whose observations name pieces as chess does.
pub fn figurines() -> PieceSet {
    PieceSet::new(
        "figurines",
        true,
        &[("king", "♚"), ("queen", "♛"), ("rook", "♜"), ("bishop", "♝"), ("knight", "♞"), ("pawn", "♟")],
    )
}

/// The 8x8 board with files a-h and ranks 1-8, for any chess-like variant.
pub fn chess_board() -> BoardGeometry {
    BoardGeometry::Grid {
        width: 8,
        height: 8,
        checkered: true,
        files: "abcdefgh".chars().map(String::from).collect(),
        ranks: (1..=8).map(|r| r.to_string()).collect(),
    }
}

fn automatic_draws(options: &Map<String, Value>) -> bool {
    options.get("automatic_draws").and_then(Value::as_bool).unwrap_or(true)
}

impl Variant for Chess {
    type Game = ChessGame;

    fn info(&self) -> VariantInfo {
        VariantInfo {
            id: "chess".into(),
            name: "FIDE chess".into(),
            summary: "Chess under the FIDE Laws: castling, en passant, promotion, check, mate and stalemate. \
                      Dead positions (K v K, K+minor v K, bishops all on one colour), fivefold repetition and \
                      the 75-move rule end the game automatically; threefold repetition and the 50-move rule \
                      are reported as claimable draws."
                .into(),
            players: vec!["White".into(), "Black".into()],
            board: chess_board(),
            notation: "SAN (Nf3, exd5, O-O, e8=Q+); UCI long algebraic (g1f3, e7e8q) is accepted".into(),
            position_notation: "FEN".into(),
            start_position: fen::START_FEN.into(),
            options: vec![OptionSpec {
                name: "automatic_draws".into(),
                kind: "bool".into(),
                default: Value::Bool(true),
                choices: Vec::new(),
                description: "End the game on dead position, fivefold repetition and the 75-move rule (FIDE 5.2.2, \
                              9.6). Off: the game goes on until mate or stalemate, as published perft counts assume."
                    .into(),
            }],
            capabilities: Capabilities { hidden_information: false, evaluate: true, sample_world: false },
            default_time_control: "60+0.6".into(),
            max_plies: None,
            record_tags: Vec::new(),
        }
    }

    fn new_game(&self, options: &Map<String, Value>) -> Result<ChessGame, Error> {
        ChessGame::from_fen(fen::START_FEN, automatic_draws(options))
    }

    fn from_position(&self, text: &str, options: &Map<String, Value>) -> Result<ChessGame, Error> {
        ChessGame::from_fen(text, automatic_draws(options))
    }

    fn piece_sets(&self) -> Vec<PieceSet> {
        vec![figurines()]
    }
}
