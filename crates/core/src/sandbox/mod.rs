//! Engines compiled to WebAssembly as WASI preview 1 commands, run in the
//! host's wasmtime with nothing but their standard streams, and on a
//! virtual clock.
//!
//! An engine's time is the work it does: wasmtime's fuel (about one unit
//! per instruction executed) at a fixed rate, `ips` units a virtual second.
//! Its own clocks (`clock_time_get`) read that time, a sleep (a
//! `poll_oneoff` with a timeout) spends it, and a move's budget is fuel: the
//! flag falls exactly when the fuel runs out. The engine runs only while
//! the host waits for its output, on the host's thread (an async call
//! polled by hand), and input reaches it only where it asks for input, so
//! the same engine, told the same lines, does the same work and says the
//! same things at the same virtual times on any machine under any load.
//!
//! What is granted: standard input and output (standard error is read and
//! dropped), virtual clocks, random bytes from the game's seed, the
//! program's name and arguments, no environment, a memory cap, and only the
//! folders the user grants (`files=DIR`), read-only. A module that
//! imports threads, sockets or anything outside WASI preview 1, or opens
//! files (`path_open`) with no folder granted, is refused when it is
//! loaded, with one line naming the import.

mod files;
mod wasi;

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};

use wasmtime::{Config, Engine, InstancePre, Linker, Module, Store, StoreLimits, StoreLimitsBuilder};

use crate::process::ProcessError;
use crate::sync::LockExt;

/// Fuel (one unit a WebAssembly instruction, the moves between locals and
/// constants included) a virtual second holds unless the engine's `ips=`
/// says otherwise: about one real second of a chess engine's search on the
/// reference machine (Fairymax and the tests' engine ran 1.5e10 to 1.7e10 a
/// second there; see docs/sandbox.md).
pub const DEFAULT_IPS: u64 = 15_000_000_000;

/// The memory a sandboxed engine may grow to unless its `memory=` says
/// otherwise, in MiB.
pub const DEFAULT_MEMORY_MB: u64 = 512;

/// How a sandboxed engine runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Fuel a virtual second holds.
    pub ips: u64,
    /// The memory cap, in MiB.
    pub memory_mb: u64,
    /// The seed its random bytes come from.
    pub seed: u64,
    /// Virtual time it may take to answer anything but a move (start-up,
    /// handshakes, readiness checks), in ms.
    pub answer_ms: u64,
    /// The longest output line accepted, in bytes.
    pub max_line: usize,
    /// Folders it may read (`files=DIR`), each at its own path.
    pub files: Vec<std::path::PathBuf>,
}

/// An engine module running in the sandbox, spoken to by lines.
pub struct Sandboxed {
    label: String,
    run: Pin<Box<dyn Future<Output = wasmtime::Result<()>> + Send>>,
    shared: Arc<Mutex<Shared>>,
    settings: SandboxSettings,
    /// How it ended, once it has.
    ended: Option<Ended>,
    /// Whether a move's budget was given and the move not yet finished.
    on_move: bool,
    /// The virtual time of the last line taken, in ns.
    last_line_ns: u64,
}

/// How a sandboxed engine ended.
#[derive(Clone, Debug)]
enum Ended {
    /// Its fuel ran out (or a sleep outlasted it).
    OutOfTime,
    /// It exited or trapped: the status, as messages give it.
    Status(String),
}

/// What the host and the engine's calls share.
#[derive(Default)]
struct Shared {
    /// Bytes sent, not yet read.
    input: VecDeque<u8>,
    /// Complete output lines, each with the virtual time it was written at (ns).
    lines: VecDeque<(String, u64)>,
    /// Output after the last newline.
    partial: Vec<u8>,
    /// An output line grew past the cap.
    too_long: bool,
    /// The engine waits for input with nothing to read.
    waiting: bool,
    /// Fuel to give at the engine's next step, and whether it is a move's.
    grant: Option<(u64, bool)>,
    /// When the move under way started, in virtual ns.
    move_from_ns: Option<u64>,
}

/// Why a sandboxed engine stopped on its own: the error its calls raise.
#[derive(Debug, thiserror::Error)]
enum Stop {
    /// `proc_exit`.
    #[error("exit status {0}")]
    Exit(i32),
    /// A sleep asked for more time than was left.
    #[error("its time ran out")]
    OutOfTime,
}

