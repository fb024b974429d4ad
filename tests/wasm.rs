//! WebAssembly plugins: the shipped plugins and the fixture built for
//! `wasm32-unknown-unknown` from their unchanged sources, loaded from their
//! `.wasm` files, checked, counted against the native builds, and faulting
//! inside their sandbox without taking the host down.

use std::process::Command;

use arbiter_e2e::{arbiter, arbiter_bin, game_lines, profile_dir, temp_dir, wasm_plugins, Run};

/// `arbiter ARGS` with `env` set, plugins from the build directory only.
fn arbiter_with(env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut cmd = Command::new(arbiter_bin());
    cmd.env_remove("ARBITER_PLUGIN_PATH").env_remove("RUST_LOG").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run arbiter").into()
}

#[test]
fn the_five_shipped_plugins_built_as_wasm_pass_check() {
    let dir = wasm_plugins();
    for plugin in ["chess", "draughts", "bluffchess", "junqi", "tavreli"] {
        let file = dir.join(format!("arbiter_{plugin}.wasm"));
        let run = arbiter(&["check", file.to_str().unwrap(), "--games", "3"]);
        assert!(run.ok, "{plugin}:\n{}{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("PASS  loads as an arbiter plugin"), "{}", run.stdout);
        assert!(run.stdout.contains(", 0 failed"), "{plugin}: {}", run.stdout);
    }
}

#[test]
fn wasm_perft_counts_equal_the_native_ones_and_the_published_tables() {
    let dir = wasm_plugins();
    for (plugin, variant, depth, expected) in
        [("chess", "chess", "4", "197281"), ("draughts", "international", "6", "167140")]
    {
        let file = dir.join(format!("arbiter_{plugin}.wasm"));
        for generic in [false, true] {
            let mut args = vec!["--plugin-dir", file.to_str().unwrap(), "perft", variant, "--depth", depth];
            if generic {
                args.push("--generic");
            }
            let run = arbiter(&args);
            assert!(run.ok, "{}", run.stderr);
            assert!(run.stdout.contains(&format!("Nodes searched: {expected}")), "{variant}: {}", run.stdout);
        }
    }
}

#[test]
fn the_native_build_is_preferred_and_a_plugin_dir_can_pick_the_wasm_one() {
    let wasm = wasm_plugins();
    let both = temp_dir("wasm-and-native");
    let native = profile_dir().join(format!("libarbiter_tavreli{}", std::env::consts::DLL_SUFFIX));
    std::fs::copy(&native, both.join(native.file_name().unwrap())).unwrap();
    std::fs::copy(wasm.join("arbiter_tavreli.wasm"), both.join("arbiter_tavreli.wasm")).unwrap();
    let run = arbiter(&["--plugin-dir", both.to_str().unwrap(), "list"]);
    assert!(run.ok, "{}", run.stderr);
    let row = run.stdout.lines().find(|l| l.starts_with("tavreli ")).unwrap_or_default().to_string();
    assert!(row.contains("libarbiter_tavreli"), "native first in one folder: {row}");
    assert!(!run.stderr.contains("arbiter_tavreli.wasm"), "one plugin built two ways is no conflict: {}", run.stderr);
    let file = wasm.join("arbiter_tavreli.wasm");
    let run = arbiter(&["--plugin-dir", file.to_str().unwrap(), "list"]);
    let row = run.stdout.lines().find(|l| l.starts_with("tavreli ")).unwrap_or_default().to_string();
    assert!(row.contains("arbiter_tavreli.wasm"), "the named file first: {row}");
}

#[test]
fn a_wasm_plugin_plays_a_stored_tournament_in_process() {
    let wasm = wasm_plugins();
    let dir = temp_dir("wasm-tournament");
    let db = dir.join("t.db");
    let run = arbiter(&[
        "--plugin-dir",
        wasm.to_str().unwrap(),
        "tournament",
        "--player",
        "m=mcts:iterations=30",
        "--player",
        "r=random",
        "--variant",
        "junqi",
        "--variant",
        "chess",
        "--max-plies",
        "60",
        "--in-process",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}\n{}", run.stderr, run.stdout);
    let results = arbiter(&["results", "--db", db.to_str().unwrap()]);
    assert!(results.stdout.contains("4 games, finished"), "{}", results.stdout);
}

#[test]
fn a_loop_a_memory_bomb_a_panic_and_an_abort_each_void_their_game_and_spare_the_host() {
    let wasm = wasm_plugins();
    let fixture = wasm.join("arbiter_fixture.wasm");
    let env = [("ARBITER_WASM_CALL_MS", "300"), ("ARBITER_WASM_MEMORY_MB", "64")];
    for (variant, blame) in [
        ("fixture-spin", "ran past its time limit of 300 ms in legal_moves}"),
        ("fixture-memory-bomb", "ran out of its memory limit of 64 MiB in legal_moves}"),
        ("fixture-panic", "panicked in legal_moves: fixture: deliberate panic at ply 3 (at "),
        ("fixture-abort", "trapped in legal_moves (wasm trap: wasm `unreachable` instruction executed)}"),
    ] {
        let run = arbiter_with(
            &env,
            &[
                "--plugin-dir",
                fixture.to_str().unwrap(),
                "match",
                variant,
                "--p1",
                "random",
                "--p2",
                "random",
                "--no-db",
            ],
        );
        assert!(run.ok, "{variant}: {}", run.stderr);
        let games = game_lines(&run.stdout);
        assert_eq!(games.len(), 2, "{variant}: both games are played and reported: {}", run.stdout);
        for g in &games {
            assert!(g.contains(": * {plugin crashed: plugin fixture-plugin "), "{variant}: {g}");
            assert!(!g.contains('\n'), "one line: {g}");
            assert!(g.contains(blame), "{variant}: {g}");
        }
        assert!(run.stdout.contains(": 0 - 0 - 0"), "a voided game is no one's result: {}", run.stdout);
    }
    // The good variant of the same module plays to its end.
    let run = arbiter(&[
        "--plugin-dir",
        fixture.to_str().unwrap(),
        "match",
        "fixture-race",
        "--p1",
        "random",
        "--p2",
        "random",
        "--no-db",
    ]);
    assert!(game_lines(&run.stdout).iter().all(|g| g.contains("{reached ten}")), "{}", run.stdout);
}

#[test]
fn a_file_that_is_no_plugin_module_is_refused_in_one_line() {
    let dir = temp_dir("wasm-refused");
    let garbage = dir.join("garbage.wasm");
    std::fs::write(&garbage, b"not a module").unwrap();
    let truncated = dir.join("truncated.wasm");
    let module = std::fs::read(wasm_plugins().join("arbiter_tavreli.wasm")).unwrap();
    std::fs::write(&truncated, &module[..module.len() / 2]).unwrap();
    // A module that imports what arbiter does not give: a plain C-ABI
    // import, in the smallest module that has one.
    let importing = dir.join("importing.wasm");
    std::fs::write(&importing, importing_module()).unwrap();
    for (file, expected) in [
        (&garbage, "not a WebAssembly module (it has no WebAssembly header)"),
        (&truncated, "not a valid WebAssembly module ("),
        (&importing, "imports env.clock, which arbiter does not provide"),
    ] {
        let run = arbiter(&["check", file.to_str().unwrap()]);
        assert!(!run.ok);
        let line = run.stdout.lines().find(|l| l.contains("FAIL")).unwrap_or_default();
        assert!(line.contains(expected), "{}: {line}", file.display());
        let run = arbiter(&["--plugin-dir", file.to_str().unwrap(), "list"]);
        assert!(run.ok, "a bad plugin is a warning: {}", run.stderr);
        let warning: Vec<&str> = run.stderr.lines().filter(|l| l.contains(file.to_str().unwrap())).collect();
        assert_eq!(warning.len(), 1, "{}", run.stderr);
    }
}

/// A WebAssembly module that imports the function `env.clock` and exports nothing.
fn importing_module() -> Vec<u8> {
    let mut m = b"\0asm\x01\0\0\0".to_vec();
    // Type section: one type, () -> ().
    m.extend_from_slice(&[0x01, 0x04, 0x01, 0x60, 0x00, 0x00]);
    // Import section: "env" "clock", a function of type 0.
    let mut import = vec![0x01, 0x03];
    import.extend_from_slice(b"env");
    import.push(0x05);
    import.extend_from_slice(b"clock");
    import.extend_from_slice(&[0x00, 0x00]);
    m.push(0x02);
    m.push(import.len() as u8);
    m.extend_from_slice(&import);
    m
}

#[test]
fn a_queue_worker_without_the_plugin_fetches_the_pinned_wasm_from_the_store_and_checks_its_hash() {
    let wasm = wasm_plugins();
    let dir = temp_dir("wasm-fetch");
    // The coordinator's machine: the tournament pinned to a .wasm build.
    let coordinator = dir.join("coordinator");
    std::fs::create_dir_all(&coordinator).unwrap();
    std::fs::copy(wasm.join("arbiter_tavreli.wasm"), coordinator.join("arbiter_tavreli.wasm")).unwrap();
    let db = dir.join("t.db");
    let (db_text, coordinator_text) = (db.to_str().unwrap(), coordinator.to_str().unwrap());
    let run = arbiter(&[
        "--plugin-dir",
        coordinator_text,
        "tournament",
        "--db",
        db_text,
        "--player",
        "a=random:seed=3",
        "--player",
        "b=random:seed=4",
        "--variant",
        "tavreli",
        "--max-plies",
        "40",
        "--local-workers",
        "0",
    ]);
    assert!(run.ok, "{}", run.stderr);
    // A worker whose own tavreli is the native build: it fetches the pinned
    // file, and plays with it.
    let cache = dir.join("worker-cache");
    let cache_text = cache.to_str().unwrap();
    let worker = arbiter_with(&[("ARBITER_WASM_CACHE", cache_text)], &["worker", "--db", db_text, "--tournament", "1"]);
    assert!(worker.ok, "{}\n{}", worker.stdout, worker.stderr);
    assert!(
        worker.stdout.contains("fetched from the store: ") && worker.stdout.contains("arbiter_tavreli.wasm"),
        "{}",
        worker.stdout
    );
    let results = arbiter(&["results", "--db", db_text]);
    assert!(results.stdout.contains("2 games, finished"), "{}", results.stdout);
    // A store whose copy was altered is refused before any game.
    let run = arbiter(&[
        "--plugin-dir",
        coordinator_text,
        "tournament",
        "--db",
        db_text,
        "--player",
        "a=random",
        "--player",
        "b=random",
        "--variant",
        "tavreli",
        "--local-workers",
        "0",
    ]);
    assert!(run.ok, "{}", run.stderr);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE plugin_files SET bytes = x'0061736d'", []).unwrap();
    drop(conn);
    let fresh = dir.join("other-cache");
    let t0 = std::time::Instant::now();
    let worker = arbiter_with(
        &[("ARBITER_WASM_CACHE", fresh.to_str().unwrap())],
        &["worker", "--db", db_text, "--tournament", "2"],
    );
    assert!(!worker.ok);
    assert!(worker.stderr.contains("the store's copy of arbiter_tavreli.wasm has sha256 "), "{}", worker.stderr);
    assert!(worker.stderr.contains(", not the pinned "), "{}", worker.stderr);
    // At once: only a failing store is waited for, not a refusal.
    assert!(t0.elapsed() < std::time::Duration::from_secs(30), "refused after {:?}", t0.elapsed());
}

/// A call that never returns is named by `arbiter check` in the same words
/// natively (a watchdog beside the checks) as in the sandbox (its time
/// limit): the plugin, the limit, the call and the position.
#[test]
fn check_names_a_hung_call_alike_natively_and_in_the_sandbox() {
    let native = arbiter_e2e::fixture_plugin("fixture", None);
    let wasm = wasm_plugins().join("arbiter_fixture.wasm");
    let env = [("ARBITER_WASM_CALL_MS", "500")];
    // One variant's checks, as the child process of a whole check runs them
    // (the whole fixture's: `each_broken_fixture_fails_the_check_for_its_fault`).
    for (plugin, variant) in [(&native, "fixture-spin"), (&wasm, "fixture-spin"), (&native, "fixture-hang")] {
        let args = ["check", plugin.to_str().unwrap(), "--only", variant, "--games", "3", "--timeout", "60"];
        let run = arbiter_with(&env, &args);
        let expected = "FAIL  no call aborts or hangs: plugin fixture-plugin ran past its time limit of 500 ms in \
                        legal_moves, in '";
        assert!(run.stdout.contains(expected), "{} {variant}:\n{}", plugin.display(), run.stdout);
    }
}
