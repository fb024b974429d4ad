//! The SQLite backend (one file, `arbiter.db` by default): WAL mode lets a
//! reader (`arbiter results`, a web view) watch while games are written;
//! versioned migrations (rusqlite_migration) bring older stores up to date,
//! and a store on read-only media opens for reading.

use std::path::Path;
use std::sync::Mutex;

use arbiter_api::Outcome;
use rusqlite::{params, Connection, OptionalExtension};
use rusqlite_migration::{Migrations, M};
use serde_json::Value;

use super::{
    pair_points, Backend, Claim, GameColumns, GameFilter, GameRow, GameSummary, Lease, PairTally, QueuedGame,
    SlotResult, StopRule, StoreFailure, StoredBatch, StoredGame, StoredTournament, Storing, SummaryRow, Tallies, Tally,
    WorkerRate, SUMMARY_COLUMNS,
};
use crate::model::GameRecord;
use crate::record::pgn;
use crate::referee::{GameResult, Termination};
use crate::sync::LockExt;

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
    ]
}

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
                params![id, t.variant, super::to_json(&t.seats), t.winner.map_or(-1, i64::from), t.decided, t.games as i64],
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

/// Stores one game in the open transaction `tx`: for a claimed game
/// (`claim`), unless its slot is stored already (then `None`), taking it off
/// the queue; counts it in its tournament's tallies. Gives its id.
fn insert_game(tx: &Connection, c: &GameColumns<'_>, claim: Option<&Claim>) -> rusqlite::Result<Option<i64>> {
    let (record, event) = (c.record, c.event);
    // A claimed game another worker stored first is not stored twice.
    static INSERTS: std::sync::LazyLock<[String; 2]> = std::sync::LazyLock::new(|| {
        ["", "ON CONFLICT (tournament_id, game_index) DO NOTHING"].map(|once| {
            format!(
                "INSERT INTO games (event, round, variant, plugin, white, black, players, time_controls, options,
                    start_position, result, winner, termination, plies, final_position, started_at, duration_ms,
                    tournament_id, game_index, pair_id, seats, termination_kind, record, worker)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                    ?18, ?19, ?20, ?21, ?22, ?23, ?24) {once}"
            )
        })
    });
    let inserted = tx.prepare_cached(&INSERTS[claim.is_some() as usize])?.execute(params![
        event.event,
        event.round,
        record.variant,
        record.plugin,
        c.white(),
        c.black(),
        c.players,
        c.time_controls,
        c.options,
        record.start_position,
        record.result.pgn(),
        c.winner,
        record.result.termination.to_string(),
        record.plies.len() as i64,
        record.final_position,
        record.started_at as i64,
        record.duration_ms as i64,
        event.tournament.as_ref().map(|t| t.id),
        event.tournament.as_ref().map(|t| t.index),
        event.tournament.as_ref().and_then(|t| t.pair),
        c.seats,
        record.result.termination.kind(),
        c.whole,
        claim.map(|c| &c.holder),
    ])?;
    let id = (inserted > 0).then(|| tx.last_insert_rowid());
    if let Some(t) = &event.tournament {
        tx.prepare_cached("DELETE FROM live_games WHERE tournament_id = ?1 AND game_index = ?2")?
            .execute(params![t.id, t.index])?;
    }
    if let Some(c) = claim {
        // Kept, marked done: a late enqueue of the same game finds it.
        tx.prepare_cached("UPDATE game_queue SET done = 1 WHERE tournament_id = ?1 AND game_index = ?2")?
            .execute(params![c.game.tournament, c.game.index])?;
    }
    if let (Some(t), Some(game), Some(_)) = (&event.tournament, SlotResult::of(record, event), id) {
        count_game(tx, t.id, &game)?;
        if let Some(holder) = claim.map(|c| c.holder.as_str()) {
            tx.prepare_cached(
                "INSERT INTO worker_tallies (tournament_id, host, games, first_start, last_end_ms, shard)
                 VALUES (?1, ?2, 1, ?3, ?4, ?5)
                 ON CONFLICT (tournament_id, host, shard) DO UPDATE SET games = games + 1,
                     first_start = min(first_start, ?3), last_end_ms = max(last_end_ms, ?4)",
            )?
            .execute(params![
                t.id,
                holder.split(':').next().unwrap_or(holder),
                record.started_at as i64,
                (record.started_at * 1000 + record.duration_ms) as i64,
                game.shard()
            ])?;
        }
    }
    Ok(id)
}

