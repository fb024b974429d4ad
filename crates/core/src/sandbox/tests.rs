//! The sandbox with small engines written as WebAssembly text: lines both
//! ways, virtual time, and each kind of bad module and fault.

use super::{SandboxSettings, Sandboxed};
use crate::process::ProcessError;

fn settings() -> SandboxSettings {
    SandboxSettings { ips: 1_000_000_000, memory_mb: 16, seed: 7, answer_ms: 1_000, max_line: 1 << 16, files: vec![] }
}

/// `wat` compiled into a file of a scratch folder.
fn module(name: &str, wat: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("arbiter-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, wat::parse_str(wat).unwrap()).unwrap();
    path
}

fn start(name: &str, wat: &str) -> Result<Sandboxed, ProcessError> {
    Sandboxed::start(&module(name, wat), &[], name, settings())
}

/// The preview 1 imports the engines below use.
const IMPORTS: &str = r#"
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $time (param i32 i64 i32) (result i32)))
"#;

/// Echoes each read back; before each, spins `$spin` times (a fixed amount
/// of work), so that every answer costs the same virtual time.
fn echo(spin: u32) -> String {
    format!(
        r#"(module {IMPORTS} (memory (export "memory") 1)
  (func (export "_start") (local $n i32) (local $i i32)
    (loop $lines
      ;; iovec at 0: buffer 64, 1000 bytes
      (i32.store (i32.const 0) (i32.const 64))
      (i32.store (i32.const 4) (i32.const 1000))
      (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $n (i32.load (i32.const 8)))
      (if (i32.eqz (local.get $n)) (then (return)))
      (local.set $i (i32.const {spin}))
      (loop $spin (local.set $i (i32.sub (local.get $i) (i32.const 1))) (br_if $spin (local.get $i)))
      (i32.store (i32.const 4) (local.get $n))
      (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (br $lines)))
)"#
    )
}

#[test]
fn lines_go_both_ways_and_a_move_costs_the_same_virtual_time_every_time() {
    let mut used = Vec::new();
    for _ in 0..3 {
        let mut engine = start("echo", &echo(100_000)).unwrap();
        engine.send("hello").unwrap();
        assert_eq!(engine.recv().unwrap(), "hello");
        engine.begin_move(1_000);
        engine.send("go").unwrap();
        assert_eq!(engine.recv().unwrap(), "go");
        used.push(engine.finish_move().unwrap());
    }
    assert!(used[0] > 100, "100,000 turns of a loop take time: {used:?}");
    assert!(used.iter().all(|&u| u == used[0]), "the same work, the same time: {used:?}");
}

#[test]
fn a_move_past_its_budget_is_out_of_time_exactly_when_the_fuel_runs_out() {
    let mut engine = start("slow", &echo(50_000_000)).unwrap();
    engine.begin_move(5);
    engine.send("go").unwrap();
    assert!(matches!(engine.recv(), Err(ProcessError::Timeout)));
    // Given the time, the same work answers.
    let mut engine = start("slow", &echo(50_000_000)).unwrap();
    engine.begin_move(60_000);
    engine.send("go").unwrap();
    assert_eq!(engine.recv().unwrap(), "go");
}

#[test]
fn an_engine_waiting_for_input_while_its_answer_is_awaited_has_run_out_of_time() {
    let mut engine = start("echo", &echo(1)).unwrap();
    assert!(matches!(engine.recv(), Err(ProcessError::Timeout)));
    engine.send("still there").unwrap();
    assert_eq!(engine.recv().unwrap(), "still there", "it is still alive to answer what it is sent");
}

#[test]
fn a_sleep_spends_virtual_time_and_the_clock_reads_it() {
    // Sleeps 250 ms (a relative clock subscription), then writes the
    // monotonic clock's reading in ms as a decimal line.
    let wat = format!(
        r#"(module {IMPORTS} (memory (export "memory") 1)
  (func (export "_start") (local $ms i64) (local $at i32)
    ;; subscription at 100: userdata 0, tag 0 (clock), id 1, timeout 250 ms
    (i64.store (i32.const 100) (i64.const 0))
    (i32.store8 (i32.const 108) (i32.const 0))
    (i32.store (i32.const 116) (i32.const 1))
    (i64.store (i32.const 124) (i64.const 250000000))
    (i64.store (i32.const 132) (i64.const 0))
    (i32.store16 (i32.const 140) (i32.const 0))
    (drop (call $poll (i32.const 100) (i32.const 200) (i32.const 1) (i32.const 8)))
    (drop (call $time (i32.const 1) (i64.const 1) (i32.const 300)))
    (local.set $ms (i64.div_u (i64.load (i32.const 300)) (i64.const 1000000)))
    ;; digits backwards from 400, then a newline at 400
    (i32.store8 (i32.const 400) (i32.const 10))
    (local.set $at (i32.const 400))
    (loop $digits
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at) (i32.add (i32.const 48) (i32.wrap_i64 (i64.rem_u (local.get $ms) (i64.const 10)))))
      (local.set $ms (i64.div_u (local.get $ms) (i64.const 10)))
      (br_if $digits (i64.ne (local.get $ms) (i64.const 0))))
    (i32.store (i32.const 0) (local.get $at))
    (i32.store (i32.const 4) (i32.sub (i32.const 401) (local.get $at)))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
)"#
    );
    let mut engine = start("sleeper", &wat).unwrap();
    assert_eq!(engine.recv().unwrap(), "250", "no work but the sleep: the clock reads 250 ms");
    let mut engine = start("sleeper", &wat).unwrap();
    engine.begin_move(100);
    engine.send("go").unwrap();
    assert!(matches!(engine.recv(), Err(ProcessError::Timeout)), "a sleep past the budget is out of time");
}

