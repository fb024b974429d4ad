//! Gauntlet: the first entrant (the engine under test) meets every other
//! entrant once per cycle; each cycle flips colours.

use super::{repeat_cycle, Finished, Paired, Pairing, PairingFormat};

/// `gauntlet`: The first entrant plays everyone else, `rounds` times.
pub const FORMAT: PairingFormat =
    PairingFormat { name: "gauntlet", pairing: |players, rounds| Box::new(Gauntlet::new(players, rounds)) };

/// A gauntlet of `cycles` cycles.
pub struct Gauntlet {
    cycle: Vec<Vec<(usize, usize)>>,
    cycles: u32,
}

impl Gauntlet {
    /// The gauntlet of entrant 0 against the `players - 1` others, `cycles` times over.
    pub fn new(players: usize, cycles: u32) -> Gauntlet {
        Gauntlet { cycle: (1..players).map(|o| vec![(0, o)]).collect(), cycles }
    }
}

impl Pairing for Gauntlet {
    fn pair(&mut self, number: u32, _history: &[Finished]) -> Option<Paired> {
        repeat_cycle(&self.cycle, self.cycles, number)
    }

    fn waits_for_results(&self) -> bool {
        false
    }

    fn expected_pairings(&self) -> usize {
        self.cycle.len() * self.cycles as usize
    }
}
