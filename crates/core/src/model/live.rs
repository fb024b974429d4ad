//! A game in progress as its onlookers see it: the referee makes one
//! [`LiveFrame`] a moment (a view per viewer, each made by the plugin), and
//! each onlooker gets only its own [`SeenFrame`].

use arbiter_api::schema::{Observation, ObservationView};
use arbiter_api::Viewer;
use serde::{Deserialize, Serialize};

use super::Seat;
use crate::verdict::GameResult;

/// What the onlookers of a live game may know at one moment: one view per
/// player and one for spectators, each made by the plugin for that viewer
/// (never the referee's full state).
#[derive(Clone, Debug)]
pub struct LiveFrame {
    /// Plies played.
    pub ply: u32,
    /// The player to move.
    pub to_move: Seat,
    /// The views: each player's, then the spectator's.
    pub views: Vec<LiveView>,
    /// Each player's remaining time in ms (`None`: unlimited), as of this frame.
    pub clocks: Vec<Option<u64>>,
    /// The result, in the last frame.
    pub result: Option<GameResult>,
}

/// One viewer's part of a [`LiveFrame`].
#[derive(Clone, Debug)]
pub struct LiveView {
    /// Whose view this is.
    pub viewer: Viewer,
    /// What the viewer sees of the board.
    pub observation: Observation,
    /// The last move as the viewer saw it.
    pub last_move: Option<String>,
}

/// What one viewer may see of a moment: the shape the web view, the worker
/// wire and the store's live games carry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeenFrame {
    /// Plies played.
    pub ply: u32,
    /// The player to move.
    pub to_move: Seat,
    /// The viewer's observation.
    pub observation: ObservationView,
    /// The last move as the viewer saw it.
    pub last_move: Option<String>,
    /// Each player's remaining time in ms (`None`: unlimited).
    pub clocks: Vec<Option<u64>>,
    /// The result, once the game is over.
    pub result: Option<FrameResult>,
}

/// A finished game's result as a frame shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameResult {
    /// The PGN result (`1-0`, `1/2-1/2`).
    pub result: String,
    /// How it ended, in words.
    pub termination: String,
}

impl LiveFrame {
    /// What `viewer` may see of this moment: ply, player to move, its
    /// observation, the last move as it saw it, the clocks and the result;
    /// `None` when the frame holds no view for `viewer`.
    pub fn seen_by(&self, viewer: Viewer) -> Option<SeenFrame> {
        let view = self.views.iter().find(|v| v.viewer == viewer)?;
        Some(SeenFrame {
            ply: self.ply,
            to_move: self.to_move,
            observation: view.observation.view.clone(),
            last_move: view.last_move.clone(),
            clocks: self.clocks.clone(),
            result: self
                .result
                .as_ref()
                .map(|r| FrameResult { result: r.pgn().to_string(), termination: r.termination.to_string() }),
        })
    }
}
