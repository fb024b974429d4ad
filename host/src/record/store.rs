//! The embedded SQLite store (one file, `arbiter.db` by default). Every
//! finished game is committed in its own transaction the moment it ends, so a
//! process killed mid-match loses only the game in progress. WAL mode lets a
//! reader (`arbiter results`, a web view) watch while games are written.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection};

use super::{jsonl, pgn, EventInfo};
use crate::referee::GameRecord;

/// The schema; `IF NOT EXISTS` makes opening an existing store harmless.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id             INTEGER PRIMARY KEY,
    event          TEXT NOT NULL,
    round          INTEGER NOT NULL,
    variant        TEXT NOT NULL,
    plugin         TEXT NOT NULL,
    white          TEXT NOT NULL,
    black          TEXT NOT NULL,
    players        TEXT NOT NULL,
    time_controls  TEXT NOT NULL,
    options        TEXT NOT NULL,
    start_position TEXT NOT NULL,
    result         TEXT NOT NULL,
    winner         INTEGER,
    termination    TEXT NOT NULL,
    plies          INTEGER NOT NULL,
    moves          TEXT NOT NULL,
    final_position TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    duration_ms    INTEGER NOT NULL,
    pgn            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_event ON games(event);
";

/// A store failure, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("store {path}: {source}")]
pub struct StoreError {
    path: String,
    source: rusqlite::Error,
}

/// The SQLite store, shareable between threads.
pub struct Store {
    conn: Mutex<Connection>,
    path: String,
}

/// One stored game, as `arbiter` reads it back.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// Row id.
    pub id: i64,
    /// Variant id.
    pub variant: String,
    /// Player names in turn order.
    pub players: Vec<String>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// Why the game ended.
    pub termination: String,
    /// Plies played.
    pub plies: u32,
    /// The game's PGN.
    pub pgn: String,
}

impl Store {
    /// Opens (creating if needed) the store at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let p = path.display().to_string();
        let err = |source| StoreError { path: p.clone(), source };
        let conn = Connection::open(path).map_err(err)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(err)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(err)?;
        conn.execute_batch(SCHEMA).map_err(err)?;
        Ok(Store { conn: Mutex::new(conn), path: p })
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError { path: self.path.clone(), source }
    }

    /// Commits one finished game in its own transaction; returns its id.
    pub fn add_game(&self, record: &GameRecord, event: &EventInfo) -> Result<i64, StoreError> {
        let j = jsonl::game_json(record, event);
        let pgn = pgn::write_game(record, event);
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT INTO games (event, round, variant, plugin, white, black, players, time_controls, options,
                start_position, result, winner, termination, plies, moves, final_position, started_at, duration_ms, pgn)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
            params![
                event.event,
                event.round,
                record.variant,
                record.plugin,
                record.players.first().cloned().unwrap_or_default(),
                record.players.get(1).cloned().unwrap_or_default(),
                j["players"].to_string(),
                j["time_controls"].to_string(),
                j["options"].to_string(),
                record.start_position,
                record.result.pgn(),
                j["winner"].as_u64(),
                record.result.termination,
                record.plies.len() as i64,
                j["moves"].to_string(),
                record.final_position,
                record.started_at as i64,
                record.duration_ms as i64,
                pgn,
            ],
        )
        .map_err(|e| self.err(e))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// The games of `event` (all games if `None`), oldest first.
    pub fn games(&self, event: Option<&str>) -> Result<Vec<StoredGame>, StoreError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let mut stmt = conn
            .prepare(
                "SELECT id, variant, players, result, termination, plies, pgn FROM games
                 WHERE ?1 IS NULL OR event = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![event], |r| {
                let players: String = r.get(2)?;
                Ok(StoredGame {
                    id: r.get(0)?,
                    variant: r.get(1)?,
                    players: serde_json::from_str(&players).unwrap_or_default(),
                    result: r.get(3)?,
                    termination: r.get(4)?,
                    plies: r.get(5)?,
                    pgn: r.get(6)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }
}