/// Counts one stored tournament game in its tournament's tallies, and the
/// pair it completes if its other half is stored.
fn count_game(tx: &Connection, tournament: i64, game: &SlotResult) -> rusqlite::Result<()> {
    let other = match game.other_half() {
        Some(index) => tx
            .prepare_cached(
                "SELECT game_index, pair_id, seats, variant, result, winner FROM games
                 WHERE tournament_id = ?1 AND game_index = ?2",
            )?
            .query_row(params![tournament, index], slot_result)
            .optional()?,
        None => None,
    };
    if let Some(((low, high), half_points)) = other.and_then(|o| pair_points(game, &o)) {
        tx.prepare_cached(
            "INSERT INTO pair_tallies (tournament_id, variant, low, high, half_points, pairs, shard)
             VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)
             ON CONFLICT (tournament_id, variant, low, high, half_points, shard) DO UPDATE SET pairs = pairs + 1",
        )?
        .execute(params![tournament, game.variant, low as i64, high as i64, half_points, game.shard()])?;
    }
    tx.prepare_cached(
        "INSERT INTO tallies (tournament_id, variant, seats, winner, decided, games, shard)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)
         ON CONFLICT (tournament_id, variant, seats, winner, decided, shard) DO UPDATE SET games = games + 1",
    )?
    .execute(params![
        tournament,
        game.variant,
        super::to_json(&game.seats),
        game.winner.map_or(-1, i64::from),
        game.decided(),
        game.shard()
    ])?;
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
                    .filter_map(|t| crate::clock::TimeControl::parse(t.as_str()?).ok())
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

