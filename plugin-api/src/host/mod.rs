//! The host's safe view of plugins: load a library, list its variants, start
//! games and drive them, all with plain Rust types. Load failures become one
//! clear [`LoadError`] line instead of abi_stable's layout dumps. With feature
//! `wasm`, a `.wasm` file loads as a sandboxed plugin ([`wasm`]) behind the
//! same [`VariantHandle`] and [`Game`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use abi_stable::library::{lib_header_from_path, LibraryError};
use abi_stable::std_types::{RResult, RStr, RString, RVec};

use crate::abi::{GameStateBox, PluginModule_Ref, VariantFactoryBox};
use crate::schema::{Observation, ObservationView, PieceSet, VariantInfo};
use crate::{Error, ErrorKind, Status, Viewer};

mod calls;
mod elf;
#[cfg(feature = "wasm")]
pub mod wasm;

use calls::{call, enter};
pub use calls::{CallWatch, InFlight};

/// Why a file could not be loaded as a plugin.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The dynamic loader refused the file.
    #[error("{path}: not a loadable shared library ({detail})")]
    NotALibrary {
        /// The file.
        path: PathBuf,
        /// The loader's own words.
        detail: String,
    },
    /// A shared library without arbiter's root module.
    #[error("{path}: not an arbiter plugin (it exports no arbiter root module)")]
    NotAPlugin {
        /// The file.
        path: PathBuf,
    },
    /// Built against another 0.y of arbiter-api.
    #[error("{path}: plugin built against arbiter-api {plugin}, this arbiter expects arbiter-api {host}; rebuild the plugin against arbiter-api {host}")]
    ApiMismatch {
        /// The file.
        path: PathBuf,
        /// The version the plugin was built against.
        plugin: String,
        /// The version this host was built against.
        host: String,
    },
    /// Same version number but incompatible type layouts.
    #[error("{path}: plugin's ABI layout does not match arbiter-api {host} ({detail}); rebuild the plugin against arbiter-api {host}")]
    LayoutMismatch {
        /// The file.
        path: PathBuf,
        /// The host's arbiter-api version.
        host: String,
        /// The first line of abi_stable's report.
        detail: String,
    },
    /// The plugin's own code failed while it was being initialised.
    #[error("{path}: {detail}")]
    Failed {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
}

impl LoadError {
    fn from_library(path: &Path, e: LibraryError) -> Self {
        let path = path.to_path_buf();
        let host = crate::API_VERSION.to_string();
        match e {
            LibraryError::OpenError { err, .. } => {
                LoadError::NotALibrary { path, detail: first_line(&err.to_string()) }
            }
            LibraryError::GetSymbolError { .. } => LoadError::NotAPlugin { path },
            LibraryError::IncompatibleVersionNumber { actual_version, .. } => {
                LoadError::ApiMismatch { path, plugin: actual_version.to_string(), host }
            }
            LibraryError::ParseVersionError(e) => LoadError::ApiMismatch { path, plugin: format!("{e:?}"), host },
            LibraryError::AbiInstability(e) => {
                LoadError::LayoutMismatch { path, host, detail: first_layout_difference(&e.to_string()) }
            }
            LibraryError::InvalidAbiHeader(_) | LibraryError::InvalidCAbi { .. } => LoadError::NotAPlugin { path },
            LibraryError::RootModule { err, .. } => LoadError::Failed { path, detail: first_line(&err.to_string()) },
            other => LoadError::Failed { path, detail: first_line(&other.to_string()) },
        }
    }
}

/// Whether two versions are on one compatible line: same major, and for 0.y
/// the same minor.
fn same_api_line(a: &str, b: &str) -> bool {
    let line = |v: &str| {
        let mut parts = v.split('.').map(|p| p.parse::<u64>().ok());
        let (major, minor) = (parts.next().flatten(), parts.next().flatten());
        if major == Some(0) {
            (major, minor)
        } else {
            (major, None)
        }
    };
    line(a) == line(b) && line(a).0.is_some()
}

