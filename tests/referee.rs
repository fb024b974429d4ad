//! The referee end to end: real engines (Stockfish over UCI, the example
//! JSON-lines engine), engines that misbehave, records checked by an
//! independent referee (python-chess), and hidden information that must not
//! leak to players, spectators, logs or per-player exports.

use std::path::Path;
use std::process::Command;

use arbiter::store::Store;
use arbiter_e2e::{arbiter, fixture_plugin, stockfish, temp_dir, workspace, Run};
use serde_json::Value;

fn python_chess(pgn: &Path) -> Vec<Value> {
    let out =
        Command::new("python3").arg(workspace().join("tests/py/check_pgn.py")).arg(pgn).output().expect("python3");
    assert!(
        out.status.success(),
        "python-chess check failed (pip install chess): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Plays `games` games of `variant` between two players without the store,
/// writing them to `pgn`; `extra` arguments follow.
fn match_to_pgn(variant: &str, (p1, p2): (&str, &str), games: u32, pgn: &Path, extra: &[&str]) -> Run {
    let games = games.to_string();
    let mut args = vec!["match", variant, "--p1", p1, "--p2", p2, "--games", &games, "--no-db", "--pgn"];
    args.push(pgn.to_str().unwrap());
    args.extend_from_slice(extra);
    arbiter(&args)
}

#[test]
fn stockfish_games_are_legal_for_python_chess_and_match_the_store() {
    let dir = temp_dir("stockfish");
    let (db, pgn) = (dir.join("games.db"), dir.join("games.pgn"));
    for opponent in ["mcts:iterations=50", "random"] {
        let run = arbiter(&[
            "match",
            "chess",
            "--p1",
            &format!("uci:{}", stockfish()),
            "--p2",
            opponent,
            "--games",
            "2",
            "--tc",
            "5+0.05,nodes=500",
            "--db",
            db.to_str().unwrap(),
            "--pgn",
            pgn.to_str().unwrap(),
        ]);
        assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("Score of uci:"), "{}", run.stdout);
        assert!(run.stdout.contains("Elo difference: "), "{}", run.stdout);
    }
    let checked = python_chess(&pgn);
    assert_eq!(checked.len(), 4);
    let stored = Store::open(&db).unwrap().games(None).unwrap();
    assert_eq!(stored.len(), 4);
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    for (g, s) in checked.iter().zip(&stored) {
        assert!(g["legal"].as_bool().unwrap(), "python-chess found an illegal move: {g}");
        assert_eq!(g["plies"], g["plycount"]);
        assert_eq!(g["clocks"], g["plies"], "every move carries [%clk]");
        assert_eq!(g["result"].as_str().unwrap(), s.summary.result);
        assert_eq!(g["plies"].as_u64().unwrap(), s.summary.plies as u64);
        assert_eq!(g["white"].as_str().unwrap(), s.summary.players[0]);
        assert!(pgn_text.contains(&s.pgn()), "the store holds the same PGN as the file");
        // Decisive games by the rules agree with python-chess's own verdict.
        if s.summary.termination.to_string() == "checkmate" {
            assert_eq!(g["outcome"].as_str().unwrap(), s.summary.result);
        }
    }
}

#[test]
fn the_example_json_engine_plays_chess_and_a_hidden_information_variant() {
    let engine = format!("engine:python3 \"{}\"", workspace().join("scripts/example-engine.py").display());
    let run =
        arbiter(&["match", "chess", "--p1", &engine, "--p2", "random", "--games", "2", "--tc", "10+0.1", "--no-db"]);
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("Score of engine:"), "{}", run.stdout);
    let so = fixture_plugin("fixture", None);
    let run = arbiter(&[
        "--plugin-dir",
        so.to_str().unwrap(),
        "match",
        "fixture-secret",
        "--p1",
        &engine,
        "--p2",
        "mcts:iterations=50",
        "--games",
        "2",
        "--no-db",
    ]);
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout.matches("Game ").count(), 2, "{}", run.stdout);
}

