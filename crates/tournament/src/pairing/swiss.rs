//! Swiss: entrants sorted by points, then seed; from the top, each unpaired
//! entrant meets the highest-ranked entrant it has not met yet (backtracking
//! when a later entrant would be left without a legal opponent; repeats only
//! when unavoidable). With an odd field, the lowest-ranked entrant who has
//! had the fewest byes sits out.

use super::{Finished, Paired, Pairing, PairingFormat};

/// `swiss`: `rounds` Swiss rounds.
pub const FORMAT: PairingFormat =
    PairingFormat { name: "swiss", pairing: |players, rounds| Box::new(Swiss::new(players, rounds)) };

/// A Swiss tournament of a fixed number of rounds.
pub struct Swiss {
    players: usize,
    rounds: u32,
    byes_had: Vec<u32>,
}

impl Swiss {
    /// `rounds` Swiss rounds for `players` entrants.
    pub fn new(players: usize, rounds: u32) -> Swiss {
        Swiss { players, rounds, byes_had: vec![0; players] }
    }
}

impl Pairing for Swiss {
    fn pair(&mut self, number: u32, history: &[Finished]) -> Option<Paired> {
        if number > self.rounds {
            return None;
        }
        let n = self.players;
        let mut points = vec![0.0; n];
        let mut met = vec![vec![false; n]; n];
        for f in history {
            for &e in &f.seats {
                points[e] += f.points_of(e);
            }
            met[f.seats[0]][f.seats[1]] = true;
            met[f.seats[1]][f.seats[0]] = true;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| points[b].total_cmp(&points[a]).then(a.cmp(&b)));
        let mut byes = Vec::new();
        if n % 2 == 1 {
            let fewest = *self.byes_had.iter().min().unwrap_or(&0);
            let bye = *order.iter().rev().find(|&&e| self.byes_had[e] == fewest).expect("someone has the fewest byes");
            self.byes_had[bye] += 1;
            order.retain(|&e| e != bye);
            byes.push(bye);
        }
        let pairs = pair_greedy(&order, &met, true).or_else(|| pair_greedy(&order, &met, false)).unwrap_or_default();
        Some(Paired { pairs, byes })
    }

    fn waits_for_results(&self) -> bool {
        true
    }

    fn expected_pairings(&self) -> usize {
        self.rounds as usize * (self.players / 2)
    }
}

/// Pairs `order` top-down, each with the best-ranked legal opponent,
/// backtracking; `strict` forbids repeat pairings.
fn pair_greedy(order: &[usize], met: &[Vec<bool>], strict: bool) -> Option<Vec<(usize, usize)>> {
    if order.is_empty() {
        return Some(Vec::new());
    }
    let first = order[0];
    for k in 1..order.len() {
        let other = order[k];
        if strict && met[first][other] {
            continue;
        }
        let rest: Vec<usize> = order[1..].iter().copied().filter(|&e| e != other).collect();
        if let Some(mut pairs) = pair_greedy(&rest, met, strict) {
            pairs.insert(0, (first, other));
            return Some(pairs);
        }
    }
    None
}
