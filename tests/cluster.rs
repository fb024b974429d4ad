//! One tournament over many worker processes, coordinated by a real
//! PostgreSQL server (the store's queue): the games are exactly those of one
//! process on SQLite; a killed worker's game is played again and stored
//! once; the server restarting mid-run loses nothing; a worker with another
//! plugin build is refused; a store moves between backends whole.
//!
//! Needs a PostgreSQL server: `ARBITER_TEST_POSTGRES` (default
//! `postgres://postgres:postgres@localhost/postgres`, what `.ci/run` starts).
//! Without one the tests say so and pass, unless `ARBITER_REQUIRE_POSTGRES`
//! is set (CI sets it).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use arbiter::store::Store;
use arbiter_e2e::{arbiter, arbiter_bin, postgres_database as fresh_database, stored_games, temp_dir};

/// One cluster test at a time: they restart the one server.
static SERVER: Mutex<()> = Mutex::new(());

/// Restarts the local PostgreSQL cluster (Debian's `pg_ctlcluster`), if
/// this machine runs one and may restart it; whether it did.
fn restart_local_server() -> bool {
    let Ok(list) = Command::new("pg_lsclusters").arg("--no-header").output() else { return false };
    let text = String::from_utf8_lossy(&list.stdout);
    let Some(first) = text.lines().next() else { return false };
    let fields: Vec<&str> = first.split_whitespace().collect();
    fields.len() >= 2
        && Command::new("pg_ctlcluster").args([fields[0], fields[1], "restart"]).status().is_ok_and(|s| s.success())
}

fn worker(db: &str, tournament: i64, extra: &[&str]) -> Child {
    Command::new(arbiter_bin())
        .args(["worker", "--db", db, "--tournament", &tournament.to_string()])
        .args(extra)
        .env_remove("ARBITER_PLUGIN_PATH")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // The last lines say why, short enough to survive a truncated CI log.
    let last: Vec<&str> = text.lines().rev().take(3).collect();
    assert!(out.status.success(), "worker failed ({}): {:?}", out.status, last);
    text
}

/// `arbiter results`'s standings, from the line that starts them, without
/// the per-worker lines.
fn standings(db: &str) -> String {
    let run = arbiter(&["results", "--db", db]);
    assert!(run.ok, "{}", run.stderr);
    let text = &run.stdout[run.stdout.find("Standings").unwrap()..];
    // Without the lines on who played (workers or one process).
    text.lines().filter(|l| !l.starts_with("Worker host ")).collect::<Vec<_>>().join("\n")
}

const FIELD: &[&str] = &[
    "--player",
    "a=random:seed=5",
    "--player",
    "b=mcts:iterations=30",
    "--player",
    "c=random:seed=9",
    "--variant",
    "checkers",
    "--variant",
    "tavreli",
    "--games-per-pairing",
    "2",
    "--max-plies",
    "80",
    "--seed",
    "11",
];

fn tournament(db: &str, format: &[&str], extra: &[&str]) {
    let mut args = vec!["tournament", "--db", db];
    args.extend(FIELD);
    args.extend(format);
    args.extend(extra);
    let run = arbiter(&args);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn three_workers_on_postgres_play_exactly_the_games_of_one_process_on_sqlite() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("same") else { return };
    let dir = temp_dir("cluster-same");
    for format in [&["--format", "round-robin"][..], &["--format", "swiss", "--rounds", "3"][..]] {
        let lite = dir.join(format!("{}.db", format[1])).to_string_lossy().into_owned();
        tournament(&lite, format, &[]);
        let pg = fresh_database(&format[1].replace('-', "_")).unwrap();
        tournament(&pg, format, &["--local-workers", "0"]);
        let workers: Vec<Child> = (0..3).map(|_| worker(&pg, 1, &["--concurrency", "2"])).collect();
        let logs: Vec<String> = workers.into_iter().map(finish).collect();
        let played = stored_games(Path::new(&pg));
        assert!(played.len() >= 12, "{}: {} games", format[1], played.len());
        assert_eq!(played, stored_games(Path::new(&lite)), "{}: the same games, move for move", format[1]);
        assert_eq!(standings(&pg), standings(&lite));
        // A store written before standings were counted counts them on open.
        let mut client = postgres::Client::connect(&pg, postgres::NoTls).unwrap();
        client
            .batch_execute("DELETE FROM tallies; DELETE FROM pair_tallies; UPDATE tallies_counted SET counted = FALSE")
            .unwrap();
        assert_eq!(standings(&pg), standings(&lite), "recounted");
        // Every worker took part, and each game names its worker.
        for log in &logs {
            assert!(log.contains("games stored"), "{log}");
        }
        let store = Store::open(Path::new(&pg)).unwrap();
        assert!(store.games(None).unwrap().iter().all(|g| g.worker.as_deref().is_some_and(|w| w.contains(':'))));
        // Progress per worker host, as results and the web page show it.
        let rates = store.worker_rates(1).unwrap();
        assert_eq!(rates.iter().map(|r| r.games).sum::<u64>(), played.len() as u64, "{rates:?}");
        assert!(rates.iter().all(|r| r.per_minute > 0.0), "{rates:?}");
        let shown = arbiter(&["results", "--db", &pg]).stdout;
        assert!(shown.contains(&format!("Worker host {}: ", rates[0].host)), "{shown}");
        assert_eq!(store.queue_counts(1).unwrap(), (0, 0));
    }
    drop(pg);
}