#[test]
fn misbehaving_engines_lose_with_the_right_termination_and_the_match_goes_on() {
    let faulty = workspace().join("tests/fixtures/engines/faulty-engine.py");
    for (mode, termination) in [
        ("sleep", "{time forfeit: "),
        ("exit", "{engine crashed: "),
        ("illegal", "{illegal move: Ke8-h1}"),
        ("garbage", "{engine protocol error: not JSON: I think therefore I move}"),
    ] {
        let run = arbiter(&[
            "match",
            "chess",
            "--p1",
            &format!("engine:python3 \"{}\" {mode}", faulty.display()),
            "--p2",
            "random",
            "--games",
            "2",
            "--tc",
            "1+0.1",
            "--no-db",
        ]);
        assert!(run.ok, "{mode}: {}", run.stderr);
        let games: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("Game ")).collect();
        assert_eq!(games.len(), 2, "{mode}: both games are played:\n{}", run.stdout);
        for g in games {
            assert!(g.contains(termination), "{mode}: {g}");
        }
        assert!(
            run.stdout.contains("Score of engine:") && run.stdout.contains(": 0 - 2 - 0"),
            "{mode}: {}",
            run.stdout
        );
    }
}

#[test]
fn hidden_information_never_reaches_the_other_player_spectators_logs_or_exports() {
    let so = fixture_plugin("fixture", None);
    let dir = temp_dir("leak");
    let log = dir.join("engine-input.log");
    let faulty = workspace().join("tests/fixtures/engines/faulty-engine.py");
    let engine = format!("engine:python3 \"{}\" record {}", faulty.display(), log.display());
    let pgn = dir.join("as-first.pgn");
    // Secrets: the engine (seat 0) holds 3, its opponent 7.
    let mut cmd = Command::new(arbiter_e2e::arbiter_bin());
    cmd.env("RUST_LOG", "trace").args([
        "--plugin-dir",
        so.to_str().unwrap(),
        "match",
        "fixture-secret",
        "--p1",
        &engine,
        "--p2",
        "random",
        "--games",
        "1",
        "--no-db",
        "--pgn",
        pgn.to_str().unwrap(),
        "--as",
        "0",
        "--option",
        "secrets=\"3 7\"",
    ]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(seen.contains("my secret 3"), "the engine sees its own secret");
    assert!(
        !seen.contains("my secret 7") && !seen.contains("3 and 7") && !seen.contains("3 7"),
        "the engine saw the other secret:\n{seen}"
    );
    let logs = String::from_utf8_lossy(&out.stderr);
    assert!(logs.contains("go"), "trace logging was on");
    assert!(!logs.contains("my secret 7") && !logs.contains("secrets 3 and 7"), "logs leak: {logs}");
    let export = std::fs::read_to_string(&pgn).unwrap();
    assert!(export.contains("[Viewer \"player 0\"]"), "{export}");
    assert!(!export.contains("3 7 0"), "the per-player export carries the referee's position: {export}");
    // The screen of `arbiter play` is a spectator's.
    let run = arbiter(&["--plugin-dir", so.to_str().unwrap(), "play", "fixture-secret", "--option", "secrets=\"3 7\""]);
    assert!(run.ok, "{}", run.stderr);
    assert!(
        !run.stdout.contains("my secret") && !run.stdout.contains("3 and 7"),
        "spectator output leaks: {}",
        run.stdout
    );
}

#[test]
fn replay_reports_the_first_illegal_move_with_game_and_ply() {
    let dir = temp_dir("replay");
    let pgn = dir.join("games.pgn");
    let run = match_to_pgn("chess", ("random", "random"), 2, &pgn, &[]);
    assert!(run.ok, "{}", run.stderr);
    let run = arbiter(&["replay", pgn.to_str().unwrap()]);
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "2 game(s) replayed: every move is legal");
    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, "[Variant \"chess\"]\n\n1. e4 e5 2. Nf3 Nc6\n\n[Variant \"chess\"]\n\n1. e4 e5 2. Ke3 *\n")
        .unwrap();
    let run = arbiter(&["replay", bad.to_str().unwrap()]);
    assert!(!run.ok);
    assert_eq!(
        run.stderr.trim(),
        format!("error: {}: game 2, ply 3: move 'Ke3': 'Ke3' is not a legal move for white in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", bad.display())
    );
}

