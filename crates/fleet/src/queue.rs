//! Many machines, one tournament: the store's queue of games. A tournament
//! registered on a shared store (`arbiter tournament --db postgres://...
//! --local-workers N`) puts every game it can plan into the queue; `arbiter
//! worker --db ...` processes on any machine claim games (a batch of short
//! ones, one game at real time controls), play each in an isolated worker
//! process exactly as a local run does, and store the batch in one
//! transaction that also takes its games off the queue. Then they plan
//! again and enqueue what the new results make known (the next Swiss or
//! knockout round): planning is a pure function of the stored results and
//! enqueueing is idempotent, so any worker may do it, a worker that dies
//! between the two transactions leaves nothing undone that the next one
//! will not do, and workers alone finish a tournament whose coordinator has
//! exited.
//!
//! A claim is a lease, renewed while its batch is played: the games of a
//! worker killed mid-game (or of a lost machine) are claimed again once the
//! lease expires, and a result is stored exactly once (a late duplicate is
//! discarded and logged). A worker whose plugin build differs from the one
//! the tournament was registered with refuses its games, naming both hashes.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arbiter_core::plugin::Registry;
use arbiter_play::players::PlayerSpec;
use arbiter_play::record::{EventInfo, TournamentSlot};
use arbiter_store::{Claim, QueuedGame, Store};
use arbiter_tournament::driver::Tournament;
use arbiter_tournament::error::{Result, TournamentError};
use arbiter_tournament::games::{Entrant, ScheduledGame};
use arbiter_tournament::pins::{engine_pins, PluginPin};
use arbiter_tournament::view::TournamentView;
use arbiter_tournament::worker::{Job, WorkerHandle};

/// How long a claim lasts without a heartbeat (renewed every third of it).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The most games a worker slot claims at once, unless told otherwise.
pub const DEFAULT_BATCH: usize = 16;

/// About how long a batch of claimed games should take to play: games this
/// short or shorter are claimed (and stored) several at a time, so that the
/// store's cost per transaction is shared; longer games one at a time.
const BATCH_PLAY_TIME: Duration = Duration::from_millis(250);

/// The pins of every variant of `tournament`, as this machine has them.
pub fn pins(tournament: &Tournament) -> Result<BTreeMap<String, PluginPin>> {
    tournament.variants.iter().map(|v| Ok((v.info().id.clone(), PluginPin::of_variant(v)?))).collect()
}

/// Why this machine may not play `tournament`'s games: a plugin that is not
/// the build the tournament was registered with.
pub fn refusal(tournament: &Tournament) -> Result<Option<String>> {
    let registered = &tournament.definition.plugins;
    for (variant, mine) in pins(tournament)? {
        match registered.get(&variant) {
            Some(theirs) if !theirs.same_build(&mine) || theirs.api_version != mine.api_version => {
                let path = tournament.variants.iter().find(|v| v.info().id == variant).map(|v| v.plugin().path.clone());
                let definition = |p: &PluginPin| p.definition.as_ref().map(|d| format!(", definition sha256 {d}"));
                return Ok(Some(format!(
                    "tournament {}: variant {variant}: this machine's plugin {} (sha256 {}, arbiter-api {}{}) is not \
                     the build the tournament was registered with ({}, sha256 {}, arbiter-api {}{})",
                    tournament.id,
                    path.map(|p| p.display().to_string()).unwrap_or_default(),
                    mine.sha256,
                    mine.api_version,
                    definition(&mine).unwrap_or_default(),
                    theirs.file,
                    theirs.sha256,
                    theirs.api_version,
                    definition(theirs).unwrap_or_default()
                )));
            }
            _ => {}
        }
    }
    let registered = &tournament.definition.engines;
    for (name, mine) in engine_pins(&tournament.entrants)? {
        match registered.get(&name) {
            Some(theirs) if theirs.sha256 != mine.sha256 => {
                return Ok(Some(format!(
                    "tournament {}: player {name}: this machine's engine {} (sha256 {}) is not the binary the \
                     tournament was registered with (sha256 {})",
                    tournament.id, theirs.file, mine.sha256, theirs.sha256
                )));
            }
            _ => {}
        }
    }
    Ok(None)
}

