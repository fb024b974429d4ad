//! The schedule: which games a tournament plays, round by round, as a pure
//! function of its definition and (for systems that wait for results) the
//! results of the rounds before. Replaying it after a kill therefore gives
//! exactly the same games with the same indices, which is what `--resume`
//! relies on.
//!
//! Each format is a [`Pairing`] system in a file of its own below; this
//! module turns its pairings into games: every pairing plays each variant
//! `games_per_pairing` times; consecutive games of a pairing form pairs with
//! one opening and colours swapped, the first-named entrant first in the
//! pair's first game (`reverse`: the second-named); each pair takes the
//! variant's next opening, wrapping. With `noswap` there are no pairs: every
//! game takes the next opening, the first-named (or with `reverse` the
//! second-named) entrant first, as cutechess-cli's and fastchess's
//! `-noswap` and `-reverse`. Adding a format is a file implementing
//! [`Pairing`] and a variant of [`Format`] (which names it) with its arm in
//! [`Format::pairing`].

mod gauntlet;
mod knockout;
mod round_robin;
mod swiss;

use super::config::{Format, TournamentConfig};

/// What a pairing system decides for one round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Paired {
    /// Pairings, the first-named entrant moving first in the pair's first game.
    pub pairs: Vec<(usize, usize)>,
    /// Entrants sitting out, credited a full win for every game the round
    /// would have given them.
    pub byes: Vec<usize>,
}

/// A pairing system (round-robin, Swiss...), as fastchess's schedulers are.
pub trait Pairing {
    /// Round `number`'s (1-based) pairings given every game of the finished
    /// rounds before it, or `None` when the tournament has no more rounds.
    fn pair(&mut self, number: u32, history: &[Finished]) -> Option<Paired>;
    /// Told the games of round `paired` once all are finished.
    fn finished(&mut self, _paired: &Paired, _games: &[Finished]) {}
    /// Whether a round can be paired only once the round before is finished.
    fn waits_for_results(&self) -> bool;
    /// How many pairings the whole tournament plays, for progress.
    fn expected_pairings(&self) -> usize;
}

impl Format {
    /// The pairing system of this format for `players` entrants and the
    /// definition's `rounds`.
    pub fn pairing(self, players: usize, rounds: u32) -> Box<dyn Pairing> {
        match self {
            Format::RoundRobin => Box::new(round_robin::RoundRobin::new(players, rounds)),
            Format::Gauntlet => Box::new(gauntlet::Gauntlet::new(players, rounds)),
            Format::Swiss => Box::new(swiss::Swiss::new(players, rounds)),
            Format::Knockout => Box::new(knockout::Knockout::new(players)),
        }
    }
}

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// Index in the tournament (unique, dense, in schedule order).
    pub index: u32,
    /// Round (1-based).
    pub round: u32,
    /// Index into the tournament's variant list.
    pub variant: usize,
    /// Entrant indices in turn order.
    pub seats: [usize; 2],
    /// Index into the variant's opening list, if it has one.
    pub opening: Option<usize>,
    /// Index of the first game of this game's colour-swapped pair.
    pub pair: Option<u32>,
    /// Seed for seeded players.
    pub seed: u64,
}

/// A finished game as the schedule needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finished {
    /// Entrant indices in turn order.
    pub seats: [usize; 2],
    /// Winner's seat, or `None` for a draw.
    pub winner: Option<usize>,
}

impl Finished {
    /// Points scored by entrant `e` in this game.
    pub fn points_of(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(seat) if self.seats[seat] == e => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// One round of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// Round number (1-based).
    pub number: u32,
    /// Its games.
    pub games: Vec<Planned>,
    /// An entrant sitting out with a bye (Swiss, knockout), credited a full win
    /// for every game the round would have given it.
    pub byes: Vec<usize>,
}

/// Plans the whole tournament given the finished games by index; stops at the
/// first round that needs results not yet known. `openings[v]` is the number
/// of openings of variant `v` (0 for none).
pub fn plan(
    cfg: &TournamentConfig,
    n_variants: usize,
    openings: &[usize],
    results: &dyn Fn(u32) -> Option<Finished>,
) -> Vec<Round> {
    let mut system = cfg.format.pairing(cfg.players.len(), cfg.rounds);
    let mut rounds = Vec::new();
    let mut next_index = 0u32;
    let mut pairs_used = vec![0usize; n_variants];
    let mut history: Vec<Finished> = Vec::new();
    for round_no in 1.. {
        let Some(paired) = system.pair(round_no, &history) else { break };
        let mut games = Vec::new();
        for (a, b) in &paired.pairs {
            for v in 0..n_variants {
                for k in 0..cfg.games_per_pairing {
                    let index = next_index;
                    next_index += 1;
                    let in_pair = !cfg.noswap
                        && cfg.games_per_pairing >= 2
                        && !(cfg.games_per_pairing % 2 == 1 && k == cfg.games_per_pairing - 1);
                    let first_of_pair = k % 2 == 0;
                    // Without swaps every game is a pair of its own: a new opening.
                    if first_of_pair || cfg.noswap {
                        pairs_used[v] += 1;
                    }
                    let opening = (openings[v] > 0).then(|| (pairs_used[v] - 1) % openings[v]);
                    let first = if cfg.reverse { [*b, *a] } else { [*a, *b] };
                    games.push(Planned {
                        index,
                        round: round_no,
                        variant: v,
                        seats: if first_of_pair || cfg.noswap { first } else { [first[1], first[0]] },
                        opening,
                        pair: in_pair.then(|| if first_of_pair { index } else { index - 1 }),
                        seed: crate::model::seeds::game_seed(cfg.seed, index as u64),
                    });
                }
            }
        }
        let finished: Option<Vec<Finished>> = games.iter().map(|g| results(g.index)).collect();
        rounds.push(Round { number: round_no, games, byes: paired.byes.clone() });
        match finished {
            Some(f) => {
                system.finished(&paired, &f);
                history.extend(f);
            }
            // Later rounds need this round's results.
            None if system.waits_for_results() => break,
            None => {}
        }
    }
    rounds
}

/// Round `number` of a fixed cycle of rounds played `cycles` times, colours
/// flipped every other cycle (round-robin, gauntlet).
fn repeat_cycle(cycle: &[Vec<(usize, usize)>], cycles: u32, number: u32) -> Option<Paired> {
    let per_cycle = cycle.len() as u32;
    if per_cycle == 0 || number > per_cycle * cycles {
        return None;
    }
    let flip = (number - 1) / per_cycle % 2 == 1;
    let pairs = cycle[((number - 1) % per_cycle) as usize].iter().map(|&(a, b)| if flip { (b, a) } else { (a, b) });
    Some(Paired { pairs: pairs.collect(), byes: Vec::new() })
}

#[cfg(test)]
mod tests;
