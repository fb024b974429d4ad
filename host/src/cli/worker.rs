//! `arbiter worker`: with `--db`, a queue worker that claims and plays the
//! games queued in a shared store (see [`arbiter_fleet::queue`]); with
//! `--server`, one that holds only a token and plays what a coordinator
//! hands out (see [`arbiter_fleet::remote`]); with neither, the child
//! that plays the games a tournament sends on stdin.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::out::{say, say_or_quit};
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::{Registry, SearchPath};
use arbiter_fleet::queue::{self, QueueWorkers};
use arbiter_fleet::remote::{self, Client, RemoteWorkers};
use arbiter_play::record::EventInfo;
use arbiter_store::Store;

/// Arguments of `arbiter worker`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The shared store whose queued games to play (a postgres:// URL, or an
    /// SQLite file that processes of this machine share). Without it, play
    /// the games sent on stdin (how tournaments drive their worker processes).
    #[arg(long, conflicts_with = "server")]
    db: Option<PathBuf>,
    /// The coordinator (`arbiter serve`) whose queued games to play, over
    /// HTTPS: `https://host:port`. Needs --token; no store credentials.
    #[arg(long, value_name = "URL", requires = "token")]
    server: Option<String>,
    /// This worker's token, from `arbiter tokens issue NAME` on the coordinator.
    #[arg(long, env = "ARBITER_WORKER_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// A PEM certificate to trust for --server besides the usual roots
    /// (a coordinator with a certificate of its own making).
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// Games played at once, each in its own worker process.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
    /// Only this tournament's games; exit when it is finished.
    #[arg(long)]
    tournament: Option<i64>,
    /// Exit after this many seconds without a game to claim.
    #[arg(long, value_name = "SECS")]
    idle_exit: Option<u64>,
    /// Seconds a claim lasts without a heartbeat: a game of a worker killed
    /// mid-game is played again by another after this long.
    #[arg(long, value_name = "SECS", default_value_t = queue::DEFAULT_LEASE.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    lease: u64,
    /// The most games a slot claims, plays and stores at once; it claims
    /// fewer as games take longer (one at a time for games of a quarter
    /// second or more).
    #[arg(long, default_value_t = queue::DEFAULT_BATCH as u32, value_parser = clap::value_parser!(u32).range(1..=1024))]
    batch: u32,
    /// Pin each slot (its games and their engines) to a CPU of its own, as
    /// fastchess's -use-affinity (Linux).
    #[arg(long)]
    affinity: bool,
}

/// Queue workers for `concurrency` games at once, as `arbiter worker` and
/// `tournament --local-workers` run them.
pub(super) fn queue_workers(
    concurrency: usize,
    tournament: Option<i64>,
    idle_exit: Option<Duration>,
    plugin_dirs: &[PathBuf],
) -> QueueWorkers {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    QueueWorkers {
        concurrency,
        tournament,
        idle_exit,
        lease: queue::DEFAULT_LEASE,
        batch: queue::DEFAULT_BATCH,
        affinity: false,
        plugin_dirs: plugin_dirs.to_vec(),
        holder: format!("{}:{}", host.trim(), std::process::id()),
    }
}

pub(super) fn run(registry: &Registry, args: &WorkerArgs, plugin_dirs: &[PathBuf]) -> Result<()> {
    if let (Some(server), Some(token)) = (&args.server, &args.token) {
        return remote(registry, args, server, token, plugin_dirs);
    }
    let Some(db) = &args.db else { return Ok(arbiter_tournament::worker::serve(registry)?) };
    let stop = super::stop_on_interrupt("; their claims expire");
    // A server that is starting or restarting is waited for (Ctrl-C ends the wait).
    let store = queue::patiently(&stop, || Ok(Store::open(db)?))?;
    // WebAssembly plugins the tournaments are pinned to and this machine
    // lacks come from the store, first on the search path (a server that
    // restarts just after the connection was made is waited for too).
    let fetched = queue::patiently(&stop, || {
        queue::fetch_plugins(registry, &store, args.tournament, &arbiter_api::host::wasm::fetch_dir())
    })?;
    let (reloaded, plugin_dirs) = with_fetched(fetched, plugin_dirs, "the store")?;
    let registry = reloaded.as_ref().unwrap_or(registry);
    let mut workers = queue_workers(
        args.concurrency as usize,
        args.tournament,
        args.idle_exit.map(Duration::from_secs),
        &plugin_dirs,
    );
    workers.lease = Duration::from_secs(args.lease);
    workers.affinity = args.affinity;
    workers.batch = args.batch as usize;
    say!("worker {} on store {}: {} at a time", workers.holder, store.location(), workers.concurrency);
    let report = queue::run_queue_workers(registry, &store, &workers, &stop, &on_game)?;
    say!("{} games stored, {} discarded as already stored by another worker", report.stored, report.duplicates);
    Ok(())
}

/// The plugins fetched from `source` put first on the search path: the
/// registry loaded again with them (none if nothing was fetched) and the
/// folders the worker processes are given.
fn with_fetched(
    fetched: Vec<PathBuf>,
    plugin_dirs: &[PathBuf],
    source: &str,
) -> Result<(Option<Registry>, Vec<PathBuf>)> {
    if fetched.is_empty() {
        return Ok((None, plugin_dirs.to_vec()));
    }
    for file in &fetched {
        say!("fetched from {source}: {}", file.display());
    }
    let dirs: Vec<PathBuf> = fetched.into_iter().chain(plugin_dirs.iter().cloned()).collect();
    Ok((Some(Registry::load(&SearchPath::resolve(&dirs))), dirs))
}

/// Prints one stored game.
fn on_game(record: &GameRecord, event: &EventInfo) {
    say_or_quit!(
        "tournament {} game {}: {}: {}",
        event.tournament.as_ref().map_or(0, |t| t.id),
        event.tournament.as_ref().map_or(0, |t| t.index + 1),
        super::out::players(record),
        super::out::result(record)
    );
}

/// `arbiter worker --server URL --token TOKEN`.
fn remote(registry: &Registry, args: &WorkerArgs, server: &str, token: &str, plugin_dirs: &[PathBuf]) -> Result<()> {
    let stop = super::stop_on_interrupt("; their claims expire");
    let client = Client::new(server, token, args.ca_cert.as_deref())?;
    // WebAssembly plugins the tournaments are pinned to and this machine
    // lacks come from the coordinator, first on the search path.
    let fetched = remote::fetch_plugins(registry, &client, args.tournament, &arbiter_api::host::wasm::fetch_dir())?;
    let (reloaded, plugin_dirs) = with_fetched(fetched, plugin_dirs, "the coordinator")?;
    let registry = reloaded.as_ref().unwrap_or(registry);
    let local = queue_workers(1, None, None, &[]);
    let workers = RemoteWorkers {
        server: server.to_string(),
        token: token.to_string(),
        ca_cert: args.ca_cert.clone(),
        concurrency: args.concurrency as usize,
        tournament: args.tournament,
        idle_exit: args.idle_exit.map(Duration::from_secs),
        batch: args.batch as usize,
        affinity: args.affinity,
        plugin_dirs,
        slot_prefix: local.holder,
    };
    say!("worker {} on coordinator {server}: {} at a time", workers.slot_prefix, workers.concurrency);
    let report = remote::run_remote_workers(registry, &workers, &stop, &on_game)?;
    say!("{} games stored, {} discarded as already stored by another worker", report.stored, report.duplicates);
    Ok(())
}