/// The WebAssembly plugins the unfinished tournaments of `store` (or only
/// `tournament`) are pinned to and this machine lacks, fetched from the
/// store into `folder` (see [`arbiter_tournament::pins::fetch_sandboxed`]): the files to
/// put first on the search path.
pub fn fetch_plugins(
    registry: &Registry,
    store: &Store,
    tournament: Option<i64>,
    folder: &Path,
) -> Result<Vec<PathBuf>> {
    let ids: Vec<i64> = match tournament {
        Some(t) => vec![t],
        None => unfinished(store, &[])?,
    };
    let mut files = Vec::new();
    for id in ids {
        let view = TournamentView::load(store, Some(id))?;
        let fetch = |sha256: &str| Ok(store.plugin_file(sha256)?.map(|(_, bytes)| bytes));
        for file in
            arbiter_tournament::pins::fetch_sandboxed(registry, &view.definition.plugins, folder, "the store", fetch)?
        {
            if !files.contains(&file) {
                files.push(file);
            }
        }
    }
    Ok(files)
}

/// Tournament `id` as the queue needs it: planned from its stored
/// definition, with no engine program looked for.
pub fn planned(registry: &Registry, store: &Store, id: i64) -> Result<Tournament> {
    Tournament::planned(registry, TournamentView::load(store, Some(id))?)
}

/// Puts every game of `tournament` that can be planned now and is neither
/// stored nor queued into the queue; marks the tournament finished when
/// every game is stored. Returns how many games were added.
pub fn enqueue_pending(store: &Store, tournament: &Tournament) -> Result<usize> {
    let id = tournament.id;
    let batch = tournament.batch(store)?;
    if batch.all_stored {
        store.finish_tournament(id)?;
        return Ok(0);
    }
    let config = tournament.run_config(Default::default(), arbiter_tournament::Isolation::InProcess);
    let queued: HashSet<u32> = store.queued_indices(id)?.into_iter().collect();
    let games: Vec<QueuedGame> = batch
        .games
        .iter()
        .filter(|(_, event)| event.tournament.as_ref().is_some_and(|slot| !queued.contains(&slot.index)))
        .map(|(game, event)| {
            let slot = event.tournament.clone().expect("a tournament game has a slot");
            let job = Job::new(&batch.entrants, game, &config, false);
            QueuedGame {
                tournament: id,
                index: slot.index,
                event: event.event.clone(),
                round: event.round,
                pair: slot.pair,
                seats: slot.seats,
                job: serde_json::to_string(&job).expect("a job serialises"),
            }
        })
        .collect();
    if games.is_empty() {
        return Ok(0);
    }
    Ok(store.enqueue(&games)?)
}

/// How `arbiter worker --db` runs.
#[derive(Clone, Debug)]
pub struct QueueWorkers {
    /// Games played at once, each in its own worker process.
    pub concurrency: usize,
    /// Only this tournament's games; the workers end when it is finished.
    pub tournament: Option<i64>,
    /// End after this long without a game to claim (`None`: wait forever,
    /// unless `tournament` is finished).
    pub idle_exit: Option<Duration>,
    /// How long a claim lasts without a heartbeat.
    pub lease: Duration,
    /// The most games a slot claims at once (it claims fewer, down to one,
    /// as games take longer; see `BATCH_PLAY_TIME`).
    pub batch: usize,
    /// Pin each slot (its worker process and engines) to a CPU of its own,
    /// two while a game has a pondering engine.
    pub affinity: bool,
    /// Plugin folders, passed on to the worker processes.
    pub plugin_dirs: Vec<PathBuf>,
    /// This worker's name in the store (`host:pid`).
    pub holder: String,
}

/// What the workers did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueReport {
    /// Games played and stored.
    pub stored: usize,
    /// Games played whose result another worker had stored first (discarded).
    pub duplicates: usize,
}

/// One queued game, made playable on this machine.
pub(super) fn playable(
    registry: &Registry,
    queued: &QueuedGame,
) -> Result<(Job, Vec<Entrant>, ScheduledGame, EventInfo)> {
    let job = job_of(queued)?;
    let (entrants, game) = playable_job(registry, &job, queued.round)?;
    Ok((job, entrants, game, event_of(queued)))
}