/// The first columns of a game row (see [`SUMMARY_COLUMNS`]).
fn summary_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SummaryRow> {
    Ok(SummaryRow {
        id: r.get(0)?,
        variant: r.get(1)?,
        players: r.get(2)?,
        result: r.get(3)?,
        winner: r.get(4)?,
        termination: r.get(5)?,
        plies: r.get(6)?,
        event: r.get(7)?,
        round: r.get(8)?,
        started_at: r.get(9)?,
        tournament: r.get(10)?,
        termination_kind: r.get(11)?,
    })
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

impl Backend for Sqlite {
    fn add_games(&self, games: &[Storing<'_>], stop: Option<&dyn StopRule>) -> Result<StoredBatch, StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let ids = games.iter().map(|g| insert_game(&tx, &g.columns, g.claim)).collect::<rusqlite::Result<Vec<_>>>()?;
        let mut stopped = false;
        let mut keep = None;
        // Writes are serialised (an immediate transaction): the store order
        // is the order the rule sees.
        let ruled = games.first().and_then(|g| g.columns.event.tournament.as_ref());
        if let (Some(t), Some(rule), true) = (ruled, stop, ids.iter().any(Option::is_some)) {
            let check = rule.check(results_after(&tx, t.id, rule.counted_through())?);
            (stopped, keep) = (check.holds, Some(check.keep));
            if stopped {
                tx.execute(
                    "UPDATE tournaments SET finished_at = ?2 WHERE id = ?1 AND finished_at IS NULL",
                    params![t.id, super::now()],
                )?;
                tx.execute("UPDATE game_queue SET done = 1 WHERE tournament_id = ?1 AND NOT done", params![t.id])?;
            }
        }
        tx.commit()?;
        if let Some(keep) = keep {
            keep();
        }
        Ok(StoredBatch { ids, stopped })
    }

    fn enqueue(&self, games: &[QueuedGame]) -> Result<usize, StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut added = 0;
        for g in games {
            added += tx.execute(
                "INSERT INTO game_queue (tournament_id, game_index, event, round, pair_id, seats, job)
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
                 WHERE NOT EXISTS (SELECT 1 FROM games WHERE tournament_id = ?1 AND game_index = ?2)
                 ON CONFLICT (tournament_id, game_index) DO NOTHING",
                params![g.tournament, g.index, g.event, g.round, g.pair, super::to_json(&g.seats), g.job],
            )?;
        }
        tx.commit()?;
        Ok(added)
    }

    fn claim(
        &self,
        holder: &str,
        until_ms: i64,
        now_ms: i64,
        tournament: Option<i64>,
        skip: &[i64],
        most: usize,
    ) -> Result<Vec<Claim>, StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let skip: Vec<String> = skip.iter().map(i64::to_string).collect();
        let games = tx
            .prepare(&format!(
                "SELECT tournament_id, game_index, event, round, pair_id, seats, job FROM game_queue
                 WHERE NOT done AND (claimed_by IS NULL OR lease_until < ?1) AND (?2 IS NULL OR tournament_id = ?2)
                   AND tournament_id NOT IN ({})
                 ORDER BY tournament_id, game_index LIMIT ?3",
                skip.join(",")
            ))?
            .query_map(params![now_ms, tournament, most as i64], |r| {
                Ok(QueuedGame {
                    tournament: r.get(0)?,
                    index: r.get(1)?,
                    event: r.get(2)?,
                    round: r.get(3)?,
                    pair: r.get(4)?,
                    seats: serde_json::from_str(&r.get::<_, String>(5)?).unwrap_or_default(),
                    job: r.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for game in &games {
            tx.prepare_cached(
                "UPDATE game_queue SET claimed_by = ?3, lease_until = ?4 WHERE tournament_id = ?1 AND game_index = ?2",
            )?
            .execute(params![game.tournament, game.index, holder, until_ms])?;
        }
        tx.commit()?;
        Ok(games.into_iter().map(|game| Claim { game, holder: holder.to_string() }).collect())
    }

    fn renew_claims(&self, claims: &[Claim], until_ms: i64) -> Result<(), StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction()?;
        for claim in claims {
            tx.prepare_cached(
                "UPDATE game_queue SET lease_until = ?4 WHERE tournament_id = ?1 AND game_index = ?2 AND claimed_by = ?3",
            )?
            .execute(params![claim.game.tournament, claim.game.index, claim.holder, until_ms])?;
        }
        Ok(tx.commit()?)
    }

    fn release_claims(&self, claims: &[Claim]) -> Result<(), StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction()?;
        for claim in claims {
            tx.prepare_cached(
                "UPDATE game_queue SET claimed_by = NULL, lease_until = NULL
                 WHERE tournament_id = ?1 AND game_index = ?2 AND claimed_by = ?3",
            )?
            .execute(params![claim.game.tournament, claim.game.index, claim.holder])?;
        }
        Ok(tx.commit()?)
    }

    fn queued_indices(&self, tournament: i64) -> Result<Vec<u32>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare("SELECT game_index FROM game_queue WHERE tournament_id = ?1")?;
        let rows = stmt.query_map(params![tournament], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn worker_rates(&self, tournament: i64) -> Result<Vec<WorkerRate>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(
            "SELECT host, SUM(games), MIN(first_start), MAX(last_end_ms) FROM worker_tallies WHERE tournament_id = ?1
             GROUP BY host ORDER BY host",
        )?;
        let rows =
            stmt.query_map(params![tournament], |r| Ok(WorkerRate::new(r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn queue_counts(&self, tournament: i64, now_ms: i64) -> Result<(u64, u64), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn.query_row(
            "SELECT count(*), coalesce(sum(claimed_by IS NOT NULL AND lease_until >= ?2), 0)
             FROM game_queue WHERE tournament_id = ?1 AND NOT done",
            params![tournament, now_ms],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    }

    fn queue_open(&self, tournament: i64) -> Result<bool, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM game_queue WHERE tournament_id = ?1 AND NOT done)",
            params![tournament],
            |r| r.get(0),
        )?)
    }

    fn games(
        &self,
        tournament: Option<i64>,
        id: Option<i64>,
    ) -> Result<Vec<Result<StoredGame, StoreFailure>>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(&format!(
            "SELECT {SUMMARY_COLUMNS}, record, game_index, pair_id, seats, worker FROM games
             WHERE (?1 IS NULL OR tournament_id = ?1) AND (?2 IS NULL OR id = ?2) ORDER BY id"
        ))?;
        let rows = stmt.query_map(params![tournament, id], |r| {
            Ok(GameRow {
                summary: summary_row(r)?,
                record: r.get(12)?,
                index: r.get(13)?,
                pair: r.get(14)?,
                seats: r.get(15)?,
                worker: r.get(16)?,
            })
        })?;
        Ok(rows.map(|row| row.map_err(StoreFailure::from).and_then(GameRow::into_stored)).collect())
    }

    fn tournament_results(&self, tournament: i64) -> Result<Vec<SlotResult>, StoreFailure> {
        Ok(results(&self.conn.lock_or_recover(), tournament)?)
    }

    fn tallies(&self, tournament: i64) -> Result<Tallies, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let games = conn
            .prepare_cached(
                "SELECT variant, seats, winner, decided, SUM(games) FROM tallies WHERE tournament_id = ?1
                 GROUP BY variant, seats, winner, decided ORDER BY variant, seats, winner, decided",
            )?
            .query_map(params![tournament], |r| {
                Ok(Tally {
                    variant: r.get(0)?,
                    seats: serde_json::from_str(&r.get::<_, String>(1)?).unwrap_or_default(),
                    winner: u32::try_from(r.get::<_, i64>(2)?).ok(),
                    decided: r.get(3)?,
                    games: r.get::<_, i64>(4)? as u64,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        let pairs = conn
            .prepare_cached(
                "SELECT variant, low, high, half_points, SUM(pairs) FROM pair_tallies WHERE tournament_id = ?1
                 GROUP BY variant, low, high, half_points ORDER BY variant, low, high, half_points",
            )?
            .query_map(params![tournament], |r| {
                Ok(PairTally {
                    variant: r.get(0)?,
                    entrants: (r.get::<_, i64>(1)? as usize, r.get::<_, i64>(2)? as usize),
                    half_points: r.get(3)?,
                    pairs: r.get::<_, i64>(4)? as u64,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(Tallies { games, pairs })
    }

    fn game_list(&self, filter: &GameFilter, limit: u32, offset: u32) -> Result<(Vec<GameSummary>, u64), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let condition = "WHERE (?1 IS NULL OR variant = ?1)
               AND (?2 IS NULL OR EXISTS (SELECT 1 FROM json_each(players) WHERE value = ?2))
               AND (?3 IS NULL OR result = ?3)
               AND (?4 IS NULL OR termination LIKE ?4 || '%')
               AND (?5 IS NULL OR tournament_id = ?5)";
        let args = params![filter.variant, filter.player, filter.result, filter.termination, filter.tournament];
        let total: u64 = conn.query_row(&format!("SELECT count(*) FROM games {condition}"), args, |r| r.get(0))?;
        let mut stmt = conn.prepare(&format!(
            "SELECT {SUMMARY_COLUMNS} FROM games {condition} ORDER BY id DESC LIMIT {limit} OFFSET {offset}"
        ))?;
        let rows = stmt.query_map(args, summary_row)?;
        let games = rows.map(|r| r.map(SummaryRow::into_summary)).collect::<Result<_, _>>()?;
        Ok((games, total))
    }

    fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(
            "SELECT t.id, t.name, t.config, t.finished_at,
                    (SELECT count(*) FROM games g WHERE g.tournament_id = t.id)
             FROM tournaments t ORDER BY t.id DESC",
        )?;
        let rows = stmt.query_map([], |r| {
            let t = StoredTournament { id: r.get(0)?, name: r.get(1)?, config: r.get(2)?, finished_at: r.get(3)? };
            Ok((t, r.get(4)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn data_version(&self) -> Result<i64, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    fn set_live(
        &self,
        tournament: i64,
        index: u32,
        variant: &str,
        players: &[String],
        frame: &Value,
    ) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT OR REPLACE INTO live_games (tournament_id, game_index, variant, players, frame)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![tournament, index, variant, serde_json::json!(players).to_string(), frame.to_string()],
        )?;
        Ok(())
    }

    fn clear_live(&self, tournament: i64) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute("DELETE FROM live_games WHERE tournament_id = ?1", params![tournament])?;
        Ok(())
    }

    fn live_games(&self, tournament: i64) -> Result<Vec<Value>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(
            "SELECT game_index, variant, players, frame FROM live_games
             WHERE tournament_id = ?1 ORDER BY game_index",
        )?;
        let rows = stmt.query_map(params![tournament], |r| {
            let json = |i: usize| -> rusqlite::Result<Value> {
                Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default())
            };
            Ok(serde_json::json!({
                "index": r.get::<_, u32>(0)?,
                "variant": r.get::<_, String>(1)?,
                "players": json(2)?,
                "frame": json(3)?,
            }))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn take_lease(
        &self,
        id: i64,
        lease: &Lease,
        stale: &dyn Fn(&Lease) -> bool,
    ) -> Result<Result<Option<Lease>, Lease>, StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let old = tx
            .query_row(
                "SELECT holder, pid, heartbeat, in_process FROM tournament_leases WHERE tournament_id = ?1",
                params![id],
                |r| Ok(Lease { holder: r.get(0)?, pid: r.get(1)?, heartbeat: r.get(2)?, in_process: r.get(3)? }),
            )
            .optional()?;
        if let Some(old) = old.as_ref().filter(|o| !stale(o)) {
            return Ok(Err(old.clone()));
        }
        tx.execute(
            "INSERT OR REPLACE INTO tournament_leases (tournament_id, holder, pid, heartbeat, in_process)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, lease.holder, lease.pid, lease.heartbeat, lease.in_process],
        )?;
        tx.commit()?;
        Ok(Ok(old))
    }

    fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "UPDATE tournament_leases SET heartbeat = ?3 WHERE tournament_id = ?1 AND holder = ?2",
            params![id, holder, now],
        )?;
        Ok(())
    }

    fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute("DELETE FROM tournament_leases WHERE tournament_id = ?1 AND holder = ?2", params![id, holder])?;
        Ok(())
    }

    fn add_tournament(&self, name: &str, config_json: &str, now: i64) -> Result<i64, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT INTO tournaments (name, config, created_at) VALUES (?1, ?2, ?3)",
            params![name, config_json, now],
        )?;
        Ok(conn.last_insert_rowid())
    }

    fn finish_tournament(&self, id: i64, now: i64) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute("UPDATE tournaments SET finished_at = ?2 WHERE id = ?1", params![id, now])?;
        Ok(())
    }

    fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn
            .query_row(
                "SELECT id, name, config, finished_at FROM tournaments
                 WHERE ?1 IS NULL OR id = ?1 ORDER BY id DESC LIMIT 1",
                params![id],
                |r| Ok(StoredTournament { id: r.get(0)?, name: r.get(1)?, config: r.get(2)?, finished_at: r.get(3)? }),
            )
            .optional()?)
    }
}

