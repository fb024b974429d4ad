//! A game as a runner plays it, shared by the runner and the worker side:
//! who plays ([`Entrant`]), what to play ([`ScheduledGame`]), how games run
//! ([`RunConfig`], [`Isolation`]), who sits in its seats ([`seat_players`],
//! engines kept between games), and how a game in progress is watched
//! ([`LiveRelay`] for spectators, [`GameWatch`] for the watchdog and the
//! ply journal).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbiter_api::host::VariantHandle;
use serde_json::{Map, Value};

use super::journal::Journal;
use super::pulse::{Paced, Pulse, SharedPulse};
use arbiter_api::Viewer;
use arbiter_core::clock::TimeControl;
use arbiter_core::model::seeds::seat_seed;
use arbiter_core::model::{LiveFrame, PlyRecord, Seat, SeenFrame};
use arbiter_play::players::{KeptEngines, Player, PlayerSpec};
use arbiter_play::referee::Watcher;

/// A participant: a name for standings, how to create it, its time control.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Name in records and standings.
    pub name: String,
    /// How to create the player.
    pub spec: PlayerSpec,
    /// The spec as written (worker processes parse it again).
    pub spec_text: String,
    /// Its time control; `None`: each variant's own.
    pub tc: Option<TimeControl>,
}

impl Entrant {
    /// The time control this entrant plays `variant` with.
    pub fn time_control(&self, variant: &VariantHandle) -> TimeControl {
        self.tc.clone().unwrap_or_else(|| {
            // The checker refuses a plugin whose default does not parse.
            TimeControl::parse(&variant.info().default_time_control)
                .unwrap_or_else(|_| TimeControl::parse("inf").expect("inf parses"))
        })
    }
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
    /// Score adjudication.
    pub adjudication: arbiter_play::referee::Adjudication,
    /// Silence tolerated beyond a player's time budget before a game is
    /// recorded as "plugin hung".
    pub watchdog: Duration,
    /// Where games run.
    pub isolation: Isolation,
    /// Set to stop between games (Ctrl-C): the games in progress finish and
    /// are reported, no new one starts.
    pub stop: Arc<AtomicBool>,
    /// Pin each runner (the games it plays, their engines) to a CPU of its own.
    pub affinity: bool,
}

/// Where games run.
#[derive(Clone, Debug)]
pub enum Isolation {
    /// On threads of this process: a plugin that aborts ends the run, and
    /// one that hangs ends it once the watchdog has recorded the game.
    InProcess,
    /// In `arbiter worker` processes loading plugins from these directories.
    Workers {
        /// Plugin directories passed to the workers.
        plugin_dirs: Vec<PathBuf>,
    },
}

/// Where the spectator's view of games in progress goes: `(index in the
/// schedule, frame)` (see [`arbiter_core::model::LiveFrame::seen_by`]).
pub type LiveSink<'a> = &'a (dyn Fn(usize, &SeenFrame) + Sync);

/// How often spectators are shown a game in progress.
const LIVE_EVERY: Duration = Duration::from_millis(250);

/// Hands a game's spectator view to `sink` every `LIVE_EVERY` from its
/// start: a game over sooner is never shown live (nor costs anything), and
/// the last frame is not needed (the stored game replaces it).
pub struct LiveRelay<'a> {
    sink: &'a dyn Fn(&SeenFrame),
    last: Instant,
}

