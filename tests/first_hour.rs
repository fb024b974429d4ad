//! A new user's first hour: what they type, and what they get back. Each
//! test pins one thing that used to surprise (a silent acceptance, a wrong
//! message, a program that ran on after it should have stopped).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_e2e::{arbiter, arbiter_bin, profile_dir, stockfish, temp_dir};

#[test]
fn arbiter_on_path_finds_the_plugins_built_beside_it() {
    let dir = temp_dir("on-path");
    let out = Command::new("arbiter")
        .arg("list")
        .current_dir(&dir)
        .env("PATH", format!("{}:/usr/bin:/bin", profile_dir().display()))
        .env_remove("ARBITER_PLUGIN_PATH")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && listed.contains("chess ") && listed.contains("junqi "), "{listed}");
}

#[test]
fn a_uci_option_the_engine_does_not_have_is_named_with_the_ones_it_has() {
    let spec = format!("uci:{},NoSuchOption=1,Hash=16", stockfish());
    let tc = "inf,nodes=200";
    let run = arbiter(&["match", "chess", "--p1", &spec, "--p2", "random", "--games", "1", "--tc", tc, "--no-db"]);
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stderr.contains("has no UCI option 'NoSuchOption' (it offers: "), "{}", run.stderr);
    assert!(run.stderr.contains("Hash") && !run.stderr.contains("no UCI option 'Hash'"), "{}", run.stderr);
}

#[test]
fn check_loads_a_plugin_named_without_a_slash_and_names_a_missing_file() {
    let dir = temp_dir("bare-name");
    std::fs::copy(profile_dir().join("libarbiter_chess.so"), dir.join("mychess.so")).unwrap();
    let here = |args: &[&str]| {
        let out = Command::new(arbiter_bin())
            .args(args)
            .current_dir(&dir)
            .env_remove("ARBITER_PLUGIN_PATH")
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stdout, stderr) = here(&["check", "mychess.so", "--games", "2"]);
    assert!(ok && stdout.contains("PASS  loads as an arbiter plugin"), "{stdout}{stderr}");
    let (ok, stdout, stderr) = here(&["--plugin-dir", "mychess.so", "info", "chess"]);
    assert!(ok && stdout.contains("mychess.so"), "{stdout}{stderr}");
    let (ok, _, stderr) = here(&["check", "nosuchfile.so"]);
    assert!(
        !ok && stderr.trim() == "error: nosuchfile.so: no such file (give a plugin file or an installed variant's id)",
        "{stderr}"
    );
}

