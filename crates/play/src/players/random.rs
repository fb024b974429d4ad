//! `random`: picks uniformly among the legal moves, reproducibly from a seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{settings_pairs, KindSpec, Player, PlayerError, PlayerKind, Reply, SettingError};
use arbiter_core::seat::Turn;

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
        // Its work, one draw, takes no time on its virtual clock.
        Ok(Reply { clock_us: Some(0), ..Reply::mv(moves[self.rng.random_range(0..moves.len())]) })
    }

    fn on_virtual_clock(&self) -> bool {
        true
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
    /// It answers at once, whatever the clock says.
    fn repeats_itself(&self, _on_a_clock: bool) -> bool {
        true
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

#[cfg(test)]
mod tests {
    use crate::players::PlayerSpec;
    use crate::referee::{play_game, StartFrom};
    use crate::testing::game_config;
    use arbiter_core::seat::Player;
    use arbiter_testing::{options, race};

    /// The moves of a race between two random players of `specs`, in game `seed`.
    fn game(specs: [&str; 2], seed: u64) -> Vec<String> {
        let v = race(arbiter_fixture::Fault::None);
        let mut players: Vec<Box<dyn Player>> =
            specs.iter().map(|s| PlayerSpec::parse(s).unwrap().create(seed)).collect();
        let record =
            play_game(&v, &options(&v, serde_json::json!({})), StartFrom::Standard, &mut players, &game_config())
                .unwrap();
        record.plies.into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn a_seed_replays_its_game_and_other_seeds_or_games_play_others() {
        let specs = ["random:seed=3", "random:seed=4"];
        assert_eq!(game(specs, 1), game(specs, 1), "the same seeds, the same game");
        let others: std::collections::HashSet<Vec<String>> = (1..12).map(|g| game(specs, g)).collect();
        assert!(others.len() > 3, "each game of a match its own moves: {others:?}");
        let e = PlayerSpec::parse("random:seed=x").unwrap_err().to_string();
        assert!(e.contains("seed") && e.contains("is not a number"), "{e}");
        let e = PlayerSpec::parse("random:depth=3").unwrap_err().to_string();
        assert!(e.contains("random takes seed"), "{e}");
    }
}
