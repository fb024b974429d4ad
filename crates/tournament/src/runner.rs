//! Plays a schedule of games on `concurrency` threads, each either playing in
//! this process or driving one worker process (see [`super::worker`]). Each
//! thread keeps its own player instances (so engine processes live across
//! games) and reports every finished game through a channel; the caller
//! records it at once. A stop flag ends the run between games. Worker
//! processes and game threads, and the engines they keep, outlive a batch
//! in a [`RunnerPool`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use super::games::{
    keep_engines, seat_players, Entrant, GameWatch, Isolation, LiveRelay, LiveSink, RunConfig, ScheduledGame,
};
use super::pulse::{Pulse, SharedPulse};
use super::worker::{faulted_record, setup_of, Job, WorkerHandle};
use arbiter_core::model::{GameRecord, SeenFrame};
use arbiter_core::sync::LockExt;
use arbiter_play::players::{KeptEngines, PlayerSpec};
use arbiter_play::referee::{play, GameSetup, Termination};

/// How a run of games ended, beyond the games themselves.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    /// A game whose plugin hung in this process (in-process runs): it is
    /// recorded, and the run stopped, since the stuck thread cannot be ended.
    pub hung_in_process: Option<usize>,
}

/// Plays `schedule`, calling `on_game(index, result)` on the calling thread
/// as each game ends (in completion order), and showing games in progress to
/// `live` if given. A game that cannot be set up (a bad start position) is
/// reported as an error for that index.
pub fn run_games(
    entrants: &[Entrant],
    schedule: &[ScheduledGame],
    config: &RunConfig,
    runners: &RunnerPool,
    live: Option<LiveSink<'_>>,
    mut on_game: impl FnMut(usize, Result<GameRecord, arbiter_api::Error>),
) -> RunReport {
    let next = AtomicUsize::new(0);
    let hung = Mutex::new(None);
    let shared: Arc<[Entrant]> = entrants.into();
    // A rendezvous: a runner hands over its game before it takes the next,
    // so that a stop decided on storing one game (an SPRT's verdict) finds at
    // most one game more in flight per runner.
    let (tx, rx) = mpsc::sync_channel(0);
    std::thread::scope(|scope| {
        for runner in 0..config.concurrency.max(1).min(schedule.len().max(1)) {
            let (tx, next, hung, shared) = (tx.clone(), &next, &hung, shared.clone());
            scope.spawn(move || {
                // Before its game thread or worker process exists, so that
                // they inherit it; two CPUs where an engine ponders, one a seat.
                if config.affinity {
                    let width = if shared.iter().any(|e| e.spec.ponders()) { 2 } else { 1 };
                    match arbiter_core::process::pin_thread_to_cpus(runner, width) {
                        Ok(cpus) => tracing::info!("runner {runner} pinned to CPU {cpus:?}"),
                        Err(e) => tracing::warn!("runner {runner}: no CPU affinity: {e}"),
                    }
                }
                let mut slot = runners.take(runner, &config.isolation);
                // A thread stuck in a plugin is not kept for the next batch.
                let mut lost = false;
                loop {
                    if config.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(game) = schedule.get(i) else { break };
                    let sink = |frame: &SeenFrame| {
                        if let Some(live) = live {
                            live(i, frame)
                        }
                    };
                    let sink = live.map(|_| &sink as &dyn Fn(&SeenFrame));
                    let result = match &mut slot {
                        Slot::Worker(w) => {
                            let job = Job::new(entrants, game, config, sink.is_some());
                            w.play(&shared, game, job, sink)
                        }
                        Slot::Thread(t) => match t.play(&shared, game, config, sink) {
                            Played::Finished(result) => result,
                            Played::Hung(record) => {
                                // The stuck thread cannot be ended: record the
                                // game, then stop the run.
                                lost = true;
                                *hung.lock_or_recover() = Some(i);
                                config.stop.store(true, Ordering::SeqCst);
                                let _ = tx.send((i, Ok(record)));
                                break;
                            }
                        },
                    };
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                }
                if !lost {
                    runners.keep(runner, slot);
                }
            });
        }
        drop(tx);
        for (i, result) in rx {
            on_game(i, result);
        }
    });
    RunReport { hung_in_process: hung.into_inner().unwrap_or_else(|e| e.into_inner()) }
}

/// Whether `game`'s engines each get a CPU of their own: with `--affinity`,
/// when one of them ponders.
pub(crate) fn pins_seats(entrants: &[Entrant], game: &ScheduledGame, config: &RunConfig) -> bool {
    config.affinity && game.seats.iter().any(|&e| entrants[e].spec.ponders())
}

