//! The authoring kit: what a variant author implements. Plain Rust types only;
//! [`crate::export_plugin!`] wraps the implementations into the stable ABI,
//! running every call under `catch_unwind` so a panic in rules code becomes an
//! error naming the plugin and the call instead of aborting the host.
//!
//! The contract each method must keep is written next to it; `arbiter check`
//! is its executable form.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::{Map, Value};

use crate::schema::{Observation, PieceSet, VariantInfo};
pub use crate::{Error, ErrorKind, Outcome, Status, Viewer};

pub(crate) mod adapter;
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

/// One game of a variant: the true state, as the referee holds it.
///
/// Moves are `u64` ids that only the variant interprets; an id is valid only for
/// the state that produced it. A move too large for one id is split into a
/// sequence of moves by the same player (`to_move` stays the same).
pub trait Game: Clone + Send + Sync + 'static {
    /// Index of the player to move. Unspecified once the game is over.
    fn to_move(&self) -> u32;

    /// How the game stands. Automatic endings (mate, fivefold repetition) are
    /// outcomes; draws a player may claim go in `claimable`.
    fn status(&self) -> Status;

    /// Appends the legal moves of the player to move to `out` (which arrives
    /// empty). Must be empty exactly when `status()` is not ongoing, and may
    /// depend only on what the player to move knows.
    fn legal_moves(&self, out: &mut Vec<u64>);

    /// Whether `mv` is legal here. The default searches `legal_moves`.
    fn is_legal(&self, mv: u64) -> bool {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        moves.contains(&mv)
    }

    /// Plays `mv`, which the kit has checked with `is_legal`.
    fn play(&mut self, mv: u64);

    /// `mv` in the variant's notation as `viewer` may see it: never reveal what
    /// the viewer may not know. Only called with legal moves.
    fn move_text(&self, mv: u64, viewer: Viewer) -> String;

    /// Parses a move of the player to move. The default accepts exactly the
    /// texts `move_text` gives the player to move.
    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        let viewer = Viewer::Player(self.to_move());
        let text = text.trim();
        moves
            .into_iter()
            .find(|&m| self.move_text(m, viewer) == text)
            .ok_or_else(|| Error::illegal_move(format!("'{text}' is not a legal move here")))
    }

    /// The full state in the variant's position notation; `Variant::from_position`
    /// must accept it and give back an equal game.
    fn position_text(&self) -> String;

    /// What `viewer` may know of the game.
    fn observe(&self, viewer: Viewer) -> Observation;

    /// Counts the leaves `depth` plies deep. The default counts legal moves at
    /// the last ply instead of playing them (bulk counting).
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let mut child = self.clone();
                child.play(m);
                child.perft(depth - 1)
            })
            .sum()
    }

    /// A full state consistent with everything `viewer` knows, drawn with
    /// `seed`. Perfect-information games return a clone (the default). A
    /// hidden-information variant must override it and declare
    /// `capabilities.sample_world`: without the declaration the kit refuses
    /// the call (unsupported), so the truth never reaches a searching player.
    fn sample_world(&self, _viewer: Viewer, _seed: u64) -> Self {
        self.clone()
    }

    /// A heuristic value in [-1, 1] from `player`'s point of view, if offered.
    fn evaluate(&self, _player: u32) -> Option<f64> {
        None
    }

    /// Whether `player` could still win by some series of legal moves (a flag
    /// fall against a player who cannot win is a draw). Default: yes.
    fn can_win(&self, _player: u32) -> bool {
        true
    }

    /// The board cells a legal move touches, in order: origin first and
    /// destination last, one cell for a placement, none for a choice that
    /// belongs to no cell. Point-and-click interfaces build on it (through
    /// the `move_cells` call, see docs/ABI.md). Default: not offered.
    fn move_cells(&self, _mv: u64) -> Option<Vec<u32>> {
        None
    }

    /// Whether `mv` is a pass by the rules: a move that changes nothing but
    /// the player to move. `arbiter check` fails any other move that
    /// changes nothing the referee's observation shows. Default: none is.
    fn is_pass(&self, _mv: u64) -> bool {
        false
    }

    /// `mv` in the coordinates UCI and xboard engines read and write
    /// (`e2e4`, `e7e8q`, an ini variant's `P@e4`), for a variant engines
    /// play; hosts ask it every ply through the `uci_move` call (see
    /// docs/ABI.md), the kit having checked that `mv` is legal. Default:
    /// none (the call is then left to `call_json`).
    fn uci_move(&self, _mv: u64) -> Option<String> {
        None
    }

    /// Rare or experimental calls, JSON in and out. Default: unsupported.
    fn call_json(&mut self, method: &str, _args: &Value) -> Result<Value, Error> {
        Err(Error::unsupported(format!("unknown call '{method}'")))
    }
}

