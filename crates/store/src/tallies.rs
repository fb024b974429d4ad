//! What standings read: a tournament's games and colour-swapped pairs
//! counted by outcome, kept up to date as each game is stored.

use arbiter_core::model::{GameRecord, Seat};
use arbiter_play::record::EventInfo;

/// A finished tournament game, as scheduling and standings need it.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotResult {
    /// Index in the schedule.
    pub index: u32,
    /// Pair id, if paired.
    pub pair: Option<u32>,
    /// Entrant indices in turn order.
    pub seats: Vec<usize>,
    /// Variant id.
    pub variant: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The winner's seat, if any.
    pub winner: Option<Seat>,
}

impl SlotResult {
    /// What the store keeps of a tournament game (`None` outside a tournament).
    pub fn of(record: &GameRecord, event: &EventInfo) -> Option<SlotResult> {
        let slot = event.tournament.as_ref()?;
        Some(SlotResult {
            index: slot.index,
            pair: slot.pair,
            seats: slot.seats.clone(),
            variant: record.variant.clone(),
            result: record.result.pgn().to_string(),
            winner: Seat::winner(record.result.outcome),
        })
    }
}

/// A tournament's games with one outcome between the same seats in one
/// variant, counted in the transaction that stores each game: standings
/// read these few rows, not every game.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tally {
    /// Variant id.
    pub variant: String,
    /// Entrant indices in turn order.
    pub seats: Vec<usize>,
    /// The winner's seat, if any.
    pub winner: Option<Seat>,
    /// Whether the games have a result (`*` games count for nobody).
    pub decided: bool,
    /// How many games.
    pub games: u64,
}

/// Complete pairs (one opening, colours swapped, both with a result)
/// between two entrants in one variant, counted by the points the lower
/// entrant scored in them, as each pair's second game is stored.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PairTally {
    /// Variant id.
    pub variant: String,
    /// The two entrants, lower index first.
    pub entrants: (usize, usize),
    /// The lower entrant's points in the pair, in half points (0 to 4).
    pub half_points: u8,
    /// How many pairs.
    pub pairs: u64,
}

/// Rows each count of a tally is spread over.
pub(super) const TALLY_SHARDS: u32 = 16;

/// SQL that takes an SQLite store back to the schema before it kept
/// tallies, so that the next open counts every game again (for stores
/// grown behind its back, as tests and benchmarks do).
pub const FORGET_TALLIES: &str = "DROP TABLE tallies; DROP TABLE pair_tallies; DROP TABLE worker_tallies;
    DROP INDEX game_queue_open; DROP INDEX IF EXISTS games_by_tournament;
    ALTER TABLE games ADD COLUMN moves TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE games ADD COLUMN pgn TEXT NOT NULL DEFAULT ''; DROP TABLE IF EXISTS plugin_files;
    DROP TABLE IF EXISTS worker_tokens; DROP TABLE IF EXISTS refused_uploads; DROP TABLE IF EXISTS game_checks;
    PRAGMA user_version = 4;";

/// What standings read of a tournament: its games and pairs, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tallies {
    /// Games by variant, seats and outcome.
    pub games: Vec<Tally>,
    /// Complete pairs by variant, entrants and points.
    pub pairs: Vec<PairTally>,
}

impl Tallies {
    /// How many games are counted.
    pub fn games(&self) -> u64 {
        self.games.iter().map(|t| t.games).sum()
    }

    /// The tallies of a tournament's games, counted from scratch (what the
    /// store keeps up to date game by game; it rebuilds them so for stores
    /// written before it kept them).
    pub fn of(results: &[SlotResult]) -> Tallies {
        let mut games: std::collections::BTreeMap<(String, Vec<usize>, Option<Seat>, bool), u64> = Default::default();
        let mut pairs: std::collections::BTreeMap<(String, (usize, usize), u8), u64> = Default::default();
        let by_index: std::collections::HashMap<u32, &SlotResult> = results.iter().map(|r| (r.index, r)).collect();
        for r in results {
            *games.entry((r.variant.clone(), r.seats.clone(), r.winner, r.decided())).or_default() += 1;
            // Each pair once: from its first game.
            if r.pair == Some(r.index) {
                if let Some(second) = by_index.get(&(r.index + 1)) {
                    if let Some((entrants, half_points)) = pair_points(r, second) {
                        *pairs.entry((r.variant.clone(), entrants, half_points)).or_default() += 1;
                    }
                }
            }
        }
        Tallies {
            games: games
                .into_iter()
                .map(|((variant, seats, winner, decided), games)| Tally { variant, seats, winner, decided, games })
                .collect(),
            pairs: pairs
                .into_iter()
                .map(|((variant, entrants, half_points), pairs)| PairTally { variant, entrants, half_points, pairs })
                .collect(),
        }
    }
}

impl SlotResult {
    /// Whether the game has a result.
    pub fn decided(&self) -> bool {
        self.result != "*"
    }

    /// Which of a tally's rows this game adds to: a count is spread over
    /// [`TALLY_SHARDS`] rows (summed when read), so that workers storing
    /// games at once do not all wait for one row's lock.
    pub(super) fn shard(&self) -> u32 {
        self.index % TALLY_SHARDS
    }

    /// The index of the other game of this game's pair, if it is paired.
    pub(super) fn other_half(&self) -> Option<u32> {
        let pair = self.pair?;
        Some(if pair == self.index { self.index + 1 } else { pair })
    }
}

/// The pair two games of one pair make, if both have a result between the
/// same two entrants: the entrants (lower first) and the lower one's points
/// in half points.
pub(super) fn pair_points(a: &SlotResult, b: &SlotResult) -> Option<((usize, usize), u8)> {
    let two = |g: &SlotResult| (g.decided() && g.seats.len() == 2 && g.pair.is_some()).then_some(());
    two(a)?;
    two(b)?;
    let low = a.seats[0].min(a.seats[1]);
    let high = a.seats[0].max(a.seats[1]);
    if a.pair != b.pair || b.seats.iter().any(|e| *e != low && *e != high) {
        return None;
    }
    let half_points = |g: &SlotResult| match g.winner {
        None => 1,
        Some(w) if g.seats.get(w.index()) == Some(&low) => 2,
        Some(_) => 0,
    };
    Some(((low, high), half_points(a) + half_points(b)))
}
