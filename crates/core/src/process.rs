//! A child process spoken to by lines on stdin/stdout (engines, tournament
//! workers). Stdout is read by the thread that waits for a line, as it waits
//! (poll(2) with the deadline, then one read for every line the child has
//! written so far), so every wait has a deadline, a line costs no hand-over
//! between threads, and a flooding child costs bounded memory (it blocks on
//! its own writes while nobody reads; a line longer than the cap is an
//! error); the child runs in its own process group,
//! is told to end when its parent dies (Linux), and its whole group is killed
//! and reaped when the handle is dropped. A worker process records the groups
//! of the engines it started, so that when it is stopped (SIGTERM) it ends
//! them first ([`end_engines_on_sigterm`]). It does not own what its errors
//! mean to a game: players turn a [`ProcessError`] into their own error.

use std::io::{ErrorKind, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Why talking to a child process failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    /// The program could not be started.
    #[error("cannot start '{command}': {reason}")]
    Start {
        /// The command line.
        command: String,
        /// What the OS said.
        reason: String,
    },
    /// The process exited, or closed its end of a pipe.
    #[error("'{command}' exited ({status})")]
    Exited {
        /// The command line.
        command: String,
        /// Its exit status, or how its pipe closed.
        status: String,
    },
    /// Nothing arrived before the deadline.
    #[error("no answer in time")]
    Timeout,
    /// A line longer than the cap arrived.
    #[error("'{command}' wrote a line longer than {limit} bytes")]
    LineTooLong {
        /// The command line.
        command: String,
        /// The cap.
        limit: usize,
    },
}

/// What kind of child: limits on what it may send, and how it is ended.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The longest line accepted, in bytes.
    pub max_line: usize,
    /// A worker: told SIGTERM (when its parent dies, or before it is killed)
    /// so that it ends its engines; engines get SIGKILL.
    pub worker: bool,
}

impl Limits {
    /// Engines: 1 MiB lines (a UCI `info` line is a few hundred bytes).
    pub const ENGINE: Limits = Limits { max_line: 1 << 20, worker: false };
    /// Tournament workers: whole game records on one line.
    pub const WORKER: Limits = Limits { max_line: 256 << 20, worker: true };
}

/// The process groups of the engines this process has running (0: a free
/// slot), readable from a signal handler.
static ENGINE_GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

fn register_group(pgid: i32) {
    for slot in &ENGINE_GROUPS {
        if slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            return;
        }
    }
}

fn forget_group(pgid: i32) {
    for slot in &ENGINE_GROUPS {
        if slot.compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            return;
        }
    }
}

/// Makes SIGTERM end every engine group this process started, then the
/// process itself, even while its main thread is stuck in a plugin call
/// (what a worker does when its parent dies or stops it).
#[cfg(unix)]
pub fn end_engines_on_sigterm() {
    extern "C" fn on_sigterm(_: libc::c_int) {
        for slot in &ENGINE_GROUPS {
            let pgid = slot.load(Ordering::SeqCst);
            if pgid > 0 {
                // SAFETY: killpg and _exit are async-signal-safe.
                unsafe {
                    libc::killpg(pgid, libc::SIGKILL);
                }
            }
        }
        // SAFETY: as above.
        unsafe { libc::_exit(143) }
    }
    // SAFETY: the handler only reads atomics and makes async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigterm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

/// How often a wait checks whether the process itself has exited (a
/// grandchild may keep its stdout open after it died).
const EXIT_POLL: Duration = Duration::from_millis(100);

/// How much one read takes from a child's output at most.
const READ_CHUNK: usize = 64 << 10;

/// A running child process.
pub struct ChildProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// What was read and not yet handed out as lines.
    pending: Lines,
    /// The bytes of the lines being sent (kept: a ply allocates nothing).
    out: Vec<u8>,
    command: String,
    /// The program's file name, as the engine log names it.
    program: String,
    limits: Limits,
}