/// A tournament's finished games, in the order they were stored.
fn results(conn: &Connection, tournament: i64) -> rusqlite::Result<Vec<SlotResult>> {
    let mut stmt = conn.prepare_cached(
        "SELECT game_index, pair_id, seats, variant, result, winner FROM games
         WHERE tournament_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map(params![tournament], slot_result)?;
    rows.collect()
}

/// The games of `tournament` stored after the game `after`, in store
/// order, with their ids.
fn results_after(conn: &Connection, tournament: i64, after: i64) -> rusqlite::Result<Vec<(i64, SlotResult)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT game_index, pair_id, seats, variant, result, winner, id FROM games
         WHERE tournament_id = ?1 AND id > ?2 ORDER BY id",
    )?;
    let rows = stmt.query_map(params![tournament, after], |r| Ok((r.get(6)?, slot_result(r)?)))?;
    rows.collect()
}

/// A row of `game_index, pair_id, seats, variant, result, winner`.
fn slot_result(r: &rusqlite::Row<'_>) -> rusqlite::Result<SlotResult> {
    let seats: Option<String> = r.get(2)?;
    Ok(SlotResult {
        index: r.get(0)?,
        pair: r.get(1)?,
        seats: seats.and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
        variant: r.get(3)?,
        result: r.get(4)?,
        winner: r.get(5)?,
    })
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

#[cfg(test)]
mod tests {
    use super::super::{Store, FORGET_TALLIES};
    use super::*;
    use crate::record::EventInfo;
    use crate::referee::fixtures::record;

    /// A fresh store file in the system's temporary directory.
    fn temp_store(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("arbiter-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.db")
    }

    #[test]
    fn a_stored_game_reads_back_as_the_same_record() {
        let store = Store::open(&temp_store("round-trip")).unwrap();
        let r = record(&[0, 1, 0, 1, 1]);
        let event = EventInfo { event: "e".into(), round: 3, tournament: None };
        let id = store.add_game(&r, &event).unwrap();
        let g = store.game(id).unwrap().unwrap();
        assert_eq!(g.record, r);
        assert_eq!(g.event().event, "e");
        assert_eq!(g.summary.result, "1/2-1/2");
        assert_eq!(g.summary.plies, 5);
        assert_eq!(g.pgn(), pgn::write_game(&r, &event));
    }

    #[test]
    fn games_stored_before_whole_records_are_rebuilt_from_their_columns() {
        let path = temp_store("legacy");
        // A store at schema 2, with one game written as arbiter wrote it then.
        let r = GameRecord { standard_start: false, ..record(&[0, 1, 0]) };
        let event = EventInfo { event: "old".into(), round: 1, tournament: None };
        {
            let mut conn = Connection::open(&path).unwrap();
            Migrations::new(migration_steps()[..2].to_vec()).to_latest(&mut conn).unwrap();
            conn.execute(
                "INSERT INTO games (event, round, variant, plugin, white, black, players, time_controls, options,
                    start_position, result, winner, termination, plies, moves, final_position, started_at,
                    duration_ms, pgn, termination_kind)
                 VALUES ('old', 1, 'x', 'x 1', 'a', 'b', '[\"a\",\"b\"]', '[\"60+1\",\"60+1\"]', '{\"size\":3}', 's',
                    '1/2-1/2', NULL, 'draw agreed', 3, ?1, 'f', 1700000000, 1234, ?2, 'draw_agreed')",
                params![serde_json::to_string(&r.plies).unwrap(), pgn::write_game(&r, &event)],
            )
            .unwrap();
        }
        let g = Store::open(&path).unwrap().games(None).unwrap().pop().unwrap();
        assert_eq!(g.record, r, "the record tags and the set-up start come from the stored PGN");
    }

    /// Stores a tournament of three entrants whose paired games arrive out
    /// of order, with every outcome and a game without a result.
    fn store_paired_games(store: &Store) -> i64 {
        let t = store.add_tournament("t", "{}").unwrap();
        let mut order: Vec<u32> = (0..24).collect();
        order.reverse();
        order.swap(3, 17);
        for index in order {
            let pair = index - index % 2;
            let (a, b) = [(0, 1), (0, 2), (1, 2)][(pair / 2 % 3) as usize];
            let seats = if index % 2 == 0 { vec![a, b] } else { vec![b, a] };
            let mut r = record(&[0, 1]);
            r.result.outcome = match index % 7 {
                0 | 3 => Outcome::Win(0),
                1 | 5 => Outcome::Win(1),
                6 if index > 10 => Outcome::Ongoing,
                _ => Outcome::Draw,
            };
            let slot = crate::record::TournamentSlot { id: t, index, pair: Some(pair), seats };
            store.add_game(&r, &EventInfo { event: "t".into(), round: 1, tournament: Some(slot) }).unwrap();
        }
        t
    }

    fn sorted(mut t: Tallies) -> Tallies {
        t.games.sort();
        t.pairs.sort();
        t
    }

    #[test]
    fn standings_counted_as_games_are_stored_equal_a_count_over_every_game() {
        let store = Store::open(&temp_store("tallies")).unwrap();
        let t = store_paired_games(&store);
        let counted = store.tallies(t).unwrap();
        assert_eq!(counted.games(), 24);
        assert_eq!(counted.pairs.iter().map(|p| p.pairs).sum::<u64>(), 10, "two pairs hold a game without result");
        assert_eq!(sorted(counted), sorted(Tallies::of(&store.tournament_results(t).unwrap())));
    }

    #[test]
    fn a_store_written_before_tallies_counts_its_games_when_upgraded() {
        let path = temp_store("tallies-legacy");
        let t = store_paired_games(&Store::open(&path).unwrap());
        let expected = sorted(Store::open(&path).unwrap().tallies(t).unwrap());
        Connection::open(&path).unwrap().execute_batch(FORGET_TALLIES).unwrap();
        assert_eq!(sorted(Store::open(&path).unwrap().tallies(t).unwrap()), expected);
    }

    #[test]
    fn a_damaged_record_is_an_error_naming_the_store() {
        let path = temp_store("damaged");
        let store = Store::open(&path).unwrap();
        store.add_game(&record(&[0]), &EventInfo::default()).unwrap();
        Connection::open(&path).unwrap().execute("UPDATE games SET record = '{'", []).unwrap();
        let e = store.games(None).unwrap_err().to_string();
        assert!(e.starts_with(&format!("store {}", path.display())), "{e}");
    }

    #[test]
    fn an_export_reads_every_readable_game_and_names_each_damaged_row() {
        let path = temp_store("damaged-one");
        let store = Store::open(&path).unwrap();
        for _ in 0..3 {
            store.add_game(&record(&[0, 1]), &EventInfo::default()).unwrap();
        }
        Connection::open(&path).unwrap().execute("UPDATE games SET record = '{' WHERE id = 2", []).unwrap();
        let (games, skipped) = store.readable_games(None).unwrap();
        assert_eq!(games.iter().map(|g| g.summary.id).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].starts_with("game 2: its stored record is unreadable"), "{skipped:?}");
    }

    #[test]
    fn a_store_error_says_its_cause_once() {
        let dir = std::env::temp_dir().join(format!("arbiter-no-such-{}", std::process::id()));
        let Err(e) = Store::open(&dir.join("missing/x.db")) else { panic!("opened") };
        let e = anyhow::Error::from(e);
        let text = format!("{e:#}");
        assert_eq!(text.matches("unable to open database file").count(), 1, "{text}");
    }
}