/// Where one runner thread plays its games.
enum Slot {
    Worker(WorkerHome),
    Thread(GameThread),
}

/// Where each runner plays (a worker process, or a game thread of this
/// process), kept from one batch of a run to the next (a Swiss round, a
/// tune's next pairs) so that neither it nor the engines it keeps start
/// afresh each batch; they end with the pool.
#[derive(Default)]
pub struct RunnerPool(Mutex<Vec<Option<Slot>>>);

impl RunnerPool {
    /// Runner `runner`'s slot, or a new one for `isolation` (started from
    /// the calling thread, whose CPU affinity it inherits).
    fn take(&self, runner: usize, isolation: &Isolation) -> Slot {
        let kept = self.0.lock_or_recover().get_mut(runner).and_then(Option::take);
        match (kept, isolation) {
            (Some(Slot::Worker(w)), Isolation::Workers { .. }) => Slot::Worker(w),
            (Some(Slot::Thread(t)), Isolation::InProcess) => Slot::Thread(t),
            (_, Isolation::Workers { plugin_dirs }) => Slot::Worker(WorkerHome::start(plugin_dirs.clone())),
            (_, Isolation::InProcess) => Slot::Thread(GameThread::start()),
        }
    }

    /// Keeps runner `runner`'s slot for the next batch (never one whose
    /// game thread is stuck in a plugin).
    fn keep(&self, runner: usize, slot: Slot) {
        let mut kept = self.0.lock_or_recover();
        if kept.len() <= runner {
            kept.resize_with(runner + 1, || None);
        }
        kept[runner] = Some(slot);
    }
}

impl Drop for RunnerPool {
    /// Ends the kept game threads and worker processes, and their engines,
    /// before the run is over.
    fn drop(&mut self) {
        for slot in self.0.get_mut().unwrap_or_else(|e| e.into_inner()).drain(..).flatten() {
            if let Slot::Thread(thread) = slot {
                thread.end();
            }
        }
    }
}

/// A game for a [`WorkerHome`].
struct HomeJob {
    entrants: Arc<[Entrant]>,
    game: ScheduledGame,
    job: Job,
}

/// A thread that owns one worker process (which ends with the thread that
/// started it) and plays there the games it is sent.
struct WorkerHome {
    jobs: Option<mpsc::Sender<HomeJob>>,
    events: mpsc::Receiver<Event>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl WorkerHome {
    /// A thread for a worker started from `plugin_dirs` on its first game.
    fn start(plugin_dirs: Vec<std::path::PathBuf>) -> WorkerHome {
        let (jobs, job_rx) = mpsc::channel::<HomeJob>();
        let (event_tx, events) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let mut worker = WorkerHandle::new(plugin_dirs);
            for HomeJob { entrants, game, job } in job_rx {
                let relay = event_tx.clone();
                let sink = move |frame: &SeenFrame| {
                    let _ = relay.send(Event::Live(frame.clone()));
                };
                let live = job.live.then_some(&sink as &dyn Fn(&SeenFrame));
                let result = worker.play(&entrants, &game, &job, live);
                if event_tx.send(Event::Done(result)).is_err() {
                    break;
                }
            }
        });
        WorkerHome { jobs: Some(jobs), events, thread: Some(thread) }
    }

    /// Plays `job` in the worker, its frames to `live`.
    fn play(
        &mut self,
        entrants: &Arc<[Entrant]>,
        game: &ScheduledGame,
        job: Job,
        live: Option<&dyn Fn(&SeenFrame)>,
    ) -> Result<GameRecord, arbiter_api::Error> {
        let ended = || arbiter_api::Error::unsupported("the worker's thread has ended");
        let home = HomeJob { entrants: entrants.clone(), game: game.clone(), job };
        self.jobs.as_ref().ok_or_else(ended)?.send(home).map_err(|_| ended())?;
        loop {
            match self.events.recv().map_err(|_| ended())? {
                Event::Live(frame) => {
                    if let Some(sink) = live {
                        sink(&frame);
                    }
                }
                Event::Done(result) => return result,
            }
        }
    }
}

