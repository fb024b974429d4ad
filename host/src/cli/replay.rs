//! `arbiter replay FILE`: re-plays every game of a PGN file through its
//! variant's plugin and reports the first illegal move with its game and ply.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::out::say;
use crate::plugin::Registry;
use crate::record::replay::replay_pgn;

/// Arguments of `arbiter replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A PGN file written by arbiter (or any PGN with a Variant tag arbiter knows).
    file: PathBuf,
}

pub(super) fn run(registry: &Registry, args: &ReplayArgs) -> Result<()> {
    let file = std::fs::File::open(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    match replay_pgn(registry, std::io::BufReader::new(file)) {
        Ok(n) => {
            say!("{n} game(s) replayed: every move is legal");
            Ok(())
        }
        Err(e) => bail!("{}: {e}", args.file.display()),
    }
}
