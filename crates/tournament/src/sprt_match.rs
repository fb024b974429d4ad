//! An SPRT match is a tournament with a stopping rule: two players play
//! colour-swapped pairs of games (one opening each) until the GSPRT on the
//! pentanomial counts accepts H0 or H1, or the schedule ends.
//!
//! The rule is checked in the transaction that stores each game (see
//! [`arbiter_store::StopRule`]), over the tournament's games in the
//! order they were stored: one machine or many, the first game whose
//! storing makes the test decide ends the tournament, its queue is closed
//! and no further game is claimed. Games in flight at that moment still
//! finish and are stored (no finished game is lost), but they come after
//! the decision in store order and do not change it: [`SprtTally`] counts
//! them apart.

use std::sync::Mutex;

use super::duel::PairTally;
use arbiter_core::stats::sprt::{Sprt, Verdict};
use arbiter_core::sync::LockExt;
use arbiter_store::{RuleCheck, SlotResult, StopRule};

/// An SPRT as the store's stopping rule: the tally through the last game
/// it has counted, advanced by the games stored since (see [`StopRule`]),
/// so that each store reads and counts only the games new to it, not the
/// whole test again.
pub struct SprtRule {
    counted: Mutex<(i64, SprtTally)>,
}

impl SprtRule {
    /// The rule of `sprt`, before any game is counted.
    pub fn new(sprt: Sprt) -> SprtRule {
        SprtRule { counted: Mutex::new((0, SprtTally::new(sprt))) }
    }
}

impl StopRule for SprtRule {
    fn counted_through(&self) -> i64 {
        self.counted.lock_or_recover().0
    }

    fn check(&self, games: Vec<(i64, SlotResult)>) -> RuleCheck<'_> {
        let (mut last, mut tally) = self.counted.lock_or_recover().clone();
        // Another store may have advanced the count since the games were read.
        for (id, game) in games {
            if id > last {
                tally.add(&game);
                last = id;
            }
        }
        let holds = tally.decided();
        let keep = move || {
            let mut counted = self.counted.lock_or_recover();
            if last > counted.0 {
                *counted = (last, tally);
            }
        };
        RuleCheck { holds, keep: Box::new(keep) }
    }
}

/// Where an SPRT stands after the games stored so far.
#[derive(Clone, Debug)]
pub struct SprtTally {
    /// The test.
    pub sprt: Sprt,
    /// The games counted (up to and including the one that decided).
    pub counted: PairTally,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The verdict so far.
    pub verdict: Verdict,
    /// Games stored after the decision (in flight when it was taken).
    pub after_decision: u32,
}

impl SprtTally {
    /// An SPRT before any game.
    pub fn new(sprt: Sprt) -> SprtTally {
        SprtTally { sprt, counted: PairTally::default(), llr: 0.0, verdict: Verdict::Continue, after_decision: 0 }
    }

    /// The tally over `results` in the order they were stored.
    pub fn over(sprt: Sprt, results: &[SlotResult]) -> SprtTally {
        let mut tally = SprtTally::new(sprt);
        for r in results {
            tally.add(r);
        }
        tally
    }

    /// Whether the test has decided.
    pub fn decided(&self) -> bool {
        self.verdict != Verdict::Continue
    }

    /// Counts the next stored game (entrant 0 is the player under test). A
    /// game without a result counts for no one and voids its pair.
    pub fn add(&mut self, game: &SlotResult) {
        if self.decided() {
            self.after_decision += 1;
            return;
        }
        self.counted.add(game);
        // A pentanomial test moves when a pair completes, a trinomial one
        // with every game.
        self.llr = self.sprt.llr(&self.counted.score, &self.counted.pentanomial);
        self.verdict = self.sprt.verdict(self.llr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_testing::match_game as game;

    #[test]
    fn games_stored_after_the_decision_are_counted_apart() {
        let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let mut games = Vec::new();
        for i in 0..200 {
            games.push(game(i, i % 2 == 0, if i % 2 == 0 { "1-0" } else { "0-1" }));
        }
        let t = SprtTally::over(sprt, &games);
        assert_eq!(t.verdict, Verdict::AcceptH1);
        assert_eq!(t.counted.games + t.after_decision, 200);
        assert!(t.counted.games < 200 && t.counted.games.is_multiple_of(2), "{}", t.counted.games);
        assert_eq!(t.counted.pentanomial.pairs() * 2, t.counted.games);
    }

    #[test]
    fn the_rule_counts_only_new_games_and_keeps_a_count_only_once_committed() {
        let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let results = ["1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2", "0-1"];
        let all: Vec<(i64, SlotResult)> =
            (0..60u32).map(|i| (10 + i as i64, game(i, i % 2 == 0, results[i as usize % 6]))).collect();
        let rule = SprtRule::new(sprt);
        // Handed a few games at a time, each batch kept after its commit.
        for batch in all.chunks(7) {
            let from = rule.counted_through();
            let new: Vec<_> = all.iter().filter(|(id, _)| *id > from).take(batch.len()).cloned().collect();
            (rule.check(new).keep)();
        }
        let whole = SprtTally::over(sprt, &all.iter().map(|(_, g)| g.clone()).collect::<Vec<_>>());
        let counted = rule.counted.lock_or_recover().1.clone();
        assert_eq!(rule.counted_through(), 69);
        assert_eq!(
            (counted.counted.games, counted.counted.score, counted.counted.pentanomial),
            (whole.counted.games, whole.counted.score, whole.counted.pentanomial)
        );
        // A check whose transaction rolled back keeps nothing.
        let extra = (70, game(60, true, "1-0"));
        drop(rule.check(vec![extra.clone()]));
        assert_eq!(rule.counted_through(), 69);
        // Games another store counted meanwhile are not counted twice.
        (rule.check(vec![extra.clone()]).keep)();
        let before = rule.counted.lock_or_recover().1.counted.games;
        (rule.check(vec![extra]).keep)();
        assert_eq!(rule.counted.lock_or_recover().1.counted.games, before);
    }
}