#[test]
fn a_killed_worker_s_game_is_played_again_and_every_game_is_stored_once_across_a_server_restart() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("kill") else { return };
    // Slow enough games that a worker is surely mid-game when killed.
    let run = arbiter(&[
        "tournament",
        "--db",
        &pg,
        "--player",
        "m=mcts:iterations=400",
        "--player",
        "r=random",
        "--variant",
        "chess",
        "--games-per-pairing",
        "4",
        "--max-plies",
        "80",
        "--local-workers",
        "0",
    ]);
    assert!(run.ok, "{}", run.stderr);
    let mut first = worker(&pg, 1, &["--lease", "2"]);
    let store = Store::open(Path::new(&pg)).unwrap();
    let t0 = Instant::now();
    while store.queue_counts(1).unwrap().1 == 0 {
        assert!(t0.elapsed() < Duration::from_secs(30), "no game claimed");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Killed just after its claim: a game takes about a second, so it is mid-game
    // (a longer wait could let a loaded machine finish it first).
    std::thread::sleep(Duration::from_millis(50));
    let killed = first.id();
    first.kill().unwrap(); // SIGKILL, mid-game
    let _ = first.wait();
    // The game it held when it died.
    let mut client = postgres::Client::connect(&pg, postgres::NoTls).unwrap();
    let held: Vec<i32> = client
        .query("SELECT game_index FROM game_queue WHERE NOT done AND claimed_by LIKE $1", &[&format!("%:{killed}#%")])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    // The games it was playing (a batch: games this short are claimed several
    // at a time), and the batch before if that was still being stored.
    assert!(!held.is_empty(), "the killed worker held {held:?}");
    drop(client);
    // All workers gone; new ones take over, and the server restarts under them.
    let late: Vec<Child> = (0..2).map(|_| worker(&pg, 1, &["--lease", "2"])).collect();
    let restarted = restart_local_server();
    let logs: Vec<String> = late.into_iter().map(finish).collect();
    let stored = stored_games(Path::new(&pg));
    assert_eq!(stored.iter().map(|g| g.0).collect::<Vec<_>>(), (0..4).collect::<Vec<_>>(), "{logs:?}");
    let again = Store::open(Path::new(&pg)).unwrap().games(None).unwrap();
    for index in held {
        let replayed = again.iter().find(|g| g.slot.as_ref().unwrap().index == index as u32).unwrap();
        assert!(
            !replayed.worker.as_deref().unwrap().contains(&format!(":{killed}#")),
            "played again by another worker"
        );
    }
    let finished = Store::open(Path::new(&pg)).unwrap().tournament(Some(1)).unwrap().unwrap();
    assert!(finished.finished_at.is_some());
    if !restarted {
        eprintln!("note: pg_ctlcluster could not restart the server; the restart was not exercised");
    }
}

#[test]
fn a_worker_with_another_plugin_build_is_refused_naming_both_hashes() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("pin") else { return };
    let run = arbiter(&[
        "tournament",
        "--db",
        &pg,
        "--player",
        "a=random",
        "--player",
        "b=random",
        "--variant",
        "chess",
        "--local-workers",
        "0",
    ]);
    assert!(run.ok, "{}", run.stderr);
    // The same plugin, one byte longer: another build as far as a hash can tell.
    let dir = temp_dir("cluster-pin");
    let original = arbiter_e2e::profile_dir().join("libarbiter_chess.so");
    let mut bytes = std::fs::read(&original).unwrap();
    bytes.push(0);
    std::fs::write(dir.join("libarbiter_chess.so"), bytes).unwrap();
    let out = Command::new(arbiter_bin())
        .args(["--plugin-dir", dir.to_str().unwrap(), "worker", "--db", &pg, "--tournament", "1"])
        .env_remove("ARBITER_PLUGIN_PATH")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("is not the build the tournament was registered with"), "{text}");
    assert!(text.contains(dir.join("libarbiter_chess.so").to_str().unwrap()), "{text}");
    assert_eq!(Store::open(Path::new(&pg)).unwrap().games(None).unwrap().len(), 0, "no game played");
}