/// Bytes read from a child, cut into lines as they are asked for.
#[derive(Default)]
struct Lines {
    /// The bytes; those in `start..end` are read and not yet handed out.
    buf: Vec<u8>,
    /// Where the next line starts.
    start: usize,
    /// Where what was read ends.
    end: usize,
    /// How far from `start` is known to hold no newline.
    scanned: usize,
    /// Whether the child's output has ended.
    ended: bool,
}

impl Lines {
    /// Where the next whole line lies in `buf` (without its newline or a
    /// carriage return before it), or at the end of output the last bytes
    /// without one; `Err` for a line longer than `max`. The bytes stay in
    /// place until the next [`Lines::fill`].
    fn next(&mut self, max: usize) -> Result<Option<std::ops::Range<usize>>, ()> {
        let rest = &self.buf[self.start..self.end];
        let (end, next) = match memchr::memchr(b'\n', &rest[self.scanned..]) {
            Some(i) => (self.scanned + i, self.scanned + i + 1),
            None if self.ended && !rest.is_empty() => (rest.len(), rest.len()),
            None => {
                self.scanned = rest.len();
                return if rest.len() > max { Err(()) } else { Ok(None) };
            }
        };
        if end > max {
            return Err(());
        }
        let mut line = self.start..self.start + end;
        if end > 0 && rest[end - 1] == b'\r' {
            line.end -= 1;
        }
        self.start += next;
        self.scanned = 0;
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        }
        Ok(Some(line))
    }

    /// Reads what `from` holds now, at most [`READ_CHUNK`] bytes (one
    /// read: call it when poll(2) said there is something to read).
    fn fill(&mut self, from: &mut impl Read) -> std::io::Result<()> {
        if self.buf.len() - self.end < READ_CHUNK {
            // Room at the front first; the buffer grows only for long lines.
            self.buf.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
            if self.buf.len() - self.end < READ_CHUNK {
                self.buf.resize(self.end + READ_CHUNK, 0);
            }
        }
        match from.read(&mut self.buf[self.end..self.end + READ_CHUNK]) {
            Ok(0) => self.ended = true,
            Ok(n) => self.end += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }
}

