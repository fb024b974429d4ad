//! SPSA tuning as a tournament (`arbiter tune`): one player seated twice,
//! entrant 0 the side that plays at `theta + c_k * flip`, entrant 1 at
//! `theta - c_k * flip`; round `k` is iteration `k`, a colour-swapped pair
//! (see [`arbiter_core::stats::spsa`]). The values each side plays are written into
//! its spec as settings (`uci:sf,option.Hash=17`, `mcts:c=0.83`), so a game
//! of a tune is set up, played, queued, verified and stored as any other.
//!
//! The state is never stored apart from the games: [`TuneState`] replays
//! the stored games in store order, each finished pair moving the estimate
//! by its own step and result. Pair `k` is played at the estimate after the
//! first `k - in_flight` pairs to finish (in store order), so that
//! `in_flight` pairs play at once and the values of every pair are a
//! function of the store: a run resumed after a kill, or a queue worker on
//! another machine planning the next pair, plays exactly the values the
//! run would have.

use std::collections::HashMap;

use serde::Serialize;

use super::error::{Result, TournamentError};
use super::games::{Entrant, ScheduledGame};
use super::view::TournamentView;
use arbiter_core::stats::spsa::{setting_text, Spsa};
use arbiter_play::players::PlayerSpec;
use arbiter_play::record::EventInfo;
use arbiter_store::SlotResult;

/// One finished pair.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct TunePoint {
    /// Its iteration (the round), from 1.
    pub k: u32,
    /// The first side's wins minus its losses, -2 to 2.
    pub result: f64,
    /// The estimate after it.
    pub theta: Vec<f64>,
}

/// A tune's state, read from its stored games.
#[derive(Clone, Debug)]
pub struct TuneState {
    spsa: Spsa,
    iterations: u32,
    seed: u64,
    /// The start values.
    pub start: Vec<f64>,
    /// Finished pairs, in the order they finished.
    pub points: Vec<TunePoint>,
    /// Unfinished pairs with a game stored: games stored, first side's score.
    partial: HashMap<u32, (u32, f64)>,
}

impl TuneState {
    /// The state of `view` before any game (`None`: not a tune).
    pub fn new(view: &TournamentView) -> Option<TuneState> {
        let cfg = &view.definition.config;
        let spsa = cfg.tune.clone()?;
        Some(TuneState {
            start: spsa.start(),
            spsa,
            iterations: cfg.rounds,
            seed: cfg.seed,
            points: Vec::new(),
            partial: HashMap::new(),
        })
    }

    /// The state after `games`, in store order.
    pub fn over(view: &TournamentView, games: &[SlotResult]) -> Option<TuneState> {
        let mut state = TuneState::new(view)?;
        for g in games {
            state.add(g);
        }
        Some(state)
    }

    /// The parameters tuned.
    pub fn spsa(&self) -> &Spsa {
        &self.spsa
    }

