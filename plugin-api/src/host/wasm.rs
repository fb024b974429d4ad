//! WebAssembly plugins: a kit variant built for `wasm32-unknown-unknown`,
//! loaded from a `.wasm` file and run by wasmtime. Each game (with every
//! state cloned or sampled from it) lives in a sandbox of its own, a module
//! instance that imports nothing: no files, network, clock or randomness. Every
//! call runs under a time limit (wasmtime's epoch interruption) and the
//! instance under a memory cap; a loop, a memory bomb or a trap faults that
//! game's sandbox (the game is voided, the plugin blamed) and never the host.
//!
//! The states behind the host's [`Game`](super::Game) are the same ABI
//! objects a native plugin gives, so nothing above this module knows which
//! kind of plugin it drives. The interface the module exports is described in
//! `kit::wasm` (built for wasm32 only).

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use abi_stable::sabi_trait::TD_CanDowncast;
use abi_stable::std_types::{RErr, RNone, ROk, ROption, RResult, RSome, RStr, RString, RVec};
use wasmtime::{Engine, Instance, InstancePre, Linker, Memory, Module, ResourceLimiter, Store, Trap, TypedFunc};

use super::{LoadError, PluginKind, PluginMeta};
use crate::abi::{
    GameState, GameStateBox, GameState_TO, RawError, RawObservation, RawOutcome, RawStatus, RawViewer, VariantFactory,
    VariantFactoryBox, VariantFactory_TO,
};
use crate::{Error, ErrorKind, Viewer};

/// The interface version this host speaks (`kit::wasm::INTERFACE_VERSION`).
const INTERFACE_VERSION: i32 = 1;

/// How often the engine's epoch advances: the granularity of the time limit.
const TICK: Duration = Duration::from_millis(10);

/// What one sandbox may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest one call may run (perft excepted: see [`Limits::perft`]).
    pub call: Duration,
    /// The longest one perft call may run: counts go deep on purpose.
    pub perft: Duration,
    /// The most linear memory one sandbox may grow to, in bytes.
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { call: Duration::from_secs(10), perft: Duration::from_secs(600), memory: 512 << 20 }
    }
}

/// Environment variable setting [`Limits::call`] in milliseconds.
pub const CALL_LIMIT_ENV: &str = "ARBITER_WASM_CALL_MS";
/// Environment variable setting [`Limits::memory`] in MiB.
pub const MEMORY_LIMIT_ENV: &str = "ARBITER_WASM_MEMORY_MB";
/// Environment variable naming the folder of compiled modules (default: the
/// user's cache folder, `arbiter/wasm` in it); empty for no cache.
pub const CACHE_ENV: &str = "ARBITER_WASM_CACHE";

impl Limits {
    /// The defaults, with [`CALL_LIMIT_ENV`] and [`MEMORY_LIMIT_ENV`] applied.
    pub fn from_env() -> Limits {
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok());
        let mut limits = Limits::default();
        if let Some(ms) = number(CALL_LIMIT_ENV) {
            limits.call = Duration::from_millis(ms.max(1));
        }
        if let Some(mb) = number(MEMORY_LIMIT_ENV) {
            limits.memory = (mb.max(1) as usize) << 20;
        }
        limits
    }

    fn ticks(d: Duration) -> u64 {
        (d.as_millis() / TICK.as_millis()).max(1) as u64
    }
}

/// The one engine of the process, its epoch advanced by a ticker thread.
fn engine() -> Result<&'static Engine, String> {
    static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            let mut config = wasmtime::Config::new();
            config.epoch_interruption(true);
            config.cranelift_opt_level(wasmtime::OptLevel::Speed);
            let engine = Engine::new(&config).map_err(|e| format!("cannot start the WebAssembly engine: {e}"))?;
            let ticking = engine.clone();
            std::thread::Builder::new()
                .name("arbiter-wasm-epoch".into())
                .spawn(move || loop {
                    std::thread::sleep(TICK);
                    ticking.increment_epoch();
                })
                .map_err(|e| format!("cannot start the WebAssembly time limit's thread: {e}"))?;
            Ok(engine)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Where a queue worker keeps the WebAssembly plugins it fetched from a
