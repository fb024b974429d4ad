//! The `arbiter` binary end to end: list, info, perft, play and their errors,
//! with the real chess plugin loaded from the build directory.

use arbiter_e2e::arbiter;

#[test]
fn list_shows_chess_with_its_plugin_file_and_players() {
    let run = arbiter(&["list"]);
    assert!(run.ok, "{}", run.stderr);
    let header = run.stdout.lines().next().unwrap();
    assert!(header.starts_with("VARIANT") && header.contains("HIDDEN"), "{header}");
    let row = run.stdout.lines().find(|l| l.starts_with("chess ")).expect("a chess row");
    for part in ["FIDE chess", "libarbiter_chess.so", "chess-plugin 0.1.0", " 2 ", "no"] {
        assert!(row.contains(part), "row {row:?} lacks {part:?}");
    }
}

#[test]
fn info_shows_options_notation_and_time_control() {
    let run = arbiter(&["info", "chess"]);
    assert!(run.ok, "{}", run.stderr);
    for part in
        ["FIDE chess (chess)", "SAN", "FEN", "default time control: 60+0.6", "automatic_draws (bool, default true)"]
    {
        assert!(run.stdout.contains(part), "info lacks {part:?}:\n{}", run.stdout);
    }
}

#[test]
fn perft_prints_the_published_count() {
    let run = arbiter(&["perft", "chess", "--depth", "4"]);
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("Nodes searched: 197281"), "{}", run.stdout);
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -";
    let run = arbiter(&["perft", "chess", "--position", kiwipete, "--depth", "3", "--generic"]);
    assert!(run.stdout.contains("Nodes searched: 97862"), "{}", run.stdout);
}

#[test]
fn perft_divide_lists_each_move_and_sums_to_the_total() {
    let run = arbiter(&["perft", "chess", "--depth", "3", "--divide"]);
    assert!(run.ok, "{}", run.stderr);
    let rows: Vec<(&str, u64)> = run
        .stdout
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter(|(m, _)| *m != "Nodes searched")
        .filter_map(|(m, n)| Some((m, n.parse().ok()?)))
        .collect();
    assert_eq!(rows.len(), 20);
    assert!(rows.contains(&("Nf3", 440)) && rows.contains(&("e4", 600)), "{rows:?}");
    assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 8902);
    assert!(run.stdout.contains("Nodes searched: 8902"));
}

#[test]
fn play_prints_moves_final_position_and_result_reproducibly() {
    let a = arbiter(&["play", "chess", "--seed", "7"]);
    assert!(a.ok, "{}", a.stderr);
    let result = a.stdout.lines().last().unwrap();
    assert!(result.starts_with("Result: "), "{result}");
    assert!(a.stdout.contains("FEN "), "final position missing");
    assert!(a.stdout.contains("   1. White  "), "{}", &a.stdout[..200]);
    let b = arbiter(&["play", "chess", "--seed", "7"]);
    assert_eq!(a.stdout, b.stdout, "same seed, same game");
    // An ini variant's final position (its text ends without a line break)
    // is a line of its own, the result the next.
    let c = arbiter(&["play", "crazyhouse", "--seed", "3", "--max-plies", "4"]);
    let lines: Vec<&str> = c.stdout.lines().collect();
    assert!(lines[lines.len() - 1].starts_with("Result: "), "{}", c.stdout);
    assert!(lines[lines.len() - 2].ends_with(" w KQkq - 1 3"), "{}", c.stdout);
}

