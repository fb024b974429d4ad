//! `random`: picks uniformly among the legal moves, reproducibly from a seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{Player, PlayerError, Reply};
use crate::seat::Turn;

/// A player that picks a uniformly random legal move.
pub struct RandomPlayer {
    rng: SmallRng,
}

impl RandomPlayer {
    /// A random player drawing from `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlayer { rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let moves = turn.legal_moves();
        if moves.is_empty() {
            return Err(PlayerError::Plugin(arbiter_api::Error::unsupported("no legal move offered")));
        }
        Ok(Reply::mv(moves[self.rng.random_range(0..moves.len())]))
    }
}
