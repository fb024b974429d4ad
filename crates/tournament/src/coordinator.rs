//! The coordinator of remote workers: what `arbiter serve` does for
//! `arbiter worker --server URL` (the messages are in [`super::wire`]).
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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arbiter_api::Outcome;

use super::driver::Tournament;
use super::error::{Result, TournamentError};
use super::outcomes::{self, Proof};
use super::pins::PluginPin;
use super::queue::{enqueue_pending, event_of, planned, unfinished};
use super::view::TournamentView;
use super::wire::{
    ClaimRequest, ClaimResponse, ClaimedGame, GameKey, Held, PinsResponse, QueueState, TournamentPins, Upload,
    UploadResponse, UploadedGame, Verdict,
};
use super::worker::Job;
use arbiter_core::model::{GameRecord, Seat};
use arbiter_core::plugin::Registry;
use arbiter_core::sync::LockExt;
use arbiter_play::record::replay::verify_record;
use arbiter_play::referee::adjudication::Adjudged;
use arbiter_play::referee::Termination;
use arbiter_store::{Claim, QueueEntry, Refusal, RefusalKind, Store};

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

/// A fresh token for worker `name`, valid for `valid` (or until revoked),
/// kept in `store` as its sha256: the token itself is shown once, to the
/// admin who issues it.
pub fn issue_token(store: &Store, name: &str, valid: Option<Duration>) -> Result<String> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
        return Err(TournamentError::Refused(format!(
            "worker name '{}': use 1 to 64 letters, digits, '.', '_' or '-'",
            name.escape_debug()
        )));
    }
    let bytes: [u8; 32] = rand::random();
    let token = format!("arbw_{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
    if !store.add_worker_token(name, &token_hash(&token), valid)? {
        return Err(TournamentError::Refused(format!(
            "worker '{name}' has a token already (revoke it or pick another name)"
        )));
    }
    Ok(token)
}

