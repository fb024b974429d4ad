//! Tournaments: their definitions, whether they finished, and the lease
//! one run holds while it runs one.

use super::{now, Store, StoreError, StoreFailure};

/// What a store backend does with tournaments and their leases (the
/// [`Store`] methods of the same names say what each does).
pub(super) trait TournamentBackend {
    fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreFailure>;

    fn take_lease(
        &self,
        id: i64,
        lease: &Lease,
        stale: &dyn Fn(&Lease) -> bool,
    ) -> Result<Result<Option<Lease>, Lease>, StoreFailure>;

    fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreFailure>;

    fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreFailure>;

    fn add_tournament(&self, name: &str, config_json: &str, now: i64) -> Result<i64, StoreFailure>;

    fn finish_tournament(&self, id: i64, now: i64) -> Result<(), StoreFailure>;

    fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreFailure>;
}

/// Who runs a tournament: one run at a time holds its lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// `host:pid` of the run.
    pub holder: String,
    /// Its process id.
    pub pid: i64,
    /// Unix time it last said it was alive.
    pub heartbeat: i64,
    /// Whether it plays games in its own process (a plugin abort kills it).
    pub in_process: bool,
}

/// A tournament's row: its definition and whether it finished.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTournament {
    /// Id in the store.
    pub id: i64,
    /// Name.
    pub name: String,
    /// The definition, as JSON.
    pub config: String,
    /// Unix time it finished, if it did.
    pub finished_at: Option<i64>,
}

impl Store {
    /// Every tournament, newest first, with its number of stored games.
    pub fn tournament_list(&self) -> Result<Vec<(StoredTournament, u64)>, StoreError> {
        self.backend.tournament_list().map_err(|e| self.err(e))
    }

    /// Takes the lease on running tournament `id` for `lease`'s holder. A
    /// lease held by another holder that `stale` does not call stale is
    /// refused (`Err(held)`); otherwise the old lease, if any, is returned.
    /// One transaction, so two runs cannot both take it.
    pub fn take_lease(
        &self,
        id: i64,
        lease: &Lease,
        stale: impl Fn(&Lease) -> bool,
    ) -> Result<Result<Option<Lease>, Lease>, StoreError> {
        self.backend.take_lease(id, lease, &stale).map_err(|e| self.err(e))
    }

    /// Renews `holder`'s lease on tournament `id` (its heartbeat, now).
    pub fn renew_lease(&self, id: i64, holder: &str, now: i64) -> Result<(), StoreError> {
        self.backend.renew_lease(id, holder, now).map_err(|e| self.err(e))
    }

    /// Gives up `holder`'s lease on tournament `id`.
    pub fn release_lease(&self, id: i64, holder: &str) -> Result<(), StoreError> {
        self.backend.release_lease(id, holder).map_err(|e| self.err(e))
    }

    /// Records a new tournament's definition; returns its id.
    pub fn add_tournament(&self, name: &str, config_json: &str) -> Result<i64, StoreError> {
        self.backend.add_tournament(name, config_json, now()).map_err(|e| self.err(e))
    }

    /// Marks a tournament finished.
    pub fn finish_tournament(&self, id: i64) -> Result<(), StoreError> {
        self.backend.finish_tournament(id, now()).map_err(|e| self.err(e))
    }

    /// A tournament by id, or the most recent one if `id` is `None`.
    pub fn tournament(&self, id: Option<i64>) -> Result<Option<StoredTournament>, StoreError> {
        self.backend.tournament(id).map_err(|e| self.err(e))
    }
}
