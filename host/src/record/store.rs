//! The store: every finished game, tournament, lease and live game, behind
//! one [`Store`] whatever holds it: an SQLite file (the embedded default,
//! [`sqlite`]) or a PostgreSQL server (`--db postgres://...`, [`postgres`],
//! for stores many machines share). Every finished game is committed in its
//! own transaction the moment it ends, whole (its [`GameRecord`] as serde
//! writes it, beside the columns queries use), so a process killed
//! mid-match loses only the game in progress, and any record format can be
//! written again from the store.

mod postgres;
mod sqlite;

use std::path::Path;

use arbiter_api::Outcome;
use serde_json::Value;

use super::{pgn, EventInfo, TournamentSlot};
use crate::model::GameRecord;
use crate::referee::Termination;

/// A store failure, naming the store. Its text is the whole story, once:
/// it has no `source` for error reporters to print a second time.
#[derive(Debug, thiserror::Error)]
#[error("store {path}: {failure}")]
pub struct StoreError {
    path: String,
    failure: StoreFailure,
}

/// What went wrong in a store (its text says all: no source chain).
#[derive(Debug, thiserror::Error)]
pub enum StoreFailure {
    /// SQLite said no.
    #[error("{0}")]
    Sqlite(rusqlite::Error),
    /// PostgreSQL said no, or could not be reached.
    #[error("{0}")]
    Postgres(String),
    /// The schema could not be brought up to date, or read.
    #[error("{0}")]
    Schema(String),
    /// A stored game could not be read back.
    #[error("{0}")]
    Damaged(String),
}

impl From<rusqlite::Error> for StoreFailure {
    fn from(e: rusqlite::Error) -> StoreFailure {
        StoreFailure::Sqlite(e)
    }
}

/// The columns of a [`GameSummary`], first in every query that reads one.
const SUMMARY_COLUMNS: &str =
    "id, variant, players, result, winner, termination, plies, event, round, started_at, tournament_id, termination_kind";

/// The columns of [`SUMMARY_COLUMNS`] as a backend reads them.
struct SummaryRow {
    id: i64,
    variant: String,
    players: String,
    result: String,
    winner: Option<u32>,
    termination: String,
    plies: u32,
    event: String,
    round: u32,
    started_at: i64,
    tournament: Option<i64>,
    termination_kind: Option<String>,
}

impl SummaryRow {
    fn into_summary(self) -> GameSummary {
        GameSummary {
            id: self.id,
            variant: self.variant,
            players: serde_json::from_str(&self.players).unwrap_or_default(),
            result: self.result,
            winner: self.winner,
            termination: Termination::from_stored(self.termination_kind.as_deref(), &self.termination),
            plies: self.plies,
            event: self.event,
            round: self.round,
            started_at: self.started_at,
            tournament: self.tournament,
        }
    }
}

/// A whole game row as a backend reads it.
struct GameRow {
    summary: SummaryRow,
    record: String,
    index: Option<u32>,
    pair: Option<u32>,
    seats: Option<String>,
    worker: Option<String>,
}

impl GameRow {
    fn into_stored(self) -> Result<StoredGame, StoreFailure> {
        let summary = self.summary.into_summary();
        let record = serde_json::from_str(&self.record)
            .map_err(|e| StoreFailure::Damaged(format!("game {}: its stored record is unreadable: {e}", summary.id)))?;
        let slot = summary.tournament.map(|id| TournamentSlot {
            id,
            index: self.index.unwrap_or_default(),
            pair: self.pair,
            seats: self.seats.and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
        });
        Ok(StoredGame { summary, record, slot, worker: self.worker })
    }
}

/// A game as every backend writes it: the record, its event, and the
/// derived columns queries use. The record is the only copy of the moves:
/// its PGN is written from it when read.
struct GameColumns<'a> {
    record: &'a GameRecord,
    event: &'a EventInfo,
    players: String,
    time_controls: String,
    options: String,
    winner: Option<u32>,
    seats: Option<String>,
    /// The whole record.
    whole: String,
}