/// The words of an engine command: split on whitespace, a double-quoted
/// part kept whole and its quotes dropped (`"/opt/My Engines/sf" --uci` is
/// two words), so that a program or an argument may hold spaces.
pub fn command_words(command: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in command.chars() {
        match c {
            '"' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The file name of a command's program (`/opt/sf/sf --uci` is `sf`).
pub fn program_name(command: &str) -> String {
    let words = command_words(command);
    let program = words.first().map_or(command, String::as_str);
    program.rsplit('/').next().unwrap_or(program).to_string()
}

impl ChildProcess {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts `command` (its [`command_words`]; the first is the program),
    /// its stderr discarded.
    pub fn start(command: &str, limits: Limits) -> Result<ChildProcess, ProcessError> {
        Self::start_in(command, &[], None, limits)
    }

    /// Starts `command` with `args` (each passed whole) after its words, in
    /// `dir` (a relative program path is found from there) if given.
    pub fn start_in(
        command: &str,
        args: &[String],
        dir: Option<&std::path::Path>,
        limits: Limits,
    ) -> Result<ChildProcess, ProcessError> {
        let start_error = |reason: String| ProcessError::Start { command: command.into(), reason };
        let mut words = command_words(command).into_iter();
        let program = words.next().ok_or_else(|| start_error("empty command".into()))?;
        let program = match dir {
            Some(d) if program.contains('/') => find_program(&d.join(&program).to_string_lossy()),
            _ => find_program(&program),
        }
        .map_err(|e| start_error(e.to_string()))?;
        let mut cmd = Command::new(program);
        cmd.args(words).args(args).stderr(Stdio::null());
        if let Some(d) = dir {
            if !d.is_dir() {
                return Err(start_error(format!("directory '{}' not found", d.display())));
            }
            cmd.current_dir(d);
        }
        Self::spawn(cmd, command, limits)
    }

    /// Starts a prepared command with piped stdin and stdout, in a process
    /// group of its own; `label` names it in messages.
    pub fn spawn(mut cmd: Command, label: &str, limits: Limits) -> Result<ChildProcess, ProcessError> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own group: a Ctrl-C at the terminal reaches only arbiter,
            // and the whole group (grandchildren too) can be ended at once.
            cmd.process_group(0);
            #[cfg(target_os = "linux")]
            // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
            unsafe {
                let signal = if limits.worker { libc::SIGTERM } else { libc::SIGKILL };
                cmd.pre_exec(move || {
                    // End with the thread that started us, even if it is killed.
                    libc::prctl(libc::PR_SET_PDEATHSIG, signal);
                    Ok(())
                });
            }
        }
        // A program just written is "busy" while another thread's child,
        // forked before it exec'd, still holds the file open for writing:
        // that passes within milliseconds, so the start is tried again.
        let mut tries = 0;
        let mut child = loop {
            match cmd.spawn() {
                #[cfg(unix)]
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                r => break r.map_err(|e| ProcessError::Start { command: label.to_string(), reason: e.to_string() })?,
            }
        };
        if !limits.worker {
            register_group(child.id() as i32);
        }
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let program = program_name(label);
        Ok(ChildProcess {
            child,
            stdin,
            stdout,
            pending: Lines::default(),
            out: Vec::new(),
            command: label.to_string(),
            program,
            limits,
        })
    }

    /// The command line, as messages name it.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Sends one line. A closed pipe (the child exited) is an error value,
    /// never a signal.
    pub fn send(&mut self, line: &str) -> Result<(), ProcessError> {
        self.send_lines(&[line])
    }

    /// Sends `lines`, each with its newline, in one write(2): an engine woken
    /// by part of a line would read it and wait again, and lines that go
    /// together (`position`, then `go`) cost it one wake-up.
    pub fn send_lines(&mut self, lines: &[&str]) -> Result<(), ProcessError> {
        self.out.clear();
        for line in lines {
            tracing::trace!(engine = %self.command, "> {line}");
            if !self.limits.worker {
                log_engine_line(&self.program, self.child.id(), '>', line);
            }
            self.out.extend_from_slice(line.as_bytes());
            self.out.push(b'\n');
        }
        match self.stdin.write_all(&self.out).and_then(|_| self.stdin.flush()) {
            Ok(()) => Ok(()),
            Err(e) => Err(self.exited(if e.kind() == ErrorKind::BrokenPipe { "its input closed" } else { "" })),
        }
    }

    /// The next line, waiting until `deadline` (`None`: until it exits).
    pub fn recv(&mut self, deadline: Option<Instant>) -> Result<String, ProcessError> {
        self.recv_with(deadline, str::to_string)
    }

    /// What `read` makes of the next line, read where it lies (an engine
    /// writes a dozen lines a move: nothing is copied or allocated for one),
    /// waiting until `deadline` (`None`: until it exits).
    pub fn recv_with<T>(&mut self, deadline: Option<Instant>, read: impl FnOnce(&str) -> T) -> Result<T, ProcessError> {
        // After the process itself exited, a grandchild may still hold its
        // output open: what comes within this long is still taken.
        let mut exited_by: Option<Instant> = None;
        loop {
            match self.pending.next(self.limits.max_line) {
                Ok(Some(range)) => {
                    let bytes = &self.pending.buf[range];
                    // Valid UTF-8 (nearly always) is read as it is; anything else mended.
                    let line = match std::str::from_utf8(bytes) {
                        Ok(text) => std::borrow::Cow::Borrowed(text),
                        Err(_) => String::from_utf8_lossy(bytes),
                    };
                    tracing::trace!(engine = %self.command, "< {line}");
                    if !self.limits.worker {
                        log_engine_line(&self.program, self.child.id(), '<', &line);
                    }
                    return Ok(read(&line));
                }
                Ok(None) if self.pending.ended => return Err(self.exited("")),
                Ok(None) => {}
                Err(()) => {
                    return Err(ProcessError::LineTooLong {
                        command: self.command.clone(),
                        limit: self.limits.max_line,
                    })
                }
            }
            let now = Instant::now();
            if exited_by.is_some_and(|t| now >= t) {
                return Err(self.exited(""));
            }
            let mut wait = match deadline {
                None => EXIT_POLL,
                Some(d) => d.saturating_duration_since(now).min(EXIT_POLL),
            };
            if let Some(t) = exited_by {
                wait = wait.min(t.saturating_duration_since(now));
            }
            if self.readable(wait) {
                if let Err(e) = self.pending.fill(&mut self.stdout) {
                    tracing::debug!(engine = %self.command, "reading its output: {e}");
                    self.pending.ended = true;
                }
                continue;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(ProcessError::Timeout);
            }
            if exited_by.is_none() && matches!(self.child.try_wait(), Ok(Some(_))) {
                exited_by = Some(Instant::now() + Duration::from_millis(20));
            }
        }
    }

    /// Whether the child's output has something to read (or has ended)
    /// within `wait`.
    #[cfg(unix)]
    fn readable(&self, wait: Duration) -> bool {
        use std::os::fd::AsRawFd;
        let mut fd = libc::pollfd { fd: self.stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = wait.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd, for the duration of the call.
        let ready = unsafe { libc::poll(&mut fd, 1, ms) };
        ready > 0 && fd.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0
    }

    /// The child exited (or is about to): its status, reaped, as an error.
    fn exited(&mut self, how: &str) -> ProcessError {
        // A child that closed its pipes may take a moment to be reapable.
        let until = Instant::now() + Duration::from_millis(200);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) if !how.is_empty() => break how.to_string(),
                Ok(None) => break "closed its output".to_string(),
                Err(e) => break e.to_string(),
            }
        };
        ProcessError::Exited { command: self.command.clone(), status }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        let pgid = self.child.id() as i32;
        #[cfg(unix)]
        if self.limits.worker {
            // A worker ends its engines on SIGTERM: give it a moment.
            // SAFETY: kill only sends a signal to our own child.
            unsafe {
                libc::kill(pgid, libc::SIGTERM);
            }
            let until = Instant::now() + Duration::from_millis(500);
            while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        #[cfg(unix)]
        // SAFETY: killpg only sends a signal; the group is the child's own
        // (process_group(0) made its pid the group id).
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        forget_group(pgid);
    }
}

