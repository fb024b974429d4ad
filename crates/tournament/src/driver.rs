//! Running a tournament against the store: creating it (the definition is
//! stored before any game), resuming it after a kill (finished games are
//! read back and never replayed), playing the schedule round by round, and
//! committing each game the moment it ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arbiter_api::host::VariantHandle;

use super::config::{OpeningOrder, TournamentConfig};
use super::error::{Result, TournamentError};
use super::games::{Entrant, Isolation, RunConfig, ScheduledGame};
use super::lease::{PreviousRun, RunLease};
use super::runner::{run_games, RunnerPool};
use super::sprt_match::SprtRule;
use super::tune::{Batch, TunePoint, TuneState};
use super::view::{StoredDefinition, TournamentView};
use arbiter_core::clock::TimeControl;
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_play::players::PlayerSpec;
use arbiter_play::record::{EventInfo, TournamentSlot};
use arbiter_store::{SlotResult, StopRule, Store, StoreError};

/// A tournament ready to run: its view, with the players and variants that
/// play it.
pub struct Tournament {
    /// What the store holds of it (reachable through `Deref` too).
    pub view: TournamentView,
    /// Participants, in seeding order.
    pub entrants: Vec<Entrant>,
    /// The variants, in definition order.
    pub variants: Vec<VariantHandle>,
    /// Its stopping rule, if it has one (an SPRT), counting as games are stored.
    rule: Option<SprtRule>,
}

impl std::ops::Deref for Tournament {
    type Target = TournamentView;
    fn deref(&self) -> &TournamentView {
        &self.view
    }
}

/// What running ended with.
#[derive(Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every game of the schedule is in the store.
    Finished,
    /// Stopped on request; `--resume` continues.
    Interrupted,
    /// A plugin hung in this process (`--in-process`): that game is stored
    /// as "plugin hung", the others in progress finished, and the run
    /// stopped (the stuck thread ends with the process); `--resume` in
    /// worker processes continues.
    PluginHungInProcess {
        /// The hung game's index in the schedule.
        index: u32,
    },
}

/// Reports progress while a tournament runs.
pub trait Progress {
    /// A game was committed; `done` of about `total` games are in the store.
    fn game_done(&mut self, tournament: &Tournament, record: &GameRecord, event: &EventInfo, done: usize, total: usize);
    /// A game finished but the store could not take it: no new game starts
    /// (those in flight finish, and come here too if they cannot be stored),
    /// and the run ends with `error`; the game is handed over all the same,
    /// for the other records (no finished game is lost).
    fn game_not_stored(&mut self, record: &GameRecord, event: &EventInfo, error: &StoreError);
    /// A tune's pair finished (both its games stored): the estimate moved.
    fn pair_done(&mut self, _state: &TuneState, _point: &TunePoint) {}
}

/// A sandboxed engine's spec with its virtual clock's rate written in
/// (`,ips=N`, the build's default unless it names one), so that the rate
/// is part of the stored definition every worker and verifier reads, not
/// of the arbiter that runs it; any other spec as it is.
fn pin_virtual_clock(spec: &str) -> String {
    match PlayerSpec::parse(spec).ok().as_ref().and_then(PlayerSpec::settings) {
        Some(s) if s.is_sandboxed() && s.ips.is_none() => {
            format!("{spec},ips={}", arbiter_core::sandbox::DEFAULT_IPS)
        }
        _ => spec.to_string(),
    }
}

/// The definition's entrants, their specs parsed once (their engine
/// programs are not looked for: see [`check_programs`]).
fn entrants(cfg: &TournamentConfig) -> Result<Vec<Entrant>> {
    cfg.players
        .iter()
        .map(|p| {
            // Without a time control, each variant's own (as play, match and sprt do).
            let tc = p.tc.clone().or(cfg.tc.clone()).map(|t| TimeControl::parse(&t)).transpose()?;
            let spec = PlayerSpec::parse(&p.spec)?;
            Ok(Entrant { name: p.name.clone(), spec, spec_text: p.spec.clone(), tc })
        })
        .collect()
}

