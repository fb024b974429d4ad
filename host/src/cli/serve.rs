//! `arbiter serve`: the web view (see [`arbiter_web`]).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::out::say_or_quit;
use arbiter_core::plugin::Registry;
use arbiter_web::connections::ConnectionLimits;
use arbiter_web::{Reveal, ServeConfig};

/// Arguments of `arbiter serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// SQLite store to show (and to record browser games in).
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Address to listen on (loopback by default; port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// When the full record of a hidden-information game may be shown.
    #[arg(long, value_enum, default_value = "finished")]
    reveal: Reveal,
    /// Let browser games start engine processes (uci:, engine:, hub:).
    #[arg(long)]
    allow_engines: bool,
    /// A host name requests may use besides IP addresses and localhost
    /// (repeatable); others are refused, against DNS rebinding.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// The most browser games in progress at once.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    max_games: u32,
    /// Serve HTTPS with this PEM certificate chain (with --tls-key); remote
    /// workers (`arbiter worker --server https://...`) then connect securely.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The certificate's PEM private key.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Seconds a remote worker's claim lasts without a heartbeat.
    #[arg(long, value_name = "SECS", default_value_t = arbiter_fleet::queue::DEFAULT_LEASE.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    worker_lease: u64,
    /// The fraction (0 to 1) of remote workers' games with deterministic
    /// players (seeded built-in players, engines at a node limit, no clock)
    /// that a second worker plays again, to compare the two games.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.05, value_parser = fraction)]
    double_check: f64,
    /// The fraction (0 to 1) of remote workers' games whose players are all
    /// sandboxed engines or built-in players (reproducible on any machine)
    /// that this server plays again, whole, before they count; one that
    /// differs is refused as forged, with the ply where it does.
    #[arg(long, value_name = "FRACTION", default_value_t = 1.0, value_parser = fraction)]
    reexecute: f64,
    /// The most connections open at once from one address; more are closed
    /// at once (raise it for many workers behind one address, as behind a
    /// NAT or a reverse proxy on this machine).
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections_per_address: u32,
}

/// A number from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("'{text}' is not a fraction from 0 to 1")),
    }
}

pub(super) fn run(registry: Registry, args: &ServeArgs) -> Result<()> {
    let config = ServeConfig {
        db: args.db.clone(),
        bind: args.bind,
        reveal: args.reveal,
        allow_engines: args.allow_engines,
        allow_hosts: args.allow_hosts.clone(),
        max_games: args.max_games as usize,
        tls: args.tls_cert.clone().zip(args.tls_key.clone()),
        worker_lease: std::time::Duration::from_secs(args.worker_lease),
        double_check: args.double_check,
        reexecute: args.reexecute,
        connections: ConnectionLimits {
            per_address: args.max_connections_per_address as usize,
            ..ConnectionLimits::default()
        },
    };
    let scheme = if config.tls.is_some() { "https" } else { "http" };
    Ok(arbiter_web::serve(registry, config, |addr, store| {
        say_or_quit!("arbiter serve: {scheme}://{addr}/ (store {store})")
    })?)
}
