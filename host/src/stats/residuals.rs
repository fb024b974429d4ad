//! Per-worker residuals, as fishtest watches its workers: each game's score
//! for its first mover, less what the same pairing (the same players in the
//! same seats, in the same variant) scored on the other workers' games;
//! summed per worker and divided by the sum's standard error. Honest
//! workers give residuals near 0 (|z| under 3 but for one worker in several
//! hundred); a worker whose results drift (a broken build, a slow machine
//! losing on time, a cheat) shows a large |z| once it has played enough.

use std::collections::BTreeMap;

/// The |z| past which a worker is flagged.
pub const FLAG_Z: f64 = 3.0;

/// The fewest compared games before a worker may be flagged.
pub const FLAG_GAMES: usize = 20;

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
    /// Its summed residual over the sum's standard error.
    pub z: f64,
}

impl Residual {
    /// Whether the worker's results drift from the others'.
    pub fn flagged(&self) -> bool {
        self.games >= FLAG_GAMES && self.z.abs() > FLAG_Z
    }
}

/// Each worker's residual, by worker name. A worker's games are compared
/// with the other workers' games only (its own would pull the reference
/// towards it), and only in pairings where others played at least two.
pub fn residuals(games: &[Observation]) -> Vec<Residual> {
    // Per pairing, per worker: games, sum of scores, sum of squares.
    let mut sums: BTreeMap<&str, BTreeMap<&str, (f64, f64, f64)>> = BTreeMap::new();
    for g in games {
        let s = sums.entry(&g.pairing).or_default().entry(&g.worker).or_default();
        *s = (s.0 + 1.0, s.1 + g.score, s.2 + g.score * g.score);
    }
    let workers: std::collections::BTreeSet<&str> = games.iter().map(|g| g.worker.as_str()).collect();
    workers
        .into_iter()
        .map(|worker| {
            let (mut n, mut residual, mut variance) = (0usize, 0.0, 0.0);
            for by_worker in sums.values() {
                let Some(&(k, sum, _)) = by_worker.get(worker) else { continue };
                let others = by_worker
                    .iter()
                    .filter(|(w, _)| **w != worker)
                    .fold((0.0, 0.0, 0.0), |a, (_, s)| (a.0 + s.0, a.1 + s.1, a.2 + s.2));
                if others.0 < 2.0 {
                    continue;
                }
                let mean = others.1 / others.0;
                let var = (others.2 / others.0 - mean * mean).max(0.0) * others.0 / (others.0 - 1.0);
                n += k as usize;
                residual += sum - k * mean;
                // The worker's k games and the reference mean both vary.
                variance += var * (k + k * k / others.0);
            }
            let z = if variance > 0.0 { residual / variance.sqrt() } else { 0.0 };
            Residual { worker: worker.to_string(), games: n, z }
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
        few.extend(games(&mut rng, "new", 5, 0.0, 0.0));
        let new = residuals(&few).into_iter().find(|r| r.worker == "new").unwrap();
        assert!(new.z < -2.0 && !new.flagged(), "five games flag nobody: {new:?}");
    }
}