impl Drop for WorkerHome {
    /// Ends the thread, and with it the worker and its engines.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What a game thread reports.
enum Event {
    Live(SeenFrame),
    Done(Result<GameRecord, arbiter_api::Error>),
}

/// A game for a [`GameThread`].
struct ThreadJob {
    entrants: Arc<[Entrant]>,
    game: ScheduledGame,
    setup: GameSetup,
    live: bool,
}

/// A thread of this process that plays games one at a time, keeping its
/// players (engine processes live across games), watched over by the
/// runner thread that feeds it.
struct GameThread {
    jobs: mpsc::Sender<ThreadJob>,
    events: mpsc::Receiver<Event>,
    pulse: SharedPulse,
    /// The plugin call the thread is in, to name one that never returns.
    calls: Option<arbiter_api::host::CallWatch>,
    thread: std::thread::JoinHandle<()>,
}

/// How a game on a [`GameThread`] ended.
enum Played {
    Finished(Result<GameRecord, arbiter_api::Error>),
    /// The plugin hung: the record of what was played; the thread is lost.
    Hung(GameRecord),
}

impl GameThread {
    fn start() -> GameThread {
        let (jobs, job_rx) = mpsc::channel::<ThreadJob>();
        let (event_tx, events) = mpsc::channel();
        let pulse = Pulse::shared(Duration::from_secs(30));
        let thread_pulse = pulse.clone();
        let (watch_tx, watch_rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let _ = watch_tx.send(arbiter_api::host::CallWatch::this_thread());
            // Every entrant's engine is kept (as many as a tournament has),
            // while the entrant plays in the batch at hand.
            let mut kept = KeptEngines::new(usize::MAX);
            for job in job_rx {
                let relay_tx = event_tx.clone();
                let sink = move |frame: &SeenFrame| {
                    let _ = relay_tx.send(Event::Live(frame.clone()));
                };
                let result = play_one(&job, &mut kept, &thread_pulse, &sink);
                if event_tx.send(Event::Done(result)).is_err() {
                    break;
                }
            }
        });
        let calls = watch_rx.recv().ok();
        GameThread { jobs, events, pulse, calls, thread }
    }

    /// Ends the thread once its game is over, and with it the engines it
    /// kept (not for a thread stuck in a plugin: it would never end).
    fn end(self) {
        drop(self.jobs);
        let _ = self.thread.join();
    }

    fn play(
        &mut self,
        entrants: &Arc<[Entrant]>,
        game: &ScheduledGame,
        config: &RunConfig,
        live: Option<&dyn Fn(&SeenFrame)>,
    ) -> Played {
        let started = (super::worker::unix_now(), Instant::now());
        Pulse::lock(&self.pulse).restart(config.watchdog);
        let setup = setup_of(entrants, game, config);
        let job = ThreadJob { entrants: entrants.clone(), game: game.clone(), setup, live: live.is_some() };
        if self.jobs.send(job).is_err() {
            return Played::Finished(Err(arbiter_api::Error::unsupported("the game thread has ended")));
        }
        loop {
            // Woken by the game's events, else when its allowance would run
            // out (a ply since moves it on: the watch goes on from there).
            let left = Pulse::lock(&self.pulse).left() + Duration::from_millis(1);
            match self.events.recv_timeout(left) {
                Ok(Event::Live(frame)) => {
                    if let Some(sink) = live {
                        sink(&frame);
                    }
                }
                Ok(Event::Done(result)) => return Played::Finished(result),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let mut pulse = Pulse::lock(&self.pulse);
                    if pulse.stalled() {
                        let plies = pulse.take_plies();
                        // A plugin call that never returned is named, in the
                        // words a sandboxed plugin's time limit uses.
                        let why = match self.calls.as_ref().and_then(|c| c.now().call) {
                            Some(call) => format!(
                                "plugin {} ran past its time limit of {} ms in {call} (the watchdog, in-process)",
                                game.variant.plugin().name,
                                config.watchdog.as_millis()
                            ),
                            None => {
                                format!("no progress for {} s (the watchdog, in-process)", config.watchdog.as_secs())
                            }
                        };
                        let record = faulted_record(entrants, game, plies, started, Termination::PluginHung(why));
                        return Played::Hung(record);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let plies = Pulse::lock(&self.pulse).take_plies();
                    let why = "the game thread panicked".to_string();
                    let record = faulted_record(entrants, game, plies, started, Termination::PluginCrashed(why));
                    *self = GameThread::start();
                    return Played::Finished(Ok(record));
                }
            }
        }
    }
}

