//! The authoring kit: what a variant author implements. Plain Rust types only;
//! [`crate::export_plugin!`] wraps the implementations into the stable ABI,
//! running every call under `catch_unwind` so a panic in rules code becomes an
//! error naming the plugin and the call instead of aborting the host.
//!
//! The contract each method must keep is written next to it; `arbiter check`
//! is its executable form.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use abi_stable::sabi_trait::TD_CanDowncast;
use abi_stable::std_types::{RErr, RNone, ROk, ROption, RResult, RSome, RStr, RString, RVec};
use serde_json::{Map, Value};

use crate::abi::{
    GameState, GameStateBox, GameState_TO, RawError, RawObservation, RawStatus, RawViewer, VariantFactory,
};
use crate::schema::{Observation, PieceSet, VariantInfo};
pub use crate::{Error, ErrorKind, Outcome, Status, Viewer};

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

fn raw_result<T, U>(r: Result<T, Error>, f: impl FnOnce(T) -> U) -> RResult<U, RawError> {
    match r {
        Ok(v) => ROk(f(v)),
        Err(e) => RErr(e.to_raw()),
    }
}

thread_local! {
    /// Reused buffer the kit collects legal moves in before handing them over.
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Wraps a [`Game`] as the ABI's `GameState`, containing panics. After a panic
/// the state is faulted: every later call is refused.
#[derive(Debug)]
pub(crate) struct GameAdapter<G> {
    /// `None` once a clone panicked: nothing is left to play.
    game: Option<G>,
    faulted: AtomicBool,
    /// Whether `sample_world` may be called: not for a hidden-information
    /// variant that does not declare it (the default would hand out the truth).
    samples: bool,
}

impl<G: Game> GameAdapter<G> {
    pub(crate) fn boxed(game: G, samples: bool) -> GameStateBox {
        GameState_TO::from_value(
            GameAdapter { game: Some(game), faulted: AtomicBool::new(false), samples },
            TD_CanDowncast,
        )
    }

    /// The game, or the error every call on a faulted state gets.
    fn live(&self) -> Result<&G, Error> {
        match &self.game {
            Some(g) if !self.faulted.load(Ordering::Relaxed) => Ok(g),
            _ => Err(Error::new(ErrorKind::Faulted, "the game state faulted after an earlier panic in the plugin")),
        }
    }

    /// Runs `f` on the game under a guard; a panic faults the state.
    fn call<T>(&self, name: &str, f: impl FnOnce(&G) -> T) -> Result<T, Error> {
        let g = self.live()?;
        guard(name, || f(g)).inspect_err(|_| self.faulted.store(true, Ordering::Relaxed))
    }

    fn call_mut<T>(&mut self, name: &str, f: impl FnOnce(&mut G) -> T) -> Result<T, Error> {
        self.live()?;
        let g = self.game.as_mut().expect("checked by live()");
        let r = guard(name, || f(g));
        if r.is_err() {
            self.faulted.store(true, Ordering::Relaxed);
        }
        r
    }
}

impl<G: Game> Clone for GameAdapter<G> {
    fn clone(&self) -> Self {
        // abi_stable's clone shim cannot return an error: a panicking clone
        // yields a faulted state instead of aborting the host.
        let game = self.game.as_ref().and_then(|g| guard("clone", || g.clone()).ok());
        let faulted = game.is_none() || self.faulted.load(Ordering::Relaxed);
        GameAdapter { game, faulted: AtomicBool::new(faulted), samples: self.samples }
    }
}

impl<G: Game> GameState for GameAdapter<G> {
    fn to_move(&self) -> u32 {
        self.call("to_move", |g| g.to_move()).unwrap_or(0)
    }

    fn status(&self) -> RawStatus {
        let st = self.call("status", |g| g.status()).unwrap_or(Status {
            outcome: Outcome::Faulted,
            reason: "plugin faulted",
            claimable: "",
        });
        st.to_raw()
    }

    fn legal_moves_into(&self, out: &mut RVec<u64>) -> RResult<(), RawError> {
        out.clear();
        let r = self.call("legal_moves", |g| {
            SCRATCH.with(|s| {
                let mut s = s.borrow_mut();
                s.clear();
                g.legal_moves(&mut s);
                out.extend_from_copy_slice(&s);
            })
        });
        raw_result(r, |_| ())
    }

    fn apply(&mut self, mv: u64) -> RResult<(), RawError> {
        let r = self.call_mut("apply", |g| {
            if g.is_legal(mv) {
                g.play(mv);
                Ok(())
            } else {
                Err(Error::illegal_move(format!("move id {mv:#x} is not legal in this position")))
            }
        });
        raw_result(r.and_then(|x| x), |_| ())
    }

    fn copy_from(&mut self, other: &GameStateBox) -> RResult<(), RawError> {
        let r = match other.obj.downcast_as::<GameAdapter<G>>() {
            Ok(o) => match (&mut self.game, o.live()) {
                (Some(mine), Ok(theirs)) => guard("copy_from", || mine.clone_from(theirs)),
                (_, Err(e)) => Err(e),
                (None, Ok(_)) => Err(Error::new(ErrorKind::Faulted, "copy_from into a faulted state")),
            },
            Err(_) => Err(Error::unsupported("copy_from: the other state belongs to another variant")),
        };
        if r.is_ok() {
            self.faulted.store(false, Ordering::Relaxed);
        }
        raw_result(r, |_| ())
    }

    fn perft(&self, depth: u32) -> RResult<u64, RawError> {
        raw_result(self.call("perft", |g| g.perft(depth)), |n| n)
    }

    fn move_to_text(&self, mv: u64, viewer: RawViewer) -> RResult<RString, RawError> {
        let r = self.call("move_to_text", |g| {
            if g.is_legal(mv) {
                Ok(g.move_text(mv, Viewer::from_raw(viewer)))
            } else {
                Err(Error::illegal_move(format!("move id {mv:#x} is not legal in this position")))
            }
        });
        raw_result(r.and_then(|x| x), RString::from)
    }

    fn parse_move(&self, text: RStr<'_>) -> RResult<u64, RawError> {
        let r = self.call("parse_move", |g| g.parse_move(text.as_str()));
        raw_result(r.and_then(|x| x), |m| m)
    }

    fn position_text(&self) -> RString {
        self.call("position_text", |g| g.position_text()).unwrap_or_default().into()
    }

    fn observe(&self, viewer: RawViewer) -> RResult<RawObservation, RawError> {
        // The kit names the viewer and the player to move itself: an author
        // cannot get them wrong.
        let r = self.call("observe", |g| {
            let viewer = Viewer::from_raw(viewer);
            let mut o = g.observe(viewer);
            o.view.viewer = crate::schema::ObservationView::viewer_name(viewer);
            o.view.to_move = g.to_move();
            o
        });
        let r = r.and_then(|o| {
            serde_json::to_string(&o.view)
                .map(|json| RawObservation { text: o.text.into(), json: json.into() })
                .map_err(|e| Error::unsupported(format!("observation is not serialisable: {e}")))
        });
        raw_result(r, |o| o)
    }

    fn sample_world(&self, viewer: RawViewer, seed: u64) -> RResult<GameStateBox, RawError> {
        let r = if self.samples {
            self.call("sample_world", |g| g.sample_world(Viewer::from_raw(viewer), seed))
        } else {
            Err(Error::unsupported(
                "sample_world: this variant hides information and does not declare capabilities.sample_world",
            ))
        };
        raw_result(r, |g| GameAdapter::boxed(g, true))
    }

    fn evaluate(&self, player: u32) -> ROption<f64> {
        match self.call("evaluate", |g| g.evaluate(player)) {
            Ok(Some(v)) => RSome(v),
            _ => RNone,
        }
    }

    fn can_win(&self, player: u32) -> bool {
        self.call("can_win", |g| g.can_win(player)).unwrap_or(true)
    }

    fn call_json(&mut self, method: RStr<'_>, args_json: RStr<'_>) -> RResult<RString, RawError> {
        let args: Value = match serde_json::from_str(args_json.as_str()) {
            Ok(v) => v,
            Err(e) => return RErr(Error::bad_options(format!("call_json arguments: {e}")).to_raw()),
        };
        if method.as_str() == "move_cells" {
            let r = self.call("move_cells", |g| move_cells_json(g, &args));
            return raw_result(r.and_then(|x| x), |v| v.to_string().into());
        }
        // `is_pass`: {"move": id} gives whether the move is a pass (see [`Game::is_pass`]).
        if method.as_str() == "is_pass" {
            let r = self.call("is_pass", |g| args["move"].as_u64().map(|m| g.is_pass(m)));
            let r = r.and_then(|x| x.ok_or_else(|| Error::bad_options("is_pass: {\"move\": id} expected")));
            return raw_result(r, |v| Value::Bool(v).to_string().into());
        }
        let r = self.call_mut("call_json", |g| g.call_json(method.as_str(), &args));
        raw_result(r.and_then(|x| x), |v| v.to_string().into())
    }
}

/// The `move_cells` call: `{"moves": [id...]}` gives, for each id, its cells
/// (see [`Game::move_cells`]) or `null`.
fn move_cells_json<G: Game>(g: &G, args: &Value) -> Result<Value, Error> {
    let ids =
        args["moves"].as_array().ok_or_else(|| Error::bad_options("move_cells: expected {\"moves\": [id...]}"))?;
    Ok(ids.iter().map(|id| id.as_u64().and_then(|mv| g.move_cells(mv)).map_or(Value::Null, Value::from)).collect())
}

/// Wraps a [`Variant`] as the ABI's `VariantFactory`; checks options against
/// the info card and fills in defaults before the author's code sees them.
pub(crate) struct VariantAdapter<V> {
    variant: V,
    info: VariantInfo,
    info_json: String,
}

impl<V: Variant> VariantAdapter<V> {
    pub(crate) fn new(variant: V) -> Result<Self, Error> {
        let info = guard("info", || variant.info())?;
        let sets = guard("piece_sets", || variant.piece_sets())?;
        // The info card, with the piece sets as one more key (older hosts
        // ignore it).
        let mut card = serde_json::to_value(&info)
            .map_err(|e| Error::unsupported(format!("variant info is not serialisable: {e}")))?;
        if !sets.is_empty() {
            card["piece_sets"] = serde_json::to_value(&sets)
                .map_err(|e| Error::unsupported(format!("piece sets are not serialisable: {e}")))?;
        }
        let info_json = card.to_string();
        Ok(VariantAdapter { variant, info, info_json })
    }

    /// Whether its games may sample worlds (see [`Game::sample_world`]).
    fn samples(&self) -> bool {
        let caps = &self.info.capabilities;
        !caps.hidden_information || caps.sample_world
    }

    /// Parses `json`, refuses unknown or ill-typed options, fills defaults.
    fn options(&self, json: &str) -> Result<Map<String, Value>, Error> {
        let given: Map<String, Value> = if json.trim().is_empty() {
            Map::new()
        } else {
            serde_json::from_str(json).map_err(|e| Error::bad_options(format!("options must be a JSON object: {e}")))?
        };
        resolve_options(&self.info, given)
    }
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

impl<V: Variant> VariantFactory for VariantAdapter<V> {
    fn id(&self) -> RString {
        self.info.id.as_str().into()
    }

    fn info_json(&self) -> RString {
        self.info_json.as_str().into()
    }

    fn new_game(&self, options_json: RStr<'_>) -> RResult<GameStateBox, RawError> {
        let r = self
            .options(options_json.as_str())
            .and_then(|opts| guard("new_game", || self.variant.new_game(&opts)).and_then(|x| x));
        raw_result(r, |g| GameAdapter::boxed(g, self.samples()))
    }

    fn from_position(&self, text: RStr<'_>, options_json: RStr<'_>) -> RResult<GameStateBox, RawError> {
        let r = self.options(options_json.as_str()).and_then(|opts| {
            guard("from_position", || self.variant.from_position(text.as_str(), &opts)).and_then(|x| x)
        });
        raw_result(r, |g| GameAdapter::boxed(g, self.samples()))
    }
}

/// Exports a plugin: builds the root module the host loads, from one or more
/// values implementing [`Variant`]. Use it once, at the crate root of a `cdylib`:
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
        /// The arbiter-api version this plugin was built against, read by the
        /// host before any layout check.
        #[no_mangle]
        pub static ARBITER_API_VERSION: $crate::__private::ApiVersionSymbol = $crate::__private::API_VERSION_SYMBOL;
        // The symbol name abi_stable's loader looks for (see the test
        // `export_symbol_matches_abi_stable` in arbiter-api).
        #[no_mangle]
        pub static _1as_0lib_1header_0root_bmodule_bloader: $crate::__private::LibHeader = {
            fn __arbiter_variants() -> ::std::vec::Vec<$crate::abi::VariantFactoryBox> $variants
            fn __arbiter_root() -> $crate::abi::PluginModule_Ref {
                $crate::__private::root_module(
                    env!("CARGO_PKG_NAME"),
                    env!("CARGO_PKG_VERSION"),
                    env!("CARGO_PKG_AUTHORS"),
                    env!("CARGO_PKG_LICENSE"),
                    env!("CARGO_PKG_REPOSITORY"),
                    env!("CARGO_PKG_DESCRIPTION"),
                    __arbiter_variants,
                )
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
    ($($variant:expr),+ $(,)?) => {
        $crate::export_plugin!(@root {
            $crate::__private::collect(::std::vec![$($crate::__private::factory($variant)),+])
        });
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn export_symbol_matches_abi_stable() {
        assert_eq!(abi_stable::library::ROOT_MODULE_LOADER_NAME, "_1as_0lib_1header_0root_bmodule_bloader");
    }
}
