//! `mcts`: generic Monte Carlo tree search over the plugin API, for any
//! variant. Each iteration draws a world from the player's own view
//! (`sample_world`), so on hidden-information variants this is single-observer
//! information-set MCTS and never touches the true state; on perfect-information
//! variants the world is the state itself and it is plain UCT. Playouts are
//! random, cut off after a number of plies and scored with the plugin's
//! `evaluate` when it offers one.
//!
//! Its time is its work on a virtual clock, [`PLY_NS`] a ply it plays in its
//! search, so that a seeded search does the same on any machine.

use arbiter_api::host::{Game, MoveBuf};
use arbiter_api::Outcome;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{settings_pairs, KindSpec, Player, PlayerError, PlayerKind, Reply, SettingError};
use arbiter_core::model::Seat;
use arbiter_core::seat::Turn;

/// The virtual time one ply played in the search (in the tree or a
/// playout, with the legal moves generated before it) takes, in ns: about
/// what one takes in chess on the reference machine (a search of 400
/// iterations took 12 ms there and counted 49 ms at 2 us a ply).
pub const PLY_NS: u64 = 500;

/// Settings of an MCTS player.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Iterations per move (used when no movetime is set).
    pub iterations: u32,
    /// Thinking time per move, instead of a fixed iteration count.
    pub movetime_ms: Option<u64>,
    /// Seed of the search's random choices.
    pub seed: u64,
    /// Plies of random playout before the position is scored.
    pub playout_plies: u32,
    /// UCB exploration constant.
    pub exploration: f64,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig { iterations: 400, movetime_ms: None, seed: 1, playout_plies: 60, exploration: 0.7 }
    }
}

impl MctsConfig {
    /// Settings from `name=value` pairs of a spec.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<MctsConfig, SettingError> {
        let mut cfg = MctsConfig::default();
        for (k, v) in pairs {
            let bad =
                || SettingError::BadValue { name: k.clone(), value: v.clone(), expected: "is not a valid number" };
            match k.as_str() {
                "iterations" => cfg.iterations = v.parse().ok().filter(|&n| n > 0).ok_or_else(bad)?,
                "movetime" => {
                    let secs: f64 = v.parse().ok().filter(|s: &f64| *s > 0.0).ok_or_else(bad)?;
                    cfg.movetime_ms = Some((secs * 1000.0) as u64);
                }
                "seed" => cfg.seed = v.parse().map_err(|_| bad())?,
                "playout" => cfg.playout_plies = v.parse().map_err(|_| bad())?,
                "c" => cfg.exploration = v.parse().map_err(|_| bad())?,
                _ => {
                    let known = "mcts takes iterations, movetime, seed, playout, c";
                    return Err(SettingError::Unknown { what: "setting", name: k.clone(), known });
                }
            }
        }
        Ok(cfg)
    }
}

/// The MCTS player.
pub struct MctsPlayer {
    cfg: MctsConfig,
    rng: SmallRng,
}

