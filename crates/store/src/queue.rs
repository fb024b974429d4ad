//! The queue: games of a tournament waiting for workers, claimed one
//! worker at a time under a lease, and taken off when stored.

use super::games::{GameColumns, StopRule, StoredBatch, Storing};
use super::{now_ms, Store, StoreError, StoreFailure};
use arbiter_core::model::GameRecord;
use arbiter_play::record::EventInfo;

/// A game waiting in a store's queue for a worker (see
/// `tournament::queue`).
#[derive(Clone, Debug, PartialEq)]
pub struct QueuedGame {
    /// Its tournament.
    pub tournament: i64,
    /// Its index in the tournament's schedule.
    pub index: u32,
    /// The event name its record carries.
    pub event: String,
    /// Its round.
    pub round: u32,
    /// Its colour-swapped pair, if any.
    pub pair: Option<u32>,
    /// Entrant indices in turn order.
    pub seats: Vec<usize>,
    /// The worker job (`tournament::worker::Job`) as JSON.
    pub job: String,
}

/// What the queue workers of one host did for a tournament.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkerRate {
    /// The host the workers ran on.
    pub host: String,
    /// Games they stored.
    pub games: u64,
    /// Games per minute, from the first game's start to the last one's end.
    pub per_minute: f64,
}

impl WorkerRate {
    pub(super) fn new(host: String, games: i64, first_start_s: i64, last_end_ms: i64) -> WorkerRate {
        let minutes = ((last_end_ms - first_start_s * 1000) as f64 / 60_000.0).max(1.0 / 60.0);
        WorkerRate { host, games: games as u64, per_minute: games as f64 / minutes }
    }
}

/// A queued game claimed by one worker until its lease runs out.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// The game.
    pub game: QueuedGame,
    /// Who claimed it (`host:pid#slot`).
    pub holder: String,
}

/// A queued game with its claim and whether it is stored: what the
/// coordinator of remote workers checks an upload against.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueEntry {
    /// The game as it was queued (its job is the one to hold a record to).
    pub game: QueuedGame,
    /// Who holds it (or held it last: the lease may have run out).
    pub holder: Option<String>,
    /// Whether a result is stored for it.
    pub stored: bool,
    /// The worker whose result was stored, if a worker's was.
    pub stored_by: Option<String>,
}

/// What a store backend does with the queue (the [`Store`] methods of the
/// same names say what each does).
pub(super) trait QueueBackend {
    fn enqueue(&self, games: &[QueuedGame]) -> Result<usize, StoreFailure>;

    /// Claims up to `most` claimable games in queue order, in one transaction.
    #[allow(clippy::too_many_arguments)]
    fn claim(
        &self,
        holder: &str,
        until_ms: i64,
        now_ms: i64,
        tournament: Option<i64>,
        skip: &[i64],
        most: usize,
    ) -> Result<Vec<Claim>, StoreFailure>;

    fn renew_claims(&self, claims: &[Claim], until_ms: i64) -> Result<(), StoreFailure>;

    fn release_claims(&self, claims: &[Claim]) -> Result<(), StoreFailure>;

    /// Games of `tournament` not yet stored, and of those the ones claimed
    /// under a lease that has not run out at `now_ms`.
    fn queue_counts(&self, tournament: i64, now_ms: i64) -> Result<(u64, u64), StoreFailure>;

    fn queue_open(&self, tournament: i64) -> Result<bool, StoreFailure>;

    fn worker_rates(&self, tournament: i64) -> Result<Vec<WorkerRate>, StoreFailure>;

    fn queued_indices(&self, tournament: i64) -> Result<Vec<u32>, StoreFailure>;

    fn queue_entry(&self, tournament: i64, index: u32) -> Result<Option<QueueEntry>, StoreFailure>;
}

impl Store {
    /// Puts games in the queue, but none already queued or stored; returns
    /// how many were added.
    pub fn enqueue(&self, games: &[QueuedGame]) -> Result<usize, StoreError> {
        self.backend.enqueue(games).map_err(|e| self.err(e))
    }