/// store: `fetched/` in the cache folder (or in the system's temporary
/// folder when the cache is off).
pub fn fetch_dir() -> PathBuf {
    cache_dir().unwrap_or_else(|| std::env::temp_dir().join("arbiter-wasm")).join("fetched")
}

/// The folder compiled modules are kept in, if any.
fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_ENV) {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|c| c.join("arbiter").join("wasm")),
    }
}

/// The module in `bytes`, compiled, or read from the cache where an earlier
/// load compiled it with this very engine (the key hashes both).
pub fn compile(engine: &Engine, bytes: &[u8]) -> Result<Module, String> {
    use sha2::Digest;
    let mut engine_hash = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut engine_hash);
    let key = format!("{:x}-{:016x}.cwasm", sha2::Sha256::digest(bytes), engine_hash.finish());
    let cached = cache_dir().map(|d| d.join(key));
    through_cache(engine, cached.as_deref(), || {
        Module::from_binary(engine, bytes).map_err(|e| format!("not a valid WebAssembly module ({e})"))
    })
}

/// The module in the cache file `cached`, or `compile`d and written there.
/// Processes that load one module at once (a tournament's workers starting)
/// compile it once: each takes the file's lock first, and the others then
/// find the compiled module in the cache.
fn through_cache(
    engine: &Engine,
    cached: Option<&Path>,
    compile: impl FnOnce() -> Result<Module, String>,
) -> Result<Module, String> {
    if let Some(module) = cached.and_then(|file| from_cache(engine, file)) {
        return Ok(module);
    }
    // Held until the compiled module is in the cache. Without a lock (a
    // cache folder that cannot be written, a file system without locks),
    // this process compiles on its own, as it would without a cache.
    let _lock = cached.and_then(KeyLock::take);
    if let Some(module) = cached.and_then(|file| from_cache(engine, file)) {
        return Ok(module);
    }
    let module = compile()?;
    if let (Some(file), Ok(compiled)) = (cached, module.serialize()) {
        // A cache that cannot be written only costs the next load a compile.
        let temp = file.with_extension(format!("tmp{}", std::process::id()));
        let written = file.parent().map(std::fs::create_dir_all).transpose().is_ok()
            && std::fs::write(&temp, compiled).is_ok()
            && std::fs::rename(&temp, file).is_ok();
        if !written {
            let _ = std::fs::remove_file(&temp);
        }
    }
    Ok(module)
}

/// The compiled module in the cache file `file`, if it holds one this engine can run.
fn from_cache(engine: &Engine, file: &Path) -> Option<Module> {
    // SAFETY: the file is one this host wrote (in `compile`) into the user's
    // own cache folder, under the hash of the module and of this engine's
    // settings; wasmtime checks its header and engine compatibility.
    file.is_file().then(|| unsafe { Module::deserialize_file(engine, file) }.ok()).flatten()
}

/// A cache key's lock, held: its file (`KEY.lock` beside the cache file) is
/// removed, then unlocked, when this is dropped. A process still waiting on
/// the removed file then finds the compiled module in the cache, and one
/// that comes later finds the cache file before it looks for a lock.
struct KeyLock {
    _file: std::fs::File,
    path: PathBuf,
}

impl KeyLock {
    /// The lock of the cache file `file`, waited for.
    fn take(file: &Path) -> Option<KeyLock> {
        std::fs::create_dir_all(file.parent()?).ok()?;
        let path = file.with_extension("lock");
        let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).ok()?;
        lock.lock().ok()?;
        Some(KeyLock { _file: lock, path })
    }
}

impl Drop for KeyLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A loaded `.wasm` plugin: its compiled module, ready to instantiate.
pub struct WasmPlugin {
    name: String,
    pre: InstancePre<Sandboxed>,
    limits: Limits,
    /// Each variant's id and info card, in the module's order.
    cards: Vec<(String, String)>,
}

/// What a sandbox's store holds: its memory cap and what it refused.
struct Sandboxed {
    cap: usize,
    /// Whether a memory growth beyond the cap was refused.
    refused: bool,
}

