//! Sandboxed engines (WebAssembly, WASI preview 1) on their virtual clocks:
//! the same games on any machine under any load, on threads and in worker
//! processes; faults charged to the engine; games played again by
//! `arbiter replay --db`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbiter_e2e::{arbiter, game_lines, minimax_wasm, stockfish, temp_dir};

/// Busy threads on every core while it lives: a machine under heavy load.
struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn start() -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The records of a JSON-lines file, each as written, in a canonical order;
/// each holds only the day it was played (a run that crosses midnight reads
/// its day as the first run's).
fn records(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let started = v["started_at"].as_u64().unwrap();
            assert_eq!(started % 86_400, 0, "a reproducible record keeps its day only: {started}");
            l.replace(&format!("\"started_at\":{started}"), "\"started_at\":DAY")
        })
        .collect();
    lines.sort();
    lines
}

/// A path as an engine command takes it: in double quotes (a checkout's
/// folder may hold spaces).
fn quoted(path: &Path) -> String {
    format!("\"{}\"", path.display())
}

/// A tournament of two sandboxed engines and a seeded MCTS player, stored in
/// a new store and read back as records.
fn tournament(name: &str, engine: &Path, concurrency: &str, workers: bool) -> Vec<String> {
    let dir = temp_dir(name);
    let db = dir.join("t.db");
    let spec = format!("uci:{}", quoted(engine));
    let (a, b) = (format!("a={spec}"), format!("b={spec},ips=2000000000"));
    let mut args = vec![
        "tournament",
        "--db",
        db.to_str().unwrap(),
        "--player",
        &a,
        "--player",
        &b,
        "--player",
        "c=mcts:iterations=30",
        "--variant",
        "chess",
        "--tc",
        "0.3+0.01",
        "--max-plies",
        "50",
        "--concurrency",
        concurrency,
    ];
    if !workers {
        args.push("--in-process");
    }
    let run = arbiter(&args);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let jsonl = dir.join("games.jsonl");
    let out = arbiter(&["results", "--db", db.to_str().unwrap(), "--jsonl", jsonl.to_str().unwrap()]);
    assert!(out.ok, "{}", out.stderr);
    records(&jsonl)
}

/// The same tournament gives byte-identical records on an idle machine and
/// under heavy load, on threads and in worker processes, one game at a time
/// and four: nothing in them depends on the machine's speed.
#[test]
fn the_same_tournament_gives_the_same_records_idle_or_loaded_on_threads_or_in_workers() {
    let engine = minimax_wasm();
    let idle = tournament("sandbox-idle", &engine, "1", false);
    assert_eq!(idle.len(), 6);
    assert!(idle.iter().any(|r| r.contains("\"engines\":[\"minimax 0.1\"")), "{}", idle[0]);
    let loaded = {
        let _load = Load::start();
        [tournament("sandbox-threads", &engine, "4", false), tournament("sandbox-workers", &engine, "4", true)]
    };
    let workers = tournament("sandbox-workers-idle", &engine, "1", true);
    for (what, other) in [("loaded, 4 threads", &loaded[0]), ("loaded, 4 workers", &loaded[1]), ("1 worker", &workers)]
    {
        assert_eq!(&idle, other, "{what}");
    }
}

/// `arbiter match` (games on threads of one process) alike, and a game
/// against Stockfish on its real clock is played out.
#[test]
fn the_same_match_gives_the_same_games_and_a_sandboxed_engine_meets_a_native_one() {
    let engine = minimax_wasm();
    let p1 = format!("uci:{}", quoted(&engine));
    let play = |name: &str, concurrency: &str| {
        let jsonl = temp_dir(name).join("m.jsonl");
        let run = arbiter(&[
            "match",
            "chess",
            "--p1",
            &p1,
            "--p2",
            "random:seed=5",
            "--games",
            "4",
            "--tc",
            "0.2+0.01",
            "--max-plies",
            "60",
            "--concurrency",
            concurrency,
            "--no-db",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ]);
        assert!(run.ok, "{}", run.stderr);
        records(&jsonl)
    };
    let idle = play("match-idle", "1");
    let loaded = {
        let _load = Load::start();
        play("match-loaded", "4")
    };
    assert_eq!(idle, loaded);
    let run = arbiter(&[
        "match",
        "chess",
        "--p1",
        &p1,
        "--p2",
        &format!("uci:{}", stockfish()),
        "--games",
        "2",
        "--tc",
        "1+0.01",
        "--max-plies",
        "40",
        "--no-db",
    ]);
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(game_lines(&run.stdout).len(), 2, "{}", run.stdout);
}

/// A module written as WebAssembly text, in `dir`.
fn module(dir: &Path, name: &str, wat: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, wat::parse_str(wat).unwrap()).unwrap();
    path
}

