//! Claims: which games a worker is given (the queue's, or another
//! worker's game to play again and compare), renewed by heartbeats and
//! released; a held worker and the games it refused are kept apart.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{
    long_ago, Coordinator, RequestError, BLIND_WORKERS, CHECK_LEASES, CHECK_LOOK_EVERY, IDLE_ANSWER, MOST_PER_CLAIM,
    RESIDUALS_EVERY,
};
use crate::queue::{enqueue_pending, planned, unfinished};
use crate::wire::{ClaimRequest, ClaimResponse, ClaimedGame, GameKey, Held, QueueState, TournamentPins};
use arbiter_core::sync::LockExt;
use arbiter_store::Claim;
use arbiter_tournament::driver::Tournament;
use arbiter_tournament::error::Result;

impl Coordinator {
    /// Tournament `id`, planned once from its stored definition.
    pub(super) fn tournament(&self, id: i64) -> Result<Arc<Tournament>> {
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
    pub(super) fn held(&self, worker: &str, t: i64) -> Result<Option<String>> {
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
            let flagged = arbiter_tournament::audit::worker_residuals(&self.store, t)?
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
    pub(super) fn refused_by(&self, worker: &str, only: Option<i64>) -> usize {
        let refused = self.refused.lock_or_recover();
        refused
            .iter()
            .filter(|(t, _)| only.is_none_or(|o| o == **t))
            .map(|(_, games)| games.values().filter(|w| w.contains(worker)).count())
            .sum()
    }

    /// Whether `worker` had game `key` refused.
    pub(super) fn refused_before(&self, worker: &str, key: GameKey) -> bool {
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
        // A job the queue cannot read back is the coordinator's fault: the
        // claims go back and the request fails (logged, not sent).
        let games: Vec<ClaimedGame> = match mine.iter().map(|c| ClaimedGame::of_queued(c.game.clone())).collect() {
            Ok(games) => games,
            Err(e) => {
                self.store.release_claims(&mine)?;
                return Err(e.into());
            }
        };
        let queue = if games.is_empty() { QueueState::InFlight } else { QueueState::Claimed };
        Ok(ClaimResponse { holder, lease_ms, games, pins: Some(pins), queue })
    }

    /// A stored game for `worker` to play again, if one waits for a second
    /// worker (of tournament `only`, if given).
    pub(super) fn claim_check(
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
        let mut game = ClaimedGame::of_queued(entry.game)?;
        game.key.check = true;
        Ok(Some((game, pins)))
    }

    /// What a slot with nothing to claim is told; a tournament whose queue
    /// is empty is planned again (which finishes it once every game is
    /// stored, or queues what stored results made known).
    pub(super) fn lull(&self, only: Option<i64>, skip: &[i64]) -> Result<QueueState> {
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
    pub(super) fn own(&self, worker: &str, held: &Held) -> Result<Vec<Claim>, RequestError> {
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
}
