//! The PostgreSQL backend (`--db postgres://...`): the same tables as the
//! SQLite store, versioned by migrations (`migrate`), for stores that many
//! processes on many machines share. A few connections, opened as calls
//! overlap (a worker claims its next game while the last one is stored) and
//! made again after a failure (a restarted server); each call in one
//! transaction.

mod games;
mod live;
mod migrate;
mod plugin_files;
mod queue;
mod tournaments;
mod workers;

use std::collections::HashMap;

use std::sync::{Condvar, Mutex};

use std::time::{Duration, Instant};

use postgres::types::ToSql;

use postgres::{Client, GenericClient, NoTls, Row, Statement};

use crate::tallies::Tallies;
use crate::{to_json, StoreFailure};
use games::results;
use migrate::Migration;

use arbiter_core::sync::LockExt;

/// The schema, in order; `migrate` records which ran.
const MIGRATIONS: [Migration; 10] = [
    Migration::new(
        1,
        "initial",
        "CREATE TABLE tournaments (
        id          BIGSERIAL PRIMARY KEY,
        name        TEXT NOT NULL,
        config      TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        finished_at BIGINT
    );
    CREATE TABLE games (
        id             BIGSERIAL PRIMARY KEY,
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
        termination_kind TEXT,
        plies          INTEGER NOT NULL,
        moves          TEXT NOT NULL,
        final_position TEXT NOT NULL,
        started_at     BIGINT NOT NULL,
        duration_ms    BIGINT NOT NULL,
        pgn            TEXT NOT NULL,
        record         TEXT NOT NULL,
        worker         TEXT,
        tournament_id  BIGINT REFERENCES tournaments(id),
        game_index     INTEGER,
        pair_id        INTEGER,
        seats          TEXT
    );
    CREATE INDEX games_by_event ON games(event);
    CREATE INDEX games_by_variant ON games(variant);
    CREATE UNIQUE INDEX games_in_tournament ON games(tournament_id, game_index);
    CREATE TABLE live_games (
        tournament_id  BIGINT NOT NULL,
        game_index     INTEGER NOT NULL,
        variant        TEXT NOT NULL,
        players        TEXT NOT NULL,
        frame          TEXT NOT NULL,
        PRIMARY KEY (tournament_id, game_index)
    );
    CREATE TABLE tournament_leases (
        tournament_id BIGINT PRIMARY KEY,
        holder        TEXT NOT NULL,
        pid           BIGINT NOT NULL,
        heartbeat     BIGINT NOT NULL,
        in_process    BOOLEAN NOT NULL DEFAULT FALSE
    );
    CREATE TABLE game_queue (
        tournament_id BIGINT NOT NULL,
        game_index    INTEGER NOT NULL,
        event         TEXT NOT NULL,
        round         INTEGER NOT NULL,
        pair_id       INTEGER,
        seats         TEXT NOT NULL,
        job           TEXT NOT NULL,
        claimed_by    TEXT,
        lease_until   BIGINT,
        done          BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (tournament_id, game_index)
    );
    -- Bumped by every write: the data version readers poll.
    CREATE SEQUENCE store_changes;",
    ),
    // Standings counted as games are stored; the games stored before are
    // counted once by `count_earlier_games` (the flag says whether it ran).
    Migration::new(
        2,
        "tallies",
        "CREATE TABLE tallies (
            tournament_id BIGINT NOT NULL,
            variant       TEXT NOT NULL,
            seats         TEXT NOT NULL,
            winner        INTEGER NOT NULL,
            decided       BOOLEAN NOT NULL,
            games         BIGINT NOT NULL,
            shard         INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament_id, variant, seats, winner, decided, shard)
        );
        CREATE TABLE pair_tallies (
            tournament_id BIGINT NOT NULL,
            variant       TEXT NOT NULL,
            low           INTEGER NOT NULL,
            high          INTEGER NOT NULL,
            half_points   INTEGER NOT NULL,
            pairs         BIGINT NOT NULL,
            shard         INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament_id, variant, low, high, half_points, shard)
        );
        -- Games per worker host, for progress pages.
        CREATE TABLE worker_tallies (
            tournament_id BIGINT NOT NULL,
            host          TEXT NOT NULL,
            games         BIGINT NOT NULL,
            first_start   BIGINT NOT NULL,
            last_end_ms   BIGINT NOT NULL,
            shard         INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament_id, host, shard)
        );
        CREATE INDEX game_queue_open ON game_queue (tournament_id) WHERE NOT done;
        CREATE TABLE tallies_counted (counted BOOLEAN NOT NULL);
        INSERT INTO tallies_counted VALUES (FALSE);",
    ),
    Migration::new(
        // A tournament's games in store order, read from a given id on (an
        // SPRT's stopping rule reads only the games new to it).
        3,
        "games_by_tournament",
        "CREATE INDEX games_by_tournament ON games (tournament_id, id);",
    ),
    Migration::new(
        // A claim takes the lowest open index: read in index order, not
        // past every game already done.
        4,
        "open_queue_in_index_order",
        "DROP INDEX game_queue_open;
         CREATE INDEX game_queue_open ON game_queue (tournament_id, game_index) WHERE NOT done;",
    ),
    Migration::new(
        // A game's record, PGN and moves run to tens of kilobytes, which
        // PostgreSQL compresses; its default (pglz) took about a third of
        // the CPU a stored game costs. lz4 where the server has it.
        5,
        "lz4_game_texts",
        "DO $$ BEGIN
             ALTER TABLE games ALTER COLUMN record SET COMPRESSION lz4,
                 ALTER COLUMN pgn SET COMPRESSION lz4, ALTER COLUMN moves SET COMPRESSION lz4;
         EXCEPTION WHEN feature_not_supported THEN NULL;
         END $$;",
    ),
    Migration::new(
        // The record is the only copy of a game's moves: its PGN is written
        // from it when read (the two columns more than doubled a store).
        6,
        "record_only",
        "ALTER TABLE games DROP COLUMN moves, DROP COLUMN pgn;",
    ),
    Migration::new(
        // WebAssembly plugins a tournament is pinned to, for workers to fetch.
        7,
        "plugin_files",
        "CREATE TABLE plugin_files (sha256 TEXT PRIMARY KEY, name TEXT NOT NULL, bytes BYTEA NOT NULL);",
    ),
    Migration::new(
        // Remote workers: their tokens by hash (never the token), the
        // uploads the coordinator refused, and the games played twice.
        8,
        "remote_workers",
        "CREATE TABLE worker_tokens (
             name       TEXT PRIMARY KEY,
             sha256     TEXT NOT NULL UNIQUE,
             issued_ms  BIGINT NOT NULL,
             expires_ms BIGINT,
             revoked_ms BIGINT
         );
         CREATE TABLE refused_uploads (
             id            BIGSERIAL PRIMARY KEY,
             worker        TEXT NOT NULL,
             tournament_id BIGINT NOT NULL,
             game_index    INTEGER NOT NULL,
             reason        TEXT NOT NULL,
             at_ms         BIGINT NOT NULL
         );
         CREATE INDEX refused_uploads_by_game ON refused_uploads (tournament_id, game_index);
         CREATE TABLE game_checks (
             tournament_id BIGINT NOT NULL,
             game_index    INTEGER NOT NULL,
             first_worker  TEXT NOT NULL,
             digest        TEXT NOT NULL,
             claimed_by    TEXT,
             lease_until   BIGINT,
             second_worker TEXT,
             agreed        BOOLEAN,
             PRIMARY KEY (tournament_id, game_index)
         );",
    ),
    Migration::new(
        // The record of an upload held back from a flagged worker, for its admin.
        9,
        "held_records",
        "ALTER TABLE refused_uploads ADD COLUMN record TEXT;",
    ),
    Migration::new(
        // What became of each upload that does not count (see RefusalKind).
        10,
        "refusal_kinds",
        "ALTER TABLE refused_uploads ADD COLUMN kind TEXT NOT NULL DEFAULT 'refused';",
    ),
];