impl ResourceLimiter for Sandboxed {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let allowed = desired <= self.cap;
        self.refused |= !allowed;
        Ok(allowed)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }
}

/// The plugin's description, as `arbiter_describe` gives it.
#[derive(serde::Deserialize)]
struct Description {
    name: String,
    version: String,
    api_version: String,
    #[serde(default)]
    metadata: serde_json::Value,
    variants: Vec<serde_json::Value>,
}

impl WasmPlugin {
    /// Loads the module at `path`: compiles it (or reads it from the cache),
    /// refuses one that imports anything or lacks the interface, and reads its
    /// description in a first sandbox.
    pub fn load(path: &Path, limits: &Limits) -> Result<(PluginMeta, WasmPlugin), LoadError> {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let path = absolute.as_path();
        let fail = |detail: String| LoadError::Failed { path: path.to_path_buf(), detail };
        let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        if !bytes.starts_with(b"\0asm") {
            return Err(fail("not a WebAssembly module (it has no WebAssembly header)".into()));
        }
        let engine = engine().map_err(fail)?;
        let module = compile(engine, &bytes).map_err(fail)?;
        if let Some(import) = module.imports().next() {
            return Err(fail(format!(
                "imports {}.{}, which arbiter does not provide (a plugin imports nothing: build it for \
                 wasm32-unknown-unknown with the kit's export_plugin!)",
                import.module(),
                import.name()
            )));
        }
        if module.get_export("arbiter_interface").is_none() {
            return Err(LoadError::NotAPlugin { path: path.to_path_buf() });
        }
        let pre = Linker::new(engine).instantiate_pre(&module).map_err(|e| fail(e.to_string()))?;
        let mut plugin = WasmPlugin { name: file_stem(path), pre, limits: *limits, cards: Vec::new() };
        let mut sandbox = Sandbox::new(&plugin).map_err(|e| fail(e.message))?;
        let describe = sandbox.text("describe", |s| s.exports.describe.call(&mut s.store, ()));
        let description: Description = describe
            .and_then(|json| {
                serde_json::from_str(&json).map_err(|e| Error::unsupported(format!("malformed description: {e}")))
            })
            .map_err(|e| fail(e.message))?;
        if !super::same_api_line(&description.api_version, crate::API_VERSION) {
            return Err(LoadError::ApiMismatch {
                path: path.to_path_buf(),
                plugin: description.api_version,
                host: crate::API_VERSION.to_string(),
            });
        }
        plugin.name = description.name.clone();
        plugin.cards = description
            .variants
            .iter()
            .map(|card| (card["id"].as_str().unwrap_or_default().to_string(), card.to_string()))
            .collect();
        let meta = PluginMeta {
            path: path.to_path_buf(),
            kind: PluginKind::Wasm,
            name: description.name,
            version: description.version,
            api_version: crate::API_VERSION.to_string(),
            metadata: description.metadata,
        };
        Ok((meta, plugin))
    }

    /// A factory per variant of the plugin.
    pub(super) fn factories(plugin: &Arc<WasmPlugin>) -> Vec<VariantFactoryBox> {
        (0..plugin.cards.len())
            .map(|index| VariantFactory_TO::from_value(Factory { plugin: plugin.clone(), index }, TD_CanDowncast))
            .collect()
    }
}

fn file_stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The module's exports, typed once per sandbox.
struct Exports {
    init: TypedFunc<(), i32>,
    describe: TypedFunc<(), i64>,
    input: TypedFunc<i32, i32>,
    output: TypedFunc<(), i64>,
    panic_message: TypedFunc<(), i64>,
    number: TypedFunc<(), i64>,
    new_game: TypedFunc<(i32, i32), i32>,
    from_position: TypedFunc<(i32, i32, i32), i32>,
    clone: TypedFunc<i32, i32>,
    drop: TypedFunc<i32, ()>,
    copy_from: TypedFunc<(i32, i32), i32>,
    to_move: TypedFunc<i32, i32>,
    status: TypedFunc<i32, i64>,
    status_text: TypedFunc<i32, i64>,
    legal_moves: TypedFunc<i32, i64>,
    apply: TypedFunc<(i32, i64), i32>,
    perft: TypedFunc<(i32, i32), i64>,
    move_text: TypedFunc<(i32, i64, i32), i64>,
    parse_move: TypedFunc<(i32, i32), i32>,
    position_text: TypedFunc<i32, i64>,
    observe: TypedFunc<(i32, i32), i64>,
    sample_world: TypedFunc<(i32, i32, i64), i32>,
    evaluate: TypedFunc<(i32, i32), f64>,
    can_win: TypedFunc<(i32, i32), i32>,
    call_json: TypedFunc<(i32, i32, i32), i64>,
}