/// The operator accepts an unconfirmed result: game `game` (1-based) of
/// tournament `t` is stored as `worker` uploaded it (the latest unconfirmed
/// upload if no worker is named), and counts; returns the worker's name and
/// the record stored.
pub fn accept_unconfirmed(
    registry: &Registry,
    store: &Store,
    t: i64,
    game: u32,
    worker: Option<&str>,
) -> Result<(String, GameRecord)> {
    let index = game.checked_sub(1).ok_or_else(|| TournamentError::Refused("games are numbered from 1".into()))?;
    let refused = |why: String| TournamentError::Refused(why);
    let entry = store
        .queue_entry(t, index)?
        .ok_or_else(|| refused(format!("tournament {t} has no game {game} in its queue")))?;
    if entry.stored {
        return Err(refused(format!("game {game} of tournament {t} is stored already")));
    }
    let kept = store.unconfirmed(t, index)?;
    let (r, record) = kept.into_iter().rev().find(|(r, _)| worker.is_none_or(|w| r.worker == w)).ok_or_else(|| {
        let from = worker.map(|w| format!(" from worker {w}")).unwrap_or_default();
        refused(format!("game {game} of tournament {t} has no unconfirmed result{from}"))
    })?;
    let record = record.map_err(refused)?;
    let tournament = planned(registry, store, t)?;
    let claim = Claim { game: entry.game.clone(), holder: format!("{}:accepted", r.worker) };
    let event = event_of(&entry.game);
    let stored = store.complete_claims(&[(&claim, &record, &event)], tournament.stop_rule())?;
    if stored.ids.first().is_none_or(Option::is_none) {
        return Err(refused(format!("game {game} of tournament {t} was stored meanwhile")));
    }
    if tournament.plans_as_results_come() {
        enqueue_pending(store, &tournament)?;
    }
    Ok((r.worker, record))
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The sha256 (hex) a token is kept under.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(token.as_bytes()))
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
            checks: Mutex::new(CheckHint { waiting: 0, looked: long_ago(), blind: HashSet::new() }),
        }
    }

    /// The coordinator, having `fraction` of the stored games whose players
    /// are deterministic played again by another worker and compared.
    pub fn with_double_check(mut self, fraction: f64) -> Coordinator {
        self.double_check = fraction.clamp(0.0, 1.0);
        self
    }

    /// The worker a request's bearer token names, if the token is in force.
    pub fn authenticate(&self, bearer: Option<&str>) -> Result<String, RequestError> {
        let token = bearer
            .ok_or_else(|| RequestError::Unauthorized("no worker token (send 'Authorization: Bearer TOKEN')".into()))?;
        match self.store.worker_token(&token_hash(token))? {
            Some(t) if t.revoked_ms.is_some() => {
                Err(RequestError::Unauthorized(format!("the token of worker '{}' is revoked", t.name)))
            }
            Some(t) if t.expires_ms.is_some_and(|e| e <= now_ms()) => {
                Err(RequestError::Unauthorized(format!("the token of worker '{}' has expired", t.name)))
            }
            Some(t) => Ok(t.name),
            None => Err(RequestError::Unauthorized("unknown worker token".into())),
        }
    }

    /// Tournament `id`, planned once from its stored definition.
    fn tournament(&self, id: i64) -> Result<Arc<Tournament>> {
        if let Some(t) = self.planned.lock_or_recover().get(&id) {
            return Ok(t.clone());
        }
        let tournament = Arc::new(planned(&self.registry, &self.store, id)?);
        let mut refused: HashMap<u32, HashSet<String>> = HashMap::new();
        for r in self.store.refusals(Some(id))? {
            refused.entry(r.index).or_default().insert(r.worker);
        }
        self.refused.lock_or_recover().insert(id, refused);
        Ok(self.planned.lock_or_recover().entry(id).or_insert(tournament).clone())
    }

    /// Why `worker`'s results in tournament `t` are held, if they are: its
    /// residual against the other workers' results is past the bound
    /// ([`arbiter_core::stats::residuals`]), computed again every
    /// [`RESIDUALS_EVERY`].
    fn held(&self, worker: &str, t: i64) -> Result<Option<String>> {
        // One request computes them again; the others meanwhile go on with
        // the last ones (every request that found them stale computing them
        // at once held a thousand workers up by seconds).
        let stale = {
            let mut flagged = self.flagged.lock_or_recover();
            let entry = flagged.entry(t).or_insert_with(|| (long_ago(), HashMap::new()));
            let stale = entry.0.elapsed() >= RESIDUALS_EVERY;
            if stale {
                entry.0 = std::time::Instant::now();
            }
            stale
        };
        if stale {
            let flagged = super::audit::worker_residuals(&self.store, t)?
                .into_iter()
                .filter(|r| r.flagged())
                .map(|r| (r.worker, (r.z, r.games)))
                .collect();
            self.flagged.lock_or_recover().insert(t, (std::time::Instant::now(), flagged));
        }
        let flagged = self.flagged.lock_or_recover();
        Ok(flagged.get(&t).and_then(|(_, f)| f.get(worker)).map(|(z, games)| {
            format!(
                "worker {worker}'s results in tournament {t} are held: they drift from the other workers' (residual \
                 z = {z:+.2} over {games} games); its admin may look at `arbiter results {t}` and `arbiter tokens \
                 held {worker}`"
            )
        }))
    }

    /// How many games `worker` had refused (of tournament `only`, if
    /// given), as far as this coordinator knows.
    fn refused_by(&self, worker: &str, only: Option<i64>) -> usize {
        let refused = self.refused.lock_or_recover();
        refused
            .iter()
            .filter(|(t, _)| only.is_none_or(|o| o == **t))
            .map(|(_, games)| games.values().filter(|w| w.contains(worker)).count())
            .sum()
    }

    /// Whether `worker` had game `key` refused.
    fn refused_before(&self, worker: &str, key: GameKey) -> bool {
        let refused = self.refused.lock_or_recover();
        refused.get(&key.tournament).and_then(|t| t.get(&key.index)).is_some_and(|w| w.contains(worker))
    }

    /// Claims games for one slot of `worker`.
    pub fn claim(&self, worker: &str, request: &ClaimRequest) -> Result<ClaimResponse, RequestError> {
        let slot = &request.slot;
        if slot.is_empty() || slot.len() > 200 || slot.chars().any(char::is_control) {
            return Err(RequestError::BadRequest("slot: 1 to 200 characters, no control characters".into()));
        }
        let holder = format!("{worker}:{slot}");
        let most = request.most.clamp(1, MOST_PER_CLAIM);
        let lease_ms = self.lease.as_millis() as u64;
        let idle = |queue| ClaimResponse { holder: holder.clone(), lease_ms, games: Vec::new(), pins: None, queue };
        // Checks go first, to workers that refuse no tournament (a check has
        // no claim to give back: it waits out its lease).
        let check = if request.skip.is_empty() { self.claim_check(worker, &holder, request.tournament)? } else { None };
        if let Some(check) = check {
            let (game, pins) = check;
            return Ok(ClaimResponse {
                holder,
                lease_ms,
                games: vec![game],
                pins: Some(pins),
                queue: QueueState::Claimed,
            });
        }
        let recent = self.idle.lock_or_recover().get(&request.tournament).copied();
        if let Some((_, state)) = recent.filter(|(at, _)| at.elapsed() < IDLE_ANSWER && request.skip.is_empty()) {
            return Ok(idle(state));
        }
        // Games this worker sent refused results for come back to the queue
        // and are another's to play: claim past them, or a worker with
        // refusals at the head of the queue would claim them again and
        // again and play nothing.
        let passed = self.refused_by(worker, request.tournament).min(4 * MOST_PER_CLAIM);
        let mut claims = self.store.claim(&holder, self.lease, request.tournament, &request.skip, most + passed)?;
        let Some(t) = claims.first().map(|c| c.game.tournament) else {
            let state = self.lull(request.tournament, &request.skip)?;
            self.idle.lock_or_recover().insert(request.tournament, (std::time::Instant::now(), state));
            return Ok(idle(state));
        };
        if let Some(why) = self.held(worker, t)? {
            self.store.release_claims(&claims)?;
            return Err(RequestError::Forbidden(why));
        }
        let tournament = self.tournament(t)?;
        // A game this worker sent a refused result for is another's to play.
        let (mut theirs, mut mine): (Vec<Claim>, Vec<Claim>) = claims
            .drain(..)
            .partition(|c| self.refused_before(worker, GameKey { tournament: t, index: c.game.index, check: false }));
        theirs.extend(mine.drain(most.min(mine.len())..));
        if !theirs.is_empty() {
            self.store.release_claims(&theirs)?;
        }
        let definition = &tournament.definition;
        let pins = TournamentPins { plugins: definition.plugins.clone(), engines: definition.engines.clone() };
        let games: Vec<ClaimedGame> = mine.into_iter().map(|c| ClaimedGame::from(c.game)).collect();
        let queue = if games.is_empty() { QueueState::InFlight } else { QueueState::Claimed };
        Ok(ClaimResponse { holder, lease_ms, games, pins: Some(pins), queue })
    }

    /// A stored game for `worker` to play again, if one waits for a second
    /// worker (of tournament `only`, if given).
    fn claim_check(
        &self,
        worker: &str,
        holder: &str,
        only: Option<i64>,
    ) -> Result<Option<(ClaimedGame, TournamentPins)>, RequestError> {
        if self.double_check <= 0.0 {
            return Ok(None);
        }
        {
            let mut hint = self.checks.lock_or_recover();
            let recent = hint.looked.elapsed() < CHECK_LOOK_EVERY;
            if recent && (hint.waiting == 0 || hint.blind.contains(worker)) {
                return Ok(None);
            }
            hint.looked = std::time::Instant::now();
        }
        let found = self.store.claim_check(holder, worker, only, self.lease * CHECK_LEASES)?;
        {
            let mut hint = self.checks.lock_or_recover();
            if found.is_some() {
                hint.waiting = hint.waiting.saturating_sub(1);
            } else if hint.blind.insert(worker.to_string()) && hint.blind.len() > BLIND_WORKERS {
                hint.waiting = 0;
                hint.blind.clear();
            }
        }
        let Some((t, index)) = found else { return Ok(None) };
        if let Some(why) = self.held(worker, t)? {
            return Err(RequestError::Forbidden(why));
        }
        let Some(entry) = self.store.queue_entry(t, index)? else { return Ok(None) };
        let definition = &self.tournament(t)?.definition;
        let pins = TournamentPins { plugins: definition.plugins.clone(), engines: definition.engines.clone() };
        let mut game = ClaimedGame::from(entry.game);
        game.key.check = true;
        Ok(Some((game, pins)))
    }

    /// What a slot with nothing to claim is told; a tournament whose queue
    /// is empty is planned again (which finishes it once every game is
    /// stored, or queues what stored results made known).
    fn lull(&self, only: Option<i64>, skip: &[i64]) -> Result<QueueState> {
        let finished =
            |t: i64| -> Result<bool> { Ok(self.store.tournament(Some(t))?.is_none_or(|t| t.finished_at.is_some())) };
        let open: Vec<i64> = match only {
            Some(t) if finished(t)? => return Ok(QueueState::Finished),
            Some(t) => vec![t],
            None => unfinished(&self.store, skip)?,
        };
        let mut in_flight = false;
        for &t in &open {
            if self.store.queue_open(t)? {
                in_flight = true;
            } else {
                match self.tournament(t).and_then(|planned| enqueue_pending(&self.store, &planned)) {
                    Ok(added) => in_flight |= added > 0,
                    Err(e) => tracing::warn!("tournament {t}: {e}"),
                }
            }
        }
        Ok(match only {
            _ if in_flight => QueueState::InFlight,
            Some(t) if finished(t)? => QueueState::Finished,
            _ => QueueState::Empty,
        })
    }

    /// The claims of `held`, checked to be `worker`'s.
    fn own(&self, worker: &str, held: &Held) -> Result<Vec<Claim>, RequestError> {
        if !held.holder.starts_with(&format!("{worker}:")) {
            return Err(RequestError::Forbidden(format!("holder '{}' is not worker '{worker}'", held.holder)));
        }
        Ok(held
            .games
            .iter()
            .map(|k| Claim {
                game: arbiter_store::QueuedGame {
                    tournament: k.tournament,
                    index: k.index,
                    event: String::new(),
                    round: 0,
                    pair: None,
                    seats: Vec::new(),
                    job: String::new(),
                },
                holder: held.holder.clone(),
            })
            .collect())
    }

    /// Renews `worker`'s claims (its heartbeat); claims it no longer holds
    /// are left alone.
    pub fn heartbeat(&self, worker: &str, held: &Held) -> Result<(), RequestError> {
        let claims = self.own(worker, held)?;
        Ok(self.store.renew_claims(&claims, self.lease)?)
    }

    /// Gives `worker`'s claims back to the queue.
    pub fn release(&self, worker: &str, held: &Held) -> Result<(), RequestError> {
        let claims = self.own(worker, held)?;
        self.store.release_claims(&claims)?;
        self.idle.lock_or_recover().clear();
        Ok(())
    }

    /// Who `bearer`'s token names: a worker whose token is in force, or
    /// one whose token was revoked (which may still upload, to have its
    /// games held); any other token (unknown, expired, none) is refused.
    pub fn identify(&self, bearer: Option<&str>) -> Result<Identity, RequestError> {
        let refused = match self.authenticate(bearer) {
            Ok(worker) => return Ok(Identity::Worker(worker)),
            Err(e) => e,
        };
        let revoked = match bearer {
            Some(token) => self.store.worker_token(&token_hash(token))?.filter(|t| t.revoked_ms.is_some()),
            None => None,
        };
        match revoked {
            Some(t) => Ok(Identity::Revoked { name: t.name, why: refused.to_string() }),
            None => Err(refused),
        }
    }

    /// An upload of `identity`: verified and stored (see
    /// [`Coordinator::upload`]); a revoked worker's is refused all the same
    /// (HTTP 401, so that the worker stops), but each game it still held is
    /// verified and held, whole, for its admin (`arbiter tokens held NAME`),
    /// and given back for another worker to play.
    pub fn upload_as_identity(&self, identity: &Identity, upload: &Upload) -> Result<UploadResponse, RequestError> {
        match identity {
            Identity::Worker(worker) => self.upload(worker, upload),
            Identity::Revoked { name, why } => {
                let hold = format!("the token of worker '{name}' was revoked: its results are held");
                self.upload_as(name, upload, Some(&hold))?;
                Err(RequestError::Unauthorized(why.clone()))
            }
        }
    }

    /// Verifies and stores finished games: one verdict each.
    pub fn upload(&self, worker: &str, upload: &Upload) -> Result<UploadResponse, RequestError> {
        self.upload_as(worker, upload, None)
    }

    /// [`Coordinator::upload`], every verified game held for `hold` if given.
    fn upload_as(&self, worker: &str, upload: &Upload, hold: Option<&str>) -> Result<UploadResponse, RequestError> {
        let mut verdicts = vec![Verdict::Stored; upload.games.len()];
        let mut accepted: Vec<(usize, Claim, arbiter_play::record::EventInfo)> = Vec::new();
        let mut tournaments = HashSet::new();
        let mut named = HashSet::new();
        for (i, game) in upload.games.iter().enumerate() {
            // A game named twice in one upload is looked at once: a repeat
            // stores and counts nothing.
            if !named.insert((game.key.tournament, game.key.index)) {
                verdicts[i] = Verdict::AlreadyStored;
                continue;
            }
            let check = self.check(worker, &upload.holder, game)?;
            // A worker whose results drift is held: its games are verified
            // but not counted; each is played again elsewhere, its record
            // kept for the worker's admin (`arbiter tokens held NAME`).
            if let Check::Fresh(entry) = &check {
                let held = match hold {
                    Some(why) => Some(why.to_string()),
                    None => self.held(worker, game.key.tournament)?,
                };
                if let Some(why) = held {
                    tracing::warn!(
                        "worker {worker}: game {} of tournament {t}: {why}",
                        game.key.index + 1,
                        t = game.key.tournament
                    );
                    let mut kept = self.refusal(worker, game, &why);
                    kept.kind = RefusalKind::Held;
                    self.store.hold_upload(&kept, &game.record)?;
                    self.forget(worker, game.key, Claim { game: entry.game.clone(), holder: upload.holder.clone() })?;
                    verdicts[i] = Verdict::Refused(why);
                    continue;
                }
            }
            match check {
                Check::Fresh(entry) => {
                    let claim = Claim { game: entry.game.clone(), holder: upload.holder.clone() };
                    match self.standing(worker, game, &entry) {
                        Standing::Counts => {
                            let event = event_of(&entry.game);
                            accepted.push((i, claim, event));
                            tournaments.insert(game.key.tournament);
                        }
                        Standing::Forged(why) => {
                            verdicts[i] = self.refuse(worker, game, RefusalKind::Forged, why, Some(claim))?;
                        }
                        Standing::Unconfirmed(why) => {
                            tracing::info!(
                                "worker {worker}: game {} of tournament {}: {why}",
                                game.key.index + 1,
                                game.key.tournament
                            );
                            let mut kept = self.refusal(worker, game, &why);
                            kept.kind = RefusalKind::Unconfirmed;
                            self.store.hold_upload(&kept, &game.record)?;
                            self.forget(worker, game.key, claim)?;
                            verdicts[i] = Verdict::Unconfirmed(why);
                        }
                    }
                }
                Check::Resent => verdicts[i] = Verdict::AlreadyStored,
                Check::Compared => verdicts[i] = Verdict::Agrees,
                Check::Duplicate => verdicts[i] = Verdict::Duplicate,
                Check::Refused(kind, why, claim) => verdicts[i] = self.refuse(worker, game, kind, why, claim)?,
            }
        }
        // One transaction per tournament: its stopping rule sees its games.
        for t in tournaments {
            let tournament = self.tournament(t)?;
            let batch: Vec<_> = accepted
                .iter()
                .filter(|(_, c, _)| c.game.tournament == t)
                .map(|(i, c, e)| (*i, c, &upload.games[*i].record, e))
                .collect();
            let rows: Vec<_> = batch.iter().map(|(_, c, r, e)| (*c, *r, *e)).collect();
            let stored = self.store.complete_claims(&rows, tournament.stop_rule())?;
            for ((i, claim, record, _), id) in batch.iter().zip(&stored.ids) {
                if id.is_none() {
                    verdicts[*i] = Verdict::Duplicate;
                } else if self.to_check(&claim.game) {
                    self.store.add_check(t, claim.game.index, worker, &digest(record))?;
                    let mut hint = self.checks.lock_or_recover();
                    hint.waiting += 1;
                    hint.blind.clear();
                }
            }
            // Games become known with results only in systems that wait
            // for them (the next Swiss or knockout round, a tune's next
            // pairs); the end of a tournament is seen by the first idle
            // slot to ask.
            if tournament.plans_as_results_come() {
                enqueue_pending(&self.store, &tournament)?;
            }
        }
        // A refused game is back in the queue; a stored one may end it.
        if verdicts.iter().any(|v| *v != Verdict::Duplicate) {
            self.idle.lock_or_recover().clear();
        }
        Ok(UploadResponse { verdicts })
    }

    /// Gives a refused game's `claim` back to the queue, for a worker other
    /// than `worker` to play.
    fn forget(&self, worker: &str, key: GameKey, claim: Claim) -> Result<(), RequestError> {
        if let Some(map) = self.refused.lock_or_recover().get_mut(&key.tournament) {
            map.entry(key.index).or_default().insert(worker.to_string());
        }
        self.store.release_claims(&[claim])?;
        Ok(())
    }

    /// Refuses `worker`'s upload of `game` for `why` (a refusal of `kind`
    /// kept), giving its `claim` back; a worker whose forged uploads reach
    /// [`SUSPEND_AFTER`] has its token revoked.
    fn refuse(
        &self,
        worker: &str,
        game: &UploadedGame,
        kind: RefusalKind,
        why: String,
        claim: Option<Claim>,
    ) -> Result<Verdict, RequestError> {
        tracing::warn!(
            "worker {worker}: game {} of tournament {}: refused: {why}",
            game.key.index + 1,
            game.key.tournament
        );
        let mut refusal = self.refusal(worker, game, &why);
        refusal.kind = kind;
        self.store.add_refusal(&refusal)?;
        if let Some(claim) = claim {
            self.forget(worker, game.key, claim)?;
        } else if let Some(map) = self.refused.lock_or_recover().get_mut(&game.key.tournament) {
            map.entry(game.key.index).or_default().insert(worker.to_string());
        }
        if kind == RefusalKind::Forged {
            let forged = self.store.forgeries(worker)?;
            if forged >= SUSPEND_AFTER && self.store.revoke_worker_token(worker)? {
                tracing::warn!("worker {worker}: token suspended (revoked) after {forged} forged uploads");
            }
        }
        Ok(Verdict::Refused(why))
    }

    /// Whether a verified `game` of `entry` counts now (see
    /// [`super::outcomes`]): its result proved, or confirmed by another
    /// worker's unconfirmed game of the same job that ended alike.
    fn standing(&self, worker: &str, game: &UploadedGame, entry: &QueueEntry) -> Standing {
        let Ok(job) = serde_json::from_str::<Job>(&entry.game.job) else {
            return Standing::Forged("the queued job is unreadable".into());
        };
        let what = match outcomes::proof(&job, &game.record) {
            Proof::Proved => return Standing::Counts,
            Proof::Impossible(why) => return Standing::Forged(why),
            Proof::Unproven(what) => what,
        };
        let (t, index) = (game.key.tournament, game.key.index);
        let earlier = match self.store.unconfirmed(t, index) {
            Ok(earlier) => earlier,
            Err(e) => {
                tracing::error!("tournament {t} game {}: {e}", index + 1);
                Vec::new()
            }
        };
        let confirmed = earlier.iter().find(|(r, record)| {
            r.worker != worker && record.as_ref().is_ok_and(|record| outcomes::agree(record, &game.record))
        });
        if let Some((r, _)) = confirmed {
            tracing::info!("tournament {t} game {}: {what}, confirmed by worker {}'s game", index + 1, r.worker);
            return Standing::Counts;
        }
        Standing::Unconfirmed(format!(
            "{what} rests on this worker's word: kept, and counted once another worker's game of it ends alike \
             (or the operator accepts it: `arbiter tokens accept {t} {}`)",
            index + 1
        ))
    }

    /// The refusal of `game`, uploaded by `worker`, for `why`.
    fn refusal(&self, worker: &str, game: &UploadedGame, why: &str) -> Refusal {
        Refusal {
            kind: RefusalKind::Refused,
            worker: worker.to_string(),
            tournament: game.key.tournament,
            index: game.key.index,
            reason: why.to_string(),
            at_ms: now_ms(),
        }
    }

    /// What to do with one uploaded game.
    fn check(&self, worker: &str, holder: &str, game: &UploadedGame) -> Result<Check, RequestError> {
        let key = game.key;
        if key.check {
            return self.compare(worker, holder, game);
        }
        let Some(entry) = self.store.queue_entry(key.tournament, key.index)? else {
            return Ok(Check::Refused(
                RefusalKind::Refused,
                format!("no game {} in tournament {}'s queue", key.index + 1, key.tournament),
                None,
            ));
        };
        if entry.stored {
            let mine = entry.stored_by.as_deref().is_some_and(|w| w.starts_with(&format!("{worker}:")));
            return Ok(if mine { Check::Resent } else { Check::Duplicate });
        }
        if entry.holder.as_deref() != Some(holder) || !holder.starts_with(&format!("{worker}:")) {
            return Ok(Check::Refused(
                RefusalKind::Refused,
                format!(
                    "game {} of tournament {} is not claimed by {holder} (its lease ran out, or it was never this \
                     worker's)",
                    key.index + 1,
                    key.tournament
                ),
                None,
            ));
        }
        let claim = Claim { game: entry.game.clone(), holder: holder.to_string() };
        let tournament = self.tournament(key.tournament)?;
        Ok(match self.verify(&tournament, &entry, game) {
            Ok(()) => Check::Fresh(entry),
            Err((kind, why)) => Check::Refused(kind, why, Some(claim)),
        })
    }

    /// A check played again: verified as any upload, then compared with the
    /// stored game. A disagreement refuses this game and is kept against
    /// the first worker's too (which of the two is wrong, the games alone
    /// cannot tell; both workers' counts show in `arbiter tokens list`).
    fn compare(&self, worker: &str, holder: &str, game: &UploadedGame) -> Result<Check, RequestError> {
        let (t, index) = (game.key.tournament, game.key.index);
        let Some(check) = self.store.check(t, index)? else {
            let why = format!("game {} of tournament {t} is not to be played again", index + 1);
            return Ok(Check::Refused(RefusalKind::Refused, why, None));
        };
        if let Some(agreed) = check.agreed {
            let mine = check.second_worker.as_deref() == Some(worker);
            return Ok(match (mine, agreed) {
                (true, true) => Check::Compared,
                (true, false) => Check::Refused(RefusalKind::Refused, "a resend of a game that differed".into(), None),
                (false, _) => Check::Duplicate,
            });
        }
        if check.claimed_by.as_deref() != Some(holder) || !holder.starts_with(&format!("{worker}:")) {
            let why = format!("the check of game {} of tournament {t} is not claimed by {holder}", index + 1);
            return Ok(Check::Refused(RefusalKind::Refused, why, None));
        }
        let Some(entry) = self.store.queue_entry(t, index)? else {
            let why = format!("no game {} in tournament {t}'s queue", index + 1);
            return Ok(Check::Refused(RefusalKind::Refused, why, None));
        };
        let tournament = self.tournament(t)?;
        if let Err((kind, why)) = self.verify(&tournament, &entry, game) {
            return Ok(Check::Refused(kind, why, None));
        }
        let agreed = digest(&game.record) == check.digest;
        self.store.settle_check(t, index, worker, agreed)?;
        if agreed {
            return Ok(Check::Compared);
        }
        let first = &check.first_worker;
        tracing::warn!("game {} of tournament {t}: workers {first} and {worker} played it differently", index + 1);
        self.store.add_refusal(&Refusal {
            kind: RefusalKind::Refused,
            worker: first.clone(),
            tournament: t,
            index,
            reason: format!("played again by worker {worker}, whose game differs (its players are deterministic)"),
            at_ms: now_ms(),
        })?;
        Ok(Check::Refused(
            RefusalKind::Refused,
            format!(
                "game {} of tournament {t} differs from the one worker {first} played (its players are \
                 deterministic: the two must be equal)",
                index + 1
            ),
            None,
        ))
    }

    /// Whether a stored game of `queued` is to be played again by another
    /// worker: its players are deterministic, and the game is among the
    /// `double_check` fraction (chosen by a hash of its place, so the same
    /// games are chosen on every run).
    fn to_check(&self, queued: &arbiter_store::QueuedGame) -> bool {
        use sha2::Digest;
        if self.double_check <= 0.0 {
            return false;
        }
        let hash = sha2::Sha256::digest(format!("check {} {}", queued.tournament, queued.index));
        let draw = u64::from_le_bytes(hash[..8].try_into().expect("eight bytes")) as f64 / u64::MAX as f64;
        draw < self.double_check && serde_json::from_str::<Job>(&queued.job).is_ok_and(|job| deterministic(&job))
    }

    /// Why `game` is not a true result of `entry`'s job, if it is not: as
    /// what it is refused (other builds than the pinned ones are refused, a
    /// record that does not hold is forged), and why.
    fn verify(
        &self,
        tournament: &Tournament,
        entry: &QueueEntry,
        game: &UploadedGame,
    ) -> std::result::Result<(), (RefusalKind, String)> {
        let job: Job = serde_json::from_str(&entry.game.job)
            .map_err(|e| (RefusalKind::Refused, format!("the queued job is unreadable: {e}")))?;
        check_pins(&tournament.definition.plugins, &tournament.definition.engines, &job, &game.pins)
            .map_err(|why| (RefusalKind::Refused, why))?;
        let forged = |why: String| (RefusalKind::Forged, why);
        check_against_job(&self.registry, &job, &game.record).map_err(forged)?;
        verify_record(&self.registry, &game.record).map_err(|e| forged(e.to_string()))
    }

    /// The pins of every unfinished tournament.
    pub fn pins(&self) -> Result<PinsResponse, RequestError> {
        let mut response = PinsResponse::default();
        for (t, _) in self.store.tournament_list()?.into_iter().filter(|(t, _)| t.finished_at.is_none()) {
            let view = TournamentView::load(&self.store, Some(t.id))?;
            let pins = TournamentPins { plugins: view.definition.plugins, engines: view.definition.engines };
            response.tournaments.insert(t.id, pins);
        }
        Ok(response)
    }

    /// A plugin file kept under `sha256`.
    pub fn plugin_file(&self, sha256: &str) -> Result<Vec<u8>, RequestError> {
        if sha256.len() != 64 || !sha256.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(RequestError::BadRequest(format!("'{}' is not a sha256", sha256.escape_debug())));
        }
        let file = self.store.plugin_file(sha256)?;
        file.map(|(_, bytes)| bytes).ok_or_else(|| RequestError::NotFound(format!("no plugin file {sha256}")))
    }
}

