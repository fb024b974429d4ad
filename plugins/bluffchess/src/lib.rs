//! Bluff chess for arbiter (RULES.md §1 and §7.3): FIDE chess where the
//! piece a side moves carries its alter ego, capturing the opponent's alter
//! ego wins, and a "death move" (one the opponent can answer by capturing the
//! moved piece) is followed by a hidden decision: stay, or transfer the alter
//! ego to another own piece, which must then move next turn. Chess rules come
//! from the chess-rules crate; this crate adds only the alter ego.
//!
//! Perft convention: "split" — a death move and its decision are two actions
//! of the same player. Automatic draws are ignored by in-plugin perft.

pub mod game;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{Capabilities, OptionSpec, VariantInfo};
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
            options: vec![OptionSpec {
                name: "death_test".into(),
                kind: "choice".into(),
                default: "legal".into(),
                choices: vec!["legal".into(), "pseudo-legal".into()],
                description: "Whether a death move needs a legal capture of the moved piece (FIDE legality, the \
                              recommended reading of B1) or any pseudo-legal one."
                    .into(),
            }],
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
        let pseudo = options.get("death_test").and_then(Value::as_str) == Some("pseudo-legal");
        BluffGame::parse(text, pseudo)
    }
}

arbiter_api::export_plugin!(BluffChess);
