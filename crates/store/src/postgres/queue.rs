//! The queue of games waiting for workers, in PostgreSQL.

use crate::queue::{Claim, QueueBackend, QueueEntry, QueuedGame, WorkerRate};
use crate::{to_json, StoreFailure};

use super::{Postgres, ANALYZE_AFTER};

/// The claims' tournaments, game indices and holders, as three arrays.
fn claim_keys(claims: &[Claim]) -> (Vec<i64>, Vec<i32>, Vec<String>) {
    let tournaments = claims.iter().map(|c| c.game.tournament).collect();
    let indices = claims.iter().map(|c| c.game.index as i32).collect();
    let holders = claims.iter().map(|c| c.holder.clone()).collect();
    (tournaments, indices, holders)
}

impl QueueBackend for Postgres {
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
                        &to_json(&g.seats),
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

    fn queue_entry(&self, tournament: i64, index: u32) -> Result<Option<QueueEntry>, StoreFailure> {
        let row = self.with(|client| {
            client.query_opt(
                "SELECT q.event, q.round, q.pair_id, q.seats, q.job, q.claimed_by, g.id IS NOT NULL, g.worker
                 FROM game_queue q LEFT JOIN games g ON g.tournament_id = q.tournament_id AND g.game_index = q.game_index
                 WHERE q.tournament_id = $1 AND q.game_index = $2",
                &[&tournament, &(index as i32)],
            )
        })?;
        Ok(row.map(|r| QueueEntry {
            game: QueuedGame {
                tournament,
                index,
                event: r.get(0),
                round: r.get::<_, i32>(1) as u32,
                pair: r.get::<_, Option<i32>>(2).map(|p| p as u32),
                seats: serde_json::from_str(&r.get::<_, String>(3)).unwrap_or_default(),
                job: r.get(4),
            },
            holder: r.get(5),
            stored: r.get(6),
            stored_by: r.get(7),
        }))
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
}
