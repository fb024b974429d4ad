//! Per-worker residuals, as fishtest watches its workers: each game's score
//! for its first mover, less what the same pairing (the same players in the
//! same seats, in the same variant) scored on the other workers' games;
//! summed per worker and divided by the sum's standard error, the score's
//! variance pooled over every game of the pairing (the worker's and the
//! others': a reference of a few games that all ended alike has no spread
//! of its own to divide by). Honest workers give residuals near 0; a worker
//! whose results drift (a broken build, a slow machine losing on time, a
//! cheat) shows a large |z| once it has played enough.
//!
//! A verdict needs [`FLAG_GAMES`] games compared and a reference of at
//! least [`FLAG_REFERENCE_WORKERS`] other workers (with two workers alone,
//! each is the other's reference and the two cannot be told apart). The
//! bound [`FLAG_Z`] is for a check made again every minute over a long
//! run: simulated on honest fleets, at most 1 honest worker in 1,000 is
//! flagged over a 10,000-game run (tested below).

use std::collections::BTreeMap;

/// The |z| past which a worker is flagged.
pub const FLAG_Z: f64 = 5.0;

/// The fewest compared games (50 colour-swapped pairs) before a worker may
/// be flagged.
pub const FLAG_GAMES: usize = 100;

/// The fewest other workers a worker must be compared with before it may
/// be flagged.
pub const FLAG_REFERENCE_WORKERS: usize = 2;

/// One game: its pairing (any key naming the variant and the players in
/// their seats), the worker that played it, and the first mover's score.
#[derive(Clone, Debug)]
pub struct Observation {
    /// The pairing.
    pub pairing: String,
    /// The worker.
    pub worker: String,
    /// 1, 0.5 or 0.
    pub score: f64,
}

/// One worker's residual.
#[derive(Clone, Debug, PartialEq)]
pub struct Residual {
    /// The worker.
    pub worker: String,
    /// Its games compared with other workers' games of the same pairing.
    pub games: usize,
    /// How many other workers those games were compared with.
    pub reference_workers: usize,
    /// Its summed residual over the sum's standard error.
    pub z: f64,
}

impl Residual {
    /// Whether the worker's results drift from the others'.
    pub fn flagged(&self) -> bool {
        self.games >= FLAG_GAMES && self.reference_workers >= FLAG_REFERENCE_WORKERS && self.z.abs() > FLAG_Z
    }
}

/// Games, sum of scores and sum of squares.
type Sums = (f64, f64, f64);