/// What to do with one uploaded game.
enum Check {
    /// Verified, to be stored.
    Fresh(QueueEntry),
    /// This worker's result is stored already (a resend).
    Resent,
    /// Another worker's result is stored.
    Duplicate,
    /// Refused: as what, why, and the claim to give back.
    Refused(RefusalKind, String, Option<Claim>),
    /// A check, played again, equal to the stored game.
    Compared,
}

/// Whether a verified upload counts.
enum Standing {
    /// Stored and counted.
    Counts,
    /// Refused as forged: why.
    Forged(String),
    /// Kept until confirmed: why.
    Unconfirmed(String),
}

/// How many forged uploads suspend a worker's token (it is revoked).
pub const SUSPEND_AFTER: u64 = 10;

/// Whether the builds a game was played with are the tournament's.
fn check_pins(
    plugins: &BTreeMap<String, PluginPin>,
    engines: &BTreeMap<String, PluginPin>,
    job: &Job,
    played: &TournamentPins,
) -> std::result::Result<(), String> {
    if let Some(pin) = plugins.get(&job.variant) {
        match played.plugins.get(&job.variant) {
            Some(p) if p.same_build(pin) => {}
            Some(p) => return Err(format!("played with plugin {}, not the pinned {}", p.describe(), pin.describe())),
            None => return Err(format!("names no build of variant {}'s plugin", job.variant)),
        }
    }
    for seat in &job.seats {
        if let Some(pin) = engines.get(&seat.name) {
            match played.engines.get(&seat.name) {
                Some(p) if p.sha256 == pin.sha256 => {}
                _ => {
                    return Err(format!(
                        "player {}: not played with the pinned engine (sha256 {})",
                        seat.name, pin.sha256
                    ))
                }
            }
        }
    }
    Ok(())
}

