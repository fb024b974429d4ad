//! Uploads: each finished game checked against its claim, its job, the
//! pins and the rules, compared with another worker's where it must be,
//! then stored, kept waiting for confirmation, or refused and kept.

use std::collections::HashSet;

use crate::outcomes::{self, Proof};
use crate::queue::{enqueue_pending, event_of};
use crate::wire::{GameKey, Upload, UploadResponse, UploadedGame, Verdict};
use arbiter_core::sync::LockExt;
use arbiter_play::record::replay::verify_record;
use arbiter_store::{Claim, QueueEntry, Refusal, RefusalKind};
use arbiter_tournament::driver::Tournament;
use arbiter_tournament::error::Result;
use arbiter_tournament::worker::Job;

use super::verify::{check_against_job, check_pins, deterministic, digest};
use super::{now_ms, Coordinator, Identity, RequestError};

/// What to do with one uploaded game.
pub(super) enum Check {
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
pub(super) enum Standing {
    /// Stored and counted.
    Counts,
    /// Refused as forged: why.
    Forged(String),
    /// Kept until confirmed: why.
    Unconfirmed(String),
}

/// How many forged uploads suspend a worker's token (it is revoked).
pub const SUSPEND_AFTER: u64 = 10;

impl Coordinator {
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
    pub(super) fn upload_as(
        &self,
        worker: &str,
        upload: &Upload,
        hold: Option<&str>,
    ) -> Result<UploadResponse, RequestError> {
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
    pub(super) fn forget(&self, worker: &str, key: GameKey, claim: Claim) -> Result<(), RequestError> {
        if let Some(map) = self.refused.lock_or_recover().get_mut(&key.tournament) {
            map.entry(key.index).or_default().insert(worker.to_string());
        }
        self.store.release_claims(&[claim])?;
        Ok(())
    }

    /// Refuses `worker`'s upload of `game` for `why` (a refusal of `kind`
    /// kept), giving its `claim` back; a worker whose forged uploads reach
    /// [`SUSPEND_AFTER`] has its token revoked.
    pub(super) fn refuse(
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
    /// [`crate::outcomes`]): its result proved, or confirmed by another
    /// worker's unconfirmed game of the same job that ended alike.
    pub(super) fn standing(&self, worker: &str, game: &UploadedGame, entry: &QueueEntry) -> Standing {
        let Ok(job) = serde_json::from_str::<Job>(&entry.game.job) else {
            return Standing::Forged("the queued job is unreadable".into());
        };
        let proof = outcomes::proof(&job, &game.record);
        if let Proof::Impossible(why) = proof {
            return Standing::Forged(why);
        }
        let (t, index) = (game.key.tournament, game.key.index);
        // A reproducible game is proved or refuted whole by playing it again.
        if job.setup.reproducible() && self.to_reexecute(t, index) {
            match arbiter_tournament::worker::play_setup(&self.registry, &job.setup) {
                Ok(again) => {
                    return match arbiter_play::record::replay::first_difference(&game.record, &again) {
                        Some(difference) => {
                            Standing::Forged(format!("played again here, the game differs {difference}"))
                        }
                        None => Standing::Counts,
                    }
                }
                Err(e) => tracing::error!("tournament {t} game {}: could not be played again: {e}", index + 1),
            }
        }
        let what = match proof {
            Proof::Proved | Proof::Impossible(_) => return Standing::Counts,
            Proof::Unproven(what) => what,
        };
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
    pub(super) fn refusal(&self, worker: &str, game: &UploadedGame, why: &str) -> Refusal {
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
    pub(super) fn check(&self, worker: &str, holder: &str, game: &UploadedGame) -> Result<Check, RequestError> {
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
    pub(super) fn compare(&self, worker: &str, holder: &str, game: &UploadedGame) -> Result<Check, RequestError> {
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

    /// Whether game `index` of tournament `t`, reproducible, is played again
    /// here before it counts: the `reexecute` fraction of them, chosen by a
    /// hash of its place (all of them by default).
    fn to_reexecute(&self, t: i64, index: u32) -> bool {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(format!("reexecute {t} {index}"));
        let draw = u64::from_le_bytes(hash[..8].try_into().expect("eight bytes")) as f64 / u64::MAX as f64;
        draw < self.reexecute
    }

    /// Whether a stored game of `queued` is to be played again by another
    /// worker: its players are deterministic, and the game is among the
    /// `double_check` fraction (chosen by a hash of its place, so the same
    /// games are chosen on every run).
    pub(super) fn to_check(&self, queued: &arbiter_store::QueuedGame) -> bool {
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
    pub(super) fn verify(
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
}
