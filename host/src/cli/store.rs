//! `arbiter store copy FROM TO`: moves a whole store between backends (an
//! SQLite file and a PostgreSQL database, either way).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};

use super::out::say;
use arbiter_store::Store;

/// Arguments of `arbiter store`.
#[derive(Args, Debug)]
pub struct StoreArgs {
    /// What to do.
    #[command(subcommand)]
    action: StoreAction,
}

/// The store subcommands.
#[derive(Subcommand, Debug)]
enum StoreAction {
    /// Copy every tournament and game of FROM into the empty store TO.
    Copy {
        /// The store to read (an SQLite file or a postgres:// URL).
        from: PathBuf,
        /// The empty store to write.
        to: PathBuf,
    },
}

pub(super) fn run(args: &StoreArgs) -> Result<()> {
    match &args.action {
        StoreAction::Copy { from, to } => {
            let (from, to) = (Store::open(from)?, Store::open(to)?);
            let (tournaments, games) = from.copy_into(&to)?;
            say!("{tournaments} tournaments and {games} games copied from {} to {}", from.location(), to.location());
            Ok(())
        }
    }
}
