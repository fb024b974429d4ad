//! The SQLite backend (one file, `arbiter.db` by default): WAL mode lets a
//! reader (`arbiter results`, a web view) watch while games are written;
//! versioned migrations (rusqlite_migration) bring older stores up to date,
//! and a store on read-only media opens for reading.

mod games;
mod live;
mod plugin_files;
mod queue;
#[cfg(test)]
mod tests;
mod tournaments;
mod workers;

use std::path::Path;

use std::sync::Mutex;

use arbiter_api::Outcome;

use rusqlite::{params, Connection};

use rusqlite_migration::{Migrations, M};

use crate::tallies::Tallies;
use crate::{to_json, StoreFailure};
use games::results;

use arbiter_core::model::GameRecord;

use arbiter_play::record::pgn;

use arbiter_play::referee::{GameResult, Termination};

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
        // The whole record, as serde writes it, so that any format can be
        // written again from the store; older rows are rebuilt from their
        // columns.
        M::up_with_hook("ALTER TABLE games ADD COLUMN record TEXT;", backfill_records),
        // The queue of games for workers on other processes or machines,
        // and the worker that played each game.
        M::up(
            "ALTER TABLE games ADD COLUMN worker TEXT;
             CREATE TABLE game_queue (
                 tournament_id INTEGER NOT NULL,
                 game_index    INTEGER NOT NULL,
                 event         TEXT NOT NULL,
                 round         INTEGER NOT NULL,
                 pair_id       INTEGER,
                 seats         TEXT NOT NULL,
                 job           TEXT NOT NULL,
                 claimed_by    TEXT,
                 lease_until   INTEGER,
                 done          INTEGER NOT NULL DEFAULT 0,
                 PRIMARY KEY (tournament_id, game_index)
             );",
        ),
        // Standings counted as games are stored; earlier games counted once.
        M::up_with_hook(
            "CREATE TABLE tallies (
                 tournament_id INTEGER NOT NULL,
                 variant       TEXT NOT NULL,
                 seats         TEXT NOT NULL,
                 winner        INTEGER NOT NULL,
                 decided       INTEGER NOT NULL,
                 games         INTEGER NOT NULL,
                 shard         INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament_id, variant, seats, winner, decided, shard)
             );
             CREATE TABLE pair_tallies (
                 tournament_id INTEGER NOT NULL,
                 variant       TEXT NOT NULL,
                 low           INTEGER NOT NULL,
                 high          INTEGER NOT NULL,
                 half_points   INTEGER NOT NULL,
                 pairs         INTEGER NOT NULL,
                 shard         INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament_id, variant, low, high, half_points, shard)
             );
             CREATE TABLE worker_tallies (
                 tournament_id INTEGER NOT NULL,
                 host          TEXT NOT NULL,
                 games         INTEGER NOT NULL,
                 first_start   INTEGER NOT NULL,
                 last_end_ms   INTEGER NOT NULL,
                 shard         INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament_id, host, shard)
             );
             CREATE INDEX game_queue_open ON game_queue (tournament_id) WHERE NOT done;",
            count_earlier_games,
        ),
        // A tournament's games in store order, read from a given id on (an
        // SPRT's stopping rule reads only the games new to it).
        M::up("CREATE INDEX games_by_tournament ON games (tournament_id, id);"),
        // A claim takes the lowest open index: read in index order, not
        // past every game already done. (A store may lack the old index:
        // one found without it was refused before this said IF EXISTS.)
        M::up(
            "DROP INDEX IF EXISTS game_queue_open;
             CREATE INDEX game_queue_open ON game_queue (tournament_id, game_index) WHERE NOT done;",
        ),
        // The record is the only copy of a game's moves: its PGN is written
        // from it when read (the two columns more than doubled a store).
        M::up("ALTER TABLE games DROP COLUMN moves; ALTER TABLE games DROP COLUMN pgn;"),
        // WebAssembly plugins a tournament is pinned to, for workers to fetch.
        M::up("CREATE TABLE plugin_files (sha256 TEXT PRIMARY KEY, name TEXT NOT NULL, bytes BLOB NOT NULL);"),
        // Remote workers: their tokens by hash, and the uploads refused.
        M::up(WORKERS_V1),
        // The record of an upload held back from a flagged worker, for its admin.
        M::up("ALTER TABLE refused_uploads ADD COLUMN record TEXT;"),
        // What became of each upload that does not count (see RefusalKind).
        M::up("ALTER TABLE refused_uploads ADD COLUMN kind TEXT NOT NULL DEFAULT 'refused';"),
    ]
}

