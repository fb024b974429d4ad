//! An SPRT match: two players play paired games (one opening, colours
//! swapped) until the normalized-Elo GSPRT on the pentanomial counts accepts
//! H0 or H1, or a game limit is reached. Every game is committed to the store.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use arbiter_api::host::VariantHandle;
use serde_json::{Map, Value};

use super::games::{Entrant, RunConfig, ScheduledGame};
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
    let schedule: Vec<ScheduledGame> = (0..max_games - max_games % 2)
        .map(|i| ScheduledGame {
            round: i / 2 + 1,
            variant: variant.clone(),
            options: options.clone(),
            seats: if i % 2 == 0 { vec![0, 1] } else { vec![1, 0] },
            position: (!openings.is_empty()).then(|| openings[(i as usize / 2) % openings.len()].clone()),
            seed: seed.wrapping_mul(1_000_003).wrapping_add(i as u64),
        })
        .collect();
    let mut state = SprtState {
        games: 0,
        score: Score::default(),
        pentanomial: Pentanomial::default(),
        llr: 0.0,
        verdict: Verdict::Continue,
    };
    let mut halves: HashMap<usize, f64> = HashMap::new();
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
        // Points of the first player in this game.
        let first_seat = schedule[i].seats.iter().position(|&e| e == 0).unwrap_or(0) as u32;
        let points = match record.result.outcome {
            arbiter_api::Outcome::Win(p) if p == first_seat => 1.0,
            arbiter_api::Outcome::Win(_) => 0.0,
            _ => 0.5,
        };
        if points == 1.0 {
            state.score.wins += 1;
        } else if points == 0.0 {
            state.score.losses += 1;
        } else {
            state.score.draws += 1;
        }
        state.games += 1;
        if let Some(other) = halves.remove(&(i / 2)) {
            state.pentanomial.add_pair(other, points);
            state.llr = sprt.llr_pentanomial(&state.pentanomial);
            state.verdict = sprt.verdict(state.llr);
            if state.verdict != Verdict::Continue {
                config.stop.store(true, Ordering::SeqCst);
            }
        } else {
            halves.insert(i / 2, points);
        }
        on_game(&record, &state);
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(state),
    }
}