/// The version in a plugin's plain `ARBITER_API_VERSION` symbol (see
/// `__private::ApiVersionSymbol`); `None` for a file without it (a plugin
/// older than the symbol, or no plugin at all: abi_stable's checks follow).
fn declared_api_version(path: &Path) -> Option<String> {
    // SAFETY: opening runs the library's initialisers, as loading it as a
    // plugin does anyway; the symbol, when present, is the 32-byte array
    // `export_plugin!` defines, read once while the library is open.
    unsafe {
        let lib = libloading::Library::new(path).ok()?;
        let symbol = lib.get::<*const crate::__private::ApiVersionSymbol>(b"ARBITER_API_VERSION\0").ok()?;
        let bytes: crate::__private::ApiVersionSymbol = **symbol;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        std::str::from_utf8(&bytes[..end]).ok().map(str::to_string)
    }
}

/// The first real difference in abi_stable's layout report (thousands of
/// lines, a header first): what differs, where, and the two values.
fn first_layout_difference(report: &str) -> String {
    let lines: Vec<&str> = report.lines().map(str::trim).collect();
    let Some(at) = lines.iter().position(|l| l.starts_with("Error:")) else { return first_line(report) };
    let what = lines[at].trim_start_matches("Error:").trim();
    let value = |label: &str| {
        let i = lines[at..].iter().position(|l| *l == label)?;
        lines.get(at + i + 1).map(|v| v.to_string())
    };
    // The types leading to it, from the report's innermost failing block.
    let block = lines[..at].iter().rposition(|l| l.ends_with("error(s)inside:") && !l.starts_with("0 "));
    let path: Vec<&str> = block
        .map(|b| {
            lines[b..at]
                .iter()
                .take_while(|l| !l.starts_with("Layout of"))
                .filter_map(|l| l.strip_prefix("type:"))
                .collect()
        })
        .unwrap_or_default();
    let mut out = what.to_string();
    if !path.is_empty() {
        out.push_str(&format!(" in {}", path.join(" > ")));
    }
    if let (Some(expected), Some(found)) = (value("Expected:"), value("Found:")) {
        out.push_str(&format!(": this arbiter has {expected}, the plugin {found}"));
    }
    out
}

fn first_line(s: &str) -> String {
    s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
}

/// How a plugin's code runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PluginKind {
    /// A shared library, run as the host's own code.
    Native,
    /// A WebAssembly module, each game in a sandbox of its own.
    Wasm,
}

impl std::fmt::Display for PluginKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PluginKind::Native => "native",
            PluginKind::Wasm => "wasm",
        })
    }
}

/// What the host knows of a loaded plugin file.
#[derive(Debug)]
pub struct PluginMeta {
    /// The file it was loaded from.
    pub path: PathBuf,
    /// How its code runs.
    pub kind: PluginKind,
    /// The plugin's crate name.
    pub name: String,
    /// The plugin's crate version.
    pub version: String,
    /// The arbiter-api version it was built against.
    pub api_version: String,
    /// Authors, licence, URL... as reported by the plugin.
    pub metadata: serde_json::Value,
}

/// A loaded plugin. Libraries are never unloaded.
pub struct Plugin {
    meta: Arc<PluginMeta>,
    code: Code,
}

/// A plugin's code, by kind.
enum Code {
    Native(PluginModule_Ref),
    #[cfg(feature = "wasm")]
    Wasm(Arc<wasm::WasmPlugin>),
}

/// Whether `path` names a WebAssembly plugin (by its `.wasm` extension).
pub fn is_wasm_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "wasm")
}

impl Plugin {
    /// Loads the plugin at `path`: a `.wasm` file as a sandboxed plugin (with
    /// feature `wasm`), anything else as a native library.
    pub fn load(path: &Path) -> Result<Plugin, LoadError> {
        if is_wasm_file(path) {
            #[cfg(feature = "wasm")]
            return wasm::WasmPlugin::load(path, &wasm::Limits::from_env())
                .map(|(meta, plugin)| Plugin { meta: Arc::new(meta), code: Code::Wasm(Arc::new(plugin)) });
            #[cfg(not(feature = "wasm"))]
            return Err(LoadError::Failed {
                path: path.to_path_buf(),
                detail: "this arbiter was built without WebAssembly plugins (feature `wasm`)".into(),
            });
        }
        Self::load_native(path)
    }

