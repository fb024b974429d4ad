//! Tournaments and their leases, in PostgreSQL.

use crate::tournaments::{Lease, StoredTournament, TournamentBackend};
use crate::StoreFailure;

use postgres::Row;

use super::Postgres;

impl TournamentBackend for Postgres {
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
