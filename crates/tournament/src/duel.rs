//! Two entrants, many games (`arbiter match` and `arbiter sprt`, both
//! tournaments of two players): the first entrant's score and its
//! colour-swapped pairs, counted game by game as the games are stored, in
//! whatever order they finish.

use std::collections::HashMap;

use arbiter_core::stats::sprt::Pentanomial;
use arbiter_core::stats::Score;
use arbiter_store::SlotResult;

/// The first entrant's results over the games counted so far.
#[derive(Clone, Debug, Default)]
pub struct PairTally {
    /// Games counted.
    pub games: u32,
    /// The first entrant's plain score (a game without a result counts for no one).
    pub score: Score,
    /// Its complete colour-swapped pairs; a game without a result voids its pair.
    pub pentanomial: Pentanomial,
    /// Halves of pairs waiting for their other game, by pair id.
    halves: HashMap<u32, Option<f64>>,
}

impl PairTally {
    /// Counts the next game (its pair completes when both halves are in,
    /// in either order).
    pub fn add(&mut self, game: &SlotResult) {
        let points = first_points(game);
        if let Some(p) = points {
            self.score.add(p);
        }
        self.games += 1;
        let pair = game.pair.unwrap_or(game.index);
        match (self.halves.remove(&pair), points) {
            (Some(Some(other)), Some(p)) => self.pentanomial.add_pair(other, p),
            (Some(_), _) => {}
            (None, p) => {
                self.halves.insert(pair, p);
            }
        }
    }
}

/// Entrant 0's points in a stored game, in whichever seat it sat; `None`
/// for a game without a result (its plugin's fault).
pub fn first_points(game: &SlotResult) -> Option<f64> {
    if game.result == "*" {
        return None;
    }
    Some(match game.winner {
        None => 0.5,
        Some(w) if game.seats.get(w.index()) == Some(&0) => 1.0,
        Some(_) => 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::{first_points, PairTally};
    use arbiter_testing::match_game as game;

    #[test]
    fn the_first_entrant_s_points_follow_it_to_either_seat() {
        assert_eq!(first_points(&game(0, true, "1-0")), Some(1.0));
        assert_eq!(first_points(&game(1, false, "1-0")), Some(0.0));
        assert_eq!(first_points(&game(1, false, "0-1")), Some(1.0));
        assert_eq!(first_points(&game(1, false, "1/2-1/2")), Some(0.5));
        assert_eq!(first_points(&game(0, true, "*")), None, "a plugin's fault counts for no one");
    }

    #[test]
    fn pairs_count_once_both_halves_are_in_whatever_the_order_and_a_void_game_voids_its_pair() {
        let mut t = PairTally::default();
        for g in [
            game(1, false, "0-1"), // the first entrant wins with black...
            game(0, true, "1-0"),  // ...and with white: a 2-point pair
            game(2, true, "*"),
            game(3, false, "1/2-1/2"),
            game(4, true, "1/2-1/2"), // half a pair: in the score, not yet in the pairs
        ] {
            t.add(&g);
        }
        assert_eq!(t.games, 5);
        assert_eq!((t.score.wins, t.score.draws, t.score.losses), (2, 2, 0));
        assert_eq!(t.pentanomial.counts, [0, 0, 0, 0, 1]);
        t.add(&game(5, false, "1-0"));
        assert_eq!(t.pentanomial.counts, [0, 1, 0, 0, 1], "a draw and a loss: half a point");
    }
}