impl<'a> GameColumns<'a> {
    fn new(record: &'a GameRecord, event: &'a EventInfo) -> GameColumns<'a> {
        GameColumns {
            record,
            event,
            players: to_json(&record.players),
            time_controls: to_json(&record.time_controls),
            options: to_json(&record.options),
            winner: match record.result.outcome {
                Outcome::Win(p) => Some(p),
                _ => None,
            },
            seats: event.tournament.as_ref().map(|t| to_json(&t.seats)),
            whole: to_json(record),
        }
    }

    fn white(&self) -> &str {
        self.record.players.first().map_or("", String::as_str)
    }

    fn black(&self) -> &str {
        self.record.players.get(1).map_or("", String::as_str)
    }
}

/// Plain data as JSON text.
fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

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
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WorkerRate {
    /// The host the workers ran on.
    pub host: String,
    /// Games they stored.
    pub games: u64,
    /// Games per minute, from the first game's start to the last one's end.
    pub per_minute: f64,
}

impl WorkerRate {
    fn new(host: String, games: i64, first_start_s: i64, last_end_ms: i64) -> WorkerRate {
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

/// A tournament's stopping rule (an SPRT's): checked in the transaction
/// that stores each of its games, over all its games in the order they were
/// stored, this one last. When it holds, that transaction also marks the
/// tournament finished and closes its queue (no game of it is claimed
/// again). Stores of one tournament's games are serialised while it is
/// checked, so the store order (the games' ids) is the order the rule saw.
///
/// The rule counts incrementally: the store hands it only the games stored
/// after the last one it has counted, and it keeps a count only once the
/// transaction that read them has committed (a rolled-back or retried
/// transaction's games are never counted twice).
pub trait StopRule: Sync {
    /// The id of the last stored game this rule has counted (0: none).
    fn counted_through(&self) -> i64;
    /// Whether the rule holds once `games` (the tournament's games stored
    /// after [`StopRule::counted_through`], in store order, with their ids)
    /// are counted.
    fn check(&self, games: Vec<(i64, SlotResult)>) -> RuleCheck<'_>;
}

/// What a [`StopRule`] says of the games it was handed.
pub struct RuleCheck<'a> {
    /// Whether the rule holds.
    pub holds: bool,
    /// Keeps the count: called once the storing transaction has committed.
    pub keep: Box<dyn FnOnce() + 'a>,
}

/// What storing a game did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The game's id; `None` for a claimed game another worker stored first.
    pub id: Option<i64>,
    /// Whether the tournament's stopping rule holds now.
    pub stopped: bool,
}

/// What storing a batch of games in one transaction did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredBatch {
    /// Each game's id, in the order given; `None` for a claimed game another
    /// worker stored first.
    pub ids: Vec<Option<i64>>,
    /// Whether the tournament's stopping rule holds now.
    pub stopped: bool,
}

/// A game to store: its columns, and its claim if a queue worker played it.
struct Storing<'a> {
    columns: GameColumns<'a>,
    claim: Option<&'a Claim>,
}

