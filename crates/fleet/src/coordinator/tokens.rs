//! Workers' tokens: issued by an admin, kept as their sha256, checked on
//! every request ([`Coordinator::identify`]), and the admin's acceptance of
//! a result that waits for confirmation.

use std::time::Duration;

use super::{now_ms, Coordinator, Identity, RequestError};
use crate::queue::{enqueue_pending, event_of, planned};
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_store::{Claim, Store};
use arbiter_tournament::error::{Result, TournamentError};

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

/// The sha256 (hex) a token is kept under.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(token.as_bytes()))
}

impl Coordinator {
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
}