    /// The pairs the run plays.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Takes one stored game; the pair it finishes, if it finishes one.
    pub fn add(&mut self, game: &SlotResult) -> Option<&TunePoint> {
        let k = game.index / 2 + 1;
        let first_side = match game.winner.and_then(|w| game.seats.get(w.index())) {
            Some(0) => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
        let entry = self.partial.entry(k).or_insert((0, 0.0));
        entry.0 += 1;
        entry.1 += first_side;
        if entry.0 < 2 {
            return None;
        }
        let (_, result) = self.partial.remove(&k).expect("just counted");
        let mut theta = self.theta().to_vec();
        self.spsa.update(&mut theta, &self.spsa.step(k, self.iterations, self.seed), result);
        self.points.push(TunePoint { k, result, theta });
        self.points.last()
    }

    /// The estimate now.
    pub fn theta(&self) -> &[f64] {
        self.points.last().map_or(&self.start, |p| &p.theta)
    }

    /// The estimate pair `k` plays around, with `in_flight` pairs at once:
    /// the one after the first `k - in_flight` pairs finished (`None`: not
    /// that many have finished yet).
    pub fn played_around(&self, k: u32, in_flight: u32) -> Option<&[f64]> {
        let m = k.saturating_sub(in_flight.max(1)) as usize;
        match m {
            0 => Some(&self.start),
            _ => self.points.get(m - 1).map(|p| p.theta.as_slice()),
        }
    }

    /// The settings each side of pair `k` plays with (first side, second
    /// side), if it can be played now.
    pub fn sides(&self, k: u32, in_flight: u32) -> Option<[Vec<(String, String)>; 2]> {
        let theta = self.played_around(k, in_flight)?;
        let step = self.spsa.step(k, self.iterations, self.seed);
        let side = |sign: f64| {
            let values = self.spsa.values(theta, &step, sign, self.seed);
            self.spsa.params.iter().zip(values).map(|(p, v)| (p.name.clone(), setting_text(p.kind, v))).collect()
        };
        Some([side(1.0), side(-1.0)])
    }

    /// The estimate as settings, `name=value` joined by commas.
    pub fn describe(&self, theta: &[f64]) -> String {
        let texts: Vec<String> = self
            .spsa
            .params
            .iter()
            .zip(theta)
            .map(|(p, v)| format!("{}={}", p.name, setting_text(p.kind, *v)))
            .collect();
        texts.join(", ")
    }
}

/// The games of a tournament to play (or queue) now, with the entrants
/// their seats index: the tournament's own, or for a tune each pair's two
/// sides at their values.
pub struct Batch {
    /// Who plays, indexed by the games' seats.
    pub entrants: Vec<Entrant>,
    /// The games, with the events their records carry (the events' seats
    /// index the tournament's entrants).
    pub games: Vec<(ScheduledGame, EventInfo)>,
    /// The tune's state when the batch was planned.
    pub tune: Option<TuneState>,
    /// Whether every game of the tournament is stored.
    pub all_stored: bool,
}

/// A tune's pairs that can be played now, at most `in_flight` of them:
/// each of `pending` (the tune's games not stored, in schedule order) of a
/// playable pair, seated with that pair's sides made from `entrants` (the
/// tune's two); `results` are its stored games, in store order.
pub fn batch(
    view: &TournamentView,
    entrants: &[Entrant],
    pending: Vec<(ScheduledGame, EventInfo)>,
    results: &[SlotResult],
) -> Result<Batch> {
    let in_flight = view.definition.config.tune.as_ref().map_or(1, |t| t.in_flight);
    let state = TuneState::over(view, results)
        .ok_or_else(|| TournamentError::Refused(format!("tournament {} is not a tune", view.id)))?;
    let tune_entrants = entrants;
    let mut entrants = Vec::new();
    let mut games = Vec::new();
    let mut sides_of: HashMap<u32, usize> = HashMap::new();
    let all_stored = pending.is_empty();
    for (mut game, event) in pending {
        let Some(slot) = event.tournament.as_ref() else { continue };
        let k = slot.index / 2 + 1;
        let first = match sides_of.get(&k) {
            Some(&first) => first,
            None => {
                if sides_of.len() as u32 >= in_flight {
                    break;
                }
                let Some(sides) = state.sides(k, in_flight) else { break };
                let first = entrants.len();
                for (e, settings) in tune_entrants.iter().zip(sides) {
                    let text = e.spec.with_settings(&settings);
                    let spec = PlayerSpec::parse(&text)?;
                    entrants.push(Entrant { name: e.name.clone(), spec, spec_text: text, tc: e.tc.clone() });
                }
                sides_of.insert(k, first);
                first
            }
        };
        game.seats = game.seats.iter().map(|&e| first + e).collect();
        games.push((game, event));
    }
    Ok(Batch { entrants, games, tune: Some(state), all_stored })
}

/// Checks, before a tune is stored, that its player takes the settings:
/// the spec at the start values parses, and a UCI engine declares the
/// options with types that take them.
pub fn check_player(spsa: &Spsa, entrant: &Entrant) -> Result<()> {
    let start: Vec<(String, String)> =
        spsa.params.iter().map(|p| (p.name.clone(), setting_text(p.kind, p.start))).collect();
    let text = entrant.spec.with_settings(&start);
    let spec = PlayerSpec::parse(&text)?;
    spec.check_options(&text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use arbiter_core::model::Seat;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use arbiter_fixture::Fault;

    use super::{TunePoint, TuneState};
    use crate::config::TournamentConfig;
    use crate::driver::{Progress, RunEnd, Tournament};
    use crate::testing::definition;
    use crate::view::{StoredDefinition, TournamentView};
    use crate::Isolation;
    use arbiter_core::model::GameRecord;
    use arbiter_core::plugin::Registry;
    use arbiter_play::record::EventInfo;
    use arbiter_store::{SlotResult, StoreError};
    use arbiter_testing::{played, race, temp_store};

    fn view(in_flight: u32) -> TournamentView {
        let text = format!(
            "variants = [\"race\"]\nrounds = 50\n[[players]]\nname = \"m+\"\nspec = \"mcts\"\n\
             [[players]]\nname = \"m-\"\nspec = \"mcts\"\n[tune]\nin_flight = {in_flight}\n\
             params = [{{ name = \"c\", type = \"float\", start = 1.0, min = 0.0, max = 4.0, c_end = 0.2, r_end = 0.05 }},\
             {{ name = \"iterations\", type = \"int\", start = 40, min = 10, max = 90, c_end = 4, r_end = 0.01 }}]\n"
        );
        let config = TournamentConfig::from_toml("t.toml", &text).unwrap();
        let definition = StoredDefinition {
            config,
            variants: vec!["race".into()],
            openings: Default::default(),
            plugins: Default::default(),
            engines: Default::default(),
        };
        TournamentView { id: 1, definition }
    }

    /// Game `index` won by entrant `winner` (or drawn), seated as the schedule seats it.
    fn game(index: u32, winner: Option<usize>) -> SlotResult {
        let seats = if index.is_multiple_of(2) { vec![0, 1] } else { vec![1, 0] };
        SlotResult {
            index,
            pair: Some(index - index % 2),
            winner: winner.map(|w| Seat::at(seats.iter().position(|&s| s == w).unwrap())),
            seats,
            variant: "race".into(),
            result: String::new(),
        }
    }

    #[test]
    fn a_pair_moves_the_estimate_once_both_its_games_are_stored_in_store_order() {
        let v = view(1);
        let mut state = TuneState::new(&v).unwrap();
        assert_eq!(state.theta(), [1.0, 40.0]);
        assert!(state.add(&game(0, Some(0))).is_none(), "half a pair moves nothing");
        let point = state.add(&game(1, Some(0))).unwrap().clone();
        assert_eq!((point.k, point.result), (1, 2.0));
        let step = state.spsa().step(1, 50, 1);
        let plus = state.sides(1, 1).unwrap()[0].clone();
        assert_eq!(plus[0].0, "c");
        let played: f64 = plus[0].1.parse().unwrap();
        assert_eq!((point.theta[0] - 1.0).signum(), (played - 1.0).signum(), "towards the winner's value");
        assert!((point.theta[0] - (1.0 + step.r[0] * step.c[0] * 2.0 * step.flip[0])).abs() < 1e-12);
        // Pairs finishing out of order: the update of each is its own.
        let mut a = TuneState::new(&v).unwrap();
        for g in [game(2, Some(1)), game(0, None), game(3, Some(1)), game(1, Some(0))] {
            a.add(&g);
        }
        assert_eq!(a.points.iter().map(|p| (p.k, p.result)).collect::<Vec<_>>(), [(2, -2.0), (1, 1.0)]);
        let again =
            TuneState::over(&v, &[game(2, Some(1)), game(0, None), game(3, Some(1)), game(1, Some(0))]).unwrap();
        assert_eq!(again.points, a.points, "the state is a function of the stored games");
    }

    #[test]
    fn pair_k_plays_around_the_estimate_after_the_first_k_minus_in_flight_pairs_to_finish() {
        let v = view(3);
        let mut state = TuneState::new(&v).unwrap();
        for k in 1..=3 {
            assert_eq!(state.played_around(k, 3), Some(&[1.0, 40.0][..]), "the first in_flight pairs: the start");
        }
        assert!(state.played_around(4, 3).is_none(), "pair 4 waits for one pair to finish");
        state.add(&game(4, Some(0)));
        state.add(&game(5, Some(0)));
        let after_one = state.theta().to_vec();
        assert_eq!(state.played_around(4, 3), Some(after_one.as_slice()), "whichever pair finished first");
        let sides = state.sides(4, 3).unwrap();
        assert_eq!(sides, state.sides(4, 3).unwrap(), "the same values whenever planned");
        let iterations: Vec<i64> = sides.iter().map(|s| s[1].1.parse().unwrap()).collect();
        assert!(iterations.iter().all(|i| (10..=90).contains(i)), "{iterations:?}");
        assert_eq!(state.describe(&[1.25, 40.4]), "c=1.25, iterations=40");
    }

    /// A tune of seeded MCTS players on the fixture's race, stored.
    fn stored_tune(store: &arbiter_store::Store, iterations: u32, in_flight: u32) -> Tournament {
        // arbiter-testing's, read back from the store by this test build.
        let id = arbiter_testing::stored_tune(store, iterations, in_flight).view.id;
        let registry = Registry::of([race(Fault::None)]);
        Tournament::planned(&registry, TournamentView::load(store, Some(id)).unwrap()).unwrap()
    }

    /// Hears of each pair, and stops the run after `stop_after` pairs.
    #[derive(Default)]
    struct Pairs {
        points: Vec<TunePoint>,
        stop_after: Option<usize>,
        stop: Arc<AtomicBool>,
    }

    impl Progress for Pairs {
        fn game_done(&mut self, _: &Tournament, _: &GameRecord, _: &EventInfo, _: usize, _: usize) {}
        fn game_not_stored(&mut self, _: &GameRecord, _: &EventInfo, error: &StoreError) {
            panic!("not stored: {error}");
        }
        fn pair_done(&mut self, _: &TuneState, point: &TunePoint) {
            self.points.push(point.clone());
            if self.stop_after == Some(self.points.len()) {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }

    #[test]
    fn a_tune_runs_pair_by_pair_and_one_stopped_and_resumed_ends_as_an_unbroken_one() {
        let whole = temp_store();
        let t = stored_tune(&whole, 8, 1);
        let mut heard = Pairs::default();
        assert_eq!(t.run(&whole, Isolation::InProcess, Arc::default(), &mut heard).unwrap(), RunEnd::Finished);
        assert_eq!(heard.points.len(), 8, "a pair_done a pair");
        assert_eq!(whole.games(Some(t.id)).unwrap().len(), 16);
        let state = t.tune_state(&whole).unwrap().unwrap();
        assert_eq!(state.points, heard.points, "the stored games give the state the run told of");
        let names: Vec<String> = whole.games(Some(t.id)).unwrap()[0].record.players.clone();
        assert!(names.iter().all(|n| n == "m (+)" || n == "m (-)"), "entrants' names in the records: {names:?}");

        let broken = temp_store();
        let t = stored_tune(&broken, 8, 1);
        let stop = Arc::new(AtomicBool::new(false));
        let mut first = Pairs { stop_after: Some(3), stop: stop.clone(), ..Default::default() };
        assert_eq!(t.run(&broken, Isolation::InProcess, stop, &mut first).unwrap(), RunEnd::Interrupted);
        let mut rest = Pairs::default();
        assert_eq!(t.run(&broken, Isolation::InProcess, Arc::default(), &mut rest).unwrap(), RunEnd::Finished);
        assert_eq!(t.tune_state(&broken).unwrap().unwrap().points, state.points, "seeded players: the same path");
        let moves = |s: &arbiter_store::Store| -> Vec<Vec<u64>> {
            let mut games = s.games(Some(1)).unwrap();
            games.sort_by_key(|g| g.slot.as_ref().unwrap().index);
            games.iter().map(|g| g.record.plies.iter().map(|p| p.mv).collect()).collect()
        };
        assert_eq!(moves(&broken), moves(&whole), "the same games, move for move");
    }

    #[test]
    fn the_other_game_of_a_half_stored_pair_plays_at_the_values_its_first_game_had() {
        let store = temp_store();
        let t = stored_tune(&store, 6, 2);
        let specs = |b: &super::Batch, index: u32| -> Vec<String> {
            let (game, _) = b.games.iter().find(|(_, e)| e.tournament.as_ref().unwrap().index == index).unwrap();
            game.seats.iter().map(|&e| b.entrants[e].spec_text.clone()).collect()
        };
        let before = t.batch(&store).unwrap();
        assert_eq!(before.games.len(), 4, "two pairs at once");
        let pair_two = specs(&before, 3);
        // Pair 1 stored whole, pair 2 half: pair 2's other game, then pair 3.
        for (index, seats) in [(0, vec![0, 1]), (1, vec![1, 0]), (2, vec![0, 1])] {
            let slot = arbiter_play::record::TournamentSlot { id: t.id, index, pair: Some(index - index % 2), seats };
            let event = EventInfo { event: "t".into(), round: index / 2 + 1, tournament: Some(slot) };
            store.add_game(&played(&race(Fault::None), serde_json::json!({})), &event).unwrap();
        }
        let after = t.batch(&store).unwrap();
        let indices: Vec<u32> = after.games.iter().map(|(_, e)| e.tournament.as_ref().unwrap().index).collect();
        assert_eq!(indices, [3, 4, 5]);
        assert_eq!(specs(&after, 3), pair_two, "planned again, the same values");
        assert!(!after.all_stored);
    }

    #[test]
    fn a_player_that_does_not_take_a_parameter_is_refused_before_anything_is_stored() {
        let registry = Registry::of([race(Fault::None)]);
        let head = "variants = [\"race\"]\n[tune]\nparams = [{ name = \"depth\", type = \"int\", start = 3, min = 1, \
                    max = 9, c_end = 1, r_end = 0.1 }]";
        let config = definition(head, &[("m (+)", "mcts"), ("m (-)", "mcts")], &["race"]).config;
        let e = Tournament::define(&registry, config).err().unwrap().to_string();
        assert!(e.contains("mcts takes iterations, movetime, seed, playout, c"), "{e}");
    }
}
