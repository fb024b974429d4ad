//! Two entrants, many games (`arbiter match`, `arbiter sprt`): the schedule,
//! with colours alternating and each opening played by a pair of games with
//! colours swapped, the first entrant's points in each game, and the match
//! itself with its records.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use arbiter_api::host::VariantHandle;
use arbiter_api::{Outcome, Viewer};
use serde_json::{Map, Value};

use super::games::{Entrant, RunConfig, ScheduledGame};
use super::runner::run_games;
use crate::model::GameRecord;
use crate::record::files::RecordFiles;
use crate::record::{redact, EventInfo};
use crate::stats::sprt::Pentanomial;
use crate::stats::Score;
use crate::store::{Store, StoreError};

/// Who moves first in a match's games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Colours {
    /// No colour-swapped pairs: every game with the same entrant first,
    /// each on the next opening.
    pub noswap: bool,
    /// Entrant 1 first (in each pair's first game, or with `noswap` in every game).
    pub reverse: bool,
}

/// `games` games between entrants 0 and 1 of `variant`: entrant 0 moves
/// first in even games (entrant 1 with `reverse`; the same one in every
/// game with `noswap`); game `i` starts from opening `i / 2` (`i` with
/// `noswap`), wrapping, if any are given, else from `start` or the
/// variant's start.
pub fn paired_schedule(
    variant: &VariantHandle,
    options: &Map<String, Value>,
    start: Option<&str>,
    openings: &[String],
    games: u32,
    seed: u64,
    colours: Colours,
) -> Vec<ScheduledGame> {
    let first = if colours.reverse { vec![1, 0] } else { vec![0, 1] };
    let per_opening = if colours.noswap { 1 } else { 2 };
    (0..games)
        .map(|i| ScheduledGame {
            round: i + 1,
            variant: variant.clone(),
            options: options.clone(),
            seats: if i % 2 == 0 || colours.noswap { first.clone() } else { vec![first[1], first[0]] },
            position: match openings {
                [] => start.map(str::to_string),
                _ => Some(openings[(i as usize / per_opening) % openings.len()].clone()),
            },
            seed: crate::model::seeds::game_seed(seed, i as u64),
        })
        .collect()
}

/// Entrant 0's points (1, ½ or 0) in `record`, a game of `game`; `None` for
/// a game without a result (its plugin's fault), which counts for no one.
pub fn first_points(record: &GameRecord, game: &ScheduledGame) -> Option<f64> {
    let first_seat = game.seats.iter().position(|&e| e == 0).unwrap_or(0) as u32;
    match record.result.outcome {
        Outcome::Win(p) if p == first_seat => Some(1.0),
        Outcome::Win(_) => Some(0.0),
        Outcome::Draw => Some(0.5),
        Outcome::Ongoing | Outcome::Faulted => None,
    }
}

/// Where a match's games go as they finish: the store (if any) and the
/// record files, written as `export_as` saw the games (all of it if `None`).
pub struct Recording<'a> {
    /// The store, committed to first.
    pub store: Option<&'a Store>,
    /// The record files.
    pub files: &'a mut RecordFiles,
    /// The player whose view the files get, for hidden-information games.
    pub export_as: Option<Viewer>,
}

/// What happened to one game of a match, for the caller to show.
pub enum MatchEvent<'a> {
    /// The game (index in the schedule) could not be set up.
    NotStarted {
        /// Its index.
        game: usize,
        /// Why.
        error: String,
    },
    /// The game finished and was recorded.
    Finished {
        /// Its index.
        game: usize,
        /// The game.
        record: &'a GameRecord,
        /// Entrant 0's score so far.
        score: &'a Score,
        /// Entrant 0's complete colour-swapped pairs so far.
        pairs: &'a Pentanomial,
        /// Games finished so far.
        done: usize,
        /// Records it could not be written to, one line each (`not stored: ...`).
        problems: &'a [String],
    },
}

/// How a match ended.
pub struct MatchEnd {
    /// Entrant 0's score.
    pub score: Score,
    /// Entrant 0's complete colour-swapped pairs (games `2k` and `2k + 1`
    /// of the schedule with seats swapped); a voided game voids its pair.
    pub pairs: Pentanomial,
    /// The store's first failure: no game started after it.
    pub store_failure: Option<StoreError>,
    /// Every other failure (a game not started, a record file not written).
    pub failures: Vec<String>,
}

