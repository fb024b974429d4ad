//! Finished games, in PostgreSQL.

use crate::games::{
    GameBackend, GameColumns, GameFilter, GameRow, GameSummary, StopRule, StoredBatch, StoredGame, Storing, SummaryRow,
    SUMMARY_COLUMNS,
};
use crate::queue::Claim;
use crate::tallies::{pair_points, PairTally, SlotResult, Tallies, Tally};
use crate::{to_json, StoreFailure};
use arbiter_core::model::{GameRecord, Seat};
use arbiter_play::record::TournamentSlot;

use std::collections::{BTreeMap, HashMap};

use postgres::{Client, Row};

use super::{Postgres, Statements};

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
        let winner = game.winner.map_or(-1, |w| w.number() as i32);
        let key = (t, game.variant.clone(), to_json(&game.seats), winner, game.decided(), shard);
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
    // A slot named twice in one batch was inserted once: its first naming
    // takes the id, any other is a game stored already (and counts nothing).
    let ids: Vec<Option<i64>> = games
        .iter()
        .map(|g| match slot(&g.columns) {
            Some(t) => by_slot.remove(&(t.id, t.index)),
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

const SUMMARY: &str = SUMMARY_COLUMNS;

impl GameBackend for Postgres {
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
                        &[&t.id, &crate::now()],
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

    fn worker_games(&self, tournament: i64) -> Result<Vec<(GameSummary, String)>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                &format!(
                    "SELECT {SUMMARY}, worker FROM games WHERE tournament_id = $1 AND worker IS NOT NULL ORDER BY id"
                ),
                &[&tournament],
            )
        })?;
        Ok(rows.iter().map(|r| (summary_row(r).into_summary(), r.get(12))).collect())
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
                    winner: u32::try_from(r.get::<_, i32>(2)).ok().map(Seat::new),
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

    fn data_version(&self) -> Result<i64, StoreFailure> {
        self.with(|client| Ok(client.query_one("SELECT last_value + (is_called::INT) FROM store_changes", &[])?.get(0)))
    }
}

/// A tournament's finished games, in the order they were stored.
pub(super) fn results(
    client: &mut impl postgres::GenericClient,
    tournament: i64,
) -> Result<Vec<SlotResult>, postgres::Error> {
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
        winner: r.get::<_, Option<i32>>(first + 5).map(|w| Seat::new(w as u32)),
    }
}