fn play_one(
    job: &ThreadJob,
    kept: &mut KeptEngines,
    pulse: &SharedPulse,
    sink: &dyn Fn(&SeenFrame),
) -> Result<GameRecord, arbiter_api::Error> {
    let game = &job.game;
    kept.retain(|name| job.entrants.iter().any(|e| e.name == name));
    let seats: Vec<(&str, &PlayerSpec)> =
        game.seats.iter().map(|&e| (job.entrants[e].name.as_str(), &job.entrants[e].spec)).collect();
    let mut players = seat_players(&seats, game.seed, pulse, kept);
    let mut watch = GameWatch { pulse, journal: None, live: job.live.then(|| LiveRelay::new(sink)) };
    let result = play(&job.setup, &game.variant, &mut players, Some(&mut watch));
    keep_engines(&seats, players, kept);
    result
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use arbiter_fixture::Fault;

    use super::{run_games, RunnerPool};
    use crate::{Entrant, Isolation, RunConfig, ScheduledGame};
    use arbiter_play::players::PlayerSpec;
    use arbiter_testing::race;

    fn entrant(name: &str, spec: &str) -> Entrant {
        Entrant { name: name.into(), spec: PlayerSpec::parse(spec).unwrap(), spec_text: spec.into(), tc: None }
    }

    fn config(concurrency: usize) -> RunConfig {
        RunConfig {
            concurrency,
            margin_ms: 1000,
            max_plies: None,
            claim_draws: true,
            adjudication: Default::default(),
            watchdog: Duration::from_secs(30),
            isolation: Isolation::InProcess,
            stop: Default::default(),
            affinity: false,
        }
    }

    fn schedule(positions: &[Option<&str>]) -> Vec<ScheduledGame> {
        let v = race(Fault::None);
        (0..positions.len())
            .map(|i| ScheduledGame {
                round: 1,
                variant: v.clone(),
                options: Default::default(),
                seats: if i % 2 == 0 { vec![0, 1] } else { vec![1, 0] },
                position: positions[i].map(str::to_string),
                seed: i as u64,
            })
            .collect()
    }

    #[test]
    fn every_game_is_reported_once_under_its_entrants_names_and_a_bad_start_as_its_own_error() {
        let entrants = [entrant("a", "random"), entrant("b", "random:seed=2")];
        let games = schedule(&[None, None, Some("not a position"), None, None, Some("7 0")]);
        let mut seen = Vec::new();
        let report =
            run_games(&entrants, &games, &config(3), &RunnerPool::default(), None, |i, result| seen.push((i, result)));
        assert_eq!(report.hung_in_process, None);
        seen.sort_by_key(|(i, _)| *i);
        assert_eq!(seen.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
        for (i, result) in &seen {
            match (i, result) {
                (2, r) => assert!(r.is_err(), "a bad start fails its game alone"),
                (i, Ok(r)) => {
                    let names = if i % 2 == 0 { ["a", "b"] } else { ["b", "a"] };
                    assert_eq!(r.players, names, "game {i}: the entrants' names in turn order");
                }
                (i, Err(e)) => panic!("game {i}: {e}"),
            }
        }
        assert_eq!(seen[5].1.as_ref().unwrap().start_position, "7 0");
    }

    #[test]
    fn a_stop_set_while_a_game_is_handled_lets_at_most_the_runner_s_next_game_finish() {
        let entrants = [entrant("a", "random"), entrant("b", "random")];
        let games = schedule(&[None; 6]);
        let run = config(1);
        let mut handled = 0;
        run_games(&entrants, &games, &run, &RunnerPool::default(), None, |_, _| {
            handled += 1;
            // Slow handling (a store that takes its time) lets the runner start one more game, no more.
            std::thread::sleep(Duration::from_millis(20));
            run.stop.store(true, Ordering::SeqCst);
        });
        assert!((1..=2).contains(&handled), "{handled} games handled");
    }

    /// A runner's slot (a worker's thread, or a game thread with the
    /// engines it keeps) is the same from batch to batch, and each runner
    /// has its own; the pool ends them (no worker had a game, so none was
    /// started).
    #[test]
    fn a_pool_gives_each_runner_back_its_own_slot() {
        use super::Slot;
        let pool = RunnerPool::default();
        let workers = Isolation::Workers { plugin_dirs: Vec::new() };
        let id = |slot: &Slot| match slot {
            Slot::Worker(home) => home.thread.as_ref().unwrap().thread().id(),
            Slot::Thread(t) => t.thread.thread().id(),
        };
        let (first, other) = (pool.take(0, &workers), pool.take(1, &workers));
        let (first_id, other_id) = (id(&first), id(&other));
        assert_ne!(first_id, other_id);
        pool.keep(1, other);
        pool.keep(0, first);
        assert_eq!(id(&pool.take(0, &workers)), first_id, "runner 0 again");
        let again = pool.take(1, &workers);
        assert_eq!(id(&again), other_id, "runner 1 again");
        assert_ne!(id(&pool.take(1, &workers)), other_id, "taken already: a new one");
        // In process: a game thread, kept as well; a kept worker is not one.
        pool.keep(1, again);
        let thread = pool.take(1, &Isolation::InProcess);
        assert!(matches!(thread, Slot::Thread(_)));
        let thread_id = id(&thread);
        pool.keep(1, thread);
        assert_eq!(id(&pool.take(1, &Isolation::InProcess)), thread_id);
    }
}