/// Remote workers' tokens (the sha256 of each, never the token), the
/// uploads the coordinator refused, and the games it has played twice.
const WORKERS_V1: &str = "
CREATE TABLE worker_tokens (
    name       TEXT PRIMARY KEY,
    sha256     TEXT NOT NULL UNIQUE,
    issued_ms  INTEGER NOT NULL,
    expires_ms INTEGER,
    revoked_ms INTEGER
);
CREATE TABLE refused_uploads (
    id            INTEGER PRIMARY KEY,
    worker        TEXT NOT NULL,
    tournament_id INTEGER NOT NULL,
    game_index    INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    at_ms         INTEGER NOT NULL
);
CREATE INDEX refused_uploads_by_game ON refused_uploads (tournament_id, game_index);
CREATE TABLE game_checks (
    tournament_id INTEGER NOT NULL,
    game_index    INTEGER NOT NULL,
    first_worker  TEXT NOT NULL,
    digest        TEXT NOT NULL,
    claimed_by    TEXT,
    lease_until   INTEGER,
    second_worker TEXT,
    agreed        INTEGER,
    PRIMARY KEY (tournament_id, game_index)
);
";

/// Counts the games stored before the store kept tallies.
fn count_earlier_games(tx: &rusqlite::Transaction<'_>) -> rusqlite_migration::HookResult {
    let ids: Vec<i64> = tx
        .prepare("SELECT DISTINCT tournament_id FROM games WHERE tournament_id IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    tx.execute(
        "INSERT INTO worker_tallies (tournament_id, host, games, first_start, last_end_ms)
         SELECT tournament_id, substr(worker, 1, instr(worker || ':', ':') - 1), count(*), min(started_at),
                max(started_at * 1000 + duration_ms)
         FROM games WHERE tournament_id IS NOT NULL AND worker IS NOT NULL GROUP BY 1, 2",
        [],
    )?;
    for id in ids {
        let tallies = Tallies::of(&results(tx, id)?);
        for t in &tallies.games {
            tx.execute(
                "INSERT INTO tallies (tournament_id, variant, seats, winner, decided, games) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, t.variant, to_json(&t.seats), t.winner.map_or(-1, |w| i64::from(w.number())), t.decided, t.games as i64],
            )?;
        }
        for p in &tallies.pairs {
            tx.execute(
                "INSERT INTO pair_tallies (tournament_id, variant, low, high, half_points, pairs) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, p.variant, p.entrants.0 as i64, p.entrants.1 as i64, p.half_points, p.pairs as i64],
            )?;
        }
    }
    Ok(())
}