/// The password for a URL that names none, as PostgreSQL's own tools find
/// it: the file `ARBITER_DB_PASSWORD_FILE` names (`--db-password-file`;
/// its first line), else `PGPASSWORD`. Neither puts the password on a
/// command line, where every process listing would show it.
fn password() -> Result<Option<String>, StoreFailure> {
    if let Some(file) = std::env::var_os("ARBITER_DB_PASSWORD_FILE") {
        let text = std::fs::read_to_string(&file).map_err(|e| {
            StoreFailure::Postgres(format!("the password file {}: {e}", std::path::Path::new(&file).display()))
        })?;
        return Ok(Some(text.lines().next().unwrap_or("").to_string()));
    }
    Ok(std::env::var("PGPASSWORD").ok())
}

/// Connections one process opens at most: enough for every concurrent
/// game's claim and store to have one of their own; a server that refuses
/// more (its `max_connections`) makes calls wait for an open one instead.
const MAX_CONNECTIONS: usize = 8;

/// A PostgreSQL store.
pub(super) struct Postgres {
    /// How to connect: the URL's settings, its password from the
    /// environment or a file when the URL names none (see [`password`]).
    config: postgres::Config,
    pool: Mutex<Pool>,
    /// Signalled when a connection is given back.
    returned: Condvar,
}