impl Exports {
    fn of(instance: &Instance, store: &mut Store<Sandboxed>) -> wasmtime::Result<Exports> {
        macro_rules! get {
            ($name:literal) => {
                instance.get_typed_func(&mut *store, $name)?
            };
        }
        let interface: TypedFunc<(), i32> = get!("arbiter_interface");
        let version = interface.call(&mut *store, ())?;
        if version != INTERFACE_VERSION {
            wasmtime::bail!("speaks the WebAssembly plugin interface {version}, this arbiter {INTERFACE_VERSION}");
        }
        Ok(Exports {
            init: get!("arbiter_init"),
            describe: get!("arbiter_describe"),
            input: get!("arbiter_input"),
            output: get!("arbiter_output"),
            panic_message: get!("arbiter_panic_message"),
            number: get!("arbiter_number"),
            new_game: get!("arbiter_new_game"),
            from_position: get!("arbiter_from_position"),
            clone: get!("arbiter_clone"),
            drop: get!("arbiter_drop"),
            copy_from: get!("arbiter_copy_from"),
            to_move: get!("arbiter_to_move"),
            status: get!("arbiter_status"),
            status_text: get!("arbiter_status_text"),
            legal_moves: get!("arbiter_legal_moves"),
            apply: get!("arbiter_apply"),
            perft: get!("arbiter_perft"),
            move_text: get!("arbiter_move_text"),
            parse_move: get!("arbiter_parse_move"),
            position_text: get!("arbiter_position_text"),
            observe: get!("arbiter_observe"),
            sample_world: get!("arbiter_sample_world"),
            evaluate: get!("arbiter_evaluate"),
            can_win: get!("arbiter_can_win"),
            call_json: get!("arbiter_call_json"),
        })
    }
}

/// One module instance: a game and every state cloned or sampled from it.
struct Sandbox {
    store: Store<Sandboxed>,
    memory: Memory,
    exports: Exports,
    plugin_name: String,
    limits: Limits,
    /// Why the sandbox is no longer used (a trap), once it is not.
    faulted: Option<String>,
}

impl Sandbox {
    /// A new instance of `plugin`, its variants built.
    fn new(plugin: &WasmPlugin) -> Result<Sandbox, Error> {
        let engine = plugin.pre.module().engine();
        let mut store = Store::new(engine, Sandboxed { cap: plugin.limits.memory, refused: false });
        store.limiter(|s| s as &mut dyn ResourceLimiter);
        store.set_epoch_deadline(Limits::ticks(plugin.limits.call));
        store.epoch_deadline_trap();
        let started = (|| {
            let instance = plugin.pre.instantiate(&mut store)?;
            let memory =
                instance.get_memory(&mut store, "memory").ok_or_else(|| wasmtime::format_err!("exports no memory"))?;
            let exports = Exports::of(&instance, &mut store)?;
            Ok::<_, wasmtime::Error>((memory, exports))
        })();
        let (memory, exports) = started.map_err(|e| {
            Error::new(
                ErrorKind::Unsupported,
                format!("plugin {} cannot start: {}", plugin.name, super::first_line(&e.to_string())),
            )
        })?;
        let mut sandbox =
            Sandbox { store, memory, exports, plugin_name: plugin.name.clone(), limits: plugin.limits, faulted: None };
        sandbox.call("init", |s| s.exports.init.call(&mut s.store, ()))?;
        Ok(sandbox)
    }

