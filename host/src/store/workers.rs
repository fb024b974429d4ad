//! Remote workers (`arbiter worker --server URL`): the tokens an admin
//! issued them, kept as sha256 hashes only and revocable, and every upload
//! the coordinator refused, so that a refused game is played again by
//! another worker and a worker's refusals can be counted.

use super::{now_ms, Store, StoreError, StoreFailure};

/// A worker's token as the store keeps it (never the token itself).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WorkerToken {
    /// The worker's name (letters, digits, `.`, `_`, `-`).
    pub name: String,
    /// When it was issued, ms since the epoch.
    pub issued_ms: i64,
    /// When it stops being accepted, if it does.
    pub expires_ms: Option<i64>,
    /// When it was revoked, if it was.
    pub revoked_ms: Option<i64>,
}

/// An upload the coordinator refused.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Refusal {
    /// The worker that uploaded it.
    pub worker: String,
    /// The game's tournament.
    pub tournament: i64,
    /// The game's index in the tournament's schedule.
    pub index: u32,
    /// Why it was refused (one line).
    pub reason: String,
    /// When, ms since the epoch.
    pub at_ms: i64,
}

/// What a store backend does for remote workers.
pub(super) trait WorkerBackend {
    /// Adds a token; false if `name` has one already (revoked or not).
    fn add_worker_token(&self, token: &WorkerToken, sha256: &str) -> Result<bool, StoreFailure>;
    /// The token whose hash is `sha256`.
    fn worker_token(&self, sha256: &str) -> Result<Option<WorkerToken>, StoreFailure>;
    /// Marks `name`'s token revoked; false if there is none not yet revoked.
    fn revoke_worker_token(&self, name: &str, now_ms: i64) -> Result<bool, StoreFailure>;
    /// Every token, by name.
    fn worker_tokens(&self) -> Result<Vec<WorkerToken>, StoreFailure>;
    /// Keeps a refusal.
    fn add_refusal(&self, refusal: &Refusal) -> Result<(), StoreFailure>;
    /// The refusals of `tournament` (every one if `None`), oldest first.
    fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreFailure>;
}

impl Store {
    /// Keeps a new worker's token by its hash, valid for `valid` (or until
    /// revoked); false if the name is taken.
    pub fn add_worker_token(
        &self,
        name: &str,
        sha256: &str,
        valid: Option<std::time::Duration>,
    ) -> Result<bool, StoreError> {
        let issued_ms = now_ms();
        let expires_ms = valid.map(|v| issued_ms.saturating_add(v.as_millis().min(i64::MAX as u128) as i64));
        let token = WorkerToken { name: name.to_string(), issued_ms, expires_ms, revoked_ms: None };
        self.backend.add_worker_token(&token, sha256).map_err(|e| self.err(e))
    }

    /// The worker a token's hash belongs to, revoked or not.
    pub fn worker_token(&self, sha256: &str) -> Result<Option<WorkerToken>, StoreError> {
        self.backend.worker_token(sha256).map_err(|e| self.err(e))
    }

    /// Revokes `name`'s token; false if it has none in force.
    pub fn revoke_worker_token(&self, name: &str) -> Result<bool, StoreError> {
        self.backend.revoke_worker_token(name, now_ms()).map_err(|e| self.err(e))
    }

    /// Every worker token issued, by name.
    pub fn worker_tokens(&self) -> Result<Vec<WorkerToken>, StoreError> {
        self.backend.worker_tokens().map_err(|e| self.err(e))
    }

    /// Keeps a refused upload.
    pub fn add_refusal(&self, refusal: &Refusal) -> Result<(), StoreError> {
        self.backend.add_refusal(refusal).map_err(|e| self.err(e))
    }

    /// The refused uploads of `tournament` (or of every tournament), oldest first.
    pub fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreError> {
        self.backend.refusals(tournament).map_err(|e| self.err(e))
    }
}
