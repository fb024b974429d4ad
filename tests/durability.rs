//! Nothing finished is ever lost, and reading never needs players: a failing
//! store does not keep games from the other records, a store is readable
//! with its engines gone or on read-only media, one run of a tournament at a
//! time (a lease), in-process runs that fail safe, and limits on what a user
//! may ask for.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter::store::Store;
use arbiter_e2e::{arbiter, arbiter_bin, fixture_plugin, temp_dir, workspace};

/// A small tmpfs mounted at `dir` (root only); `None` where mounting is not
/// allowed, so the caller can say what it skipped.
struct Mount(PathBuf);

impl Mount {
    fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir).status();
        ok.ok().filter(|s| s.success()).map(|_| Mount(dir.to_path_buf()))
    }

    fn read_only(&self) {
        let s = Command::new("mount").args(["-o", "remount,ro"]).arg(&self.0).status().unwrap();
        assert!(s.success());
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_store_stops_new_games_but_every_finished_game_reaches_the_other_records() {
    let dir = temp_dir("full-disk");
    let Some(mount) = Mount::tmpfs(&dir.join("small"), "256k") else {
        eprintln!("skipped: cannot mount a tmpfs here (not root)");
        return;
    };
    let (db, pgn, jsonl) = (mount.0.join("games.db"), dir.join("a.pgn"), dir.join("a.jsonl"));
    let run = arbiter(&[
        "match",
        "chess",
        "--p1",
        "random",
        "--p2",
        "random:seed=9",
        "--games",
        "200",
        "--db",
        db.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert!(!run.ok, "a store that cannot take a game is an error");
    // Each game the store refused is named as it happens (the one that found
    // the store full, and at most the next, already started), then the
    // error once more on exit.
    let refused = run.stderr.matches(": not stored: ").count();
    assert!((1..=2).contains(&refused), "{}", run.stderr);
    let said = run.stderr.matches("database or disk is full").count();
    assert_eq!(said, refused + 1, "{}", run.stderr);
    let played = run.stdout.lines().filter(|l| l.starts_with("Game ")).count();
    let in_pgn = std::fs::read_to_string(&pgn).unwrap().matches("[Event ").count();
    let in_jsonl = std::fs::read_to_string(&jsonl).unwrap().lines().count();
    assert!(played < 200, "no new game after the store failed ({played} played)");
    assert_eq!((in_pgn, in_jsonl), (played, played), "every finished game is in the PGN and JSON-lines files");
}

/// Runs a short tournament of `players` (name=spec) on chess into `db`.
fn tournament(db: &Path, players: &[&str]) {
    let mut args = vec!["tournament", "--variant", "chess", "--max-plies", "20", "--db", db.to_str().unwrap()];
    for p in players {
        args.extend(["--player", p]);
    }
    let run = arbiter(&args);
    assert!(run.ok, "{}", run.stderr);
}

#[test]
fn results_need_only_the_store_not_its_engines_and_read_only_media_will_do() {
    let dir = temp_dir("read-only");
    let engine = dir.join("eng.py");
    std::fs::copy(workspace().join("scripts/example-engine.py"), &engine).unwrap();
    let spec = format!("e=engine:python3 \"{}\"", engine.display());
    let db = dir.join("t.db");
    tournament(&db, &[&spec, "r=random"]);
    std::fs::remove_file(&engine).unwrap();
    let run = arbiter(&["results", "--db", db.to_str().unwrap()]);
    assert!(run.ok, "results with the engine uninstalled: {}", run.stderr);
    assert!(run.stdout.contains("2 games, finished"), "{}", run.stdout);
    // With no plugin at all either.
    let run = arbiter(&["--plugin-dir", dir.to_str().unwrap(), "results", "--db", db.to_str().unwrap()]);
    assert!(run.ok && run.stdout.contains("2 games"), "{}", run.stderr);

    let Some(mount) = Mount::tmpfs(&dir.join("ro"), "4m") else {
        eprintln!("skipped the read-only part: cannot mount a tmpfs here (not root)");
        return;
    };
    let ro_db = mount.0.join("t.db");
    tournament(&ro_db, &["a=random", "b=random:seed=3"]);
    mount.read_only();
    let run = arbiter(&["results", "--db", ro_db.to_str().unwrap(), "--pgn", dir.join("ro.pgn").to_str().unwrap()]);
    assert!(run.ok, "results on read-only media: {}", run.stderr);
    assert!(run.stdout.contains("2 games, finished"), "{}", run.stdout);
    assert_eq!(std::fs::read_to_string(dir.join("ro.pgn")).unwrap().matches("[Event ").count(), 2);
    assert_eq!(Store::open(&ro_db).unwrap().games(None).unwrap().len(), 2);
}

#[test]
fn one_run_of_a_tournament_at_a_time_and_a_dead_holder_is_taken_over() {
    let dir = temp_dir("lease");
    let db = dir.join("t.db");
    let db_text = db.to_str().unwrap().to_string();
    // Slow players: mcts with a clock keeps the first run busy.
    let start = |args: &[&str]| {
        Command::new(arbiter_bin())
            .env_remove("ARBITER_PLUGIN_PATH")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut first = start(&[
        "tournament",
        "--player",
        "a=mcts:movetime=0.05",
        "--player",
        "b=mcts:movetime=0.05",
        "--variant",
        "chess",
        "--games-per-pairing",
        "2",
        "--max-plies",
        "40",
        "--db",
        &db_text,
    ]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Store::open(&db).ok().and_then(|s| s.tournament(Some(1)).ok().flatten()).is_none() {
        assert!(Instant::now() < deadline, "the tournament never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let second = arbiter(&["tournament", "--resume", "1", "--db", &db_text]);
    assert!(!second.ok, "a second run of the same tournament is refused");
    assert!(
        second.stderr.contains("tournament 1 is being run by") && second.stderr.contains(&first.id().to_string()),
        "the refusal names the holder: {}",
        second.stderr
    );
    first.kill().unwrap();
    first.wait().unwrap();
    let third = arbiter(&["tournament", "--resume", "1", "--db", &db_text]);
    assert!(third.ok, "a dead holder's lease is taken over: {}", third.stderr);
    assert_eq!(Store::open(&db).unwrap().games(Some(1)).unwrap().len(), 2);
}

#[test]
fn a_plugin_hanging_in_process_is_recorded_and_the_run_ends_then_resumes_in_workers() {
    let fixture = fixture_plugin("fixture", None);
    let f = fixture.to_str().unwrap();
    let db = temp_dir("in-process-hang").join("t.db");
    let d = db.to_str().unwrap();
    let t0 = Instant::now();
    let run = arbiter(&[
        "--plugin-dir",
        f,
        "tournament",
        "--player",
        "a=random",
        "--player",
        "b=random",
        "--variant",
        "fixture-hang",
        "--variant",
        "fixture-race",
        "--watchdog",
        "1",
        "--in-process",
        "--db",
        d,
    ]);
    assert!(!run.ok, "the run ends with an error");
    assert!(t0.elapsed() < Duration::from_secs(20), "the watchdog works in-process: {:?}", t0.elapsed());
    assert!(run.stderr.contains("hung inside a plugin") && run.stderr.contains("--resume 1"), "{}", run.stderr);
    let games = Store::open(&db).unwrap().games(None).unwrap();
    assert_eq!(games.len(), 1, "the hung game is stored");
    // The call named, in the words a sandboxed plugin's time limit uses.
    assert_eq!(
        games[0].summary.termination.to_string(),
        "plugin hung: plugin fixture-plugin ran past its time limit of 1000 ms in legal_moves (the watchdog, in-process)"
    );
    assert_eq!(games[0].summary.plies, 3, "with the plies played before the hang");
    let run = arbiter(&["--plugin-dir", f, "tournament", "--resume", "1", "--watchdog", "1", "--db", d]);
    assert!(run.ok, "resumed in worker processes: {}", run.stderr);
    assert_eq!(Store::open(&db).unwrap().games(None).unwrap().len(), 4);
}

#[test]
fn a_run_that_died_in_process_is_resumed_only_in_workers() {
    let fixture = fixture_plugin("fixture", None);
    let f = fixture.to_str().unwrap();
    let db = temp_dir("in-process-abort").join("t.db");
    let d = db.to_str().unwrap();
    let args = ["--plugin-dir", f, "tournament", "--player", "a=random", "--player", "b=random"];
    let run = arbiter(&[&args[..], &["--variant", "fixture-abort", "--in-process", "--db", d]].concat());
    assert!(!run.ok, "an abort in-process kills the run");
    let again = arbiter(&["--plugin-dir", f, "tournament", "--resume", "1", "--in-process", "--db", d]);
    assert!(!again.ok);
    assert!(again.stderr.contains("died in its own process") && again.stderr.contains("without --in-process"));
    let resumed = arbiter(&["--plugin-dir", f, "tournament", "--resume", "1", "--db", d]);
    assert!(resumed.ok, "{}", resumed.stderr);
    for g in Store::open(&db).unwrap().games(None).unwrap() {
        assert!(g.summary.termination.is_plugin_fault(), "{}", g.summary.termination);
        assert_eq!(g.summary.result, "*");
    }
}

#[test]
fn sizes_and_times_beyond_the_limits_are_refused_and_a_stored_one_never_crashes_a_reader() {
    let dir = temp_dir("limits");
    let db = dir.join("t.db");
    let d = db.to_str().unwrap();
    let base = ["tournament", "--player", "a=random", "--player", "b=random", "--variant", "chess", "--db", d];
    for (flag, value, says) in [
        ("--games-per-pairing", "4294967295", "games_per_pairing is 4294967295: it must be from 1 to"),
        ("--rounds", "4294967295", "rounds is 4294967295: it must be from 1 to"),
        ("--concurrency", "0", "concurrency is 0: it must be from 1 to"),
        ("--tc", "1e17", "is not a number of seconds (0 to 10000000)"),
        ("--tc", "0+0", "a period needs some time"),
    ] {
        let run = arbiter(&[&base[..], &[flag, value]].concat());
        assert!(!run.ok, "{flag} {value} accepted");
        assert!(run.stderr.contains(says), "{flag} {value}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
    }
    assert!(!db.exists(), "a refused tournament leaves no store file");
    // A definition stored by hand beyond the limits is refused on reading.
    drop(arbiter::store::Store::open(&db).unwrap());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let config = r#"{"config":{"players":[{"name":"a","spec":"random"},{"name":"b","spec":"random"}],
        "games_per_pairing":4294967295},"variants":["chess"],"openings":{}}"#;
    conn.execute("INSERT INTO tournaments (name, config, created_at) VALUES ('big', ?1, 0)", [config]).unwrap();
    drop(conn);
    let run = arbiter(&["results", "--db", d]);
    assert!(!run.ok && run.stderr.contains("the stored definition is refused"), "{}", run.stderr);
}