    /// Loads the native library at `path`, checking its arbiter-api version
    /// and the layout of every type that crosses the boundary, and installs
    /// the host's logging callback.
    fn load_native(path: &Path) -> Result<Plugin, LoadError> {
        // The dynamic loader searches its library path for a name without a
        // slash (`mychess.so`): name the file itself.
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let path = absolute.as_path();
        // A file cut short would map and then kill the process (SIGBUS).
        if let Some(detail) = elf::broken_library(path) {
            return Err(LoadError::NotALibrary { path: path.to_path_buf(), detail });
        }
        // Another version line is named as such, before abi_stable compares
        // layouts (which would report the difference as a layout mismatch).
        if let Some(declared) = declared_api_version(path) {
            if !same_api_line(&declared, crate::API_VERSION) {
                return Err(LoadError::ApiMismatch {
                    path: path.to_path_buf(),
                    plugin: declared,
                    host: crate::API_VERSION.to_string(),
                });
            }
        }
        // Not RootModule::load_from_file: it caches one module per type, so a
        // second plugin would silently return the first.
        let header = lib_header_from_path(path).map_err(|e| LoadError::from_library(path, e))?;
        let module = header.init_root_module::<PluginModule_Ref>().map_err(|e| LoadError::from_library(path, e))?;
        // abi_stable accepts a plugin built against a newer 0.y; arbiter's
        // policy is that the 0.y (or the major version from 1.0) must match.
        let api_version = module.api_version().to_string();
        if !same_api_line(&api_version, crate::API_VERSION) {
            return Err(LoadError::ApiMismatch {
                path: path.to_path_buf(),
                plugin: api_version,
                host: crate::API_VERSION.to_string(),
            });
        }
        (module.set_logger())(crate::log::host_sink());
        let metadata = serde_json::from_str((module.metadata_json())().as_str()).unwrap_or_default();
        let meta = PluginMeta {
            path: path.to_path_buf(),
            kind: PluginKind::Native,
            name: module.plugin_name().to_string(),
            version: module.plugin_version().to_string(),
            api_version,
            metadata,
        };
        Ok(Plugin { meta: Arc::new(meta), code: Code::Native(module) })
    }

    /// What the host knows of this plugin.
    pub fn meta(&self) -> &Arc<PluginMeta> {
        &self.meta
    }

    /// The variants this plugin exports, with their parsed info cards.
    pub fn variants(&self) -> Result<Vec<VariantHandle>, LoadError> {
        let fail = |detail: String| LoadError::Failed { path: self.meta.path.clone(), detail };
        let factories = match &self.code {
            Code::Native(module) => match (module.variants())() {
                RResult::ROk(v) => v.into_vec(),
                RResult::RErr(e) => return Err(fail(Error::from_raw(e).message)),
            },
            #[cfg(feature = "wasm")]
            Code::Wasm(plugin) => wasm::WasmPlugin::factories(plugin),
        };
        factories
            .into_iter()
            .map(|factory| {
                let (info, piece_sets) = parse_card(&factory).map_err(fail)?;
                Ok(VariantHandle {
                    factory: Arc::new(factory),
                    info: Arc::new(info),
                    piece_sets: Arc::new(piece_sets),
                    plugin: self.meta.clone(),
                })
            })
            .collect()
    }
}

/// A variant of a loaded plugin: its info card and a factory for games.
#[derive(Clone)]
pub struct VariantHandle {
    factory: Arc<VariantFactoryBox>,
    info: Arc<VariantInfo>,
    piece_sets: Arc<Vec<PieceSet>>,
    plugin: Arc<PluginMeta>,
}

