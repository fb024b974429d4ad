//! The `arbiter` binary: sets up logging, parses the command line, runs it,
//! and turns an error into one line on stderr.

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() {
    // SIGPIPE stays ignored (Rust's default), so writing to an engine that
    // has exited is an error value, never the death of arbiter. A closed
    // standard output of our own (`arbiter play chess | head`) is the value
    // `cli::out::Closed`: the command ends quietly and successfully.
    let cli = arbiter::cli::Cli::parse();
    let default_level = match cli.verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let run = arbiter::cli::run(cli);
    arbiter::process::flush_engine_log();
    if let Err(e) = run {
        if e.chain().any(|c| c.is::<arbiter::cli::out::Closed>() || c.is::<arbiter::cli::out::PrintError>())
            && e.chain().all(|c| !matches!(c.downcast_ref(), Some(arbiter::cli::out::PrintError::Io(_))))
        {
            std::process::exit(0);
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