#[test]
fn malformed_positions_and_options_get_one_line_errors() {
    let run = arbiter(&[
        "perft",
        "chess",
        "--position",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
        "--depth",
        "1",
    ]);
    assert!(!run.ok);
    assert_eq!(run.stderr.trim(), "error: FEN: rank 1 ('RNBQKBNX'): bad piece letter 'X'");
    let run = arbiter(&["perft", "chess", "--option", "colour=blue", "--depth", "1"]);
    assert!(!run.ok);
    assert_eq!(run.stderr.trim(), "error: unknown option 'colour' for variant chess (known: chess960, start_number, black_start_number, automatic_draws)");
    let run = arbiter(&["perft", "chess", "--option", "automatic_draws=7", "--depth", "1"]);
    assert!(run.stderr.contains("option 'automatic_draws' of variant chess must be bool, got 7"), "{}", run.stderr);
    let run = arbiter(&["info", "chaturaji"]);
    assert!(!run.ok);
    assert!(
        run.stderr.starts_with("error: unknown variant 'chaturaji' (installed: ") && run.stderr.contains("chess"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.trim().lines().count(), 1);
}

#[test]
fn replaying_a_file_with_no_game_is_an_error() {
    let dir = arbiter_e2e::temp_dir("replay-empty");
    for (name, text) in [("empty.pgn", ""), ("blank.pgn", "\n\n  \n"), ("comment.pgn", "{ nothing here }\n")] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let run = arbiter(&["replay", file.to_str().unwrap()]);
        assert!(!run.ok, "{name}: {}", run.stdout);
        assert!(run.stderr.contains("holds no PGN game"), "{name}: {}", run.stderr);
    }
}

#[test]
fn an_opening_book_is_read_as_a_stream_in_bounded_memory() {
    // 20 MB of PGN: 40,000 games of 120 plies each. Read whole, its moves
    // alone would take about 200 MB (4.8 million strings); streamed, one
    // game at a time.
    let dir = arbiter_e2e::temp_dir("big-book");
    let book = dir.join("book.pgn");
    let moves = "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(30);
    let game = format!("[Event \"x\"]\n[Result \"*\"]\n\n{moves}*\n\n");
    // Written game by game: the kernel counts this process's own peak into
    // the child's (it is spawned from this address space).
    let mut out = std::io::BufWriter::new(std::fs::File::create(&book).unwrap());
    for _ in 0..40_000 {
        std::io::Write::write_all(&mut out, game.as_bytes()).unwrap();
    }
    drop(out);
    assert!(std::fs::metadata(&book).unwrap().len() > 20_000_000);
    let args = [
        "match",
        "chess",
        "--p1",
        "random",
        "--p2",
        "random",
        "--games",
        "2",
        "--max-plies",
        "4",
        "--openings",
        book.to_str().unwrap(),
        "--opening-plies",
        "2",
        "--no-db",
    ];
    let (run, peak_kib) = arbiter_e2e::arbiter_peak_rss(&args);
    assert!(run.ok, "{}", run.stderr);
    assert!(peak_kib < 100 * 1024, "peak memory {} MiB for a 20 MB book", peak_kib / 1024);
    // A line too long to be a PGN line is one error, not an allocation failure.
    let long = dir.join("long.pgn");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&long).unwrap());
    for _ in 0..17 << 10 {
        std::io::Write::write_all(&mut out, &[b'x'; 1024]).unwrap();
    }
    drop(out);
    let args = ["match", "chess", "--p1", "random", "--p2", "random", "--openings", long.to_str().unwrap(), "--no-db"];
    let run = arbiter(&args);
    assert!(!run.ok && run.stderr.contains("line 1: longer than 16 MiB"), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
}

#[test]
fn a_closed_output_ends_quietly_and_a_full_one_is_an_error() {
    use std::process::{Command, Stdio};
    // `arbiter perft ... --divide | head -0`: the reader is gone before the first line.
    let mut child = Command::new(arbiter_e2e::arbiter_bin())
        .args(["perft", "chess", "--depth", "3", "--divide"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // A full disk is not a closed reader: one line, and failure.
    let full = std::fs::File::create("/dev/full").unwrap();
    let out = Command::new(arbiter_e2e::arbiter_bin()).arg("list").stdout(full).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.trim().lines().count() == 1, "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
}