#[test]
fn a_bluff_chess_record_replays_and_a_player_export_hides_the_opponents_decisions() {
    let dir = temp_dir("bluff");
    let (pgn, as_white) = (dir.join("referee.pgn"), dir.join("white.pgn"));
    let run = match_to_pgn("bluffchess", ("random", "mcts:iterations=30"), 2, &pgn, &["--tc", "inf"]);
    assert!(run.ok, "{}", run.stderr);
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.contains(" d-") || text.contains(" d"), "decisions are plies of their own: {text}");
    let replay = arbiter(&["replay", pgn.to_str().unwrap()]);
    assert!(replay.ok, "{}", replay.stderr);
    let run = match_to_pgn("bluffchess", ("random", "random:seed=3"), 1, &as_white, &["--tc", "inf", "--as", "0"]);
    assert!(run.ok, "{}", run.stderr);
    let export = std::fs::read_to_string(&as_white).unwrap();
    assert!(export.contains("[Viewer \"player 0\"]") && !export.contains("[FEN"), "{export}");
    // Replaying a player's view says what it is.
    let replay = arbiter(&["replay", as_white.to_str().unwrap()]);
    assert!(!replay.ok);
    assert!(replay.stderr.contains("a redacted view (Viewer \"player 0\"), written with --as"), "{}", replay.stderr);
}

#[test]
fn mcts_and_random_play_junqi_to_a_legal_result_and_the_record_replays() {
    let dir = temp_dir("junqi");
    let pgn = dir.join("junqi.pgn");
    let run = match_to_pgn("junqi", ("mcts:iterations=20", "random"), 2, &pgn, &[]);
    assert!(run.ok, "{}", run.stderr);
    for line in run.stdout.lines().filter(|l| l.starts_with("Game ")) {
        assert!(
            ["{flag captured}", "{no legal move}", "{no combat within the limit}", "{adjudication: game time cap}"]
                .iter()
                .any(|t| line.contains(t)),
            "{line}"
        );
    }
    let replay = arbiter(&["replay", pgn.to_str().unwrap()]);
    assert!(replay.ok, "{}", replay.stderr);
    let spectator = arbiter(&["play", "junqi", "--seed", "4"]);
    assert!(spectator.ok, "{}", spectator.stderr);
    for code in "987654321LBF".chars() {
        assert!(!spectator.stdout.contains(&format!("{code}@")), "the screen never shows a deployed kind");
    }
    assert!(spectator.stdout.contains("deploy@"));
}

#[test]
fn random_and_mcts_finish_tavreli_games_with_legal_results() {
    let dir = temp_dir("tavreli");
    let pgn = dir.join("tavreli.pgn");
    let run =
        match_to_pgn("tavreli", ("mcts:iterations=20", "random"), 2, &pgn, &["--tc", "inf", "--max-plies", "200"]);
    assert!(run.ok, "{}", run.stderr);
    for line in run.stdout.lines().filter(|l| l.starts_with("Game ")) {
        assert!(
            [
                "{checkmate}",
                "{stalemate}",
                "{repetition}",
                "{moves without a pawn move or capture}",
                "{adjudication: ply limit}"
            ]
            .iter()
            .any(|t| line.contains(t)),
            "{line}"
        );
    }
    let replay = arbiter(&["replay", pgn.to_str().unwrap()]);
    assert!(replay.ok, "{}", replay.stderr);
}

