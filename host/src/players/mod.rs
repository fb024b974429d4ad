//! Built-in players. A player sees a game only through [`crate::referee::Turn`],
//! which exposes what that player may know and nothing else.

pub mod random;

pub use random::RandomPlayer;

use crate::referee::Turn;

/// Something that chooses moves.
pub trait Player {
    /// A short name for records and standings.
    fn name(&self) -> String;

    /// Chooses one of `turn`'s legal moves.
    fn choose(&mut self, turn: &Turn<'_>) -> Result<u64, PlayerError>;
}

/// Why a player failed to produce a move.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The player has no move to offer (should not happen in an ongoing game).
    #[error("no legal move to choose from")]
    NoMove,
}