/// Finds every entrant's engine program, so that a typo fails before the
/// first game rather than forfeiting every game.
fn check_programs(entrants: &[Entrant]) -> Result<()> {
    for e in entrants {
        e.spec.check_available(&e.spec_text)?;
    }
    Ok(())
}

/// The positions `variant`'s games start from, in order: its opening
/// file's, or its one start position, each checked by the plugin; none for
/// the variant's own start.
fn load_openings(variant: &VariantHandle, cfg: &TournamentConfig) -> Result<Vec<String>> {
    let id = &variant.info().id;
    let options = cfg.options.get(id).cloned().unwrap_or_default();
    if let Some(position) = cfg.start.get(id) {
        variant
            .from_position(position, &options)
            .map_err(|e| TournamentError::Refused(format!("the start position for {id}: {e}")))?;
        return Ok(vec![position.clone()]);
    }
    let Some(oc) = cfg.openings.get(id) else { return Ok(Vec::new()) };
    let choice = super::openings::Choice {
        shuffle_seed: (oc.order == OpeningOrder::Random).then_some(cfg.seed),
        plies: oc.plies,
        start: oc.start,
        // No run plays more games a variant than this, each from at most
        // one new opening: the rest of a large book is never read.
        most: usize::try_from(cfg.most_games_per_variant()).ok().filter(|&m| m > 0),
    };
    Ok(super::openings::load(variant, std::path::Path::new(&oc.file), &options, choice)?)
}

impl Tournament {
    /// Validates `config` against the installed variants and the engines
    /// found here: the definition to store. Needs no store, so a refused
    /// tournament leaves no store file behind.
    pub fn define(registry: &Registry, mut config: TournamentConfig) -> Result<StoredDefinition> {
        config.validate()?;
        for p in &mut config.players {
            p.spec = pin_virtual_clock(&p.spec);
        }
        let ids: Vec<String> = if config.variants.iter().any(|v| v == "all") {
            registry.variants().map(|v| v.info().id.clone()).collect()
        } else {
            config.variants.clone()
        };
        if ids.is_empty() {
            return Err(TournamentError::Refused(
                "no variants installed (build the plugins or pass --plugin-dir)".into(),
            ));
        }
        let mut openings = HashMap::new();
        let tablebases = config.adjudication()?.tablebases;
        for id in &ids {
            let v = registry.get(id)?;
            // Refuse bad options, and tables the plugin cannot read, before any game starts.
            let options = config.options.get(id).cloned().unwrap_or_default();
            v.new_game(&options)?;
            if let Some(tb) = &tablebases {
                tb.check_with(v, &options)?;
            }
            openings.insert(id.clone(), load_openings(v, &config)?);
        }
        for id in config.openings.keys().chain(config.options.keys()).chain(config.start.keys()) {
            if !ids.contains(id) {
                return Err(TournamentError::Refused(format!(
                    "openings, options or a start given for variant '{id}', which the tournament does not play"
                )));
            }
        }
        let entrants = entrants(&config)?;
        check_programs(&entrants)?;
        for e in &entrants {
            match &config.tune {
                Some(spsa) => super::tune::check_player(spsa, e)?,
                None => e.spec.check_options(&e.spec_text)?,
            }
            for id in &ids {
                e.spec.can_play(&e.spec_text, registry.get(id)?.info())?;
            }
        }
        let mut plugins = std::collections::BTreeMap::new();
        for id in &ids {
            let v = registry.get(id)?;
            plugins.insert(id.clone(), super::pins::PluginPin::of_variant(v)?);
        }
        let engines = super::pins::engine_pins(&entrants)?;
        Ok(StoredDefinition { config, variants: ids, openings, plugins, engines })
    }

