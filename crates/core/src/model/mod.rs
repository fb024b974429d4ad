//! The ground floor every other module stands on: what a game leaves
//! behind ([`GameRecord`], one [`PlyRecord`] a ply), what watchers of a game
//! in progress may see ([`LiveFrame`], [`SeenFrame`]), the one rule for
//! seeds ([`seeds`]), the [`Seat`] a player takes, calendar dates, and the error of a name looked up
//! among the known ones of its kind ([`UnknownName`]).
//! Nothing here imports another module of arbiter but `verdict` and `clock`.

pub mod calendar;
mod live;
mod record;
mod seat;
pub mod seeds;

pub use live::{FrameResult, LiveFrame, LiveView, SeenFrame};
pub use record::{GameRecord, PlyRecord};
pub use seat::Seat;

/// A name that is none of the known ones of its kind (a pairing format, a
/// record format), with the known ones for the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} '{name}' (known: {known})")]
pub struct UnknownName {
    /// What kind of name it should be.
    pub kind: &'static str,
    /// The name given.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

impl UnknownName {
    /// `name`, not one of `known` of `kind`.
    pub fn new<'a>(kind: &'static str, name: &str, known: impl IntoIterator<Item = &'a str>) -> UnknownName {
        UnknownName { kind, name: name.into(), known: known.into_iter().collect::<Vec<_>>().join(", ") }
    }
}