    /// Runs one export under the time limit; a trap faults the sandbox and
    /// becomes an error naming the plugin and the call.
    fn call<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> wasmtime::Result<T>) -> Result<T, Error> {
        self.call_within(name, self.limits.call, f)
    }

    fn call_within<T>(
        &mut self,
        name: &str,
        limit: Duration,
        f: impl FnOnce(&mut Self) -> wasmtime::Result<T>,
    ) -> Result<T, Error> {
        if let Some(why) = &self.faulted {
            return Err(Error::new(ErrorKind::Faulted, format!("the game's sandbox faulted earlier: {why}")));
        }
        self.store.set_epoch_deadline(Limits::ticks(limit));
        match f(self) {
            Ok(v) => Ok(v),
            Err(e) => {
                let message = self.trap_message(name, &e, limit);
                self.faulted = Some(message.clone());
                Err(Error::new(ErrorKind::Panic, message))
            }
        }
    }

    /// What a failed call did, in one line naming the plugin and the call: a
    /// panic with its own message when the plugin left one, else the limit
    /// it broke or the trap.
    fn trap_message(&mut self, call: &str, e: &wasmtime::Error, limit: Duration) -> String {
        let name = &self.plugin_name;
        let trap = e.downcast_ref::<Trap>().copied();
        if trap == Some(Trap::Interrupt) {
            return format!("plugin {name} ran past its time limit of {} ms in {call}", limit.as_millis());
        }
        if self.store.data().refused {
            return format!("plugin {name} ran out of its memory limit of {} MiB in {call}", self.limits.memory >> 20);
        }
        if trap == Some(Trap::StackOverflow) {
            return format!("plugin {name} overflowed its stack in {call}");
        }
        let panic = self.exports.panic_message.call(&mut self.store, ()).ok().and_then(|packed| self.read(packed).ok());
        let name = &self.plugin_name;
        match panic {
            Some(message) if !message.is_empty() => {
                crate::one_line(&format!("plugin {name} panicked in {call}: {message}"))
            }
            _ => format!("plugin {name} trapped in {call} ({})", e.root_cause()),
        }
    }

    /// The bytes a packed pointer and length name in the module's memory.
    fn read_bytes(&self, packed: i64) -> Result<&[u8], Error> {
        let (ptr, len) = ((packed as u64 >> 32) as usize, (packed as u64 & 0xffff_ffff) as usize);
        self.memory
            .data(&self.store)
            .get(ptr..ptr.saturating_add(len))
            .ok_or_else(|| Error::unsupported(format!("plugin {} returned bytes outside its memory", self.plugin_name)))
    }

    fn read(&self, packed: i64) -> Result<String, Error> {
        self.read_bytes(packed).map(|b| String::from_utf8_lossy(b).into_owned())
    }

    /// The error a negative return stands for, its message from the output buffer.
    fn error(&mut self, code: i64) -> Error {
        let message = self.exports.output.call(&mut self.store, ()).ok().and_then(|p| self.read(p).ok());
        Error::from_code((-code).clamp(0, 255) as u8, &message.unwrap_or_default())
    }

    /// Writes `texts` one after the other into the input buffer.
    fn input(&mut self, texts: &[&str]) -> Result<(), Error> {
        let len: usize = texts.iter().map(|t| t.len()).sum();
        let len32 = i32::try_from(len).map_err(|_| Error::unsupported("input too large for a WebAssembly plugin"))?;
        let ptr = self.call("input", |s| s.exports.input.call(&mut s.store, len32))? as u32 as usize;
        let mut at = ptr;
        for t in texts {
            self.memory.write(&mut self.store, at, t.as_bytes()).map_err(|_| {
                Error::unsupported(format!("plugin {} gave an input buffer outside its memory", self.plugin_name))
            })?;
            at += t.len();
        }
        Ok(())
    }

    /// A call that returns a packed text or an error class.
    fn text(&mut self, name: &str, f: impl FnOnce(&mut Self) -> wasmtime::Result<i64>) -> Result<String, Error> {
        let packed = self.call(name, f)?;
        if packed < 0 {
            return Err(self.error(packed));
        }
        self.read(packed)
    }

    /// A call that returns a state's handle or an error class.
    fn handle(&mut self, name: &str, f: impl FnOnce(&mut Self) -> wasmtime::Result<i32>) -> Result<i32, Error> {
        let h = self.call(name, f)?;
        if h < 0 {
            return Err(self.error(h.into()));
        }
        Ok(h)
    }

    /// A call that returns 0 or an error class.
    fn done(&mut self, name: &str, f: impl FnOnce(&mut Self) -> wasmtime::Result<i32>) -> Result<(), Error> {
        let code = self.call(name, f)?;
        if code < 0 {
            return Err(self.error(code.into()));
        }
        Ok(())
    }
}