    /// Claims up to `most` queued games that nobody holds (or whose
    /// holder's lease ran out) for `holder`, for `lease`, the first in
    /// queue order, all of one tournament: of `tournament` if given, of none
    /// of `skip`. One transaction, so no two workers hold one game.
    pub fn claim(
        &self,
        holder: &str,
        lease: std::time::Duration,
        tournament: Option<i64>,
        skip: &[i64],
        most: usize,
    ) -> Result<Vec<Claim>, StoreError> {
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        let mut claims =
            self.backend.claim(holder, until, now, tournament, skip, most.max(1)).map_err(|e| self.err(e))?;
        // The queue's end of one tournament met the next one's start: those
        // go back (a batch is stored in one transaction, under one rule).
        if let Some(first) = claims.first().map(|c| c.game.tournament) {
            let others: Vec<Claim> = claims.iter().filter(|c| c.game.tournament != first).cloned().collect();
            if !others.is_empty() {
                claims.retain(|c| c.game.tournament == first);
                self.release_claims(&others)?;
            }
        }
        Ok(claims)
    }

    /// Extends claims (the worker's heartbeat).
    pub fn renew_claims(&self, claims: &[Claim], lease: std::time::Duration) -> Result<(), StoreError> {
        self.backend.renew_claims(claims, now_ms() + lease.as_millis() as i64).map_err(|e| self.err(e))
    }

    /// Gives claimed games back to the queue.
    pub fn release_claims(&self, claims: &[Claim]) -> Result<(), StoreError> {
        self.backend.release_claims(claims).map_err(|e| self.err(e))
    }

    /// Stores claimed games of one tournament and takes them off the queue,
    /// in one transaction that also checks the tournament's stopping rule; a
    /// game's id is `None` when another worker stored it first (this result
    /// is then discarded).
    pub fn complete_claims(
        &self,
        games: &[(&Claim, &GameRecord, &EventInfo)],
        stop: Option<&dyn StopRule>,
    ) -> Result<StoredBatch, StoreError> {
        let storing: Vec<Storing<'_>> =
            games.iter().map(|(c, r, e)| Storing { columns: GameColumns::new(r, e), claim: Some(*c) }).collect();
        self.backend.add_games(&storing, stop).map_err(|e| self.err(e))
    }

    /// Game `index` of `tournament` as queued, with its claim and whether
    /// (and by which worker) it is stored.
    pub fn queue_entry(&self, tournament: i64, index: u32) -> Result<Option<QueueEntry>, StoreError> {
        self.backend.queue_entry(tournament, index).map_err(|e| self.err(e))
    }

    /// The indices of every game of `tournament` ever queued (done or not).
    pub fn queued_indices(&self, tournament: i64) -> Result<Vec<u32>, StoreError> {
        self.backend.queued_indices(tournament).map_err(|e| self.err(e))
    }

    /// Per worker host, the games its queue workers stored for `tournament`
    /// and their rate (none for games a local run played).
    pub fn worker_rates(&self, tournament: i64) -> Result<Vec<WorkerRate>, StoreError> {
        self.backend.worker_rates(tournament).map_err(|e| self.err(e))
    }

    /// A tournament's queue: games waiting for a worker, and games being
    /// played (claimed under a live lease).
    pub fn queue_counts(&self, tournament: i64) -> Result<(u64, u64), StoreError> {
        let (open, playing) = self.backend.queue_counts(tournament, now_ms()).map_err(|e| self.err(e))?;
        Ok((open - playing, playing))
    }

    /// Whether any game of `tournament` is queued and not yet stored
    /// (waiting or being played): one look at the queue's index, cheap
    /// enough for idle workers to ask often.
    pub fn queue_open(&self, tournament: i64) -> Result<bool, StoreError> {
        self.backend.queue_open(tournament).map_err(|e| self.err(e))
    }
}
