//! Tournaments and their leases, in SQLite.

use rusqlite::{params, OptionalExtension};

use crate::tournaments::{Lease, StoredTournament, TournamentBackend};
use crate::StoreFailure;
use arbiter_core::sync::LockExt;

use super::Sqlite;

impl TournamentBackend for Sqlite {
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