#[test]
fn in_bluff_chess_the_checker_decides_before_an_empty_mate() {
    // The game the issue reported: White's checking death move at ply 13 was
    // followed by "empty mate" with no decision.
    let dir = temp_dir("bluff-order");
    let jsonl = dir.join("x.jsonl");
    let run = arbiter(&[
        "match",
        "bluffchess",
        "--p1",
        "random:seed=1",
        "--p2",
        "random:seed=101",
        "--games",
        "1",
        "--max-plies",
        "40",
        "--tc",
        "inf",
        "--no-db",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}", run.stderr);
    let game: Value = serde_json::from_str(std::fs::read_to_string(&jsonl).unwrap().lines().next().unwrap()).unwrap();
    let moves = game["plies"].as_array().unwrap();
    // A decision reads `d` and a square (`dg7`); a pawn's move on the d-file `d3` or `dxe5`.
    let decision = |text: &str| text.starts_with('d') && text[1..].starts_with(|c: char| ('a'..='h').contains(&c));
    if game["result"]["termination"]["detail"] == "empty mate" {
        let last = moves.last().unwrap()["text"].as_str().unwrap();
        assert!(decision(last), "an empty mate comes right after the checker's decision: {game}");
    }
    // Every death move is followed by its mover's decision.
    for w in moves.windows(2) {
        if decision(w[1]["text"].as_str().unwrap()) {
            assert_eq!(w[0]["player"], w[1]["player"], "a decision is its death move's mover's: {game}");
        }
    }
}

#[test]
fn a_finished_hidden_game_can_be_shown_as_the_referee_or_a_player_saw_it() {
    let so = fixture_plugin("fixture", None);
    let play = |view: &str| {
        let run = arbiter(&[
            "--plugin-dir",
            so.to_str().unwrap(),
            "play",
            "fixture-secret",
            "--option",
            "secrets=\"3 7\"",
            "--view",
            view,
        ]);
        assert!(run.ok, "{}", run.stderr);
        run.stdout
    };
    assert!(play("referee").contains("secrets 3 and 7"), "the referee sees everything");
    let first = play("0");
    assert!(first.contains("my secret 3") && !first.contains("3 and 7") && !first.contains("secret 7"), "{first}");
    let spectator = play("spectator");
    assert!(!spectator.contains("my secret") && spectator.contains("--view referee shows everything"), "{spectator}");
}

#[test]
fn score_adjudication_ends_lopsided_and_dead_even_engine_games_as_cutechess_does() {
    let sf = format!("uci:{}", stockfish());
    let dir = temp_dir("adjudication");
    let pgn = dir.join("a.pgn");
    // The weak side searches 20 nodes a move: deterministic, unlike a skill level.
    let run = arbiter(&[
        "match",
        "chess",
        "--p1",
        &sf,
        "--p2",
        &sf,
        "--games",
        "2",
        "--tc1",
        "inf,nodes=3000",
        "--tc2",
        "inf,nodes=20",
        "--resign",
        "movecount=3,score=400",
        "--no-db",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}", run.stderr);
    for line in run.stdout.lines().filter(|l| l.starts_with("Game ")) {
        assert!(line.contains("{adjudication: resign rule: score -400 or worse for 3 moves}"), "{line}");
    }
    // The strong side wins both, and every engine move carries its score.
    assert!(run.stdout.contains("Score of uci:") && run.stdout.contains(": 2 - 0 - 0"), "{}", run.stdout);
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.contains("[Termination \"adjudication\"]") && text.contains("[%eval "), "{text}");
    // The players are named by their specs; the engine's own name is kept beside.
    assert_eq!(text.matches("[WhiteEngine \"Stockfish ").count(), 2, "{text}");
    assert_eq!(text.matches("[BlackEngine \"Stockfish ").count(), 2, "{text}");
    let run = arbiter(&[
        "match",
        "chess",
        "--p1",
        &sf,
        "--p2",
        &sf,
        "--games",
        "2",
        "--tc",
        "inf,nodes=3000",
        "--draw",
        "movenumber=8,movecount=4,score=40",
        "--no-db",
    ]);
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(
        run.stdout.matches("1/2-1/2 {adjudication: draw rule: scores within 40 for 4 moves from move 8}").count(),
        2,
        "{}",
        run.stdout
    );
    let db = dir.join("refused.db");
    let bad = arbiter(&[
        "match",
        "chess",
        "--p1",
        "random",
        "--p2",
        "random",
        "--draw",
        "movecount=x",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(!bad.ok && bad.stderr.contains("--draw 'movecount=x': movecount must be a whole number"), "{}", bad.stderr);
    assert!(!db.exists(), "a refused match leaves no store file");
}

#[test]
fn tablebase_adjudication_ends_engine_games_as_the_syzygy_tables_say() {
    let sf = format!("uci:{}", stockfish());
    let tables = workspace().join("plugins/chess/rules/tests/syzygy");
    let tables = tables.to_str().unwrap();
    let dir = temp_dir("syzygy");
    // Each start has only captures to play, each reaching a position the
    // tables hold (python-chess's Syzygy reader: K+Q v K lost for Black to
    // move; K+R v K+R drawn).
    let play = |position: &str, pgn: &Path, extra: &[&str]| {
        let mut args = vec!["--position", position, "--tc", "inf,nodes=2000", "--tb", tables];
        args.extend_from_slice(extra);
        match_to_pgn("chess", (&sf, &sf), 2, pgn, &args)
    };
    let won = dir.join("won.pgn");
    let run = play("7Q/8/4k3/8/8/8/1q6/K7 w - - 0 1", &won, &[]);
    assert!(run.ok, "{}", run.stderr);
    let reason = "{adjudication: Syzygy tablebases: White wins (the plugin's adjudication)}";
    assert_eq!(run.stdout.matches(&format!("1-0 {reason}")).count(), 2, "{}", run.stdout);
    let text = std::fs::read_to_string(&won).unwrap();
    assert_eq!(text.matches("[Termination \"adjudication\"]").count(), 2, "{text}");
    for game in python_chess(&won) {
        assert_eq!(game["result"], "1-0", "{game}");
    }
    let drawn = dir.join("drawn.pgn");
    let run = play("1R6/7r/4k3/8/8/8/1q6/K7 w - - 0 1", &drawn, &[]);
    assert!(run.ok, "{}", run.stderr);
    let reason = "1/2-1/2 {adjudication: Syzygy tablebases: drawn (the plugin's adjudication)}";
    assert_eq!(run.stdout.matches(reason).count(), 2, "{}", run.stdout);
    // Only wins and losses asked for: the drawn game plays on (to the ply limit here).
    let run = play(
        "1R6/7r/4k3/8/8/8/1q6/K7 w - - 0 1",
        &dir.join("on.pgn"),
        &["--tb-adjudicate", "win-loss", "--max-plies", "6"],
    );
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout.matches("{adjudication: ply limit}").count(), 2, "{}", run.stdout);
    // A mistyped folder is named before any game.
    let bad = arbiter(&["match", "chess", "--p1", "random", "--p2", "random", "--tb", "/no/such/tables", "--no-db"]);
    assert!(!bad.ok && bad.stderr.contains("--tb: tablebases: /no/such/tables:"), "{}", bad.stderr);
    assert_eq!(bad.stderr.trim().lines().count(), 1, "{}", bad.stderr);
}

#[test]
fn a_damaged_tablebase_file_is_one_error_naming_it_before_any_game() {
    let good = workspace().join("plugins/chess/rules/tests/syzygy");
    for (name, bytes) in [
        ("empty", Vec::new()),
        ("random", vec![7u8, 1, 200, 33, 9]),
        ("garbage", {
            let mut b = 0x5d23_e871u32.to_le_bytes().to_vec();
            b.extend((0..1036u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
            b
        }),
    ] {
        let dir = temp_dir(&format!("syzygy-{name}"));
        for entry in std::fs::read_dir(&good).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
        std::fs::write(dir.join("KRvK.rtbw"), &bytes).unwrap();
        let tables = dir.to_str().unwrap();
        let bad = arbiter(&["match", "chess", "--p1", "random", "--p2", "random", "--tb", tables, "--no-db"]);
        assert!(!bad.ok, "{name}: {}", bad.stdout);
        assert!(bad.stderr.contains(&format!("{tables}/KRvK.rtbw: ")), "{name}: {}", bad.stderr);
        assert_eq!(bad.stderr.trim().lines().count(), 1, "{name}: one line: {}", bad.stderr);
        assert!(!bad.stdout.contains("Game "), "{name}: no game started: {}", bad.stdout);
        // A tournament (games in worker processes) refuses it too, before storing anything.
        let db = dir.join("t.db");
        let t = arbiter(&[
            "tournament",
            "--player",
            "a=random",
            "--player",
            "b=random:seed=2",
            "--variant",
            "chess",
            "--tb",
            tables,
            "--db",
            db.to_str().unwrap(),
        ]);
        assert!(!t.ok && t.stderr.contains("KRvK.rtbw: "), "{name}: {}\n{}", t.stdout, t.stderr);
    }
}

#[test]
fn an_engine_option_of_the_wrong_type_or_with_a_newline_is_refused_before_any_game() {
    let sf = stockfish();
    for (p1, why) in [
        (format!("uci:{sf},Hash=abc"), "option Hash: 'abc' is not a whole number"),
        (format!("uci:{sf},Threads=0"), "option Threads: 0 is outside 1.."),
        (format!("uci:{sf},Hash=16\nquit"), "holds the control character"),
    ] {
        let run = arbiter(&["match", "chess", "--p1", &p1, "--p2", "random", "--games", "1", "--no-db"]);
        assert!(!run.ok, "{p1}: {}", run.stdout);
        assert!(run.stderr.contains(why), "{p1}: {}", run.stderr);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
        assert!(!run.stdout.contains("Game "), "no game started: {}", run.stdout);
    }
}

#[test]
fn a_pondering_engine_is_told_ponderhit_or_stop_and_its_hits_are_recorded() {
    let dir = temp_dir("ponder");
    let (db, pgn, log) = (dir.join("p.db"), dir.join("p.pgn"), dir.join("engines.log"));
    let sf = stockfish();
    let ponders = format!("uci:{sf},ponder=on");
    let run = arbiter(&[
        "--log",
        log.to_str().unwrap(),
        "match",
        "chess",
        "--p1",
        &ponders,
        "--p2",
        &format!("uci:{sf}"),
        "--games",
        "2",
        "--tc",
        "1+0.02",
        "--affinity",
        "--db",
        db.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}", run.stderr);
    assert!(!run.stdout.contains("time forfeit"), "clocks stay exact: {}", run.stdout);
    assert!(run.stdout.contains(&format!("Ponder hits: {ponders} ")), "{}", run.stdout);
    // The engine log, per engine process: each `go ponder` ends in
    // `ponderhit` or `stop` before that engine is asked anything else.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut open: std::collections::HashMap<&str, bool> = Default::default();
    let (mut ponders_sent, mut settled) = (0, 0);
    for line in text.lines().filter(|l| l.contains("] > ")) {
        let (who, sent) = line.split_once("] > ").unwrap();
        let pondering = open.entry(who).or_default();
        if sent.starts_with("go ponder") {
            assert!(!*pondering, "a second ponder search before the first ended: {line}");
            *pondering = true;
            ponders_sent += 1;
        } else if sent == "ponderhit" || sent == "stop" {
            *pondering = false;
            settled += 1;
        } else {
            assert!(!*pondering, "told something while pondering: {line}");
        }
    }
    assert!(ponders_sent > 10 && settled == ponders_sent, "{ponders_sent} ponders, {settled} settled");
    assert!(text.contains("> setoption name Ponder value true"), "the engine is told it will ponder");
    assert!(text.contains("> ponderhit"), "Stockfish's expected reply is played at least once");
    // The records: the games are legal, and the PGN counts the pondering side's hits.
    let games = python_chess(&pgn);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g["legal"] == true), "{games:?}");
    let written = std::fs::read_to_string(&pgn).unwrap();
    let tags: Vec<&str> = written.lines().filter(|l| l.contains("PonderHits")).collect();
    assert_eq!(tags.len(), 2, "{tags:?}");
    assert!(tags[0].starts_with("[WhitePonderHits ") && tags[1].starts_with("[BlackPonderHits "), "{tags:?}");
}