/// Whether `record` is a game of `job`: its variant, options, start,
/// players and time controls, and an adjudication only by a rule the job
/// sets and whose conditions the record meets (the rules' own verdicts are
/// for [`verify_record`]).
pub fn check_against_job(registry: &Registry, job: &Job, record: &GameRecord) -> std::result::Result<(), String> {
    if record.variant != job.variant {
        return Err(format!("variant {}, but the job is {}", record.variant, job.variant));
    }
    if record.options != job.options {
        return Err("the variant options are not the job's".into());
    }
    let names: Vec<&str> = job.seats.iter().map(|s| s.name.as_str()).collect();
    if record.players.iter().map(String::as_str).ne(names.iter().copied()) {
        return Err(format!("players {:?}, but the job seats {names:?}", record.players));
    }
    if record.time_controls.iter().ne(job.seats.iter().map(|s| &s.tc)) {
        return Err("the time controls are not the job's".into());
    }
    let variant = registry.get(&job.variant).map_err(|e| e.to_string())?;
    let start = match &job.position {
        None => variant.new_game(&job.options),
        Some(p) => variant.from_position(p, &job.options),
    }
    .map_err(|e| format!("the job's start: {e}"))?
    .position_text();
    if record.start_position != start || record.standard_start != job.position.is_none() {
        return Err(format!("starts at '{}', but the job starts at '{start}'", record.start_position));
    }
    if let Termination::Adjudication(reason) = &record.result.termination {
        let plies = record.plies.len() as u32;
        let judged = job.adjudication.judge(&record.plies);
        let by_score = match judged {
            Some(Adjudged::Resign { loser, reason: r }) => {
                r == *reason && record.result.outcome == loser.opponent().wins()
            }
            Some(Adjudged::Draw(r)) => r == *reason && record.result.outcome == Outcome::Draw,
            None => false,
        };
        let by_plugin = (job.adjudication.plugin || job.adjudication.tablebases.is_some())
            && reason.ends_with("(the plugin's adjudication)");
        let by_length = reason == "ply limit" && job.max_plies == Some(plies) && record.result.outcome == Outcome::Draw;
        let cap = job.seats.iter().filter_map(|s| s.tc.cap_ms).min();
        let used_ms = record.plies.iter().map(|p| p.used_us).sum::<u64>() / 1000;
        let by_time =
            reason == "game time cap" && cap.is_some_and(|c| used_ms >= c) && record.result.outcome == Outcome::Draw;
        if !(by_score || by_plugin || by_length || by_time) {
            return Err(format!("adjudicated '{reason}', which the job's rules do not give here"));
        }
    }
    if let (Termination::TimeForfeit(_), Some(winner)) =
        (&record.result.termination, Seat::winner(record.result.outcome))
    {
        check_flag(job, record, winner.opponent())?;
    }
    // A game the job would have adjudicated earlier was not played by it.
    let through = record.plies.len().saturating_sub(1);
    if let Some(m) = job.max_plies.filter(|&m| (m as usize) <= through) {
        return Err(format!("{} plies, past the job's limit of {m}", record.plies.len()));
    }
    if let Some(n) = (1..=through).find(|&n| job.adjudication.judge(&record.plies[..n]).is_some()) {
        return Err(format!("played on after ply {n}, where the job's adjudication ends the game"));
    }
    Ok(())
}

