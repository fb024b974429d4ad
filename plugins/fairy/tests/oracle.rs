//! The ini plugin against Fairy-Stockfish's rules (pyffish, an independent
//! oracle run as a separate Python process, never linked): for every
//! variant of the list, the start position, and positions of seeded random
//! games, must give the same FEN, the same legal moves, and the same perft
//! counts. A fast sample runs by default; the long run is `--ignored`.

use arbiter_api::kit::{Game, Variant};
use arbiter_fairy::{installed, FairyVariant};
use serde_json::Value;

/// The variants the plugin plays exactly, by Fairy-Stockfish's name.
pub const EXACT: &[&str] = &[
    "chess",
    "normal",
    "nocastle",
    "kingofthehill",
    "3check",
    "5check",
    "crazyhouse",
    "loop",
    "chessgi",
    "pocketknight",
    "capahouse",
    "antichess",
    "giveaway",
    "losers",
    "extinction",
    "horde",
    "misere",
    "capablanca",
    "gothic",
    "embassy",
    "janus",
    "centaur",
    "chancellor",
    "modern",
    "amazon",
    "almost",
    "sortofalmost",
    "chigorin",
    "hoppelpoppel",
    "newzealand",
    "knightmate",
    "nightrider",
    "grasshopper",
    "torpedo",
    "shako",
    "gardner",
    "losalamos",
    "makruk",
    "ai-wok",
    "asean",
    "shatranj",
    "chaturanga",
    "breakthrough",
    "clobber",
    "clobber10",
    "shogi",
    "minishogi",
    "mini",
    "judkins",
    "gorogoro",
    "xiangqi",
    "minixiangqi",
];

fn variant(name: &str) -> FairyVariant {
    let all = installed();
    all.into_iter().find(|v| v.rules.id == name).unwrap_or_else(|| panic!("no ini variant {name}"))
}

