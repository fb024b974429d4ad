//! `arbiter worker --server URL --token TOKEN`: queue workers that hold a
//! token and no store credentials. Each slot claims games from the
//! coordinator ([`crate::coordinator`], over [`crate::wire`]), checks that
//! this machine has the builds the tournament is pinned to, plays the games
//! in isolated worker processes exactly as a local run does, renews its
//! claims while they are played, and uploads each finished batch, which the
//! coordinator verifies before it counts.
//!
//! A coordinator that cannot be reached (restarting, a network cut) is
//! tried again with a growing pause, up to [`crate::queue::RECONNECT_FOR`]
//! at a time; a finished game waits for it rather than being dropped, and an
//! upload sent twice (its answer lost) is answered as stored once.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::queue::{playable_job, BatchSize, QueueReport, RECONNECT_FOR};
use crate::wire::{
    ClaimRequest, ClaimResponse, ClaimedGame, GameKey, Held, PinsResponse, QueueState, TournamentPins, Upload,
    UploadResponse, UploadedGame, Verdict, API,
};
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_play::record::EventInfo;
use arbiter_tournament::error::{Result, TournamentError};
use arbiter_tournament::pins::{engine_pins, PluginPin};
use arbiter_tournament::worker::WorkerHandle;

/// How `arbiter worker --server` runs.
#[derive(Clone, Debug)]
pub struct RemoteWorkers {
    /// The coordinator's address (`https://host:port`).
    pub server: String,
    /// This worker's token.
    pub token: String,
    /// A PEM certificate to trust besides the usual roots (a coordinator
    /// with a certificate of its own making).
    pub ca_cert: Option<PathBuf>,
    /// Games played at once, each in its own worker process.
    pub concurrency: usize,
    /// Only this tournament's games; the workers end when it is finished.
    pub tournament: Option<i64>,
    /// End after this long without a game to claim.
    pub idle_exit: Option<Duration>,
    /// The most games a slot claims at once.
    pub batch: usize,
    /// Pin each slot to a CPU of its own, two while a game has a pondering engine.
    pub affinity: bool,
    /// Plugin folders, passed on to the worker processes.
    pub plugin_dirs: Vec<PathBuf>,
    /// This machine and process (`host:pid`); each slot adds `#slot`.
    pub slot_prefix: String,
}

/// What went wrong talking to the coordinator.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The coordinator answered no (a 4xx): the request will not succeed
    /// if sent again.
    #[error("the coordinator refused {path} ({status}): {message}")]
    Refused {
        /// The request's path.
        path: String,
        /// The HTTP status.
        status: u16,
        /// Its one-line reason.
        message: String,
    },
    /// The coordinator cannot be talked to safely (a certificate not
    /// trusted, a TLS failure, a malformed address): final.
    #[error("cannot talk to the coordinator at {server}: {message} (check the address, and --ca-cert for a certificate of the coordinator's own)")]
    Insecure {
        /// The coordinator.
        server: String,
        /// What failed.
        message: String,
    },
    /// No answer, or a failure of the coordinator's (a 5xx): worth
    /// sending again.
    #[error("the coordinator at {server} did not answer {path}: {message}")]
    Unreachable {
        /// The coordinator.
        server: String,
        /// The request's path.
        path: String,
        /// Why.
        message: String,
    },
}

impl From<CallError> for TournamentError {
    fn from(e: CallError) -> TournamentError {
        TournamentError::Refused(e.to_string())
    }
}

/// An HTTPS client of the coordinator's worker API.
pub struct Client {
    agent: ureq::Agent,
    server: String,
    bearer: String,
}

