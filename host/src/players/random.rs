//! `random`: picks uniformly among the legal moves, reproducibly from a seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{settings_pairs, KindSpec, Player, PlayerError, PlayerKind, Reply, SettingError};
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

/// `random[:seed=N]`.
pub const KIND: PlayerKind = PlayerKind { name: "random", example: "random:seed=1", runs_a_program: false, parse };

/// A random player's spec: the seed of its first game (later games derive theirs from it).
#[derive(Debug)]
struct RandomSpec {
    seed: u64,
}

impl KindSpec for RandomSpec {
    fn create(&self, game_seed: u64) -> Box<dyn Player> {
        Box::new(RandomPlayer::new(self.seed.wrapping_add(game_seed)))
    }
}

fn parse(rest: &str) -> Result<Box<dyn KindSpec>, SettingError> {
    let mut seed = 1;
    for (k, v) in settings_pairs(rest)? {
        match k.as_str() {
            "seed" => {
                seed =
                    v.parse().map_err(|_| SettingError::BadValue { name: k, value: v, expected: "is not a number" })?
            }
            _ => return Err(SettingError::Unknown { what: "setting", name: k, known: "random takes seed" }),
        }
    }
    Ok(Box::new(RandomSpec { seed }))
}
