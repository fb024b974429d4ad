//! A child process spoken to by lines on stdin/stdout (engines, tournament
//! workers): stdout is read through a thread so that every wait has a
//! deadline, and the process is killed and reaped when dropped.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::players::PlayerError;

/// A running engine process.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    command: String,
}

impl EngineProcess {
    /// Starts `command` (split on whitespace; the first word is the program).
    pub fn start(command: &str) -> Result<EngineProcess, PlayerError> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or_else(|| PlayerError::Crashed("empty engine command".into()))?;
        let mut cmd = Command::new(program);
        cmd.args(words).stderr(Stdio::null());
        Self::spawn(cmd, command)
    }

    /// Starts a prepared command, with piped stdin and stdout; `label` names
    /// it in messages.
    pub fn spawn(mut cmd: Command, label: &str) -> Result<EngineProcess, PlayerError> {
        let command = label;
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| PlayerError::Crashed(format!("cannot start '{command}': {e}")))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess { child, stdin, lines, command: command.to_string() })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        tracing::trace!(engine = %self.command, "> {line}");
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| PlayerError::Crashed(format!("'{}' closed its input", self.command)))
    }

    /// The next line, waiting until `deadline` (`None`: forever).
    pub fn recv(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError> {
        let line = match deadline {
            None => self.lines.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(d) => self.lines.recv_timeout(d.saturating_duration_since(Instant::now())),
        };
        match line {
            Ok(line) => {
                tracing::trace!(engine = %self.command, "< {line}");
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(PlayerError::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                Err(PlayerError::Crashed(format!("'{}' exited ({status})", self.command)))
            }
        }
    }

    /// Reads lines until one satisfies `want`, within `deadline`.
    pub fn recv_until<T>(
        &mut self,
        deadline: Option<Instant>,
        mut want: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, PlayerError> {
        loop {
            let line = self.recv(deadline)?;
            if let Some(v) = want(&line) {
                return Ok(v);
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A deadline `ms` from now plus a grace period for start-up chatter.
pub fn deadline_after(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}
