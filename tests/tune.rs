//! `arbiter tune`: SPSA finds a synthetic engine's known optimum, on one
//! machine and through the queue with two worker processes; a tune killed
//! mid-run and resumed ends exactly where an unbroken run ends.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arbiter::store::Store;
use arbiter_e2e::{arbiter, arbiter_bin, postgres_database, stored_games, temp_dir, workspace};

/// The tuned values `arbiter tune` (or `results`) printed: `A=70, B=0.31`.
fn tuned(stdout: &str) -> (f64, f64) {
    let line = stdout.lines().find(|l| l.starts_with("Tuned after")).unwrap_or_else(|| panic!("{stdout}"));
    let value = |name: &str| -> f64 {
        let at = line.find(&format!("{name}=")).unwrap_or_else(|| panic!("{line}")) + name.len() + 1;
        line[at..].split(',').next().unwrap().trim().parse().unwrap()
    };
    (value("A"), value("B"))
}

/// The synthetic engine as a player spec, run by the Python interpreter
/// itself (not a launcher shim). It says `set_options`, so one process a
/// side and runner is told each pair's values.
fn synthetic_engine() -> String {
    let out = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().expect("python3");
    let python = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let script = workspace().join("tests/fixtures/tune-engine.py");
    format!("engine:{python} -S \"{}\"", script.display())
}

/// The flags of a tune of the synthetic engine from A=20, B=0.8 (its
/// optimum: A=70, B=0.3) over 200 pairs.
fn synthetic_tune(player: &str, db: &str) -> Vec<String> {
    let flags = [
        "tune",
        "breakthrough",
        "--player",
        player,
        "--param",
        "A, int, 20, 0, 100, 6, 0.1",
        "--param",
        "B, float, 0.8, 0, 1, 0.06, 0.1",
        "--iterations",
        "200",
        "--tc",
        "inf",
        "--max-plies",
        "20",
        "--db",
        db,
    ];
    flags.iter().map(|s| s.to_string()).collect()
}

fn assert_near_optimum(what: &str, (a, b): (f64, f64)) {
    assert!((a - 70.0).abs() <= 15.0 && (b - 0.3).abs() <= 0.15, "{what}: tuned to A={a}, B={b}, not near A=70, B=0.3");
}

#[test]
fn a_synthetic_engine_is_tuned_to_its_known_optimum_on_one_machine_and_by_two_queue_workers() {
    let engine = synthetic_engine();
    let dir = temp_dir("tune-synthetic");
    let db = dir.join("here.db");
    let mut flags = synthetic_tune(&engine, db.to_str().unwrap());
    flags.extend(["--concurrency", "2", "--in-process"].map(String::from));
    let args: Vec<&str> = flags.iter().map(String::as_str).collect();
    let t0 = Instant::now();
    let run = arbiter(&args);
    assert!(run.ok, "{}", run.stderr);
    eprintln!("one machine: 200 pairs in {:.1} s", t0.elapsed().as_secs_f64());
    assert_near_optimum("one machine", tuned(&run.stdout));
    assert_eq!(run.stdout.lines().filter(|l| l.starts_with("Pair ")).count(), 200, "a line a pair");
    // `results` shows the same values and each parameter's path.
    let results = arbiter(&["results", "--db", db.to_str().unwrap()]);
    assert!(results.ok, "{}", results.stderr);
    assert_eq!(tuned(&results.stdout), tuned(&run.stdout));
    assert!(results.stdout.contains("A (int, start 20, bounds 0 to 100):"), "{}", results.stdout);
    assert!(results.stdout.contains("B (float, start 0.8, bounds 0 to 1):"), "{}", results.stdout);
    assert_eq!(Store::open(&db).unwrap().games(Some(1)).unwrap().len(), 400);

    // Through the queue: queued here, played by two worker processes
    // that plan the next pairs as results come in.
    let Some(url) = postgres_database("tune") else { return };
    let mut flags = synthetic_tune(&engine, &url);
    flags.extend(["--in-flight", "2", "--local-workers", "0"].map(String::from));
    let args: Vec<&str> = flags.iter().map(String::as_str).collect();
    let queued = arbiter(&args);
    assert!(queued.ok, "{}", queued.stderr);
    assert!(queued.stdout.contains("4 games queued"), "two pairs at once: {}", queued.stdout);
    let t0 = Instant::now();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            Command::new(arbiter_bin())
                .env_remove("ARBITER_PLUGIN_PATH")
                .args(["worker", "--db", &url, "--tournament", "1"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for w in workers {
        let out = w.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    eprintln!("two queue workers: 200 pairs in {:.1} s", t0.elapsed().as_secs_f64());
    let results = arbiter(&["results", "--db", &url]);
    assert!(results.ok && results.stdout.contains("finished"), "{}{}", results.stdout, results.stderr);
    assert_near_optimum("two queue workers", tuned(&results.stdout));
    let _ = std::fs::remove_dir_all(dir);
}

/// The flags of a small deterministic tune: seeded MCTS players, their
/// exploration constant and playout length tuned, one pair at a time.
fn seeded_tune(db: &Path) -> Vec<String> {
    let flags = [
        "tune",
        "breakthrough",
        "--player",
        "mcts:iterations=12",
        "--param",
        "c, float, 0.7, 0.05, 3, 0.15, 0.05",
        "--param",
        "playout, int, 20, 2, 60, 4, 0.02",
        "--iterations",
        "16",
        "--concurrency",
        "2",
        "--tc",
        "inf",
        "--max-plies",
        "60",
        "--db",
        db.to_str().unwrap(),
    ];
    flags.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_tune_killed_mid_run_and_resumed_ends_exactly_where_an_unbroken_run_ends() {
    let dir = temp_dir("tune-resume");
    let (whole, broken) = (dir.join("whole.db"), dir.join("broken.db"));
    let flags = seeded_tune(&whole);
    let run = arbiter(&flags.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(run.ok, "{}", run.stderr);
    let flags = seeded_tune(&broken);
    let mut first = Command::new(arbiter_bin())
        .env_remove("ARBITER_PLUGIN_PATH")
        .args(&flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let stored = || Store::open(&broken).ok().and_then(|s| s.games(Some(1)).ok()).map_or(0, |g| g.len());
    while stored() < 9 {
        assert!(Instant::now() < deadline, "the tune never got going");
        std::thread::sleep(Duration::from_millis(20));
    }
    // kill -9: no chance to tidy up.
    first.kill().unwrap();
    first.wait().unwrap();
    let cut = stored();
    assert!(cut < 32, "killed before the end ({cut} games)");
    let resumed = arbiter(&["tune", "--resume", "1", "--db", broken.to_str().unwrap()]);
    assert!(resumed.ok, "{}", resumed.stderr);
    assert!(resumed.stdout.contains("Resumed after "), "{}", resumed.stdout);
    let last = |out: &str| out.lines().find(|l| l.starts_with("Tuned after")).map(String::from);
    assert_eq!(last(&resumed.stdout), last(&run.stdout), "the same tuned values after {cut} games and a kill");
    assert_eq!(stored_games(&broken), stored_games(&whole), "every game the same, moves included");
    let _ = std::fs::remove_dir_all(dir);
}
