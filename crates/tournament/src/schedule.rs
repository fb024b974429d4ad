//! The schedule: which games a tournament plays, round by round, as a pure
//! function of its definition and (for systems that wait for results) the
//! results of the rounds before. Replaying it after a kill therefore gives
//! exactly the same games with the same indices, which is what `--resume`
//! relies on.
//!
//! Each format is a pairing system (`tournament::pairing`); this module
//! turns its pairings into games: every pairing plays each variant
//! `games_per_pairing` times; consecutive games of a pairing form pairs with
//! one opening and colours swapped, the first-named entrant first in the
//! pair's first game (`reverse`: the second-named); each pair takes the
//! variant's next opening, wrapping. With `noswap` there are no pairs: every
//! game takes the next opening, the first-named (or with `reverse` the
//! second-named) entrant first, as cutechess-cli's and fastchess's
//! `-noswap` and `-reverse`. With `fair_openings` each pairing counts its own
//! pairs: every pairing plays the openings from the first, in order, so no
//! opponent of a gauntlet gets easier openings than another.

use super::config::TournamentConfig;
pub use super::pairing::Finished;

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
/// of openings of variant `v` (0 for none), one entry a variant.
pub fn plan(cfg: &TournamentConfig, openings: &[usize], results: &dyn Fn(u32) -> Option<Finished>) -> Vec<Round> {
    let mut system = cfg.format.pairing(cfg.players.len(), cfg.rounds);
    let mut rounds = Vec::new();
    let mut next_index = 0u32;
    // Pairs played so far, by variant and (with fair openings) by pairing.
    let mut pairs_used: std::collections::HashMap<(usize, Option<(usize, usize)>), usize> = Default::default();
    let mut history: Vec<Finished> = Vec::new();
    for round_no in 1.. {
        let Some(paired) = system.pair(round_no, &history) else { break };
        let mut games = Vec::new();
        for (a, b) in &paired.pairs {
            for (v, &book) in openings.iter().enumerate() {
                for k in 0..cfg.games_per_pairing {
                    let index = next_index;
                    next_index += 1;
                    let in_pair = !cfg.noswap
                        && cfg.games_per_pairing >= 2
                        && !(cfg.games_per_pairing % 2 == 1 && k == cfg.games_per_pairing - 1);
                    let first_of_pair = k % 2 == 0;
                    let counter = pairs_used.entry((v, cfg.fair_openings.then(|| (*a.min(b), *a.max(b))))).or_default();
                    // Without swaps every game is a pair of its own: a new opening.
                    if first_of_pair || cfg.noswap {
                        *counter += 1;
                    }
                    let opening = (book > 0).then(|| (*counter - 1) % book);
                    let first = if cfg.reverse { [*b, *a] } else { [*a, *b] };
                    games.push(Planned {
                        index,
                        round: round_no,
                        variant: v,
                        seats: if first_of_pair || cfg.noswap { first } else { [first[1], first[0]] },
                        opening,
                        pair: in_pair.then(|| if first_of_pair { index } else { index - 1 }),
                        seed: arbiter_core::model::seeds::game_seed(cfg.seed, index as u64),
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

#[cfg(test)]
mod tests;
