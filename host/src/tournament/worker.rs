//! Worker processes: by default every game of a tournament runs in an
//! `arbiter worker` child, so a plugin that panics, aborts, segfaults, loops
//! forever or runs out of memory costs one game, not the tournament.
//!
//! Protocol, one JSON object per line. Parent to worker: a game to play
//! (variant, options, position, seats with name/spec/time control, seed,
//! referee settings, the watchdog's grace). Worker to parent:
//! `{"thinking": BUDGET_MS}` before a move whose budget exceeds half the grace,
//! `{"moved": PLY}` after moves (at most every 100 ms), `{"live": FRAME}` (the
//! spectator's view of the game, at most every 250 ms, if the job asks), then
//! `{"record": GAME}` (the game in a compact form, [`WireRecord`]) or
//! `{"error": MESSAGE}`.
//! The parent's watchdog allows a thinking player its budget plus a grace
//! period, and any other step the grace period; past that the game is
//! recorded as "plugin hung" and the worker is killed and replaced. A worker
//! that exits mid-game gives "plugin crashed".

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_api::{Error, Outcome};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::runner::LiveRelay;
use super::runner::{Entrant, ScheduledGame};
use crate::clock::TimeControl;
use crate::players::{Player, PlayerError, PlayerSpec, Reply};
use crate::plugin::Registry;
use crate::process::EngineProcess;
use crate::referee::{play_game, play_game_watched, GameConfig, GameRecord, GameResult, Seen, Start, StartFrom, Turn};

/// The job line for one game.
pub fn job_json(
    entrants: &[Entrant],
    game: &ScheduledGame,
    margin_ms: u64,
    max_plies: Option<u32>,
    claim_draws: bool,
    grace: Duration,
) -> Value {
    let seats: Vec<Value> = game
        .seats
        .iter()
        .map(|&e| json!({"name": entrants[e].name, "spec": entrants[e].spec_text, "tc": entrants[e].tc.to_string()}))
        .collect();
    json!({
        "variant": game.variant.info().id,
        "options": game.options,
        "position": game.position,
        "seats": seats,
        "seed": game.seed,
        "margin_ms": margin_ms,
        "max_plies": max_plies,
        "claim_draws": claim_draws,
        "grace_ms": grace.as_millis() as u64,
    })
}

/// One ply on the wire: (player, move id, text, used µs, reported ms, clock ms, score).
type WirePly = (u32, u64, String, u64, Option<u64>, Option<u64>, Option<i32>);

/// A game record as the worker sends it: plain fields, plies as tuples, so
/// that the transfer costs little next to a fast game.
#[derive(Serialize, Deserialize)]
pub struct WireRecord {
    variant: String,
    plugin: String,
    players: Vec<String>,
    time_controls: Vec<String>,
    options: serde_json::Map<String, Value>,
    start_position: String,
    standard_start: bool,
    plies: Vec<WirePly>,
    winner: Option<u32>,
    drawn: bool,
    termination: String,
    final_position: String,
    started_at: u64,
    duration_ms: u64,
    record_tags: Vec<(String, String)>,
}

impl WireRecord {
    fn from_record(r: GameRecord) -> WireRecord {
        WireRecord {
            variant: r.variant,
            plugin: r.plugin,
            players: r.players,
            time_controls: r.time_controls.iter().map(|t| t.to_string()).collect(),
            options: r.options,
            start_position: r.start_position,
            standard_start: r.standard_start,
            plies: r
                .plies
                .into_iter()
                .map(|p| (p.player, p.mv, p.text, p.used_us, p.reported_ms, p.clock_ms, p.score))
                .collect(),
            winner: match r.result.outcome {
                Outcome::Win(p) => Some(p),
                _ => None,
            },
            drawn: r.result.outcome == Outcome::Draw,
            termination: r.result.termination,
            final_position: r.final_position,
            started_at: r.started_at,
            duration_ms: r.duration_ms,
            record_tags: r.record_tags,
        }
    }

    fn into_record(self) -> Option<GameRecord> {
        let outcome = match (self.winner, self.drawn) {
            (Some(p), _) => Outcome::Win(p),
            (None, true) => Outcome::Draw,
            _ => Outcome::Ongoing,
        };
        Some(GameRecord {
            variant: self.variant,
            plugin: self.plugin,
            players: self.players,
            time_controls: self.time_controls.iter().map(|t| TimeControl::parse(t).ok()).collect::<Option<_>>()?,
            options: self.options,
            start_position: self.start_position,
            standard_start: self.standard_start,
            plies: self
                .plies
                .into_iter()
                .map(|(player, mv, text, used_us, reported_ms, clock_ms, score)| crate::referee::PlyRecord {
                    player,
                    mv,
                    text,
                    used_us,
                    reported_ms,
                    clock_ms,
                    score,
                })
                .collect(),
            result: GameResult { outcome, termination: self.termination },
            final_position: self.final_position,
            started_at: self.started_at,
            duration_ms: self.duration_ms,
            viewer: None,
            record_tags: self.record_tags,
        })
    }
}