/// A sandbox shared by the states that live in it.
type Shared = Arc<Mutex<Sandbox>>;

fn lock(sandbox: &Shared) -> MutexGuard<'_, Sandbox> {
    sandbox.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A variant of a `.wasm` plugin: each new game gets a new sandbox.
struct Factory {
    plugin: Arc<WasmPlugin>,
    index: usize,
}

impl Factory {
    fn start(&self, make: impl FnOnce(&mut Sandbox) -> Result<i32, Error>) -> Result<GameStateBox, Error> {
        let mut sandbox = Sandbox::new(&self.plugin)?;
        let handle = make(&mut sandbox)?;
        Ok(State::boxed(Arc::new(Mutex::new(sandbox)), handle))
    }
}

fn raw<T, U>(r: Result<T, Error>, f: impl FnOnce(T) -> U) -> RResult<U, RawError> {
    match r {
        Ok(v) => ROk(f(v)),
        Err(e) => RErr(e.to_raw()),
    }
}

impl VariantFactory for Factory {
    fn id(&self) -> RString {
        self.plugin.cards[self.index].0.as_str().into()
    }

    fn info_json(&self) -> RString {
        self.plugin.cards[self.index].1.as_str().into()
    }

    fn new_game(&self, options_json: RStr<'_>) -> RResult<GameStateBox, RawError> {
        let index = self.index as i32;
        raw(
            self.start(|s| {
                s.input(&[options_json.as_str()])?;
                let len = options_json.len() as i32;
                s.handle("new_game", |s| s.exports.new_game.call(&mut s.store, (index, len)))
            }),
            |g| g,
        )
    }

    fn from_position(&self, text: RStr<'_>, options_json: RStr<'_>) -> RResult<GameStateBox, RawError> {
        let index = self.index as i32;
        raw(
            self.start(|s| {
                s.input(&[text.as_str(), options_json.as_str()])?;
                let lens = (text.len() as i32, options_json.len() as i32);
                s.handle("from_position", |s| s.exports.from_position.call(&mut s.store, (index, lens.0, lens.1)))
            }),
            |g| g,
        )
    }
}

/// One game state: a handle into a sandbox.
struct State {
    sandbox: Shared,
    /// The module's handle; negative for a state whose clone failed.
    handle: i32,
}

impl State {
    fn boxed(sandbox: Shared, handle: i32) -> GameStateBox {
        GameState_TO::from_value(State { sandbox, handle }, TD_CanDowncast)
    }

    fn with<T>(&self, f: impl FnOnce(&mut Sandbox, i32) -> Result<T, Error>) -> Result<T, Error> {
        if self.handle < 0 {
            return Err(Error::new(ErrorKind::Faulted, "the game state faulted when it was copied"));
        }
        f(&mut lock(&self.sandbox), self.handle)
    }
}

impl Clone for State {
    fn clone(&self) -> Self {
        // The ABI's clone cannot fail: a failed one gives a faulted state.
        let handle = self.with(|s, h| s.handle("clone", |s| s.exports.clone.call(&mut s.store, h))).unwrap_or(-1);
        State { sandbox: self.sandbox.clone(), handle }
    }
}

impl Drop for State {
    fn drop(&mut self) {
        if self.handle >= 0 {
            let mut s = lock(&self.sandbox);
            if s.faulted.is_none() {
                let h = self.handle;
                let _ = s.call("drop", |s| s.exports.drop.call(&mut s.store, h));
            }
        }
    }
}