/// The connections not in use, how many are open in all, and how many may be.
struct Pool {
    idle: Vec<Connection>,
    open: usize,
    /// [`MAX_CONNECTIONS`], or fewer once the server refused one more.
    most: usize,
}

/// One connection with the hot path's statements prepared on it (a
/// statement given as text is parsed again on every call: a round trip more).
struct Connection {
    client: Client,
    statements: Statements,
}

/// Statements prepared on one connection, by their text. Each is prepared
/// again now and then, so that PostgreSQL plans it for the store as it is:
/// after five executions a prepared statement keeps one generic plan, made
/// from the tables' sizes of that moment, and one made while a new store's
/// tables were nearly empty scans them whole (a cost growing with the
/// store). The time a statement is kept doubles from [`REPLAN_FIRST`] to
/// [`REPLAN_MOST`], so a young store's plans are soon made again and an old
/// one's seldom.
#[derive(Default)]
struct Statements(HashMap<String, Prepared>);

/// A statement prepared on a connection.
struct Prepared {
    statement: Statement,
    /// When it was prepared.
    at: Instant,
    /// How long it is kept before it is prepared again.
    keep: Duration,
}

/// How long a statement is kept the first time it is prepared: a plan made
/// for a new store's near-empty tables is used this long at most (reading
/// every game then costs a few milliseconds a batch at 5,000 games), and
/// a short run plans each statement about once.
const REPLAN_FIRST: Duration = Duration::from_secs(4);

/// The longest a statement is kept before it is prepared again.
const REPLAN_MOST: Duration = Duration::from_secs(60);

/// Games enqueued at once after which the queue's statistics are renewed,
/// so that claims are planned for the queue's new size.
const ANALYZE_AFTER: usize = 1000;

impl Statements {
    /// `sql` prepared on the connection `client` belongs to, again once it
    /// has been kept long enough.
    fn prepared(&mut self, client: &mut impl GenericClient, sql: &str) -> Result<Statement, postgres::Error> {
        let keep = match self.0.get(sql) {
            Some(p) if p.at.elapsed() < p.keep => return Ok(p.statement.clone()),
            Some(p) => (p.keep * 2).min(REPLAN_MOST),
            None => REPLAN_FIRST,
        };
        let statement = client.prepare(sql)?;
        self.0.insert(sql.to_string(), Prepared { statement: statement.clone(), at: Instant::now(), keep });
        Ok(statement)
    }

    /// Runs `sql`, prepared once.
    fn exec(
        &mut self,
        client: &mut impl GenericClient,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        let statement = self.prepared(client, sql)?;
        client.execute(&statement, params)
    }

    /// The row `sql` gives, if any, prepared once.
    fn query_opt(
        &mut self,
        client: &mut impl GenericClient,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, postgres::Error> {
        let statement = self.prepared(client, sql)?;
        client.query_opt(&statement, params)
    }

    /// The rows `sql` gives, prepared once.
    fn query(
        &mut self,
        client: &mut impl GenericClient,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, postgres::Error> {
        let statement = self.prepared(client, sql)?;
        client.query(&statement, params)
    }
}

impl From<postgres::Error> for StoreFailure {
    fn from(e: postgres::Error) -> StoreFailure {
        StoreFailure::Postgres(one_line(&e))
    }
}

/// A driver error on one line, with the server's message when it sent one.
fn one_line(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => e.to_string().replace('\n', " "),
    }
}

impl Postgres {
    /// Connects to `url` and brings the schema up to date.
    pub(super) fn open(url: &str) -> Result<Postgres, StoreFailure> {
        let mut config: postgres::Config = url.parse()?;
        if config.get_password().is_none() {
            if let Some(password) = password()? {
                config.password(password);
            }
        }
        let mut client = config.connect(NoTls)?;
        // Two processes migrating a new store at once: the loser waits on
        // the lock and then finds the work done.
        client.batch_execute("SELECT pg_advisory_lock(727274)")?;
        let migrated = migrate::migrate(&mut client, &MIGRATIONS)
            .and_then(|()| count_earlier_games(&mut client).map_err(StoreFailure::from));
        client.batch_execute("SELECT pg_advisory_unlock(727274)")?;
        migrated?;
        let pool = Pool {
            idle: vec![Connection { client, statements: Statements::default() }],
            open: 1,
            most: MAX_CONNECTIONS,
        };
        Ok(Postgres { config, pool: Mutex::new(pool), returned: Condvar::new() })
    }

    /// Runs `f` on a connection of the pool, connecting again first if the
    /// connection was lost (a restarted server); a call that fails on a lost
    /// connection is tried once more on a new one.
    fn with<T>(&self, mut f: impl FnMut(&mut Client) -> Result<T, postgres::Error>) -> Result<T, StoreFailure> {
        self.with_statements(|client, _| f(client))
    }

