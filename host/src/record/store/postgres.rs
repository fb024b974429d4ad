//! The PostgreSQL backend (`--db postgres://...`): the same tables as the
//! SQLite store, versioned by refinery's migrations, for stores that many
//! processes on many machines share. A few connections, opened as calls
//! overlap (a worker claims its next game while the last one is stored) and
//! made again after a failure (a restarted server); each call in one
//! transaction.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use postgres::types::ToSql;
use postgres::{Client, GenericClient, NoTls, Row, Statement};
use serde_json::Value;

use super::{
    pair_points, Backend, Claim, GameColumns, GameFilter, GameRow, GameSummary, Lease, PairTally, QueuedGame,
    SlotResult, StopRule, StoreFailure, StoredBatch, StoredGame, StoredTournament, Storing, SummaryRow, Tallies, Tally,
    WorkerRate,
};
use crate::model::GameRecord;
use crate::record::TournamentSlot;
use crate::sync::LockExt;

/// The schema, in order; refinery records which ran in `refinery_schema_history`.
const MIGRATIONS: [(&str, &str); 6] = [
    (
        "V1__initial",
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
    (
        "V2__tallies",
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
    (
        // A tournament's games in store order, read from a given id on (an
        // SPRT's stopping rule reads only the games new to it).
        "V3__games_by_tournament",
        "CREATE INDEX games_by_tournament ON games (tournament_id, id);",
    ),
    (
        // A claim takes the lowest open index: read in index order, not
        // past every game already done.
        "V4__open_queue_in_index_order",
        "DROP INDEX game_queue_open;
         CREATE INDEX game_queue_open ON game_queue (tournament_id, game_index) WHERE NOT done;",
    ),
    (
        // A game's record, PGN and moves run to tens of kilobytes, which
        // PostgreSQL compresses; its default (pglz) took about a third of
        // the CPU a stored game costs. lz4 where the server has it.
        "V5__lz4_game_texts",
        "DO $$ BEGIN
             ALTER TABLE games ALTER COLUMN record SET COMPRESSION lz4,
                 ALTER COLUMN pgn SET COMPRESSION lz4, ALTER COLUMN moves SET COMPRESSION lz4;
         EXCEPTION WHEN feature_not_supported THEN NULL;
         END $$;",
    ),
    (
        // The record is the only copy of a game's moves: its PGN is written
        // from it when read (the two columns more than doubled a store).
        "V6__record_only",
        "ALTER TABLE games DROP COLUMN moves, DROP COLUMN pgn;",
    ),
];

/// Connections one process opens at most: enough for every concurrent
/// game's claim and store to have one of their own; a server that refuses
/// more (its `max_connections`) makes calls wait for an open one instead.
const MAX_CONNECTIONS: usize = 8;

/// A PostgreSQL store.
pub(super) struct Postgres {
    url: String,
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
        let mut client = Client::connect(url, NoTls)?;
        let migrations = MIGRATIONS
            .iter()
            .map(|(name, sql)| refinery::Migration::unapplied(name, sql))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| StoreFailure::Schema(e.to_string()))?;
        // Two processes migrating a new store at once: the loser waits on
        // the lock and then finds the work done.
        client.batch_execute("SELECT pg_advisory_lock(727274)")?;
        let ran = refinery::Runner::new(&migrations).set_abort_divergent(true).run(&mut client);
        let counted = ran.map_err(|e| StoreFailure::Schema(e.to_string().replace('\n', " "))).and_then(|_| {
            count_earlier_games(&mut client)?;
            Ok(())
        });
        client.batch_execute("SELECT pg_advisory_unlock(727274)")?;
        counted?;
        let pool = Pool {
            idle: vec![Connection { client, statements: Statements::default() }],
            open: 1,
            most: MAX_CONNECTIONS,
        };
        Ok(Postgres { url: url.to_string(), pool: Mutex::new(pool), returned: Condvar::new() })
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
                match Client::connect(&self.url, NoTls) {
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
                match Client::connect(&self.url, NoTls) {
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

/// The claims' tournaments, game indices and holders, as three arrays.
fn claim_keys(claims: &[Claim]) -> (Vec<i64>, Vec<i32>, Vec<String>) {
    let tournaments = claims.iter().map(|c| c.game.tournament).collect();
    let indices = claims.iter().map(|c| c.game.index as i32).collect();
    let holders = claims.iter().map(|c| c.holder.clone()).collect();
    (tournaments, indices, holders)
}

/// What a storing transaction did before its commit: the games' ids (none
/// for a late duplicate), whether the stopping rule holds, and the rule's
/// count to keep once committed.
type Uncommitted<'a> = (Vec<Option<i64>>, bool, Option<Box<dyn FnOnce() + 'a>>);

/// Stores a batch of games in one round trip: the games (`$1`..`$24`, a
/// column of arrays each, in the order of the `games` table's columns
/// below), their live views gone, their claims' queue rows (`$25`, `$26`:
/// tournaments and indices; for a claimed game, stored or a late duplicate)
/// marked done and kept so that a late enqueue finds them, and the stored
/// games named by `$27`, `$28` (the other halves of the batch's pairs). Gives
/// a row per game stored (`id, tournament_id, game_index`, the rest null),
/// then one per other half found (`id` null, then `tournament_id,
/// game_index, pair_id, seats, variant, result, winner`). The statement sees
/// the store as it was before it: a batch's own games are not among the
/// other halves found.
fn insert_games_sql(once: &str) -> String {
    format!(
        "WITH g AS (
         INSERT INTO games (event, round, variant, plugin, white, black, players, time_controls,
            options, start_position, result, winner, termination, plies, final_position,
            started_at, duration_ms, tournament_id, game_index, pair_id, seats, termination_kind,
            record, worker)
         SELECT * FROM unnest($1::TEXT[], $2::INTEGER[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::TEXT[],
            $7::TEXT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::TEXT[], $12::INTEGER[], $13::TEXT[],
            $14::INTEGER[], $15::TEXT[], $16::BIGINT[], $17::BIGINT[], $18::BIGINT[],
            $19::INTEGER[], $20::INTEGER[], $21::TEXT[], $22::TEXT[], $23::TEXT[], $24::TEXT[])
         {once}
         RETURNING id, tournament_id, game_index),
     live AS (DELETE FROM live_games l USING unnest($18::BIGINT[], $19::INTEGER[]) s (t, i)
         WHERE l.tournament_id = s.t AND l.game_index = s.i),
     queued AS (UPDATE game_queue q SET done = TRUE FROM unnest($25::BIGINT[], $26::INTEGER[]) c (t, i)
         WHERE q.tournament_id = c.t AND q.game_index = c.i)
     SELECT id, tournament_id, game_index, NULL::INTEGER, NULL::TEXT, NULL::TEXT, NULL::TEXT, NULL::INTEGER
     FROM g
     UNION ALL
     SELECT NULL, o.tournament_id, o.game_index, o.pair_id, o.seats, o.variant, o.result, o.winner
     FROM games o JOIN unnest($27::BIGINT[], $28::INTEGER[]) h (t, i)
         ON o.tournament_id = h.t AND o.game_index = h.i"
    )
}

/// Adds a batch's [`Counts`] in one round trip, each table's rows in key
/// order: pair tallies (`$1`..`$7`), game tallies (`$8`..`$14`), worker
/// hosts' tallies (`$15`..`$20`), as columns of arrays; then moves the
/// store's change counter on.
const COUNT_GAMES_SQL: &str = "WITH pair AS (
         INSERT INTO pair_tallies (tournament_id, variant, low, high, half_points, pairs, shard)
         SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::INTEGER[], $4::INTEGER[], $5::INTEGER[], $6::BIGINT[],
             $7::INTEGER[])
         ON CONFLICT (tournament_id, variant, low, high, half_points, shard)
         DO UPDATE SET pairs = pair_tallies.pairs + EXCLUDED.pairs),
     game AS (
         INSERT INTO tallies (tournament_id, variant, seats, winner, decided, games, shard)
         SELECT * FROM unnest($8::BIGINT[], $9::TEXT[], $10::TEXT[], $11::INTEGER[], $12::BOOLEAN[], $13::BIGINT[],
             $14::INTEGER[])
         ON CONFLICT (tournament_id, variant, seats, winner, decided, shard)
         DO UPDATE SET games = tallies.games + EXCLUDED.games),
     worker AS (
         INSERT INTO worker_tallies (tournament_id, host, games, first_start, last_end_ms, shard)
         SELECT * FROM unnest($15::BIGINT[], $16::TEXT[], $17::BIGINT[], $18::BIGINT[], $19::BIGINT[], $20::INTEGER[])
         ON CONFLICT (tournament_id, host, shard) DO UPDATE SET games = worker_tallies.games + EXCLUDED.games,
             first_start = LEAST(worker_tallies.first_start, EXCLUDED.first_start),
             last_end_ms = GREATEST(worker_tallies.last_end_ms, EXCLUDED.last_end_ms))
     SELECT nextval('store_changes')";

/// What a batch of stored games adds to the tallies, summed by row. Rows
/// are written in key order by every store, so two batches that share
/// rows wait for each other instead of deadlocking.
#[derive(Default)]
struct Counts {
    /// (tournament, variant, low, high, half points, shard): pairs.
    pairs: BTreeMap<(i64, String, i32, i32, i32, i32), i64>,
    /// (tournament, variant, seats, winner or -1, decided, shard): games.
    games: BTreeMap<(i64, String, String, i32, bool, i32), i64>,
    /// (tournament, host, shard): games, first start (s), last end (ms).
    workers: BTreeMap<(i64, String, i32), (i64, i64, i64)>,
}

impl Counts {
    /// Counts `game` of tournament `t`, which completes a pair with `other`
    /// if given, played on the worker host `host` if given.
    fn add(&mut self, t: i64, game: &SlotResult, other: Option<&SlotResult>, host: Option<String>, r: &GameRecord) {
        let shard = game.shard() as i32;
        if let Some(((low, high), points)) = other.and_then(|o| pair_points(game, o)) {
            let key = (t, game.variant.clone(), low as i32, high as i32, points as i32, shard);
            *self.pairs.entry(key).or_default() += 1;
        }
        let winner = game.winner.map_or(-1, |w| w as i32);
        let key = (t, game.variant.clone(), super::to_json(&game.seats), winner, game.decided(), shard);
        *self.games.entry(key).or_default() += 1;
        if let Some(host) = host {
            let (start, end) = (r.started_at as i64, (r.started_at * 1000 + r.duration_ms) as i64);
            let tally = self.workers.entry((t, host, shard)).or_insert((0, start, end));
            *tally = (tally.0 + 1, tally.1.min(start), tally.2.max(end));
        }
    }

    /// Writes the counts and moves the change counter on.
    fn store(&self, client: &mut Client, statements: &mut Statements) -> Result<(), postgres::Error> {
        fn column<K, V, T>(map: &BTreeMap<K, V>, f: impl Fn(&K, &V) -> T) -> Vec<T> {
            map.iter().map(|(k, v)| f(k, v)).collect()
        }
        let (p, g, w) = (&self.pairs, &self.games, &self.workers);
        statements.query_opt(
            client,
            COUNT_GAMES_SQL,
            &[
                &column(p, |k, _| k.0),
                &column(p, |k, _| k.1.clone()),
                &column(p, |k, _| k.2),
                &column(p, |k, _| k.3),
                &column(p, |k, _| k.4),
                &column(p, |_, n| *n),
                &column(p, |k, _| k.5),
                &column(g, |k, _| k.0),
                &column(g, |k, _| k.1.clone()),
                &column(g, |k, _| k.2.clone()),
                &column(g, |k, _| k.3),
                &column(g, |k, _| k.4),
                &column(g, |_, n| *n),
                &column(g, |k, _| k.5),
                &column(w, |k, _| k.0),
                &column(w, |k, _| k.1.clone()),
                &column(w, |_, v| v.0),
                &column(w, |_, v| v.1),
                &column(w, |_, v| v.2),
                &column(w, |k, _| k.2),
            ],
        )?;
        Ok(())
    }
}

/// Stores a batch of games in the open transaction, in one round trip (see
/// [`insert_games_sql`]), and adds what they count to `counts`. Gives each
/// game's id (`None` for a late duplicate), in the order given.
fn insert_games(
    client: &mut Client,
    statements: &mut Statements,
    games: &[Storing<'_>],
    counts: &mut Counts,
) -> Result<Vec<Option<i64>>, postgres::Error> {
    // A claimed game another worker stored first is not stored twice.
    static INSERTS: std::sync::LazyLock<[String; 2]> = std::sync::LazyLock::new(|| {
        [insert_games_sql(""), insert_games_sql("ON CONFLICT (tournament_id, game_index) DO NOTHING")]
    });
    let insert = &INSERTS[games.iter().any(|g| g.claim.is_some()) as usize];
    // Columns borrow from the games: a batch's texts are not copied to be sent.
    fn column<'a, T>(games: &'a [Storing<'a>], f: impl Fn(&'a GameColumns<'a>, Option<&'a Claim>) -> T) -> Vec<T> {
        games.iter().map(|g| f(&g.columns, g.claim)).collect()
    }
    fn slot<'a>(c: &'a GameColumns<'_>) -> Option<&'a TournamentSlot> {
        c.event.tournament.as_ref()
    }
    let results: Vec<Option<SlotResult>> = column(games, |c, _| SlotResult::of(c.record, c.event));
    let claimed: Vec<&Claim> = games.iter().filter_map(|g| g.claim).collect();
    let (halves_t, halves_i): (Vec<i64>, Vec<i32>) = games
        .iter()
        .zip(&results)
        .filter_map(|(g, r)| Some((slot(&g.columns)?.id, r.as_ref()?.other_half()? as i32)))
        .unzip();
    let rows = statements.query(
        client,
        insert,
        &[
            &column(games, |c, _| c.event.event.as_str()),
            &column(games, |c, _| c.event.round as i32),
            &column(games, |c, _| c.record.variant.as_str()),
            &column(games, |c, _| c.record.plugin.as_str()),
            &column(games, |c, _| c.white()),
            &column(games, |c, _| c.black()),
            &column(games, |c, _| c.players.as_str()),
            &column(games, |c, _| c.time_controls.as_str()),
            &column(games, |c, _| c.options.as_str()),
            &column(games, |c, _| c.record.start_position.as_str()),
            &column(games, |c, _| c.record.result.pgn()),
            &column(games, |c, _| c.winner.map(|w| w as i32)),
            &column(games, |c, _| c.record.result.termination.to_string()),
            &column(games, |c, _| c.record.plies.len() as i32),
            &column(games, |c, _| c.record.final_position.as_str()),
            &column(games, |c, _| c.record.started_at as i64),
            &column(games, |c, _| c.record.duration_ms as i64),
            &column(games, |c, _| slot(c).map(|t| t.id)),
            &column(games, |c, _| slot(c).map(|t| t.index as i32)),
            &column(games, |c, _| slot(c).and_then(|t| t.pair.map(|p| p as i32))),
            &column(games, |c, _| c.seats.as_deref()),
            &column(games, |c, _| c.record.result.termination.kind()),
            &column(games, |c, _| c.whole.as_str()),
            &column(games, |_, claim| claim.map(|c| c.holder.as_str())),
            &claimed.iter().map(|c| c.game.tournament).collect::<Vec<_>>(),
            &claimed.iter().map(|c| c.game.index as i32).collect::<Vec<_>>(),
            &halves_t,
            &halves_i,
        ],
    )?;
    // Ids by slot; a game outside a tournament has none, and takes the next
    // of the ids given out in the order the games were inserted.
    let mut by_slot = HashMap::new();
    let mut unslotted = Vec::new();
    let mut stored_before = HashMap::new();
    for row in &rows {
        let t: Option<i64> = row.get(1);
        match (row.get::<_, Option<i64>>(0), t) {
            (Some(id), Some(t)) => {
                by_slot.insert((t, row.get::<_, i32>(2) as u32), id);
            }
            (Some(id), None) => unslotted.push(id),
            (None, Some(t)) => {
                stored_before.insert((t, row.get::<_, i32>(2) as u32), slot_result(row, 2));
            }
            (None, None) => {}
        }
    }
    unslotted.sort_unstable();
    let mut unslotted = unslotted.into_iter();
    let ids: Vec<Option<i64>> = games
        .iter()
        .map(|g| match slot(&g.columns) {
            Some(t) => by_slot.get(&(t.id, t.index)).copied(),
            None => unslotted.next(),
        })
        .collect();
    // Each stored game counts; a pair counts once, with its second half: the
    // one whose other half was stored before this batch, or earlier in it.
    let mut stored_here = HashMap::new();
    for ((g, result), id) in games.iter().zip(&results).zip(&ids) {
        let (Some(t), Some(game), Some(_)) = (slot(&g.columns), result, id) else { continue };
        let other = game.other_half().and_then(|h| stored_here.get(&(t.id, h)).or(stored_before.get(&(t.id, h))));
        let worker = g.claim.map(|c| c.holder.split(':').next().unwrap_or(&c.holder).to_string());
        counts.add(t.id, game, other, worker, g.columns.record);
        stored_here.insert((t.id, game.index), game.clone());
    }
    Ok(ids)
}

/// The games of `tournament` stored after the game `after`, in store order,
/// with their ids.
fn results_after(
    client: &mut Client,
    statements: &mut Statements,
    tournament: i64,
    after: i64,
) -> Result<Vec<(i64, SlotResult)>, postgres::Error> {
    let rows = statements.query(
        client,
        "SELECT game_index, pair_id, seats, variant, result, winner, id FROM games
         WHERE tournament_id = $1 AND id > $2 ORDER BY id",
        &[&tournament, &after],
    )?;
    Ok(rows.iter().map(|r| (r.get::<_, i64>(6), slot_result(r, 0))).collect())
}

fn summary_row(r: &Row) -> SummaryRow {
    SummaryRow {
        id: r.get(0),
        variant: r.get(1),
        players: r.get(2),
        result: r.get(3),
        winner: r.get::<_, Option<i32>>(4).map(|w| w as u32),
        termination: r.get(5),
        plies: r.get::<_, i32>(6) as u32,
        event: r.get(7),
        round: r.get::<_, i32>(8) as u32,
        started_at: r.get(9),
        tournament: r.get(10),
        termination_kind: r.get(11),
    }
}

const SUMMARY: &str = super::SUMMARY_COLUMNS;

impl Backend for Postgres {
    fn add_games(&self, games: &[Storing<'_>], stop: Option<&dyn StopRule>) -> Result<StoredBatch, StoreFailure> {
        let ruled = stop.and(games.first().and_then(|g| g.columns.event.tournament.as_ref()));
        // The transaction begins with its locks in the same round trip (the
        // ids are integers written into the text).
        let begin = match ruled {
            // One store at a time for a tournament with a stopping rule: ids
            // then follow the order the rule sees.
            Some(t) => format!("BEGIN; SELECT 1 FROM tournaments WHERE id = {} FOR UPDATE", t.id),
            // The two games of a pair are stored one after the other, so that
            // the second sees the first and counts the pair; locks taken in
            // one order by every store.
            None => {
                let mut pairs: Vec<(i64, u32)> = games
                    .iter()
                    .filter_map(|g| g.columns.event.tournament.as_ref().and_then(|t| Some((t.id, t.pair?))))
                    .collect();
                pairs.sort_unstable();
                pairs.dedup();
                pairs.iter().fold("BEGIN".to_string(), |sql, (t, pair)| {
                    sql + &format!("; SELECT pg_advisory_xact_lock({}, {})", *t as i32, *pair as i32)
                })
            }
        };
        self.with_statements(|client, statements| {
            client.batch_execute(&begin)?;
            let mut store = || -> Result<Uncommitted<'_>, postgres::Error> {
                let mut counts = Counts::default();
                let ids = insert_games(client, statements, games, &mut counts)?;
                counts.store(client, statements)?;
                let (Some(t), Some(rule), true) = (ruled, stop, ids.iter().any(Option::is_some)) else {
                    return Ok((ids, false, None));
                };
                let check = rule.check(results_after(client, statements, t.id, rule.counted_through())?);
                if check.holds {
                    statements.exec(
                        client,
                        "UPDATE tournaments SET finished_at = $2 WHERE id = $1 AND finished_at IS NULL",
                        &[&t.id, &super::now()],
                    )?;
                    statements.exec(
                        client,
                        "UPDATE game_queue SET done = TRUE WHERE tournament_id = $1 AND NOT done",
                        &[&t.id],
                    )?;
                }
                Ok((ids, check.holds, Some(check.keep)))
            };
            match store().and_then(|stored| client.batch_execute("COMMIT").map(|_| stored)) {
                Ok((ids, stopped, keep)) => {
                    // Counted by the rule only once committed.
                    if let Some(keep) = keep {
                        keep();
                    }
                    Ok(StoredBatch { ids, stopped })
                }
                Err(e) => {
                    if !client.is_closed() {
                        let _ = client.batch_execute("ROLLBACK");
                    }
                    Err(e)
                }
            }
        })
    }

    fn enqueue(&self, games: &[QueuedGame]) -> Result<usize, StoreFailure> {
        self.with(|client| {
            let mut tx = client.transaction()?;
            let mut added = 0;
            for g in games {
                added += tx.execute(
                    "INSERT INTO game_queue (tournament_id, game_index, event, round, pair_id, seats, job)
                     SELECT $1, $2, $3, $4, $5, $6, $7
                     WHERE NOT EXISTS (SELECT 1 FROM games WHERE tournament_id = $1 AND game_index = $2)
                     ON CONFLICT (tournament_id, game_index) DO NOTHING",
                    &[
                        &g.tournament,
                        &(g.index as i32),
                        &g.event,
                        &(g.round as i32),
                        &g.pair.map(|p| p as i32),
                        &super::to_json(&g.seats),
                        &g.job,
                    ],
                )? as usize;
            }
            if added > 0 {
                tx.execute("SELECT nextval('store_changes')", &[])?;
            }
            tx.commit()?;
            // A queue that grew a lot is planned with its new size: with
            // the statistics of a near-empty queue, a claim reads and sorts
            // every waiting game instead of taking the first from the index.
            if added >= ANALYZE_AFTER {
                client.batch_execute("ANALYZE game_queue")?;
            }
            Ok(added)
        })
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
        let skip = skip.to_vec();
        let rows = self.with_statements(|client, statements| {
            statements.query(
                client,
                "UPDATE game_queue q SET claimed_by = $1, lease_until = $2
                 FROM (SELECT tournament_id, game_index FROM game_queue
                       WHERE NOT done AND (claimed_by IS NULL OR lease_until < $3)
                         AND ($4::BIGINT IS NULL OR tournament_id = $4)
                         AND NOT (tournament_id = ANY($5))
                       ORDER BY tournament_id, game_index LIMIT $6
                       FOR UPDATE SKIP LOCKED) c
                 WHERE q.tournament_id = c.tournament_id AND q.game_index = c.game_index
                 RETURNING q.tournament_id, q.game_index, q.event, q.round, q.pair_id, q.seats, q.job",
                &[&holder, &until_ms, &now_ms, &tournament, &skip, &(most as i64)],
            )
        })?;
        let mut claims: Vec<Claim> = rows
            .iter()
            .map(|r| Claim {
                game: QueuedGame {
                    tournament: r.get(0),
                    index: r.get::<_, i32>(1) as u32,
                    event: r.get(2),
                    round: r.get::<_, i32>(3) as u32,
                    pair: r.get::<_, Option<i32>>(4).map(|p| p as u32),
                    seats: serde_json::from_str(&r.get::<_, String>(5)).unwrap_or_default(),
                    job: r.get(6),
                },
                holder: holder.to_string(),
            })
            .collect();
        // UPDATE ... RETURNING gives rows in no set order.
        claims.sort_by_key(|c| (c.game.tournament, c.game.index));
        Ok(claims)
    }

    fn renew_claims(&self, claims: &[Claim], until_ms: i64) -> Result<(), StoreFailure> {
        let (tournaments, indices, holders) = claim_keys(claims);
        self.with(|client| {
            client
                .execute(
                    "UPDATE game_queue q SET lease_until = $4
                     FROM unnest($1::BIGINT[], $2::INTEGER[], $3::TEXT[]) c (tournament_id, game_index, holder)
                     WHERE q.tournament_id = c.tournament_id AND q.game_index = c.game_index
                       AND q.claimed_by = c.holder",
                    &[&tournaments, &indices, &holders, &until_ms],
                )
                .map(drop)
        })
    }

    fn release_claims(&self, claims: &[Claim]) -> Result<(), StoreFailure> {
        let (tournaments, indices, holders) = claim_keys(claims);
        self.with(|client| {
            client
                .execute(
                    "UPDATE game_queue q SET claimed_by = NULL, lease_until = NULL
                     FROM unnest($1::BIGINT[], $2::INTEGER[], $3::TEXT[]) c (tournament_id, game_index, holder)
                     WHERE q.tournament_id = c.tournament_id AND q.game_index = c.game_index
                       AND q.claimed_by = c.holder",
                    &[&tournaments, &indices, &holders],
                )
                .map(drop)
        })
    }

    fn queued_indices(&self, tournament: i64) -> Result<Vec<u32>, StoreFailure> {
        let rows = self.with(|client| {
            client.query("SELECT game_index FROM game_queue WHERE tournament_id = $1", &[&tournament])
        })?;
        Ok(rows.iter().map(|r| r.get::<_, i32>(0) as u32).collect())
    }

    fn worker_rates(&self, tournament: i64) -> Result<Vec<WorkerRate>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT host, SUM(games)::BIGINT, MIN(first_start), MAX(last_end_ms) FROM worker_tallies
                 WHERE tournament_id = $1 GROUP BY host ORDER BY host",
                &[&tournament],
            )
        })?;
        Ok(rows.iter().map(|r| WorkerRate::new(r.get(0), r.get(1), r.get(2), r.get(3))).collect())
    }

    fn queue_counts(&self, tournament: i64, now_ms: i64) -> Result<(u64, u64), StoreFailure> {
        let row = self.with(|client| {
            client.query_one(
                "SELECT count(*), count(*) FILTER (WHERE claimed_by IS NOT NULL AND lease_until >= $2)
                 FROM game_queue WHERE tournament_id = $1 AND NOT done",
                &[&tournament, &now_ms],
            )
        })?;
        Ok((row.get::<_, i64>(0) as u64, row.get::<_, i64>(1) as u64))
    }

    fn queue_open(&self, tournament: i64) -> Result<bool, StoreFailure> {
        let rows = self.with_statements(|client, statements| {
            statements.query(
                client,
                "SELECT EXISTS (SELECT 1 FROM game_queue WHERE tournament_id = $1 AND NOT done)",
                &[&tournament],
            )
        })?;
        Ok(rows.first().is_some_and(|r| r.get(0)))
    }

    fn games(
        &self,
        tournament: Option<i64>,
        id: Option<i64>,
    ) -> Result<Vec<Result<StoredGame, StoreFailure>>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                &format!(
                    "SELECT {SUMMARY}, record, game_index, pair_id, seats, worker FROM games
                     WHERE ($1::BIGINT IS NULL OR tournament_id = $1) AND ($2::BIGINT IS NULL OR id = $2)
                     ORDER BY id"
                ),
                &[&tournament, &id],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| {
                GameRow {
                    summary: summary_row(r),
                    record: r.get(12),
                    index: r.get::<_, Option<i32>>(13).map(|i| i as u32),
                    pair: r.get::<_, Option<i32>>(14).map(|p| p as u32),
                    seats: r.get(15),
                    worker: r.get(16),
                }
                .into_stored()
            })
            .collect())
    }

    fn tournament_results(&self, tournament: i64) -> Result<Vec<SlotResult>, StoreFailure> {
        self.with(|client| results(client, tournament))
    }

    fn tallies(&self, tournament: i64) -> Result<Tallies, StoreFailure> {
        self.with(|client| {
            let games = client
                .query(
                    "SELECT variant, seats, winner, decided, SUM(games)::BIGINT FROM tallies WHERE tournament_id = $1
                     GROUP BY variant, seats, winner, decided ORDER BY variant, seats, winner, decided",
                    &[&tournament],
                )?
                .iter()
                .map(|r| Tally {
                    variant: r.get(0),
                    seats: serde_json::from_str(&r.get::<_, String>(1)).unwrap_or_default(),
                    winner: u32::try_from(r.get::<_, i32>(2)).ok(),
                    decided: r.get(3),
                    games: r.get::<_, i64>(4) as u64,
                })
                .collect();
            let pairs = client
                .query(
                    "SELECT variant, low, high, half_points, SUM(pairs)::BIGINT FROM pair_tallies WHERE tournament_id = $1
                     GROUP BY variant, low, high, half_points ORDER BY variant, low, high, half_points",
                    &[&tournament],
                )?
                .iter()
                .map(|r| PairTally {
                    variant: r.get(0),
                    entrants: (r.get::<_, i32>(1) as usize, r.get::<_, i32>(2) as usize),
                    half_points: r.get::<_, i32>(3) as u8,
                    pairs: r.get::<_, i64>(4) as u64,
                })
                .collect();
            Ok(Tallies { games, pairs })
        })
    }

    fn game_list(&self, filter: &GameFilter, limit: u32, offset: u32) -> Result<(Vec<GameSummary>, u64), StoreFailure> {
        let condition = "WHERE ($1::TEXT IS NULL OR variant = $1)
               AND ($2::TEXT IS NULL OR players::jsonb ? $2)
               AND ($3::TEXT IS NULL OR result = $3)
               AND ($4::TEXT IS NULL OR termination LIKE $4 || '%')
               AND ($5::BIGINT IS NULL OR tournament_id = $5)";
        let (total, rows) = self.with(|client| {
            let args: [&(dyn postgres::types::ToSql + Sync); 5] =
                [&filter.variant, &filter.player, &filter.result, &filter.termination, &filter.tournament];
            let total: i64 = client.query_one(&format!("SELECT count(*) FROM games {condition}"), &args)?.get(0);
            let rows = client.query(
                &format!("SELECT {SUMMARY} FROM games {condition} ORDER BY id DESC LIMIT {limit} OFFSET {offset}"),
                &args,
            )?;
            Ok((total, rows))
        })?;
        let games = rows.iter().map(|r| summary_row(r).into_summary()).collect();
        Ok((games, total as u64))
    }

    fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT t.id, t.name, t.config, t.finished_at,
                        (SELECT count(*) FROM games g WHERE g.tournament_id = t.id)
                 FROM tournaments t ORDER BY t.id DESC",
                &[],
            )
        })?;
        Ok(rows.iter().map(|r| (tournament_of(r), r.get::<_, i64>(4) as u64)).collect())
    }

    fn data_version(&self) -> Result<i64, StoreFailure> {
        self.with(|client| Ok(client.query_one("SELECT last_value + (is_called::INT) FROM store_changes", &[])?.get(0)))
    }

    fn set_live(
        &self,
        tournament: i64,
        index: u32,
        variant: &str,
        players: &[String],
        frame: &Value,
    ) -> Result<(), StoreFailure> {
        let players = serde_json::json!(players).to_string();
        let frame = frame.to_string();
        self.with(|client| {
            let mut tx = client.transaction()?;
            tx.execute(
                "INSERT INTO live_games (tournament_id, game_index, variant, players, frame)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (tournament_id, game_index) DO UPDATE
                 SET variant = EXCLUDED.variant, players = EXCLUDED.players, frame = EXCLUDED.frame",
                &[&tournament, &(index as i32), &variant, &players, &frame],
            )?;
            tx.execute("SELECT nextval('store_changes')", &[])?;
            tx.commit()
        })
    }

    fn clear_live(&self, tournament: i64) -> Result<(), StoreFailure> {
        self.with(|client| client.execute("DELETE FROM live_games WHERE tournament_id = $1", &[&tournament]).map(drop))
    }

    fn live_games(&self, tournament: i64) -> Result<Vec<Value>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT game_index, variant, players, frame FROM live_games
                 WHERE tournament_id = $1 ORDER BY game_index",
                &[&tournament],
            )
        })?;
        let json = |r: &Row, i: usize| serde_json::from_str::<Value>(&r.get::<_, String>(i)).unwrap_or_default();
        Ok(rows
            .iter()
            .map(|r| {
                serde_json::json!({
                    "index": r.get::<_, i32>(0),
                    "variant": r.get::<_, String>(1),
                    "players": json(r, 2),
                    "frame": json(r, 3),
                })
            })
            .collect())
    }

    fn take_lease(
        &self,
        id: i64,
        lease: &Lease,
        stale: &dyn Fn(&Lease) -> bool,
    ) -> Result<Result<Option<Lease>, Lease>, StoreFailure> {
        self.with(|client| {
            let mut tx = client.transaction()?;
            // One taker at a time per tournament, rows or not.
            tx.execute("SELECT pg_advisory_xact_lock(727275, $1::INT)", &[&(id as i32)])?;
            let old = tx
                .query_opt(
                    "SELECT holder, pid, heartbeat, in_process FROM tournament_leases WHERE tournament_id = $1",
                    &[&id],
                )?
                .map(|r| Lease { holder: r.get(0), pid: r.get(1), heartbeat: r.get(2), in_process: r.get(3) });
            if let Some(old) = old.as_ref().filter(|o| !stale(o)) {
                return Ok(Err(old.clone()));
            }
            tx.execute(
                "INSERT INTO tournament_leases (tournament_id, holder, pid, heartbeat, in_process)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (tournament_id) DO UPDATE SET holder = EXCLUDED.holder, pid = EXCLUDED.pid,
                    heartbeat = EXCLUDED.heartbeat, in_process = EXCLUDED.in_process",
                &[&id, &lease.holder, &lease.pid, &lease.heartbeat, &lease.in_process],
            )?;
            tx.commit()?;
            Ok(Ok(old))
        })
    }

    fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute(
                    "UPDATE tournament_leases SET heartbeat = $3 WHERE tournament_id = $1 AND holder = $2",
                    &[&id, &holder, &now],
                )
                .map(drop)
        })
    }

    fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute("DELETE FROM tournament_leases WHERE tournament_id = $1 AND holder = $2", &[&id, &holder])
                .map(drop)
        })
    }

    fn add_tournament(&self, name: &str, config_json: &str, now: i64) -> Result<i64, StoreFailure> {
        self.with(|client| {
            let mut tx = client.transaction()?;
            let id = tx
                .query_one(
                    "INSERT INTO tournaments (name, config, created_at) VALUES ($1, $2, $3) RETURNING id",
                    &[&name, &config_json, &now],
                )?
                .get(0);
            tx.execute("SELECT nextval('store_changes')", &[])?;
            tx.commit()?;
            Ok(id)
        })
    }

    fn finish_tournament(&self, id: i64, now: i64) -> Result<(), StoreFailure> {
        self.with(|client| {
            client.execute("UPDATE tournaments SET finished_at = $2 WHERE id = $1", &[&id, &now]).map(drop)
        })
    }

    fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreFailure> {
        let row = self.with(|client| {
            client.query_opt(
                "SELECT id, name, config, finished_at FROM tournaments
                 WHERE $1::BIGINT IS NULL OR id = $1 ORDER BY id DESC LIMIT 1",
                &[&id],
            )
        })?;
        Ok(row.as_ref().map(tournament_of))
    }
}

