//! The types that cross the dynamic-library boundary. Everything here derives
//! `StableAbi` and is checked by abi_stable when a plugin is loaded; it is frozen
//! for the whole 0.y line of arbiter-api (append-only after `last_prefix_field`).
//! Plugin authors never use this module: they write against [`crate::kit`].

// `#[sabi_trait]` and the prefix-type derive expand to code that trips these lints.
#![allow(non_local_definitions, non_camel_case_types)]

use abi_stable::{
    declare_root_module_statics,
    library::RootModule,
    sabi_trait,
    sabi_types::VersionStrings,
    std_types::{RBox, ROption, RResult, RStr, RString, RVec},
    type_layout::TypeLayout,
    StableAbi,
};

/// Who is looking at a game: a player index, a spectator, or the referee
/// (who sees everything). Encoded as a `u32` so new kinds never break the ABI.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RawViewer(pub u32);

impl RawViewer {
    /// The spectator: sees only what is public.
    pub const SPECTATOR: Self = Self(u32::MAX - 1);
    /// The referee: sees the true, full state.
    pub const REFEREE: Self = Self(u32::MAX);
}

/// How a game stands. A transparent `u8` rather than an enum so that a later
/// minor version may add kinds without an ABI break.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, PartialEq, Eq, Debug)]
pub struct RawOutcome(pub u8);

impl RawOutcome {
    /// The game goes on.
    pub const ONGOING: Self = Self(0);
    /// `winner` has won.
    pub const WIN: Self = Self(1);
    /// Drawn.
    pub const DRAW: Self = Self(2);
    /// A call into the plugin panicked earlier; the state must not be used.
    pub const FAULTED: Self = Self(255);
}

/// The status of a game: its outcome, the reason for it, and any draw the
/// player to move could claim (chess threefold repetition, 50-move rule), which
/// is reported apart from automatic endings.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct RawStatus {
    /// Ongoing, win, draw or faulted.
    pub outcome: RawOutcome,
    /// The winning player's index when `outcome` is `WIN`.
    pub winner: u32,
    /// Why the game ended ("checkmate", "stalemate"...); empty while ongoing.
    pub reason: RStr<'static>,
    /// A draw the player to move may claim ("threefold repetition"); empty if none.
    pub claimable: RStr<'static>,
}

/// The class of a [`RawError`]: a transparent `u8` for the same reason as [`RawOutcome`].
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, PartialEq, Eq, Debug)]
pub struct RawErrorKind(pub u8);

impl RawErrorKind {
    /// A move id or move text that is not legal in this position.
    pub const ILLEGAL_MOVE: Self = Self(1);
    /// Move text that cannot be parsed at all.
    pub const BAD_NOTATION: Self = Self(2);
    /// A malformed or impossible position text.
    pub const BAD_POSITION: Self = Self(3);
    /// Unknown or ill-typed variant options.
    pub const BAD_OPTIONS: Self = Self(4);
    /// The plugin's code panicked; the message names the call.
    pub const PANIC: Self = Self(5);
    /// The plugin does not offer this call or extension.
    pub const UNSUPPORTED: Self = Self(6);
    /// The state faulted earlier and refuses further calls.
    pub const FAULTED: Self = Self(7);
}

/// An error returned across the boundary: its class and a one-line message.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct RawError {
    /// The class of error.
    pub kind: RawErrorKind,
    /// A one-line message naming what was wrong and where.
    pub message: RString,
    /// Only in the tests' deliberately incompatible build (feature
    /// `layout-break-test`): a layout the host must refuse.
    #[cfg(feature = "layout-break-test")]
    pub layout_break: u64,
}

/// What one viewer may know of a game: text for terminals, JSON (the schema
/// of [`crate::schema::ObservationView`]) for programs and renderers.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct RawObservation {
    /// Human-readable rendering.
    pub text: RString,
    /// Machine-readable observation.
    pub json: RString,
}