/// What a store backend does; [`Store`] names the store in its errors.
trait Backend: Send + Sync {
    /// Stores games in one transaction, in order; a claimed game, unless
    /// its slot is stored already (then its id is `None`), is taken off the
    /// queue in the same transaction; checks `stop` (the rule of the one
    /// tournament the games belong to) once they are stored, as
    /// [`StopRule`] says.
    fn add_games(&self, games: &[Storing<'_>], stop: Option<&dyn StopRule>) -> Result<StoredBatch, StoreFailure>;
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
    fn queue_counts(&self, tournament: i64, now_ms: i64) -> Result<(u64, u64), StoreFailure>;
    fn queue_open(&self, tournament: i64) -> Result<bool, StoreFailure>;
    fn worker_rates(&self, tournament: i64) -> Result<Vec<WorkerRate>, StoreFailure>;
    fn queued_indices(&self, tournament: i64) -> Result<Vec<u32>, StoreFailure>;
    /// The games asked for, each read on its own (one damaged row is its own error).
    fn games(
        &self,
        tournament: Option<i64>,
        id: Option<i64>,
    ) -> Result<Vec<Result<StoredGame, StoreFailure>>, StoreFailure>;
    fn tournament_results(&self, tournament: i64) -> Result<Vec<SlotResult>, StoreFailure>;
    fn tallies(&self, tournament: i64) -> Result<Tallies, StoreFailure>;
    fn game_list(&self, filter: &GameFilter, limit: u32, offset: u32) -> Result<(Vec<GameSummary>, u64), StoreFailure>;
    fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreFailure>;
    fn data_version(&self) -> Result<i64, StoreFailure>;
    fn set_live(
        &self,
        tournament: i64,
        index: u32,
        variant: &str,
        players: &[String],
        frame: &Value,
    ) -> Result<(), StoreFailure>;
    fn clear_live(&self, tournament: i64) -> Result<(), StoreFailure>;
    fn live_games(&self, tournament: i64) -> Result<Vec<Value>, StoreFailure>;
    fn take_lease(
        &self,
        id: i64,
        lease: &Lease,
        stale: &dyn Fn(&Lease) -> bool,
    ) -> Result<Result<Option<Lease>, Lease>, StoreFailure>;
    fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreFailure>;
    fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreFailure>;
    fn add_tournament(&self, name: &str, config_json: &str, now: i64) -> Result<i64, StoreFailure>;
    fn finish_tournament(&self, id: i64, now: i64) -> Result<(), StoreFailure>;
    fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreFailure>;
}

/// A store, shareable between threads.
pub struct Store {
    backend: Box<dyn Backend>,
    /// Where it is, for messages (a URL without its password).
    location: String,
}

/// One stored game, as `arbiter` reads it back.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// What a listing shows of it.
    pub summary: GameSummary,
    /// The game itself.
    pub record: GameRecord,
    /// Its place in a tournament, if any.
    pub slot: Option<TournamentSlot>,
    /// The queue worker that played it (`host:pid#slot`), if one did.
    pub worker: Option<String>,
}

impl StoredGame {
    /// The event the game was recorded under.
    pub fn event(&self) -> EventInfo {
        EventInfo { event: self.summary.event.clone(), round: self.summary.round, tournament: self.slot.clone() }
    }

    /// The game's PGN text (PDN for draughts), written from its record.
    pub fn pgn(&self) -> String {
        pgn::write_game(&self.record, &self.event())
    }
}

/// Which games a listing shows; `None` fields match everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameFilter {
    /// Variant id.
    pub variant: Option<String>,
    /// A player's name (either seat).
    pub player: Option<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: Option<String>,
    /// The start of the termination ("checkmate", "time").
    pub termination: Option<String>,
    /// A tournament id.
    pub tournament: Option<i64>,
}

/// One line of a game listing.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameSummary {
    /// Row id.
    pub id: i64,
    /// Variant id.
    pub variant: String,
    /// Player names in turn order.
    pub players: Vec<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The winner's seat, if any.
    pub winner: Option<u32>,
    /// Why the game ended (shown as its text).
    #[serde(serialize_with = "as_text")]
    pub termination: Termination,
    /// Plies played.
    pub plies: u32,
    /// Event name.
    pub event: String,
    /// Round within the event.
    pub round: u32,
    /// Unix time the game started.
    pub started_at: i64,
    /// The tournament, if any.
    pub tournament: Option<i64>,
}

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
    pub winner: Option<u32>,
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
            winner: match record.result.outcome {
                Outcome::Win(p) => Some(p),
                _ => None,
            },
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
    pub winner: Option<u32>,
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
const TALLY_SHARDS: u32 = 16;

