//! FIDE chess rules for arbiter: the [`Chess`] variant and its [`ChessGame`],
//! FEN ([`fen`]) and SAN/UCI notation ([`san`]). Move generation is
//! cozy-chess's; this crate adds the Laws around it (game endings, draw
//! claims, notation, validation). Bluff chess builds on the same types.

pub mod fen;
pub mod game;
pub mod san;
#[cfg(not(target_arch = "wasm32"))]
pub mod syzygy;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{BoardGeometry, Capabilities, OptionSpec, PieceSet, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

pub use game::ChessGame;

/// The `chess` variant: FIDE Laws of Chess.
#[derive(Default)]
pub struct Chess;

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

fn chess960(options: &Map<String, Value>) -> bool {
    options.get("chess960").and_then(Value::as_bool).unwrap_or(false)
}

/// The Chess960 start numbered `key` in `options` (Scharnagl's numbering,
/// 0 to 959; 518 is the standard array), `default` if absent.
fn start_number(options: &Map<String, Value>, key: &str, default: u32) -> Result<u32, Error> {
    match options.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|&n| n < 960)
            .map(|n| n as u32)
            .ok_or_else(|| Error::bad_position(format!("option {key}: {v} is not a start number from 0 to 959"))),
    }
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
            options: vec![
                OptionSpec {
                    name: "chess960".into(),
                    kind: "bool".into(),
                    default: Value::Bool(false),
                    choices: Vec::new(),
                    description: "Chess960 (Fischer random): the start from start_number, castling rights in X-FEN \
                                  or Shredder-FEN, castling as king takes rook in UCI (engines are told UCI_Chess960)."
                        .into(),
                },
                OptionSpec {
                    name: "start_number".into(),
                    kind: "int".into(),
                    default: Value::from(518),
                    choices: Vec::new(),
                    description: "With chess960: the start position's number, 0 to 959 (518 is the standard array)."
                        .into(),
                },
                OptionSpec {
                    name: "black_start_number".into(),
                    kind: "int".into(),
                    default: Value::from(-1),
                    choices: Vec::new(),
                    description:
                        "With chess960: Black's array by its own number (Double Fischer Random); -1: as White's.".into(),
                },
                OptionSpec {
                    name: "automatic_draws".into(),
                    kind: "bool".into(),
                    default: Value::Bool(true),
                    choices: Vec::new(),
                    description:
                        "End the game on dead position, fivefold repetition and the 75-move rule (FIDE 5.2.2, \
                              9.6). Off: the game goes on until mate or stalemate, as published perft counts assume."
                            .into(),
                },
            ],
            capabilities: Capabilities { hidden_information: false, evaluate: true, sample_world: false },
            default_time_control: "60+0.6".into(),
            max_plies: None,
            record_tags: Vec::new(),
        }
    }

    fn new_game(&self, options: &Map<String, Value>) -> Result<ChessGame, Error> {
        if !chess960(options) {
            return ChessGame::from_fen(fen::START_FEN, automatic_draws(options));
        }
        let white = start_number(options, "start_number", 518)?;
        let black = match options.get("black_start_number").and_then(Value::as_i64) {
            Some(-1) | None => white,
            Some(_) => start_number(options, "black_start_number", white)?,
        };
        let board = cozy_chess::Board::double_chess960_startpos(white, black);
        ChessGame::from_fen_with(&fen::write_fen_with(&board, 0, true), automatic_draws(options), true)
    }

    fn from_position(&self, text: &str, options: &Map<String, Value>) -> Result<ChessGame, Error> {
        ChessGame::from_fen_with(text, automatic_draws(options), chess960(options))
    }

    fn piece_sets(&self) -> Vec<PieceSet> {
        vec![PieceSet::chess_figurines()]
    }
}