impl<'a> LiveRelay<'a> {
    pub fn new(sink: &'a dyn Fn(&SeenFrame)) -> Self {
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

/// The referee's watcher for a game the runner plays: each ply into the
/// worker's journal (and a beat to the pulse) or, in this process, into the
/// pulse itself; live frames through the relay when wanted.
pub struct GameWatch<'a> {
    /// The game's pulse.
    pub pulse: &'a SharedPulse,
    /// A worker's ply journal.
    pub journal: Option<&'a mut Journal>,
    /// Where live frames go, if the game is watched.
    pub live: Option<LiveRelay<'a>>,
}

impl Watcher for GameWatch<'_> {
    fn wants(&mut self, last: bool) -> bool {
        self.live.as_mut().is_some_and(|l| l.wants(last))
    }
    fn frame(&mut self, frame: LiveFrame) {
        if let Some(l) = self.live.as_mut() {
            l.frame(frame);
        }
    }
    fn ply(&mut self, ply: &PlyRecord) {
        match self.journal.as_mut() {
            Some(journal) => {
                journal.push(ply);
                Pulse::lock(self.pulse).beat(Duration::ZERO);
            }
            None => Pulse::lock(self.pulse).ply(ply),
        }
    }
}

/// The players of a game's `seats` (entrant name and spec, in turn
/// order): each engine kept in `kept` for its entrant (told new option
/// values if they changed), else a new player watched over by `pulse`;
/// seeded players are made afresh with their seat's seed of `game_seed`.
pub fn seat_players(
    seats: &[(&str, &PlayerSpec)],
    game_seed: u64,
    pulse: &SharedPulse,
    kept: &mut KeptEngines,
) -> Vec<Box<dyn Player>> {
    let made = |seat: Seat, spec: &PlayerSpec| {
        let inner = spec.create(seat_seed(game_seed, seat));
        Box::new(Paced { inner, pulse: pulse.clone(), person: spec.is_person() }) as Box<dyn Player>
    };
    seats
        .iter()
        .zip(Seat::all(seats.len()))
        .map(|((name, spec), seat)| {
            let reused = if spec.is_engine() { kept.take(name, spec) } else { None };
            reused.unwrap_or_else(|| made(seat, spec))
        })
        .collect()
}

/// Keeps the engines among a game's `players` (seated by [`seat_players`])
/// in `kept` for the games to come.
pub fn keep_engines(seats: &[(&str, &PlayerSpec)], players: Vec<Box<dyn Player>>, kept: &mut KeptEngines) {
    for ((name, spec), player) in seats.iter().zip(players) {
        if spec.is_engine() {
            kept.keep(name, spec, player);
        }
    }
}

#[cfg(test)]
mod tests {
    use arbiter_core::model::Seat;
    use std::cell::RefCell;

    use arbiter_api::schema::{Observation, ObservationView};

    use super::{LiveRelay, LIVE_EVERY};
    use arbiter_api::Viewer;
    use arbiter_core::model::{LiveFrame, LiveView, SeenFrame};
    use arbiter_play::referee::Watcher;

    /// A frame with a player's view and the spectator's, each naming its viewer.
    fn frame(ply: u32) -> LiveFrame {
        let view = |viewer| LiveView {
            viewer,
            observation: Observation {
                text: String::new(),
                view: ObservationView { viewer: ObservationView::viewer_name(viewer), ..Default::default() },
            },
            last_move: Some(format!("{viewer:?}")),
        };
        LiveFrame {
            ply,
            to_move: Seat::FIRST,
            views: vec![view(Viewer::Player(0)), view(Viewer::Spectator)],
            clocks: vec![None, None],
            result: None,
        }
    }

    #[test]
    fn live_frames_go_out_at_most_every_quarter_second_and_only_as_spectators_see_them() {
        let seen: RefCell<Vec<SeenFrame>> = RefCell::new(Vec::new());
        let sink = |f: &SeenFrame| seen.borrow_mut().push(f.clone());
        let mut relay = LiveRelay::new(&sink);
        assert!(!relay.wants(false), "not again at once");
        std::thread::sleep(LIVE_EVERY);
        assert!(relay.wants(false));
        relay.frame(frame(3));
        assert!(!relay.wants(false), "the next one waits its turn");
        let seen = seen.borrow();
        assert_eq!(seen.len(), 1);
        assert_eq!((seen[0].ply, seen[0].observation.viewer.as_str()), (3, "spectator"));
        assert_eq!(seen[0].last_move.as_deref(), Some("Spectator"));
    }
}
