//! An SPRT match: two players play paired games (one opening, colours
//! swapped) until the normalized-Elo GSPRT on the pentanomial counts accepts
//! H0 or H1, or a game limit is reached. Every game is committed to the store.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use arbiter_api::host::VariantHandle;
use serde_json::{Map, Value};

use super::duel::{first_points, paired_schedule};
use super::games::{Entrant, RunConfig};
use super::runner::run_games;
use crate::record::store::Store;
use crate::record::EventInfo;
use crate::referee::GameRecord;
use crate::stats::sprt::{Pentanomial, Sprt, Verdict};
use crate::stats::Score;

/// The state of an SPRT after each game.
#[derive(Clone, Debug)]
pub struct SprtState {
    /// Games finished.
    pub games: u32,
    /// The first player's plain score.
    pub score: Score,
    /// Complete pairs, from the first player's side.
    pub pentanomial: Pentanomial,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The verdict so far.
    pub verdict: Verdict,
}

/// Plays paired games between `entrants[0]` and `entrants[1]` until the test
/// decides or `max_games` are played; `on_game` sees every game and the state.
#[allow(clippy::too_many_arguments)]
pub fn run_sprt(
    entrants: &[Entrant],
    variant: &VariantHandle,
    options: &Map<String, Value>,
    openings: &[String],
    sprt: &Sprt,
    max_games: u32,
    seed: u64,
    config: &RunConfig,
    store: Option<&Store>,
    mut on_game: impl FnMut(&GameRecord, &SprtState),
) -> anyhow::Result<SprtState> {
    let schedule = paired_schedule(variant, options, None, openings, max_games - max_games % 2, seed);
    let mut state = SprtState {
        games: 0,
        score: Score::default(),
        pentanomial: Pentanomial::default(),
        llr: 0.0,
        verdict: Verdict::Continue,
    };
    let mut halves: HashMap<usize, Option<f64>> = HashMap::new();
    let mut failure = None;
    let event_name = format!("SPRT {} vs {}", entrants[0].name, entrants[1].name);
    run_games(entrants, &schedule, config, None, |i, result| {
        let record = match result {
            Ok(r) => r,
            Err(e) => {
                failure.get_or_insert(anyhow::anyhow!("game {}: {e}", i + 1));
                config.stop.store(true, Ordering::SeqCst);
                return;
            }
        };
        if let Some(s) = store {
            let event = EventInfo { event: event_name.clone(), round: schedule[i].round, tournament: None };
            if let Err(e) = s.add_game(&record, &event) {
                failure.get_or_insert(e.into());
            }
        }
        // A game without a result counts for no one, and voids its pair.
        let points = first_points(&record, &schedule[i]);
        if let Some(p) = points {
            state.score.add(p);
        }
        state.games += 1;
        match (halves.remove(&(i / 2)), points) {
            (Some(Some(other)), Some(p)) => {
                state.pentanomial.add_pair(other, p);
                state.llr = sprt.llr_pentanomial(&state.pentanomial);
                state.verdict = sprt.verdict(state.llr);
                if state.verdict != Verdict::Continue {
                    config.stop.store(true, Ordering::SeqCst);
                }
            }
            (Some(None), _) | (Some(_), None) => {}
            (None, p) => {
                halves.insert(i / 2, p);
            }
        }
        on_game(&record, &state);
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(state),
    }
}