/// The one engine sandboxed modules are compiled for: fuel metered, async
/// (the module's calls for input suspend it), deterministic.
fn engine() -> Result<&'static Engine, String> {
    static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            let mut config = Config::new();
            config
                .consume_fuel(true)
                .cranelift_opt_level(wasmtime::OptLevel::Speed)
                .cranelift_nan_canonicalization(true)
                .relaxed_simd_deterministic(true)
                .max_wasm_stack(8 << 20)
                .async_stack_size(16 << 20);
            Engine::new(&config).map_err(|e| format!("cannot start the WebAssembly engine: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Modules loaded by this process, by the file's path, length and time.
type Loaded = HashMap<(std::path::PathBuf, u64, std::time::SystemTime), Arc<InstancePre<wasi::Ctx>>>;

/// `path` compiled and checked, ready to start (cached for the process).
fn prepared(path: &Path) -> Result<Arc<InstancePre<wasi::Ctx>>, String> {
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let file = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {file}: {e}"))?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().unwrap_or(std::time::UNIX_EPOCH));
    let loaded = LOADED.get_or_init(Default::default);
    if let Some(pre) = loaded.lock_or_recover().get(&key) {
        return Ok(pre.clone());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {file}: {e}"))?;
    if !bytes.starts_with(b"\0asm") {
        return Err(format!("{file} is not a WebAssembly module (it does not start with \\0asm)"));
    }
    let engine = engine()?;
    let module = arbiter_api::host::wasm::compile(engine, &bytes).map_err(|e| format!("{file}: {e}"))?;
    let pre = Arc::new(link(engine, &module).map_err(|e| format!("{file} {e}"))?);
    loaded.lock_or_recover().insert(key, pre.clone());
    Ok(pre)
}

/// The module linked to the sandbox's calls, or why it cannot be: what it
/// imports that is not granted, or that it is no WASI command.
fn link(engine: &Engine, module: &Module) -> Result<InstancePre<wasi::Ctx>, String> {
    if module.get_export("_start").is_none() {
        return Err("is not a WASI command: it exports no _start (a library or a reactor?)".into());
    }
    if !matches!(module.get_export("memory"), Some(wasmtime::ExternType::Memory(_))) {
        return Err("exports no memory, which WASI commands share with their host".into());
    }
    let mut linker = Linker::new(engine);
    wasi::define(&mut linker, module)?;
    linker.instantiate_pre(module).map_err(|e| format!("cannot be linked: {e}"))
}

/// The fuel `ms` virtual milliseconds hold at `ips`.
fn fuel_of(ms: u64, ips: u64) -> u64 {
    ((ms as u128 * ips as u128) / 1000).min(u64::MAX as u128) as u64
}

impl Sandboxed {
    /// Loads `path` and starts it with `args` (after its name), `label`
    /// naming it in messages.
    pub fn start(path: &Path, args: &[String], label: &str, settings: SandboxSettings) -> Result<Self, ProcessError> {
        let start_error = |reason: String| ProcessError::Start { command: label.to_string(), reason };
        let pre = prepared(path).map_err(start_error)?;
        let memory_bytes = settings.memory_mb.saturating_mul(1 << 20).min(usize::MAX as u64) as usize;
        if let Some(wasmtime::ExternType::Memory(m)) = pre.module().get_export("memory") {
            let least = m.minimum().saturating_mul(m.page_size());
            if least > memory_bytes as u64 {
                return Err(start_error(format!(
                    "{} needs {} MiB of memory at start, over its cap of {} MiB (memory=)",
                    path.display(),
                    least.div_ceil(1 << 20),
                    settings.memory_mb
                )));
            }
        }
        // Opening files is refused at load unless a folder is granted: the
        // other file calls reach nothing without an opened file.
        let opens = pre.module().imports().any(|i| i.module() == wasi::P1 && i.name() == "path_open");
        if opens && settings.files.is_empty() {
            return Err(start_error(format!(
                "{} imports {}::path_open: files are not granted in the sandbox (files=DIR grants a folder, read-only)",
                path.display(),
                wasi::P1
            )));
        }
        let files = files::Files::granted(&settings.files).map_err(start_error)?;
        let shared = Arc::new(Mutex::new(Shared::default()));
        let name = path.file_name().map_or_else(|| label.to_string(), |n| n.to_string_lossy().into_owned());
        let ctx = wasi::Ctx::new(
            shared.clone(),
            std::iter::once(name).chain(args.iter().cloned()).collect(),
            settings.seed,
            settings.ips,
            settings.max_line,
            files,
            StoreLimitsBuilder::new().memory_size(memory_bytes).trap_on_grow_failure(true).build(),
        );
        let mut store = Store::new(pre.module().engine(), ctx);
        store.limiter(|c| &mut c.limits as &mut StoreLimits);
        let first = fuel_of(settings.answer_ms, settings.ips);
        store.set_fuel(first).map_err(|e| start_error(e.to_string()))?;
        store.data_mut().clock.granted(0, first);
        let run = Box::pin(async move {
            let instance = pre.instantiate_async(&mut store).await?;
            let main = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
            main.call_async(&mut store, ()).await
        });
        Ok(Sandboxed { label: label.to_string(), run, shared, settings, ended: None, on_move: false, last_line_ns: 0 })
    }

    /// The command, as messages name it.
    pub fn command(&self) -> &str {
        &self.label
    }

    /// Sends one line; unless a move is under way, the engine gets its
    /// answering time (`answer_ms`) afresh to act on it.
    pub fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        if self.ended.is_some() {
            return Err(self.exited());
        }
        let mut shared = self.shared.lock_or_recover();
        shared.input.extend(line.as_bytes());
        shared.input.push_back(b'\n');
        if !self.on_move {
            shared.grant = Some((fuel_of(self.settings.answer_ms, self.settings.ips), false));
        }
        Ok(())
    }

    /// A move is asked for: the engine gets `budget_ms` of virtual time from
    /// its next step; past it, its flag falls.
    pub fn begin_move(&mut self, budget_ms: u64) {
        self.on_move = true;
        self.shared.lock_or_recover().grant = Some((fuel_of(budget_ms, self.settings.ips), true));
    }

    /// The move is answered: the virtual time it took, in microseconds,
    /// from the engine's first step after [`Sandboxed::begin_move`] to the
    /// last line taken.
    pub fn finish_move(&mut self) -> Option<u64> {
        self.on_move = false;
        let from = self.shared.lock_or_recover().move_from_ns.take()?;
        Some(self.last_line_ns.saturating_sub(from) / 1000)
    }

    /// The next line the engine writes. It runs (on this thread) until it
    /// writes one, ends, or waits for input there is none of; the last two
    /// are errors, as is running out of its time ([`ProcessError::Timeout`]).
    pub fn recv(&mut self) -> Result<String, ProcessError> {
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            {
                let mut shared = self.shared.lock_or_recover();
                if shared.too_long {
                    return Err(ProcessError::LineTooLong {
                        command: self.label.clone(),
                        limit: self.settings.max_line,
                    });
                }
                if let Some((line, at)) = shared.lines.pop_front() {
                    self.last_line_ns = at;
                    return Ok(line);
                }
            }
            match &self.ended {
                Some(Ended::OutOfTime) => return Err(ProcessError::Timeout),
                Some(Ended::Status(_)) => return Err(self.exited()),
                None => {}
            }
            match self.run.as_mut().poll(&mut cx) {
                Poll::Ready(result) => self.ended = Some(ended(result)),
                Poll::Pending => {
                    let shared = self.shared.lock_or_recover();
                    if shared.waiting && shared.input.is_empty() && shared.lines.is_empty() {
                        // It waits for input while its answer is awaited: in
                        // virtual time, until its time runs out.
                        return Err(ProcessError::Timeout);
                    }
                }
            }
        }
    }

    /// The engine has ended: how, as an error.
    fn exited(&self) -> ProcessError {
        let status = match &self.ended {
            Some(Ended::Status(s)) => s.clone(),
            Some(Ended::OutOfTime) => "ran out of time".into(),
            None => "running".into(),
        };
        ProcessError::Exited { command: self.label.clone(), status }
    }
}

/// How the engine's run ended, from its result.
fn ended(result: wasmtime::Result<()>) -> Ended {
    let e = match result {
        Ok(()) => return Ended::Status("exit status 0".into()),
        Err(e) => e,
    };
    if let Some(stop) = e.downcast_ref::<Stop>() {
        return match stop {
            Stop::OutOfTime => Ended::OutOfTime,
            Stop::Exit(code) => Ended::Status(format!("exit status {code}")),
        };
    }
    if e.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::OutOfFuel) {
        return Ended::OutOfTime;
    }
    let text = format!("{e:#}");
    if text.contains("forcing trap when growing memory") || text.contains("memory growth failure") {
        return Ended::Status("went over its memory cap (memory=)".into());
    }
    match e.downcast_ref::<wasmtime::Trap>() {
        Some(trap) => Ended::Status(format!("trapped: {trap}")),
        None => Ended::Status(format!("failed: {}", e.root_cause().to_string().lines().next().unwrap_or("?"))),
    }
}

#[cfg(test)]
mod tests;
