//! Remote workers (`arbiter worker --server URL`): the tokens an admin
//! issued them, kept as sha256 hashes only and revocable, and every upload
//! the coordinator refused, so that a refused game is played again by
//! another worker and a worker's refusals can be counted.

use super::{now_ms, Store, StoreError, StoreFailure};
use arbiter_core::model::GameRecord;

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

/// What became of an upload that does not count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalKind {
    /// Not a game this worker may upload now (another's claim, a lease
    /// that ran out, other builds than the pinned ones).
    Refused,
    /// A record that does not hold: a move, a start, a result the rules or
    /// the players named cannot give. Repeated, it suspends the token.
    Forged,
    /// A verified game held back from a worker whose results drift, or whose
    /// token was revoked: kept whole for its admin.
    Held,
    /// A verified game whose result no rule proves (a resignation, an
    /// agreed draw, an engine's crash or hang, an illegal move claimed):
    /// kept whole until a second worker's game agrees or the operator
    /// accepts it.
    Unconfirmed,
}

impl RefusalKind {
    /// Its name, as the store keeps it.
    pub fn name(self) -> &'static str {
        match self {
            RefusalKind::Refused => "refused",
            RefusalKind::Forged => "forged",
            RefusalKind::Held => "held",
            RefusalKind::Unconfirmed => "unconfirmed",
        }
    }

    /// The kind a stored name names (an unknown one reads as refused).
    pub fn from_name(name: &str) -> RefusalKind {
        match name {
            "forged" => RefusalKind::Forged,
            "held" => RefusalKind::Held,
            "unconfirmed" => RefusalKind::Unconfirmed,
            _ => RefusalKind::Refused,
        }
    }
}

/// An upload the coordinator refused.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Refusal {
    /// What became of it.
    pub kind: RefusalKind,
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

/// An upload held back from a worker whose results drift: its refusal, and
/// its game's record (or why that no longer reads).
pub type HeldUpload = (Refusal, Result<GameRecord, String>);