#[test]
fn a_store_moves_between_sqlite_and_postgres_whole_and_serves_the_same_results() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("copy") else { return };
    let dir = temp_dir("cluster-copy");
    let lite = dir.join("a.db").to_string_lossy().into_owned();
    tournament(&lite, &["--format", "round-robin"], &[]);
    let copy = arbiter(&["store", "copy", &lite, &pg]);
    assert!(copy.ok && copy.stdout.contains("1 tournaments and 12 games copied"), "{}{}", copy.stdout, copy.stderr);
    assert!(!copy.stdout.contains(":postgres@"), "no password in messages: {}", copy.stdout);
    assert_eq!(standings(&pg), standings(&lite));
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    assert!(arbiter(&["results", "--db", &lite, "--jsonl", a.to_str().unwrap()]).ok);
    assert!(arbiter(&["results", "--db", &pg, "--jsonl", b.to_str().unwrap()]).ok);
    assert_eq!(std::fs::read_to_string(a).unwrap(), std::fs::read_to_string(b).unwrap());
    // And back, into an empty SQLite store; a store that holds games is refused.
    let back = dir.join("back.db").to_string_lossy().into_owned();
    assert!(arbiter(&["store", "copy", &pg, &back]).ok);
    assert_eq!(standings(&back), standings(&lite));
    let again = arbiter(&["store", "copy", &lite, &pg]);
    assert!(!again.ok && again.stderr.contains("copy into an empty store"), "{}", again.stderr);
}

#[test]
fn an_engine_named_by_a_path_is_pinned_and_another_binary_is_refused() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("engine_pin") else { return };
    let dir = temp_dir("cluster-engine-pin");
    let engine = dir.join("engine.py");
    std::fs::copy(arbiter_e2e::workspace().join("scripts/example-engine.py"), &engine).unwrap();
    let spec = format!("e=engine:{}", engine.display());
    let run = arbiter(&[
        "tournament",
        "--db",
        &pg,
        "--player",
        &spec,
        "--player",
        "r=random",
        "--variant",
        "chess",
        "--max-plies",
        "20",
        "--local-workers",
        "0",
    ]);
    assert!(run.ok, "{}", run.stderr);
    // Another binary at the same path: refused, naming both hashes.
    let mut text = std::fs::read_to_string(&engine).unwrap();
    text.push_str("\n# another build\n");
    std::fs::write(&engine, text).unwrap();
    let out = Command::new(arbiter_bin())
        .args(["worker", "--db", &pg, "--tournament", "1"])
        .env_remove("ARBITER_PLUGIN_PATH")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("player e: this machine's engine")
            && err.contains("is not the binary the tournament was registered with"),
        "{err}"
    );
}

#[test]
fn an_sprt_across_three_workers_decides_once_closes_its_queue_and_plays_one_machine_s_pairings() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("sprt") else { return };
    let sprt = |db: &str, extra: &[&str]| {
        let mut args = vec![
            "sprt",
            "checkers",
            "--p1",
            "mcts:iterations=60",
            "--p2",
            "random:seed=3",
            "--elo0",
            "0",
            "--elo1",
            "150",
            "--max-plies",
            "150",
            "--max-games",
            "400",
            "--seed",
            "5",
            "--db",
            db,
        ];
        args.extend(extra);
        let run = arbiter(&args);
        assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
        run.stdout
    };
    let queued = sprt(&pg, &["--local-workers", "0"]);
    assert!(queued.contains("400 games queued"), "{queued}");
    let workers: Vec<Child> = (0..3).map(|_| worker(&pg, 1, &["--concurrency", "1", "--batch", "2"])).collect();
    // The workers end by themselves: the decision finishes the tournament.
    for w in workers {
        finish(w);
    }
    let store = Store::open(Path::new(&pg)).unwrap();
    assert!(store.tournament(Some(1)).unwrap().unwrap().finished_at.is_some());
    assert_eq!(store.queue_counts(1).unwrap(), (0, 0), "no game of a decided test is left to claim");
    let shown = arbiter(&["results", "--db", &pg]).stdout;
    let line = shown.lines().find(|l| l.starts_with("SPRT pairs")).unwrap_or_else(|| panic!("{shown}"));
    assert!(line.contains("H1 accepted after "), "{line}");
    let counted: usize = line.split("accepted after ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    let played = stored_games(Path::new(&pg));
    // Besides the counted games, those in flight (batches of at most 2): the
    // deciding batch's games after the decision and the deciding worker's
    // next batch, and each other worker's batch being stored and the next.
    assert!(played.len() >= counted && played.len() <= counted + 11, "{} stored, {counted} counted", played.len());
    assert!(played.len() < 400);
    // One machine plays the same games, index for index (pairing, colours, moves).
    let lite = temp_dir("cluster-sprt").join("one.db").to_string_lossy().into_owned();
    sprt(&lite, &[]);
    let alone: std::collections::HashMap<u32, _> =
        stored_games(Path::new(&lite)).into_iter().map(|g| (g.0, g)).collect();
    let common: Vec<_> = played.iter().filter(|g| alone.contains_key(&g.0)).collect();
    assert!(common.len() >= counted.min(alone.len()) - 2, "{} in common", common.len());
    for g in common {
        assert_eq!(g, &alone[&g.0], "game {}", g.0);
    }
}

