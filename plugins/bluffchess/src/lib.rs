//! Bluff chess for arbiter (RULES.md §1 and §7.3): FIDE chess where the
//! piece a side moves carries its alter ego, capturing the opponent's alter
//! ego wins, and a "death move" (one the opponent can answer by capturing the
//! moved piece) is followed by a hidden decision: stay, or transfer the alter
//! ego to another own piece, which must then move next turn. Chess rules come
//! from the chess-rules crate; this crate adds only the alter ego.
//!
//! Perft convention: "split" — a death move and its decision are two actions
//! of the same player.
//!
//! Records: each action is a ply of its own in the move text: SAN moves,
//! `pass` for a lost turn, and the decision after a death move as `d-` (stay)
//! or `d` and the square of the transfer piece (`dg8`). The referee's record
//! replays through the plugin (`arbiter replay`); an export for one player
//! (`--as`) shows the opponent's decisions as `d?`.

pub mod game;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{Capabilities, OptionSpec, PieceSet, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

pub use game::BluffGame;

/// The `bluffchess` variant.
pub struct BluffChess;

impl Variant for BluffChess {
    type Game = BluffGame;

    fn info(&self) -> VariantInfo {
        VariantInfo {
            id: "bluffchess".into(),
            name: "Bluff chess".into(),
            summary: "FIDE chess plus an alter ego: the piece you move carries it, and capturing the piece that holds \
                      the opponent's alter ego wins (as does checkmate). After a death move (the opponent can capture \
                      the moved piece) you decide in secret to stay or to transfer the alter ego to another of your \
                      pieces, which must then move next turn: if it cannot, you pass, or lose by empty mate when in \
                      check. The decision is revealed once the opponent has moved."
                .into(),
            players: vec!["White".into(), "Black".into()],
            board: chess_rules::chess_board(),
            notation:
                "SAN for moves (UCI accepted); a decision is d- (stay) or d followed by the transfer square (de4); \
                       a lost turn is pass. Opponents see a hidden decision as d?"
                    .into(),
            position_notation: "FEN | A:<white alter ego>,<black alter ego> M:<white must-move>,<black must-move> \
                                L:<white last moved>,<black last moved> D:<piece awaiting a decision> \
                                H:<side whose decision is hidden> X:<winner by alter-ego capture> (squares, w/b or -; \
                                the referee's full state)"
                .into(),
            start_position: game::START.into(),
            options: vec![
                OptionSpec {
                    name: "death_test".into(),
                    kind: "choice".into(),
                    default: "legal".into(),
                    choices: vec!["legal".into(), "pseudo-legal".into()],
                    description: "B1: whether a death move needs a legal capture of the moved piece (FIDE legality) \
                                  or any pseudo-legal one."
                        .into(),
                },
                OptionSpec {
                    name: "castling_piece".into(),
                    kind: "choice".into(),
                    default: "king".into(),
                    choices: vec!["king".into(), "rook".into()],
                    description: "B5: which piece takes the alter ego when castling (the king: castling is then \
                                  never a death move)."
                        .into(),
                },
                OptionSpec {
                    name: "transfer_to_king".into(),
                    kind: "bool".into(),
                    default: true.into(),
                    choices: Vec::new(),
                    description:
                        "B6: whether the king may receive a transferred alter ego (attacked pieces always may).".into(),
                },
            ],
            capabilities: Capabilities { hidden_information: true, evaluate: true, sample_world: true },
            default_time_control: "300+3".into(),
            max_plies: None,
            record_tags: Vec::new(),
        }
    }

    fn new_game(&self, options: &Map<String, Value>) -> Result<BluffGame, Error> {
        self.from_position(game::START, options)
    }

    fn from_position(&self, text: &str, options: &Map<String, Value>) -> Result<BluffGame, Error> {
        let get = |k: &str| options.get(k).and_then(Value::as_str);
        let opts = game::Options {
            pseudo_legal_death: get("death_test") == Some("pseudo-legal"),
            castling_rook: get("castling_piece") == Some("rook"),
            transfer_to_king: options.get("transfer_to_king").and_then(Value::as_bool).unwrap_or(true),
        };
        BluffGame::parse(text, opts)
    }

    fn piece_sets(&self) -> Vec<PieceSet> {
        vec![PieceSet::chess_figurines()]
    }
}

arbiter_api::export_plugin!(BluffChess);