/// Fills the `record` column of rows stored before it existed, from their
/// columns; what only their PGN text kept (the variant's record tags, a
/// set-up start) is read from it.
fn backfill_records(tx: &rusqlite::Transaction<'_>) -> rusqlite_migration::HookResult {
    let mut read = tx.prepare(
        "SELECT id, variant, plugin, players, time_controls, options, start_position, winner, result, termination,
                termination_kind, moves, final_position, started_at, duration_ms, pgn
         FROM games WHERE record IS NULL",
    )?;
    let rows = read
        .query_map([], |r| {
            let json = |i: usize| -> rusqlite::Result<serde_json::Value> {
                Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default())
            };
            let pgn_text: String = r.get(15)?;
            let header = pgn::read_games(&pgn_text).into_iter().next().map(|g| g.tags).unwrap_or_default();
            let engines_of = |header: &[(String, String)]| -> Vec<String> {
                let tag = |name: &str| header.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
                match (tag("WhiteEngine"), tag("BlackEngine")) {
                    (None, None) => Vec::new(),
                    (w, b) => vec![w.unwrap_or_default(), b.unwrap_or_default()],
                }
            };
            let record = GameRecord {
                variant: r.get(1)?,
                plugin: r.get(2)?,
                players: serde_json::from_value(json(3)?).unwrap_or_default(),
                time_controls: json(4)?
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| arbiter_core::clock::TimeControl::parse(t.as_str()?).ok())
                    .collect(),
                options: serde_json::from_value(json(5)?).unwrap_or_default(),
                start_position: r.get(6)?,
                standard_start: !header.iter().any(|(k, _)| k == "SetUp"),
                plies: serde_json::from_value(json(11)?).unwrap_or_default(),
                result: GameResult {
                    outcome: match (r.get::<_, Option<u32>>(7)?, r.get::<_, String>(8)?.as_str()) {
                        (Some(p), _) => Outcome::Win(p),
                        (None, "1/2-1/2") => Outcome::Draw,
                        _ => Outcome::Ongoing,
                    },
                    termination: Termination::from_stored(
                        r.get::<_, Option<String>>(10)?.as_deref(),
                        &r.get::<_, String>(9)?,
                    ),
                },
                final_position: r.get(12)?,
                started_at: r.get::<_, i64>(13)? as u64,
                duration_ms: r.get::<_, i64>(14)? as u64,
                viewer: None,
                engines: engines_of(&header),
                record_tags: header.into_iter().filter(|(k, _)| !pgn::WRITER_TAGS.contains(&k.as_str())).collect(),
            };
            Ok((r.get::<_, i64>(0)?, record))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut write = tx.prepare("UPDATE games SET record = ?2 WHERE id = ?1")?;
    for (id, record) in rows {
        let text = serde_json::to_string(&record).map_err(|e| rusqlite_migration::HookError::Hook(e.to_string()))?;
        write.execute(params![id, text])?;
    }
    Ok(())
}

/// An SQLite store, shareable between threads.
pub(super) struct Sqlite {
    conn: Mutex<Connection>,
}

impl Sqlite {
    /// Opens (creating if needed) the store at `path`, bringing its schema
    /// up to date. A store that cannot be written (read-only media) is
    /// opened for reading, if its schema is current: reading never needs to
    /// write.
    pub(super) fn open(path: &Path) -> Result<Sqlite, StoreFailure> {
        match Self::open_writable(path) {
            Ok(conn) => Ok(Sqlite { conn: Mutex::new(conn) }),
            Err(StoreFailure::Sqlite(e)) if path.exists() && is_read_only(&e) => {
                Ok(Sqlite { conn: Mutex::new(Self::open_read_only(path)?) })
            }
            Err(e) => Err(e),
        }
    }

    fn open_writable(path: &Path) -> Result<Connection, StoreFailure> {
        let mut conn = Connection::open(path)?;
        // First, so that switching to WAL waits for another process that is
        // creating or migrating the store instead of failing at once.
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        // Two processes opening a new store at once race to create and
        // migrate it: switching to WAL can answer "database is locked" at
        // once while the other holds the file (SQLite calls no busy handler
        // there), and the loser's migration rolls back; a later try finds it
        // done (on a loaded machine the winner may take seconds to finish).
        let give_up = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut tries = 0;
        loop {
            match conn.pragma_update(None, "journal_mode", "WAL") {
                Ok(()) => break,
                Err(e) if is_busy(&e) && std::time::Instant::now() < give_up => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(25 * tries.min(10)));
                }
                Err(e) => return Err(e.into()),
            }
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        loop {
            match Migrations::new(migration_steps()).to_latest(&mut conn) {
                Ok(()) => return Ok(conn),
                Err(rusqlite_migration::Error::RusqliteError { err, .. }) if is_read_only(&err) => {
                    return Err(StoreFailure::Sqlite(err))
                }
                Err(_) if std::time::Instant::now() < give_up => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(25 * tries.min(10)));
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
}

/// Whether SQLite said another connection holds the file.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
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
