//! The `arbiter` binary: sets up logging, parses the command line, runs it,
//! and turns an error into one line on stderr.

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() {
    // SIGPIPE stays ignored (Rust's default), so writing to an engine that
    // has exited is an error value, never the death of arbiter. A closed
    // stdout of our own (`arbiter play chess | head`) makes `println!`
    // panic: that ends the program quietly and successfully, as ripgrep does.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload.downcast_ref::<String>().map(String::as_str).or(payload.downcast_ref::<&str>().copied());
        if message.is_some_and(|m| m.starts_with("failed printing to stdout") && m.contains("Broken pipe")) {
            std::process::exit(0);
        }
        default_hook(info)
    }));
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
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
