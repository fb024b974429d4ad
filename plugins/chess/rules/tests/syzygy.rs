//! Tablebase adjudication against an independent prober: positions of every
//! material in `tests/syzygy/` (tables made with the Syzygy generator, whose
//! embedded checksums its `tbcheck` verified), probed by our prober
//! (pyrrhic-rs with cozy-chess's attacks) and by python-chess's own Syzygy
//! reader, must agree position by position; and the `adjudicate` call's
//! answers follow fastchess's rules.

use arbiter_api::kit::Game;
use chess_rules::syzygy::{probe, Request};
use chess_rules::ChessGame;
use pyrrhic_rs::WdlProbeResult;
use serde_json::{json, Value};

fn tables() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/syzygy").to_string()
}

fn request() -> Request {
    Request { path: tables(), pieces: None, ignore50: false, results: "both".into() }
}

/// Random legal positions of every material the folder holds, each with
/// python-chess's WDL for the side to move (-2 loss .. 2 win), as
/// `FEN|wdl` lines.
const POSITIONS: &str = r#"
import chess, chess.syzygy, os, random, sys
folder = sys.argv[1]
tb = chess.syzygy.open_tablebase(folder)
rng = random.Random(5)
kinds = {'K': chess.KING, 'Q': chess.QUEEN, 'R': chess.ROOK, 'B': chess.BISHOP, 'N': chess.KNIGHT, 'P': chess.PAWN}
for name in sorted(n for n in os.listdir(folder) if n.endswith('.rtbw')):
    white, black = name.split('.')[0].split('v')
    found = 0
    while found < 150:
        b = chess.Board(None)
        squares = rng.sample(range(64), len(white) + len(black))
        for colour, side in ((chess.WHITE, white), (chess.BLACK, black)):
            for letter in side:
                b.set_piece_at(squares.pop(), chess.Piece(kinds[letter], colour))
        b.turn = rng.choice([chess.WHITE, chess.BLACK])
        if not b.is_valid():
            continue
        print(f"{b.fen()}|{tb.probe_wdl(b)}")
        found += 1
"#;

fn wdl_number(w: WdlProbeResult) -> i32 {
    match w {
        WdlProbeResult::Loss => -2,
        WdlProbeResult::BlessedLoss => -1,
        WdlProbeResult::Draw => 0,
        WdlProbeResult::CursedWin => 1,
        WdlProbeResult::Win => 2,
    }
}

#[test]
fn every_probe_agrees_with_python_chess_s_syzygy_reader() {
    let out = std::process::Command::new("python3").args(["-c", POSITIONS, &tables()]).output().expect("python3");
    assert!(out.status.success(), "python-chess: {}", String::from_utf8_lossy(&out.stderr));
    let lines = String::from_utf8(out.stdout).unwrap();
    let mut seen = std::collections::BTreeMap::<i32, usize>::new();
    for line in lines.lines() {
        let (fen, theirs) = line.split_once('|').unwrap();
        let theirs: i32 = theirs.parse().unwrap();
        let game = ChessGame::from_fen(fen, true).unwrap();
        let ours = probe(game.board(), 0, &request()).unwrap().unwrap_or_else(|| panic!("{fen}: not probed"));
        assert_eq!(wdl_number(ours), theirs, "{fen}");
        *seen.entry(theirs).or_default() += 1;
    }
    assert_eq!(lines.lines().count(), 14 * 150);
    // Wins, losses and draws all occur (cursed and blessed ones need more pieces).
    assert!(seen.get(&2).is_some() && seen.get(&-2).is_some() && seen.get(&0).is_some(), "{seen:?}");
}

/// The `adjudicate` call on `fen` with `tablebases` settings.
fn ask(fen: &str, tablebases: Value) -> Result<Value, arbiter_api::Error> {
    ChessGame::from_fen(fen, true).unwrap().call_json("adjudicate", &json!({ "tablebases": tablebases }))
}

#[test]
fn the_adjudicate_call_follows_fastchess_s_rules() {
    let path = tables();
    let both = json!({ "path": path });
    // KQ v K, Black to move, just after a capture: White wins.
    let won = ask("8/8/4k3/8/8/8/1Q6/K7 b - - 0 1", both.clone()).unwrap();
    assert_eq!(won["outcome"], json!({"win": 0}), "{won}");
    assert_eq!(won["reason"], "Syzygy tablebases: White wins");
    // The same a move later: the fifty-move counter is not zero, so not probed.
    assert_eq!(ask("8/8/4k3/8/8/8/1Q6/K7 b - - 1 1", both.clone()).unwrap(), Value::Null);
    // K+B v K: drawn.
    let drawn = ask("8/8/4k3/8/8/8/1B6/K7 b - - 0 1", both.clone()).unwrap();
    assert_eq!(drawn["outcome"], "draw", "{drawn}");
    // Only the verdicts asked for end a game.
    assert_eq!(
        ask("8/8/4k3/8/8/8/1B6/K7 b - - 0 1", json!({"path": path, "results": "win-loss"})).unwrap(),
        Value::Null
    );
    assert_eq!(ask("8/8/4k3/8/8/8/1Q6/K7 b - - 0 1", json!({"path": path, "results": "draw"})).unwrap(), Value::Null);
    // More pieces than asked for, castling rights, or a material without tables: played on.
    assert_eq!(ask("8/8/4k3/8/8/8/1Q6/K7 b - - 0 1", json!({"path": path, "pieces": 2})).unwrap(), Value::Null);
    assert_eq!(ask("4k3/8/8/8/8/8/8/R3K3 b Q - 0 1", both.clone()).unwrap(), Value::Null);
    assert_eq!(ask("4k3/8/8/8/8/8/PP6/R3K3 b - - 0 1", both.clone()).unwrap(), Value::Null);
    // Without tablebases chess has no adjudication of its own; bad settings are named.
    let none = ChessGame::from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", true).unwrap().call_json("adjudicate", &json!({}));
    assert_eq!(none.unwrap_err().kind, arbiter_api::ErrorKind::Unsupported);
    let bad = ask("8/8/4k3/8/8/8/1Q6/K7 b - - 0 1", json!({"path": path, "results": "sometimes"})).unwrap_err();
    assert!(bad.to_string().contains("results must be both, win-loss or draw"), "{bad}");
}
