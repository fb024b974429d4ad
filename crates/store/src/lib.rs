//! The store: every finished game, tournament, lease and live game, behind
//! one [`Store`] whatever holds it: an SQLite file (the embedded default,
//! `sqlite`) or a PostgreSQL server (`--db postgres://...`, `postgres`,
//! for stores many machines share). Every finished game is committed in its
//! own transaction the moment it ends, whole (its [`GameRecord`] as serde
//! writes it, beside the columns queries use), so a process killed
//! mid-match loses only the game in progress, and any record format can be
//! written again from the store.
//!
//! One file a concern, each with its part of [`Store`] and the backend
//! trait its two backends implement: [`games`] (finished games, listings,
//! standings' counts in [`tallies`]), [`queue`] (games waiting for workers,
//! and their claims), [`tournaments`] (definitions and the run's lease),
//! [`live`] (what spectators see of games in progress), [`plugin_files`]
//! (pinned WebAssembly plugins) and [`workers`] (remote workers' tokens and
//! refused uploads).

pub mod games;
pub mod live;
pub mod plugin_files;
#[cfg(feature = "postgres")]
mod postgres;
pub mod queue;
mod sqlite;
pub mod tallies;
#[cfg(test)]
mod tests;
pub mod tournaments;
pub mod workers;

use std::path::Path;

use games::GameBackend;
pub use games::{GameFilter, GameSummary, RuleCheck, StopRule, Stored, StoredBatch, StoredGame};
use live::LiveBackend;
pub use live::LiveGame;
use plugin_files::PluginFileBackend;
use queue::QueueBackend;
pub use queue::{Claim, QueueEntry, QueuedGame, WorkerRate};
pub use tallies::{PairTally, SlotResult, Tallies, Tally, FORGET_TALLIES};
use tournaments::TournamentBackend;
pub use tournaments::{Lease, StoredTournament};
use workers::WorkerBackend;
pub use workers::{GameCheck, Refusal, RefusalKind, WorkerToken};

use arbiter_core::model::GameRecord;
use arbiter_play::record::EventInfo;

/// What a store backend does, concern by concern; [`Store`] names the
/// store in its errors.
trait Backend:
    GameBackend + QueueBackend + TournamentBackend + LiveBackend + PluginFileBackend + WorkerBackend + Send + Sync
{
}

impl<T> Backend for T where
    T: GameBackend + QueueBackend + TournamentBackend + LiveBackend + PluginFileBackend + WorkerBackend + Send + Sync
{
}

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

/// Plain data as JSON text.
pub(crate) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("plain data serialises")
}

/// A store, shareable between threads.
pub struct Store {
    backend: Box<dyn Backend>,
    /// Where it is, for messages (a URL without its password).
    location: String,
}

/// Whether `location` names a PostgreSQL server rather than an SQLite file.
pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// A connection URL without its password, for messages and the commands
/// arbiter prints.
pub fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            let user = user.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

pub(crate) fn now() -> i64 {
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
            Self::open_postgres(&text)
        } else {
            sqlite::Sqlite::open(location).map(|b| Box::new(b) as Box<dyn Backend>)
        };
        match opened {
            Ok(backend) => Ok(Store { backend, location: shown }),
            Err(failure) => Err(StoreError { path: shown, failure }),
        }
    }

    /// The PostgreSQL backend at `url`.
    #[cfg(feature = "postgres")]
    fn open_postgres(url: &str) -> Result<Box<dyn Backend>, StoreFailure> {
        postgres::Postgres::open(url).map(|b| Box::new(b) as Box<dyn Backend>)
    }

    /// No PostgreSQL backend in a build without the feature: a clear refusal.
    #[cfg(not(feature = "postgres"))]
    fn open_postgres(_url: &str) -> Result<Box<dyn Backend>, StoreFailure> {
        Err(StoreFailure::Postgres(
            "this build of arbiter has no PostgreSQL store (arbiter-store's feature `postgres`)".into(),
        ))
    }

    /// A store held in memory, gone with the process (`match --no-db`):
    /// such a run goes through the store as any other, and keeps nothing.
    pub fn in_memory() -> Result<Store, StoreError> {
        Self::open(Path::new(":memory:"))
    }

    /// Whether the store is held in memory ([`Store::in_memory`]): no other
    /// process reads it.
    pub fn is_in_memory(&self) -> bool {
        self.location == ":memory:"
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
        for sha256 in self.plugin_file_hashes()? {
            if let Some((name, bytes)) = self.plugin_file(&sha256)? {
                to.put_plugin_file(&sha256, &name, &bytes)?;
            }
        }
        Ok((tournaments.len(), games.len()))
    }

    fn err(&self, failure: StoreFailure) -> StoreError {
        StoreError { path: self.location.clone(), failure }
    }
}