/// What the worker answers for one game.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Answer {
    Record(Box<WireRecord>),
    Error(String),
}

/// A record for a game the worker could not finish: the seat to move is not
/// to blame, so it has no result (`*`), only the reason.
fn failed_record(entrants: &[Entrant], game: &ScheduledGame, termination: String) -> GameRecord {
    let plugin = game.variant.plugin();
    GameRecord {
        variant: game.variant.info().id.clone(),
        plugin: format!("{} {}", plugin.name, plugin.version),
        players: game.seats.iter().map(|&e| entrants[e].name.clone()).collect(),
        time_controls: game.seats.iter().map(|&e| entrants[e].tc.clone()).collect(),
        options: game.options.clone(),
        start_position: game.position.clone().unwrap_or_else(|| game.variant.info().start_position.clone()),
        standard_start: game.position.is_none(),
        plies: Vec::new(),
        result: GameResult { outcome: Outcome::Ongoing, termination },
        final_position: String::new(),
        started_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        duration_ms: 0,
        viewer: None,
        record_tags: game.variant.info().record_tags.clone(),
    }
}

/// The parent's handle on one worker process.
pub struct WorkerHandle {
    process: Option<EngineProcess>,
    plugin_dirs: Vec<PathBuf>,
    grace: Duration,
}

impl WorkerHandle {
    /// A handle that starts `arbiter worker` on first use.
    pub fn new(plugin_dirs: Vec<PathBuf>, grace: Duration) -> Self {
        WorkerHandle { process: None, plugin_dirs, grace }
    }

    fn process(&mut self) -> Result<&mut EngineProcess, PlayerError> {
        if self.process.is_none() {
            let exe = std::env::current_exe().map_err(|e| PlayerError::Crashed(e.to_string()))?;
            let mut cmd = Command::new(exe);
            for d in &self.plugin_dirs {
                cmd.arg("--plugin-dir").arg(d);
            }
            cmd.arg("worker");
            // Its own process group: a Ctrl-C at the terminal reaches only the
            // parent, which then stops the workers itself.
            #[cfg(unix)]
            std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
            self.process = Some(EngineProcess::spawn(cmd, "arbiter worker")?);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    /// Plays one game in the worker. Failures of the worker itself become a
    /// record with the termination "plugin crashed: ..." or "plugin hung: ...".
    /// Frames of the game in progress (`{"live": FRAME}` lines, sent when the
    /// job asks for them) go to `live`.
    pub fn play(
        &mut self,
        entrants: &[Entrant],
        game: &ScheduledGame,
        job: &Value,
        live: Option<&dyn Fn(&Value)>,
    ) -> Result<GameRecord, Error> {
        let grace = self.grace;
        let outcome = (|| -> Result<Result<GameRecord, Error>, PlayerError> {
            let p = self.process()?;
            p.send(&job.to_string())?;
            let mut allowance = grace;
            loop {
                let line = p.recv(Some(Instant::now() + allowance))?;
                if line.starts_with("{\"thinking\"") {
                    let budget =
                        serde_json::from_str::<Value>(&line).ok().and_then(|v| v["thinking"].as_u64()).unwrap_or(0);
                    allowance = grace + Duration::from_millis(budget);
                } else if line.starts_with("{\"moved\"") {
                    allowance = grace;
                } else if line.starts_with("{\"live\"") {
                    allowance = grace;
                    if let (Some(sink), Ok(v)) = (live, serde_json::from_str::<Value>(&line)) {
                        sink(&v["live"]);
                    }
                } else if let Ok(answer) = serde_json::from_str::<Answer>(&line) {
                    return Ok(match answer {
                        Answer::Record(r) => {
                            r.into_record().ok_or_else(|| Error::unsupported("worker sent a malformed game record"))
                        }
                        Answer::Error(e) => Err(Error::bad_options(e)),
                    });
                }
            }
        })();
        match outcome {
            Ok(result) => result,
            Err(e) => {
                self.process = None; // kill and reap; a fresh worker plays the next game
                let termination = match e {
                    PlayerError::Timeout => format!("plugin hung: no progress for {} s", grace.as_secs()),
                    PlayerError::Crashed(detail) => {
                        format!("plugin crashed: {}", detail.replace("'arbiter worker' ", "worker "))
                    }
                    other => format!("plugin crashed: {other}"),
                };
                Ok(failed_record(entrants, game, termination))
            }
        }
    }
}

/// Reports progress to the parent around calls into a player: always
/// before a long think, otherwise at most every 100 ms.
struct Heartbeat {
    inner: Box<dyn Player>,
    out: Arc<Mutex<BeatOut>>,
}

/// The worker's stdout and when it last carried a heartbeat.
struct BeatOut {
    last: Instant,
    grace_ms: u64,
}

const BEAT_EVERY: Duration = Duration::from_millis(100);

impl BeatOut {
    /// Sends one line to the parent; it counts as a heartbeat.
    fn send(&mut self, msg: &Value) {
        self.last = Instant::now();
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{msg}");
        let _ = stdout.flush();
    }
}

impl Heartbeat {
    fn beat(&self, msg: Value, force: bool) {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if force || out.last.elapsed() >= BEAT_EVERY {
            out.send(&msg);
        }
    }
}

impl Player for Heartbeat {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        self.inner.new_game(start)
    }
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let budget = turn.budget_ms().unwrap_or(0);
        let long = budget * 2 > self.out.lock().map(|o| o.grace_ms).unwrap_or(0);
        self.beat(json!({"thinking": budget}), long);
        let r = self.inner.choose(turn);
        self.beat(json!({"moved": turn.ply()}), long);
        r
    }
    fn notify(&mut self, seen: &Seen<'_>) {
        self.inner.notify(seen);
        self.beat(json!({"moved": 0}), false);
    }
    fn game_over(&mut self, result: &GameResult, me: u32) {
        self.inner.game_over(result, me);
    }
}

