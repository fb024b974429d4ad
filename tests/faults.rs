//! The fault boundary end to end: engines that exit, hang, fork or flood at
//! each step of each protocol (UCI with Stockfish, Hub with dame, JSON lines
//! with the example engine, each behind `tests/fixtures/engines/dying-proxy.py`)
//! lose their own games with the true reason, are restarted for the next
//! game, and never take down `match`, tournaments (in-process or in workers)
//! or leave a process behind.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter::model::Seat;
use arbiter::store::Store;
use arbiter_e2e::{arbiter, arbiter_bin, game_lines, profile_dir, stockfish, temp_dir, workspace};

/// The proxy misbehaving as `how` (`MODE TOKEN N`) in front of `engine`.
fn proxy(how: &str, engine: &str) -> String {
    format!("python3 \"{}\" {how} -- {engine}", workspace().join("tests/fixtures/engines/dying-proxy.py").display())
}

fn example_engine() -> String {
    format!("python3 \"{}\"", workspace().join("scripts/example-engine.py").display())
}

/// One protocol step at which an engine misbehaves, and the termination
/// each of two games (the engine first, then second) must end with; `None`
/// for a game the engine plays out normally.
struct Case {
    kind: &'static str,
    how: &'static str,
    games: [Option<&'static str>; 2],
}

fn cases() -> Vec<Case> {
    let crashed = Some("engine crashed: ");
    let both = [crashed, crashed];
    let second = [None, crashed];
    vec![
        Case { kind: "uci", how: "on uci 1", games: both },
        Case { kind: "uci", how: "on isready 2", games: second },
        Case { kind: "uci", how: "on ucinewgame 2", games: second },
        Case { kind: "uci", how: "on go 3", games: both },
        Case { kind: "uci", how: "after go 2", games: both },
        Case { kind: "uci", how: "fork go 2", games: both },
        Case { kind: "hub", how: "on hub 1", games: both },
        Case { kind: "hub", how: "on init 1", games: both },
        Case { kind: "hub", how: "on new-game 2", games: second },
        Case { kind: "hub", how: "on go 3", games: both },
        Case { kind: "hub", how: "after go 2", games: both },
        Case { kind: "engine", how: "on hello 1", games: both },
        Case { kind: "engine", how: "on new_game 2", games: second },
        Case { kind: "engine", how: "on go 3", games: both },
        Case { kind: "engine", how: "after go 2", games: both },
        Case { kind: "engine", how: "fork go 2", games: both },
    ]
}

fn spec_of(kind: &str, how: &str) -> (String, &'static str) {
    match kind {
        "uci" => (format!("uci:{}", proxy(how, stockfish())), "chess"),
        "hub" => (format!("hub:{}", proxy(how, "dame hub")), "international"),
        _ => (format!("engine:{}", proxy(how, &example_engine())), "chess"),
    }
}

#[test]
fn an_engine_that_exits_at_any_protocol_step_loses_that_game_and_is_restarted() {
    let failures: Vec<String> = std::thread::scope(|s| {
        let runs: Vec<_> = cases()
            .into_iter()
            .map(|case| {
                s.spawn(move || {
                    let (spec, variant) = spec_of(case.kind, case.how);
                    let t0 = Instant::now();
                    // No clock (a node limit only): a missed exit would wait
                    // out the 60 s hang limit.
                    let run = arbiter(&[
                        "match",
                        variant,
                        "--p1",
                        &spec,
                        "--p2",
                        "random",
                        "--games",
                        "2",
                        "--tc",
                        "inf,nodes=2000",
                        "--max-plies",
                        "12",
                        "--no-db",
                    ]);
                    let label = format!("{} {}", case.kind, case.how);
                    if !run.ok {
                        return Some(format!("{label}: arbiter failed: {}\n{}", run.stderr, run.stdout));
                    }
                    let games = game_lines(&run.stdout);
                    if games.len() != 2 {
                        return Some(format!("{label}: {} games:\n{}", games.len(), run.stdout));
                    }
                    // The engine has the first seat in game 1, the second in game 2.
                    for ((line, want), lost) in games.iter().zip(case.games).zip(["0-1 {", "1-0 {"]) {
                        match want {
                            Some(w) if !line.contains(&format!("{lost}{w}")) => {
                                return Some(format!("{label}: expected the engine to lose '{w}': {line}"))
                            }
                            None if line.contains("engine crashed") => {
                                return Some(format!("{label}: the restarted engine should play: {line}"))
                            }
                            _ => {}
                        }
                    }
                    if t0.elapsed() > Duration::from_secs(30) {
                        return Some(format!("{label}: took {:?}: an exit went unnoticed", t0.elapsed()));
                    }
                    None
                })
            })
            .collect();
        runs.into_iter().filter_map(|r| r.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_json_engine_that_never_says_ready_is_a_protocol_error_not_a_time_forfeit() {
    let (spec, _) = spec_of("engine", "hang hello 1");
    // A handshake time of 3 s rather than the default 10 (the same path).
    let spec = format!("{spec},timeout=3");
    let t0 = Instant::now();
    let run = arbiter(&["match", "chess", "--p1", &spec, "--p2", "random", "--games", "1", "--tc", "60+1", "--no-db"]);
    assert!(run.ok, "{}", run.stderr);
    let games = game_lines(&run.stdout);
    assert_eq!(games.len(), 1);
    assert!(games[0].contains("0-1 {engine protocol error: no 'ready' within the handshake time}"), "{}", games[0]);
    assert!(t0.elapsed() < Duration::from_millis(5500), "one handshake wait per game, not two: {:?}", t0.elapsed());
}

/// A tournament of an engine that exits mid-game against `random`, stored
/// in `db`; every game must be scored, the engine's faults as its losses.
fn tournament_with_a_crashing_engine(db: &Path, extra: &[&str]) {
    let (spec, _) = spec_of("uci", "after go 3");
    let player = format!("sf={spec}");
    let mut args = vec![
        "tournament",
        "--player",
        &player,
        "--player",
        "r=random",
        "--variant",
        "chess",
        "--games-per-pairing",
        "4",
        "--tc",
        "inf,nodes=2000",
        "--max-plies",
        "12",
        "--concurrency",
        "2",
        "--db",
        db.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = arbiter(&args);
    assert!(run.ok, "{extra:?}: {}\n{}", run.stderr, run.stdout);
    let games = Store::open(db).unwrap().games(None).unwrap();
    assert_eq!(games.len(), 4, "{extra:?}");
    for g in games {
        let s = g.summary;
        assert_ne!(s.result, "*", "{extra:?}: the crashing engine escaped its loss: {}", s.termination);
        assert!(s.termination.to_string().starts_with("engine crashed: "), "{extra:?}: {}", s.termination);
        let engine_seat = Seat::at(s.players.iter().position(|p| p == "sf").unwrap());
        assert_eq!(s.winner, Some(engine_seat.opponent()), "{extra:?}: the engine loses");
    }
}

#[test]
fn an_engine_that_exits_loses_its_games_in_worker_and_in_process_tournaments() {
    let dir = temp_dir("crash-tournaments");
    tournament_with_a_crashing_engine(&dir.join("workers.db"), &[]);
    tournament_with_a_crashing_engine(&dir.join("threads.db"), &["--in-process"]);
}

#[test]
fn an_engine_hung_without_a_clock_is_the_engines_fault_in_workers() {
    let db = temp_dir("hung-engine").join("t.db");
    let (spec, _) = spec_of("uci", "hang go 2");
    let player = format!("sf={spec}");
    let run = arbiter(&[
        "tournament",
        "--player",
        &player,
        "--player",
        "r=random",
        "--variant",
        "chess",
        "--games-per-pairing",
        "2",
        "--tc",
        "inf,nodes=2000,hang=1",
        "--watchdog",
        "3",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}", run.stderr);
    for g in Store::open(&db).unwrap().games(None).unwrap() {
        let s = g.summary;
        assert!(s.termination.to_string().starts_with("engine hung: no move within 1 s"), "{}", s.termination);
        assert_ne!(s.result, "*");
    }
}

/// Runs `cmd` and returns its peak resident memory in KiB (polled) and its output.
fn peak_rss_kib(cmd: &mut Command) -> (u64, std::process::Output) {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(kib) = status.lines().find_map(|l| l.strip_prefix("VmRSS:")) {
                peak = peak.max(kib.trim().trim_end_matches("kB").trim().parse().unwrap_or(0));
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (peak, child.wait_with_output().unwrap())
}

#[test]
fn a_flooding_engine_costs_bounded_memory() {
    // 40 MB of chatter after every move; one line of 60 MB.
    for (how, termination) in [("flood go 1 40", None), ("longline go 1 60", Some("0-1 {engine protocol error: "))] {
        let spec = format!("uci:{}", proxy(how, stockfish()));
        let (peak, out) = peak_rss_kib(
            Command::new(arbiter_bin())
                .args(["match", "chess", "--p1", &spec, "--p2", "random", "--games", "1", "--tc", "inf,nodes=500"])
                .args(["--max-plies", "8", "--no-db"]),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(peak < 64 * 1024, "{how}: arbiter grew to {peak} KiB against a flooding engine");
        if let Some(t) = termination {
            assert!(stdout.contains(t) && stdout.contains("longer than 1048576 bytes"), "{how}: {stdout}");
        } else {
            assert!(stdout.contains("{adjudication: ply limit}"), "{how}: the flood is read through: {stdout}");
        }
    }
}

/// Processes whose environment carries `mark` (all descendants of a run).
fn marked_processes(mark: &str) -> Vec<String> {
    let needle = format!("ARBITER_TEST_MARK={mark}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let env = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if env.split(|&b| b == 0).any(|v| v == needle.as_bytes()) {
            let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(String::from_utf8_lossy(&cmd).replace('\0', " "));
        }
    }
    found
}

#[test]
fn no_process_outlives_a_tournament_with_crashing_hanging_and_forking_engines() {
    let dir = temp_dir("process-tree");
    let db = dir.join("t.db");
    let fixture = arbiter_e2e::fixture_plugin("fixture", None);
    let mark = format!("{}-tree", std::process::id());
    let players = [
        format!("crash=uci:{}", proxy("after go 2", stockfish())),
        format!("hang=uci:{}", proxy("hang go 2", stockfish())),
        format!("fork=engine:{}", proxy("fork go 2", &example_engine())),
        "r=random".to_string(),
    ];
    let mut cmd = Command::new(arbiter_bin());
    cmd.env("ARBITER_TEST_MARK", &mark).env_remove("ARBITER_PLUGIN_PATH");
    cmd.args(["--plugin-dir", &profile_dir().display().to_string(), "--plugin-dir", &fixture.display().to_string()]);
    cmd.arg("tournament");
    for p in &players {
        cmd.args(["--player", p]);
    }
    cmd.args(["--variant", "chess", "--tc", "inf,nodes=1000,hang=1", "--max-plies", "10", "--concurrency", "2"]);
    cmd.args(["--db", db.to_str().unwrap()]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A hanging plugin in a worker, then kill -9 of a tournament mid-game.
    let mut cmd = Command::new(arbiter_bin());
    cmd.env("ARBITER_TEST_MARK", &mark).env_remove("ARBITER_PLUGIN_PATH");
    cmd.args(["--plugin-dir", &fixture.display().to_string(), "tournament", "--player", "a=random"]);
    cmd.args(["--player", &players[2], "--variant", "fixture-hang", "--watchdog", "1"]);
    cmd.args(["--db", dir.join("hang.db").to_str().unwrap()]).stdout(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = marked_processes(&mark);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "processes left behind: {left:#?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_plugin_that_fails_is_to_blame_not_the_player_that_called_it() {
    let fixture = arbiter_e2e::fixture_plugin("fixture", None);
    let f = fixture.to_str().unwrap();
    // A panic inside mcts's search (its playouts apply moves from ply 5 on).
    let run = arbiter(&[
        "--plugin-dir",
        f,
        "match",
        "fixture-race",
        "--p1",
        "mcts:iterations=50",
        "--p2",
        "random",
        "--games",
        "1",
        "--option",
        "panic_in=apply",
        "--option",
        "panic_at_ply=5",
        "--no-db",
    ]);
    assert!(run.ok, "{}", run.stderr);
    let games = game_lines(&run.stdout);
    assert!(games[0].contains(": * {plugin crashed: plugin fixture-plugin panicked in apply"), "{}", games[0]);
    assert!(run.stdout.contains(": 0 - 0 - 0"), "a voided game is no one's result: {}", run.stdout);
    // An ongoing game without a legal move breaks the contract: void.
    let run = arbiter(&["--plugin-dir", f, "match", "fixture-stuck", "--p1", "random", "--p2", "random", "--no-db"]);
    assert!(run.ok, "{}", run.stderr);
    for g in game_lines(&run.stdout) {
        assert!(
            g.contains(": * {plugin contract violation: the game is ongoing but player 1 has no legal move}"),
            "{g}"
        );
    }
}

/// An engine's legal move passes through the plugin's `parse_move`, then
/// `move_text`, `apply`, `status` and the next `legal_moves`: a panic in any
/// of them voids the game as the plugin's fault (naming the call), never
/// the engine's illegal move or loss.
#[test]
fn a_plugin_that_fails_on_an_engine_s_legal_move_voids_the_game_not_the_engine() {
    let fixture = arbiter_e2e::fixture_plugin("fixture", None);
    let f = fixture.to_str().unwrap();
    let engine = format!("engine:{}", example_engine());
    // The kit's method, and the ABI call it is named by.
    let calls = [("parse_move", "parse_move"), ("move_text", "move_to_text"), ("apply", "apply"), ("status", "status")];
    for (call, abi_call) in calls.into_iter().chain([("legal_moves", "legal_moves")]) {
        let panic_in = format!("panic_in={call}");
        let run = arbiter(&[
            "--plugin-dir",
            f,
            "match",
            "fixture-race",
            "--p1",
            &engine,
            "--p2",
            "random",
            "--games",
            "1",
            "--option",
            &panic_in,
            "--option",
            "panic_at_ply=2",
            "--no-db",
        ]);
        assert!(run.ok, "{call}: {}", run.stderr);
        let games = game_lines(&run.stdout);
        assert!(games[0].contains(": * {plugin crashed: "), "{call}: {}", games[0]);
        assert!(games[0].contains(&format!("panicked in {abi_call}")), "{call}: {}", games[0]);
        assert!(!games[0].contains("illegal move"), "{call}: {}", games[0]);
        assert!(run.stdout.contains(": 0 - 0 - 0"), "{call}: a voided game is no one's result: {}", run.stdout);
    }
}

#[test]
fn mcts_refuses_a_hidden_variant_that_cannot_sample_worlds_and_the_kit_never_hands_out_the_truth() {
    let fixture = arbiter_e2e::fixture_plugin("fixture", None);
    let f = fixture.to_str().unwrap();
    let run =
        arbiter(&["--plugin-dir", f, "match", "fixture-no-sampling", "--p1", "mcts", "--p2", "random", "--no-db"]);
    assert!(!run.ok);
    assert_eq!(
        run.stderr.trim(),
        "error: player 'mcts': mcts cannot search fixture-no-sampling: it hides information and its plugin offers no sample_world"
    );
    // Through the ABI, the undeclared default is refused rather than cloned.
    let registry = arbiter::plugin::Registry::load(&arbiter::plugin::SearchPath::only(vec![fixture.clone()]));
    let game = registry.get("fixture-no-sampling").unwrap().new_game(&Default::default()).unwrap();
    match game.sample_world(arbiter::Viewer::Player(0), 1) {
        Err(e) => assert_eq!(e.kind, arbiter_api::ErrorKind::Unsupported, "{e}"),
        Ok(_) => panic!("the kit handed out a world of a variant that cannot sample"),
    }
}

/// `dir=`, `arg=`, `restart=` and `timeout=` on an engine: a wrapper script
/// in its own directory, started there with an argument holding a space,
/// notes each start; `restart=on` starts it once a game, the default once a
/// match; a `timeout=` shorter than the default ends a silent handshake.
#[test]
fn engine_settings_set_the_directory_arguments_restarts_and_handshake_time() {
    let dir = temp_dir("engine-settings");
    let home = dir.join("engine home");
    std::fs::create_dir_all(&home).unwrap();
    let wrapper = home.join("sf.sh");
    std::fs::write(&wrapper, format!("#!/bin/sh\necho \"$(pwd) [$1]\" >> starts.txt\nexec {}\n", stockfish())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let starts = |restart: &str| {
        let _ = std::fs::remove_file(home.join("starts.txt"));
        let spec = format!("uci:./sf.sh,dir={},arg=two words,restart={restart},Hash=4", home.display());
        let run = arbiter(&[
            "match",
            "chess",
            "--p1",
            &spec,
            "--p2",
            "random",
            "--games",
            "3",
            "--tc",
            "inf,nodes=500",
            "--max-plies",
            "6",
            "--no-db",
        ]);
        assert!(run.ok, "{}\n{}", run.stderr, run.stdout);
        assert_eq!(game_lines(&run.stdout).len(), 3, "{}", run.stdout);
        assert!(game_lines(&run.stdout).iter().all(|g| g.contains("ply limit")), "no engine fault: {}", run.stdout);
        std::fs::read_to_string(home.join("starts.txt")).unwrap()
    };
    let fresh = starts("on");
    let want = format!("{} [two words]", home.display());
    // One start to check its options against their declared types, then one a game.
    assert_eq!(fresh.lines().collect::<Vec<_>>(), [want.as_str(); 4], "one start a game, in dir=, with arg=");
    assert_eq!(starts("off").lines().count(), 2, "kept between games");

    let (silent, _) = spec_of("uci", "hang uci 1");
    let t0 = Instant::now();
    let spec = format!("{silent},timeout=0.5");
    let run = arbiter(&["match", "chess", "--p1", &spec, "--p2", "random", "--games", "1", "--no-db"]);
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("no 'uciok' within the handshake time"), "{}", run.stdout);
    assert!(t0.elapsed() < Duration::from_secs(5), "timeout=0.5 waited {:?}", t0.elapsed());

    for (spec, message) in [
        (format!("uci:./sf.sh,dir={}/nowhere", dir.display()), "directory"),
        (format!("uci:{},restart=sometimes", stockfish()), "restart 'sometimes' must be on or off"),
        ("hub:dame hub,Hash=4".to_string(), "unknown engine setting 'Hash'"),
    ] {
        let run = arbiter(&["match", "chess", "--p1", &spec, "--p2", "random", "--no-db"]);
        assert!(!run.ok, "{spec} must be refused");
        assert!(run.stderr.contains(message), "{spec}: {}", run.stderr);
    }
}

/// `arbiter check uci:...`/`hub:...` takes an engine through its protocol:
/// Stockfish and dame pass every step; an engine that breaks the protocol
/// fails exactly the steps it breaks, each named with what it said.
#[test]
fn the_protocol_check_passes_real_engines_and_names_each_broken_step() {
    for spec in [format!("uci:{}", stockfish()), "hub:dame hub".to_string()] {
        let run = arbiter(&["check", &spec]);
        assert!(run.ok, "{spec}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains(" failed") && run.stdout.contains(", 0 failed"), "{}", run.stdout);
        assert!(!run.stdout.contains("FAIL"), "{}", run.stdout);
    }
    let sloppy = format!("uci:python3 \"{}\"", workspace().join("tests/fixtures/engines/sloppy-uci.py").display());
    let run = arbiter(&["check", &sloppy]);
    assert!(!run.ok, "a sloppy engine fails the check");
    let failed: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    for expected in [
        "'uci' is answered with 'id name' and 'uciok': no 'id name' line",
        "its 1 option lines are well formed: 'name Hash type spin default 16': a spin needs numeric default, min and max",
        "from the start, 'go movetime 200': a legal 'bestmove' in time: 'info depth 1 score 55': a score that is not",
        "'go nodes 1000': a legal 'bestmove' in time: 'info depth 1 score 55'",
        "a mate in one is played and scored 'mate 1' (the mover's view): ",
        "'quit' ends the engine within 1 s: still running 1 s after it",
    ] {
        assert!(failed.iter().any(|l| l.contains(expected)), "no FAIL '{expected}' in:\n{}", run.stdout);
    }
    assert!(run.stdout.contains("PASS  'isready' is answered with 'readyok'"), "{}", run.stdout);
    assert!(run.stderr.contains("check(s) failed"), "{}", run.stderr);
}

/// A plugin's own adjudication (its `adjudicate` call) through the real
/// built `.so`, in worker processes: asked for with --plugin-adjudication,
/// it ends each game with its verdict, recorded as an adjudication in PGN;
/// not asked for, the games are played out; an answer of the wrong shape
/// voids the game as the plugin's fault.
#[test]
fn a_plugins_own_adjudication_ends_games_only_when_asked_for() {
    let fixture = arbiter_e2e::fixture_plugin("fixture", None);
    let f = fixture.to_str().unwrap();
    let dir = temp_dir("plugin-adjudication");
    let pgn = dir.join("a.pgn");
    let db = dir.join("t.db");
    let run = arbiter(&[
        "--plugin-dir",
        f,
        "tournament",
        "--player",
        "a=random",
        "--player",
        "b=random:seed=2",
        "--variant",
        "fixture-race",
        "--games-per-pairing",
        "4",
        "--plugin-adjudication",
        "--pgn",
        pgn.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}\n{}", run.stderr, run.stdout);
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Termination \"adjudication\"]").count(), 4, "{text}");
    assert_eq!(text.matches("(the plugin's adjudication)}").count(), 4, "{text}");
    let run = arbiter(&["--plugin-dir", f, "match", "fixture-race", "--p1", "random", "--p2", "random", "--no-db"]);
    assert!(game_lines(&run.stdout).iter().all(|g| g.contains("{reached ten}")), "{}", run.stdout);
    let run = arbiter(&[
        "--plugin-dir",
        f,
        "match",
        "fixture-race",
        "--p1",
        "random",
        "--p2",
        "random",
        "--no-db",
        "--plugin-adjudication",
        "--option",
        "adjudication=bad",
    ]);
    assert!(
        game_lines(&run.stdout).iter().all(|g| g.contains(": * {plugin contract violation: adjudicate: no reason")),
        "{}",
        run.stdout
    );
}