/// Where programs are looked for after `PATH`: Debian installs engines
/// such as Stockfish and GNU Chess in `/usr/games`, which is not on every
/// user's `PATH`.
pub const GAMES_DIRS: [&str; 2] = ["/usr/games", "/usr/local/games"];

/// A program name that names no file, and where it was looked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramNotFound {
    /// A path (the name holds a `/`) that is no file.
    #[error("program '{0}' not found")]
    Path(String),
    /// A bare name found neither on `PATH` nor in [`GAMES_DIRS`].
    #[error("program '{0}' not found on PATH nor in {dirs}", dirs = GAMES_DIRS.join(" or "))]
    Name(String),
}

/// The file a program name starts: a path as given, else the first match on
/// `PATH`, then in [`GAMES_DIRS`]; the error says where it looked.
pub fn find_program(program: &str) -> Result<std::path::PathBuf, ProgramNotFound> {
    use std::path::{Path, PathBuf};
    if program.contains('/') {
        let path = Path::new(program);
        return if path.is_file() { Ok(path.to_path_buf()) } else { Err(ProgramNotFound::Path(program.into())) };
    }
    let path_dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    let dirs = path_dirs.iter().cloned().chain(GAMES_DIRS.iter().map(PathBuf::from));
    for dir in dirs {
        let candidate = dir.join(program);
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(ProgramNotFound::Name(program.into()))
}

/// The environment variable naming the file every engine's input and
/// output is appended to (`--log FILE` sets it; worker processes inherit it).
pub const ENGINE_LOG_VAR: &str = "ARBITER_ENGINE_LOG";

/// Lines a gzipped engine log holds back before it writes them as one gzip
/// member (games end sooner, and write theirs then).
const GZIP_MEMBER_BYTES: usize = 256 << 10;

/// The engine log this process appends to.
struct EngineLog {
    file: std::fs::File,
    path: std::path::PathBuf,
    /// Lines that could not be written (said once, at the first).
    lost: u64,
    /// Gzipped (the file's name ends in `.gz`): lines wait in `pending`
    /// and go out as whole gzip members, which `zcat` reads as one stream.
    gzip: bool,
    pending: Vec<u8>,
}

impl EngineLog {
    fn open() -> Option<std::sync::Mutex<EngineLog>> {
        let path = std::path::PathBuf::from(std::env::var_os(ENGINE_LOG_VAR)?);
        match std::fs::OpenOptions::new().create(true).append(true).open(&path) {
            Ok(file) => {
                let gzip = path.extension().is_some_and(|e| e == "gz");
                Some(std::sync::Mutex::new(EngineLog { file, path, lost: 0, gzip, pending: Vec::new() }))
            }
            Err(e) => {
                tracing::warn!("engine log {}: cannot open ({e}): engine lines are not logged", path.display());
                None
            }
        }
    }

    /// Writes `bytes` whole, saying so the first time a write fails.
    fn write(&mut self, bytes: &[u8]) {
        use std::io::Write as _;
        if let Err(e) = self.file.write_all(bytes) {
            if self.lost == 0 {
                tracing::warn!("engine log {}: cannot write ({e}): engine lines are being lost", self.path.display());
            }
            self.lost += 1;
        }
    }

    /// Appends one line: at once to a plain log, in one write so that the
    /// lines of many processes sharing the file do not mix.
    fn append(&mut self, text: &str) {
        if !self.gzip {
            self.write(text.as_bytes());
            return;
        }
        self.pending.extend_from_slice(text.as_bytes());
        if self.pending.len() >= GZIP_MEMBER_BYTES {
            self.flush();
        }
    }

    /// Writes the lines held back as one gzip member, in one write.
    fn flush(&mut self) {
        use std::io::Write as _;
        if self.pending.is_empty() {
            return;
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let member = gz.write_all(&self.pending).and_then(|_| gz.finish());
        self.pending.clear();
        match member {
            Ok(bytes) => self.write(&bytes),
            Err(e) => tracing::warn!("engine log {}: cannot compress ({e})", self.path.display()),
        }
    }
}

/// This process's engine log, opened on first use.
fn engine_log() -> Option<&'static std::sync::Mutex<EngineLog>> {
    static LOG: std::sync::OnceLock<Option<std::sync::Mutex<EngineLog>>> = std::sync::OnceLock::new();
    LOG.get_or_init(EngineLog::open).as_ref()
}

/// Writes out what a gzipped engine log holds back: called as each game
/// ends and before the program exits.
pub fn flush_engine_log() {
    if let Some(log) = engine_log() {
        if let Ok(mut log) = log.lock() {
            log.flush();
        }
    }
}

/// Appends one line an engine was sent (`>`) or wrote (`<`) to the engine
/// log, if there is one: `2026-12-01 01:50:00.123 stockfish[4711] > go`.
pub(crate) fn log_engine_line(name: &str, pid: u32, direction: char, line: &str) {
    let Some(log) = engine_log() else { return };
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (secs, ms) = (now.as_secs(), now.subsec_millis());
    let date = crate::model::calendar::date(secs, '-');
    let text = format!(
        "{date} {:02}:{:02}:{:02}.{ms:03} {name}[{pid}] {direction} {line}\n",
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60
    );
    if let Ok(mut log) = log.lock() {
        log.append(&text);
    }
}

/// Pins the calling thread to `width` of the CPUs this process may use,
/// the `slot`-th group of `width` (wrapping), as fastchess's
/// `-use-affinity` does: threads and processes it starts afterwards (a
/// game's thread, a worker process, the engines) inherit the pin, so
/// concurrent games do not share a core. Returns the CPUs.
#[cfg(target_os = "linux")]
pub fn pin_thread_to_cpus(slot: usize, width: usize) -> Result<Vec<usize>, AffinityError> {
    let cpus = allowed_cpus()?;
    if cpus.is_empty() {
        return Err(AffinityError::NoCpu);
    }
    let chosen: Vec<usize> = (0..width.max(1)).map(|k| cpus[(slot * width.max(1) + k) % cpus.len()]).collect();
    // SAFETY: cpu_set_t is plain data; the calls only read and write it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        chosen.iter().for_each(|&c| libc::CPU_SET(c, &mut set));
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(AffinityError::Os("sched_setaffinity", std::io::Error::last_os_error()));
        }
    }
    Ok(chosen)
}