impl Client {
    /// A client of `server` with `token`, trusting `ca_cert` too if given.
    pub fn new(server: &str, token: &str, ca_cert: Option<&std::path::Path>) -> Result<Client> {
        use ureq::tls::{Certificate, RootCerts, TlsConfig};
        let mut tls = TlsConfig::builder();
        if let Some(file) = ca_cert {
            let pem = std::fs::read(file)
                .map_err(|error| TournamentError::File { what: format!("cannot read {}", file.display()), error })?;
            let certs = ureq::tls::parse_pem(&pem)
                .filter_map(|item| match item {
                    Ok(ureq::tls::PemItem::Certificate(c)) => Some(Ok(c)),
                    Ok(_) => None,
                    Err(e) => Some(Err(e)),
                })
                .collect::<std::result::Result<Vec<Certificate<'static>>, _>>()
                .map_err(|e| TournamentError::Unreadable(format!("{}: not a PEM certificate: {e}", file.display())))?;
            if certs.is_empty() {
                return Err(TournamentError::Unreadable(format!("{}: no certificate in it", file.display())));
            }
            tls = tls.root_certs(RootCerts::new_with_certs(&certs));
        }
        let agent = ureq::Agent::config_builder()
            .tls_config(tls.build())
            .http_status_as_error(false)
            // An upload of reproducible games waits while the coordinator
            // plays them again (as long as they took to play).
            .timeout_global(Some(Duration::from_secs(900)))
            .timeout_connect(Some(Duration::from_secs(10)))
            // The coordinator closes a connection idle for 10 s: one idle
            // for 5 s is not used again (a request on a connection the
            // server just closed would fail).
            .max_idle_age(Duration::from_secs(5))
            .build()
            .new_agent();
        Ok(Client {
            agent,
            server: server.trim_end_matches('/').to_string(),
            bearer: format!("Bearer {}", token.trim()),
        })
    }

    fn unreachable(&self, path: &str, message: String) -> CallError {
        CallError::Unreachable { server: self.server.clone(), path: path.to_string(), message }
    }

    /// A failed exchange: a certificate or TLS failure (or a malformed
    /// address) will fail again and is final; a connection refused, reset
    /// or timed out is worth another try.
    fn failed(&self, path: &str, e: ureq::Error) -> CallError {
        let tls = match &e {
            ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::InvalidData,
            ureq::Error::Tls(_) | ureq::Error::Rustls(_) | ureq::Error::BadUri(_) | ureq::Error::Http(_) => true,
            _ => false,
        };
        if tls {
            return CallError::Insecure { server: self.server.clone(), message: e.to_string() };
        }
        self.unreachable(path, e.to_string())
    }

    /// The answer's body, or the error its status says.
    fn answer(
        &self,
        path: &str,
        response: ureq::http::Response<ureq::Body>,
    ) -> std::result::Result<Vec<u8>, CallError> {
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .with_config()
            .limit(256 << 20)
            .read_to_vec()
            .map_err(|e| self.unreachable(path, e.to_string()))?;
        if (200..300).contains(&status) {
            return Ok(body);
        }
        let message = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
            .unwrap_or_else(|| String::from_utf8_lossy(&body).chars().take(200).collect());
        if status >= 500 {
            return Err(self.unreachable(path, format!("{status}: {message}")));
        }
        Err(CallError::Refused { path: path.to_string(), status, message })
    }

    /// `POST`s `body` as JSON to `API/path`, once.
    pub fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> std::result::Result<T, CallError> {
        let url = format!("{}{API}/{path}", self.server);
        let text = serde_json::to_vec(body).expect("a request serialises");
        let response = self
            .agent
            .post(&url)
            .header("Authorization", &self.bearer)
            .header("Content-Type", "application/json")
            .send(&text[..])
            .map_err(|e| self.failed(path, e))?;
        let bytes = self.answer(path, response)?;
        serde_json::from_slice(&bytes).map_err(|e| self.unreachable(path, format!("unreadable answer: {e}")))
    }

    /// `GET`s `API/path`, once: its bytes.
    pub fn get(&self, path: &str) -> std::result::Result<Vec<u8>, CallError> {
        let url = format!("{}{API}/{path}", self.server);
        let response =
            self.agent.get(&url).header("Authorization", &self.bearer).call().map_err(|e| self.failed(path, e))?;
        self.answer(path, response)
    }