/// A URL without a password takes it from `--db-password-file` (or
/// `ARBITER_DB_PASSWORD_FILE`), else `PGPASSWORD`: nothing secret on a
/// command line. A wrong one is refused in one line that shows no password.
#[test]
fn a_store_s_password_comes_from_a_file_or_pgpassword_not_the_command_line() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("password") else { return };
    let (Some(scheme), Some(at)) = (pg.find("://"), pg.rfind('@')) else { panic!("{pg}") };
    let (user, password) = pg[scheme + 3..at].split_once(':').expect("the test server's URL has a password");
    let bare = format!("postgres://{user}@{}", &pg[at + 1..]);
    let dir = temp_dir("cluster-password");
    let file = dir.join("password");
    std::fs::write(&file, format!("{password}\n")).unwrap();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut cmd = Command::new(arbiter_bin());
        cmd.env_remove("PGPASSWORD").env_remove("ARBITER_DB_PASSWORD_FILE").env_remove("ARBITER_PLUGIN_PATH");
        cmd.envs(env.iter().copied()).args(args);
        cmd.output().unwrap()
    };
    let with_file = run(&[], &["--db-password-file", file.to_str().unwrap(), "tokens", "--db", &bare, "list"]);
    assert!(with_file.status.success(), "{}", String::from_utf8_lossy(&with_file.stderr));
    let from_env = run(&[("PGPASSWORD", password)], &["tokens", "--db", &bare, "list"]);
    assert!(from_env.status.success(), "{}", String::from_utf8_lossy(&from_env.stderr));
    let wrong = run(&[("PGPASSWORD", "not-the-password")], &["tokens", "--db", &bare, "list"]);
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(!wrong.status.success() && !said.contains("not-the-password"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
}

/// An ini variant's definition is pinned with its plugin: a worker whose
/// `.ini` files define the tournament's variant otherwise refuses its
/// games, naming both definitions' hashes; one with the same definition
/// plays them.
#[test]
fn a_worker_whose_ini_defines_the_variant_otherwise_is_refused() {
    let _one = SERVER.lock().unwrap_or_else(|e| e.into_inner());
    let Some(pg) = fresh_database("ini_pin") else { return };
    let dir = temp_dir("cluster-ini-pin");
    let (ours, theirs) = (dir.join("ours.ini"), dir.join("theirs.ini"));
    std::fs::write(&ours, "[pinned:chess]\nmaxFile = h\n").unwrap();
    std::fs::write(&theirs, "[pinned:chess]\nmaxFile = h\ncastling = false\n").unwrap();
    let with = |ini: &Path, args: &[&str]| {
        Command::new(arbiter_bin())
            .env_remove("ARBITER_PLUGIN_PATH")
            .env("ARBITER_VARIANTS_INI", ini)
            .args(args)
            .output()
            .unwrap()
    };
    let players = ["--player", "a=random", "--player", "b=random:seed=2", "--variant", "pinned", "--max-plies", "8"];
    let queued = with(&ours, &[&["tournament", "--db", &pg, "--local-workers", "0"][..], &players[..]].concat());
    assert!(queued.status.success(), "{}", String::from_utf8_lossy(&queued.stderr));
    let refused = with(&theirs, &["worker", "--db", &pg, "--tournament", "1"]);
    let text = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{text}");
    assert!(
        text.contains("is not the build the tournament was registered with") && text.contains("definition sha256"),
        "{text}"
    );
    assert_eq!(Store::open(Path::new(&pg)).unwrap().games(None).unwrap().len(), 0, "no game played");
    let played = with(&ours, &["worker", "--db", &pg, "--tournament", "1"]);
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    assert_eq!(Store::open(Path::new(&pg)).unwrap().games(None).unwrap().len(), 2);
}
