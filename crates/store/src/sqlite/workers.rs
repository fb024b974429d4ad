//! Remote workers' tokens and refused uploads, in SQLite.

use rusqlite::{params, OptionalExtension};

use super::Sqlite;
use crate::workers::{GameCheck, Refusal, RefusalKind, WorkerBackend, WorkerToken};
use crate::StoreFailure;
use arbiter_core::sync::LockExt;

fn token(r: &rusqlite::Row<'_>) -> rusqlite::Result<WorkerToken> {
    Ok(WorkerToken { name: r.get(0)?, issued_ms: r.get(1)?, revoked_ms: r.get(2)?, expires_ms: r.get(3)? })
}

/// A refusal from the columns worker, tournament_id, game_index, reason,
/// at_ms and kind.
fn refusal(r: &rusqlite::Row<'_>) -> rusqlite::Result<Refusal> {
    Ok(Refusal {
        kind: RefusalKind::from_name(&r.get::<_, String>(5)?),
        worker: r.get(0)?,
        tournament: r.get(1)?,
        index: r.get(2)?,
        reason: r.get(3)?,
        at_ms: r.get(4)?,
    })
}

impl WorkerBackend for Sqlite {
    fn add_worker_token(&self, t: &WorkerToken, sha256: &str) -> Result<bool, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let added = conn.execute(
            "INSERT INTO worker_tokens (name, sha256, issued_ms, expires_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT DO NOTHING",
            params![t.name, sha256, t.issued_ms, t.expires_ms],
        )?;
        Ok(added == 1)
    }

    fn worker_token(&self, sha256: &str) -> Result<Option<WorkerToken>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn
            .query_row(
                "SELECT name, issued_ms, revoked_ms, expires_ms FROM worker_tokens WHERE sha256 = ?1",
                params![sha256],
                token,
            )
            .optional()?)
    }

    fn revoke_worker_token(&self, name: &str, now_ms: i64) -> Result<bool, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let revoked = conn.execute(
            "UPDATE worker_tokens SET revoked_ms = ?2 WHERE name = ?1 AND revoked_ms IS NULL",
            params![name, now_ms],
        )?;
        Ok(revoked == 1)
    }

    fn worker_tokens(&self) -> Result<Vec<WorkerToken>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt =
            conn.prepare("SELECT name, issued_ms, revoked_ms, expires_ms FROM worker_tokens ORDER BY name")?;
        let rows = stmt.query_map([], token)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn add_refusal(&self, r: &Refusal, held: Option<&str>) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT INTO refused_uploads (worker, tournament_id, game_index, reason, at_ms, record, kind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![r.worker, r.tournament, r.index, r.reason, r.at_ms, held, r.kind.name()],
        )?;
        Ok(())
    }

    fn held_records(&self, worker: &str) -> Result<Vec<(Refusal, String)>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(
            "SELECT worker, tournament_id, game_index, reason, at_ms, kind, record FROM refused_uploads
             WHERE worker = ?1 AND record IS NOT NULL ORDER BY id",
        )?;
        let rows = stmt.query_map(params![worker], |r| Ok((refusal(r)?, r.get(6)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(
            "SELECT worker, tournament_id, game_index, reason, at_ms, kind FROM refused_uploads
             WHERE ?1 IS NULL OR tournament_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map(params![tournament], refusal)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn unconfirmed(&self, tournament: i64, index: u32) -> Result<Vec<(Refusal, String)>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare_cached(
            "SELECT worker, tournament_id, game_index, reason, at_ms, kind, record FROM refused_uploads
             WHERE tournament_id = ?1 AND game_index = ?2 AND kind = 'unconfirmed' AND record IS NOT NULL ORDER BY id",
        )?;
        let rows = stmt.query_map(params![tournament, index], |r| Ok((refusal(r)?, r.get(6)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn awaiting_confirmation(&self, tournament: i64) -> Result<u64, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let n: i64 = conn.query_row(
            "SELECT COUNT(DISTINCT r.game_index) FROM refused_uploads r
             WHERE r.tournament_id = ?1 AND r.kind = 'unconfirmed' AND NOT EXISTS
                (SELECT 1 FROM games g WHERE g.tournament_id = r.tournament_id AND g.game_index = r.game_index)",
            params![tournament],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    fn forgeries(&self, worker: &str) -> Result<u64, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let n: i64 = conn.query_row(
            "SELECT COUNT(*) FROM refused_uploads WHERE worker = ?1 AND kind = 'forged'",
            params![worker],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    fn add_check(&self, tournament: i64, index: u32, first_worker: &str, digest: &str) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT INTO game_checks (tournament_id, game_index, first_worker, digest) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT DO NOTHING",
            params![tournament, index, first_worker, digest],
        )?;
        Ok(())
    }

    fn claim_check(
        &self,
        holder: &str,
        worker: &str,
        only: Option<i64>,
        until_ms: i64,
        now_ms: i64,
    ) -> Result<Option<(i64, u32)>, StoreFailure> {
        let mut conn = self.conn.lock_or_recover();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let found: Option<(i64, u32)> = tx
            .query_row(
                "SELECT tournament_id, game_index FROM game_checks
                 WHERE agreed IS NULL AND first_worker <> ?1 AND (claimed_by IS NULL OR lease_until < ?2)
                   AND (?3 IS NULL OR tournament_id = ?3)
                 ORDER BY tournament_id, game_index LIMIT 1",
                params![worker, now_ms, only],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((t, i)) = found {
            tx.execute(
                "UPDATE game_checks SET claimed_by = ?3, lease_until = ?4 WHERE tournament_id = ?1 AND game_index = ?2",
                params![t, i, holder, until_ms],
            )?;
        }
        tx.commit()?;
        Ok(found)
    }

    fn check(&self, tournament: i64, index: u32) -> Result<Option<GameCheck>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn
            .query_row(
                "SELECT first_worker, digest, claimed_by, second_worker, agreed FROM game_checks
                 WHERE tournament_id = ?1 AND game_index = ?2",
                params![tournament, index],
                |r| {
                    Ok(GameCheck {
                        first_worker: r.get(0)?,
                        digest: r.get(1)?,
                        claimed_by: r.get(2)?,
                        second_worker: r.get(3)?,
                        agreed: r.get(4)?,
                    })
                },
            )
            .optional()?)
    }

    fn settle_check(&self, tournament: i64, index: u32, second_worker: &str, agreed: bool) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "UPDATE game_checks SET second_worker = ?3, agreed = ?4 WHERE tournament_id = ?1 AND game_index = ?2",
            params![tournament, index, second_worker, agreed],
        )?;
        Ok(())
    }
}
