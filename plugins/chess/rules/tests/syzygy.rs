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
    assert!(seen.contains_key(&2) && seen.contains_key(&-2) && seen.contains_key(&0), "{seen:?}");
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

/// A folder holding the shipped tables, with `KQvK.rtbw` replaced by `bytes`.
fn folder_with_bad_table(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-syzygy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(tables()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    std::fs::write(dir.join("KQvK.rtbw"), bytes).unwrap();
    dir
}

/// Deterministic noise (a linear congruential sequence).
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}

#[test]
fn every_shipped_table_passes_the_layout_check() {
    assert_eq!(chess_rules::syzygy::layout::check_folders(&tables()).unwrap(), 14);
    let game = ChessGame::from_fen("8/8/4k3/8/8/8/1Q6/K7 b - - 0 1", true).unwrap();
    let mut game = game;
    let answer = game.call_json("check_tablebases", &json!({ "tablebases": { "path": tables() } })).unwrap();
    assert_eq!(answer, json!({ "tables": 14 }));
}

#[test]
fn a_damaged_table_is_refused_naming_the_file_before_the_prober_maps_it() {
    let good = std::fs::read(format!("{}/KQvK.rtbw", tables())).unwrap();
    let mut magic_then_garbage = good[..4].to_vec();
    magic_then_garbage.extend(noise(64 * 20 + 12, 1));
    let cut = good[..good.len() / 2 / 64 * 64 + 16].to_vec();
    let mut header_garbled = good.clone();
    header_garbled[5..12].copy_from_slice(&noise(7, 2));
    let mut extended = good.clone();
    extended.extend([0u8; 64]);
    let cases: [(&str, Vec<u8>, &str); 6] = [
        ("empty", Vec::new(), "empty file"),
        ("five-bytes", noise(5, 3), "is not a Syzygy table's size"),
        ("magic-then-garbage", magic_then_garbage, ""),
        ("cut", cut, ""),
        ("header", header_garbled, ""),
        ("extended", extended, "its layout needs"),
    ];
    for (name, bytes, why) in cases {
        let dir = folder_with_bad_table(name, &bytes);
        let err = chess_rules::syzygy::check(dir.to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains(&format!("{}/KQvK.rtbw: ", dir.display())), "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
        assert!(!err.contains('\n'), "{name}: one line: {err}");
        // Probing refuses too, with the same line, and maps nothing.
        let request =
            Request { path: dir.to_string_lossy().into_owned(), pieces: None, ignore50: false, results: "both".into() };
        let game = ChessGame::from_fen("8/8/4k3/8/8/8/1Q6/K7 b - - 0 1", true).unwrap();
        let probed = probe(game.board(), 0, &request).unwrap_err().to_string();
        assert!(probed.contains("KQvK.rtbw"), "{name}: {probed}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn no_single_damaged_byte_makes_the_check_panic() {
    // Every byte of the small tables' headers and a spread of the rest,
    // each set to a few values: the check answers, whatever it answers.
    for table in ["KQvK", "KPvK", "KRvKR", "KBNvK"] {
        let good = std::fs::read(format!("{}/{table}.rtbw", tables())).unwrap();
        let dir = std::env::temp_dir().join(format!("arbiter-syzygy-bytes-{table}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let offsets: Vec<usize> = (0..good.len().min(400)).chain((400..good.len()).step_by(97)).collect();
        for at in offsets {
            for value in [0u8, 0xff, good[at] ^ 0x10] {
                let mut bytes = good.clone();
                bytes[at] = value;
                std::fs::write(dir.join(format!("{table}.rtbw")), &bytes).unwrap();
                let _ = chess_rules::syzygy::layout::check_folders(dir.to_str().unwrap());
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
