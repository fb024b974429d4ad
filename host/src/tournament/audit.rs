//! An audit of a store: every stored game (or a tournament's) replayed
//! through its variant's rules (see [`crate::record::replay::verify_record`]),
//! so that results written by workers with store rights are proved before
//! they are trusted.

use crate::plugin::Registry;
use crate::record::replay::{verify_record, ReplayError};
use crate::store::{Store, StoreError};

/// A stored game that does not hold up.
#[derive(Debug)]
pub struct Refuted {
    /// Its row id in the store.
    pub id: i64,
    /// Its tournament and 1-based game number there, if any.
    pub slot: Option<(i64, u32)>,
    /// The queue worker that stored it, if one did.
    pub worker: Option<String>,
    /// What is wrong.
    pub error: ReplayError,
}

impl std::fmt::Display for Refuted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "game {}", self.id)?;
        if let Some((t, n)) = self.slot {
            write!(f, " (tournament {t} game {n})")?;
        }
        if let Some(w) = &self.worker {
            write!(f, " stored by worker {w}")?;
        }
        write!(f, ": {}", self.error)
    }
}

/// Replays every game of `store` (or of `tournament`); returns how many
/// were replayed and those that do not hold up, in store order.
pub fn audit(registry: &Registry, store: &Store, tournament: Option<i64>) -> Result<(usize, Vec<Refuted>), StoreError> {
    let games = store.games(tournament)?;
    let refuted = games
        .iter()
        .filter_map(|g| {
            verify_record(registry, &g.record).err().map(|error| Refuted {
                id: g.summary.id,
                slot: g.slot.as_ref().map(|s| (s.id, s.index + 1)),
                worker: g.worker.clone(),
                error,
            })
        })
        .collect();
    Ok((games.len(), refuted))
}