/// Each bad engine loses its own game with the reason in one line, and the
/// match goes on (its second game is played).
#[test]
fn a_bad_module_or_a_faulty_sandboxed_engine_costs_only_its_own_games() {
    let dir = temp_dir("sandbox-faults");
    let text = dir.join("script.wasm");
    std::fs::write(&text, "#!/bin/sh\necho uciok\n").unwrap();
    let library = module(&dir, "library.wasm", r#"(module (memory (export "memory") 1))"#);
    let silent = module(
        &dir,
        "silent.wasm",
        r#"(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 100))
    (loop $ever (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8))) (br $ever))))"#,
    );
    let trap =
        module(&dir, "trap.wasm", r#"(module (memory (export "memory") 1) (func (export "_start") unreachable))"#);
    let threads = module(
        &dir,
        "threads.wasm",
        r#"(module (import "wasi" "thread-spawn" (func (param i32) (result i32)))
           (memory (export "memory") 1) (func (export "_start")))"#,
    );
    let engine = minimax_wasm();
    let capped = format!("{},memory=1", quoted(&engine));
    let cases = [
        (quoted(&text), "is not a WebAssembly module"),
        (quoted(&library), "is not a WASI command: it exports no _start"),
        (quoted(&silent), "uciok"),
        (quoted(&trap), "trapped: wasm trap: wasm `unreachable` instruction executed"),
        (quoted(&threads), "imports wasi::thread-spawn: threads are not granted in the sandbox"),
        (capped, "over its cap of 1 MiB"),
    ];
    for (spec, says) in cases {
        let p1 = format!("uci:{spec}");
        let run = arbiter(&["match", "chess", "--p1", &p1, "--p2", "random", "--games", "2", "--no-db"]);
        assert!(run.ok, "{spec}: {}", run.stderr);
        let games = game_lines(&run.stdout);
        assert_eq!(games.len(), 2, "{spec}: {}", run.stdout);
        for g in &games {
            assert!(g.contains(says), "{spec}: {g}");
            let engine_first = g.contains(&format!("({p1} vs"));
            assert!(g.contains(if engine_first { "): 0-1" } else { "): 1-0" }), "{spec}: the engine's loss: {g}");
        }
    }
}

/// `arbiter replay --db` plays every game of sandboxed and built-in players
/// again: an honest store holds up; a forged resignation is named with
/// where the game played again ends otherwise.
#[test]
fn replay_db_plays_sandboxed_games_again_and_names_a_forged_resignation() {
    let engine = minimax_wasm();
    let db = temp_dir("sandbox-replay").join("r.db");
    let db_text = db.to_str().unwrap();
    // A tenth of the default rate: a weaker engine, whose first game
    // reaches the ply limit.
    let spec = format!("a=uci:{},ips=1500000000", quoted(&engine));
    let run = arbiter(&[
        "tournament",
        "--db",
        db_text,
        "--player",
        &spec,
        "--player",
        "b=mcts:iterations=20",
        "--variant",
        "chess",
        "--tc",
        "0.2+0.01",
        "--max-plies",
        "16",
        "--in-process",
    ]);
    assert!(run.ok, "{}", run.stderr);
    let audit = arbiter(&["replay", "--db", db_text]);
    assert!(audit.ok, "{}\n{}", audit.stdout, audit.stderr);
    assert!(
        audit.stdout.contains("2 of them (every player sandboxed or built in) played again here"),
        "{}",
        audit.stdout
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let record: String = conn.query_row("SELECT record FROM games WHERE id = 1", [], |r| r.get(0)).unwrap();
    let mut record: serde_json::Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["result"]["termination"]["detail"], "ply limit", "{record}");
    record["result"] = serde_json::json!({"outcome": {"win": 1}, "termination": {"kind": "resignation"}, "pgn": "0-1"});
    conn.execute("UPDATE games SET record = ?1 WHERE id = 1", [record.to_string()]).unwrap();
    drop(conn);
    let audit = arbiter(&["replay", "--db", db_text]);
    assert!(!audit.ok);
    assert!(
        audit.stdout.contains("played again, the game differs after ply 16: the record ends 0-1 (resignation)"),
        "{}",
        audit.stdout
    );
}

/// Fairymax, an engine nobody here wrote (Debian's source, built for WASI
/// with flags only), plays Stockfish on its real clock and itself in the
/// sandbox; against itself the match gives the same records twice.
#[test]
fn an_independent_engine_plays_stockfish_and_itself_in_the_sandbox() {
    let dir = arbiter_e2e::fairymax();
    let fairymax = format!("xboard:{},files={}", quoted(&dir.join("fairymax.wasm")), dir.join("data").display());
    let run = arbiter(&[
        "match",
        "chess",
        "--p1",
        &fairymax,
        "--p2",
        &format!("uci:{}", stockfish()),
        "--games",
        "2",
        "--tc",
        "1+0.01",
        "--max-plies",
        "60",
        "--no-db",
    ]);
    assert!(run.ok, "{}", run.stderr);
    let games = game_lines(&run.stdout);
    assert_eq!(games.len(), 2, "{}", run.stdout);
    assert!(games.iter().all(|g| !g.contains("engine crashed") && !g.contains("time forfeit")), "{games:?}");
    let itself = |name: &str| {
        let jsonl = temp_dir(name).join("f.jsonl");
        let run = arbiter(&[
            "match",
            "chess",
            "--p1",
            &fairymax,
            "--p2",
            &fairymax,
            "--games",
            "2",
            "--tc",
            "0.5+0.01",
            "--max-plies",
            "40",
            "--concurrency",
            "2",
            "--no-db",
            "--jsonl",
            jsonl.to_str().unwrap(),
        ]);
        assert!(run.ok, "{}", run.stderr);
        records(&jsonl)
    };
    let first = itself("fairymax-1");
    assert_eq!(first.len(), 2);
    assert!(first[0].contains("\"engines\":[\"Fairy-Max 5.0b\""), "{}", &first[0][..first[0].len().min(400)]);
    assert_eq!(first, itself("fairymax-2"));
}

