//! Games in progress: what spectators may see of each tournament game being
//! played, its latest frame, kept until the game is stored.

use serde::{Deserialize, Serialize};

use super::{Store, StoreError, StoreFailure};
use arbiter_core::model::SeenFrame;

/// A tournament game in progress, as spectators see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveGame {
    /// Its index in the tournament's schedule.
    pub index: u32,
    /// Variant id.
    pub variant: String,
    /// Player names in turn order.
    pub players: Vec<String>,
    /// The spectator's latest frame.
    pub frame: SeenFrame,
}

impl LiveGame {
    /// A stored row, from its columns (the players and frame as JSON text);
    /// `None` for a frame that cannot be read (it is written again at the
    /// game's next ply, so a listing leaves it out rather than failing).
    fn from_columns(index: u32, variant: String, players: &str, frame: &str) -> Option<LiveGame> {
        Some(LiveGame {
            index,
            variant,
            players: serde_json::from_str(players).ok()?,
            frame: serde_json::from_str(frame).ok()?,
        })
    }
}

/// What a store backend does with games in progress.
pub(super) trait LiveBackend {
    /// Records `game`'s latest frame (replacing the one before).
    fn set_live(&self, tournament: i64, game: &LiveGame) -> Result<(), StoreFailure>;
    /// Forgets every game in progress of `tournament`.
    fn clear_live(&self, tournament: i64) -> Result<(), StoreFailure>;
    /// Every game in progress of `tournament`: (index, variant, players, frame) as stored.
    fn live_rows(&self, tournament: i64) -> Result<Vec<(u32, String, String, String)>, StoreFailure>;
}

impl Store {
    /// Records what spectators may see of a tournament game in progress
    /// (`frame`: the spectator's view only; it goes when the game is stored).
    pub fn set_live(
        &self,
        tournament: i64,
        index: u32,
        variant: &str,
        players: &[String],
        frame: &SeenFrame,
    ) -> Result<(), StoreError> {
        let game = LiveGame { index, variant: variant.to_string(), players: players.to_vec(), frame: frame.clone() };
        self.backend.set_live(tournament, &game).map_err(|e| self.err(e))
    }

    /// Forgets a tournament's games in progress (those of a run that was killed).
    pub fn clear_live(&self, tournament: i64) -> Result<(), StoreError> {
        self.backend.clear_live(tournament).map_err(|e| self.err(e))
    }

    /// A tournament's games in progress, by game index.
    pub fn live_games(&self, tournament: i64) -> Result<Vec<LiveGame>, StoreError> {
        let rows = self.backend.live_rows(tournament).map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter_map(|(index, variant, players, frame)| LiveGame::from_columns(index, variant, &players, &frame))
            .collect())
    }
}
