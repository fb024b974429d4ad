//! Worker processes: by default every game of a tournament runs in an
//! `arbiter worker` child, so a plugin that panics, aborts, segfaults, loops
//! forever or runs out of memory costs one game, not the tournament.
//!
//! Protocol, one JSON object per line, both directions typed here: the parent
//! sends a [`Job`]; the worker answers with [`WorkerMessage`]s: `progress`
//! (the silence the watchdog may allow from now: a thinking player's budget
//! plus the grace), sent at most every [`FLUSH_EVERY`] by a thread of its own
//! while the game moves, `live` frames when the job asks, then `record` (the
//! finished game) or `error`. Every ply also goes, as it is played, into the
//! [`super::journal`] the parent reads when the worker fails; when the game
//! ends normally with every ply there, the answer is `journaled` instead:
//! the record without its plies, which the parent reads from the journal.
//! Engine faults never end a worker: an engine that crashes, hangs or breaks
//! its protocol loses its game inside the worker, which says so in the
//! record. So a worker that goes silent past its allowance is a hung plugin,
//! and one that dies is a crashed plugin; either way the game keeps every ply
//! reported before the fault.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use arbiter_api::{Error, Outcome};
use serde::{Deserialize, Serialize};

use super::error::{Result, TournamentError};
use super::games::{keep_engines, seat_players, Entrant, GameWatch, LiveRelay, ScheduledGame};
use super::journal::{Journal, JournalFile};
use super::pulse::{Pulse, SharedPulse};

use arbiter_core::model::SeenFrame;
use arbiter_core::model::{GameRecord, PlyRecord};
use arbiter_core::plugin::Registry;
use arbiter_core::process::{ChildProcess, Limits, ProcessError};
use arbiter_play::players::{KeptEngines, PlayerSpec};
use arbiter_play::referee::{play, GameResult, GameSetup, SeatSetup, Termination};

/// How often the worker reports progress while a game moves.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);

/// How many engine processes a worker keeps between games, the most
/// recently used: every seat of a match or SPRT is reused (and a tune's,
/// told each pair's values, where the protocol can), while a queue worker
/// serving many entrants does not pile up engines that will never play
/// again.
pub const KEPT_ENGINES: usize = 4;

/// One game for a worker to play: its setup (the same JSON keys at the
/// top level), and what the worker process needs besides.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    /// The game.
    #[serde(flatten)]
    pub setup: GameSetup,
    /// Silence tolerated beyond a player's time budget.
    pub grace_ms: u64,
    /// Whether to send `live` frames of the game.
    pub live: bool,
    /// The ply journal to write, and this game's number in it.
    pub journal: Option<(PathBuf, u64)>,
}

impl Job {
    /// The job for `game`.
    pub fn new(entrants: &[Entrant], game: &ScheduledGame, config: &super::games::RunConfig, live: bool) -> Job {
        Job {
            setup: setup_of(entrants, game, config),
            grace_ms: config.watchdog.as_millis() as u64,
            live,
            journal: None,
        }
    }
}

/// The setup of `game` between `entrants` under `config`.
pub fn setup_of(entrants: &[Entrant], game: &ScheduledGame, config: &super::games::RunConfig) -> GameSetup {
    GameSetup {
        variant: game.variant.info().id.clone(),
        options: game.options.clone(),
        position: game.position.clone(),
        seats: game
            .seats
            .iter()
            .map(|&e| SeatSetup {
                name: entrants[e].name.clone(),
                spec: entrants[e].spec_text.clone(),
                tc: entrants[e].time_control(&game.variant),
            })
            .collect(),
        seed: game.seed,
        margin_ms: config.margin_ms,
        max_plies: config.max_plies,
        claim_draws: config.claim_draws,
        adjudication: config.adjudication.clone(),
        pin_seats: super::runner::pins_seats(entrants, game, config),
    }
}

/// What a worker says.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerMessage {
    /// The game moves: the silence allowed from now on.
    Progress {
        /// Allowed silence from now, in ms.
        allowance_ms: u64,
    },
    /// The spectator's view of the game in progress.
    Live(Box<SeenFrame>),
    /// The finished game, whole.
    Record(Box<GameRecord>),
    /// The finished game, its plies left in the ply journal.
    Journaled {
        /// The record, without plies.
        record: Box<GameRecord>,
        /// How many plies the journal holds for it.
        plies: usize,
    },
    /// The game has been inside one plugin call for a while: its name, so
    /// that a hang the watchdog ends is named.
    InCall(String),
    /// The game could not be set up.
    Error(String),
}

