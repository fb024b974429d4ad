//! An audit of a store: every stored game (or a tournament's) replayed
//! through its variant's rules (see [`arbiter_play::record::replay::verify_record`]),
//! so that results written by workers with store rights are proved before
//! they are trusted; and each worker's results held against the others'
//! ([`worker_residuals`]).

use arbiter_core::model::Seat;
use arbiter_core::plugin::Registry;
use arbiter_core::stats::residuals::{residuals, Observation, Residual};
use arbiter_play::record::replay::{verify_record, ReplayError};
use arbiter_store::{Store, StoreError, Tallies};

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

/// Plays again, here, every stored game (of `tournament`) whose setup is
/// reproducible ([`arbiter_play::referee::GameSetup::reproducible`]: every
/// player a sandboxed engine or a seeded built-in one, on virtual clocks)
/// and holds it against its record: how many were played again, and those
/// that differ, with the ply where they do. A forged resignation, time loss
/// or crash shows as a game that played again goes on or ends otherwise.
/// The games of `refuted` (found wrong already) are left out.
pub fn reexecute(
    registry: &Registry,
    store: &Store,
    tournament: Option<i64>,
    refuted_already: &[Refuted],
) -> crate::error::Result<(usize, Vec<Refuted>)> {
    let mut planned: std::collections::HashMap<i64, crate::driver::Tournament> = Default::default();
    let (mut played, mut refuted) = (0, Vec::new());
    for g in store.games(tournament)? {
        let Some(slot) = g.slot.as_ref().filter(|_| refuted_already.iter().all(|r| r.id != g.summary.id)) else {
            continue;
        };
        let tournament = match planned.entry(slot.id) {
            std::collections::hash_map::Entry::Occupied(t) => t.into_mut(),
            std::collections::hash_map::Entry::Vacant(place) => {
                let view = crate::view::TournamentView::load(store, Some(slot.id))?;
                place.insert(crate::driver::Tournament::planned(registry, view)?)
            }
        };
        let Some(setup) = tournament.setup_of(store, slot.index)?.filter(|s| s.reproducible()) else {
            continue;
        };
        played += 1;
        let message = match crate::worker::play_setup(registry, &setup) {
            Ok(again) => match arbiter_play::record::replay::first_difference(&g.record, &again) {
                Some(difference) => format!("played again, the game differs {difference}"),
                None => continue,
            },
            Err(e) => format!("could not be played again: {e}"),
        };
        refuted.push(Refuted {
            id: g.summary.id,
            slot: Some((slot.id, slot.index + 1)),
            worker: g.worker.clone(),
            error: ReplayError { game: None, ply: None, message },
        });
    }
    Ok((played, refuted))
}

/// Where the counting rows of a tournament (what standings, the web view
/// and stopping rules read) differ from a count over its stored games: one
/// line each, for `tournament` or every tournament. Counting rows are
/// written by whoever stores a game; a worker with store rights can write
/// them too, so the audit counts again.
pub fn count_differences(store: &Store, tournament: Option<i64>) -> Result<Vec<String>, StoreError> {
    let ids: Vec<i64> = match tournament {
        Some(t) => vec![t],
        None => store.tournament_list()?.into_iter().map(|(t, _)| t.id).collect(),
    };
    let mut lines = Vec::new();
    for t in ids {
        let mut kept = store.tallies(t)?;
        let counted = Tallies::of(&store.tournament_results(t)?);
        kept.games.retain(|g| g.games > 0);
        kept.pairs.retain(|p| p.pairs > 0);
        kept.games.sort();
        kept.pairs.sort();
        if kept.games != counted.games {
            lines.push(format!(
                "tournament {t}: its counting rows hold {} game(s), but {} are stored{}",
                kept.games(),
                counted.games(),
                if kept.games() == counted.games() { " (counted under other outcomes)" } else { "" }
            ));
        }
        if kept.pairs != counted.pairs {
            let sum = |p: &[arbiter_store::PairTally]| p.iter().map(|p| p.pairs).sum::<u64>();
            lines.push(format!(
                "tournament {t}: its counting rows hold {} complete pair(s), but the stored games make {}",
                sum(&kept.pairs),
                sum(&counted.pairs)
            ));
        }
    }
    Ok(lines)
}

/// Each queue worker's residual in `tournament` (see
/// [`arbiter_core::stats::residuals`]): workers known by the name before the
/// first `:` of their holder (a remote worker's token name, or a machine's
/// host name), games compared within their pairing (variant and players in
/// their seats); games without a result or a worker are left out.
pub fn worker_residuals(store: &Store, tournament: i64) -> Result<Vec<Residual>, StoreError> {
    let observations: Vec<Observation> = store
        .worker_games(tournament)?
        .into_iter()
        .filter_map(|(g, worker)| {
            let score = match (g.winner, g.result.as_str()) {
                (Some(Seat::FIRST), _) => 1.0,
                (Some(_), _) => 0.0,
                (None, "1/2-1/2") => 0.5,
                _ => return None,
            };
            let worker = worker.split(':').next()?.to_string();
            let pairing = format!("{}|{}", g.variant, g.players.join("|"));
            Some(Observation { pairing, worker, score })
        })
        .collect();
    Ok(residuals(&observations))
}
