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

#![warn(missing_docs)]

pub mod abi;
pub mod host;
pub mod kit;
mod log;
pub mod schema;

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "contract")]
pub mod contract;
pub mod perft;

pub use abi::API_VERSION;

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
    fn to_raw(self) -> abi::RawViewer {
        match self {
            Viewer::Player(p) => abi::RawViewer(p),
            Viewer::Spectator => abi::RawViewer::SPECTATOR,
            Viewer::Referee => abi::RawViewer::REFEREE,
        }
    }

    fn from_raw(raw: abi::RawViewer) -> Self {
        match raw {
            abi::RawViewer::SPECTATOR => Viewer::Spectator,
            abi::RawViewer::REFEREE => Viewer::Referee,
            abi::RawViewer(p) => Viewer::Player(p),
        }
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

    fn to_raw(&self) -> abi::RawError {
        let kind = match self.kind {
            ErrorKind::IllegalMove => abi::RawErrorKind::ILLEGAL_MOVE,
            ErrorKind::BadNotation => abi::RawErrorKind::BAD_NOTATION,
            ErrorKind::BadPosition => abi::RawErrorKind::BAD_POSITION,
            ErrorKind::BadOptions => abi::RawErrorKind::BAD_OPTIONS,
            ErrorKind::Panic => abi::RawErrorKind::PANIC,
            ErrorKind::Unsupported => abi::RawErrorKind::UNSUPPORTED,
            ErrorKind::Faulted => abi::RawErrorKind::FAULTED,
        };
        abi::RawError {
            kind,
            message: self.message.as_str().into(),
            #[cfg(feature = "layout-break-test")]
            layout_break: 0,
        }
    }

    fn from_raw(raw: abi::RawError) -> Self {
        let kind = match raw.kind {
            abi::RawErrorKind::ILLEGAL_MOVE => ErrorKind::IllegalMove,
            abi::RawErrorKind::BAD_NOTATION => ErrorKind::BadNotation,
            abi::RawErrorKind::BAD_POSITION => ErrorKind::BadPosition,
            abi::RawErrorKind::BAD_OPTIONS => ErrorKind::BadOptions,
            abi::RawErrorKind::PANIC => ErrorKind::Panic,
            abi::RawErrorKind::FAULTED => ErrorKind::Faulted,
            _ => ErrorKind::Unsupported,
        };
        Error { kind, message: one_line(raw.message.as_str()) }
    }
}

/// A plugin's message as one line: control characters it quoted from the
/// input (a newline in a position text) are written as escapes.
fn one_line(message: &str) -> String {
    if !message.contains(char::is_control) {
        return message.to_string();
    }
    message.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

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