/// The worker's side: plays the games it is sent, one at a time, until its
/// input closes. Engine players are kept between games.
pub fn serve(registry: &Registry) -> anyhow::Result<()> {
    let out = Arc::new(Mutex::new(BeatOut { last: Instant::now(), grace_ms: 0 }));
    let mut engines: std::collections::HashMap<String, Box<dyn Player>> = std::collections::HashMap::new();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match play_job(registry, &line, &out, &mut engines) {
            Ok(record) => Answer::Record(Box::new(WireRecord::from_record(record))),
            Err(e) => Answer::Error(format!("{e:#}")),
        };
        let mut o = std::io::stdout().lock();
        // The parent is gone (killed): nothing is left to report to.
        let sent = serde_json::to_writer(&mut o, &reply)
            .map_err(std::io::Error::from)
            .and_then(|_| writeln!(o))
            .and_then(|_| o.flush());
        if sent.is_err() {
            break;
        }
    }
    Ok(())
}

fn play_job(
    registry: &Registry,
    line: &str,
    out: &Arc<Mutex<BeatOut>>,
    engines: &mut std::collections::HashMap<String, Box<dyn Player>>,
) -> anyhow::Result<GameRecord> {
    let job: Value = serde_json::from_str(line)?;
    out.lock().unwrap_or_else(|e| e.into_inner()).grace_ms = job["grace_ms"].as_u64().unwrap_or(30_000);
    let variant = registry.get(job["variant"].as_str().unwrap_or(""))?;
    let options = job["options"].as_object().cloned().unwrap_or_default();
    let seed = job["seed"].as_u64().unwrap_or(0);
    let seats = job["seats"].as_array().cloned().unwrap_or_default();
    let mut keys = Vec::new();
    let mut players: Vec<Box<dyn Player>> = Vec::new();
    let mut tcs = Vec::new();
    for (i, s) in seats.iter().enumerate() {
        let spec_text = s["spec"].as_str().unwrap_or("");
        let spec = PlayerSpec::parse(spec_text)?;
        let key = format!("{}\u{0}{spec_text}", s["name"].as_str().unwrap_or(""));
        // Engines (already wrapped) are reused; seeded players are made afresh.
        let player = match (&spec, engines.remove(&key)) {
            (PlayerSpec::Uci(_) | PlayerSpec::Engine { .. } | PlayerSpec::Hub { .. }, Some(p)) => p,
            (spec, _) => {
                let inner = spec.create(seed.wrapping_mul(31).wrapping_add(i as u64));
                Box::new(Heartbeat { inner, out: out.clone() }) as Box<dyn Player>
            }
        };
        players.push(player);
        keys.push((key, matches!(spec, PlayerSpec::Uci(_) | PlayerSpec::Engine { .. } | PlayerSpec::Hub { .. })));
        tcs.push(TimeControl::parse(s["tc"].as_str().unwrap_or("inf"))?);
    }
    let config = GameConfig {
        time_controls: tcs,
        margin_ms: job["margin_ms"].as_u64().unwrap_or(50),
        max_plies: job["max_plies"].as_u64().map(|m| m as u32),
        claim_draws: job["claim_draws"].as_bool().unwrap_or(true),
    };
    let position = job["position"].as_str();
    let start = position.map(StartFrom::Position).unwrap_or(StartFrom::Standard);
    let result = if job["live"].as_bool() == Some(true) {
        let sink = |frame: &Value| out.lock().unwrap_or_else(|e| e.into_inner()).send(&json!({ "live": frame }));
        play_game_watched(variant, &options, start, &mut players, &config, &mut LiveRelay::new(&sink))
    } else {
        play_game(variant, &options, start, &mut players, &config)
    };
    // Keep engine processes for the next game.
    for ((key, keep), p) in keys.into_iter().zip(players) {
        if keep {
            engines.insert(key, p);
        }
    }
    Ok(result?)
}
