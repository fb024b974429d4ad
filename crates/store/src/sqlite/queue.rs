//! The queue of games waiting for workers, in SQLite.

use rusqlite::{params, OptionalExtension};

use crate::queue::{Claim, QueueBackend, QueueEntry, QueuedGame, WorkerRate};
use crate::{to_json, StoreFailure};
use arbiter_core::sync::LockExt;

use super::Sqlite;

impl QueueBackend for Sqlite {
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
                params![g.tournament, g.index, g.event, g.round, g.pair, to_json(&g.seats), g.job],
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

    fn queue_entry(&self, tournament: i64, index: u32) -> Result<Option<QueueEntry>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn
            .query_row(
                "SELECT q.event, q.round, q.pair_id, q.seats, q.job, q.claimed_by, g.id IS NOT NULL, g.worker
                 FROM game_queue q LEFT JOIN games g ON g.tournament_id = q.tournament_id AND g.game_index = q.game_index
                 WHERE q.tournament_id = ?1 AND q.game_index = ?2",
                params![tournament, index],
                |r| {
                    Ok(QueueEntry {
                        game: QueuedGame {
                            tournament,
                            index,
                            event: r.get(0)?,
                            round: r.get(1)?,
                            pair: r.get(2)?,
                            seats: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
                            job: r.get(4)?,
                        },
                        holder: r.get(5)?,
                        stored: r.get(6)?,
                        stored_by: r.get(7)?,
                    })
                },
            )
            .optional()?)
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
}
