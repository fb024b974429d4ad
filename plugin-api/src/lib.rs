//! arbiter-api: the stable ABI between the arbiter host and variant plugins,
//! and the authoring kit variant authors write against.
//!
//! - [`kit`]: the plain Rust traits [`kit::Variant`] and [`kit::Game`] a variant
//!   author implements, and [`export_plugin!`] which turns them into a plugin.
//! - [`host`]: the safe, plain-typed view of a loaded plugin that the host uses.
//! - [`schema`]: the JSON documents (variant info, observations) both sides share.
//! - [`abi`]: the `StableAbi` types that cross the boundary; only this crate
//!   names abi_stable.
//! - [`perft`]: leaf counts, in the plugin or driven through the boundary.
//! - `contract` (feature `contract`): the plugin contract as checks, for
//!   `arbiter check` and plugins' own tests; with feature `in-process`,
//!   [`host::VariantHandle`] runs a kit variant without a plugin file.
//! - feature `wasm`: the host loads plugins built for `wasm32-unknown-unknown`
//!   too, each game in a sandbox of its own (see `host::wasm`).
//!
//! Built for `wasm32-unknown-unknown`, the crate is the kit alone: the same
//! [`export_plugin!`] then exports the WebAssembly plugin interface instead of
//! the native root module, so one plugin source builds both ways.

#![warn(missing_docs)]

#[cfg(not(target_arch = "wasm32"))]
pub mod abi;
#[cfg(not(target_arch = "wasm32"))]
pub mod host;
pub mod kit;
#[cfg(not(target_arch = "wasm32"))]
mod log;
mod move_call;
pub mod schema;

#[doc(hidden)]
pub mod __private;
#[cfg(all(feature = "contract", not(target_arch = "wasm32")))]
pub mod contract;
#[cfg(not(target_arch = "wasm32"))]
pub mod perft;

/// The arbiter-api version this crate was built as. The features
/// `claim-next-version-test` and `claim-older-version-test` replace it
/// (with 0.2.0 and 0.0.9): only the tests of the host's version-mismatch
/// error use them, to build a plugin that claims another version.
pub const API_VERSION: &str = if cfg!(feature = "claim-next-version-test") {
    "0.2.0"
} else if cfg!(feature = "claim-older-version-test") {
    "0.0.9"
} else {
    env!("CARGO_PKG_VERSION")
};

/// Who is looking at a game. Records write it as `{"player": 0}`,
/// `"spectator"` or `"referee"`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// A player, by index in turn order.
    Player(u32),
    /// Someone watching: sees only what is public.
    Spectator,
    /// The referee: sees the true, full state.
    Referee,
}

impl Viewer {
    /// The spectator's number in [`Viewer::code`].
    const SPECTATOR_CODE: u32 = u32::MAX - 1;
    /// The referee's number in [`Viewer::code`].
    const REFEREE_CODE: u32 = u32::MAX;

    /// The viewer as one `u32`, as both plugin interfaces pass it: a player's
    /// index, or the two highest numbers for the spectator and the referee.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) fn code(self) -> u32 {
        match self {
            Viewer::Player(p) => p,
            Viewer::Spectator => Self::SPECTATOR_CODE,
            Viewer::Referee => Self::REFEREE_CODE,
        }
    }

    /// The viewer a [`Viewer::code`] stands for.
    pub(crate) fn from_code(code: u32) -> Self {
        match code {
            Self::SPECTATOR_CODE => Viewer::Spectator,
            Self::REFEREE_CODE => Viewer::Referee,
            p => Viewer::Player(p),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn to_raw(self) -> abi::RawViewer {
        abi::RawViewer(self.code())
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn from_raw(raw: abi::RawViewer) -> Self {
        Self::from_code(raw.0)
    }
}

impl std::fmt::Display for Viewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Viewer::Player(p) => write!(f, "player {p}"),
            Viewer::Spectator => f.write_str("spectator"),
            Viewer::Referee => f.write_str("referee"),
        }
    }
}

/// How a game stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    /// The game goes on.
    Ongoing,
    /// The player with this index has won.
    Win(u32),
    /// Drawn.
    Draw,
    /// A call into the plugin panicked; the state must not be used any more.
    Faulted,
}

/// Outcome, the reason for it, and a draw the player to move could claim.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Status {
    /// How the game stands.
    pub outcome: Outcome,
    /// Why it ended ("checkmate"); empty while ongoing.
    pub reason: &'static str,
    /// A draw the player to move may claim ("threefold repetition"); empty if none.
    pub claimable: &'static str,
}

