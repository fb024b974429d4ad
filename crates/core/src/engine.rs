//! An engine's running program: a native child process, or a WebAssembly
//! module in the sandbox on a virtual clock (a program whose file name ends
//! in `.wasm`). The protocols speak to both alike; a move's time is the
//! wall clock's for the one and the engine's own work for the other.

use std::path::Path;
use std::time::Instant;

use crate::process::{command_words, ChildProcess, Limits, ProcessError};
use crate::sandbox::{SandboxSettings, Sandboxed};

/// A running engine.
pub enum EngineProcess {
    /// A child process, on the wall clock.
    Native(ChildProcess),
    /// A sandboxed module, on its virtual clock.
    Sandboxed(Box<Sandboxed>),
}

/// Whether `command` runs a WebAssembly module in the sandbox (its program
/// ends in `.wasm`).
pub fn is_sandboxed(command: &str) -> bool {
    command_words(command).first().is_some_and(|p| p.to_ascii_lowercase().ends_with(".wasm"))
}

impl EngineProcess {
    /// Starts `command` with `args` after its words, in `dir` if given (a
    /// relative program path is found from there); a `.wasm` program in the
    /// sandbox with `sandbox`'s settings.
    pub fn start(
        command: &str,
        args: &[String],
        dir: Option<&Path>,
        sandbox: &SandboxSettings,
    ) -> Result<EngineProcess, ProcessError> {
        if !is_sandboxed(command) {
            return ChildProcess::start_in(command, args, dir, Limits::ENGINE).map(EngineProcess::Native);
        }
        let mut words = command_words(command).into_iter();
        let program = words.next().unwrap_or_default();
        let path = match dir {
            Some(d) => d.join(&program),
            None => program.into(),
        };
        if !path.is_file() {
            let reason = format!("program '{}' not found", path.display());
            return Err(ProcessError::Start { command: command.into(), reason });
        }
        let args: Vec<String> = words.chain(args.iter().cloned()).collect();
        Ok(EngineProcess::Sandboxed(Box::new(Sandboxed::start(&path, &args, command, sandbox.clone())?)))
    }

    /// The command line, as messages name it.
    pub fn command(&self) -> &str {
        match self {
            EngineProcess::Native(p) => p.command(),
            EngineProcess::Sandboxed(s) => s.command(),
        }
    }

    /// The process id of a native engine.
    pub fn pid(&self) -> Option<u32> {
        match self {
            EngineProcess::Native(p) => Some(p.pid()),
            EngineProcess::Sandboxed(_) => None,
        }
    }

    /// Whether the engine is on a virtual clock (sandboxed): its moves'
    /// times come from [`EngineProcess::finish_move`], its flag falls as
    /// [`ProcessError::Timeout`] from `recv`, whatever the deadline.
    pub fn is_virtual(&self) -> bool {
        matches!(self, EngineProcess::Sandboxed(_))
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        match self {
            EngineProcess::Native(p) => p.send(line),
            EngineProcess::Sandboxed(s) => {
                crate::process::log_engine_line(s.command(), 0, '>', line);
                s.send(line)
            }
        }
    }

    /// Sends `lines` together (one write to a native engine).
    pub fn send_lines(&mut self, lines: &[&str]) -> Result<(), ProcessError> {
        match self {
            EngineProcess::Native(p) => p.send_lines(lines),
            EngineProcess::Sandboxed(_) => lines.iter().try_for_each(|line| self.send(line)),
        }
    }

    /// The next line, waiting until `deadline` (`None`: until it exits); a
    /// sandboxed engine is held to its virtual time instead.
    pub fn recv(&mut self, deadline: Option<Instant>) -> Result<String, ProcessError> {
        match self {
            EngineProcess::Native(p) => p.recv(deadline),
            EngineProcess::Sandboxed(s) => {
                let line = s.recv()?;
                crate::process::log_engine_line(s.command(), 0, '<', &line);
                Ok(line)
            }
        }
    }

    /// Reads lines until one satisfies `want`, within `deadline`.
    pub fn recv_until<T>(
        &mut self,
        deadline: Option<Instant>,
        mut want: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, ProcessError> {
        loop {
            let answer = match self {
                EngineProcess::Native(p) => p.recv_with(deadline, &mut want)?,
                EngineProcess::Sandboxed(_) => want(&self.recv(deadline)?),
            };
            if let Some(v) = answer {
                return Ok(v);
            }
        }
    }

    /// A move is asked for with `budget_ms` on the engine's clock (a
    /// sandboxed engine's flag falls past it; a native engine is held to
    /// the deadline its caller gives `recv`).
    pub fn begin_move(&mut self, budget_ms: u64) {
        if let EngineProcess::Sandboxed(s) = self {
            s.begin_move(budget_ms);
        }
    }

    /// The move is answered: its virtual time in microseconds (sandboxed),
    /// `None` on the wall clock.
    pub fn finish_move(&mut self) -> Option<u64> {
        match self {
            EngineProcess::Native(_) => None,
            EngineProcess::Sandboxed(s) => s.finish_move(),
        }
    }
}