/// The CPUs the calling thread may run on, in order.
#[cfg(target_os = "linux")]
pub fn allowed_cpus() -> Result<Vec<usize>, AffinityError> {
    // SAFETY: cpu_set_t is plain data; the call only writes it.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut allowed) != 0 {
            return Err(AffinityError::Os("sched_getaffinity", std::io::Error::last_os_error()));
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &allowed)).collect())
    }
}

/// Pins process `pid` (its main thread; threads it starts later inherit
/// the pin) to `cpu`.
#[cfg(target_os = "linux")]
pub fn pin_process_to_cpu(pid: u32, cpu: usize) -> Result<(), AffinityError> {
    // SAFETY: cpu_set_t is plain data; the call only reads it.
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut one);
        if libc::sched_setaffinity(pid as libc::pid_t, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
            return Err(AffinityError::Os("sched_setaffinity", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// CPU affinity where the OS has none to set: refused.
#[cfg(not(target_os = "linux"))]
pub fn pin_thread_to_cpus(_slot: usize, _width: usize) -> Result<Vec<usize>, AffinityError> {
    Err(AffinityError::Unsupported)
}

/// CPU affinity where the OS has none to set: refused.
#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Result<Vec<usize>, AffinityError> {
    Err(AffinityError::Unsupported)
}

/// CPU affinity where the OS has none to set: refused.
#[cfg(not(target_os = "linux"))]
pub fn pin_process_to_cpu(_pid: u32, _cpu: usize) -> Result<(), AffinityError> {
    Err(AffinityError::Unsupported)
}

/// Why a thread could not be pinned to a CPU.
#[derive(Debug, thiserror::Error)]
pub enum AffinityError {
    /// The OS refused a call.
    #[error("{0}: {1}")]
    Os(&'static str, std::io::Error),
    /// The process may run on no CPU at all.
    #[error("no CPU is allowed")]
    NoCpu,
    /// The OS has no affinity to set.
    #[error("CPU affinity is set on Linux only")]
    Unsupported,
}

/// A deadline `ms` from now.
pub fn deadline_after(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_s_quoted_words_keep_their_spaces() {
        let words = |c: &str| command_words(c);
        assert_eq!(words("  stockfish  "), ["stockfish"]);
        assert_eq!(words("python3 \"/my engines/e.py\" --fast"), ["python3", "/my engines/e.py", "--fast"]);
        assert_eq!(words("\"/opt/My Engines/sf\""), ["/opt/My Engines/sf"]);
        assert_eq!(words("a \"\" b"), ["a", "", "b"]);
        assert_eq!(words("a/\"b c\"/d"), ["a/b c/d"]);
        assert!(words("   ").is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_program_whose_path_holds_a_space_starts_when_quoted() {
        let dir = arbiter_testing::temp_folder("spaced engine");
        let program = dir.join("my engine.sh");
        std::fs::write(&program, "#!/bin/sh\necho \"$1\"\n").unwrap();
        let mut perms = std::fs::metadata(&program).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&program, perms).unwrap();
        let command = format!("\"{}\" \"one word\"", program.display());
        let mut child = ChildProcess::start(&command, Limits::ENGINE).unwrap();
        assert_eq!(child.recv(Some(Instant::now() + Duration::from_secs(5))).unwrap(), "one word");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_is_pinned_to_a_group_of_cpus_and_a_process_to_one() {
        let all = allowed_cpus().unwrap();
        assert!(!all.is_empty());
        std::thread::spawn(move || {
            let two = pin_thread_to_cpus(0, 2).unwrap();
            assert_eq!(two.len(), 2);
            let mut now = allowed_cpus().unwrap();
            now.dedup();
            assert_eq!(now.len(), all.len().min(2), "{now:?} of {all:?}");
            let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
            pin_process_to_cpu(child.id(), two[1]).unwrap();
            let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
            let _ = child.kill();
            let _ = child.wait();
            let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).unwrap();
            assert_eq!(line.split_whitespace().nth(1), Some(two[1].to_string().as_str()), "{line}");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn lines_are_cut_as_they_come_and_capped() {
        // Each line as text, read where it lies.
        fn next(lines: &mut Lines, max: usize) -> Result<Option<String>, ()> {
            let range = lines.next(max)?;
            Ok(range.map(|r| String::from_utf8_lossy(&lines.buf[r]).into_owned()))
        }
        let mut lines = Lines::default();
        let mut input: &[u8] = b"short\r\nsec";
        lines.fill(&mut input).unwrap();
        assert_eq!(next(&mut lines, 10), Ok(Some("short".into())));
        assert_eq!(next(&mut lines, 10), Ok(None), "half a line waits for the rest");
        let mut more: &[u8] = b"ond\nlast";
        lines.fill(&mut more).unwrap();
        assert_eq!(next(&mut lines, 10), Ok(Some("second".into())));
        assert_eq!(next(&mut lines, 10), Ok(None));
        lines.fill(&mut &b""[..]).unwrap();
        assert_eq!(next(&mut lines, 10), Ok(Some("last".into())), "the end of output ends the last line");
        assert_eq!((next(&mut lines, 10), lines.ended), (Ok(None), true));
        let mut long = Lines::default();
        long.fill(&mut &[b'x'; 100][..]).unwrap();
        assert_eq!(next(&mut long, 10), Err(()), "too long before its newline arrives");
        let mut long = Lines::default();
        long.fill(&mut &b"0123456789abc\nok\n"[..]).unwrap();
        assert_eq!(next(&mut long, 10), Err(()));
    }

    #[cfg(unix)]
    #[test]
    fn a_burst_of_lines_is_read_in_order_and_a_silent_child_times_out() {
        let script = arbiter_testing::temp_folder("burst").join("burst.sh");
        std::fs::write(&script, "for i in 1 2 3; do echo line$i; done\nsleep 5\n").unwrap();
        let mut p = ChildProcess::start(&format!("sh {}", script.display()), Limits::ENGINE).unwrap();
        for want in ["line1", "line2", "line3"] {
            assert_eq!(p.recv(Some(deadline_after(5000))).unwrap(), want);
        }
        let t0 = Instant::now();
        assert_eq!(p.recv(Some(deadline_after(150))), Err(ProcessError::Timeout));
        assert!(t0.elapsed() >= Duration::from_millis(150) && t0.elapsed() < Duration::from_secs(2));
    }

    #[cfg(unix)]
    #[test]
    fn writing_to_an_exited_child_is_an_error_not_a_signal() {
        let mut p = ChildProcess::start("true", Limits::ENGINE).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let big = "x".repeat(1 << 17);
        let mut failed = false;
        for _ in 0..4 {
            failed |= p.send(&big).is_err();
        }
        assert!(failed, "a write to a dead child must fail");
        assert!(matches!(p.recv(None), Err(ProcessError::Exited { .. })));
    }

    #[cfg(unix)]
    #[test]
    fn an_exit_is_noticed_while_a_grandchild_holds_stdout() {
        let mut p = ChildProcess::start("sh -c 'sleep 30 & exit 3'", Limits::ENGINE).unwrap();
        let t0 = Instant::now();
        let e = p.recv(None).unwrap_err();
        assert!(matches!(e, ProcessError::Exited { .. }), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
}
