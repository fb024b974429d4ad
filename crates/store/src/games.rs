//! Finished games: storing them (each in its own transaction, or a batch
//! in one, checking a tournament's stopping rule as they go), reading them
//! back whole, and listing them.

use super::queue::Claim;
use super::tallies::{SlotResult, Tallies};
use super::{to_json, Store, StoreError, StoreFailure};
use arbiter_core::model::{GameRecord, Seat};
use arbiter_play::record::{pgn, EventInfo, TournamentSlot};
use arbiter_play::referee::Termination;

/// The columns of a [`GameSummary`], first in every query that reads one.
pub(super) const SUMMARY_COLUMNS: &str =
    "id, variant, players, result, winner, termination, plies, event, round, started_at, tournament_id, termination_kind";

/// The columns of [`SUMMARY_COLUMNS`] as a backend reads them.
pub(super) struct SummaryRow {
    pub(super) id: i64,
    pub(super) variant: String,
    pub(super) players: String,
    pub(super) result: String,
    pub(super) winner: Option<u32>,
    pub(super) termination: String,
    pub(super) plies: u32,
    pub(super) event: String,
    pub(super) round: u32,
    pub(super) started_at: i64,
    pub(super) tournament: Option<i64>,
    pub(super) termination_kind: Option<String>,
}

impl SummaryRow {
    pub(super) fn into_summary(self) -> GameSummary {
        GameSummary {
            id: self.id,
            variant: self.variant,
            players: serde_json::from_str(&self.players).unwrap_or_default(),
            result: self.result,
            winner: self.winner.map(Seat::new),
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
pub(super) struct GameRow {
    pub(super) summary: SummaryRow,
    pub(super) record: String,
    pub(super) index: Option<u32>,
    pub(super) pair: Option<u32>,
    pub(super) seats: Option<String>,
    pub(super) worker: Option<String>,
}

impl GameRow {
    pub(super) fn into_stored(self) -> Result<StoredGame, StoreFailure> {
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
pub(super) struct GameColumns<'a> {
    pub(super) record: &'a GameRecord,
    pub(super) event: &'a EventInfo,
    pub(super) players: String,
    pub(super) time_controls: String,
    pub(super) options: String,
    pub(super) winner: Option<u32>,
    pub(super) seats: Option<String>,
    /// The whole record.
    pub(super) whole: String,
}

impl<'a> GameColumns<'a> {
    pub(super) fn new(record: &'a GameRecord, event: &'a EventInfo) -> GameColumns<'a> {
        GameColumns {
            record,
            event,
            players: to_json(&record.players),
            time_controls: to_json(&record.time_controls),
            options: to_json(&record.options),
            winner: Seat::winner(record.result.outcome).map(Seat::number),
            seats: event.tournament.as_ref().map(|t| to_json(&t.seats)),
            whole: to_json(record),
        }
    }

    pub(super) fn white(&self) -> &str {
        self.record.players.first().map_or("", String::as_str)
    }

    pub(super) fn black(&self) -> &str {
        self.record.players.get(1).map_or("", String::as_str)
    }
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
pub(super) struct Storing<'a> {
    pub(super) columns: GameColumns<'a>,
    pub(super) claim: Option<&'a Claim>,
}

/// What a store backend does with finished games (the [`Store`] methods
/// of the same names say what each does).
pub(super) trait GameBackend {
    /// Stores games in one transaction, in order; a claimed game, unless
    /// its slot is stored already (then its id is `None`), is taken off the
    /// queue in the same transaction; checks `stop` (the rule of the one
    /// tournament the games belong to) once they are stored, as
    /// [`StopRule`] says.
    fn add_games(&self, games: &[Storing<'_>], stop: Option<&dyn StopRule>) -> Result<StoredBatch, StoreFailure>;

    /// The games asked for, each read on its own (one damaged row is its own error).
    fn games(
        &self,
        tournament: Option<i64>,
        id: Option<i64>,
    ) -> Result<Vec<Result<StoredGame, StoreFailure>>, StoreFailure>;

    fn tournament_results(&self, tournament: i64) -> Result<Vec<SlotResult>, StoreFailure>;

    fn worker_games(&self, tournament: i64) -> Result<Vec<(GameSummary, String)>, StoreFailure>;

    fn tallies(&self, tournament: i64) -> Result<Tallies, StoreFailure>;

    fn game_list(&self, filter: &GameFilter, limit: u32, offset: u32) -> Result<(Vec<GameSummary>, u64), StoreFailure>;

    fn data_version(&self) -> Result<i64, StoreFailure>;
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    pub winner: Option<Seat>,
    /// Why the game ended (shown as its text, and read back from it as a
    /// store without the kind column reads it).
    #[serde(serialize_with = "as_text", deserialize_with = "from_text")]
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

impl Store {
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

    /// The games of `tournament` that queue workers played, as listings show
    /// them, each with its worker (`host:pid#slot`, or a remote worker's
    /// `name:slot`), in store order; no record is read (the residuals
    /// computed from them every minute read a few columns a game).
    pub fn worker_games(&self, tournament: i64) -> Result<Vec<(GameSummary, String)>, StoreError> {
        self.backend.worker_games(tournament).map_err(|e| self.err(e))
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

    /// A number that changes whenever another connection (another process,
    /// or another `Store` on the same store) commits to the store.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        self.backend.data_version().map_err(|e| self.err(e))
    }
}

/// Serializes a value as its display text.
fn as_text<S: serde::Serializer>(value: &impl std::fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// A termination read from its text alone (see [`Termination::from_stored`]).
fn from_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Termination, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    Ok(Termination::from_stored(None, &text))
}