fn oracle(variants: &[&str], depth: u32, games: u32, plies: u32) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle.py");
    let out = std::process::Command::new("python3")
        .args([script, &variants.join(","), &depth.to_string(), &games.to_string(), &plies.to_string()])
        .output()
        .expect("python3");
    assert!(out.status.success(), "pyffish (pip install pyffish): {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn agree(variants: &[&str], depth: u32, games: u32, plies: u32) {
    let mut failures = Vec::new();
    for case in oracle(variants, depth, games, plies) {
        let name = case["variant"].as_str().unwrap();
        let fen = case["fen"].as_str().unwrap();
        let v = variant(name);
        let game = match v.from_position(fen, &Default::default()) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name} {fen}: {e}"));
                continue;
            }
        };
        // A start position may be written without castling and en passant fields.
        let fen_long = fen.replace("[-]", "[]");
        let fields: Vec<&str> = fen_long.split_whitespace().collect();
        let long = match fields.as_slice() {
            [board, side, half, full] => format!("{board} {side} - - {half} {full}"),
            _ => fen.to_string(),
        };
        if game.position_text() != long {
            failures.push(format!("{name}: FEN {fen} written back as {}", game.position_text()));
        }
        let mut ids = Vec::new();
        game.legal_moves(&mut ids);
        let mut ours: Vec<String> = ids.iter().map(|&m| game.move_text(m, arbiter_api::Viewer::Referee)).collect();
        ours.sort();
        let theirs: Vec<String> =
            case["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
        if ours != theirs && !(ours.is_empty() && game.status().outcome != arbiter_api::Outcome::Ongoing) {
            let extra: Vec<&String> = ours.iter().filter(|m| !theirs.contains(m)).collect();
            let missing: Vec<&String> = theirs.iter().filter(|m| !ours.contains(m)).collect();
            failures.push(format!("{name} {fen}: moves: extra {extra:?}, missing {missing:?}"));
            continue;
        }
        // Every move leads where Fairy-Stockfish's does, counters and all.
        for &id in &ids {
            let text = game.move_text(id, arbiter_api::Viewer::Referee);
            let mut child = game.clone();
            child.play(id);
            let want = case["children"][&text].as_str().unwrap_or_default();
            if child.position_text() != want {
                failures
                    .push(format!("{name} {fen}: after {text}: {} , Fairy-Stockfish {want}", child.position_text()));
            }
        }
        for (d, want) in case["counts"].as_array().unwrap().iter().enumerate() {
            let got = game.perft(d as u32 + 1);
            if got != want.as_u64().unwrap() {
                failures.push(format!("{name} {fen}: perft {} is {got}, Fairy-Stockfish says {want}", d + 1));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_exact_variant_agrees_with_fairy_stockfish_on_a_sample() {
    // ARBITER_ORACLE_VARIANTS=a,b checks those instead (while writing a definition).
    match std::env::var("ARBITER_ORACLE_VARIANTS") {
        Ok(list) => agree(&list.split(',').collect::<Vec<_>>(), 2, 3, 40),
        Err(_) => agree(EXACT, 2, 2, 30),
    }
}

#[test]
#[ignore = "long: perft 3 over 8 random games per variant"]
fn every_exact_variant_agrees_with_fairy_stockfish_at_depth_3() {
    agree(EXACT, 3, 8, 60);
}

#[test]
fn start_positions_are_the_ones_fairy_stockfish_gives() {
    for v in installed() {
        let game = v.new_game(&Default::default()).unwrap();
        assert_eq!(game.position_text(), v.info().start_position, "{}", v.id);
    }
}

#[test]
fn every_built_in_section_loads() {
    let names: Vec<String> =
        arbiter_fairy::ini::parse("built-in", arbiter_fairy::BUILT_IN).unwrap().into_iter().map(|s| s.name).collect();
    let problems: Vec<String> =
        names.iter().filter_map(|n| FairyVariant::from_ini("", n).err().map(|e| format!("{n}: {e}"))).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(installed().len(), names.len());
}

/// Fairy-Stockfish's word on whether `fen` has ended by an immediate rule.
fn ended_by_fairy_stockfish(variant: &str, fen: &str) -> bool {
    let script = "import pyffish as sf, sys; print(sf.is_immediate_game_end(sys.argv[1], sys.argv[2], [])[0])";
    let out = std::process::Command::new("python3").args(["-c", script, variant, fen]).output().expect("python3");
    String::from_utf8_lossy(&out.stdout).trim() == "True"
}

#[test]
fn immediate_ends_agree_with_fairy_stockfish_on_crafted_positions() {
    let cases: &[(&str, &str)] = &[
        ("shatranj", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"),
        ("shatranj", "8/8/8/4k3/8/8/8/R3K3 b - - 0 1"),
        ("shatranj", "8/8/8/3rk3/8/8/8/R3K3 w - - 0 1"),
        ("shatranj", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        ("kingofthehill", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        ("kingofthehill", "8/8/8/3K4/8/8/8/4k3 b - - 0 1"),
        ("3check", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0+3 0 1"),
        ("antichess", "8/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("horde", "rnbqkbnr/pppppppp/8/8/8/8/8/8 w kq - 0 1"),
        ("breakthrough", "P7/8/8/8/8/8/8/7p b - - 0 1"),
        ("losers", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("losers", "4k3/8/8/8/8/8/3N4/4K3 b - - 0 1"),
        ("losers", "4k3/8/8/3n4/8/8/3P4/4K3 w - - 0 1"),
        ("extinction", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w - - 0 1"),
        ("3check", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0+3 0 1"),
        ("extinction", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBK1BNR w - - 0 1"),
    ];
    let mut failures = Vec::new();
    for &(name, fen) in cases {
        let game = variant(name).from_position(fen, &Default::default()).unwrap();
        let ours = game.status().outcome != arbiter_api::Outcome::Ongoing;
        let theirs = ended_by_fairy_stockfish(name, fen);
        if ours != theirs {
            failures
                .push(format!("{name} {fen}: ours ended={ours} ({:?}), Fairy-Stockfish ended={theirs}", game.status()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