impl MctsPlayer {
    /// A player searching with `cfg`; `game_seed` varies its randomness per game.
    pub fn new(cfg: MctsConfig, game_seed: u64) -> Self {
        let rng = SmallRng::seed_from_u64(cfg.seed ^ game_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        MctsPlayer { cfg, rng }
    }
}

struct Node {
    mv: u64,
    /// The player who made `mv` (whose reward this node accumulates).
    mover: Seat,
    visits: u32,
    /// How often this node was available for selection (ISMCTS).
    available: u32,
    reward: f64,
    children: Vec<usize>,
}

impl Player for MctsPlayer {
    fn name(&self) -> String {
        "mcts".into()
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let moves = turn.legal_moves();
        match moves {
            [] => return Err(PlayerError::Plugin(arbiter_api::Error::unsupported("no legal move offered"))),
            [only] => return Ok(Reply { clock_us: Some(0), ..Reply::mv(*only) }),
            _ => {}
        }
        // Never think longer than a twentieth of the clock.
        let deadline_us = match (self.cfg.movetime_ms, turn.budget_ms()) {
            (Some(mt), Some(b)) => Some(mt.min(b / 20)),
            (Some(mt), None) => Some(mt),
            (None, Some(b)) => Some(b / 20),
            (None, None) => None,
        }
        .map(|ms| ms * 1000);
        let mut plies = 0u64;
        let root_player = turn.player();
        let mut tree = vec![Node { mv: 0, mover: root_player, visits: 0, available: 0, reward: 0.0, children: vec![] }];
        let mut buf = MoveBuf::new();
        let mut iterations = 0u32;
        loop {
            let spent = plies * PLY_NS / 1000 >= deadline_us.unwrap_or(u64::MAX);
            let done = match self.cfg.movetime_ms {
                Some(_) => spent,
                None => iterations >= self.cfg.iterations || spent,
            };
            if done && iterations > 0 {
                break;
            }
            // A failing plugin call is the plugin's fault, never this player's.
            let world = turn.sample_world(self.rng.random()).map_err(PlayerError::Plugin)?;
            plies += self.iterate(&mut tree, world, &mut buf).map_err(PlayerError::Plugin)?;
            iterations += 1;
        }
        let best = tree[0]
            .children
            .iter()
            .map(|&c| &tree[c])
            .filter(|n| moves.contains(&n.mv))
            .max_by_key(|n| n.visits)
            .map(|n| n.mv)
            .unwrap_or(moves[0]);
        let root_value = tree[0]
            .children
            .iter()
            .map(|&c| &tree[c])
            .find(|n| n.mv == best)
            .map(|n| n.reward / n.visits.max(1) as f64);
        Ok(Reply {
            score: root_value.map(|v| ((v - 0.5) * 2000.0) as i32),
            clock_us: Some(plies * PLY_NS / 1000),
            ..Reply::mv(best)
        })
    }

    fn on_virtual_clock(&self) -> bool {
        true
    }
}

impl MctsPlayer {
    /// One iteration: selection, expansion, a playout, and the result
    /// backed up; the plies it played.
    fn iterate(&mut self, tree: &mut Vec<Node>, mut world: Game, buf: &mut MoveBuf) -> Result<u64, arbiter_api::Error> {
        let mut plies = 0;
        let mut path = vec![0usize];
        let mut node = 0usize;
        // Selection and expansion.
        loop {
            if !world.status().is_ongoing() {
                break;
            }
            world.legal_moves(buf)?;
            let mover = Seat::new(world.to_move());
            let untried: Vec<u64> =
                buf.iter().copied().filter(|m| !tree[node].children.iter().any(|&c| tree[c].mv == *m)).collect();
            if !untried.is_empty() {
                let mv = untried[self.rng.random_range(0..untried.len())];
                world.apply(mv)?;
                plies += 1;
                tree.push(Node { mv, mover, visits: 0, available: 0, reward: 0.0, children: vec![] });
                let child = tree.len() - 1;
                tree[node].children.push(child);
                path.push(child);
                break;
            }
            let c = self.cfg.exploration;
            let mut best = None;
            let mut best_score = f64::NEG_INFINITY;
            for i in 0..tree[node].children.len() {
                let ch = tree[node].children[i];
                if !buf.contains(&tree[ch].mv) {
                    continue;
                }
                tree[ch].available += 1;
                let n = &tree[ch];
                let score = n.reward / n.visits.max(1) as f64
                    + c * ((n.available.max(1) as f64).ln() / n.visits.max(1) as f64).sqrt();
                if score > best_score {
                    best_score = score;
                    best = Some(ch);
                }
            }
            let Some(ch) = best else { break };
            world.apply(tree[ch].mv)?;
            plies += 1;
            node = ch;
            path.push(ch);
        }
        // Playout.
        for _ in 0..self.cfg.playout_plies {
            if !world.status().is_ongoing() {
                break;
            }
            world.legal_moves(buf)?;
            if buf.is_empty() {
                break;
            }
            world.apply(buf[self.rng.random_range(0..buf.len())])?;
            plies += 1;
        }
        let status = world.status();
        let reward = |player: Seat| -> f64 {
            match status.outcome {
                Outcome::Win(p) => (p == player.number()) as u8 as f64,
                Outcome::Draw | Outcome::Faulted => 0.5,
                Outcome::Ongoing => {
                    world.evaluate(player.number()).map(|v| (v.clamp(-1.0, 1.0) + 1.0) / 2.0).unwrap_or(0.5)
                }
            }
        };
        for &n in &path {
            tree[n].visits += 1;
            tree[n].reward += reward(tree[n].mover);
        }
        Ok(plies)
    }
}

/// `mcts[:iterations=N|movetime=S][,seed=N]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "mcts",
    example: "mcts:iterations=200",
    runs_a_program: false,
    parse: |rest| Ok(Box::new(MctsConfig::from_pairs(&settings_pairs(rest)?)?)),
};