    /// [`Postgres::with`], with the statements prepared on the connection.
    fn with_statements<T>(
        &self,
        mut f: impl FnMut(&mut Client, &mut Statements) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreFailure> {
        let mut connection = self.take()?;
        for attempt in 0..2 {
            if connection.as_ref().is_none_or(|c| c.client.is_closed()) {
                match self.config.connect(NoTls) {
                    Ok(client) => connection = Some(Connection { client, statements: Statements::default() }),
                    Err(e) => {
                        self.give_back(None);
                        return Err(e.into());
                    }
                }
            }
            let c = connection.as_mut().expect("connected above");
            match f(&mut c.client, &mut c.statements) {
                Ok(v) => {
                    self.give_back(connection);
                    return Ok(v);
                }
                Err(e) if attempt == 0 && (e.is_closed() || c.client.is_closed()) => connection = None,
                Err(e) => {
                    self.give_back(connection);
                    return Err(e.into());
                }
            }
        }
        unreachable!("the second attempt returns")
    }

    /// An idle connection; or none, for the caller to open (counted as open
    /// already), while fewer than the pool may hold are open; else waits
    /// for one to be given back. A server that refuses a new connection
    /// while others are open lowers this process's share to what it has.
    fn take(&self) -> Result<Option<Connection>, StoreFailure> {
        let mut pool = self.pool.lock_or_recover();
        loop {
            if let Some(c) = pool.idle.pop() {
                return Ok(Some(c));
            }
            if pool.open < pool.most {
                pool.open += 1;
                drop(pool);
                match self.config.connect(NoTls) {
                    Ok(client) => return Ok(Some(Connection { client, statements: Statements::default() })),
                    Err(e) => {
                        pool = self.pool.lock_or_recover();
                        pool.open -= 1;
                        if pool.open == 0 {
                            return Err(e.into());
                        }
                        // Asking again would cost the server a refusal each time.
                        pool.most = pool.open;
                        tracing::debug!("no more connections ({}): sharing the {} open", one_line(&e), pool.open);
                        // One may have been given back while this one was refused.
                        continue;
                    }
                }
            }
            pool = self.returned.wait(pool).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Returns a connection taken with [`Postgres::take`] to the pool; `None`
    /// (a connection lost or never made) closes its place.
    fn give_back(&self, connection: Option<Connection>) {
        let mut pool = self.pool.lock_or_recover();
        match connection.filter(|c| !c.client.is_closed()) {
            Some(c) => pool.idle.push(c),
            None => pool.open -= 1,
        }
        drop(pool);
        self.returned.notify_one();
    }
}

/// Counts the games stored before the store kept tallies, once, in one
/// transaction (a process killed half way leaves it to the next open).
fn count_earlier_games(client: &mut Client) -> Result<(), postgres::Error> {
    let mut tx = client.transaction()?;
    let counted: bool = tx.query_one("SELECT counted FROM tallies_counted FOR UPDATE", &[])?.get(0);
    if counted {
        return Ok(());
    }
    tx.batch_execute("DELETE FROM tallies; DELETE FROM pair_tallies; DELETE FROM worker_tallies")?;
    let ids: Vec<i64> = tx
        .query("SELECT DISTINCT tournament_id FROM games WHERE tournament_id IS NOT NULL", &[])?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for id in ids {
        let tallies = Tallies::of(&results(&mut tx, id)?);
        for t in &tallies.games {
            tx.execute(
                "INSERT INTO tallies (tournament_id, variant, seats, winner, decided, games) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&id, &t.variant, &to_json(&t.seats), &t.winner.map_or(-1, |w| w.number() as i32), &t.decided, &(t.games as i64)],
            )?;
        }
        for p in &tallies.pairs {
            tx.execute(
                "INSERT INTO pair_tallies (tournament_id, variant, low, high, half_points, pairs) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&id, &p.variant, &(p.entrants.0 as i32), &(p.entrants.1 as i32), &(p.half_points as i32), &(p.pairs as i64)],
            )?;
        }
    }
    tx.execute(
        "INSERT INTO worker_tallies (tournament_id, host, games, first_start, last_end_ms)
         SELECT tournament_id, split_part(worker, ':', 1), count(*), min(started_at), max(started_at * 1000 + duration_ms)
         FROM games WHERE tournament_id IS NOT NULL AND worker IS NOT NULL GROUP BY 1, 2",
        &[],
    )?;
    tx.execute("UPDATE tallies_counted SET counted = TRUE", &[])?;
    tx.commit()
}