/// A stored game queued to be played again by another worker and compared
/// (its players are deterministic, so the two games must be equal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameCheck {
    /// The worker whose game is stored.
    pub first_worker: String,
    /// The stored game's digest (its moves and result).
    pub digest: String,
    /// Who holds the check now (or held it last).
    pub claimed_by: Option<String>,
    /// The worker that played it again, once it has.
    pub second_worker: Option<String>,
    /// Whether the two games agreed, once compared.
    pub agreed: Option<bool>,
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
    /// Keeps a refusal, with the refused game's record (JSON) if it is held.
    fn add_refusal(&self, refusal: &Refusal, held: Option<&str>) -> Result<(), StoreFailure>;
    /// The records held back from `worker`'s uploads, oldest first.
    fn held_records(&self, worker: &str) -> Result<Vec<(Refusal, String)>, StoreFailure>;
    /// The refusals of `tournament` (every one if `None`), oldest first.
    fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreFailure>;
    /// The unconfirmed uploads of game `index` of `tournament`, with their
    /// records, oldest first.
    fn unconfirmed(&self, tournament: i64, index: u32) -> Result<Vec<(Refusal, String)>, StoreFailure>;
    /// How many games of `tournament` have an unconfirmed upload and no
    /// stored result.
    fn awaiting_confirmation(&self, tournament: i64) -> Result<u64, StoreFailure>;
    /// How many of `worker`'s uploads were refused as forged.
    fn forgeries(&self, worker: &str) -> Result<u64, StoreFailure>;
    /// Queues a check of game `index` of `tournament` (once).
    fn add_check(&self, tournament: i64, index: u32, first_worker: &str, digest: &str) -> Result<(), StoreFailure>;
    /// Claims one unsettled check of a game `worker` did not play (of
    /// `only`, if given) for `holder` until `until_ms`.
    fn claim_check(
        &self,
        holder: &str,
        worker: &str,
        only: Option<i64>,
        until_ms: i64,
        now_ms: i64,
    ) -> Result<Option<(i64, u32)>, StoreFailure>;
    /// The check of game `index` of `tournament`.
    fn check(&self, tournament: i64, index: u32) -> Result<Option<GameCheck>, StoreFailure>;
    /// Records a check's outcome.
    fn settle_check(&self, tournament: i64, index: u32, second_worker: &str, agreed: bool) -> Result<(), StoreFailure>;
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
        self.backend.add_refusal(refusal, None).map_err(|e| self.err(e))
    }

    /// Keeps a verified upload that does not count yet, with its record:
    /// held from a worker whose results drift (or whose token was revoked),
    /// for its admin, or unconfirmed, until another worker's game agrees or
    /// the operator accepts it (the refusal's kind says which). The game is
    /// played again elsewhere.
    pub fn hold_upload(&self, refusal: &Refusal, record: &GameRecord) -> Result<(), StoreError> {
        let json = serde_json::to_string(record).expect("a record serialises");
        self.backend.add_refusal(refusal, Some(&json)).map_err(|e| self.err(e))
    }

    /// The uploads held back from `worker`, each with its game's record,
    /// oldest first; a record that no longer reads is named as an error.
    pub fn held_uploads(&self, worker: &str) -> Result<Vec<HeldUpload>, StoreError> {
        let rows = self.backend.held_records(worker).map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|(r, json)| {
                let record = serde_json::from_str(&json).map_err(|e| {
                    format!("the held record of game {} of tournament {}: {e}", r.index + 1, r.tournament)
                });
                (r, record)
            })
            .collect())
    }

    /// Queues game `index` of `tournament`, stored from `first_worker`'s
    /// upload with `digest`, to be played again by another worker.
    pub fn add_check(&self, tournament: i64, index: u32, first_worker: &str, digest: &str) -> Result<(), StoreError> {
        self.backend.add_check(tournament, index, first_worker, digest).map_err(|e| self.err(e))
    }

    /// Claims a check for `holder`, of a game `worker` did not play, for
    /// `lease`: the game's tournament and index.
    pub fn claim_check(
        &self,
        holder: &str,
        worker: &str,
        only: Option<i64>,
        lease: std::time::Duration,
    ) -> Result<Option<(i64, u32)>, StoreError> {
        let now = now_ms();
        let until = now + lease.as_millis() as i64;
        self.backend.claim_check(holder, worker, only, until, now).map_err(|e| self.err(e))
    }

    /// The check of game `index` of `tournament`, if one was queued.
    pub fn check(&self, tournament: i64, index: u32) -> Result<Option<GameCheck>, StoreError> {
        self.backend.check(tournament, index).map_err(|e| self.err(e))
    }

    /// Records that `second_worker`'s game agreed (or not) with the stored one.
    pub fn settle_check(
        &self,
        tournament: i64,
        index: u32,
        second_worker: &str,
        agreed: bool,
    ) -> Result<(), StoreError> {
        self.backend.settle_check(tournament, index, second_worker, agreed).map_err(|e| self.err(e))
    }

    /// The refused uploads of `tournament` (or of every tournament), oldest first.
    pub fn refusals(&self, tournament: Option<i64>) -> Result<Vec<Refusal>, StoreError> {
        self.backend.refusals(tournament).map_err(|e| self.err(e))
    }

    /// The unconfirmed uploads of game `index` of `tournament`, each with
    /// its record (or why that no longer reads), oldest first.
    pub fn unconfirmed(&self, tournament: i64, index: u32) -> Result<Vec<HeldUpload>, StoreError> {
        let rows = self.backend.unconfirmed(tournament, index).map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|(r, json)| {
                let record = serde_json::from_str(&json).map_err(|e| {
                    format!("the unconfirmed record of game {} of tournament {tournament}: {e}", index + 1)
                });
                (r, record)
            })
            .collect())
    }

    /// How many games of `tournament` wait for a result to be confirmed
    /// (an unconfirmed upload, nothing stored yet).
    pub fn awaiting_confirmation(&self, tournament: i64) -> Result<u64, StoreError> {
        self.backend.awaiting_confirmation(tournament).map_err(|e| self.err(e))
    }

    /// How many of `worker`'s uploads were refused as forged.
    pub fn forgeries(&self, worker: &str) -> Result<u64, StoreError> {
        self.backend.forgeries(worker).map_err(|e| self.err(e))
    }
}
