//! The embedded SQLite store (one file, `arbiter.db` by default). Every
//! finished game is committed in its own transaction the moment it ends, so a
//! process killed mid-match loses only the game in progress. WAL mode lets a
//! reader (`arbiter results`, a web view) watch while games are written.

use crate::sync::LockExt;
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use rusqlite_migration::{Migrations, M};

use super::{jsonl, pgn, EventInfo, TournamentSlot};
use crate::referee::{GameRecord, Termination};

/// The first schema. Stores made before versioned migrations hold it already
/// (at user_version 0), so it keeps `IF NOT EXISTS`.
const SCHEMA_V1: &str = "
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
    pgn            TEXT NOT NULL,
    tournament_id  INTEGER REFERENCES tournaments(id),
    game_index     INTEGER,
    pair_id        INTEGER,
    seats          TEXT
);
CREATE INDEX IF NOT EXISTS games_by_event ON games(event);
CREATE UNIQUE INDEX IF NOT EXISTS games_in_tournament ON games(tournament_id, game_index);
CREATE TABLE IF NOT EXISTS live_games (
    tournament_id  INTEGER NOT NULL,
    game_index     INTEGER NOT NULL,
    variant        TEXT NOT NULL,
    players        TEXT NOT NULL,
    frame          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, game_index)
);
CREATE TABLE IF NOT EXISTS tournaments (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    config      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    finished_at INTEGER
);
";

/// The schema's versions, applied in order when a store is opened for
/// writing (rusqlite_migration keeps the version in `PRAGMA user_version`).
fn migration_steps() -> Vec<M<'static>> {
    vec![
        M::up(SCHEMA_V1),
        // Typed terminations; a lease per tournament run.
        M::up(
            "ALTER TABLE games ADD COLUMN termination_kind TEXT;
             CREATE TABLE tournament_leases (
                 tournament_id INTEGER PRIMARY KEY,
                 holder        TEXT NOT NULL,
                 pid           INTEGER NOT NULL,
                 heartbeat     INTEGER NOT NULL,
                 in_process    INTEGER NOT NULL DEFAULT 0
             );",
        ),
    ]
}

/// A store failure, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("store {path}: {source}")]
pub struct StoreError {
    path: String,
    source: StoreFailure,
}

/// What went wrong in a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreFailure {
    /// SQLite said no.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The schema could not be brought up to date, or read.
    #[error("{0}")]
    Schema(String),
}

/// The columns of a [`GameSummary`], first in every query that reads one.
const SUMMARY_COLUMNS: &str =
    "id, variant, players, result, winner, termination, plies, event, round, started_at, tournament_id, termination_kind";

/// A [`GameSummary`] from the first columns of a row (see [`SUMMARY_COLUMNS`]).
fn summary_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameSummary> {
    Ok(GameSummary {
        id: r.get(0)?,
        variant: r.get(1)?,
        players: serde_json::from_str(&r.get::<_, String>(2)?).unwrap_or_default(),
        result: r.get(3)?,
        winner: r.get(4)?,
        termination: Termination::from_stored(r.get::<_, Option<String>>(11)?.as_deref(), &r.get::<_, String>(5)?),
        plies: r.get(6)?,
        event: r.get(7)?,
        round: r.get(8)?,
        started_at: r.get(9)?,
        tournament: r.get(10)?,
    })
}

/// The SQLite store, shareable between threads.
pub struct Store {
    conn: Mutex<Connection>,
    path: String,
}

/// One stored game, as `arbiter` reads it back.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// What a listing shows of it.
    pub summary: GameSummary,
    /// The game's PGN text.
    pub pgn: String,
    /// The game as the JSON object `--jsonl` writes.
    pub json: serde_json::Value,
    /// Its place in a tournament, if any.
    pub slot: Option<TournamentSlot>,
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