/// SQL that takes an SQLite store back to the schema before it kept
/// tallies, so that the next open counts every game again (for stores
/// grown behind its back, as tests and benchmarks do).
pub const FORGET_TALLIES: &str = "DROP TABLE tallies; DROP TABLE pair_tallies; DROP TABLE worker_tallies;
    DROP INDEX game_queue_open; DROP INDEX IF EXISTS games_by_tournament;
    ALTER TABLE games ADD COLUMN moves TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE games ADD COLUMN pgn TEXT NOT NULL DEFAULT ''; PRAGMA user_version = 4;";

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
        let mut games: std::collections::BTreeMap<(String, Vec<usize>, Option<u32>, bool), u64> = Default::default();
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
    fn shard(&self) -> u32 {
        self.index % TALLY_SHARDS
    }

    /// The index of the other game of this game's pair, if it is paired.
    fn other_half(&self) -> Option<u32> {
        let pair = self.pair?;
        Some(if pair == self.index { self.index + 1 } else { pair })
    }
}

/// The pair two games of one pair make, if both have a result between the
/// same two entrants: the entrants (lower first) and the lower one's points
/// in half points.
fn pair_points(a: &SlotResult, b: &SlotResult) -> Option<((usize, usize), u8)> {
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
        Some(w) if g.seats.get(w as usize) == Some(&low) => 2,
        Some(_) => 0,
    };
    Some(((low, high), half_points(a) + half_points(b)))
}

/// Who runs a tournament: one run at a time holds its lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// `host:pid` of the run.
    pub holder: String,
    /// Its process id.
    pub pid: i64,
    /// Unix time it last said it was alive.
    pub heartbeat: i64,
    /// Whether it plays games in its own process (a plugin abort kills it).
    pub in_process: bool,
}

/// A tournament's row: its definition and whether it finished.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTournament {
    /// Id in the store.
    pub id: i64,
    /// Name.
    pub name: String,
    /// The definition, as JSON.
    pub config: String,
    /// Unix time it finished, if it did.
    pub finished_at: Option<i64>,
}

/// Whether `location` names a PostgreSQL server rather than an SQLite file.
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// A connection URL without its password, for messages.
fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

impl Store {
    /// Opens the store at `location`, bringing its schema up to date: an
    /// SQLite file (created if needed; opened for reading on read-only
    /// media) or, for a `postgres://` URL, a PostgreSQL database.
    pub fn open(location: &Path) -> Result<Store, StoreError> {
        let text = location.to_string_lossy().into_owned();
        let shown = if is_postgres(&text) { without_password(&text) } else { location.display().to_string() };
        let opened: Result<Box<dyn Backend>, StoreFailure> = if is_postgres(&text) {
            postgres::Postgres::open(&text).map(|b| Box::new(b) as Box<dyn Backend>)
        } else {
            sqlite::Sqlite::open(location).map(|b| Box::new(b) as Box<dyn Backend>)
        };
        match opened {
            Ok(backend) => Ok(Store { backend, location: shown }),
            Err(failure) => Err(StoreError { path: shown, failure }),
        }
    }

    /// Where the store is, for messages (a URL without its password).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Copies every tournament and game of this store into `to`, which must
    /// be empty (tournament ids are renumbered there, each game keeping its
    /// place in its tournament); returns (tournaments, games) copied.
    pub fn copy_into(&self, to: &Store) -> Result<(usize, usize), StoreError> {
        let (held, _) = to.game_list(&GameFilter::default(), 1, 0)?;
        if !held.is_empty() || !to.tournament_list()?.is_empty() {
            return Err(
                to.err(StoreFailure::Schema("holds games or tournaments already: copy into an empty store".into()))
            );
        }
        let mut tournaments = self.tournament_list()?;
        tournaments.sort_by_key(|(t, _)| t.id);
        let mut ids = std::collections::HashMap::new();
        for (t, _) in &tournaments {
            let id = to.add_tournament(&t.name, &t.config)?;
            if t.finished_at.is_some() {
                to.finish_tournament(id)?;
            }
            ids.insert(t.id, id);
        }
        let games = self.games(None)?;
        let events: Vec<EventInfo> = games
            .iter()
            .map(|g| {
                let mut event = g.event();
                if let Some(slot) = event.tournament.as_mut() {
                    slot.id = ids[&slot.id];
                }
                event
            })
            .collect();
        // A few hundred games a transaction: a commit each would cost more
        // than the games.
        let all: Vec<(&GameRecord, &EventInfo)> = games.iter().map(|g| &g.record).zip(&events).collect();
        for batch in all.chunks(256) {
            to.add_games(batch)?;
        }
        Ok((tournaments.len(), games.len()))
    }