/// Reason and claimable-draw texts as `'static` strings, as the ABI's status
/// carries them: each distinct text is kept once for the life of the process,
/// up to a bound a plugin cannot push memory past.
fn interned(text: &str) -> &'static str {
    static TEXTS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut texts = TEXTS.lock().unwrap_or_else(|p| p.into_inner());
    let texts = texts.get_or_insert_with(HashSet::new);
    if let Some(kept) = texts.get(text) {
        return kept;
    }
    if texts.len() >= 4096 {
        return "(a plugin gave too many distinct reasons)";
    }
    let kept: &'static str = Box::leak(text.to_string().into_boxed_str());
    texts.insert(kept);
    kept
}

const FAULTED: RawStatus = RawStatus {
    outcome: RawOutcome::FAULTED,
    winner: 0,
    reason: RStr::from_str("plugin faulted"),
    claimable: RStr::from_str(""),
};

impl GameState for State {
    fn to_move(&self) -> u32 {
        self.with(|s, h| s.call("to_move", |s| s.exports.to_move.call(&mut s.store, h))).map_or(0, |p| p as u32)
    }

    fn status(&self) -> RawStatus {
        let r = self.with(|s, h| {
            let packed = s.call("status", |s| s.exports.status.call(&mut s.store, h))?;
            let (outcome, winner) = (RawOutcome((packed & 0xff) as u8), ((packed >> 8) & 0xffff_ffff) as u32);
            let (mut reason, mut claimable) = ("", "");
            if packed >> 40 & 1 == 1 {
                let texts = s.text("status", |s| s.exports.status_text.call(&mut s.store, h))?;
                let (r, c) = texts.split_once('\0').unwrap_or((&texts, ""));
                (reason, claimable) = (interned(r), interned(c));
            }
            Ok(RawStatus { outcome, winner, reason: RStr::from_str(reason), claimable: RStr::from_str(claimable) })
        });
        r.unwrap_or(FAULTED)
    }