/// The info card and piece sets of a factory's info JSON.
fn parse_card(factory: &VariantFactoryBox) -> Result<(VariantInfo, Vec<PieceSet>), String> {
    let json = factory.info_json();
    let info = serde_json::from_str(json.as_str())
        .map_err(|e| format!("variant {} has a malformed info card: {e}", factory.id()))?;
    #[derive(serde::Deserialize)]
    struct Sets {
        #[serde(default)]
        piece_sets: Vec<PieceSet>,
    }
    let sets: Sets = serde_json::from_str(json.as_str())
        .map_err(|e| format!("variant {} has malformed piece sets: {e}", factory.id()))?;
    Ok((info, sets.piece_sets))
}

impl VariantHandle {
    /// A kit [`crate::kit::Variant`] built into this process, without a
    /// plugin file: the same handle a loaded plugin gives (every call goes
    /// through the kit's adapter and its panic guard), for a plugin's own
    /// tests and the host's. `name` and `version` stand for the crate's.
    #[cfg(feature = "in-process")]
    pub fn in_process<V: crate::kit::Variant>(variant: V, name: &str, version: &str) -> Result<VariantHandle, Error> {
        let factory = crate::__private::factory(variant)?;
        let (info, piece_sets) = parse_card(&factory).map_err(|e| Error::new(ErrorKind::Unsupported, e))?;
        let plugin = PluginMeta {
            path: PathBuf::from(format!("(in process: {name})")),
            kind: PluginKind::Native,
            name: name.to_string(),
            version: version.to_string(),
            api_version: crate::API_VERSION.to_string(),
            metadata: serde_json::json!({ "name": name, "version": version }),
        };
        Ok(VariantHandle {
            factory: Arc::new(factory),
            info: Arc::new(info),
            piece_sets: Arc::new(piece_sets),
            plugin: Arc::new(plugin),
        })
    }

    /// The variant's info card.
    pub fn info(&self) -> &VariantInfo {
        &self.info
    }

    /// The glyph sets its pieces may be drawn with (the first is the default).
    pub fn piece_sets(&self) -> &[PieceSet] {
        &self.piece_sets
    }

    /// The plugin this variant comes from.
    pub fn plugin(&self) -> &PluginMeta {
        &self.plugin
    }

    /// A new game from the start; `options` is a JSON object (may be empty).
    pub fn new_game(&self, options: &serde_json::Map<String, serde_json::Value>) -> Result<Game, Error> {
        let json = serde_json::Value::Object(options.clone()).to_string();
        into_result(self.factory.new_game(RStr::from_str(&json))).map(Game::new)
    }

    /// A game from a position text in the variant's notation.
    pub fn from_position(
        &self,
        text: &str,
        options: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Game, Error> {
        let json = serde_json::Value::Object(options.clone()).to_string();
        into_result(self.factory.from_position(RStr::from_str(text), RStr::from_str(&json))).map(Game::new)
    }
}

fn into_result<T>(r: RResult<T, crate::abi::RawError>) -> Result<T, Error> {
    match r {
        RResult::ROk(v) => Ok(v),
        RResult::RErr(e) => Err(Error::from_raw(e)),
    }
}

/// A reusable buffer of move ids, filled by [`Game::legal_moves`].
#[derive(Default, Clone, Debug)]
pub struct MoveBuf(RVec<u64>);

impl MoveBuf {
    /// An empty buffer.
    pub fn new() -> Self {
        MoveBuf(RVec::with_capacity(64))
    }
}

impl std::ops::Deref for MoveBuf {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.0
    }
}

/// One game's true state, held by the host. Cloning clones the plugin's state.
#[derive(Clone)]
pub struct Game {
    state: GameStateBox,
}

impl Game {
    fn new(state: GameStateBox) -> Game {
        Game { state }
    }

    /// Index of the player to move.
    pub fn to_move(&self) -> u32 {
        self.state.to_move()
    }

    /// Outcome, reason and claimable draw.
    pub fn status(&self) -> Status {
        let _in = enter(call::STATUS);
        Status::from_raw(self.state.status())
    }

    /// Fills `out` with the legal moves of the player to move.
    pub fn legal_moves(&self, out: &mut MoveBuf) -> Result<(), Error> {
        let _in = enter(call::LEGAL_MOVES);
        into_result(self.state.legal_moves_into(&mut out.0))
    }