    /// Stores a tournament [`define`](Self::define)d here (and its sandboxed
    /// plugins' files) and returns it ready to run.
    pub fn create(registry: &Registry, store: &Store, definition: StoredDefinition) -> Result<Tournament> {
        let handles = definition.variants.iter().map(|id| registry.get(id).cloned()).collect::<Result<Vec<_>, _>>()?;
        super::pins::keep_sandboxed(store, &handles, &definition.plugins)?;
        let id = store.add_tournament(
            &definition.config.name,
            &serde_json::to_string(&definition).expect("a definition serializes"),
        )?;
        Self::planned(registry, TournamentView { id, definition })
    }

    /// Loads tournament `id` (the latest if `None`) from the store, ready
    /// to run here: its variants loaded and its engines found.
    pub fn resume(registry: &Registry, store: &Store, id: Option<i64>) -> Result<Tournament> {
        let tournament = Self::planned(registry, TournamentView::load(store, id)?)?;
        check_programs(&tournament.entrants)?;
        Ok(tournament)
    }

    /// A stored tournament with its variants loaded and its entrants' specs
    /// parsed, enough to plan, queue and store its games; no engine program
    /// is looked for (a queue worker plays some games, maybe none).
    pub fn planned(registry: &Registry, view: TournamentView) -> Result<Tournament> {
        let variants =
            view.definition.variants.iter().map(|v| registry.get(v).cloned()).collect::<Result<Vec<_>, _>>()?;
        let entrants = entrants(&view.definition.config)?;
        let rule = view.definition.config.sprt.map(SprtRule::new);
        Ok(Tournament { view, entrants, variants, rule })
    }

    /// The settings its games are run with.
    pub fn run_config(&self, stop: Arc<AtomicBool>, isolation: Isolation) -> RunConfig {
        let cfg = &self.definition.config;
        // A person at this terminal plays one game at a time, in this process.
        let human = self.entrants.iter().any(|e| e.spec.is_person());
        RunConfig {
            concurrency: if human { 1 } else { cfg.concurrency },
            margin_ms: cfg.margin_ms,
            max_plies: cfg.max_plies,
            claim_draws: cfg.claim_draws,
            // Validated when the definition was stored or read.
            adjudication: cfg.adjudication().unwrap_or_default(),
            watchdog: std::time::Duration::from_secs(cfg.watchdog_secs),
            isolation: if human { Isolation::InProcess } else { isolation },
            stop,
            affinity: cfg.affinity,
        }
    }

    /// The games that can be played now and are not in the store (the
    /// whole schedule for round-robin and gauntlet, the current round for
    /// systems that wait for results), each with the event its record
    /// carries; empty when every game is stored.
    pub fn pending(&self, store: &Store) -> Result<Vec<(ScheduledGame, EventInfo)>> {
        let cfg = &self.definition.config;
        if self.sprt_tally(store)?.is_some_and(|t| t.decided()) {
            return Ok(Vec::new());
        }
        let (rounds, stored) = self.rounds(store)?;
        let pending: Vec<&super::schedule::Planned> =
            rounds.iter().flat_map(|r| &r.games).filter(|g| !stored.contains_key(&g.index)).collect();
        let Some(first) = pending.first() else { return Ok(Vec::new()) };
        let round = first.round;
        let dynamic = cfg.format.pairing(cfg.players.len(), cfg.rounds).waits_for_results();
        Ok(pending.into_iter().filter(|g| !dynamic || g.round == round).map(|g| self.scheduled(g)).collect())
    }

    /// A planned game as the runner plays it, and the event its record carries.
    fn scheduled(&self, g: &super::schedule::Planned) -> (ScheduledGame, EventInfo) {
        let cfg = &self.definition.config;
        let variant = &self.variants[g.variant];
        let id = &variant.info().id;
        let game = ScheduledGame {
            round: g.round,
            variant: variant.clone(),
            options: cfg.options.get(id).cloned().unwrap_or_default(),
            seats: g.seats.to_vec(),
            position: g.opening.and_then(|o| self.definition.openings.get(id).and_then(|list| list.get(o)).cloned()),
            seed: g.seed,
        };
        let event = EventInfo {
            event: cfg.name.clone(),
            round: g.round,
            tournament: Some(TournamentSlot { id: self.id, index: g.index, pair: g.pair, seats: g.seats.to_vec() }),
        };
        (game, event)
    }