#[test]
fn a_person_whose_flag_falls_is_told_at_once() {
    let mut child = Command::new(arbiter_bin())
        .args(["play", "chess", "--p1", "human", "--p2", "random", "--tc", "1+0"])
        .env_remove("ARBITER_PLUGIN_PATH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Stdin stays open and silent: the person is thinking.
    let _stdin = child.stdin.take();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(t0.elapsed() < Duration::from_secs(10), "the game waited for Enter after the flag fell");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(out.contains("Your flag fell.") && out.contains("Result: 0-1 {time forfeit: "), "{out}");
}

#[test]
fn a_tournament_stopped_with_ctrl_c_stores_its_games_and_exits_130() {
    let db = temp_dir("ctrl-c").join("t.db");
    let mut child = Command::new(arbiter_bin())
        .args(["tournament", "--player", "a=mcts:movetime=0.05", "--player", "b=random", "--variant", "chess"])
        .args(["--games-per-pairing", "20", "--max-plies", "30", "--db", db.to_str().unwrap()])
        .env_remove("ARBITER_PLUGIN_PATH")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    let sent = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(status.code(), Some(130), "{out}");
    assert!(out.contains("Resume with: arbiter tournament --resume 1"), "{out}");
    let stored = arbiter::store::Store::open(&db).unwrap().games(None).unwrap().len();
    assert!(stored > 0 && out.contains(&format!("Interrupted with {stored} games saved")), "{stored}: {out}");
}

/// The start positions of a 4-game random match with `extra` flags, from
/// its JSON lines.
fn match_starts(dir: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let jsonl = dir.join("m.jsonl");
    let _ = std::fs::remove_file(&jsonl);
    let mut args = vec!["match", "chess", "--p1", "random", "--p2", "random:seed=2", "--games", "4", "--no-db"];
    args.extend(extra);
    args.extend(["--jsonl", jsonl.to_str().unwrap()]);
    let run = arbiter_e2e::arbiter(&args);
    assert!(run.ok, "{}", run.stderr);
    arbiter_e2e::start_positions(&jsonl)
}

#[test]
fn match_and_sprt_read_openings_as_tournaments_do_epd_operations_stripped() {
    let dir = temp_dir("openings");
    let file = dir.join("open.epd");
    std::fs::write(
        &file,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 bm e5; id \"e4\";\n# a comment\n\
         rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1\n",
    )
    .unwrap();
    let starts = match_starts(&dir, &["--max-plies", "4", "--openings", file.to_str().unwrap()]);
    assert!(starts[0].contains("4P3") && starts[1] == starts[0], "a pair per opening: {starts:?}");
    assert!(starts[2].contains("3P4") && starts[3] == starts[2], "{starts:?}");
    // From the second opening on, wrapping round to the first (fastchess's start=2).
    let from_second =
        match_starts(&dir, &["--max-plies", "4", "--openings", file.to_str().unwrap(), "--opening-start", "2"]);
    assert!(from_second[0].contains("3P4") && from_second[2].contains("4P3"), "{from_second:?}");
    let past = arbiter_e2e::arbiter(&[
        "match",
        "chess",
        "--p1",
        "random",
        "--p2",
        "random",
        "--no-db",
        "--openings",
        file.to_str().unwrap(),
        "--opening-start",
        "3",
    ]);
    assert!(
        !past.ok && past.stderr.contains("start 3 is not an opening of its 2 (they count from 1)"),
        "{}",
        past.stderr
    );
    let run = arbiter_e2e::arbiter(&[
        "sprt",
        "chess",
        "--p1",
        "random",
        "--p2",
        "random:seed=2",
        "--elo0",
        "0",
        "--elo1",
        "200",
        "--max-games",
        "4",
        "--max-plies",
        "4",
        "--openings",
        file.to_str().unwrap(),
        "--db",
        dir.join("s.db").to_str().unwrap(),
    ]);
    assert!(run.ok, "the EPD line is read as in a tournament: {}", run.stderr);
}

#[test]
fn a_pgn_opening_book_gives_the_position_after_its_first_plies_and_a_bad_move_is_named() {
    let dir = temp_dir("book");
    let book = dir.join("book.pgn");
    std::fs::write(
        &book,
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"b\"]\n[Variant \"Standard\"]\n\n1. d4 {main} (1. c4) d5 2. c4 *\n",
    )
    .unwrap();
    let starts =
        match_starts(&dir, &["--max-plies", "2", "--openings", book.to_str().unwrap(), "--opening-plies", "2"]);
    assert!(starts[0].starts_with("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w "), "{starts:?}");
    assert!(starts[2].starts_with("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w "), "{starts:?}");
    std::fs::write(&book, "[Event \"a\"]\n\n1. e4 e5 2. Ke3 *\n").unwrap();
    let run = arbiter_e2e::arbiter(&[
        "match",
        "chess",
        "--p1",
        "random",
        "--p2",
        "random",
        "--games",
        "2",
        "--no-db",
        "--openings",
        book.to_str().unwrap(),
    ]);
    assert!(!run.ok);
    assert!(run.stderr.contains("book.pgn: game 1: ply 3: move 'Ke3'"), "{}", run.stderr);
}

/// A Polyglot book written by python-chess (its own Zobrist keys, castling
/// as the king taking the rook): every line to `--opening-plies`, most
/// weighted first, with the en-passant rule of the keys and castling read
/// right; Stockfish plays from each opening.
#[test]
fn a_polyglot_book_gives_its_lines_most_weighted_first() {
    let dir = temp_dir("polyglot");
    let book = dir.join("book.bin");
    let script = r#"
import chess, chess.polyglot, struct, sys
lines = [(["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"], 10), (["e2e4", "c7c5"], 1), (["d2d4", "d7d5"], 5)]
entries = {}
for moves, weight in lines:
    board = chess.Board()
    for uci in moves:
        move = chess.Move.from_uci(uci)
        to = move.to_square
        if board.is_castling(move):
            to = chess.H1 if to == chess.G1 else chess.A1
        bits = to | (move.from_square << 6)
        key = (chess.polyglot.zobrist_hash(board), bits)
        entries[key] = max(weight, entries.get(key, 0))
        board.push(move)
    print(board.fen())
with open(sys.argv[1], "wb") as f:
    for (key, bits), weight in sorted(entries.items()):
        f.write(struct.pack(">QHHI", key, bits, weight, 0))
"#;
    let made = std::process::Command::new("python3").args(["-c", script, book.to_str().unwrap()]).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let expected: Vec<String> = String::from_utf8(made.stdout).unwrap().lines().map(String::from).collect();
    let starts = match_starts(&dir, &["--max-plies", "1", "--openings", book.to_str().unwrap()]);
    // Board, side and castling as python-chess writes them; pairs share one.
    let fields = |fen: &str| fen.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    let got: Vec<String> = starts.iter().step_by(2).map(|s| fields(s)).collect();
    let want: Vec<String> = expected[..2].iter().map(|s| fields(s)).collect();
    assert_eq!(got, want, "lines in weight order: {starts:?}");
    // Fewer plies: the lines stop there.
    let starts =
        match_starts(&dir, &["--max-plies", "1", "--openings", book.to_str().unwrap(), "--opening-plies", "1"]);
    assert!(starts[0].starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b "), "{starts:?}");
    assert!(starts[2].starts_with("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b "), "{starts:?}");
    // Stockfish plays from the book's positions.
    let run = arbiter_e2e::arbiter(&[
        "match",
        "chess",
        "--p1",
        "uci:stockfish",
        "--p2",
        "random",
        "--games",
        "2",
        "--tc",
        "inf,nodes=200",
        "--max-plies",
        "10",
        "--no-db",
        "--openings",
        book.to_str().unwrap(),
    ]);
    assert!(run.ok && run.stdout.matches("Game ").count() == 2, "{}\n{}", run.stdout, run.stderr);
    // Not a chess variant: refused by name.
    let run = arbiter_e2e::arbiter(&[
        "match",
        "international",
        "--p1",
        "random",
        "--p2",
        "random",
        "--no-db",
        "--openings",
        book.to_str().unwrap(),
    ]);
    assert!(!run.ok && run.stderr.contains("Polyglot book holds standard chess positions only"), "{}", run.stderr);
}