impl KindSpec for MctsConfig {
    fn create(&self, game_seed: u64) -> Box<dyn Player> {
        Box::new(MctsPlayer::new(self.clone(), game_seed))
    }

    /// On its virtual clock, a seeded search repeats itself on any machine.
    fn repeats_itself(&self, _on_a_clock: bool) -> bool {
        true
    }

    /// Each move carries its search's value.
    fn reports_score(&self) -> bool {
        true
    }

    fn refuses(&self, info: &arbiter_api::schema::VariantInfo) -> Option<String> {
        let caps = &info.capabilities;
        (caps.hidden_information && !caps.sample_world).then(|| {
            format!("mcts cannot search {}: it hides information and its plugin offers no sample_world", info.id)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{MctsConfig, MctsPlayer};
    use crate::referee::{play_game, StartFrom};
    use crate::testing::game_config;
    use arbiter_core::seat::Player;
    use arbiter_testing::{options, race, secret, Scripted};

    fn pairs(text: &str) -> Vec<(String, String)> {
        text.split(',').map(|p| p.split_once('=').unwrap()).map(|(k, v)| (k.into(), v.into())).collect()
    }

    #[test]
    fn settings_are_read_by_name_and_a_bad_one_is_named() {
        let cfg = MctsConfig::from_pairs(&pairs("iterations=50,seed=3,playout=10,c=1.4,movetime=0.25")).unwrap();
        assert_eq!(
            cfg,
            MctsConfig { iterations: 50, movetime_ms: Some(250), seed: 3, playout_plies: 10, exploration: 1.4 }
        );
        for (bad, says) in [
            ("iterations=0", "iterations"),
            ("movetime=-1", "movetime"),
            ("depth=3", "mcts takes iterations, movetime, seed, playout, c"),
        ] {
            let e = MctsConfig::from_pairs(&pairs(bad)).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    /// The first move `mcts` (seat 1, to move) plays in race from `position`.
    fn first_move(position: &str, seed: u64) -> String {
        let v = race(arbiter_fixture::Fault::None);
        let cfg = MctsConfig { iterations: 300, seed, ..MctsConfig::default() };
        let mut players: Vec<Box<dyn Player>> =
            vec![Box::new(Scripted::new(vec![])), Box::new(MctsPlayer::new(cfg, 1))];
        let record = play_game(
            &v,
            &options(&v, serde_json::json!({})),
            StartFrom::Position(position),
            &mut players,
            &game_config(),
        )
        .unwrap();
        record.plies[0].text.clone()
    }

    #[test]
    fn it_finds_the_winning_move_of_the_race_whatever_its_seed() {
        // Whoever leaves a total of 1, 4 or 7 wins the race to ten (+1 or +2 a move).
        for seed in 1..4 {
            assert_eq!(first_move("8 3", seed), "+2", "the move that reaches ten");
            assert_eq!(first_move("5 3", seed), "+2", "the move that leaves seven");
            assert_eq!(first_move("3 3", seed), "+1", "the move that leaves four");
        }
    }

    #[test]
    fn on_a_hidden_game_it_plays_legal_moves_to_the_end_from_its_own_view() {
        let v = secret();
        let cfg = MctsConfig { iterations: 40, ..MctsConfig::default() };
        let mut players: Vec<Box<dyn Player>> =
            vec![Box::new(MctsPlayer::new(cfg.clone(), 1)), Box::new(MctsPlayer::new(cfg, 2))];
        let record = play_game(
            &v,
            &options(&v, serde_json::json!({"secrets": "3 7"})),
            StartFrom::Standard,
            &mut players,
            &game_config(),
        )
        .unwrap();
        assert!(
            matches!(record.result.outcome, arbiter_api::Outcome::Win(_) | arbiter_api::Outcome::Draw),
            "{:?}",
            record.result
        );
        assert!(!record.plies.is_empty());
    }
}
