//! The `arbiter` binary: sets up logging, parses the command line, runs it,
//! and turns an error into one line on stderr.

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() {
    // Exit quietly when stdout is a closed pipe (`arbiter play chess | head`)
    // instead of failing on every later print.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of a signal is async-signal-safe
    // and happens before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
    if let Err(e) = arbiter::cli::run(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