    /// The pins of the coordinator's unfinished tournaments.
    pub fn pins(&self) -> std::result::Result<PinsResponse, CallError> {
        let bytes = self.get("pins")?;
        serde_json::from_slice(&bytes).map_err(|e| self.unreachable("pins", format!("unreadable answer: {e}")))
    }
}

/// Sends a request until it is answered: a coordinator that cannot be
/// reached is tried again after a pause that doubles from half a second to
/// eight, for [`RECONNECT_FOR`] (or until `stop`, unless `finished_games`:
/// a finished game's upload outlasts Ctrl-C). A refusal is returned at once.
pub fn patiently<T>(
    stop: &AtomicBool,
    finished_games: bool,
    mut call: impl FnMut() -> std::result::Result<T, CallError>,
) -> std::result::Result<T, CallError> {
    let t0 = Instant::now();
    let mut pause = Duration::from_millis(500);
    loop {
        match call() {
            Err(e @ CallError::Unreachable { .. })
                if t0.elapsed() < RECONNECT_FOR && (finished_games || !stop.load(Ordering::SeqCst)) =>
            {
                tracing::warn!("{e} (trying again in {} ms)", pause.as_millis());
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_secs(8));
            }
            other => return other,
        }
    }
}

/// How long a slot with nothing to claim waits before it asks again.
const IDLE_POLL: Duration = Duration::from_millis(200);

/// The longest a slot waits between two claims that found nothing.
const MOST_IDLE_WAIT: Duration = Duration::from_secs(2);