impl Store {
    /// Opens (creating if needed) the store at `path`, bringing its schema
    /// up to date. A store that cannot be written (read-only media) is
    /// opened for reading, if its schema is current: reading never needs to
    /// write.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let p = path.display().to_string();
        let err = |source: StoreFailure| StoreError { path: p.clone(), source };
        match Self::open_writable(path) {
            Ok(conn) => Ok(Store { conn: Mutex::new(conn), path: p }),
            Err(StoreFailure::Sqlite(e)) if path.exists() && is_read_only(&e) => {
                let conn = Self::open_read_only(path).map_err(err)?;
                Ok(Store { conn: Mutex::new(conn), path: p })
            }
            Err(e) => Err(err(e)),
        }
    }

    fn open_writable(path: &Path) -> Result<Connection, StoreFailure> {
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        // Two processes opening a new store at once race to migrate it: the
        // loser's transaction rolls back, and a second try finds it done.
        let mut tries = 0;
        loop {
            match Migrations::new(migration_steps()).to_latest(&mut conn) {
                Ok(()) => return Ok(conn),
                Err(rusqlite_migration::Error::RusqliteError { err, .. }) if is_read_only(&err) => {
                    return Err(StoreFailure::Sqlite(err))
                }
                Err(_) if tries < 20 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(25 * tries));
                }
                Err(rusqlite_migration::Error::RusqliteError { err, .. }) => return Err(StoreFailure::Sqlite(err)),
                Err(other) => return Err(StoreFailure::Schema(other.to_string())),
            }
        }
    }

    /// Opens a store that cannot be written: as an immutable file, so that
    /// SQLite needs no lock or shared-memory file beside it.
    fn open_read_only(path: &Path) -> Result<Connection, StoreFailure> {
        use rusqlite::OpenFlags;
        let uri = format!("file:{}?immutable=1", percent_path(path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(uri, flags)?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let latest = migration_steps().len() as i64;
        if version < latest {
            return Err(StoreFailure::Schema(format!(
                "the store is read-only and was written by an older arbiter (schema {version}, this one reads \
                 {latest}): open it once where it can be written, or copy it to writable storage"
            )));
        }
        Ok(conn)
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError { path: self.path.clone(), source: source.into() }
    }

    /// Commits one finished game in its own transaction; returns its id.
    pub fn add_game(&self, record: &GameRecord, event: &EventInfo) -> Result<i64, StoreError> {
        let j = jsonl::game_json(record, event);
        let pgn = pgn::write_game(record, event);
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT INTO games (event, round, variant, plugin, white, black, players, time_controls, options,
                start_position, result, winner, termination, plies, moves, final_position, started_at, duration_ms, pgn,
                tournament_id, game_index, pair_id, seats, termination_kind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                ?20, ?21, ?22, ?23, ?24)",
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
                record.result.termination.to_string(),
                record.plies.len() as i64,
                j["moves"].to_string(),
                record.final_position,
                record.started_at as i64,
                record.duration_ms as i64,
                pgn,
                event.tournament.as_ref().map(|t| t.id),
                event.tournament.as_ref().map(|t| t.index),
                event.tournament.as_ref().and_then(|t| t.pair),
                event.tournament.as_ref().map(|t| serde_json::json!(t.seats).to_string()),
                record.result.termination.kind(),
            ],
        )
        .map_err(|e| self.err(e))?;
        let id = tx.last_insert_rowid();
        if let Some(t) = &event.tournament {
            tx.execute("DELETE FROM live_games WHERE tournament_id = ?1 AND game_index = ?2", params![t.id, t.index])
                .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// All games, or those of one tournament, oldest first.
    pub fn games(&self, tournament: Option<i64>) -> Result<Vec<StoredGame>, StoreError> {
        self.query_games("WHERE ?1 IS NULL OR tournament_id = ?1 ORDER BY id", tournament)
    }

    /// One game by id.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, StoreError> {
        Ok(self.query_games("WHERE id = ?1", Some(id))?.pop())
    }

    fn query_games(&self, condition: &str, arg: Option<i64>) -> Result<Vec<StoredGame>, StoreError> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {SUMMARY_COLUMNS}, pgn, plugin, time_controls, options, start_position, moves, final_position,
                        duration_ms, game_index, pair_id, seats
                 FROM games {condition}"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![arg], |r| {
                let json_col = |i: usize| -> rusqlite::Result<serde_json::Value> {
                    let text: String = r.get(i)?;
                    Ok(serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
                };
                let summary = summary_of(r)?;
                let slot = match summary.tournament {
                    Some(id) => Some(TournamentSlot {
                        id,
                        index: r.get(20)?,
                        pair: r.get(21)?,
                        seats: r
                            .get::<_, Option<String>>(22)?
                            .and_then(|s| serde_json::from_str(&s).ok())
                            .unwrap_or_default(),
                    }),
                    None => None,
                };
                let json = serde_json::json!({
                    "event": summary.event,
                    "round": summary.round,
                    "variant": summary.variant,
                    "plugin": r.get::<_, String>(13)?,
                    "players": summary.players,
                    "time_controls": json_col(14)?,
                    "options": json_col(15)?,
                    "start_position": r.get::<_, String>(16)?,
                    "result": summary.result,
                    "winner": summary.winner,
                    "termination": summary.termination.to_string(),
                    "termination_kind": summary.termination.kind(),
                    "plies": summary.plies,
                    "moves": json_col(17)?,
                    "final_position": r.get::<_, String>(18)?,
                    "started_at": summary.started_at,
                    "duration_ms": r.get::<_, i64>(19)?,
                });
                Ok(StoredGame { summary, pgn: r.get(12)?, json, slot })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The finished games of a tournament, lightly: slot, variant, result and
    /// winner (what scheduling and standings need), by game index.
    pub fn tournament_results(&self, tournament: i64) -> Result<Vec<SlotResult>, StoreError> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn
            .prepare(
                "SELECT game_index, pair_id, seats, variant, result, winner FROM games
                 WHERE tournament_id = ?1 ORDER BY game_index",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![tournament], |r| {
                let seats: Option<String> = r.get(2)?;
                Ok(SlotResult {
                    index: r.get(0)?,
                    pair: r.get(1)?,
                    seats: seats.and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
                    variant: r.get(3)?,
                    result: r.get(4)?,
                    winner: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// A page of games, newest first, matching `filter`, with the number of
    /// all matching games.
    pub fn game_list(
        &self,
        filter: &GameFilter,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<GameSummary>, u64), StoreError> {
        let conn = self.conn.lock_or_recover();
        let condition = "WHERE (?1 IS NULL OR variant = ?1)
               AND (?2 IS NULL OR EXISTS (SELECT 1 FROM json_each(players) WHERE value = ?2))
               AND (?3 IS NULL OR result = ?3)
               AND (?4 IS NULL OR termination LIKE ?4 || '%')
               AND (?5 IS NULL OR tournament_id = ?5)";
        let args = params![filter.variant, filter.player, filter.result, filter.termination, filter.tournament];
        let total: u64 = conn
            .query_row(&format!("SELECT count(*) FROM games {condition}"), args, |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM games {condition} ORDER BY id DESC LIMIT {limit} OFFSET {offset}"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map(args, summary_of).map_err(|e| self.err(e))?;
        let games = rows.collect::<Result<_, _>>().map_err(|e| self.err(e))?;
        Ok((games, total))
    }

    /// Every tournament, newest first, with its number of stored games.
    pub fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreError> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn
            .prepare(
                "SELECT t.id, t.name, t.config, t.finished_at,
                        (SELECT count(*) FROM games g WHERE g.tournament_id = t.id)
                 FROM tournaments t ORDER BY t.id DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                let t = StoredTournament { id: r.get(0)?, name: r.get(1)?, config: r.get(2)?, finished_at: r.get(3)? };
                Ok((t, r.get(4)?))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// A number that changes whenever another connection (another process,
    /// or another `Store` on the same file) commits to the store.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        let conn = self.conn.lock_or_recover();
        conn.query_row("PRAGMA data_version", [], |r| r.get(0)).map_err(|e| self.err(e))
    }

    /// Records what spectators may see of a tournament game in progress
    /// (`frame`: the spectator's view only; it goes when the game is stored).
    pub fn set_live(
        &self,
        tournament: i64,
        index: u32,
        variant: &str,
        players: &[String],
        frame: &serde_json::Value,
    ) -> Result<(), StoreError> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT OR REPLACE INTO live_games (tournament_id, game_index, variant, players, frame)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![tournament, index, variant, serde_json::json!(players).to_string(), frame.to_string()],
        )
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Forgets a tournament's games in progress (those of a run that was killed).
    pub fn clear_live(&self, tournament: i64) -> Result<(), StoreError> {
        let conn = self.conn.lock_or_recover();
        conn.execute("DELETE FROM live_games WHERE tournament_id = ?1", params![tournament])
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A tournament's games in progress, by game index: index, variant,
    /// players and the spectator's latest frame.
    pub fn live_games(&self, tournament: i64) -> Result<Vec<serde_json::Value>, StoreError> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn
            .prepare(
                "SELECT game_index, variant, players, frame FROM live_games
                 WHERE tournament_id = ?1 ORDER BY game_index",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![tournament], |r| {
                let json = |i: usize| -> rusqlite::Result<serde_json::Value> {
                    Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default())
                };
                Ok(serde_json::json!({
                    "index": r.get::<_, u32>(0)?,
                    "variant": r.get::<_, String>(1)?,
                    "players": json(2)?,
                    "frame": json(3)?,
                }))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
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
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(|e| self.err(e))?;
        let old = tx
            .query_row(
                "SELECT holder, pid, heartbeat, in_process FROM tournament_leases WHERE tournament_id = ?1",
                params![id],
                |r| Ok(Lease { holder: r.get(0)?, pid: r.get(1)?, heartbeat: r.get(2)?, in_process: r.get(3)? }),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        if let Some(old) = old.as_ref().filter(|o| !stale(o)) {
            return Ok(Err(old.clone()));
        }
        tx.execute(
            "INSERT OR REPLACE INTO tournament_leases (tournament_id, holder, pid, heartbeat, in_process)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, lease.holder, lease.pid, lease.heartbeat, lease.in_process],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(Ok(old))
    }

    /// Renews `holder`'s lease on tournament `id` (its heartbeat, now).
    pub fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreError> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "UPDATE tournament_leases SET heartbeat = ?3 WHERE tournament_id = ?1 AND holder = ?2",
            params![id, holder, now],
        )
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Gives up `holder`'s lease on tournament `id`.
    pub fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreError> {
        let conn = self.conn.lock_or_recover();
        conn.execute("DELETE FROM tournament_leases WHERE tournament_id = ?1 AND holder = ?2", params![id, holder])
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records a new tournament's definition; returns its id.
    pub fn add_tournament(&self, name: &str, config_json: &str) -> Result<i64, StoreError> {
        let conn = self.conn.lock_or_recover();
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        conn.execute(
            "INSERT INTO tournaments (name, config, created_at) VALUES (?1, ?2, ?3)",
            params![name, config_json, now as i64],
        )
        .map_err(|e| self.err(e))?;
        Ok(conn.last_insert_rowid())
    }

    /// Marks a tournament finished.
    pub fn finish_tournament(&self, id: i64) -> Result<(), StoreError> {
        let conn = self.conn.lock_or_recover();
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        conn.execute("UPDATE tournaments SET finished_at = ?2 WHERE id = ?1", params![id, now as i64])
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// A tournament by id, or the most recent one if `id` is `None`.
    pub fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreError> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn
            .prepare(
                "SELECT id, name, config, finished_at FROM tournaments
                 WHERE ?1 IS NULL OR id = ?1 ORDER BY id DESC LIMIT 1",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query_map(params![id], |r| {
                Ok(StoredTournament { id: r.get(0)?, name: r.get(1)?, config: r.get(2)?, finished_at: r.get(3)? })
            })
            .map_err(|e| self.err(e))?;
        rows.next().transpose().map_err(|e| self.err(e))
    }
}

/// Whether opening failed because the file or its folder cannot be written.
fn is_read_only(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::PermissionDenied)
    )
}

/// A path as an SQLite URI path (`%`, `?` and `#` escaped).
fn percent_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.display().to_string().replace('%', "%25").replace('?', "%3f").replace('#', "%23")
}

/// Serializes a value as its display text.
fn as_text<S: serde::Serializer>(value: &impl std::fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}
