//! Finished games, in SQLite.

use rusqlite::{params, Connection, OptionalExtension};

use crate::games::{
    GameBackend, GameColumns, GameFilter, GameRow, GameSummary, StopRule, StoredBatch, StoredGame, Storing, SummaryRow,
    SUMMARY_COLUMNS,
};
use crate::queue::Claim;
use crate::tallies::{pair_points, PairTally, SlotResult, Tallies, Tally};
use crate::{to_json, StoreFailure};
use arbiter_core::model::Seat;
use arbiter_core::sync::LockExt;

use super::Sqlite;

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
        to_json(&game.seats),
        game.winner.map_or(-1, |w| i64::from(w.number())),
        game.decided(),
        game.shard()
    ])?;
    Ok(())
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

impl GameBackend for Sqlite {
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
                    params![t.id, crate::now()],
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

    fn worker_games(&self, tournament: i64) -> Result<Vec<(GameSummary, String)>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {SUMMARY_COLUMNS}, worker FROM games WHERE tournament_id = ?1 AND worker IS NOT NULL ORDER BY id"
        ))?;
        let rows = stmt.query_map(params![tournament], |r| Ok((summary_row(r)?.into_summary(), r.get(12)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
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
                    winner: u32::try_from(r.get::<_, i64>(2)?).ok().map(Seat::new),
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

    fn data_version(&self) -> Result<i64, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }
}

/// A tournament's finished games, in the order they were stored.
pub(super) fn results(conn: &Connection, tournament: i64) -> rusqlite::Result<Vec<SlotResult>> {
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
        winner: r.get::<_, Option<u32>>(5)?.map(Seat::new),
    })
}