fn tournament_of(r: &Row) -> StoredTournament {
    StoredTournament { id: r.get(0), name: r.get(1), config: r.get(2), finished_at: r.get(3) }
}

/// A tournament's finished games, in the order they were stored.
fn results(client: &mut impl postgres::GenericClient, tournament: i64) -> Result<Vec<SlotResult>, postgres::Error> {
    let rows = client.query(
        "SELECT game_index, pair_id, seats, variant, result, winner FROM games
         WHERE tournament_id = $1 ORDER BY id",
        &[&tournament],
    )?;
    Ok(rows.iter().map(|r| slot_result(r, 0)).collect())
}

/// A row's `game_index, pair_id, seats, variant, result, winner`, from
/// column `first` on.
fn slot_result(r: &Row, first: usize) -> SlotResult {
    SlotResult {
        index: r.get::<_, i32>(first) as u32,
        pair: r.get::<_, Option<i32>>(first + 1).map(|p| p as u32),
        seats: r.get::<_, Option<String>>(first + 2).and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
        variant: r.get(first + 3),
        result: r.get(first + 4),
        winner: r.get::<_, Option<i32>>(first + 5).map(|w| w as u32),
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
                &[&id, &t.variant, &super::to_json(&t.seats), &t.winner.map_or(-1, |w| w as i32), &t.decided, &(t.games as i64)],
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