/// The job a queued game holds (the store keeps it as JSON text).
pub fn job_of(queued: &QueuedGame) -> Result<Job> {
    serde_json::from_str(&queued.job)
        .map_err(|e| TournamentError::Unreadable(format!("unreadable job in the queue: {e}")))
}

/// `job`, of round `round`, made playable on this machine: its entrants
/// and the game as the runner schedules it.
pub(super) fn playable_job(registry: &Registry, job: &Job, round: u32) -> Result<(Vec<Entrant>, ScheduledGame)> {
    let entrants = job
        .setup
        .seats
        .iter()
        .map(|s| {
            Ok(Entrant {
                name: s.name.clone(),
                spec: PlayerSpec::parse(&s.spec)?,
                spec_text: s.spec.clone(),
                tc: Some(s.tc.clone()),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let game = ScheduledGame {
        round,
        variant: registry.get(&job.setup.variant)?.clone(),
        options: job.setup.options.clone(),
        seats: (0..entrants.len()).collect(),
        position: job.setup.position.clone(),
        seed: job.setup.seed,
    };
    Ok((entrants, game))
}

/// The event a queued game's record belongs to.
pub fn event_of(queued: &QueuedGame) -> EventInfo {
    EventInfo {
        event: queued.event.clone(),
        round: queued.round,
        tournament: Some(TournamentSlot {
            id: queued.tournament,
            index: queued.index,
            pair: queued.pair,
            seats: queued.seats.clone(),
        }),
    }
}

/// Claims and plays queued games on `cfg.concurrency` threads until there
/// is no more work (see [`QueueWorkers`]) or `stop` is set; `on_game` hears
/// of each stored game.
pub fn run_queue_workers(
    registry: &Registry,
    store: &Store,
    cfg: &QueueWorkers,
    stop: &AtomicBool,
    on_game: &(dyn Fn(&arbiter_core::model::GameRecord, &EventInfo) + Sync),
) -> Result<QueueReport> {
    // Whatever a worker killed between storing a game and enqueueing what it
    // made known left undone is done first.
    let tournaments: Vec<i64> = match cfg.tournament {
        Some(t) => vec![t],
        None => patiently(stop, || unfinished(store, &[]))?,
    };
    let mut refused = HashSet::new();
    for &t in &tournaments {
        let tournament = patiently(stop, || planned(registry, store, t))?;
        if let Some(why) = refusal(&tournament)? {
            if cfg.tournament.is_some() {
                return Err(TournamentError::Refused(why));
            }
            tracing::warn!("{why}");
            eprintln!("refused: {why}");
            refused.insert(t);
            continue;
        }
        patiently(stop, || enqueue_pending(store, &tournament))?;
    }
    let refused = std::sync::Mutex::new(refused);
    let report = std::sync::Mutex::new(QueueReport::default());
    let failure = std::sync::Mutex::new(None::<TournamentError>);
    std::thread::scope(|scope| {
        for slot in 0..cfg.concurrency.max(1) {
            let (refused, report, failure) = (&refused, &report, &failure);
            scope.spawn(move || {
                let holder = format!("{}#{slot}", cfg.holder);
                let mut handle = WorkerHandle::for_slot(cfg.plugin_dirs.clone(), slot, cfg.affinity);
                let mut known = std::collections::HashMap::new();
                let mut idle_since = Instant::now();
                let mut batch = BatchSize::new(cfg.batch);
                // A finished batch is stored on a thread of its own while this
                // one claims and plays the next: at most one store pending.
                std::thread::scope(|storing| {
                    type Pending<'s> = Option<std::thread::ScopedJoinHandle<'s, Result<QueueReport>>>;
                    let settle = |pending: &mut Pending<'_>| {
                        let Some(handle) = pending.take() else { return };
                        match handle
                            .join()
                            .unwrap_or_else(|_| Err(TournamentError::Refused("the storing thread panicked".into())))
                        {
                            Ok(done) => {
                                if let Ok(mut r) = report.lock() {
                                    r.stored += done.stored;
                                    r.duplicates += done.duplicates;
                                }
                            }
                            // The games' leases run out and other workers play them.
                            Err(e) => {
                                tracing::warn!("worker {holder}: {e}");
                                eprintln!("worker {holder}: {e} (the games will be played again)");
                            }
                        }
                    };
                    let mut pending: Pending<'_> = None;
                    while !stop.load(Ordering::SeqCst) && failure.lock().map(|f| f.is_none()).unwrap_or(false) {
                        let skip: Vec<i64> = refused.lock().map(|r| r.iter().copied().collect()).unwrap_or_default();
                        let step =
                            play_batch(registry, store, cfg, &holder, &skip, batch.next(), &mut handle, &mut known);
                        match step {
                            Ok(Step::Played(finished, trouble)) => {
                                idle_since = Instant::now();
                                batch.played(finished.games.len(), finished.took);
                                settle(&mut pending);
                                if !finished.games.is_empty() {
                                    pending = Some(storing.spawn(move || store_batch(store, *finished, on_game)));
                                }
                                if let Some(e) = trouble {
                                    tracing::warn!("worker {holder}: {e}");
                                    eprintln!("worker {holder}: {e} (retrying)");
                                    std::thread::sleep(Duration::from_secs(1));
                                }
                            }
                            // The pending store may enqueue what the queue lacks
                            // (the next Swiss round) or end the tournament.
                            Ok(Step::Idle) if pending.is_some() => settle(&mut pending),
                            Ok(Step::Refused(t, why)) => {
                                eprintln!("refused: {why}");
                                if cfg.tournament.is_some() {
                                    if let Ok(mut f) = failure.lock() {
                                        f.get_or_insert(TournamentError::Refused(why));
                                    }
                                }
                                if let Ok(mut r) = refused.lock() {
                                    r.insert(t);
                                }
                            }
                            Ok(Step::Idle) => {
                                let wait = match lull(registry, store, cfg, &skip) {
                                    Ok(Lull::Finished) => break,
                                    Ok(Lull::InFlight) => batch.poll(),
                                    Ok(Lull::Empty) => IDLE_POLL,
                                    Err(e) => {
                                        tracing::warn!("worker {holder}: {e}");
                                        IDLE_POLL
                                    }
                                };
                                if cfg.idle_exit.is_some_and(|d| idle_since.elapsed() >= d) {
                                    break;
                                }
                                std::thread::sleep(wait);
                            }
                            // A lost connection is retried; the store reconnects.
                            Err(e) => {
                                tracing::warn!("worker {holder}: {e}");
                                eprintln!("worker {holder}: {e} (retrying)");
                                std::thread::sleep(Duration::from_secs(1));
                            }
                        }
                    }
                    settle(&mut pending);
                });
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_default() {
        return Err(e);
    }
    Ok(report.into_inner().unwrap_or_default())
}

/// How long a worker slot with nothing to claim and nothing in flight
/// waits before it looks at the queue again.
const IDLE_POLL: Duration = Duration::from_millis(200);

/// What a worker slot with nothing to claim finds.
enum Lull {
    /// The one tournament it serves is finished: the slot ends.
    Finished,
    /// Queued games are being played by other workers (or were just
    /// claimed): their results may end the tournament or make more games
    /// known, so the slot looks again soon.
    InFlight,
    /// Nothing queued, nothing being played.
    Empty,
}

/// Looks at the tournaments a worker slot serves when it has nothing to
/// claim. Of a tournament with games queued (being played by others) it
/// only notes so, with one look at the queue's index; for any other it
/// enqueues what stored results made known but nobody enqueued (a worker
/// killed between storing and enqueueing), which also marks a tournament
/// whose every game is stored finished: the last game stored ends its
/// tournament, and the worker that finds its queue empty says so.
fn lull(registry: &Registry, store: &Store, cfg: &QueueWorkers, skip: &[i64]) -> Result<Lull> {
    let open: Vec<i64> = match cfg.tournament {
        Some(t) if store.tournament(Some(t))?.is_some_and(|t| t.finished_at.is_some()) => return Ok(Lull::Finished),
        Some(t) => vec![t],
        None => unfinished(store, skip)?,
    };
    let mut in_flight = false;
    for &t in &open {
        if store.queue_open(t)? {
            in_flight = true;
        } else if let Err(e) = planned(registry, store, t).and_then(|planned| enqueue_pending(store, &planned)) {
            tracing::warn!("tournament {t}: {e}");
        }
    }
    match cfg.tournament {
        _ if in_flight => Ok(Lull::InFlight),
        Some(t) if store.tournament(Some(t))?.is_some_and(|t| t.finished_at.is_some()) => Ok(Lull::Finished),
        _ => Ok(Lull::Empty),
    }
}

/// The tournaments of `store` not yet finished, but those of `skip`.
pub(super) fn unfinished(store: &Store, skip: &[i64]) -> Result<Vec<i64>> {
    Ok(store
        .tournament_list()?
        .into_iter()
        .filter(|(t, _)| t.finished_at.is_none() && !skip.contains(&t.id))
        .map(|(t, _)| t.id)
        .collect())
}

/// How long a worker keeps trying a store it cannot reach (a server
/// restarting, a network hiccup) before it gives up.
pub const RECONNECT_FOR: Duration = Duration::from_secs(120);

/// Runs `f` until it succeeds, trying again every half second for
/// [`RECONNECT_FOR`] while the store fails (it reconnects on the next
/// call). Any other error (a refusal, a plugin that does not match its
/// pin, a variant not installed) is returned at once: waiting mends none.
pub fn patiently<T>(stop: &AtomicBool, mut f: impl FnMut() -> Result<T>) -> Result<T> {
    let t0 = Instant::now();
    loop {
        match f() {
            Ok(v) => return Ok(v),
            Err(e @ TournamentError::Store(_)) if t0.elapsed() < RECONNECT_FOR && !stop.load(Ordering::SeqCst) => {
                tracing::warn!("{e} (trying again)");
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => return Err(e),
        }
    }
}

/// How many games a worker slot claims at once: as many as play in about
/// [`BATCH_PLAY_TIME`] at the mean duration seen so far, between one and the
/// configured most; one until a game has been timed.
pub(super) struct BatchSize {
    most: usize,
    /// Mean wall time of a game, smoothed over the batches played.
    mean: Option<Duration>,
}

impl BatchSize {
    pub(super) fn new(most: usize) -> BatchSize {
        BatchSize { most: most.max(1), mean: None }
    }

    /// The size of the next claim.
    pub(super) fn next(&self) -> usize {
        match self.mean {
            None => 1,
            Some(mean) => {
                let fit = BATCH_PLAY_TIME.as_secs_f64() / mean.as_secs_f64().max(1e-6);
                (fit as usize).clamp(1, self.most)
            }
        }
    }

    /// How long to wait before looking again at a queue whose last games
    /// other workers are playing: about a game's time, so that the end of a
    /// tournament of instant games is seen within milliseconds and one of
    /// long games costs the store a look every [`IDLE_POLL`].
    pub(super) fn poll(&self) -> Duration {
        self.mean.unwrap_or(IDLE_POLL).clamp(Duration::from_millis(10), IDLE_POLL)
    }

    /// Hears that `games` games took `took` in all.
    pub(super) fn played(&mut self, games: usize, took: Duration) {
        if games == 0 {
            return;
        }
        let this = took / games as u32;
        self.mean = Some(match self.mean {
            None => this,
            Some(mean) => (mean * 3 + this) / 4,
        });
    }
}

/// A batch of games played, to be stored.
struct Finished {
    games: Vec<(Claim, arbiter_core::model::GameRecord, EventInfo)>,
    /// The wall time they took to play.
    took: Duration,
    tournament: std::sync::Arc<Tournament>,
}

/// What one turn of a worker thread did.
enum Step {
    /// Games were played, to be stored; with the trouble that ended the
    /// batch early, if any (its games not yet played were given back).
    Played(Box<Finished>, Option<TournamentError>),
    /// A claimed game's tournament may not be played here.
    Refused(i64, String),
    /// Nothing to claim.
    Idle,
}

/// Claims up to `size` games of one tournament and plays them one after the
/// other, renewing every claim of the batch while they are played.
#[allow(clippy::too_many_arguments)]
fn play_batch(
    registry: &Registry,
    store: &Store,
    cfg: &QueueWorkers,
    holder: &str,
    skip: &[i64],
    size: usize,
    handle: &mut WorkerHandle,
    known: &mut std::collections::HashMap<i64, std::sync::Arc<Tournament>>,
) -> Result<Step> {
    let claims = store.claim(holder, cfg.lease, cfg.tournament, skip, size)?;
    let Some(t) = claims.first().map(|c| c.game.tournament) else { return Ok(Step::Idle) };
    let tournament = match known.entry(t) {
        std::collections::hash_map::Entry::Occupied(known) => known.get().clone(),
        std::collections::hash_map::Entry::Vacant(unknown) => {
            let tournament = planned(registry, store, t)?;
            if let Some(why) = refusal(&tournament)? {
                store.release_claims(&claims)?;
                return Ok(Step::Refused(t, why));
            }
            unknown.insert(std::sync::Arc::new(tournament)).clone()
        }
    };
    // The leases are renewed while the games are played; the renewer ends
    // the moment the last one does (its channel closes).
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let held = &claims;
    let t0 = Instant::now();
    let (games, trouble) = std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(cfg.lease / 3) {
                if let Err(e) = store.renew_claims(held, cfg.lease) {
                    tracing::warn!("renewing the claims on games from {}: {e}", held[0].game.index);
                }
            }
        });
        let mut games = Vec::with_capacity(held.len());
        let mut trouble = None;
        for claim in held {
            let played = playable(registry, &claim.game)
                .and_then(|(job, entrants, game, event)| Ok((handle.play(&entrants, &game, &job, None)?, event)));
            match played {
                Ok((record, event)) => games.push((claim.clone(), record, event)),
                Err(e) => {
                    trouble =
                        Some(TournamentError::Game { tournament: t, number: claim.game.index + 1, error: Box::new(e) });
                    break;
                }
            }
        }
        drop(done);
        (games, trouble)
    });
    // A batch cut short gives back the games it did not reach (the one that
    // failed waits for its lease to run out, as a lost worker's would).
    if trouble.is_some() {
        let unplayed = &claims[(games.len() + 1).min(claims.len())..];
        if !unplayed.is_empty() {
            store.release_claims(unplayed)?;
        }
    }
    let took = t0.elapsed();
    Ok(Step::Played(Box::new(Finished { games, took, tournament }), trouble))
}

/// Stores a batch of played games in one transaction, each once (a late
/// duplicate is discarded and logged), tells `on_game` of each, and
/// enqueues what their results make known.
fn store_batch(
    store: &Store,
    finished: Finished,
    on_game: &(dyn Fn(&arbiter_core::model::GameRecord, &EventInfo) + Sync),
) -> Result<QueueReport> {
    let Finished { games, tournament, .. } = finished;
    let t = tournament.id;
    let batch: Vec<_> = games.iter().map(|(c, r, e)| (c, r, e)).collect();
    // Finished games are worth waiting for the store (a server restarting).
    let rule = tournament.stop_rule();
    let outcome = patiently(&AtomicBool::new(false), || Ok(store.complete_claims(&batch, rule)?))?;
    if outcome.stopped {
        tracing::info!("tournament {t}: its stopping rule holds; its queue is closed");
    }
    let mut done = QueueReport::default();
    for ((claim, record, event), id) in games.iter().zip(&outcome.ids) {
        if id.is_some() {
            done.stored += 1;
            on_game(record, event);
        } else {
            done.duplicates += 1;
            let why = format!(
                "game {} of tournament {t}: already stored by another worker; this result is discarded",
                claim.game.index
            );
            tracing::warn!("{why}");
            eprintln!("{why}");
        }
    }
    // Games become known with results only in systems that wait for them
    // (the next Swiss or knockout round, a tune's next pairs): plan again then. The end of a
    // tournament is noticed by the worker that finds its queue empty.
    if tournament.plans_as_results_come() {
        patiently(&AtomicBool::new(false), || enqueue_pending(store, &tournament))?;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{enqueue_pending, planned, playable, BatchSize, BATCH_PLAY_TIME};
    use arbiter_core::plugin::Registry;
    use arbiter_play::record::EventInfo;
    use arbiter_store::{Claim, Store};
    use arbiter_testing::definition;
    use arbiter_testing::record;
    use arbiter_testing::{played, race, stored_tune, temp_store};
    use arbiter_tournament::driver::Tournament;

    /// A store holding one tournament of the fixture's race between
    /// `players` (name, spec), as `format`.
    fn stored(name: &str, format: &str, players: &[(&str, &str)]) -> (Registry, Store, i64) {
        let store = temp_store();
        let head = format!("name = \"{name}\"\nformat = \"{format}\"\nrounds = 2");
        let definition = definition(&head, players, &["race"]);
        let id = store.add_tournament(name, &serde_json::to_string(&definition).unwrap()).unwrap();
        (Registry::of([race(arbiter_fixture::Fault::None)]), store, id)
    }

    /// Claims every queued game of `t` and stores a result for each (the
    /// first seat wins).
    fn play_all(registry: &Registry, store: &Store, t: i64) -> usize {
        let claims: Vec<Claim> = store.claim("unit:1#0", Duration::from_secs(60), Some(t), &[], 100).unwrap();
        let played: Vec<_> = claims
            .iter()
            .map(|c| {
                let (job, _, _, event) = playable(registry, &c.game).unwrap();
                let mut r = record(&[0, 1, 0]);
                r.variant = job.setup.variant;
                r.players = job.setup.seats.iter().map(|s| s.name.clone()).collect();
                r.result.outcome = arbiter_api::Outcome::Win(0);
                (c, r, event)
            })
            .collect();
        let batch: Vec<_> = played.iter().map(|(c, r, e)| (*c, r, e)).collect();
        store.complete_claims(&batch, None).unwrap();
        claims.len()
    }

    #[test]
    fn only_a_failing_store_is_waited_for_and_a_refusal_is_returned_at_once() {
        use std::sync::atomic::AtomicBool;

        use super::patiently;
        use arbiter_tournament::error::TournamentError;
        let stop = AtomicBool::new(false);
        let mut calls = 0;
        let refused: Result<(), _> = patiently(&stop, || {
            calls += 1;
            Err(TournamentError::Refused("the pinned build differs".into()))
        });
        assert!(refused.is_err());
        assert_eq!(calls, 1, "a refusal is not tried again");
        let mut calls = 0;
        let opened = patiently(&stop, || {
            calls += 1;
            let store =
                if calls == 1 { Store::open(std::path::Path::new("/nonexistent/dir/t.db"))? } else { temp_store() };
            Ok(store.location().to_string())
        });
        assert!(opened.is_ok(), "{opened:?}");
        assert_eq!(calls, 2, "a store that failed is tried again");
    }

    #[test]
    fn a_round_robin_is_queued_whole_once_and_finishes_when_every_game_is_stored() {
        let (registry, store, t) = stored("rr", "round-robin", &[("a", "random"), ("b", "random"), ("c", "random")]);
        let tournament = planned(&registry, &store, t).unwrap();
        // Three pairings, two cycles, a colour-swapped pair each.
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 12);
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 0, "queued once");
        assert_eq!(store.queue_counts(t).unwrap(), (12, 0));
        assert_eq!(play_all(&registry, &store, t), 12);
        assert!(store.tournament(Some(t)).unwrap().unwrap().finished_at.is_none());
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 0);
        assert!(store.tournament(Some(t)).unwrap().unwrap().finished_at.is_some(), "the last look finishes it");
    }

    #[test]
    fn a_swiss_round_is_queued_once_the_round_before_has_results() {
        let players = [("a", "random"), ("b", "random"), ("c", "random"), ("d", "random")];
        let (registry, store, t) = stored("swiss", "swiss", &players);
        let tournament = planned(&registry, &store, t).unwrap();
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 4, "round 1: two pairings, a pair each");
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 0, "round 2 waits for round 1");
        play_all(&registry, &store, t);
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 4);
        let rounds: Vec<u32> = store
            .claim("x:1#0", Duration::from_secs(60), Some(t), &[], 10)
            .unwrap()
            .iter()
            .map(|c| c.game.round)
            .collect();
        assert_eq!(rounds, [2, 2, 2, 2]);
    }

    #[test]
    fn a_queue_plans_without_looking_for_engine_programs_that_a_local_run_needs() {
        let missing = "uci:/nonexistent/arbiter-engine";
        let (registry, store, t) = stored("engines", "round-robin", &[("a", missing), ("b", "random")]);
        let tournament = planned(&registry, &store, t).unwrap();
        assert_eq!(enqueue_pending(&store, &tournament).unwrap(), 4);
        let e = Tournament::resume(&registry, &store, Some(t)).err().unwrap().to_string();
        assert!(e.contains("/nonexistent/arbiter-engine"), "{e}");
    }

    #[test]
    fn a_claim_becomes_the_game_its_job_describes() {
        let (registry, store, t) = stored("job", "round-robin", &[("a", "mcts:iterations=5"), ("b", "random:seed=4")]);
        enqueue_pending(&store, &planned(&registry, &store, t).unwrap()).unwrap();
        let claims = store.claim("x:1#0", Duration::from_secs(60), Some(t), &[], 2).unwrap();
        let (job, entrants, game, event) = playable(&registry, &claims[1].game).unwrap();
        assert_eq!(entrants.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["b", "a"], "the pair's second game");
        assert_eq!(entrants[0].spec.kind(), "random");
        assert_eq!((game.variant.info().id.as_str(), game.round, job.setup.seed), ("race", 1, game.seed));
        let slot = event.tournament.unwrap();
        assert_eq!((slot.id, slot.index, slot.pair, slot.seats), (t, 1, Some(0), vec![1, 0]));
        let mut broken = claims[0].clone();
        broken.game.job = "{".into();
        assert!(playable(&registry, &broken.game).err().unwrap().to_string().contains("unreadable job"));
    }

    #[test]
    fn a_worker_claims_one_game_until_it_has_timed_one_then_as_many_as_fit() {
        let mut size = BatchSize::new(16);
        assert_eq!(size.next(), 1);
        size.played(2, BATCH_PLAY_TIME / 5);
        assert_eq!(size.next(), 10);
        size.played(1, BATCH_PLAY_TIME * 10);
        assert_eq!(size.next(), 1, "long games go one at a time");
        size.played(50, Duration::from_micros(50));
        assert!(size.next() <= 16);
        assert!(size.poll() >= Duration::from_millis(10));
    }

    #[test]
    fn the_queue_holds_in_flight_pairs_and_each_stored_pair_lets_in_the_next() {
        let store = temp_store();
        let t = stored_tune(&store, 6, 2);
        assert_eq!(enqueue_pending(&store, &t).unwrap(), 4, "two pairs at once");
        assert_eq!(enqueue_pending(&store, &t).unwrap(), 0, "queued once");
        let queued: Vec<arbiter_tournament::worker::Job> = store
            .claim("w", std::time::Duration::from_secs(30), Some(t.id), &[], 8)
            .unwrap()
            .iter()
            .map(|c| serde_json::from_str(&c.game.job).unwrap())
            .collect();
        let specs: Vec<&str> = queued.iter().flat_map(|j| j.setup.seats.iter().map(|s| s.spec.as_str())).collect();
        assert!(specs.iter().all(|s| s.starts_with("mcts:iterations=6,c=")), "{specs:?}");
        assert_ne!(specs[0], specs[1], "the two sides play apart");
        for index in [0, 1] {
            let seats = if index == 0 { vec![0, 1] } else { vec![1, 0] };
            let slot = arbiter_play::record::TournamentSlot { id: t.id, index, pair: Some(0), seats };
            let event = EventInfo { event: "t".into(), round: 1, tournament: Some(slot) };
            store.add_game(&played(&race(arbiter_fixture::Fault::None), serde_json::json!({})), &event).unwrap();
        }
        assert_eq!(enqueue_pending(&store, &t).unwrap(), 2, "pair 3 once pair 1 is in");
        assert!(store.tournament(Some(t.id)).unwrap().unwrap().finished_at.is_none(), "not finished while pairs wait");
    }

    #[test]
    fn a_tune_whose_every_pair_is_stored_is_finished_by_the_queue() {
        let store = temp_store();
        let t = stored_tune(&store, 1, 1);
        assert_eq!(enqueue_pending(&store, &t).unwrap(), 2);
        for (index, seats) in [(0, vec![0, 1]), (1, vec![1, 0])] {
            let slot = arbiter_play::record::TournamentSlot { id: t.id, index, pair: Some(0), seats };
            let event = EventInfo { event: "t".into(), round: 1, tournament: Some(slot) };
            store.add_game(&played(&race(arbiter_fixture::Fault::None), serde_json::json!({})), &event).unwrap();
        }
        assert_eq!(enqueue_pending(&store, &t).unwrap(), 0);
        assert!(store.tournament(Some(t.id)).unwrap().unwrap().finished_at.is_some());
        assert_eq!(t.tune_state(&store).unwrap().unwrap().points.len(), 1);
    }
}