/// Each worker's residual, by worker name. A worker's games are compared
/// with the other workers' games only (its own would pull the reference
/// towards it), and only in pairings where others played at least two;
/// the variance is pooled over the pairing's games (the worker's too).
pub fn residuals(games: &[Observation]) -> Vec<Residual> {
    // Per pairing, per worker: games, sum of scores, sum of squares.
    let mut sums: BTreeMap<&str, BTreeMap<&str, Sums>> = BTreeMap::new();
    for g in games {
        let s = sums.entry(&g.pairing).or_default().entry(&g.worker).or_default();
        *s = (s.0 + 1.0, s.1 + g.score, s.2 + g.score * g.score);
    }
    let totals: BTreeMap<&str, Sums> = sums
        .iter()
        .map(|(p, by_worker)| (*p, by_worker.values().fold((0.0, 0.0, 0.0), |a, s| (a.0 + s.0, a.1 + s.1, a.2 + s.2))))
        .collect();
    let workers: std::collections::BTreeSet<&str> = games.iter().map(|g| g.worker.as_str()).collect();
    workers
        .into_iter()
        .map(|worker| {
            let (mut n, mut residual, mut variance) = (0usize, 0.0, 0.0);
            let mut reference: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
            for (pairing, by_worker) in &sums {
                let Some(&(k, sum, squares)) = by_worker.get(worker) else { continue };
                let all = totals[pairing];
                let others = (all.0 - k, all.1 - sum, all.2 - squares);
                if others.0 < 2.0 {
                    continue;
                }
                let mean = others.1 / others.0;
                let pooled_mean = all.1 / all.0;
                let pooled = (all.2 - all.0 * pooled_mean * pooled_mean).max(0.0) / (all.0 - 1.0);
                n += k as usize;
                residual += sum - k * mean;
                // The worker's k games and the reference mean both vary.
                variance += pooled * (k + k * k / others.0);
                reference.extend(by_worker.keys().filter(|w| **w != worker));
            }
            let z = if variance > 0.0 { residual / variance.sqrt() } else { 0.0 };
            Residual { worker: worker.to_string(), games: n, reference_workers: reference.len(), z }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    use super::{residuals, Observation};

    /// `n` games of one pairing by `worker`, the first mover scoring with
    /// probabilities (win, draw).
    fn games(rng: &mut SmallRng, worker: &str, n: usize, win: f64, draw: f64) -> Vec<Observation> {
        (0..n)
            .map(|_| {
                let r: f64 = rng.random();
                let score = if r < win {
                    1.0
                } else if r < win + draw {
                    0.5
                } else {
                    0.0
                };
                Observation { pairing: "chess|a|b".into(), worker: worker.into(), score }
            })
            .collect()
    }

    #[test]
    fn honest_workers_stay_near_zero_and_one_that_drifts_is_flagged() {
        let mut rng = SmallRng::seed_from_u64(7);
        let mut all = Vec::new();
        for w in ["w1", "w2", "w3", "w4"] {
            all.extend(games(&mut rng, w, 400, 0.35, 0.3));
        }
        // The drifting worker's first mover wins far less often.
        all.extend(games(&mut rng, "bad", 400, 0.2, 0.3));
        let r = residuals(&all);
        for honest in r.iter().filter(|r| r.worker != "bad") {
            assert!(!honest.flagged() && honest.z.abs() < 3.0, "{honest:?}");
        }
        let bad = r.iter().find(|r| r.worker == "bad").unwrap();
        assert!(bad.flagged() && bad.z < -5.0, "{bad:?}");
        assert_eq!(bad.games, 400);
    }

    #[test]
    fn a_worker_alone_on_a_pairing_or_with_few_games_is_not_flagged() {
        let mut rng = SmallRng::seed_from_u64(3);
        let alone = residuals(&games(&mut rng, "only", 100, 0.9, 0.0));
        assert_eq!((alone[0].games, alone[0].z), (0, 0.0), "nothing to compare with");
        let mut few = games(&mut rng, "w1", 200, 0.4, 0.2);
        few.extend(games(&mut rng, "w2", 200, 0.4, 0.2));
        few.extend(games(&mut rng, "new", 5, 0.0, 0.0));
        let new = residuals(&few).into_iter().find(|r| r.worker == "new").unwrap();
        assert!(new.z < -1.0 && !new.flagged(), "five games flag nobody: {new:?}");
    }

    /// Two honest workers whose few games of a lopsided pairing nearly all
    /// ended alike (Stockfish against Fairy-Stockfish at 1+0.01 flagged both
    /// after 22 games: each was the other's whole reference, and dividing
    /// by a reference's variance of zero gave z = -3.23 and +5.52).
    #[test]
    fn two_honest_workers_on_a_lopsided_pairing_are_not_flagged() {
        let mut all = Vec::new();
        for (worker, first_mover_scores) in [("w1", [1.0; 22]), ("w2", [1.0; 22])] {
            for (i, score) in first_mover_scores.into_iter().enumerate() {
                let score = if worker == "w1" && i < 2 { 0.5 } else { score };
                all.push(Observation { pairing: "chess|sf|fsf".into(), worker: worker.into(), score });
            }
        }
        for r in residuals(&all) {
            assert!(r.z.is_finite() && r.z.abs() < 3.0 && !r.flagged(), "{r:?}");
            assert_eq!(r.reference_workers, 1);
        }
    }

    /// The false-alarm rate, by simulation on honest data: 1,000 honest
    /// workers (50 runs of a 20-worker fleet over a 10,000-game run, its
    /// games split between two pairings, one lopsided), each checked again
    /// after every 250 games stored (40 looks a run, as the coordinator
    /// looks every minute); at most 1 may be flagged at any look.
    #[test]
    fn at_most_one_honest_worker_in_a_thousand_is_flagged_over_a_long_run() {
        let mut rng = SmallRng::seed_from_u64(2024);
        let mut flagged = std::collections::BTreeSet::new();
        for run in 0..50 {
            // Some workers are faster than others: they play more games.
            let weights: Vec<f64> = (0..20).map(|_| rng.random_range(0.5..2.0)).collect();
            let total: f64 = weights.iter().sum();
            let mut all = Vec::with_capacity(10_000);
            for game in 0..10_000 {
                let mut pick = rng.random_range(0.0..total);
                let worker = weights
                    .iter()
                    .position(|w| {
                        pick -= w;
                        pick < 0.0
                    })
                    .unwrap_or(19);
                let (pairing, win, draw) = if game % 2 == 0 { ("p|a|b", 0.45, 0.3) } else { ("p|b|a", 0.9, 0.08) };
                let r: f64 = rng.random();
                let score = if r < win {
                    1.0
                } else if r < win + draw {
                    0.5
                } else {
                    0.0
                };
                all.push(Observation { pairing: pairing.into(), worker: format!("r{run}w{worker}"), score });
                if (game + 1) % 250 == 0 {
                    flagged.extend(residuals(&all).into_iter().filter(|r| r.flagged()).map(|r| r.worker));
                }
            }
        }
        assert!(flagged.len() <= 1, "{} of 1,000 honest workers flagged: {flagged:?}", flagged.len());
    }
}
