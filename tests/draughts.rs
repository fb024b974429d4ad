//! The draughts plugin loaded from its `.so`: perft through the host, and a
//! game between the real `dame hub` engine (pip install dame-rs) and mcts,
//! recorded as PDN and replayed.

use arbiter_e2e::{arbiter, temp_dir};

#[test]
fn every_draughts_variant_is_listed() {
    let run = arbiter(&["list"]);
    for id in ["international", "brazilian", "russian", "checkers"] {
        assert!(
            run.stdout.lines().any(|l| l.starts_with(&format!("{id} ")) && l.contains("libarbiter_draughts.so")),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn perft_through_the_host_matches_the_published_counts() {
    let run = arbiter(&["perft", "international", "--depth", "7"]);
    assert!(run.stdout.contains("Nodes searched: 1049442"), "{}{}", run.stdout, run.stderr);
    let run = arbiter(&["perft", "international", "--depth", "6", "--generic"]);
    assert!(run.stdout.contains("Nodes searched: 167140"), "{}", run.stdout);
    let run = arbiter(&["perft", "checkers", "--depth", "8"]);
    assert!(run.stdout.contains("Nodes searched: 845931"), "{}", run.stdout);
}

#[test]
fn dame_hub_plays_mcts_and_the_pdn_replays() {
    let dir = temp_dir("dame");
    let pdn = dir.join("games.pdn");
    let run = arbiter(&[
        "match",
        "international",
        "--p1",
        "hub:dame hub",
        "--p2",
        "mcts:iterations=30",
        "--games",
        "1",
        "--tc",
        "10+0.1",
        "--max-plies",
        "150",
        "--no-db",
        "--pgn",
        pdn.to_str().unwrap(),
    ]);
    assert!(run.ok, "dame hub must be installed (pip install dame-rs): {}", run.stderr);
    let game = run.stdout.lines().find(|l| l.starts_with("Game 1")).unwrap();
    assert!(!game.contains("crashed") && !game.contains("illegal") && !game.contains("protocol"), "{game}");
    let text = std::fs::read_to_string(&pdn).unwrap();
    assert!(text.contains("[GameType \"20\"]") && text.contains("[Variant \"international\"]"), "{text}");
    assert!(text.contains("1. 3") || text.contains("1. 4"), "moves in PDN numbers: {text}");
    let replay = arbiter(&["replay", pdn.to_str().unwrap()]);
    assert!(replay.ok, "{}", replay.stderr);
}

#[test]
fn malformed_pdn_positions_get_one_line_errors() {
    let run = arbiter(&["perft", "international", "--position", "W:W31:B51", "--depth", "1"]);
    assert_eq!(run.stderr.trim(), "error: PDN FEN: '51' in '51' is not a square from 1 to 50");
}

#[test]
fn a_pdn_opening_book_gives_the_position_after_its_first_plies() {
    let dir = temp_dir("pdn-book");
    let book = dir.join("book.pdn");
    std::fs::write(&book, "[Event \"a\"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n\n[Event \"b\"]\n\n1. 33-28 18-22 *\n")
        .unwrap();
    let jsonl = dir.join("m.jsonl");
    let run = arbiter(&[
        "match",
        "international",
        "--p1",
        "random",
        "--p2",
        "random:seed=2",
        "--games",
        "4",
        "--max-plies",
        "2",
        "--no-db",
        "--openings",
        book.to_str().unwrap(),
        "--opening-plies",
        "2",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}", run.stderr);
    let starts = arbiter_e2e::start_positions(&jsonl);
    assert_eq!(starts.len(), 4);
    assert!(starts[0] == starts[1] && starts[2] == starts[3] && starts[0] != starts[2], "{starts:?}");
    // After 32-28 19-23: White on 28, not on 32; Black on 23, not on 19.
    let squares = |fen: &str, side: char| -> Vec<String> {
        let part =
            fen.split(':').skip(1).find(|p| p.starts_with(side)).unwrap_or("").trim_start_matches(side).to_string();
        part.split(',').map(|s| s.trim().trim_end_matches('.').to_string()).collect()
    };
    let (white, black) = (squares(&starts[0], 'W'), squares(&starts[0], 'B'));
    assert!(white.contains(&"28".to_string()) && !white.contains(&"32".to_string()), "{}", starts[0]);
    assert!(black.contains(&"23".to_string()) && !black.contains(&"19".to_string()), "{}", starts[0]);
}