/// The one-line reason `wat` is refused at start.
fn refusal(name: &str, wat: &str) -> String {
    match start(name, wat) {
        Err(ProcessError::Start { reason, .. }) => reason,
        Err(e) => panic!("{name}: {e}"),
        Ok(_) => panic!("{name} was started"),
    }
}

#[test]
fn bad_modules_are_refused_with_one_line_naming_what_is_wrong() {
    let path = module("text", "(module)");
    std::fs::write(&path, "#!/bin/sh\necho uciok\n").unwrap();
    let not_wasm = Sandboxed::start(&path, &[], "text", settings()).err().unwrap().to_string();
    assert!(not_wasm.contains("is not a WebAssembly module"), "{not_wasm}");
    let cases = [
        ("library", r#"(module (memory (export "memory") 1))"#, "is not a WASI command: it exports no _start"),
        (
            "sockets",
            r#"(module (import "wasi_snapshot_preview1" "sock_accept" (func (param i32 i32 i32) (result i32)))
               (memory (export "memory") 1) (func (export "_start")))"#,
            "imports wasi_snapshot_preview1::sock_accept: sockets are not granted",
        ),
        (
            "threads",
            r#"(module (import "wasi" "thread-spawn" (func (param i32) (result i32)))
               (memory (export "memory") 1) (func (export "_start")))"#,
            "imports wasi::thread-spawn: threads are not granted",
        ),
        (
            "host",
            r#"(module (import "env" "system" (func (param i32) (result i32)))
               (memory (export "memory") 1) (func (export "_start")))"#,
            "imports env::system, which the sandbox does not grant",
        ),
        (
            "greedy",
            r#"(module (memory (export "memory") 1000) (func (export "_start")))"#,
            "needs 63 MiB of memory at start, over its cap of 16 MiB",
        ),
        (
            "files",
            r#"(module (import "wasi_snapshot_preview1" "path_open"
                 (func (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
               (memory (export "memory") 1) (func (export "_start")))"#,
            "imports wasi_snapshot_preview1::path_open: files are not granted in the sandbox (files=DIR",
        ),
    ];
    for (name, wat, says) in cases {
        let why = refusal(name, wat);
        assert!(why.contains(says), "{name}: {why}");
        assert!(!why.contains('\n'), "{name}: one line: {why}");
    }
}

#[test]
fn a_trap_an_exit_and_a_growth_past_the_cap_end_the_engine_with_the_reason() {
    let trap = r#"(module (memory (export "memory") 1) (func (export "_start") unreachable))"#;
    let status = start("trap", trap).unwrap().recv().err().unwrap().to_string();
    assert!(status.contains("trapped") && status.contains("unreachable"), "{status}");
    let exit = r#"(module (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
        (memory (export "memory") 1) (func (export "_start") (call $exit (i32.const 3))))"#;
    let status = start("exit", exit).unwrap().recv().err().unwrap().to_string();
    assert!(status.contains("exit status 3"), "{status}");
    let grow = r#"(module (memory (export "memory") 1)
        (func (export "_start") (drop (memory.grow (i32.const 1000)))))"#;
    let status = start("grow", grow).unwrap().recv().err().unwrap().to_string();
    assert!(status.contains("went over its memory cap"), "{status}");
    // With a folder granted, a path outside it is refused, and the engine
    // goes on: opening "/" from the folder's descriptor answers an error.
    let files = format!(
        r#"(module {IMPORTS}
  (import "wasi_snapshot_preview1" "path_open"
    (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 96) "..")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 2))
    ;; a digit, then a newline: path_open's error number, 0 if it opened ".."
    (i32.store8 (i32.const 64) (i32.add (i32.const 48) (i32.rem_u
      (call $open (i32.const 3) (i32.const 0) (i32.const 96) (i32.const 2) (i32.const 0) (i64.const 0) (i64.const 0) (i32.const 0) (i32.const 8))
      (i32.const 10))))
    (i32.store8 (i32.const 65) (i32.const 10))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
)"#
    );
    let granted = SandboxSettings { files: vec![std::env::temp_dir()], ..settings() };
    let mut engine = Sandboxed::start(&module("files", &files), &[], "files", granted).unwrap();
    assert_ne!(engine.recv().unwrap(), "0", "'..' from a granted folder is refused");
}
