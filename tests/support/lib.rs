//! Helpers for the end-to-end tests: where the built binary and plugins are,
//! running `arbiter`, and building the fixture plugin into its own target dir.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace").to_path_buf()
}

/// The profile directory of the running test (`target/debug`), where cargo
/// put the `arbiter` binary and the plugin `.so` files.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().and_then(Path::parent).expect("target/<profile>/deps/<test>").to_path_buf()
}

/// The `arbiter` binary built by `cargo build`.
pub fn arbiter_bin() -> PathBuf {
    let bin = profile_dir().join("arbiter");
    assert!(bin.exists(), "{} is missing: run `cargo build` before `cargo test` (see README)", bin.display());
    bin
}

/// The result of one `arbiter` run.
pub struct Run {
    /// Exit status was success.
    pub ok: bool,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            ok: o.status.success(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// The one-line game results (`Game 1 (a vs b): 1-0 {...}`) in `match`'s output.
pub fn game_lines(stdout: &str) -> Vec<String> {
    stdout.lines().filter(|l| l.starts_with("Game ")).map(String::from).collect()
}

/// Runs `arbiter` with `args`, plugins from the build directory only.
pub fn arbiter(args: &[&str]) -> Run {
    let mut cmd = Command::new(arbiter_bin());
    cmd.env_remove("ARBITER_PLUGIN_PATH").env_remove("RUST_LOG").args(args);
    cmd.output().expect("run arbiter").into()
}

/// Runs `arbiter` as [`arbiter()`] does; also returns its peak resident
/// memory in KiB: the largest `VmHWM` of its own address space, read from
/// `/proc` every few milliseconds while it runs. (`wait4`'s `ru_maxrss`
/// would do, but the kernel folds into it the peak of the address space
/// the child was spawned from, this whole test process's, at its `exec`.)
pub fn arbiter_peak_rss(args: &[&str]) -> (Run, u64) {
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut child = Command::new(arbiter_bin())
        .env_remove("ARBITER_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run arbiter");
    let done = Arc::new(AtomicBool::new(false));
    let status_file = format!("/proc/{}/status", child.id());
    let watching = Arc::clone(&done);
    let peak = std::thread::spawn(move || {
        let mut peak = 0;
        while !watching.load(Ordering::Relaxed) {
            let hwm = std::fs::read_to_string(&status_file).ok().and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            });
            peak = peak.max(hwm.unwrap_or(0));
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        peak
    });
    let mut err = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let mut stdout = String::new();
    let _ = child.stdout.take().unwrap().read_to_string(&mut stdout);
    let status = child.wait().expect("wait for arbiter");
    done.store(true, Ordering::Relaxed);
    (Run { ok: status.success(), stdout, stderr: errors.join().unwrap() }, peak.join().unwrap())
}

static CARGO: Mutex<()> = Mutex::new(());

/// Builds the fixture plugin (the fixture crate's `cdylib` example, in the
/// workspace's target folder and with its features resolved as `cargo
/// build` resolves them, so that it reuses every dependency compiled there;
/// cargo skips the work when nothing changed), claiming arbiter-api version
/// `claimed` if given (0.2.0 or 0.0.9), and returns the path of a copy of
/// its `.so` in `target/fixtures/NAME`.
pub fn fixture_plugin(name: &str, claimed: Option<&str>) -> PathBuf {
    build_fixture(name, claimed, false)
}

/// The fixture plugin built with arbiter-api's `layout-break-test` feature
/// (a boundary type of another size), claiming arbiter-api version
/// `claimed` if given.
pub fn fixture_plugin_with_another_layout(name: &str, claimed: Option<&str>) -> PathBuf {
    build_fixture(name, claimed, true)
}

/// `cargo build` in the workspace's own target folder, `args` added; one at
/// a time.
fn cargo_build(args: &[&str]) {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(workspace()).args(["build", "--quiet", "--target-dir"]).arg(workspace().join("target")).args(args);
    // Only the tests build for WebAssembly, never incrementally again.
    let wasm = args.iter().find(|a| a.starts_with("wasm32-"));
    if wasm.is_some() {
        cmd.env("CARGO_INCREMENTAL", "0");
    }
    let status = cmd.status().expect("run cargo");
    let target = wasm.map(|t| format!(" (is the target installed? `rustup target add {t}`)")).unwrap_or_default();
    assert!(status.success(), "cargo build {} failed{target}", args.join(" "));
}

/// Copies `built` to `dir/file_name`: copy then rename, for a process may
/// have the previous copy loaded, and rewriting a mapped library in place
/// would crash it.
fn place(built: &Path, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create fixture dir");
    let copy = dir.join(built.file_name().expect("a file"));
    let partial = dir.join(format!("partial-{}", std::process::id()));
    std::fs::copy(built, &partial).unwrap_or_else(|e| panic!("copy {}: {e}", built.display()));
    std::fs::rename(&partial, &copy).expect("move fixture plugin into place");
    copy
}

fn build_fixture(name: &str, claimed: Option<&str>, layout_break: bool) -> PathBuf {
    let _guard = CARGO.lock().unwrap_or_else(|e| e.into_inner());
    // Without features, no `-p`: the default members' feature resolution, as
    // `cargo build`'s, so the build reuses its arbiter-api. With features
    // (which no other build shares), the fixture's own resolution: an
    // arbiter-api without the host's features (the wasm runtime, the
    // contract) is quicker to build again.
    let mut features: Vec<&str> = Vec::new();
    match claimed {
        None => {}
        Some("0.2.0") => features.push("arbiter-api/claim-next-version-test"),
        Some("0.0.9") => features.push("arbiter-api/claim-older-version-test"),
        Some(other) => panic!("the fixture can claim arbiter-api 0.2.0 or 0.0.9, not {other}"),
    }
    if layout_break {
        features.push("arbiter-api/layout-break-test");
    }
    let features = features.join(",");
    let mut args = vec!["--example", "arbiter_fixture"];
    if !features.is_empty() {
        args.extend(["-p", "fixture-plugin", "--features", &features]);
        // Builds of their own, whose plugins only answer a few calls:
        // unoptimised, they compile in 6 s of CPU instead of 15.
        args.extend(["--config", "profile.dev.package.arbiter-api.opt-level=0"]);
        args.extend(["--config", "profile.dev.package.fixture-plugin.opt-level=0"]);
    }
    cargo_build(&args);
    let suffix = std::env::consts::DLL_SUFFIX;
    let built = workspace().join("target").join("debug").join("examples").join(format!("libarbiter_fixture{suffix}"));
    place(&built, &workspace().join("target").join("fixtures").join(name))
}

/// The shipped plugins and the fixture, built for `wasm32-unknown-unknown`
/// in the workspace's target folder (cargo skips the work when nothing
/// changed); the folder `target/fixtures/wasm` holding copies of the
/// `.wasm` files.
pub fn wasm_plugins() -> PathBuf {
    let _guard = CARGO.lock().unwrap_or_else(|e| e.into_inner());
    let wasm = ["--target", "wasm32-unknown-unknown"];
    let mut args = wasm.to_vec();
    for package in ["chess-plugin", "draughts-plugin", "bluffchess-plugin", "junqi-plugin", "tavreli-plugin"] {
        args.extend(["-p", package]);
    }
    cargo_build(&args);
    cargo_build(&[&wasm[..], &["-p", "fixture-plugin", "--example", "arbiter_fixture"]].concat());
    let built = workspace().join("target").join("wasm32-unknown-unknown").join("debug");
    let dir = workspace().join("target").join("fixtures").join("wasm");
    for plugin in ["chess", "draughts", "bluffchess", "junqi", "tavreli"] {
        place(&built.join(format!("arbiter_{plugin}.wasm")), &dir);
    }
    place(&built.join("examples").join("arbiter_fixture.wasm"), &dir);
    dir
}

/// The tests' small UCI engine (tests/fixtures/minimax-engine) built for
/// `wasm32-wasip1`, a sandboxed engine: the path of a copy of its module in
/// `target/fixtures/sandboxed`.
pub fn minimax_wasm() -> PathBuf {
    let _guard = CARGO.lock().unwrap_or_else(|e| e.into_inner());
    cargo_build(&["--target", "wasm32-wasip1", "-p", "minimax-engine"]);
    let built = workspace().join("target").join("wasm32-wasip1").join("debug").join("minimax.wasm");
    place(&built, &workspace().join("target").join("fixtures").join("sandboxed"))
}

/// Stockfish's path: Debian installs it in /usr/games.
pub fn stockfish() -> &'static str {
    ["/usr/games/stockfish", "/usr/bin/stockfish"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("stockfish is not installed: apt-get install stockfish (CI does this in .ci/run)")
}

/// Fairy-Stockfish's binary (Debian's `fairy-stockfish`).
pub fn fairy_stockfish() -> &'static str {
    ["/usr/games/fairy-stockfish", "/usr/bin/fairy-stockfish"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("fairy-stockfish is not installed: apt-get install fairy-stockfish (CI does this in .ci/run)")
}

/// A fresh, empty temporary directory for one test, removed when the test
/// process exits. The first call also removes what earlier runs that were
/// killed left (a run makes about a gigabyte: copies of the binary and its
/// plugins, stores, engine logs), so that repeated runs do not fill the disk.
pub fn temp_dir(name: &str) -> PathBuf {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| {
        remove_test_dirs(run_ended);
        // SAFETY: registers a plain function, once.
        unsafe { libc::atexit(remove_own_dirs) };
    });
    let dir = std::env::temp_dir().join(format!("arbiter-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Whether the test process `pid` has ended, as far as this system tells
/// (Linux: no `/proc/PID`; elsewhere it is never known to have).
fn run_ended(pid: u32) -> bool {
    pid != std::process::id() && Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Removes this process's directories (as the test process exits).
extern "C" fn remove_own_dirs() {
    remove_test_dirs(|pid| pid == std::process::id());
}

/// Removes the `arbiter-test-PID-*` directories whose PID `dead` picks: on
/// Linux, those of runs no longer running (no `/proc/PID`), and a run's own
/// as it exits; elsewhere nothing is removed.
fn remove_test_dirs(dead: impl Fn(u32) -> bool) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("arbiter-test-").and_then(|rest| rest.split('-').next()) else { continue };
        if pid.parse::<u32>().is_ok_and(&dead) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The PostgreSQL server the tests use: `ARBITER_TEST_POSTGRES`, by default
/// the local one `.ci/run` starts.
fn admin_url() -> String {
    std::env::var("ARBITER_TEST_POSTGRES").unwrap_or_else(|_| "postgres://postgres:postgres@localhost/postgres".into())
}

/// Drops, once a process, the test databases (`arbiter_e2e_NAME_PID`) of
/// runs that have ended ([`run_ended`]), so that the server
/// holds at most the last run's and the running ones'.
fn drop_dead_runs_databases(client: &mut postgres::Client) {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| {
        let Ok(rows) = client.query(r"SELECT datname FROM pg_database WHERE datname LIKE 'arbiter\_e2e\_%'", &[])
        else {
            return;
        };
        for row in rows {
            let db: String = row.get(0);
            let pid = db.rsplit('_').next().and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(run_ended) {
                let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"));
            }
        }
    });
}

/// A fresh, empty database named after `name` on the test server, as a
/// URL; `None` (saying so) without a server, unless `ARBITER_REQUIRE_POSTGRES`
/// is set, which makes a missing server a failure.
pub fn postgres_database(name: &str) -> Option<String> {
    let admin = admin_url();
    let mut client = match postgres::Client::connect(&admin, postgres::NoTls) {
        Ok(c) => c,
        Err(e) => {
            assert!(std::env::var_os("ARBITER_REQUIRE_POSTGRES").is_none(), "no PostgreSQL at {admin}: {e}");
            eprintln!("skipped: no PostgreSQL at {admin} ({e}); set ARBITER_TEST_POSTGRES");
            return None;
        }
    };
    drop_dead_runs_databases(&mut client);
    let db = format!("arbiter_e2e_{name}_{}", std::process::id());
    client.batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")).unwrap();
    client.batch_execute(&format!("CREATE DATABASE {db}")).unwrap();
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
    Some(format!("{base}/{db}"))
}

/// Each stored tournament game of the store at `db` (a file or a URL), by
/// index: seats, the players' names with the result (`a v b: 1-0`), and
/// move ids (timings differ run to run).
pub fn stored_games(db: &Path) -> Vec<(u32, Vec<usize>, String, Vec<u64>)> {
    let mut rows: Vec<_> = arbiter::store::Store::open(db)
        .unwrap()
        .games(None)
        .unwrap()
        .into_iter()
        .map(|g| {
            let slot = g.slot.unwrap();
            let moves = g.record.plies.iter().map(|p| p.mv).collect();
            (slot.index, slot.seats, format!("{}: {}", g.record.players.join(" v "), g.summary.result), moves)
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    rows
}

/// The start positions of the games of a JSON-lines record file, in order.
pub fn start_positions(jsonl: &Path) -> Vec<String> {
    std::fs::read_to_string(jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["start_position"].as_str().unwrap().to_string())
        .collect()
}

/// Fairymax (Debian's source, unchanged) built for WASI and natively by
/// scripts/build-fairymax into `target/engines/fairymax` (once): the
/// folder holding `fairymax.wasm`, `fairymax` and its `data` folder. CI
/// installs what the script needs (.ci/run).
pub fn fairymax() -> PathBuf {
    let _guard = CARGO.lock().unwrap_or_else(|e| e.into_inner());
    let out = workspace().join("target").join("engines").join("fairymax");
    let status = Command::new(workspace().join("scripts").join("build-fairymax"))
        .arg(&out)
        .status()
        .expect("run scripts/build-fairymax");
    assert!(
        status.success(),
        "scripts/build-fairymax failed: it needs clang, lld, wasi-libc and libclang-rt-14-dev-wasm32"
    );
    out
}