impl Status {
    /// An ongoing game with nothing to claim.
    pub const ONGOING: Status = Status { outcome: Outcome::Ongoing, reason: "", claimable: "" };

    /// A win for `player`, for `reason`.
    pub fn win(player: u32, reason: &'static str) -> Status {
        Status { outcome: Outcome::Win(player), reason, claimable: "" }
    }

    /// A draw, for `reason`.
    pub fn draw(reason: &'static str) -> Status {
        Status { outcome: Outcome::Draw, reason, claimable: "" }
    }

    /// Whether the game is still going on.
    pub fn is_ongoing(&self) -> bool {
        self.outcome == Outcome::Ongoing
    }
}

/// The class of an [`Error`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ErrorKind {
    /// A move that is not legal in the position.
    IllegalMove,
    /// Move text that cannot be parsed.
    BadNotation,
    /// A malformed or impossible position.
    BadPosition,
    /// Unknown or ill-typed options.
    BadOptions,
    /// The plugin's code panicked.
    Panic,
    /// The call or extension is not offered.
    Unsupported,
    /// The state faulted earlier.
    Faulted,
}

/// An error from a plugin: its class and a one-line message naming what was
/// wrong and where.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// The class of error.
    pub kind: ErrorKind,
    /// The one-line message.
    pub message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }
    /// A move that is not legal here.
    pub fn illegal_move(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::IllegalMove, message)
    }
    /// Move text that cannot be parsed.
    pub fn bad_notation(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadNotation, message)
    }
    /// A malformed or impossible position.
    pub fn bad_position(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadPosition, message)
    }
    /// Unknown or ill-typed options.
    pub fn bad_options(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadOptions, message)
    }
    /// The call is not offered by this variant.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// The class as one number, as both plugin interfaces pass it.
    pub(crate) fn kind_code(&self) -> u8 {
        match self.kind {
            ErrorKind::IllegalMove => 1,
            ErrorKind::BadNotation => 2,
            ErrorKind::BadPosition => 3,
            ErrorKind::BadOptions => 4,
            ErrorKind::Panic => 5,
            ErrorKind::Unsupported => 6,
            ErrorKind::Faulted => 7,
        }
    }

    /// An error of the class a [`Error::kind_code`] names (an unknown number
    /// is `Unsupported`), with `message` made one line.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) fn from_code(code: u8, message: &str) -> Self {
        let kind = match code {
            1 => ErrorKind::IllegalMove,
            2 => ErrorKind::BadNotation,
            3 => ErrorKind::BadPosition,
            4 => ErrorKind::BadOptions,
            5 => ErrorKind::Panic,
            7 => ErrorKind::Faulted,
            _ => ErrorKind::Unsupported,
        };
        Error { kind, message: one_line(message) }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn to_raw(&self) -> abi::RawError {
        abi::RawError {
            kind: abi::RawErrorKind(self.kind_code()),
            message: self.message.as_str().into(),
            #[cfg(feature = "layout-break-test")]
            layout_break: 0,
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn from_raw(raw: abi::RawError) -> Self {
        Self::from_code(raw.kind.0, raw.message.as_str())
    }
}

/// A plugin's message as one line: control characters it quoted from the
/// input (a newline in a position text) are written as escapes.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
fn one_line(message: &str) -> String {
    if !message.contains(char::is_control) {
        return message.to_string();
    }
    let mut line = String::with_capacity(message.len() + 16);
    for c in message.chars() {
        if c.is_control() {
            line.extend(c.escape_default());
        } else {
            line.push(c);
        }
    }
    line
}

#[cfg(not(target_arch = "wasm32"))]
impl Status {
    fn to_raw(self) -> abi::RawStatus {
        let (outcome, winner) = match self.outcome {
            Outcome::Ongoing => (abi::RawOutcome::ONGOING, 0),
            Outcome::Win(p) => (abi::RawOutcome::WIN, p),
            Outcome::Draw => (abi::RawOutcome::DRAW, 0),
            Outcome::Faulted => (abi::RawOutcome::FAULTED, 0),
        };
        abi::RawStatus { outcome, winner, reason: self.reason.into(), claimable: self.claimable.into() }
    }

    fn from_raw(raw: abi::RawStatus) -> Self {
        let outcome = match raw.outcome {
            abi::RawOutcome::ONGOING => Outcome::Ongoing,
            abi::RawOutcome::WIN => Outcome::Win(raw.winner),
            abi::RawOutcome::DRAW => Outcome::Draw,
            _ => Outcome::Faulted,
        };
        Status { outcome, reason: raw.reason.as_str(), claimable: raw.claimable.as_str() }
    }
}
