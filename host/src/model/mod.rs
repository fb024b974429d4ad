//! The ground floor every other module stands on: what a game leaves
//! behind ([`GameRecord`], one [`PlyRecord`] a ply), what watchers of a game
//! in progress may see ([`LiveFrame`], [`SeenFrame`]), the one rule for
//! seeds ([`seeds`]), and calendar dates.
//! Nothing here imports another module of arbiter but `verdict` and `clock`.

pub mod calendar;
mod live;
mod record;
pub mod seeds;

pub use live::{FrameResult, LiveFrame, LiveView, SeenFrame};
pub use record::{GameRecord, PlyRecord};
