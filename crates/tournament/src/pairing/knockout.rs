//! Knockout: seeds in entrant order, bracket 1 v N, 2 v N-1...; top seeds get
//! byes when the field is not a power of two; the pairing's points decide,
//! and on a tie the better seed goes through.

use super::{Finished, Paired, Pairing, PairingFormat};

/// `knockout`: Single elimination.
pub const FORMAT: PairingFormat =
    PairingFormat { name: "knockout", pairing: |players, _rounds| Box::new(Knockout::new(players)) };

/// A single-elimination bracket.
pub struct Knockout {
    players: usize,
    /// Entrants still in, in seed order.
    alive: Vec<usize>,
}

impl Knockout {
    /// The bracket of `players` entrants.
    pub fn new(players: usize) -> Knockout {
        Knockout { players, alive: (0..players).collect() }
    }
}

impl Pairing for Knockout {
    fn pair(&mut self, _number: u32, _history: &[Finished]) -> Option<Paired> {
        if self.alive.len() < 2 {
            return None;
        }
        let size = self.alive.len().next_power_of_two();
        let mut paired = Paired::default();
        for i in 0..size / 2 {
            let a = self.alive[i];
            match self.alive.get(size - 1 - i) {
                Some(&b) => paired.pairs.push((a, b)),
                None => paired.byes.push(a),
            }
        }
        Some(paired)
    }

    /// Who goes through: byes, then each pairing's winner on points (the
    /// better seed, that is the lower index, on a tie), kept in seed order.
    fn finished(&mut self, paired: &Paired, games: &[Finished]) {
        let mut through: Vec<usize> = paired.byes.clone();
        for &(a, b) in &paired.pairs {
            let (pa, pb) = games
                .iter()
                .filter(|g| g.seats.contains(&a) && g.seats.contains(&b))
                .fold((0.0, 0.0), |(x, y), g| (x + g.points_of(a), y + g.points_of(b)));
            through.push(if pa > pb || (pa == pb && a < b) { a } else { b });
        }
        let rank = |e: &usize| self.alive.iter().position(|x| x == e).unwrap_or(usize::MAX);
        through.sort_by_key(rank);
        self.alive = through;
    }

    fn waits_for_results(&self) -> bool {
        true
    }

    fn expected_pairings(&self) -> usize {
        self.players.saturating_sub(1)
    }
}