/// The record of a game that ended in a plugin fault (no result): every ply
/// reported before the fault, and the position they lead to.
pub fn faulted_record(
    entrants: &[Entrant],
    game: &ScheduledGame,
    plies: Vec<PlyRecord>,
    started: (u64, Instant),
    termination: Termination,
) -> GameRecord {
    let plugin = game.variant.plugin();
    let info = game.variant.info();
    let start_position = game.position.clone().unwrap_or_else(|| info.start_position.clone());
    GameRecord {
        variant: info.id.clone(),
        plugin: format!("{} {}", plugin.name, plugin.version),
        players: game.seats.iter().map(|&e| entrants[e].name.clone()).collect(),
        time_controls: game.seats.iter().map(|&e| entrants[e].time_control(&game.variant)).collect(),
        options: game.options.clone(),
        standard_start: game.position.is_none(),
        final_position: arbiter_play::referee::position_after(&game.variant, &game.options, &start_position, &plies)
            .unwrap_or_default(),
        start_position,
        plies,
        result: GameResult { outcome: Outcome::Ongoing, termination },
        started_at: started.0,
        duration_ms: started.1.elapsed().as_millis() as u64,
        viewer: None,
        record_tags: info.record_tags.clone(),
        engines: Vec::new(),
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// The parent's handle on one worker process.
pub struct WorkerHandle {
    process: Option<ChildProcess>,
    plugin_dirs: Vec<PathBuf>,
    journal: Option<JournalFile>,
    games: u64,
    slot: Option<SlotPin>,
}

/// How a queue or remote worker's slot pins its worker process.
#[derive(Clone, Copy, Debug)]
struct SlotPin {
    /// The slot's number.
    slot: usize,
    /// Whether to pin at all (`--affinity`).
    affinity: bool,
    /// How many CPUs the thread is pinned to now (0: not yet).
    width: usize,
}

impl WorkerHandle {
    /// A handle that starts `arbiter worker` on first use; its jobs pin
    /// seats as they say (a local run's runner pinned the thread already).
    pub fn new(plugin_dirs: Vec<PathBuf>) -> Self {
        WorkerHandle { process: None, plugin_dirs, journal: JournalFile::create().ok(), games: 0, slot: None }
    }

    /// The handle of slot `slot` of a queue or remote worker, whose jobs
    /// were made elsewhere: with `affinity` its process is pinned to one
    /// CPU, or to two while a game has a pondering engine (each seat's
    /// engine then on a CPU of its own), re-pinned and started afresh when
    /// that changes; without, nothing is pinned, whatever a job says.
    pub fn for_slot(plugin_dirs: Vec<PathBuf>, slot: usize, affinity: bool) -> Self {
        WorkerHandle { slot: Some(SlotPin { slot, affinity, width: 0 }), ..WorkerHandle::new(plugin_dirs) }
    }

    /// Pins the calling thread, a slot's, for `job`'s game (see [`WorkerHandle::for_slot`]).
    fn pin_for(&mut self, entrants: &[Entrant], job: &mut Job) {
        let Some(pin) = self.slot.as_mut() else { return };
        let ponders = job.setup.seats.len() > 1 && entrants.iter().any(|e| e.spec.ponders());
        job.setup.pin_seats = pin.affinity && ponders;
        let width = if ponders { 2 } else { 1 };
        if !pin.affinity || pin.width == width {
            return;
        }
        pin.width = width;
        match arbiter_core::process::pin_thread_to_cpus(pin.slot, width) {
            Ok(cpus) => tracing::info!("slot {} pinned to CPU {cpus:?}", pin.slot),
            Err(e) => tracing::warn!("slot {}: no CPU affinity: {e}", pin.slot),
        }
        // The next worker process inherits the new pin.
        self.process = None;
    }

    fn process(&mut self) -> Result<&mut ChildProcess, ProcessError> {
        if self.process.is_none() {
            let exe = std::env::current_exe()
                .map_err(|e| ProcessError::Start { command: "arbiter worker".into(), reason: e.to_string() })?;
            let mut cmd = Command::new(exe);
            for d in &self.plugin_dirs {
                cmd.arg("--plugin-dir").arg(d);
            }
            cmd.arg("worker");
            self.process = Some(ChildProcess::spawn(cmd, "arbiter worker", Limits::WORKER)?);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Plays one game in the worker. A worker that dies or goes silent past
    /// its allowance gives a record with no result ("plugin crashed" or
    /// "plugin hung") and every ply it reported; a fresh worker plays the
    /// next game. Frames of the game in progress go to `live`.
    pub fn play(
        &mut self,
        entrants: &[Entrant],
        game: &ScheduledGame,
        job: &Job,
        live: Option<&dyn Fn(&SeenFrame)>,
    ) -> Result<GameRecord, Error> {
        let started = (unix_now(), Instant::now());
        let grace = Duration::from_millis(job.grace_ms);
        self.games += 1;
        let mut job = job.clone();
        self.pin_for(entrants, &mut job);
        job.journal = self.journal.as_ref().map(|j| (j.path().to_path_buf(), self.games));
        let mut in_call: Option<String> = None;
        let outcome = (|| -> Result<WorkerMessage, ProcessError> {
            let p = self.process()?;
            p.send(&serde_json::to_string(&job).expect("a job serializes"))?;
            let mut allowance = grace;
            loop {
                let line = p.recv(Some(Instant::now() + allowance))?;
                match serde_json::from_str::<WorkerMessage>(&line) {
                    Ok(WorkerMessage::Progress { allowance_ms }) => {
                        allowance = Duration::from_millis(allowance_ms);
                        in_call = None;
                    }
                    Ok(WorkerMessage::InCall(call)) => in_call = Some(call),
                    Ok(WorkerMessage::Live(frame)) => {
                        if let Some(sink) = live {
                            sink(&frame);
                        }
                    }
                    Ok(done) => return Ok(done),
                    Err(e) => {
                        tracing::warn!("worker: unreadable line ({e}): {}", line.chars().take(80).collect::<String>())
                    }
                }
            }
        })();
        match outcome {
            Ok(WorkerMessage::Record(r)) => Ok(*r),
            Ok(WorkerMessage::Journaled { mut record, plies }) => {
                record.plies = self.journal.as_ref().map(|j| j.read(self.games)).unwrap_or_default();
                if record.plies.len() == plies {
                    return Ok(*record);
                }
                let found = record.plies.len();
                let termination = Termination::PluginCrashed(format!(
                    "the worker's ply journal holds {found} plies of the {plies} its record names"
                ));
                Ok(faulted_record(entrants, game, std::mem::take(&mut record.plies), started, termination))
            }
            Ok(WorkerMessage::Error(e)) => Err(Error::bad_options(e)),
            Ok(_) => unreachable!("progress and live lines are read in the loop"),
            Err(e) => {
                self.process = None; // its whole group killed and reaped
                let termination = match e {
                    // A plugin call that never returned is named, in the words
                    // a sandboxed plugin's time limit uses.
                    ProcessError::Timeout => Termination::PluginHung(match in_call {
                        Some(call) => format!(
                            "plugin {} ran past its time limit of {} ms in {call} (the watchdog)",
                            game.variant.plugin().name,
                            grace.as_millis()
                        ),
                        None => format!("no progress for {} s (the watchdog)", grace.as_secs()),
                    }),
                    ProcessError::Exited { status, .. } => {
                        Termination::PluginCrashed(format!("worker exited ({status})"))
                    }
                    other => Termination::PluginCrashed(format!("worker: {other}")),
                };
                let plies = self.journal.as_ref().map(|j| j.read(self.games)).unwrap_or_default();
                Ok(faulted_record(entrants, game, plies, started, termination))
            }
        }
    }
}

/// The worker's stdout, shared by the game's thread and the progress
/// thread; one line at a time, written whole (serialized first: standard
/// output's line buffer would look for a newline in every piece).
fn send(msg: &WorkerMessage) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(msg)?;
    line.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&line)?;
    out.flush()
}

/// How long one plugin call may last before the parent is told its name.
const CALL_NAMED_AFTER: Duration = Duration::from_millis(200);

/// Reports the game's progress every [`FLUSH_EVERY`] while it changes, and
/// the name of a plugin call the game has been in for
/// [`CALL_NAMED_AFTER`] (once a call).
fn report_progress(pulse: SharedPulse, calls: arbiter_api::host::CallWatch) {
    let (mut seen, mut since, mut told) = (calls.now(), Instant::now(), false);
    loop {
        std::thread::sleep(FLUSH_EVERY);
        let now = calls.now();
        if now != seen {
            (seen, since, told) = (now, Instant::now(), false);
        } else if let (Some(call), false) = (now.call, told) {
            if since.elapsed() >= CALL_NAMED_AFTER {
                told = true;
                let _p = Pulse::lock(&pulse);
                if send(&WorkerMessage::InCall(call.to_string())).is_err() {
                    return;
                }
            }
        }
        let mut p = Pulse::lock(&pulse);
        if !p.take_changed() {
            continue;
        }
        let allowance_ms = p.allowance.saturating_sub(p.last.elapsed()).as_millis() as u64;
        // Sent under the lock, so a record never comes before it.
        if send(&WorkerMessage::Progress { allowance_ms }).is_err() {
            return; // the parent is gone
        }
    }
}

/// The worker's side: plays the games it is sent, one at a time, until its
/// input closes. Engine players are kept between games.
pub fn serve(registry: &Registry) -> Result<()> {
    // Stopped or orphaned (SIGTERM): end the engines, even mid-plugin-call.
    #[cfg(unix)]
    arbiter_core::process::end_engines_on_sigterm();
    let pulse = Pulse::shared(Duration::from_secs(30));
    let reporter = pulse.clone();
    let calls = arbiter_api::host::CallWatch::this_thread();
    std::thread::spawn(move || report_progress(reporter, calls));
    let mut engines = KeptEngines::new(KEPT_ENGINES);
    let mut journal = None;
    for line in std::io::stdin().lock().lines() {
        let line =
            line.map_err(|error| TournamentError::File { what: "reading jobs from standard input".into(), error })?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match play_job(registry, &line, &pulse, &mut engines, &mut journal) {
            Ok((mut record, true)) => {
                let plies = std::mem::take(&mut record.plies).len();
                WorkerMessage::Journaled { record: Box::new(record), plies }
            }
            Ok((record, false)) => WorkerMessage::Record(Box::new(record)),
            Err(e) => WorkerMessage::Error(e.to_string()),
        };
        let mut p = Pulse::lock(&pulse);
        p.take_changed();
        if send(&reply).is_err() {
            break; // the parent is gone: nothing is left to report to
        }
    }
    Ok(())
}

/// Plays the job on `line` (in this process, as a worker process does):
/// its record, and whether the job's journal holds every one of its plies.
pub fn play_job(
    registry: &Registry,
    line: &str,
    pulse: &SharedPulse,
    engines: &mut KeptEngines,
    journal: &mut Option<Journal>,
) -> Result<(GameRecord, bool)> {
    let job: Job =
        serde_json::from_str(line).map_err(|e| TournamentError::Unreadable(format!("unreadable job: {e}")))?;
    play_parsed(registry, &job, pulse, engines, journal)
}

/// Plays `setup` again in this process, as a worker does (a verifier's
/// re-execution of a reproducible game): its record.
pub fn play_setup(registry: &Registry, setup: &GameSetup) -> Result<GameRecord> {
    let job = Job { setup: setup.clone(), grace_ms: 60_000, live: false, journal: None };
    let pulse = Pulse::shared(Duration::from_millis(job.grace_ms));
    let mut engines = KeptEngines::new(KEPT_ENGINES);
    Ok(play_parsed(registry, &job, &pulse, &mut engines, &mut None)?.0)
}

/// [`play_job`] of a job read already.
fn play_parsed(
    registry: &Registry,
    job: &Job,
    pulse: &SharedPulse,
    engines: &mut KeptEngines,
    journal: &mut Option<Journal>,
) -> Result<(GameRecord, bool)> {
    Pulse::lock(pulse).restart(Duration::from_millis(job.grace_ms));
    let mut journal = match &job.journal {
        Some((path, game)) => {
            if journal.as_ref().is_none_or(|j| j.path() != path) {
                *journal = Journal::open(path).map_err(|e| tracing::warn!("ply journal {}: {e}", path.display())).ok();
            }
            if let Some(j) = journal.as_mut() {
                j.start(*game);
            }
            journal.as_mut()
        }
        None => None,
    };
    let setup = &job.setup;
    let variant = registry.get(&setup.variant)?;
    let specs = setup.seats.iter().map(|seat| PlayerSpec::parse(&seat.spec)).collect::<Result<Vec<_>, _>>()?;
    let seats: Vec<(&str, &PlayerSpec)> = setup.seats.iter().map(|s| s.name.as_str()).zip(&specs).collect();
    let mut players = seat_players(&seats, setup.seed, pulse, engines);
    let sink = |frame: &SeenFrame| {
        let _ = send(&WorkerMessage::Live(Box::new(frame.clone())));
    };
    let mut watch = GameWatch { pulse, journal: journal.as_deref_mut(), live: job.live.then(|| LiveRelay::new(&sink)) };
    let result = play(setup, variant, &mut players, Some(&mut watch));
    keep_engines(&seats, players, engines);
    let record = result?;
    let journaled = journal.is_some_and(|j| j.plies() == Some(record.plies.len()));
    Ok((record, journaled))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::model::Seat;
    use arbiter_testing::record;

    /// One message as it crosses the pipe: one line, read back whole.
    fn through_a_line(m: &WorkerMessage) -> WorkerMessage {
        let line = serde_json::to_string(m).unwrap();
        assert!(!line.contains('\n'), "{line}");
        serde_json::from_str(&line).unwrap()
    }

    #[test]
    fn every_worker_message_survives_its_line() {
        let r = record(&[0, 1, 0, 1]);
        match through_a_line(&WorkerMessage::Record(Box::new(r.clone()))) {
            WorkerMessage::Record(back) => assert_eq!(*back, r),
            _ => panic!("not a record"),
        }
        let bare = GameRecord { plies: Vec::new(), ..r.clone() };
        match through_a_line(&WorkerMessage::Journaled { record: Box::new(bare.clone()), plies: 4 }) {
            WorkerMessage::Journaled { record, plies: 4 } => assert_eq!(*record, bare),
            _ => panic!("not a journaled record"),
        }
        assert!(matches!(
            through_a_line(&WorkerMessage::Progress { allowance_ms: 1500 }),
            WorkerMessage::Progress { allowance_ms: 1500 }
        ));
        assert!(
            matches!(through_a_line(&WorkerMessage::Error("no\nvariant".into())), WorkerMessage::Error(e) if e == "no\nvariant")
        );
        let frame = SeenFrame {
            ply: 3,
            to_move: Seat::SECOND,
            observation: Default::default(),
            last_move: Some("e2e4".into()),
            clocks: vec![Some(1000), None],
            result: None,
        };
        assert!(
            matches!(through_a_line(&WorkerMessage::Live(Box::new(frame.clone()))), WorkerMessage::Live(f) if *f == frame)
        );
    }

    fn job() -> Job {
        let setup = GameSetup {
            variant: "chess".into(),
            options: Default::default(),
            position: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()),
            seats: ["a", "b"]
                .map(|name| SeatSetup {
                    name: name.into(),
                    spec: "random".into(),
                    tc: arbiter_core::clock::TimeControl::parse("40/60+0.5").unwrap(),
                })
                .to_vec(),
            seed: 7,
            margin_ms: 50,
            max_plies: Some(300),
            claim_draws: true,
            adjudication: Default::default(),
            pin_seats: true,
        };
        Job { setup, grace_ms: 30_000, live: false, journal: Some((PathBuf::from("/tmp/j"), 3)) }
    }

    #[test]
    fn a_job_survives_its_line_with_typed_time_controls() {
        let job = job();
        let line = serde_json::to_string(&job).unwrap();
        assert!(line.contains(r#""tc":"40/60+0.5""#), "{line}");
        let back: Job = serde_json::from_str(&line).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), line);
        let bad = line.replace("40/60+0.5", "fast");
        assert!(serde_json::from_str::<Job>(&bad).is_err(), "a time control that does not parse is refused");
    }

    /// A queue or remote slot pins itself to one CPU, or two while a game
    /// has a pondering engine, and pins seats only then and only with
    /// `--affinity`, whatever the job's maker said.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_slot_pins_two_cpus_for_a_pondering_engine_one_otherwise_and_none_without_affinity() {
        let entrant = |spec: &str| Entrant {
            name: spec.into(),
            spec: PlayerSpec::parse(spec).unwrap(),
            spec_text: spec.into(),
            tc: None,
        };
        let pondering = [entrant("uci:sf,ponder=on"), entrant("random")];
        let plain = [entrant("random"), entrant("random")];
        std::thread::spawn(move || {
            let all = arbiter_core::process::allowed_cpus().unwrap();
            let mut free = WorkerHandle::for_slot(Vec::new(), 0, false);
            let mut j = job();
            free.pin_for(&pondering, &mut j);
            assert!(!j.setup.pin_seats, "no seat pinned without --affinity");
            assert_eq!(arbiter_core::process::allowed_cpus().unwrap(), all);
            let mut slot = WorkerHandle::for_slot(Vec::new(), 0, true);
            slot.pin_for(&pondering, &mut j);
            assert!(j.setup.pin_seats);
            assert_eq!(arbiter_core::process::allowed_cpus().unwrap().len(), all.len().min(2));
            slot.pin_for(&plain, &mut j);
            assert!(!j.setup.pin_seats);
            assert_eq!(arbiter_core::process::allowed_cpus().unwrap(), [all[0]]);
        })
        .join()
        .unwrap();
    }
}