/// A variant: its info card and how to start a game.
pub trait Variant: Send + Sync + 'static {
    /// The game type this variant plays.
    type Game: Game;

    /// The info card: id, players, board, notation, options with defaults...
    fn info(&self) -> VariantInfo;

    /// A new game from the start. `options` is a JSON object holding every
    /// option of `info().options`, defaults filled in and types checked.
    fn new_game(&self, options: &Map<String, Value>) -> Result<Self::Game, Error>;

    /// A game from a position text. Errors name the field that is wrong.
    #[allow(clippy::wrong_self_convention)]
    fn from_position(&self, text: &str, options: &Map<String, Value>) -> Result<Self::Game, Error>;

    /// Glyph sets a board view may draw the pieces with (the first is the
    /// default). Default: none, pieces are drawn as their labels.
    fn piece_sets(&self) -> Vec<PieceSet> {
        Vec::new()
    }
}

/// Runs `f`, turning a panic into an error that names the plugin and `call`.
pub(crate) fn guard<T>(call: &str, f: impl FnOnce() -> T) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        Error::new(ErrorKind::Panic, format!("plugin {} panicked in {call}: {detail}", crate::__private::plugin_name()))
    })
}

/// Checks `given` against the variant's option specs and fills in defaults.
pub fn resolve_options(info: &VariantInfo, given: Map<String, Value>) -> Result<Map<String, Value>, Error> {
    for (name, value) in &given {
        let Some(spec) = info.options.iter().find(|o| &o.name == name) else {
            let known: Vec<&str> = info.options.iter().map(|o| o.name.as_str()).collect();
            return Err(Error::bad_options(format!(
                "unknown option '{name}' for variant {} (known: {})",
                info.id,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        };
        let ok = match spec.kind.as_str() {
            "bool" => value.is_boolean(),
            "int" => value.is_i64() || value.is_u64(),
            "choice" => value.as_str().is_some_and(|s| spec.choices.iter().any(|c| c == s)),
            _ => value.is_string(),
        };
        if !ok {
            let expected =
                if spec.kind == "choice" { format!("one of {}", spec.choices.join(", ")) } else { spec.kind.clone() };
            return Err(Error::bad_options(format!(
                "option '{name}' of variant {} must be {expected}, got {value}",
                info.id
            )));
        }
    }
    let mut all = given;
    for spec in &info.options {
        all.entry(spec.name.clone()).or_insert_with(|| spec.default.clone());
    }
    Ok(all)
}

/// Exports a plugin: builds the root module the host loads, from one or more
/// values implementing [`Variant`]. Use it once, at the crate root of a `cdylib`:
/// a native build exports the stable ABI's root module, a build for
/// `wasm32-unknown-unknown` the WebAssembly interface (see `kit::wasm`).
///
/// ```ignore
/// arbiter_api::export_plugin!(Chess::default());
/// ```
///
/// The plugin's name, version, authors, licence and repository come from its
/// Cargo.toml.
#[macro_export]
macro_rules! export_plugin {
    // A list of variants made at load time, all of one type (variants read
    // from files, say): `export_plugin!(list: my_crate::installed())`.
    (list: $variants:expr) => {
        $crate::export_plugin!(@root {
            $crate::__private::collect(::std::iter::IntoIterator::into_iter($variants).map($crate::__private::factory).collect())
        });
    };
    (@root $variants:block) => {
        #[cfg(not(target_arch = "wasm32"))]
        $crate::__native_exports!($variants);
        #[cfg(target_arch = "wasm32")]
        $crate::__wasm_exports!($variants);
    };
    ($($variant:expr),+ $(,)?) => {
        $crate::export_plugin!(@root {
            $crate::__private::collect(::std::vec![$($crate::__private::factory($variant)),+])
        });
    };
}

/// The native root module of [`export_plugin!`] (not for direct use).
#[doc(hidden)]
#[macro_export]
macro_rules! __native_exports {
    ($variants:block) => {
        /// The arbiter-api version this plugin was built against, read by the
        /// host before any layout check.
        #[no_mangle]
        pub static ARBITER_API_VERSION: $crate::__private::ApiVersionSymbol = $crate::__private::API_VERSION_SYMBOL;
        // The symbol name abi_stable's loader looks for (see the test
        // `export_symbol_matches_abi_stable` in arbiter-api).
        #[no_mangle]
        pub static _1as_0lib_1header_0root_bmodule_bloader: $crate::__private::LibHeader = {
            fn __arbiter_variants() -> ::std::vec::Vec<$crate::__private::Factory> $variants
            fn __arbiter_root() -> $crate::abi::PluginModule_Ref {
                $crate::__private::root_module($crate::__crate_info!(), __arbiter_variants)
            }
            extern "C" fn __arbiter_erased_root() -> $crate::__private::RootModuleResult {
                $crate::__private::__call_root_module_loader(__arbiter_root)
            }
            // SAFETY: the constructor returns the root module type named here.
            unsafe {
                $crate::__private::LibHeader::from_constructor::<$crate::abi::PluginModule_Ref>(
                    __arbiter_erased_root,
                    $crate::__private::CheckTypeLayout::Yes,
                )
            }
        };
    };
}

/// The WebAssembly exports of [`export_plugin!`] (not for direct use): one
/// function per call of the interface in `kit::wasm`.
#[doc(hidden)]
#[macro_export]
macro_rules! __wasm_exports {
    ($variants:block) => {
        const _: () = {
            use $crate::__private::wasm as w;
            fn __arbiter_variants() -> ::std::vec::Vec<$crate::__private::Factory> $variants
            #[no_mangle]
            extern "C" fn arbiter_interface() -> i32 { w::interface() }
            #[no_mangle]
            extern "C" fn arbiter_init() -> i32 {
                w::init($crate::__crate_info!(), __arbiter_variants)
            }
            #[no_mangle]
            extern "C" fn arbiter_describe() -> i64 { w::describe() }
            #[no_mangle]
            extern "C" fn arbiter_input(len: i32) -> i32 { w::input(len) }
            #[no_mangle]
            extern "C" fn arbiter_output() -> i64 { w::output_buffer() }
            #[no_mangle]
            extern "C" fn arbiter_panic_message() -> i64 { w::panic_message() }
            #[no_mangle]
            extern "C" fn arbiter_number() -> i64 { w::number() }
            #[no_mangle]
            extern "C" fn arbiter_new_game(variant: i32, options_len: i32) -> i32 { w::new_game(variant, options_len) }
            #[no_mangle]
            extern "C" fn arbiter_from_position(variant: i32, text_len: i32, options_len: i32) -> i32 {
                w::from_position(variant, text_len, options_len)
            }
            #[no_mangle]
            extern "C" fn arbiter_clone(h: i32) -> i32 { w::clone(h) }
            #[no_mangle]
            extern "C" fn arbiter_drop(h: i32) { w::drop_state(h) }
            #[no_mangle]
            extern "C" fn arbiter_copy_from(dst: i32, src: i32) -> i32 { w::copy_from(dst, src) }
            #[no_mangle]
            extern "C" fn arbiter_to_move(h: i32) -> i32 { w::to_move(h) }
            #[no_mangle]
            extern "C" fn arbiter_status(h: i32) -> i64 { w::status(h) }
            #[no_mangle]
            extern "C" fn arbiter_status_text(h: i32) -> i64 { w::status_text(h) }
            #[no_mangle]
            extern "C" fn arbiter_legal_moves(h: i32) -> i64 { w::legal_moves(h) }
            #[no_mangle]
            extern "C" fn arbiter_apply(h: i32, mv: i64) -> i32 { w::apply(h, mv) }
            #[no_mangle]
            extern "C" fn arbiter_perft(h: i32, depth: i32) -> i64 { w::perft(h, depth) }
            #[no_mangle]
            extern "C" fn arbiter_move_text(h: i32, mv: i64, viewer: i32) -> i64 { w::move_text(h, mv, viewer) }
            #[no_mangle]
            extern "C" fn arbiter_parse_move(h: i32, text_len: i32) -> i32 { w::parse_move(h, text_len) }
            #[no_mangle]
            extern "C" fn arbiter_position_text(h: i32) -> i64 { w::position_text(h) }
            #[no_mangle]
            extern "C" fn arbiter_observe(h: i32, viewer: i32) -> i64 { w::observe(h, viewer) }
            #[no_mangle]
            extern "C" fn arbiter_sample_world(h: i32, viewer: i32, seed: i64) -> i32 { w::sample_world(h, viewer, seed) }
            #[no_mangle]
            extern "C" fn arbiter_evaluate(h: i32, player: i32) -> f64 { w::evaluate(h, player) }
            #[no_mangle]
            extern "C" fn arbiter_can_win(h: i32, player: i32) -> i32 { w::can_win(h, player) }
            #[no_mangle]
            extern "C" fn arbiter_call_json(h: i32, method_len: i32, args_len: i32) -> i64 {
                w::call_json(h, method_len, args_len)
            }
        };
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn export_symbol_matches_abi_stable() {
        assert_eq!(abi_stable::library::ROOT_MODULE_LOADER_NAME, "_1as_0lib_1header_0root_bmodule_bloader");
    }
}