/// A game state owned by a plugin; the host holds it and never looks inside.
///
/// Contract (checked by `arbiter check`): `legal_moves_into` is empty exactly
/// when `status` is not ongoing; every id it yields is accepted by `apply`;
/// move ids are only meaningful for the state that produced them.
#[sabi_trait]
pub trait GameState: Clone + Send + Sync {
    /// Index of the player to move.
    fn to_move(&self) -> u32;
    /// Outcome, reason and claimable draws.
    fn status(&self) -> RawStatus;
    /// Clears `out` and fills it with the legal move ids of the player to move.
    fn legal_moves_into(&self, out: &mut RVec<u64>) -> RResult<(), RawError>;
    /// Plays a move; an illegal id is refused and leaves the state unchanged.
    fn apply(&mut self, mv: u64) -> RResult<(), RawError>;
    /// Overwrites this state with `other` (same variant) reusing allocations.
    fn copy_from(&mut self, other: &GameStateBox) -> RResult<(), RawError>;
    /// Counts leaf nodes `depth` plies deep, inside the plugin.
    fn perft(&self, depth: u32) -> RResult<u64, RawError>;
    /// The move as `viewer` may see it (hidden parts redacted).
    fn move_to_text(&self, mv: u64, viewer: RawViewer) -> RResult<RString, RawError>;
    /// Parses a move of the player to move in the variant's notation.
    fn parse_move(&self, text: RStr<'_>) -> RResult<u64, RawError>;
    /// The full position in the variant's position notation (referee's view).
    fn position_text(&self) -> RString;
    /// What `viewer` may know of the game.
    fn observe(&self, viewer: RawViewer) -> RResult<RawObservation, RawError>;
    /// A full state consistent with everything `viewer` knows, drawn with `seed`.
    fn sample_world(&self, viewer: RawViewer, seed: u64) -> RResult<GameStateBox, RawError>;
    /// A heuristic value in [-1, 1] for `player`, if the plugin offers one.
    fn evaluate(&self, player: u32) -> ROption<f64>;
    /// Whether `player` could still win by some series of legal moves.
    fn can_win(&self, player: u32) -> bool;
    /// Escape hatch for rare or experimental calls, JSON in and out.
    #[sabi(last_prefix_field)]
    fn call_json(&mut self, method: RStr<'_>, args_json: RStr<'_>) -> RResult<RString, RawError>;
}

/// An owned, type-erased game state.
pub type GameStateBox = GameState_TO<'static, RBox<()>>;

/// One variant exported by a plugin; a plugin may export several.
#[sabi_trait]
pub trait VariantFactory: Send + Sync {
    /// Short lowercase id, unique among installed variants (`chess`).
    fn id(&self) -> RString;
    /// The [`crate::schema::VariantInfo`] as JSON.
    fn info_json(&self) -> RString;
    /// A new game from the start, with options given as a JSON object.
    fn new_game(&self, options_json: RStr<'_>) -> RResult<GameStateBox, RawError>;
    /// A game from a position text in the variant's notation.
    #[sabi(last_prefix_field)]
    #[allow(clippy::wrong_self_convention)]
    fn from_position(&self, text: RStr<'_>, options_json: RStr<'_>) -> RResult<GameStateBox, RawError>;
}

/// An owned, type-erased variant factory.
pub type VariantFactoryBox = VariantFactory_TO<'static, RBox<()>>;

/// The host's logging callback.
#[repr(C)]
#[derive(StableAbi, Clone, Copy)]
pub struct RawLogSink {
    /// Called with level (1 = error .. 5 = trace), plugin name, target, message.
    pub log: extern "C" fn(u8, RStr<'_>, RStr<'_>, RStr<'_>),
    /// The most verbose level the host wants (0 = off).
    pub max_level: u8,
}

/// A type-erased pointer to an extension struct and the layout it was built
/// with, the answer of the root module's `get_extension`. No extension is
/// defined in 0.1 (every plugin answers none); a host using one will check
/// the layout before use. It stays because the root module's layout is frozen.
#[repr(C)]
#[derive(StableAbi, Copy, Clone)]
pub struct RawExtension {
    /// Layout of the extension struct as the plugin compiled it.
    pub layout: &'static TypeLayout,
    /// Pointer to the `'static` extension struct.
    pub module: *const (),
}

// SAFETY: extensions are immutable `'static` structs of function pointers.
unsafe impl Send for RawExtension {}
// SAFETY: as above.
unsafe impl Sync for RawExtension {}

/// The root module every plugin exports (a prefix type: fields may be appended
/// after `last_prefix_field` in a minor version).
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModule_Ref)))]
#[sabi(missing_field(panic))]
pub struct PluginModule {
    /// The plugin's crate name.
    pub plugin_name: RStr<'static>,
    /// The plugin's crate version.
    pub plugin_version: RStr<'static>,
    /// The arbiter-api version the plugin was built against.
    pub api_version: RStr<'static>,
    /// Authors, licence, URL... as a JSON object.
    pub metadata_json: extern "C" fn() -> RString,
    /// The variants this plugin exports.
    pub variants: extern "C" fn() -> RResult<RVec<VariantFactoryBox>, RawError>,
    /// Installs the host's logging callback.
    pub set_logger: extern "C" fn(RawLogSink),
    /// A named, separately layout-checked extension, if the plugin has it.
    #[sabi(last_prefix_field)]
    pub get_extension: extern "C" fn(RStr<'_>) -> ROption<RawExtension>,
}

impl RootModule for PluginModule_Ref {
    declare_root_module_statics! {PluginModule_Ref}
    const BASE_NAME: &'static str = "arbiter_plugin";
    const NAME: &'static str = "arbiter plugin";
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(crate::API_VERSION);
}