    /// The setup game `index` of the schedule is played from (`None` past
    /// the schedule, and for a tune, whose players change between pairs).
    pub fn setup_of(&self, store: &Store, index: u32) -> Result<Option<arbiter_play::referee::GameSetup>> {
        if self.definition.config.tune.is_some() {
            return Ok(None);
        }
        let (rounds, _) = self.rounds(store)?;
        let Some(planned) = rounds.iter().flat_map(|r| &r.games).find(|g| g.index == index) else { return Ok(None) };
        let (game, _) = self.scheduled(planned);
        let config = self.run_config(Arc::new(AtomicBool::new(false)), Isolation::InProcess);
        Ok(Some(super::worker::setup_of(&self.entrants, &game, &config)))
    }

    /// What to play (or queue) now: the pending games with the entrants
    /// their seats index (a tune's pairs at their values, as many as play
    /// at once), and whether every game is stored.
    pub fn batch(&self, store: &Store) -> Result<Batch> {
        if self.definition.config.tune.is_some() {
            let results = store.tournament_results(self.id)?;
            return super::tune::batch(&self.view, &self.entrants, self.pending(store)?, &results);
        }
        let games = self.pending(store)?;
        Ok(Batch { all_stored: games.is_empty(), entrants: self.entrants.clone(), games, tune: None })
    }

    /// The rule that ends the tournament before its schedule does, checked
    /// as each game is stored: an SPRT's decision.
    pub fn stop_rule(&self) -> Option<&dyn StopRule> {
        self.rule.as_ref().map(|r| r as &dyn StopRule)
    }