    fn legal_moves_into(&self, out: &mut RVec<u64>) -> RResult<(), RawError> {
        out.clear();
        let r = self.with(|s, h| {
            let packed = s.call("legal_moves", |s| s.exports.legal_moves.call(&mut s.store, h))?;
            if packed < 0 {
                return Err(s.error(packed));
            }
            let bytes = s.read_bytes(packed)?;
            out.extend(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8"))));
            Ok(())
        });
        raw(r, |_| ())
    }

    fn apply(&mut self, mv: u64) -> RResult<(), RawError> {
        raw(self.with(|s, h| s.done("apply", |s| s.exports.apply.call(&mut s.store, (h, mv as i64)))), |_| ())
    }

    fn copy_from(&mut self, other: &GameStateBox) -> RResult<(), RawError> {
        let Ok(other) = other.obj.downcast_as::<State>() else {
            return RErr(Error::unsupported("copy_from: the other state belongs to another kind of plugin").to_raw());
        };
        if !Arc::ptr_eq(&self.sandbox, &other.sandbox) || self.handle < 0 {
            // States of two games live in two sandboxes: take a copy of the
            // other's in its own.
            *self = other.clone();
            return if self.handle < 0 {
                RErr(Error::new(ErrorKind::Faulted, "copy_from: the other state could not be copied").to_raw())
            } else {
                ROk(())
            };
        }
        let src = other.handle;
        raw(self.with(|s, h| s.done("copy_from", |s| s.exports.copy_from.call(&mut s.store, (h, src)))), |_| ())
    }

    fn perft(&self, depth: u32) -> RResult<u64, RawError> {
        let r = self.with(|s, h| {
            let limit = s.limits.perft.max(s.limits.call);
            let n = s.call_within("perft", limit, |s| s.exports.perft.call(&mut s.store, (h, depth as i32)))?;
            if n < 0 {
                return Err(s.error(n));
            }
            Ok(n as u64)
        });
        raw(r, |n| n)
    }

    fn move_to_text(&self, mv: u64, viewer: RawViewer) -> RResult<RString, RawError> {
        let viewer = Viewer::from_raw(viewer).code() as i32;
        let r = self
            .with(|s, h| s.text("move_to_text", |s| s.exports.move_text.call(&mut s.store, (h, mv as i64, viewer))));
        raw(r, RString::from)
    }

    fn parse_move(&self, text: RStr<'_>) -> RResult<u64, RawError> {
        let r = self.with(|s, h| {
            s.input(&[text.as_str()])?;
            let len = text.len() as i32;
            s.done("parse_move", |s| s.exports.parse_move.call(&mut s.store, (h, len)))?;
            s.call("parse_move", |s| s.exports.number.call(&mut s.store, ())).map(|n| n as u64)
        });
        raw(r, |m| m)
    }

    fn position_text(&self) -> RString {
        self.with(|s, h| s.text("position_text", |s| s.exports.position_text.call(&mut s.store, h)))
            .unwrap_or_default()
            .into()
    }

    fn observe(&self, viewer: RawViewer) -> RResult<RawObservation, RawError> {
        let viewer = Viewer::from_raw(viewer).code() as i32;
        let r = self.with(|s, h| {
            let packed = s.call("observe", |s| s.exports.observe.call(&mut s.store, (h, viewer)))?;
            if packed < 0 {
                return Err(s.error(packed));
            }
            let bytes = s.read_bytes(packed)?;
            let malformed = || Error::unsupported("observe: malformed answer from the plugin");
            let text_len =
                u32::from_le_bytes(bytes.get(..4).ok_or_else(malformed)?.try_into().expect("4 bytes")) as usize;
            let text = bytes.get(4..4 + text_len).ok_or_else(malformed)?;
            let json = &bytes[4 + text_len..];
            Ok(RawObservation {
                text: String::from_utf8_lossy(text).into_owned().into(),
                json: String::from_utf8_lossy(json).into_owned().into(),
            })
        });
        raw(r, |o| o)
    }

    fn sample_world(&self, viewer: RawViewer, seed: u64) -> RResult<GameStateBox, RawError> {
        let viewer = Viewer::from_raw(viewer).code() as i32;
        let r = self.with(|s, h| {
            s.handle("sample_world", |s| s.exports.sample_world.call(&mut s.store, (h, viewer, seed as i64)))
        });
        raw(r, |handle| State::boxed(self.sandbox.clone(), handle))
    }

    fn evaluate(&self, player: u32) -> ROption<f64> {
        match self.with(|s, h| s.call("evaluate", |s| s.exports.evaluate.call(&mut s.store, (h, player as i32)))) {
            Ok(v) if !v.is_nan() => RSome(v),
            _ => RNone,
        }
    }

    fn can_win(&self, player: u32) -> bool {
        // A failed call cannot say no: a flag fall is then not made a draw.
        self.with(|s, h| s.call("can_win", |s| s.exports.can_win.call(&mut s.store, (h, player as i32)))) != Ok(0)
    }

    fn call_json(&mut self, method: RStr<'_>, args_json: RStr<'_>) -> RResult<RString, RawError> {
        let r = self.with(|s, h| {
            s.input(&[method.as_str(), args_json.as_str()])?;
            let lens = (method.len() as i32, args_json.len() as i32);
            s.text("call_json", |s| s.exports.call_json.call(&mut s.store, (h, lens.0, lens.1)))
        });
        raw(r, RString::from)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn two_loads_of_one_module_at_once_compile_it_once_and_leave_no_lock_file() {
        let engine = engine().unwrap();
        let dir = std::env::temp_dir().join(format!("arbiter-api-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = dir.join("key.cwasm");
        let compiles = AtomicUsize::new(0);
        let load = || {
            through_cache(engine, Some(&file), || {
                compiles.fetch_add(1, Ordering::SeqCst);
                // Long enough for the other load to be waiting on the lock.
                std::thread::sleep(Duration::from_millis(300));
                Module::from_binary(engine, b"\0asm\x01\0\0\0").map_err(|e| e.to_string())
            })
        };
        let (a, b) = std::thread::scope(|s| {
            let first = s.spawn(load);
            let second = s.spawn(load);
            (first.join().unwrap(), second.join().unwrap())
        });
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(a.is_ok() && b.is_ok());
        assert_eq!(compiles.load(Ordering::SeqCst), 1);
        assert_eq!(left, vec![std::ffi::OsString::from("key.cwasm")]);
    }
}