/// Plays `schedule` between `entrants`, recording every game the moment it
/// ends, each record on its own (one that fails does not keep the game from
/// the others); a store that fails stops new games, since it will fail again.
pub fn run_match(
    entrants: &[Entrant],
    schedule: &[ScheduledGame],
    config: &RunConfig,
    event_name: &str,
    recording: Recording<'_>,
    mut on_event: impl FnMut(MatchEvent<'_>),
) -> MatchEnd {
    let mut end =
        MatchEnd { score: Score::default(), pairs: Pentanomial::default(), store_failure: None, failures: Vec::new() };
    let mut done = 0;
    // The first finished game of each pair, by the pair's first index.
    let mut halves: HashMap<usize, Option<f64>> = HashMap::new();
    let paired = |i: usize| {
        let other = schedule.get(i ^ 1)?;
        (other.seats.len() == 2 && other.seats[0] == schedule[i].seats[1]).then_some(i & !1)
    };
    run_games(entrants, schedule, config, None, |i, result| {
        done += 1;
        let event = EventInfo { event: event_name.to_string(), round: schedule[i].round, tournament: None };
        let record = match result {
            Ok(r) => r,
            Err(e) => {
                end.failures.push(e.to_string());
                on_event(MatchEvent::NotStarted { game: i, error: e.to_string() });
                return;
            }
        };
        let mut problems = Vec::new();
        if let Some(s) = recording.store {
            if let Err(e) = s.add_game(&record, &event) {
                config.stop.store(true, Ordering::SeqCst);
                if end.store_failure.is_none() {
                    problems.push(format!("not stored: {e}"));
                    end.store_failure = Some(e);
                }
            }
        }
        let export = match recording.export_as {
            Some(viewer) => redact::record_as_seen_by(&schedule[i].variant, &record, viewer),
            None => Ok(record.clone()),
        };
        let unwritten = match export {
            Ok(r) => recording.files.append(&r, &event),
            Err(e) if !recording.files.is_empty() => vec![format!("{}: {e}", recording.files.describe().join(", "))],
            Err(_) => Vec::new(),
        };
        for e in unwritten {
            problems.push(format!("not written to the {e}"));
            end.failures.push(e);
        }
        // A game the plugin voided is no one's result.
        let points = first_points(&record, &schedule[i]);
        if let Some(p) = points {
            end.score.add(p);
        }
        if let Some(pair) = paired(i) {
            match halves.remove(&pair) {
                Some(other) => {
                    if let (Some(a), Some(b)) = (other, points) {
                        end.pairs.add_pair(a, b);
                    }
                }
                None => {
                    halves.insert(pair, points);
                }
            }
        }
        on_event(MatchEvent::Finished {
            game: i,
            record: &record,
            score: &end.score,
            pairs: &end.pairs,
            done,
            problems: &problems,
        });
    });
    end
}

#[cfg(test)]
mod tests {
    use arbiter_api::Outcome;

    use super::{first_points, paired_schedule, Colours};
    use crate::referee::fixtures::record;
    use crate::testing::race;

    #[test]
    fn a_match_pairs_games_on_one_opening_with_colours_swapped_unless_told_otherwise() {
        let v = race(arbiter_fixture::Fault::None);
        let openings = ["o1".to_string(), "o2".to_string()];
        let seats = |c: Colours| -> Vec<(Vec<usize>, Option<String>)> {
            paired_schedule(&v, &Default::default(), None, &openings, 5, 9, c)
                .into_iter()
                .map(|g| (g.seats, g.position))
                .collect()
        };
        let o = |s: &str| Some(s.to_string());
        assert_eq!(
            seats(Colours::default()),
            [
                (vec![0, 1], o("o1")),
                (vec![1, 0], o("o1")),
                (vec![0, 1], o("o2")),
                (vec![1, 0], o("o2")),
                (vec![0, 1], o("o1"))
            ]
        );
        let reversed = seats(Colours { reverse: true, noswap: false });
        assert_eq!(reversed[0].0, [1, 0]);
        let noswap = seats(Colours { noswap: true, reverse: false });
        assert!(noswap.iter().all(|(s, _)| s == &[0, 1]));
        assert_eq!(noswap.iter().map(|(_, p)| p.clone().unwrap()).collect::<Vec<_>>(), ["o1", "o2", "o1", "o2", "o1"]);
        let games = paired_schedule(&v, &Default::default(), Some("start"), &[], 3, 9, Colours::default());
        assert!(games.iter().all(|g| g.position.as_deref() == Some("start")));
        let seeds: std::collections::HashSet<u64> = games.iter().map(|g| g.seed).collect();
        assert_eq!(seeds.len(), 3, "each game its own seed");
    }

    #[test]
    fn the_first_entrant_s_points_follow_it_to_either_seat() {
        let v = race(arbiter_fixture::Fault::None);
        let games = paired_schedule(&v, &Default::default(), None, &[], 2, 1, Colours::default());
        let mut r = record(&[0, 1]);
        r.result.outcome = Outcome::Win(0);
        assert_eq!((first_points(&r, &games[0]), first_points(&r, &games[1])), (Some(1.0), Some(0.0)));
        r.result.outcome = Outcome::Draw;
        assert_eq!(first_points(&r, &games[1]), Some(0.5));
        r.result.outcome = Outcome::Faulted;
        assert_eq!(first_points(&r, &games[0]), None, "a plugin's fault counts for no one");
    }
}