    /// The legal moves in a fresh vector (convenience for cold paths).
    pub fn legal_move_list(&self) -> Result<Vec<u64>, Error> {
        let mut buf = MoveBuf::new();
        self.legal_moves(&mut buf)?;
        Ok(buf.to_vec())
    }

    /// Plays a move; an illegal one is refused and changes nothing.
    pub fn apply(&mut self, mv: u64) -> Result<(), Error> {
        let _in = enter(call::APPLY);
        into_result(self.state.apply(mv))
    }

    /// Overwrites this state with `other`, reusing allocations.
    pub fn copy_from(&mut self, other: &Game) -> Result<(), Error> {
        let _in = enter(call::COPY_FROM);
        into_result(self.state.copy_from(&other.state))
    }

    /// Leaf count `depth` plies deep, computed inside the plugin.
    pub fn perft(&self, depth: u32) -> Result<u64, Error> {
        let _in = enter(call::PERFT);
        into_result(self.state.perft(depth))
    }

    /// The move as `viewer` may see it.
    pub fn move_text(&self, mv: u64, viewer: Viewer) -> Result<String, Error> {
        let _in = enter(call::MOVE_TO_TEXT);
        into_result(self.state.move_to_text(mv, viewer.to_raw())).map(|s| s.into_string())
    }

    /// Parses a move of the player to move.
    pub fn parse_move(&self, text: &str) -> Result<u64, Error> {
        let _in = enter(call::PARSE_MOVE);
        into_result(self.state.parse_move(RStr::from_str(text)))
    }

    /// The full position text (the referee's view).
    pub fn position_text(&self) -> String {
        let _in = enter(call::POSITION_TEXT);
        self.state.position_text().into_string()
    }

    /// What `viewer` may know of the game.
    pub fn observe(&self, viewer: Viewer) -> Result<Observation, Error> {
        let raw = into_result({
            let _in = enter(call::OBSERVE);
            self.state.observe(viewer.to_raw())
        })?;
        let view: ObservationView = serde_json::from_str(raw.json.as_str()).map_err(|e| {
            Error::new(ErrorKind::Unsupported, format!("observation JSON does not follow the schema: {e}"))
        })?;
        Ok(Observation { text: raw.text.into_string(), view })
    }

    /// A full state consistent with what `viewer` knows, drawn with `seed`.
    pub fn sample_world(&self, viewer: Viewer, seed: u64) -> Result<Game, Error> {
        let _in = enter(call::SAMPLE_WORLD);
        into_result(self.state.sample_world(viewer.to_raw(), seed)).map(Game::new)
    }

    /// A heuristic value in [-1, 1] for `player`, if the variant offers one.
    pub fn evaluate(&self, player: u32) -> Option<f64> {
        let _in = enter(call::EVALUATE);
        self.state.evaluate(player).into_option()
    }

    /// Whether `player` could still win by some series of legal moves.
    pub fn can_win(&self, player: u32) -> bool {
        self.state.can_win(player)
    }

    /// A rare or experimental call, JSON in and out.
    pub fn call_json(&mut self, method: &str, args: &serde_json::Value) -> Result<serde_json::Value, Error> {
        let out = self.call_json_text(method, &args.to_string())?;
        serde_json::from_str(out.as_str()).map_err(|e| Error::unsupported(format!("call_json result is not JSON: {e}")))
    }

    /// `mv` in engine coordinates (`e2e4`, `e7e8q`), from the variant's
    /// `uci_move` call, if it offers one. Asked every ply: the JSON is
    /// written and read as text, with no value built on this side.
    pub fn uci_move(&mut self, mv: u64) -> Option<String> {
        let out = self.call_json_text("uci_move", crate::move_call::MoveArgs::new(mv).as_str()).ok()?;
        crate::move_call::read_string_json(out.as_str())
    }

    fn call_json_text(&mut self, method: &str, args: &str) -> Result<RString, Error> {
        let _in = enter(call::CALL_JSON);
        into_result(self.state.call_json(RStr::from_str(method), RStr::from_str(args)))
    }
}