/// What two plays of one deterministic game must share: the moves and the
/// result, as a sha256.
fn digest(record: &GameRecord) -> String {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    for ply in &record.plies {
        hash.update(ply.mv.to_le_bytes());
    }
    hash.update(format!("{:?} {}", record.result.outcome, record.result.termination.kind()));
    format!("{:x}", hash.finalize())
}

/// Whether every seat of `job` plays the same game again given the same
/// seed: a seeded built-in player (random, or MCTS by iterations) on no
/// clock, or an engine at a node limit on no clock. Anything that reads a
/// clock may play otherwise on another machine.
pub fn deterministic(job: &Job) -> bool {
    job.seats.iter().all(|seat| {
        let untimed = matches!(seat.tc.limit, arbiter_core::clock::Limit::Infinite);
        match arbiter_play::players::PlayerSpec::parse(&seat.spec) {
            // Each kind says whether it repeats itself; an engine does at a
            // node limit, and nothing that reads a clock does.
            Ok(spec) if spec.is_engine() => untimed && seat.tc.nodes.is_some(),
            Ok(spec) => spec.repeats_itself(!untimed),
            Err(_) => false,
        }
    })
}

/// Whether the flag of `loser` can have fallen in `record`: the time its
/// clock showed after its last move (or at the start) must fit in the
/// game's wall time not spent on the recorded moves, which is what its
/// last, unfinished move took. (A pooled clock, which the opponent's moves
/// fill, is checked by the rules' replay only.)
fn check_flag(job: &Job, record: &GameRecord, loser: Seat) -> std::result::Result<(), String> {
    let Some(seat) = job.seats.get(loser.index()) else { return Ok(()) };
    let left = match &seat.tc.limit {
        arbiter_core::clock::Limit::PerMove(ms) => *ms,
        arbiter_core::clock::Limit::Periods(_) => {
            let last = record.plies.iter().rev().find(|p| p.player == loser).and_then(|p| p.clock_ms);
            match last.or_else(|| arbiter_core::clock::Clock::new(&seat.tc).remaining_ms()) {
                Some(ms) => ms,
                None => return Ok(()),
            }
        }
        _ => return Ok(()),
    };
    let recorded_ms = record.plies.iter().map(|p| p.used_us).sum::<u64>() / 1000;
    let last_move_ms = record.duration_ms.saturating_sub(recorded_ms);
    if left > last_move_ms + job.margin_ms {
        return Err(format!(
            "player {loser} lost on time with {left} ms on its clock, but the game's {} ms leave {last_move_ms} ms for \
             its last move",
            record.duration_ms
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use arbiter_core::model::Seat;
    use std::sync::Arc;
    use std::time::Duration;

    use arbiter_api::Outcome;

    use super::{issue_token, Coordinator, RequestError};
    use crate::pins::PluginPin;
    use crate::queue::{enqueue_pending, planned};
    use crate::testing::definition;
    use crate::wire::{
        ClaimRequest, ClaimResponse, ClaimedGame, Held, QueueState, TournamentPins, Upload, UploadedGame, Verdict,
    };
    use crate::worker::{play_in_process, Job};
    use arbiter_core::plugin::Registry;
    use arbiter_play::referee::Termination;
    use arbiter_store::Store;
    use arbiter_testing::{race, temp_store};

    const PIN: &str = "5d41402abc4b2a76b9719d911017c592ae5d41402abc4b2a76b9719d911017c5";

    /// A coordinator over a store holding a queued round robin of the
    /// fixture's race between three seeded players, its plugin pinned.
    fn coordinator(name: &str) -> (Coordinator, Arc<Store>, i64) {
        let players = [("a", "random:seed=1"), ("b", "random:seed=2"), ("c", "random:seed=3")];
        let mut definition = definition("name = \"remote\"\nformat = \"round-robin\"\nrounds = 2", &players, &["race"]);
        let pin = PluginPin {
            file: "libarbiter_race.so".into(),
            sha256: PIN.into(),
            api_version: "0.1.0".into(),
            definition: None,
        };
        definition.plugins.insert("race".into(), pin);
        queued(name, &definition)
    }

    /// A coordinator over a new store holding `definition` (of the
    /// fixture's race) registered as `name`, its games queued.
    fn queued(name: &str, definition: &crate::view::StoredDefinition) -> (Coordinator, Arc<Store>, i64) {
        let store = Arc::new(temp_store());
        let id = store.add_tournament(name, &serde_json::to_string(definition).unwrap()).unwrap();
        let registry = Arc::new(Registry::of([race(arbiter_fixture::Fault::None)]));
        enqueue_pending(&store, &planned(&registry, &store, id).unwrap()).unwrap();
        (Coordinator::new(registry, store.clone(), Duration::from_secs(60)), store, id)
    }

    fn claim(c: &Coordinator, worker: &str, most: usize) -> ClaimResponse {
        let request = ClaimRequest { slot: "host:1#0".into(), tournament: None, skip: vec![], most };
        c.claim(worker, &request).unwrap()
    }

    /// The game a claim describes, played honestly, as an upload.
    fn honest(c: &Coordinator, game: &ClaimedGame) -> UploadedGame {
        let job: Job = serde_json::from_str(&game.job).unwrap();
        let record = play_in_process(&c.registry, &job);
        let pin = PluginPin {
            file: "libarbiter_race.so".into(),
            sha256: PIN.into(),
            api_version: "0.1.0".into(),
            definition: None,
        };
        let pins = TournamentPins { plugins: [("race".to_string(), pin)].into(), engines: Default::default() };
        UploadedGame { key: game.key, record, pins }
    }

    fn upload(c: &Coordinator, worker: &str, holder: &str, games: Vec<UploadedGame>) -> Vec<Verdict> {
        c.upload(worker, &Upload { holder: holder.into(), games }).unwrap().verdicts
    }

    #[test]
    fn a_game_uploaded_under_a_revoked_token_is_refused_and_held_for_the_admin() {
        let (c, store, t) = coordinator("revoked-upload");
        let token = issue_token(&store, "w1", None).unwrap();
        let claimed = claim(&c, "w1", 1);
        let game = honest(&c, &claimed.games[0]);
        assert!(store.revoke_worker_token("w1").unwrap());
        let upload = Upload { holder: claimed.holder.clone(), games: vec![game] };
        let identity = c.identify(Some(&token)).unwrap();
        let refused = c.upload_as_identity(&identity, &upload).unwrap_err().to_string();
        assert_eq!(refused, "the token of worker 'w1' is revoked");
        assert!(store.games(Some(t)).unwrap().is_empty(), "nothing counted");
        let held = store.held_uploads("w1").unwrap();
        assert_eq!(held.len(), 1);
        assert!(held[0].0.reason.contains("was revoked: its results are held"), "{}", held[0].0.reason);
        assert!(held[0].1.is_ok(), "its record kept");
        let entry = store.queue_entry(t, claimed.games[0].key.index).unwrap().unwrap();
        assert!(entry.holder.is_none(), "its game given back at once");
        let unknown = c.identify(Some("arbw_00")).unwrap_err().to_string();
        assert_eq!(unknown, "unknown worker token");
        assert_eq!(store.held_uploads("w1").unwrap().len(), 1, "an unknown token holds nothing");
    }

    #[test]
    fn a_token_is_shown_once_kept_as_its_hash_and_refused_once_revoked() {
        let (c, store, _) = coordinator("tokens");
        let token = issue_token(&store, "w1", None).unwrap();
        assert!(token.starts_with("arbw_") && token.len() == 69, "{token}");
        assert_eq!(c.authenticate(Some(&token)).unwrap(), "w1");
        let kept = serde_json::to_string(&store.worker_tokens().unwrap()).unwrap();
        assert!(!kept.contains(&token[5..]), "the store keeps no token: {kept}");
        assert!(issue_token(&store, "w1", None).unwrap_err().to_string().contains("has a token already"));
        assert!(issue_token(&store, "w:1", None).unwrap_err().to_string().contains("letters, digits"));
        let unknown = c.authenticate(Some("arbw_00")).unwrap_err();
        assert!(matches!(unknown, RequestError::Unauthorized(ref m) if m == "unknown worker token"), "{unknown}");
        assert!(matches!(c.authenticate(None), Err(RequestError::Unauthorized(_))));
        assert!(store.revoke_worker_token("w1").unwrap());
        let revoked = c.authenticate(Some(&token)).unwrap_err().to_string();
        assert_eq!(revoked, "the token of worker 'w1' is revoked");
        assert!(!store.revoke_worker_token("w1").unwrap(), "revoked once");
        let brief = issue_token(&store, "brief", Some(Duration::from_millis(1))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let expired = c.authenticate(Some(&brief)).unwrap_err().to_string();
        assert_eq!(expired, "the token of worker 'brief' has expired");
    }

    #[test]
    fn honest_games_are_verified_and_stored_once_and_a_resend_is_answered_already_stored() {
        let (c, store, t) = coordinator("honest");
        let claimed = claim(&c, "w1", 2);
        assert_eq!((claimed.games.len(), claimed.holder.as_str()), (2, "w1:host:1#0"));
        assert_eq!(claimed.pins.as_ref().unwrap().plugins["race"].sha256, PIN);
        let games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
        assert_eq!(upload(&c, "w1", &claimed.holder, games.clone()), [Verdict::Stored, Verdict::Stored]);
        // The answer was lost: the worker sends the batch again.
        let again = [Verdict::AlreadyStored, Verdict::AlreadyStored];
        assert_eq!(upload(&c, "w1", &claimed.holder, games), again);
        let stored = store.games(Some(t)).unwrap();
        assert_eq!(stored.len(), 2);
        assert!(stored.iter().all(|g| g.worker.as_deref() == Some("w1:host:1#0")));
        let names = ["a", "b", "c"];
        assert!(stored.iter().all(|g| g.record.players.iter().all(|p| names.contains(&p.as_str()))), "entrants' names");
    }

    #[test]
    fn a_game_named_200_times_in_one_upload_is_stored_and_counted_once() {
        let (c, store, t) = coordinator("repeated");
        let claimed = claim(&c, "w1", 2);
        let games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
        let mut repeated = vec![games[0].clone(); 200];
        repeated.push(games[1].clone());
        let verdicts = upload(&c, "w1", &claimed.holder, repeated.clone());
        assert_eq!(verdicts[0], Verdict::Stored);
        assert_eq!(verdicts[200], Verdict::Stored);
        assert!(verdicts[1..200].iter().all(|v| *v == Verdict::AlreadyStored), "{:?}", &verdicts[..3]);
        let verdicts = upload(&c, "w1", &claimed.holder, repeated);
        assert!(verdicts.iter().all(|v| *v == Verdict::AlreadyStored), "a second request changes nothing");
        assert_eq!(store.games(Some(t)).unwrap().len(), 2);
        assert_eq!(store.tallies(t).unwrap().games(), 2, "counted once each");
    }

    /// `game` cut after its first `plies` plies and ended `termination`, the
    /// seat `winner` winning (a draw without one): legal move by move.
    fn forge(
        c: &Coordinator,
        game: &UploadedGame,
        plies: usize,
        termination: Termination,
        winner: Option<u32>,
    ) -> UploadedGame {
        let mut g = game.clone();
        g.record.plies.truncate(plies);
        let variant = c.registry.get(&g.record.variant).unwrap();
        let r = &g.record;
        g.record.final_position =
            arbiter_play::referee::position_after(variant, &r.options, &r.start_position, &r.plies).unwrap();
        g.record.result.outcome = winner.map_or(Outcome::Draw, Outcome::Win);
        g.record.result.termination = termination;
        g
    }

    /// 320 games legal move by move, ending as built-in players never end
    /// one (MCTS resigning, crashing, playing an illegal move, agreeing a
    /// draw; a flag without a clock), uploaded against an SPRT "random is
    /// stronger than MCTS": every one is refused as forged, nothing is
    /// stored or counted, the SPRT's tally stays empty, and the worker's
    /// token is suspended after ten.
    #[test]
    fn outcomes_built_in_players_cannot_give_are_refused_and_cannot_move_an_sprt() {
        let players = [("random", "random:seed=1"), ("mcts", "mcts:iterations=5")];
        let head = "name = \"sprt\"\nvariants = [\"race\"]\ngames_per_pairing = 2\nrounds = 160\n[sprt]\nelo0 = 0.0\nelo1 = 200.0\n\
                    alpha = 0.05\nbeta = 0.05";
        let (c, store, t) = queued("sprt", &definition(head, &players, &["race"]));
        issue_token(&store, "forger", None).unwrap();
        let endings = [
            (Termination::Resignation, "it never resigns"),
            (Termination::EngineCrashed("gone".into()), "it never crashes"),
            (Termination::IllegalMove("+7".into()), "it never plays an illegal move"),
            (Termination::DrawAgreed, "it never offers or accepts a draw"),
            (Termination::TimeForfeit(Some(3)), "lost on time"),
        ];
        let mut forged = 0;
        while forged < 320 {
            let claimed = claim(&c, "forger", 64);
            assert!(!claimed.games.is_empty(), "games left to forge");
            let games: Vec<UploadedGame> = claimed
                .games
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    let job: Job = serde_json::from_str(&g.job).unwrap();
                    let mcts = job.seats.iter().position(|s| s.name == "mcts").unwrap() as u32;
                    let (termination, _) = endings[(forged + i) % endings.len()].clone();
                    let winner = (termination != Termination::DrawAgreed).then_some(1 - mcts);
                    // MCTS to move, as a fault's loser is.
                    forge(&c, &honest(&c, g), 2 + mcts as usize, termination, winner)
                })
                .collect();
            let n = games.len();
            for (i, v) in upload(&c, "forger", &claimed.holder, games).into_iter().enumerate() {
                let says = endings[(forged + i) % endings.len()].1;
                assert!(matches!(&v, Verdict::Refused(why) if why.contains(says)), "{v:?} should say '{says}'");
            }
            forged += n;
        }
        assert!(store.games(Some(t)).unwrap().is_empty(), "nothing forged is stored");
        assert_eq!(store.tallies(t).unwrap().games(), 0, "nor counted");
        assert_eq!(store.tournament(Some(t)).unwrap().unwrap().finished_at, None, "the SPRT has not decided");
        assert!(store.forgeries("forger").unwrap() >= 320);
        let token = store.worker_tokens().unwrap().into_iter().find(|w| w.name == "forger").unwrap();
        assert!(token.revoked_ms.is_some(), "suspended after {} forgeries", super::SUSPEND_AFTER);
    }

    /// Engines can resign, crash and agree draws, but the record cannot
    /// show that they did: such a result is kept, not counted, until a
    /// second worker's game of the same job ends alike (or the operator
    /// accepts it); a game the rules end counts at once.
    #[test]
    fn an_engine_s_resignation_counts_once_a_second_worker_s_game_agrees() {
        let players = [("a", "engine:python3 a.py"), ("b", "engine:python3 b.py")];
        let definition = definition("name = \"engines\"\nformat = \"round-robin\"\nrounds = 3", &players, &["race"]);
        let (c, store, t) = queued("engines", &definition);
        // The record as an engine game's: the seats' moves by scripted players.
        let played = |g: &ClaimedGame| {
            let mut job: Job = serde_json::from_str(&g.job).unwrap();
            let names: Vec<String> = job.seats.iter().map(|s| s.name.clone()).collect();
            for seat in &mut job.seats {
                seat.spec = "random:seed=9".into();
            }
            let mut uploaded = honest(&c, &ClaimedGame { job: serde_json::to_string(&job).unwrap(), ..g.clone() });
            uploaded.record.players = names;
            uploaded
        };
        let first = claim(&c, "w1", 1);
        let game = &first.games[0];
        let resigned = forge(&c, &played(game), 2, Termination::Resignation, Some(0));
        let verdict = upload(&c, "w1", &first.holder, vec![resigned.clone()]);
        assert!(
            matches!(&verdict[0], Verdict::Unconfirmed(why) if why.contains("a resignation rests on")),
            "{verdict:?}"
        );
        assert!(store.games(Some(t)).unwrap().is_empty(), "not counted yet");
        assert_eq!(store.awaiting_confirmation(t).unwrap(), 1);
        // The game is another worker's to play now; w1 is not given it again.
        let again = claim(&c, "w1", 8);
        assert!(again.games.iter().all(|g| g.key.index != game.key.index));
        c.release("w1", &Held { holder: again.holder.clone(), games: again.games.iter().map(|g| g.key).collect() })
            .unwrap();
        // A second worker's game that ends otherwise is kept too.
        let second = claim(&c, "w2", 1);
        assert_eq!(second.games[0].key.index, game.key.index);
        let crashed = forge(&c, &played(game), 3, Termination::EngineCrashed("gone".into()), Some(0));
        let verdict = upload(&c, "w2", &second.holder, vec![crashed]);
        assert!(matches!(&verdict[0], Verdict::Unconfirmed(_)), "{verdict:?}");
        // A third that agrees with the first: it counts.
        let third = claim(&c, "w3", 1);
        assert_eq!(third.games[0].key.index, game.key.index);
        let verdict = upload(&c, "w3", &third.holder, vec![resigned]);
        assert_eq!(verdict, [Verdict::Stored]);
        assert_eq!(store.games(Some(t)).unwrap().len(), 1);
        assert_eq!(store.awaiting_confirmation(t).unwrap(), 0);
        // A game the rules end counts at once.
        let next = claim(&c, "w1", 1);
        let verdict = upload(&c, "w1", &next.holder, vec![played(&next.games[0])]);
        assert_eq!(verdict, [Verdict::Stored]);
        // Or the operator accepts an unconfirmed result.
        let last = claim(&c, "w2", 1);
        let n = last.games[0].key.index + 1;
        let crashed = forge(&c, &played(&last.games[0]), 3, Termination::EngineCrashed("gone".into()), Some(0));
        assert!(matches!(&upload(&c, "w2", &last.holder, vec![crashed])[0], Verdict::Unconfirmed(_)));
        let e = super::accept_unconfirmed(&c.registry, &store, t, n, Some("w9")).unwrap_err().to_string();
        assert!(e.contains("has no unconfirmed result from worker w9"), "{e}");
        let (from, record) = super::accept_unconfirmed(&c.registry, &store, t, n, None).unwrap();
        assert_eq!((from.as_str(), record.result.termination.kind()), ("w2", "engine_crashed"));
        assert_eq!(store.games(Some(t)).unwrap().len(), 3);
        assert_eq!(store.awaiting_confirmation(t).unwrap(), 0);
        let e = super::accept_unconfirmed(&c.registry, &store, t, n, None).unwrap_err().to_string();
        assert!(e.contains("is stored already"), "{e}");
    }

    /// A worker whose refused games sit at the head of the queue claims
    /// past them (it used to claim them again and again and play nothing).
    #[test]
    fn a_worker_claims_past_the_games_it_had_refused() {
        let (c, _store, _t) = coordinator("past-refused");
        let claimed = claim(&c, "w1", 3);
        let mut games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
        for g in &mut games {
            g.record.plies[0].mv ^= 0x5a5a;
        }
        let verdicts = upload(&c, "w1", &claimed.holder, games);
        assert!(verdicts.iter().all(|v| matches!(v, Verdict::Refused(_))));
        let refused: Vec<u32> = claimed.games.iter().map(|g| g.key.index).collect();
        let next = claim(&c, "w1", 2);
        assert_eq!(next.games.len(), 2, "two games past the refused ones");
        assert!(
            next.games.iter().all(|g| !refused.contains(&g.key.index)),
            "{:?}",
            next.games.iter().map(|g| g.key.index).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_forged_upload_is_refused_kept_and_its_game_played_by_another_worker() {
        let (c, store, t) = coordinator("forged");
        let claimed = claim(&c, "w1", 12);
        let holder = claimed.holder.clone();
        let games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
        let mut forged = Vec::new();
        let mut why = Vec::new();
        // An illegal move: another move's id in the first ply.
        let mut g = games[0].clone();
        g.record.plies[0].mv ^= 0x5a5a;
        forged.push(g);
        why.push("move");
        // An impossible result: the loser recorded as the winner.
        let mut g = games[1].clone();
        g.record.result.outcome = match g.record.result.outcome {
            Outcome::Win(p) => Outcome::Win(1 - p),
            _ => Outcome::Win(0),
        };
        forged.push(g);
        why.push("the rules end the game here");
        // Another build of the plugin.
        let mut g = games[2].clone();
        g.pins.plugins.get_mut("race").unwrap().sha256 = "0".repeat(64);
        forged.push(g);
        why.push("not the pinned");
        // Players swapped.
        let mut g = games[3].clone();
        g.record.players.reverse();
        forged.push(g);
        why.push("but the job seats");
        // An adjudication the job has no rule for.
        let mut g = games[4].clone();
        g.record.result.termination = Termination::Adjudication("ply limit".into());
        g.record.result.outcome = Outcome::Draw;
        forged.push(g);
        why.push("which the job's rules do not give");
        // Another start.
        let mut g = games[5].clone();
        g.record.plies.remove(0);
        g.record.start_position = games[6].record.plies.first().map(|_| g.record.final_position.clone()).unwrap();
        forged.push(g);
        why.push("starts at");
        let verdicts = upload(&c, "w1", &holder, forged);
        for (v, why) in verdicts.iter().zip(&why) {
            assert!(matches!(v, Verdict::Refused(m) if m.contains(why)), "{v:?} should say '{why}'");
        }
        assert!(store.games(Some(t)).unwrap().is_empty(), "nothing forged is stored");
        assert_eq!(store.refusals(Some(t)).unwrap().len(), 6);
        // Another worker's claim: w2 uploads a game w1 holds.
        let theirs = upload(&c, "w2", "w2:host:1#0", vec![games[6].clone()]);
        assert!(matches!(&theirs[0], Verdict::Refused(m) if m.contains("is not claimed by w2:host:1#0")), "{theirs:?}");
        // w1 gives back what it has not uploaded; the refused games are
        // not handed to it again, but to w2.
        let rest = Held { holder: holder.clone(), games: claimed.games[6..].iter().map(|g| g.key).collect() };
        c.release("w1", &rest).unwrap();
        assert!(c.release("w2", &rest).is_err(), "w2 may not release w1's claims");
        let again = claim(&c, "w1", 12);
        assert_eq!(again.games.len(), 6, "the six games w1 did not play");
        assert!(again.games.iter().all(|g| g.key.index >= 6));
        let other = claim(&c, "w2", 12);
        assert_eq!(other.games.iter().map(|g| g.key.index).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
        let verdicts = upload(&c, "w2", &other.holder, other.games.iter().map(|g| honest(&c, g)).collect());
        assert!(verdicts.iter().all(|v| *v == Verdict::Stored), "{verdicts:?}");
    }

    #[test]
    fn a_worker_whose_results_drift_from_the_others_is_held() {
        let players = [("a", "random:seed=1"), ("b", "random:seed=2")];
        let definition = definition("name = \"drift\"\nformat = \"round-robin\"\nrounds = 250", &players, &["race"]);
        let (c, store, t) = queued("drift", &definition);
        // A game the bad worker claimed before its results drifted.
        let held_claim = store.claim("bad:h#1", Duration::from_secs(60), Some(t), &[], 1).unwrap().remove(0);
        let pending = ClaimedGame::from(held_claim.game);
        // Three workers whose first movers score half; one whose never win
        // (results stored as a worker with store rights would).
        for (worker, n) in [("w1", 100), ("w2", 100), ("w3", 100), ("bad", 100)] {
            let claims = store.claim(&format!("{worker}:h#0"), Duration::from_secs(60), Some(t), &[], n).unwrap();
            let played: Vec<_> = claims
                .iter()
                .enumerate()
                .map(|(i, claim)| {
                    let mut r = arbiter_testing::record(&[0, 1]);
                    r.variant = "race".into();
                    r.players = claim.game.seats.iter().map(|&s| players[s].0.to_string()).collect();
                    let win = if worker == "bad" { 1 } else { (i % 2) as u32 };
                    r.result.outcome = Outcome::Win(win);
                    (claim, r, crate::queue::event_of(&claim.game))
                })
                .collect();
            let rows: Vec<_> = played.iter().map(|(c, r, e)| (*c, r, e)).collect();
            store.complete_claims(&rows, None).unwrap();
        }
        let bad = c.claim("bad", &ClaimRequest { slot: "h:9#0".into(), tournament: Some(t), skip: vec![], most: 1 });
        let why = bad.err().unwrap().to_string();
        assert!(why.contains("worker bad's results in tournament") && why.contains("are held"), "{why}");
        let fine = c.claim("w1", &ClaimRequest { slot: "h:1#0".into(), tournament: Some(t), skip: vec![], most: 1 });
        assert_eq!(fine.unwrap().games.len(), 1, "the others play on");
        // Its upload is verified, held back with its record, and not counted.
        let stored = store.games(Some(t)).unwrap().len();
        let verdicts = upload(&c, "bad", "bad:h#1", vec![honest(&c, &pending)]);
        assert!(matches!(&verdicts[0], Verdict::Refused(why) if why.contains("are held")), "{verdicts:?}");
        assert_eq!(store.games(Some(t)).unwrap().len(), stored, "a held result is not counted");
        let held = store.held_uploads("bad").unwrap();
        assert_eq!(held.len(), 1);
        assert_eq!(held[0].0.index, pending.key.index);
        assert!(held[0].1.as_ref().is_ok_and(|r| r.variant == "race"), "its record is kept for the admin");
        assert!(store.held_uploads("w1").unwrap().is_empty());
        let entry = store.queue_entry(t, pending.key.index).unwrap().unwrap();
        assert!(!entry.stored && entry.holder.is_none(), "given back to the queue for another worker");
    }

    #[test]
    fn a_deterministic_game_is_played_again_by_another_worker_and_compared() {
        let players = [("a", "random:seed=1"), ("b", "random:seed=2")];
        let head = "name = \"checks\"\nformat = \"round-robin\"\nrounds = 2\ntc = \"inf\"";
        let (c, store, t) = queued("checks", &definition(head, &players, &["race"]));
        let c = c.with_double_check(1.0);
        let first = claim(&c, "w1", 4);
        assert_eq!(first.games.len(), 4);
        let games: Vec<UploadedGame> = first.games.iter().map(|g| honest(&c, g)).collect();
        assert!(upload(&c, "w1", &first.holder, games).iter().all(|v| *v == Verdict::Stored));
        assert!(store.check(t, 0).unwrap().is_some(), "every game is checked at fraction 1");
        assert_eq!(claim(&c, "w1", 4).games.len(), 0, "w1 never checks its own games");
        // w2 plays game 1 again, honestly: the two agree.
        let again = claim(&c, "w2", 4);
        assert_eq!(again.games.len(), 1, "a check at a time");
        let key = again.games[0].key;
        assert!(key.check && key.index == 0, "{key:?}");
        let verdicts = upload(&c, "w2", &again.holder, vec![honest(&c, &again.games[0])]);
        assert_eq!(verdicts, [Verdict::Agrees]);
        assert_eq!(store.check(t, 0).unwrap().unwrap().agreed, Some(true));
        assert_eq!(store.games(Some(t)).unwrap().len(), 4, "a check is not stored again");
        // w3 plays the next one with another seed: legal, but not the game.
        let other = claim(&c, "w3", 4);
        let mut job: Job = serde_json::from_str(&other.games[0].job).unwrap();
        job.seed += 1;
        let mut forged = honest(&c, &other.games[0]);
        forged.record = play_in_process(&c.registry, &job);
        let verdicts = upload(&c, "w3", &other.holder, vec![forged]);
        assert!(
            matches!(&verdicts[0], Verdict::Refused(m) if m.contains("differs from the one worker w1 played")),
            "{verdicts:?}"
        );
        assert_eq!(store.check(t, 1).unwrap().unwrap().agreed, Some(false));
        let against: Vec<String> = store.refusals(Some(t)).unwrap().into_iter().map(|r| r.worker).collect();
        assert_eq!(against, ["w1", "w3"], "a refusal kept against each of the two games");
    }

    /// A job of the race between `seats` (spec, time control), with a
    /// 100 ms margin and no adjudication.
    fn job(seats: &[(&str, &str)]) -> Job {
        let seat = |(i, (spec, tc)): (usize, &(&str, &str))| crate::worker::JobSeat {
            name: ["a", "b"][i.min(1)].into(),
            spec: spec.to_string(),
            tc: arbiter_core::clock::TimeControl::parse(tc).unwrap(),
        };
        Job {
            variant: "race".into(),
            options: Default::default(),
            position: None,
            seats: seats.iter().enumerate().map(seat).collect(),
            seed: 1,
            margin_ms: 100,
            max_plies: None,
            claim_draws: false,
            adjudication: Default::default(),
            grace_ms: 1000,
            live: false,
            journal: None,
            pin_seats: false,
        }
    }

    #[test]
    fn only_games_that_replay_alike_are_checked() {
        use super::deterministic;
        assert!(deterministic(&job(&[("random", "10+0"), ("mcts:iterations=20", "inf")])));
        assert!(!deterministic(&job(&[("random", "inf"), ("mcts:iterations=20", "10+0")])), "mcts on a clock");
        assert!(!deterministic(&job(&[("random", "inf"), ("mcts:movetime=0.1", "inf")])));
        assert!(deterministic(&job(&[("random", "inf"), ("uci:stockfish", "inf,nodes=1000")])));
        assert!(!deterministic(&job(&[("random", "inf"), ("uci:stockfish", "inf")])), "an engine on no limit");
    }

    #[test]
    fn a_flag_falls_only_when_the_clock_was_spent_within_the_game_s_time() {
        let job = job(&[("random", "10+0"), ("random", "10+0")]);
        let mut r = arbiter_testing::record(&[0, 1, 0]);
        for (p, clock) in r.plies.iter_mut().zip([9_000, 9_500, 8_000]) {
            (p.used_us, p.clock_ms) = (1_000_000, Some(clock));
        }
        // Player 1 to move, 9.5 s on its clock after its last move.
        r.duration_ms = 3_000 + 9_500;
        assert_eq!(super::check_flag(&job, &r, Seat::SECOND), Ok(()));
        r.duration_ms = 3_000 + 2_000;
        let e = super::check_flag(&job, &r, Seat::SECOND).unwrap_err();
        assert!(e.contains("lost on time with 9500 ms on its clock") && e.contains("leave 2000 ms"), "{e}");
    }

    #[test]
    fn the_last_game_stored_finishes_the_tournament_and_idle_workers_are_told() {
        let (c, store, t) = coordinator("finish");
        let claimed = claim(&c, "w1", 64);
        assert_eq!(claimed.games.len(), 12);
        let idle = c.claim("w2", &ClaimRequest { slot: "h:2#0".into(), tournament: Some(t), skip: vec![], most: 4 });
        assert_eq!(idle.unwrap().queue, QueueState::InFlight, "w1 plays the last games");
        let games = claimed.games.iter().map(|g| honest(&c, g)).collect();
        assert!(upload(&c, "w1", &claimed.holder, games).iter().all(|v| *v == Verdict::Stored));
        // The first slot to find the queue empty finishes the tournament.
        let done = c.claim("w2", &ClaimRequest { slot: "h:2#0".into(), tournament: Some(t), skip: vec![], most: 4 });
        assert_eq!(done.unwrap().queue, QueueState::Finished);
        assert!(store.tournament(Some(t)).unwrap().unwrap().finished_at.is_some());
        let bad = c.claim("w2", &ClaimRequest { slot: "a\nb".into(), tournament: None, skip: vec![], most: 1 });
        assert!(matches!(bad, Err(RequestError::BadRequest(_))));
    }
}
