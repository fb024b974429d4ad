//! Remote workers' tokens and refused uploads, in PostgreSQL.

use super::Postgres;
use crate::workers::{GameCheck, Refusal, RefusalKind, WorkerBackend, WorkerToken};
use crate::StoreFailure;

fn token(r: &postgres::Row) -> WorkerToken {
    WorkerToken { name: r.get(0), issued_ms: r.get(1), revoked_ms: r.get(2), expires_ms: r.get(3) }
}

/// A refusal from the columns worker, tournament_id, game_index, reason,
/// at_ms and kind.
fn refusal(r: &postgres::Row) -> Refusal {
    Refusal {
        kind: RefusalKind::from_name(r.get(5)),
        worker: r.get(0),
        tournament: r.get(1),
        index: r.get::<_, i32>(2) as u32,
        reason: r.get(3),
        at_ms: r.get(4),
    }
}

impl WorkerBackend for Postgres {
    fn add_worker_token(&self, t: &WorkerToken, sha256: &str) -> Result<bool, StoreFailure> {
        let added = self.with(|client| {
            client.execute(
                "INSERT INTO worker_tokens (name, sha256, issued_ms, expires_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT DO NOTHING",
                &[&t.name, &sha256, &t.issued_ms, &t.expires_ms],
            )
        })?;
        Ok(added == 1)
    }

    fn worker_token(&self, sha256: &str) -> Result<Option<WorkerToken>, StoreFailure> {
        let row = self.with(|client| {
            client.query_opt(
                "SELECT name, issued_ms, revoked_ms, expires_ms FROM worker_tokens WHERE sha256 = $1",
                &[&sha256],
            )
        })?;
        Ok(row.as_ref().map(token))
    }

    fn revoke_worker_token(&self, name: &str, now_ms: i64) -> Result<bool, StoreFailure> {
        let revoked = self.with(|client| {
            client.execute(
                "UPDATE worker_tokens SET revoked_ms = $2 WHERE name = $1 AND revoked_ms IS NULL",
                &[&name, &now_ms],
            )
        })?;
        Ok(revoked == 1)
    }

    fn worker_tokens(&self) -> Result<Vec<WorkerToken>, StoreFailure> {
        let rows = self.with(|client| {
            client.query("SELECT name, issued_ms, revoked_ms, expires_ms FROM worker_tokens ORDER BY name", &[])
        })?;
        Ok(rows.iter().map(token).collect())
    }

    fn add_refusal(&self, r: &Refusal, held: Option<&str>) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute(
                    "INSERT INTO refused_uploads (worker, tournament_id, game_index, reason, at_ms, record, kind)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    &[&r.worker, &r.tournament, &(r.index as i32), &r.reason, &r.at_ms, &held, &r.kind.name()],
                )
                .map(drop)
        })
    }

    fn held_records(&self, worker: &str) -> Result<Vec<(Refusal, String)>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT worker, tournament_id, game_index, reason, at_ms, kind, record FROM refused_uploads
                 WHERE worker = $1 AND record IS NOT NULL ORDER BY id",
                &[&worker],
            )
        })?;
        Ok(rows.iter().map(|r| (refusal(r), r.get(6))).collect())
    }

    fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT worker, tournament_id, game_index, reason, at_ms, kind FROM refused_uploads
                 WHERE $1::BIGINT IS NULL OR tournament_id = $1 ORDER BY id",
                &[&tournament],
            )
        })?;
        Ok(rows.iter().map(refusal).collect())
    }

    fn unconfirmed(&self, tournament: i64, index: u32) -> Result<Vec<(Refusal, String)>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT worker, tournament_id, game_index, reason, at_ms, kind, record FROM refused_uploads
                 WHERE tournament_id = $1 AND game_index = $2 AND kind = 'unconfirmed' AND record IS NOT NULL
                 ORDER BY id",
                &[&tournament, &(index as i32)],
            )
        })?;
        Ok(rows.iter().map(|r| (refusal(r), r.get(6))).collect())
    }

    fn awaiting_confirmation(&self, tournament: i64) -> Result<u64, StoreFailure> {
        let row = self.with(|client| {
            client.query_one(
                "SELECT COUNT(DISTINCT r.game_index) FROM refused_uploads r
                 WHERE r.tournament_id = $1 AND r.kind = 'unconfirmed' AND NOT EXISTS
                    (SELECT 1 FROM games g WHERE g.tournament_id = r.tournament_id AND g.game_index = r.game_index)",
                &[&tournament],
            )
        })?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    fn forgeries(&self, worker: &str) -> Result<u64, StoreFailure> {
        let row = self.with(|client| {
            client.query_one("SELECT COUNT(*) FROM refused_uploads WHERE worker = $1 AND kind = 'forged'", &[&worker])
        })?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    fn add_check(&self, tournament: i64, index: u32, first_worker: &str, digest: &str) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute(
                    "INSERT INTO game_checks (tournament_id, game_index, first_worker, digest) VALUES ($1, $2, $3, $4)
                     ON CONFLICT DO NOTHING",
                    &[&tournament, &(index as i32), &first_worker, &digest],
                )
                .map(drop)
        })
    }

    fn claim_check(
        &self,
        holder: &str,
        worker: &str,
        only: Option<i64>,
        until_ms: i64,
        now_ms: i64,
    ) -> Result<Option<(i64, u32)>, StoreFailure> {
        let row = self.with(|client| {
            client.query_opt(
                "UPDATE game_checks c SET claimed_by = $1, lease_until = $2
                 FROM (SELECT tournament_id, game_index FROM game_checks
                       WHERE agreed IS NULL AND first_worker <> $3 AND (claimed_by IS NULL OR lease_until < $4)
                         AND ($5::BIGINT IS NULL OR tournament_id = $5)
                       ORDER BY tournament_id, game_index LIMIT 1 FOR UPDATE SKIP LOCKED) f
                 WHERE c.tournament_id = f.tournament_id AND c.game_index = f.game_index
                 RETURNING c.tournament_id, c.game_index",
                &[&holder, &until_ms, &worker, &now_ms, &only],
            )
        })?;
        Ok(row.map(|r| (r.get(0), r.get::<_, i32>(1) as u32)))
    }

    fn check(&self, tournament: i64, index: u32) -> Result<Option<GameCheck>, StoreFailure> {
        let row = self.with(|client| {
            client.query_opt(
                "SELECT first_worker, digest, claimed_by, second_worker, agreed FROM game_checks
                 WHERE tournament_id = $1 AND game_index = $2",
                &[&tournament, &(index as i32)],
            )
        })?;
        Ok(row.map(|r| GameCheck {
            first_worker: r.get(0),
            digest: r.get(1),
            claimed_by: r.get(2),
            second_worker: r.get(3),
            agreed: r.get(4),
        }))
    }

    fn settle_check(&self, tournament: i64, index: u32, second_worker: &str, agreed: bool) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute(
                    "UPDATE game_checks SET second_worker = $3, agreed = $4 WHERE tournament_id = $1 AND game_index = $2",
                    &[&tournament, &(index as i32), &second_worker, &agreed],
                )
                .map(drop)
        })
    }
}