    /// Plays every game not yet in the store, round by round, committing each
    /// the moment it ends. Stops between games when `stop` is set.
    pub fn run(
        &self,
        store: &Store,
        isolation: Isolation,
        stop: Arc<AtomicBool>,
        progress: &mut dyn Progress,
    ) -> Result<RunEnd> {
        let human = self.entrants.iter().any(|e| e.spec.is_person());
        let run_config = self.run_config(stop.clone(), isolation);
        let in_process = matches!(run_config.isolation, Isolation::InProcess);
        let (lease, previous) = RunLease::take(store, self.id, in_process)?;
        if previous == (PreviousRun::Died { in_process: true }) && in_process && !human {
            return Err(TournamentError::Refused(format!(
                "the last run of tournament {} died in its own process (a plugin that aborts takes it down, as \
                 can a kill): resume without --in-process, so that a crash costs one game",
                self.id
            )));
        }
        // Games in progress of an earlier, killed run are gone.
        store.clear_live(self.id)?;
        // The lease is renewed until the rounds end; ending them wakes the
        // renewer at once (a polling one held every run up to its period).
        let (done, ended) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let lease = &lease;
            scope.spawn(move || {
                let every = std::time::Duration::from_secs(super::lease::RENEW_EVERY_SECS);
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = ended.recv_timeout(every) {
                    lease.renew();
                }
            });
            let end = self.play_rounds(store, &run_config, &RunnerPool::default(), &stop, progress);
            drop(done);
            end
        })
    }

    /// Plays round after round until the schedule is done, stopped or broken.
    fn play_rounds(
        &self,
        store: &Store,
        run_config: &RunConfig,
        runners: &RunnerPool,
        stop: &AtomicBool,
        progress: &mut dyn Progress,
    ) -> Result<RunEnd> {
        loop {
            let total = self.expected_games();
            let Batch { entrants, games, mut tune, all_stored } = self.batch(store)?;
            if all_stored {
                store.finish_tournament(self.id)?;
                return Ok(RunEnd::Finished);
            }
            if games.is_empty() {
                return Err(TournamentError::Refused(format!(
                    "tournament {}: no game can be played until games queued for workers are stored",
                    self.id
                )));
            }
            let (schedule, events): (Vec<ScheduledGame>, Vec<EventInfo>) = games.into_iter().unzip();
            let slot = |i: usize| events[i].tournament.as_ref().expect("tournament games have slots");
            let mut done = store.tournament_results(self.id)?.len();
            let mut failure = None;
            let rule = self.stop_rule();
            let mut decided = false;
            // Spectators of the store (`arbiter serve`) watch games in
            // progress; a store in memory has none.
            let live = |i: usize, frame: &arbiter_core::model::SeenFrame| {
                let (s, game) = (slot(i), &schedule[i]);
                let names: Vec<String> = s.seats.iter().map(|&e| self.entrants[e].name.clone()).collect();
                if let Err(e) = store.set_live(self.id, s.index, &game.variant.info().id, &names, frame) {
                    tracing::warn!("live view of game {}: {e}", s.index);
                }
            };
            let watched = (!store.is_in_memory()).then_some(&live as super::games::LiveSink<'_>);
            let report = run_games(&entrants, &schedule, run_config, runners, watched, |i, result| {
                let record = match result {
                    Ok(r) => r,
                    Err(e) => {
                        failure.get_or_insert(TournamentError::Game {
                            tournament: self.id,
                            number: slot(i).index + 1,
                            error: Box::new(e.into()),
                        });
                        return;
                    }
                };
                match store.add_game_until(&record, &events[i], rule) {
                    Ok(stored) => {
                        if stored.stopped {
                            // The games in progress finish and are stored.
                            decided = true;
                            stop.store(true, Ordering::SeqCst);
                        }
                        done += 1;
                        progress.game_done(self, &record, &events[i], done, total.max(done));
                        if let (Some(state), Some(slot)) = (tune.as_mut(), SlotResult::of(&record, &events[i])) {
                            if let Some(point) = state.add(&slot).cloned() {
                                progress.pair_done(state, &point);
                            }
                        }
                    }
                    Err(e) => {
                        // It would fail again: no new game starts (one a runner
                        // already took may still finish, and is handed over too).
                        stop.store(true, Ordering::SeqCst);
                        progress.game_not_stored(&record, &events[i], &e);
                        failure.get_or_insert(e.into());
                    }
                }
            });
            let stopped = failure.is_some() || (stop.load(Ordering::SeqCst) && !decided);
            if stopped {
                // Games cut short are not in progress any more.
                store.clear_live(self.id)?;
            }
            if let Some(e) = failure {
                return Err(e);
            }
            if let Some(i) = report.hung_in_process {
                return Ok(RunEnd::PluginHungInProcess { index: slot(i).index });
            }
            if stopped {
                return Ok(RunEnd::Interrupted);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use arbiter_fixture::Fault;

    use super::{Progress, RunEnd, Tournament};
    use crate::config::TournamentConfig;
    use crate::view::{StoredDefinition, TournamentView};
    use crate::Isolation;
    use arbiter_core::model::GameRecord;
    use arbiter_core::plugin::Registry;
    use arbiter_play::record::EventInfo;
    use arbiter_store::{Store, StoreError};
    use arbiter_testing::race;

    /// Keeps what it is told, and sets `stop` after `stop_after` games.
    #[derive(Default)]
    struct Kept {
        games: Vec<(u32, String)>,
        stop_after: Option<usize>,
        stop: Arc<AtomicBool>,
    }

    #[test]
    fn a_sandboxed_engine_s_clock_rate_is_written_into_the_stored_spec() {
        let rate = arbiter_core::sandbox::DEFAULT_IPS;
        assert_eq!(super::pin_virtual_clock("uci:e.wasm"), format!("uci:e.wasm,ips={rate}"));
        assert_eq!(super::pin_virtual_clock("xboard:e.wasm,memory=64"), format!("xboard:e.wasm,memory=64,ips={rate}"));
        for unchanged in ["uci:e.wasm,ips=5", "uci:stockfish", "random", "mcts:iterations=9"] {
            assert_eq!(super::pin_virtual_clock(unchanged), unchanged);
        }
    }

    impl Progress for Kept {
        fn game_done(&mut self, _: &Tournament, record: &GameRecord, event: &EventInfo, done: usize, _: usize) {
            let index = event.tournament.as_ref().unwrap().index;
            self.games.push((index, record.players.join(" vs ")));
            if self.stop_after == Some(done) {
                self.stop.store(true, Ordering::SeqCst);
            }
        }

        fn game_not_stored(&mut self, _: &GameRecord, _: &EventInfo, error: &StoreError) {
            panic!("not stored: {error}");
        }
    }

    fn two_players(extra: &str) -> TournamentConfig {
        let text = format!(
            "variants = [\"race\"]\ngames_per_pairing = 4\nin_process = true\n{extra}\n\
             [[players]]\nname = \"a\"\nspec = \"random\"\n[[players]]\nname = \"b\"\nspec = \"random:seed=2\"\n"
        );
        TournamentConfig::from_toml("t.toml", &text).unwrap()
    }

    /// `cfg` stored as `create` stores it, its openings as given (a variant
    /// linked into the tests has no file to pin).
    fn stored(registry: &Registry, store: &Store, config: TournamentConfig, openings: Vec<String>) -> Tournament {
        let definition = StoredDefinition {
            config,
            variants: vec!["race".into()],
            openings: [("race".to_string(), openings)].into(),
            plugins: Default::default(),
            engines: Default::default(),
        };
        let id = store.add_tournament("t", &serde_json::to_string(&definition).unwrap()).unwrap();
        Tournament::planned(registry, TournamentView { id, definition }).unwrap()
    }

    #[test]
    fn a_run_stopped_after_a_game_and_resumed_plays_every_game_exactly_once() {
        let registry = Registry::of([race(Fault::None)]);
        let store = Store::in_memory().unwrap();
        let t = stored(&registry, &store, two_players(""), Vec::new());
        let stop = Arc::new(AtomicBool::new(false));
        let mut first = Kept { stop_after: Some(1), stop: stop.clone(), ..Default::default() };
        assert_eq!(t.run(&store, Isolation::InProcess, stop, &mut first).unwrap(), RunEnd::Interrupted);
        // One runner: the game in flight when the stop came may finish, no other.
        assert!((1..=2).contains(&first.games.len()), "{:?}", first.games);
        assert_eq!(first.games[0], (0, "a vs b".to_string()));
        assert_eq!(store.tournament_results(t.id).unwrap().len(), first.games.len());
        let again = Tournament::resume(&registry, &store, Some(t.id)).unwrap();
        let mut rest = Kept::default();
        let end = again.run(&store, Isolation::InProcess, Arc::default(), &mut rest).unwrap();
        assert_eq!(end, RunEnd::Finished);
        let mut played: Vec<u32> = first.games.iter().chain(&rest.games).map(|g| g.0).collect();
        played.sort();
        assert_eq!(played, [0, 1, 2, 3], "a stored game is not played again");
        let second = first.games.iter().chain(&rest.games).find(|g| g.0 == 1).unwrap();
        assert_eq!(second.1, "b vs a", "colours swapped in the pair's second game");
        assert!(store.tournament_list().unwrap()[0].0.finished_at.is_some());
    }

    #[test]
    fn a_start_position_is_checked_by_the_plugin_and_every_game_starts_there() {
        let registry = Registry::of([race(Fault::None)]);
        let v = registry.get("race").unwrap();
        let bad = super::load_openings(v, &two_players("[start]\nrace = \"x y\"")).unwrap_err();
        assert!(bad.to_string().contains("the start position for race: "), "{bad}");
        let config = two_players("[start]\nrace = \"5 0\"");
        let openings = super::load_openings(v, &config).unwrap();
        assert_eq!(openings, ["5 0"]);
        let store = Store::in_memory().unwrap();
        let t = stored(&registry, &store, config, openings);
        t.run(&store, Isolation::InProcess, Arc::default(), &mut Kept::default()).unwrap();
        let games = store.games(None).unwrap();
        assert_eq!(games.len(), 4);
        assert!(games.iter().all(|g| g.record.start_position == "5 0"), "{}", games[0].record.start_position);
    }
}