/// The real time `lines` take to bring `done` from the engine `command`
/// starts (in the sandbox if it is a `.wasm`), and its virtual time in µs.
fn timed(command: &str, files: &[PathBuf], lines: &[&str], done: &str) -> (f64, Option<u64>, String) {
    use arbiter::engine::EngineProcess;
    let settings = arbiter::sandbox::SandboxSettings {
        ips: arbiter::sandbox::DEFAULT_IPS,
        memory_mb: 512,
        seed: 1,
        answer_ms: 600_000,
        max_line: 1 << 20,
        files: files.to_vec(),
    };
    let mut p = EngineProcess::start(command, &[], None, &settings).unwrap();
    let (last, rest) = lines.split_last().unwrap();
    for l in rest {
        p.send(l).unwrap();
    }
    // Whatever the engine says on starting is read before the clock starts.
    p.send("ping 1").unwrap();
    p.send("isready").unwrap();
    p.recv_until(None, |l| (l.starts_with("pong") || l == "readyok").then_some(())).unwrap();
    p.begin_move(600_000);
    let t0 = std::time::Instant::now();
    p.send(last).unwrap();
    // The last line of thinking before the answer (its nodes show the work).
    let mut thought = String::new();
    p.recv_until(None, |l| {
        if !l.starts_with(done) {
            thought = l.to_string();
        }
        l.starts_with(done).then_some(())
    })
    .unwrap();
    (t0.elapsed().as_secs_f64(), p.finish_move(), thought)
}

/// The nodes a line of thinking reports: UCI's `nodes N`, or xboard's
/// fourth number.
fn nodes(line: &str) -> Option<u64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.iter().position(|w| *w == "nodes") {
        Some(i) => words.get(i + 1)?.parse().ok(),
        None => words.get(3)?.parse().ok(),
    }
}

/// A benchmark case: its name, the native and sandboxed commands, the
/// lines that start a search, the answer's first word, folders granted.
type Case<'a> = (&'a str, String, String, &'a [&'a str], &'a str, Vec<PathBuf>);

/// The sandbox's speed against native builds of the same source, in real
/// time to a fixed depth (the same nodes), runs interleaved, medians; and
/// how a virtual second compares with a real one. `scripts/bench-sandbox`.
#[test]
#[ignore]
fn sandboxed_engines_against_their_native_builds() {
    let fairymax = arbiter_e2e::fairymax();
    let workspace = arbiter_e2e::workspace();
    let built = std::process::Command::new("cargo")
        .current_dir(&workspace)
        .args(["build", "--release", "--quiet", "-p", "minimax-engine"])
        .status()
        .unwrap();
    assert!(built.success());
    let built = std::process::Command::new("cargo")
        .current_dir(&workspace)
        .args(["build", "--release", "--quiet", "-p", "minimax-engine", "--target", "wasm32-wasip1"])
        .status()
        .unwrap();
    assert!(built.success());
    let release = workspace.join("target");
    let data = vec![fairymax.join("data")];
    let fairy_lines = ["xboard", "protover 2", "new", "force", "post", "st 10000", "sd 10", "go"];
    let mini_lines = ["uci", "position startpos", "go depth 5"];
    let cases: [Case; 2] = [
        (
            "Fairymax, depth 10",
            quoted(&fairymax.join("fairymax")),
            quoted(&fairymax.join("fairymax.wasm")),
            &fairy_lines,
            "move ",
            data.clone(),
        ),
        (
            "minimax (tests' engine), depth 5",
            quoted(&release.join("release").join("minimax")),
            quoted(&release.join("wasm32-wasip1").join("release").join("minimax.wasm")),
            &mini_lines,
            "bestmove",
            vec![],
        ),
    ];
    let runs = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for (name, native, wasm, lines, done, files) in cases {
        let (mut n, mut w, mut virt) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let (real, _, native_thought) = timed(&native, &[], lines, done);
            n.push(real);
            let (real, v, thought) = timed(&wasm, &files, lines, done);
            assert_eq!(
                nodes(&thought),
                nodes(&native_thought),
                "{name}: the same search: {thought} / {native_thought}"
            );
            w.push(real);
            virt.push(v.unwrap() as f64 / 1e6 / real);
        }
        let (n, w) = (median(n), median(w));
        println!(
            "{name}: native {:.3} s, sandboxed {:.3} s: speed {:.2}x native; a virtual second is {:.2} real ones here",
            n,
            w,
            n / w,
            1.0 / median(virt)
        );
    }
}
