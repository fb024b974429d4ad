//! What goes wrong in a tournament, as one error type for the whole module:
//! each variant's text is one line that names the input or the place.

use arbiter_core::clock::TimeControlError;
use arbiter_core::plugin::registry::UnknownVariant;
use arbiter_play::players::SpecError;
use arbiter_store::StoreError;

use super::config::ConfigError;
use super::openings::OpeningsError;

/// Why a tournament could not be made, planned, run or stored.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The definition makes no tournament.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A player spec is malformed, or names a program that is not there.
    #[error(transparent)]
    Player(#[from] SpecError),
    /// A time control is malformed.
    #[error(transparent)]
    TimeControl(#[from] TimeControlError),
    /// A variant is not installed.
    #[error(transparent)]
    Variant(#[from] UnknownVariant),
    /// A plugin refused what it was given (options, a position) or failed.
    #[error(transparent)]
    Plugin(#[from] arbiter_api::Error),
    /// An opening file could not be used.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// A file could not be read or written: which, and why.
    #[error("{what}: {error}")]
    File {
        /// What was being done, naming the file.
        what: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// A message or a stored text could not be read: what it was, and why.
    #[error("{0}")]
    Unreadable(String),
    /// The tournament may not run here or now (its lease is held, this
    /// machine's plugin build differs...): why, in words.
    #[error("{0}")]
    Refused(String),
    /// One game failed.
    #[error("game {number} of tournament {tournament}: {error}")]
    Game {
        /// Its tournament.
        tournament: i64,
        /// Its number in the schedule, from 1.
        number: u32,
        /// What went wrong.
        error: Box<TournamentError>,
    },
}

/// A tournament's result type.
pub type Result<T, E = TournamentError> = std::result::Result<T, E>;