/// Claims, plays and uploads games on `cfg.concurrency` threads until there
/// is no more work or `stop` is set; `on_game` hears of each game stored.
pub fn run_remote_workers(
    registry: &Registry,
    cfg: &RemoteWorkers,
    stop: &AtomicBool,
    on_game: &(dyn Fn(&GameRecord, &EventInfo) + Sync),
) -> Result<QueueReport> {
    let client = Client::new(&cfg.server, &cfg.token, cfg.ca_cert.as_deref())?;
    let report = std::sync::Mutex::new(QueueReport::default());
    let failure = std::sync::Mutex::new(None::<TournamentError>);
    let skip = std::sync::Mutex::new(Vec::<i64>::new());
    std::thread::scope(|scope| {
        for slot in 0..cfg.concurrency.max(1) {
            let (client, report, failure, skip) = (&client, &report, &failure, &skip);
            scope.spawn(move || {
                let mut slot = Slot {
                    registry,
                    client,
                    cfg,
                    name: format!("{}#{slot}", cfg.slot_prefix),
                    handle: WorkerHandle::for_slot(cfg.plugin_dirs.clone(), slot, cfg.affinity),
                    batch: BatchSize::new(cfg.batch),
                };
                let mut idle_since = Instant::now();
                let mut wait = Duration::ZERO;
                while !stop.load(Ordering::SeqCst) && failure.lock().map(|f| f.is_none()).unwrap_or(false) {
                    let skipped = skip.lock().map(|s| s.clone()).unwrap_or_default();
                    match slot.turn(stop, &skipped, on_game) {
                        Ok(Turn::Played(done)) => {
                            idle_since = Instant::now();
                            wait = Duration::ZERO;
                            if let Ok(mut r) = report.lock() {
                                r.stored += done.stored;
                                r.duplicates += done.duplicates;
                            }
                        }
                        Ok(Turn::Wait(QueueState::Finished)) => break,
                        Ok(Turn::Wait(state)) => {
                            if cfg.idle_exit.is_some_and(|d| idle_since.elapsed() >= d) {
                                break;
                            }
                            // Asked again after about a game's time, then
                            // less and less often: a thousand idle slots at a
                            // tournament's end do not flood the coordinator.
                            let first = if state == QueueState::InFlight { slot.batch.poll() } else { IDLE_POLL };
                            wait = (wait * 3 / 2).clamp(first, MOST_IDLE_WAIT);
                            std::thread::sleep(wait);
                        }
                        Ok(Turn::Refused(t, why)) => {
                            eprintln!("refused: {why}");
                            if cfg.tournament.is_some() {
                                if let Ok(mut f) = failure.lock() {
                                    f.get_or_insert(TournamentError::Refused(why));
                                }
                            } else if let Ok(mut s) = skip.lock() {
                                s.push(t);
                            }
                        }
                        // A refused token or request, or an untrusted
                        // coordinator, ends every slot.
                        Err(e @ (CallError::Refused { .. } | CallError::Insecure { .. })) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e.into());
                            }
                        }
                        Err(e) => {
                            tracing::warn!("worker {}: {e}", slot.name);
                            eprintln!("worker {}: {e} (retrying)", slot.name);
                            std::thread::sleep(Duration::from_secs(1));
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_default() {
        return Err(e);
    }
    Ok(report.into_inner().unwrap_or_default())
}

/// One worker slot's state.
struct Slot<'a> {
    registry: &'a Registry,
    client: &'a Client,
    cfg: &'a RemoteWorkers,
    name: String,
    handle: WorkerHandle,
    batch: BatchSize,
}

/// What one turn of a slot did.
enum Turn {
    /// Games were played and uploaded.
    Played(QueueReport),
    /// Nothing was claimed: the queue's state.
    Wait(QueueState),
    /// A tournament's builds are not this machine's: its id, and why.
    Refused(i64, String),
}

impl Slot<'_> {
    /// Claims a batch, plays it and uploads it.
    fn turn(
        &mut self,
        stop: &AtomicBool,
        skip: &[i64],
        on_game: &(dyn Fn(&GameRecord, &EventInfo) + Sync),
    ) -> std::result::Result<Turn, CallError> {
        let request = ClaimRequest {
            slot: self.name.clone(),
            tournament: self.cfg.tournament,
            skip: skip.to_vec(),
            most: self.batch.next(),
        };
        let claimed: ClaimResponse = patiently(stop, false, || self.client.post("claim", &request))?;
        let Some(t) = claimed.games.first().map(|g| g.key.tournament) else { return Ok(Turn::Wait(claimed.queue)) };
        let held = Held { holder: claimed.holder.clone(), games: claimed.games.iter().map(|g| g.key).collect() };
        let games = claimed.games;
        let pins = claimed.pins.unwrap_or_default();
        if let Some(why) = self.refusal(t, &games, &pins) {
            patiently(stop, true, || self.client.post::<_, serde_json::Value>("release", &held))?;
            return Ok(Turn::Refused(t, why));
        }
        // The claims are renewed while the games are played.
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let lease = Duration::from_millis(claimed.lease_ms.max(300));
        let t0 = Instant::now();
        let (client, held_ref) = (self.client, &held);
        let played: Vec<(UploadedGame, EventInfo)> = std::thread::scope(|scope| {
            scope.spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(lease / 3) {
                    if let Err(e) = client.post::<_, serde_json::Value>("heartbeat", held_ref) {
                        tracing::warn!("renewing claims: {e}");
                    }
                }
            });
            let mut played = Vec::with_capacity(games.len());
            for (game, key) in games.iter().zip(&held_ref.games) {
                match self.play(game, *key) {
                    Ok(p) => played.push(p),
                    Err(e) => {
                        eprintln!("worker {}: game {} of tournament {t}: {e}", self.name, game.key.index + 1);
                        break;
                    }
                }
            }
            drop(done);
            played
        });
        self.batch.played(played.len(), t0.elapsed());
        // The games not played go back at once.
        let unplayed: Vec<GameKey> = held.games[played.len()..].to_vec();
        if !unplayed.is_empty() {
            let back = Held { holder: held.holder.clone(), games: unplayed };
            patiently(stop, true, || self.client.post::<_, serde_json::Value>("release", &back))?;
        }
        if played.is_empty() {
            return Ok(Turn::Played(QueueReport::default()));
        }
        let upload = Upload { holder: held.holder.clone(), games: played.iter().map(|(g, _)| g.clone()).collect() };
        let answer: UploadResponse = patiently(stop, true, || self.client.post("upload", &upload))?;
        let mut report = QueueReport::default();
        for ((game, event), verdict) in played.iter().zip(&answer.verdicts) {
            match verdict {
                Verdict::Stored | Verdict::AlreadyStored => {
                    report.stored += 1;
                    on_game(&game.record, event);
                }
                Verdict::Agrees => {
                    eprintln!("game {} of tournament {t}: played again, equal to the stored game", game.key.index + 1)
                }
                Verdict::Duplicate => {
                    report.duplicates += 1;
                    eprintln!(
                        "game {} of tournament {t}: already stored by another worker; discarded",
                        game.key.index + 1
                    );
                }
                Verdict::Refused(why) => {
                    eprintln!("game {} of tournament {t}: the coordinator refused it: {why}", game.key.index + 1)
                }
                Verdict::Unconfirmed(why) => {
                    eprintln!("game {} of tournament {t}: kept, not yet counted: {why}", game.key.index + 1)
                }
            }
        }
        Ok(Turn::Played(report))
    }

    /// Plays one claimed game: its upload, and its event.
    fn play(&mut self, claimed: &ClaimedGame, key: GameKey) -> Result<(UploadedGame, EventInfo)> {
        let job = &claimed.job;
        let (entrants, game) = playable_job(self.registry, job, claimed.round)?;
        let record = self.handle.play(&entrants, &game, job, None)?;
        let pins = TournamentPins {
            plugins: BTreeMap::from([(job.setup.variant.clone(), PluginPin::of_variant(&game.variant)?)]),
            engines: engine_pins(&entrants)?,
        };
        Ok((UploadedGame { key, record, pins }, claimed.event_info()))
    }

    /// Why this machine may not play these games of tournament `t`: a
    /// plugin or engine build that is not the one it is pinned to.
    fn refusal(&self, t: i64, games: &[ClaimedGame], pins: &TournamentPins) -> Option<String> {
        for game in games {
            let job = &game.job;
            let (entrants, scheduled) = match playable_job(self.registry, job, game.round) {
                Ok(p) => p,
                Err(e) => return Some(format!("tournament {t}: {e}")),
            };
            let plugin = scheduled.variant.plugin();
            if let (Some(theirs), Ok(mine)) =
                (pins.plugins.get(&job.setup.variant), PluginPin::of_variant(&scheduled.variant))
            {
                if !theirs.same_build(&mine) {
                    return Some(format!(
                        "tournament {t}: variant {}: this machine's plugin {} ({}) is not the build the tournament \
                         was registered with ({})",
                        job.setup.variant,
                        plugin.path.display(),
                        mine.describe(),
                        theirs.describe()
                    ));
                }
            }
            let mine = match engine_pins(&entrants) {
                Ok(m) => m,
                Err(e) => return Some(format!("tournament {t}: {e}")),
            };
            for (name, theirs) in &pins.engines {
                if mine.get(name).is_some_and(|m| m.sha256 != theirs.sha256) {
                    return Some(format!(
                        "tournament {t}: player {name}: this machine's engine {} is not the binary the tournament \
                         was registered with (sha256 {})",
                        theirs.file, theirs.sha256
                    ));
                }
            }
        }
        None
    }
}

/// The WebAssembly plugins the coordinator's unfinished tournaments (or
/// only `tournament`) are pinned to and `registry` lacks, fetched into
/// `folder` (see [`arbiter_tournament::pins::fetch_sandboxed`]).
pub fn fetch_plugins(
    registry: &Registry,
    client: &Client,
    tournament: Option<i64>,
    folder: &std::path::Path,
) -> Result<Vec<PathBuf>> {
    let pins = patiently(&AtomicBool::new(false), false, || client.pins())?;
    let mut files = Vec::new();
    for (_, pins) in pins.tournaments.iter().filter(|(t, _)| tournament.is_none_or(|only| only == **t)) {
        let fetched =
            arbiter_tournament::pins::fetch_sandboxed(registry, &pins.plugins, folder, "the coordinator", |sha256| {
                match client.get(&format!("plugins/{sha256}")) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(CallError::Refused { status: 404, .. }) => Ok(None),
                    Err(e) => Err(e.into()),
                }
            })?;
        for file in fetched {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    Ok(files)
}
