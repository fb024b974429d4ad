//! Remote workers' tokens and refused uploads, in PostgreSQL.

use super::Postgres;
use crate::store::workers::{Refusal, WorkerBackend, WorkerToken};
use crate::store::StoreFailure;

fn token(r: &postgres::Row) -> WorkerToken {
    WorkerToken { name: r.get(0), issued_ms: r.get(1), revoked_ms: r.get(2), expires_ms: r.get(3) }
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

    fn add_refusal(&self, r: &Refusal) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute(
                    "INSERT INTO refused_uploads (worker, tournament_id, game_index, reason, at_ms)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&r.worker, &r.tournament, &(r.index as i32), &r.reason, &r.at_ms],
                )
                .map(drop)
        })
    }

    fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT worker, tournament_id, game_index, reason, at_ms FROM refused_uploads
                 WHERE $1::BIGINT IS NULL OR tournament_id = $1 ORDER BY id",
                &[&tournament],
            )
        })?;
        Ok(rows
            .iter()
            .map(|r| Refusal {
                worker: r.get(0),
                tournament: r.get(1),
                index: r.get::<_, i32>(2) as u32,
                reason: r.get(3),
                at_ms: r.get(4),
            })
            .collect())
    }
}