    fn err(&self, failure: StoreFailure) -> StoreError {
        StoreError { path: self.location.clone(), failure }
    }

    /// Commits one finished game in its own transaction; returns its id.
    pub fn add_game(&self, record: &GameRecord, event: &EventInfo) -> Result<i64, StoreError> {
        let stored = self.add_game_until(record, event, None)?;
        Ok(stored.id.expect("a game without a claim is always stored"))
    }

    /// Commits finished games in one transaction, in order; returns their ids.
    pub fn add_games(&self, games: &[(&GameRecord, &EventInfo)]) -> Result<Vec<i64>, StoreError> {
        let storing: Vec<Storing<'_>> =
            games.iter().map(|(r, e)| Storing { columns: GameColumns::new(r, e), claim: None }).collect();
        let stored = self.backend.add_games(&storing, None).map_err(|e| self.err(e))?;
        Ok(stored.ids.into_iter().map(|id| id.expect("a game without a claim is always stored")).collect())
    }

    /// Commits one finished tournament game, checking the tournament's
    /// stopping rule in the same transaction (see [`StopRule`]).
    pub fn add_game_until(
        &self,
        record: &GameRecord,
        event: &EventInfo,
        stop: Option<&dyn StopRule>,
    ) -> Result<Stored, StoreError> {
        let storing = [Storing { columns: GameColumns::new(record, event), claim: None }];
        let stored = self.backend.add_games(&storing, stop).map_err(|e| self.err(e))?;
        Ok(Stored { id: stored.ids[0], stopped: stored.stopped })
    }

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

    /// The indices of every game of `tournament` ever queued (done or not).
    pub fn queued_indices(&self, tournament: i64) -> Result<Vec<u32>, StoreError> {
        self.backend.queued_indices(tournament).map_err(|e| self.err(e))
    }

    /// Per worker host, the games its queue workers stored for `tournament`
    /// and their rate (none for games a local run played).
    pub fn worker_rates(&self, tournament: i64) -> Result<Vec<WorkerRate>, StoreError> {
        self.backend.worker_rates(tournament).map_err(|e| self.err(e))
    }

    /// A tournament's queue: games waiting, and games being played (claimed
    /// under a live lease).
    pub fn queue_counts(&self, tournament: i64) -> Result<(u64, u64), StoreError> {
        self.backend.queue_counts(tournament, now_ms()).map_err(|e| self.err(e))
    }

    /// Whether any game of `tournament` is queued and not yet stored
    /// (waiting or being played): one look at the queue's index, cheap
    /// enough for idle workers to ask often.
    pub fn queue_open(&self, tournament: i64) -> Result<bool, StoreError> {
        self.backend.queue_open(tournament).map_err(|e| self.err(e))
    }

    /// All games, or those of one tournament, oldest first; a row that
    /// cannot be read is an error.
    pub fn games(&self, tournament: Option<i64>) -> Result<Vec<StoredGame>, StoreError> {
        let rows = self.backend.games(tournament, None).map_err(|e| self.err(e))?;
        rows.into_iter().map(|row| row.map_err(|e| self.err(e))).collect()
    }

    /// Every readable game, or those of one tournament, oldest first, with
    /// a line naming each row that could not be read (exports write what
    /// they can and say what they skipped).
    pub fn readable_games(&self, tournament: Option<i64>) -> Result<(Vec<StoredGame>, Vec<String>), StoreError> {
        let rows = self.backend.games(tournament, None).map_err(|e| self.err(e))?;
        let mut games = Vec::with_capacity(rows.len());
        let mut skipped = Vec::new();
        for row in rows {
            match row {
                Ok(g) => games.push(g),
                Err(e) => skipped.push(e.to_string()),
            }
        }
        Ok((games, skipped))
    }

