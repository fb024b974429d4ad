//! The coordinator of remote workers: what `arbiter serve` does for
//! `arbiter worker --server URL` (the messages are in [`crate::wire`]).
//! A remote worker holds a token, not the store's credentials: it claims
//! games under leases, renews them, and uploads each finished game, which
//! counts only once the coordinator has proved it: the record is the game
//! its queued job describes (variant, options, start, players, clocks), every
//! move is legal and the result is what the rules or the job's adjudication
//! give ([`arbiter_play::record::replay::verify_record`] and [`check_against_job`]),
//! the claim is this worker's, and the builds it names are the tournament's
//! pins. A refused upload is kept with its reason, the game goes back to the
//! queue, and the worker that sent it is not given it again.
//!
//! Tokens are issued by an admin ([`issue_token`]), stored as their sha256
//! only, and revocable; a revoked worker's requests are refused.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::wire::QueueState;
use arbiter_core::plugin::Registry;
use arbiter_store::Store;
use arbiter_tournament::driver::Tournament;
use arbiter_tournament::error::TournamentError;

mod claims;
mod files;
#[cfg(test)]
mod tests;
mod tokens;
mod uploads;
mod verify;

pub use tokens::{accept_unconfirmed, issue_token, token_hash};
pub use uploads::SUSPEND_AFTER;
pub use verify::{check_against_job, deterministic};

/// Who a worker request comes from, by its token.
#[derive(Clone, Debug)]
pub enum Identity {
    /// A worker whose token is in force.
    Worker(String),
    /// A worker whose token was revoked: it may upload, to have the games
    /// it still held kept for its admin, and nothing else.
    Revoked {
        /// The worker's name.
        name: String,
        /// Why its requests are refused.
        why: String,
    },
}

impl Identity {
    /// The worker's name.
    pub fn name(&self) -> &str {
        match self {
            Identity::Worker(name) | Identity::Revoked { name, .. } => name,
        }
    }
}

/// The most games one claim hands out.
pub const MOST_PER_CLAIM: usize = 64;

/// Why a worker's request is refused.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// No token, or one that is unknown or revoked (HTTP 401).
    #[error("{0}")]
    Unauthorized(String),
    /// The request asks for what this worker may not have (HTTP 403).
    #[error("{0}")]
    Forbidden(String),
    /// The request is malformed (HTTP 400).
    #[error("{0}")]
    BadRequest(String),
    /// What it names is not there (HTTP 404).
    #[error("{0}")]
    NotFound(String),
    /// The coordinator failed (HTTP 500; the text is logged, not sent).
    #[error(transparent)]
    Failed(#[from] TournamentError),
}

impl From<arbiter_store::StoreError> for RequestError {
    fn from(e: arbiter_store::StoreError) -> RequestError {
        RequestError::Failed(e.into())
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The coordinator's state: the store, the rules to verify with, and what
/// it has learnt of each tournament.
pub struct Coordinator {
    registry: Arc<Registry>,
    store: Arc<Store>,
    lease: Duration,
    /// Tournaments planned from their stored definitions (their stopping
    /// rule keeps a tally of the games it has counted).
    planned: Mutex<HashMap<i64, Arc<Tournament>>>,
    /// Per tournament, the games each worker had refused: given to others.
    refused: Mutex<HashMap<i64, HashMap<u32, HashSet<String>>>>,
    /// What the last slot that found nothing to claim was told, and when,
    /// by the tournament it asked for: told again for [`IDLE_ANSWER`]
    /// without a look at the store (a thousand idle workers asking at once
    /// cost one claim's look, not a thousand), unless a game was stored or
    /// given back since. A lease that runs out meanwhile is seen at most
    /// that much later.
    idle: Mutex<HashMap<Option<i64>, (std::time::Instant, QueueState)>>,
    /// Per tournament, when its workers' residuals were last computed, and
    /// the workers they flagged (with their z).
    flagged: Mutex<HashMap<i64, (std::time::Instant, Flagged)>>,
    /// The fraction of stored games with deterministic players that a
    /// second worker plays again, to compare.
    double_check: f64,
    /// The fraction of uploaded reproducible games (every player sandboxed
    /// or built in) played again here, whole, before they count.
    reexecute: f64,
    /// Whether a check may wait for a worker: claims look for one only then.
    checks: Mutex<CheckHint>,
}

/// What the coordinator knows of the checks waiting for a second worker
/// without asking the store: each queued check is found by one claim's look
/// (a thousand workers do not each look for it), a worker that found none
/// while some wait (they were its own) does not look again until another is
/// queued, and when none is known to wait the store is asked at most once
/// every [`CHECK_LOOK_EVERY`] (a check whose player died is claimable again
/// when its lease runs out; the coordinator may have restarted).
struct CheckHint {
    /// Checks queued and not yet found.
    waiting: u64,
    /// When the store was last asked.
    looked: std::time::Instant,
    /// Workers whose look found none since a check was last queued.
    blind: HashSet<String>,
}

/// The most workers that may find no check while some are counted waiting
/// before the count is taken to be wrong (it is set to none).
const BLIND_WORKERS: usize = 8;

/// How often the store is asked for checks when none is known to wait.
const CHECK_LOOK_EVERY: Duration = Duration::from_secs(1);

/// How many leases a check lasts (heartbeats renew queue claims only).
const CHECK_LEASES: u32 = 4;

/// The flagged workers of a tournament: each one's residual z and games compared.
type Flagged = HashMap<String, (f64, usize)>;

/// An instant older than any interval here (or now, on a clock too young).
fn long_ago() -> std::time::Instant {
    let now = std::time::Instant::now();
    now.checked_sub(RESIDUALS_EVERY).unwrap_or(now)
}

/// How often a tournament's workers' residuals are computed again.
const RESIDUALS_EVERY: Duration = Duration::from_secs(60);

/// How long an idle slot's answer is given again without a look at the store.
const IDLE_ANSWER: Duration = Duration::from_millis(50);

impl Coordinator {
    /// A coordinator over `store`, verifying with `registry`'s plugins,
    /// handing out claims that last `lease` without a heartbeat.
    pub fn new(registry: Arc<Registry>, store: Arc<Store>, lease: Duration) -> Coordinator {
        Coordinator {
            registry,
            store,
            lease,
            planned: Mutex::default(),
            refused: Mutex::default(),
            idle: Mutex::default(),
            flagged: Mutex::default(),
            double_check: 0.0,
            reexecute: 1.0,
            checks: Mutex::new(CheckHint { waiting: 0, looked: long_ago(), blind: HashSet::new() }),
        }
    }

    /// The coordinator, having `fraction` of the stored games whose players
    /// are deterministic played again by another worker and compared.
    pub fn with_double_check(mut self, fraction: f64) -> Coordinator {
        self.double_check = fraction.clamp(0.0, 1.0);
        self
    }

    /// The coordinator, playing again `fraction` of the uploaded games whose
    /// players are all sandboxed engines or built-in players (1 by default)
    /// and refusing those that differ.
    pub fn with_reexecute(mut self, fraction: f64) -> Coordinator {
        self.reexecute = fraction.clamp(0.0, 1.0);
        self
    }
}
