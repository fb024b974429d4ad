//! `arbiter perft`: leaf counts, optionally per move, in-plugin or generic.

use std::time::Instant;

use anyhow::Result;
use clap::Args;

use super::out::say;
use super::OptionArgs;
use arbiter_api::perft::{self, Mode};
use arbiter_core::plugin::Registry;

/// Arguments of `arbiter perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Variant id.
    variant: String,
    /// Start from this position (the variant's position notation).
    #[arg(long)]
    position: Option<String>,
    /// Plies to count.
    #[arg(long)]
    depth: u32,
    /// Print the count below each legal move.
    #[arg(long)]
    divide: bool,
    /// Drive the recursion from the host through the ABI instead of in the plugin.
    #[arg(long)]
    generic: bool,
    #[command(flatten)]
    options: OptionArgs,
}

pub(super) fn run(registry: &Registry, args: &PerftArgs) -> Result<()> {
    let variant = registry.get(&args.variant)?;
    let options = args.options.to_map()?;
    if args.divide && args.depth == 0 {
        anyhow::bail!("--divide needs --depth 1 or more (at depth 0 no move is played)");
    }
    let game = match &args.position {
        Some(text) => variant.from_position(text, &options)?,
        None => variant.new_game(&options)?,
    };
    let mode = if args.generic { Mode::Generic } else { Mode::InPlugin };
    let started = Instant::now();
    let nodes = if args.divide {
        let rows = perft::divide(&game, args.depth, mode)?;
        for (mv, n) in &rows {
            say!("{mv}: {n}");
        }
        say!();
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft(&game, args.depth, mode)?
    };
    let secs = started.elapsed().as_secs_f64();
    say!("Nodes searched: {nodes}");
    say!("Time: {:.0} ms ({:.1} Mnps)", secs * 1000.0, nodes as f64 / secs.max(1e-9) / 1e6);
    Ok(())
}
