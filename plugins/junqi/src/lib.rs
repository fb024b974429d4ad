//! Junqi (Luzhanqi), the two-player dark game with a referee, for arbiter
//! (RULES.md §2 and §7.1). Players see every occupied point but only their own
//! pieces' ranks; combats announce only their verdict; a marshal's death
//! reveals its side's flag.
//!
//! Notation. Deployment actions: kind code (`9`..`1` for ranks 40..32, `L`
//! mine, `B` bomb, `F` flag), `@`, cell (`F@L1`); the opponent sees
//! `deploy@L1`. Moves: `G0-F0`, attacks `G0xF0`; every viewer but the mover
//! (who asks for its texts before moving) gets the verdict appended
//! (`G0xF0:attacker_won`). Cells are the row letter A (Blue's back row) to L
//! (Red's) and the column 0..4.
//!
//! Position text (the referee's full state, round-trips):
//! `PHASE SIDE quiet=N revealed=R winner=W last=FROM-TO:VERDICT | ROWS | dead=PIECES`
//! with PHASE `deploy` or `move`, SIDE `r`/`b`, ROWS twelve `/`-separated
//! rows of five `,`-separated cells, each `.` or a piece `<r|b><code><mask>`
//! where the hexadecimal mask is the set of kinds its opponent still thinks
//! it could be (bit i = kind i in the order 40..32, mine, bomb, flag).
//! A deploy-phase text with both sides complete is a starting layout.

pub mod board;
pub mod game;
pub mod pieces;

use arbiter_api::kit::Variant;
use arbiter_api::schema::{BoardGeometry, Capabilities, Edge, OptionSpec, PieceSet, Point, VariantInfo};
use arbiter_api::Error;
use serde_json::{Map, Value};

use board::CellKind;
use game::{JunqiGame, Options, Side};

/// The `junqi` variant.
pub struct Junqi;

fn options(map: &Map<String, Value>) -> Options {
    let d = Options::default();
    Options {
        middle_railway: map.get("middle_crossing").and_then(Value::as_str).map_or(d.middle_railway, |v| v == "railway"),
        quiet_limit: map.get("quiet_plies").and_then(Value::as_u64).map_or(d.quiet_limit, |v| v as u32),
        first: map.get("first_player").and_then(Value::as_str).map_or(d.first, |v| {
            if v == "blue" {
                Side::Blue
            } else {
                Side::Red
            }
        }),
    }
}

/// The board for renderers: the 60 cells (indices as in the notation), then
/// the two mountains of the front line (columns 1 and 3, where no piece
/// crosses), which hold no piece.
fn geometry() -> BoardGeometry {
    let mountains =
        [1, 3].map(|x| Point { name: format!("mountain {x}"), x: x as f32, y: 5.75, kind: "mountain".into() });
    let points = (0..board::CELLS)
        .map(|c| Point {
            name: board::name(c),
            x: (c % 5) as f32,
            y: (11 - c / 5) as f32 + if c / 5 <= 5 { 0.5 } else { 0.0 },
            kind: match board::kind(c) {
                CellKind::Post => "post",
                CellKind::Station => "station",
                CellKind::Camp => "camp",
                CellKind::Headquarters => "headquarters",
            }
            .into(),
        })
        .chain(mountains)
        .collect();
    let rail = board::rail_graph(&board::rail_lines(true));
    let roads = board::roads();
    let mut edges = Vec::new();
    for a in 0..board::CELLS {
        for &b in &roads[a] {
            if a < b {
                edges.push(Edge {
                    a: a as u32,
                    b: b as u32,
                    kind: if rail[a].contains(&b) { "railway" } else { "road" }.into(),
                });
            }
        }
    }
    BoardGeometry::Graph { points, edges }
}

impl Variant for Junqi {
    type Game = JunqiGame;

    fn info(&self) -> VariantInfo {
        let choice = |name: &str, default: &str, choices: [&str; 2], description: &str| OptionSpec {
            name: name.into(),
            kind: "choice".into(),
            default: default.into(),
            choices: choices.map(String::from).to_vec(),
            description: description.into(),
        };
        VariantInfo {
            id: "junqi".into(),
            name: "Junqi (Luzhanqi)".into(),
            summary: "The two-player dark game with a referee on the 12x5 board: each side deploys its 25 pieces \
                      secretly, then pieces step by road or run along railways (engineers turn corners), attack by \
                      moving onto an enemy, and the referee announces only who won. Capturing the flag wins; a side \
                      without a move loses; 70 plies without combat draw; a marshal's death reveals its flag. \
                      Piece codes in moves and on the board: 9 marshal, 8 general, 7 major-general, 6 brigadier, \
                      5 colonel, 4 major, 3 captain, 2 lieutenant, 1 engineer, L landmine, B bomb, F flag \
                      (the higher rank wins and equal ranks both fall; a bomb and what it meets both fall; a \
                      landmine stops every attacker but an engineer, which takes it, and a bomb)."
                .into(),
            players: vec!["Red".into(), "Blue".into()],
            board: geometry(),
            notation:
                "deployment F@L1 (kind code @ cell); moves G0-F0, attacks G0xF0 (other viewers read G0xF0:attacker_won)"
                    .into(),
            position_notation: "the referee's full state (see the plugin documentation)".into(),
            start_position: game::JunqiGame::new(Options::default()).position_text_for_info(),
            options: vec![
                choice(
                    "middle_crossing",
                    "railway",
                    ["railway", "road"],
                    "J1: the middle front crossing is a railway or a road.",
                ),
                OptionSpec {
                    name: "quiet_plies".into(),
                    kind: "int".into(),
                    default: 70.into(),
                    choices: Vec::new(),
                    description: "Plies without combat that draw the game (0: never).".into(),
                },
                choice("first_player", "red", ["red", "blue"], "J9: who moves first after deployment."),
            ],
            capabilities: Capabilities { hidden_information: true, evaluate: true, sample_world: true },
            default_time_control: "inf,cap=4500".into(),
            max_plies: None,
            record_tags: Vec::new(),
        }
    }

    fn new_game(&self, opts: &Map<String, Value>) -> Result<JunqiGame, Error> {
        Ok(JunqiGame::new(options(opts)))
    }

    fn from_position(&self, text: &str, opts: &Map<String, Value>) -> Result<JunqiGame, Error> {
        game::parse_position(text, options(opts))
    }

    /// Rank numbers and letters (the default), or the Chinese characters
    /// printed on real pieces.
    fn piece_sets(&self) -> Vec<PieceSet> {
        let codes: Vec<(String, String)> =
            pieces::NAMES.iter().zip(pieces::CODES).map(|(n, c)| (n.to_string(), c.to_string())).collect();
        let codes: Vec<(&str, &str)> = codes.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
        let chinese: Vec<(&str, &str)> = pieces::NAMES.iter().copied().zip(pieces::CHINESE).collect();
        vec![PieceSet::new("rank numbers", false, &codes), PieceSet::new("Chinese characters", false, &chinese)]
    }
}

arbiter_api::export_plugin!(Junqi);
