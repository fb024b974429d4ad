//! Round-robin: everyone meets everyone once per cycle, by the circle method
//! (the first seat fixed, the others rotating); each cycle flips colours.

use super::{repeat_cycle, Finished, Paired, Pairing, PairingFormat};

/// `round-robin`: Everyone plays everyone, `rounds` times.
pub const FORMAT: PairingFormat =
    PairingFormat { name: "round-robin", pairing: |players, rounds| Box::new(RoundRobin::new(players, rounds)) };

/// A round-robin of `cycles` cycles.
pub struct RoundRobin {
    cycle: Vec<Vec<(usize, usize)>>,
    cycles: u32,
}

impl RoundRobin {
    /// The round-robin of `players` entrants, `cycles` times over.
    pub fn new(players: usize, cycles: u32) -> RoundRobin {
        RoundRobin { cycle: circle(players), cycles }
    }
}

impl Pairing for RoundRobin {
    fn pair(&mut self, number: u32, _history: &[Finished]) -> Option<Paired> {
        repeat_cycle(&self.cycle, self.cycles, number)
    }

    fn waits_for_results(&self) -> bool {
        false
    }

    fn expected_pairings(&self) -> usize {
        self.cycle.iter().map(Vec::len).sum::<usize>() * self.cycles as usize
    }
}

/// One cycle by the circle method; a dummy seat makes an odd field even.
fn circle(n: usize) -> Vec<Vec<(usize, usize)>> {
    let m = if n.is_multiple_of(2) { n } else { n + 1 };
    let mut ring: Vec<usize> = (0..m).collect();
    let mut rounds = Vec::new();
    for r in 0..m.saturating_sub(1) {
        let mut pairs = Vec::new();
        for i in 0..m / 2 {
            let (a, b) = (ring[i], ring[m - 1 - i]);
            if a < n && b < n {
                // Alternate who is first so colours even out over the cycle.
                pairs.push(if (r + i) % 2 == 0 { (a, b) } else { (b, a) });
            }
        }
        rounds.push(pairs);
        let last = ring.pop().expect("m >= 2");
        ring.insert(1, last);
    }
    rounds
}
