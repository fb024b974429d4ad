//! Running the checks of one variant in a child `arbiter check --only ID`,
//! so that a plugin that aborts the process or hangs is reported as a failed
//! check instead of taking the checker down.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the child printed and, if it did not finish normally, why.
pub struct Isolated {
    /// The child's report (its stdout).
    pub output: String,
    /// `Some` if it was killed by a signal or timed out.
    pub failure: Option<String>,
}

/// Runs `arbiter [--plugin-dir D]... check TARGET --only VARIANT --games N --seed S`
/// and waits at most `timeout`.
pub fn check_in_child(
    plugin_dirs: &[PathBuf],
    target: &str,
    variant: &str,
    games: u32,
    seed: u64,
    timeout: Duration,
) -> Isolated {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return Isolated { output: String::new(), failure: Some(e.to_string()) },
    };
    let mut cmd = Command::new(exe);
    for d in plugin_dirs {
        cmd.arg("--plugin-dir").arg(d);
    }
    cmd.args(["check", target, "--only", variant, "--games", &games.to_string(), "--seed", &seed.to_string()]);
    let out_file = std::env::temp_dir().join(format!("arbiter-check-{}-{variant}.out", std::process::id()));
    let Ok(file) = std::fs::File::create(&out_file) else {
        return Isolated { output: String::new(), failure: Some(format!("cannot create {}", out_file.display())) };
    };
    let mut child = match cmd.stdout(file).stderr(Stdio::null()).spawn() {
        Ok(c) => c,
        Err(e) => return Isolated { output: String::new(), failure: Some(e.to_string()) },
    };
    let t0 = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if t0.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let output = std::fs::read_to_string(&out_file).unwrap_or_default();
    let _ = std::fs::remove_file(&out_file);
    let failure = match status {
        None => Some(format!("no call returns: still running after {} s", timeout.as_secs())),
        Some(s) if s.code().is_none() => Some(format!("the process was killed ({s})")),
        // 0: every check passed, 1: some failed; anything else (a panic's
        // 101) means the checks did not finish.
        Some(s) if !matches!(s.code(), Some(0 | 1)) => Some(format!("the check process failed ({s})")),
        Some(_) => None,
    };
    Isolated { output, failure }
}
