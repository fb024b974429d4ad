//! Plays a schedule of games on `concurrency` threads, each either playing in
//! this process or driving one worker process (see [`super::worker`]). Each
//! thread keeps its own player instances (so engine processes live across
//! games) and reports every finished game through a channel; the caller
//! records it at once. A stop flag ends the run between games.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use arbiter_api::host::VariantHandle;
use serde_json::{Map, Value};

use super::worker::{job_json, WorkerHandle};
use crate::clock::TimeControl;
use crate::players::{Player, PlayerSpec};
use crate::referee::{play_game, play_game_watched, GameConfig, GameRecord, LiveFrame, StartFrom, Watcher};
use crate::Viewer;

/// A participant: a name for standings, how to create it, its time control.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Name in records and standings.
    pub name: String,
    /// How to create the player.
    pub spec: PlayerSpec,
    /// The spec as written (worker processes parse it again).
    pub spec_text: String,
    /// Its time control.
    pub tc: TimeControl,
}

/// One game to play.
#[derive(Clone)]
pub struct ScheduledGame {
    /// Round number (1-based), for records.
    pub round: u32,
    /// The variant.
    pub variant: VariantHandle,
    /// Variant options.
    pub options: Map<String, Value>,
    /// Entrant indices in turn order.
    pub seats: Vec<usize>,
    /// A start position, or the variant's start.
    pub position: Option<String>,
    /// Seed for seeded players.
    pub seed: u64,
}

/// How games are run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Games played at once.
    pub concurrency: usize,
    /// Overrun tolerated before a flag falls.
    pub margin_ms: u64,
    /// Adjudicate a draw after this many plies.
    pub max_plies: Option<u32>,
    /// Claim claimable draws at once.
    pub claim_draws: bool,
    /// Where games run.
    pub isolation: Isolation,
    /// Set to stop between games (Ctrl-C); games in progress in worker
    /// processes are abandoned, unrecorded.
    pub stop: Arc<AtomicBool>,
}

/// Where games run.
#[derive(Clone, Debug)]
pub enum Isolation {
    /// On threads of this process.
    InProcess,
    /// In `arbiter worker` processes loading plugins from these directories,
    /// with this grace period for the watchdog.
    Workers {
        /// Plugin directories passed to the workers.
        plugin_dirs: Vec<PathBuf>,
        /// Silence tolerated beyond a move's time budget.
        grace: Duration,
    },
}

/// Where the spectator's view of games in progress goes: `(index in the
/// schedule, frame)` (see [`crate::referee::LiveFrame::seen_by`]).
pub type LiveSink<'a> = &'a (dyn Fn(usize, &Value) + Sync);

/// How often spectators are shown a game in progress.
const LIVE_EVERY: Duration = Duration::from_millis(250);

/// Hands a game's spectator view to `sink` every [`LIVE_EVERY`] from its
/// start: a game over sooner is never shown live (nor costs anything), and
/// the last frame is not needed (the stored game replaces it).
pub(super) struct LiveRelay<'a> {
    sink: &'a dyn Fn(&Value),
    last: Instant,
}

impl<'a> LiveRelay<'a> {
    pub(super) fn new(sink: &'a dyn Fn(&Value)) -> Self {
        LiveRelay { sink, last: Instant::now() }
    }
}

impl Watcher for LiveRelay<'_> {
    fn wants(&mut self, last: bool) -> bool {
        !last && self.last.elapsed() >= LIVE_EVERY
    }
    fn frame(&mut self, frame: LiveFrame) {
        self.last = Instant::now();
        if let Some(seen) = frame.seen_by(Viewer::Spectator) {
            (self.sink)(&seen);
        }
    }
}

/// Plays `schedule`, calling `on_game(index, result)` on the calling thread
/// as each game ends (in completion order), and showing games in progress to
/// `live` if given. A game that cannot be set up (a bad start position) is
/// reported as an error for that index.
pub fn run_games(
    entrants: &[Entrant],
    schedule: &[ScheduledGame],
    config: &RunConfig,
    live: Option<LiveSink<'_>>,
    mut on_game: impl FnMut(usize, Result<GameRecord, arbiter_api::Error>),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1).min(schedule.len().max(1)) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut pool: HashMap<usize, Box<dyn Player>> = HashMap::new();
                let mut worker = match &config.isolation {
                    Isolation::Workers { plugin_dirs, grace } => Some(WorkerHandle::new(plugin_dirs.clone(), *grace)),
                    Isolation::InProcess => None,
                };
                loop {
                    if config.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(game) = schedule.get(i) else { break };
                    let sink = |frame: &Value| {
                        if let Some(live) = live {
                            live(i, frame)
                        }
                    };
                    let sink = live.map(|_| &sink as &dyn Fn(&Value));
                    let result = match &mut worker {
                        Some(w) => {
                            let grace = match &config.isolation {
                                Isolation::Workers { grace, .. } => *grace,
                                Isolation::InProcess => Duration::ZERO,
                            };
                            let mut job =
                                job_json(entrants, game, config.margin_ms, config.max_plies, config.claim_draws, grace);
                            job["live"] = sink.is_some().into();
                            w.play(entrants, game, &job, sink).map(|mut r| {
                                r.players = game.seats.iter().map(|&e| entrants[e].name.clone()).collect();
                                r
                            })
                        }
                        None => play_one(entrants, game, config, &mut pool, sink),
                    };
                    // A game cut short by a stop request is not a result.
                    if config.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, result) in rx {
            on_game(i, result);
        }
    });
}

fn play_one(
    entrants: &[Entrant],
    game: &ScheduledGame,
    config: &RunConfig,
    pool: &mut HashMap<usize, Box<dyn Player>>,
    live: Option<&dyn Fn(&Value)>,
) -> Result<GameRecord, arbiter_api::Error> {
    let mut players: Vec<Box<dyn Player>> = game
        .seats
        .iter()
        .enumerate()
        .map(|(seat, &e)| {
            // Seeded players get a fresh seed per game; engines are reused.
            match (&entrants[e].spec, pool.remove(&e)) {
                (PlayerSpec::Uci(_) | PlayerSpec::Engine { .. } | PlayerSpec::Hub { .. }, Some(p)) => p,
                (spec, _) => spec.create(game.seed.wrapping_mul(31).wrapping_add(seat as u64)),
            }
        })
        .collect();
    let game_config = GameConfig {
        time_controls: game.seats.iter().map(|&e| entrants[e].tc.clone()).collect(),
        margin_ms: config.margin_ms,
        max_plies: config.max_plies,
        claim_draws: config.claim_draws,
    };
    let start = match &game.position {
        Some(p) => StartFrom::Position(p),
        None => StartFrom::Standard,
    };
    let result = match live {
        Some(sink) => {
            let relay = &mut LiveRelay::new(sink);
            play_game_watched(&game.variant, &game.options, start, &mut players, &game_config, relay)
        }
        None => play_game(&game.variant, &game.options, start, &mut players, &game_config),
    };
    for (&e, p) in game.seats.iter().zip(players) {
        pool.insert(e, p);
    }
    result.map(|mut record| {
        record.players = game.seats.iter().map(|&e| entrants[e].name.clone()).collect();
        record
    })
}