    /// One game by id.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        let row = self.backend.games(None, Some(id)).map_err(|e| self.err(e))?.pop();
        row.transpose().map_err(|e| self.err(e))
    }

    /// A tournament's games and pairs counted (what its standings need),
    /// read from the counts the store keeps as games are stored.
    pub fn tallies(&self, tournament: i64) -> Result<Tallies, StoreError> {
        self.backend.tallies(tournament).map_err(|e| self.err(e))
    }

    /// The finished games of a tournament, lightly: slot, variant, result and
    /// winner (what scheduling and standings need), in the order they were
    /// stored.
    pub fn tournament_results(&self, tournament: i64) -> Result<Vec<SlotResult>, StoreError> {
        self.backend.tournament_results(tournament).map_err(|e| self.err(e))
    }

    /// A page of games, newest first, matching `filter`, with the number of
    /// all matching games.
    pub fn game_list(
        &self,
        filter: &GameFilter,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<GameSummary>, u64), StoreError> {
        self.backend.game_list(filter, limit, offset).map_err(|e| self.err(e))
    }

    /// Every tournament, newest first, with its number of stored games.
    pub fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreError> {
        self.backend.tournament_list().map_err(|e| self.err(e))
    }

    /// A number that changes whenever another connection (another process,
    /// or another `Store` on the same store) commits to the store.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        self.backend.data_version().map_err(|e| self.err(e))
    }

    /// Records what spectators may see of a tournament game in progress
    /// (`frame`: the spectator's view only; it goes when the game is stored).
    pub fn set_live(
        &self,
        tournament: i64,
        index: u32,
        variant: &str,
        players: &[String],
        frame: &crate::model::SeenFrame,
    ) -> Result<(), StoreError> {
        let frame = serde_json::to_value(frame).expect("a frame serializes");
        self.backend.set_live(tournament, index, variant, players, &frame).map_err(|e| self.err(e))
    }

    /// Forgets a tournament's games in progress (those of a run that was killed).
    pub fn clear_live(&self, tournament: i64) -> Result<(), StoreError> {
        self.backend.clear_live(tournament).map_err(|e| self.err(e))
    }

    /// A tournament's games in progress, by game index: index, variant,
    /// players and the spectator's latest frame.
    pub fn live_games(&self, tournament: i64) -> Result<Vec<Value>, StoreError> {
        self.backend.live_games(tournament).map_err(|e| self.err(e))
    }

    /// Takes the lease on running tournament `id` for `lease`'s holder. A
    /// lease held by another holder that `stale` does not call stale is
    /// refused (`Err(held)`); otherwise the old lease, if any, is returned.
    /// One transaction, so two runs cannot both take it.
    pub fn take_lease(
        &self,
        id: i64,
        lease: &Lease,
        stale: impl Fn(&Lease) -> bool,
    ) -> Result<Result<Option<Lease>, Lease>, StoreError> {
        self.backend.take_lease(id, lease, &stale).map_err(|e| self.err(e))
    }

    /// Renews `holder`'s lease on tournament `id` (its heartbeat, now).
    pub fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreError> {
        self.backend.renew_lease(id, holder, now).map_err(|e| self.err(e))
    }

    /// Gives up `holder`'s lease on tournament `id`.
    pub fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreError> {
        self.backend.release_lease(id, holder).map_err(|e| self.err(e))
    }

    /// Records a new tournament's definition; returns its id.
    pub fn add_tournament(&self, name: &str, config_json: &str) -> Result<i64, StoreError> {
        self.backend.add_tournament(name, config_json, now()).map_err(|e| self.err(e))
    }

    /// Marks a tournament finished.
    pub fn finish_tournament(&self, id: i64) -> Result<(), StoreError> {
        self.backend.finish_tournament(id, now()).map_err(|e| self.err(e))
    }

    /// A tournament by id, or the most recent one if `id` is `None`.
    pub fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreError> {
        self.backend.tournament(id).map_err(|e| self.err(e))
    }
}

/// Serializes a value as its display text.
fn as_text<S: serde::Serializer>(value: &impl std::fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}
