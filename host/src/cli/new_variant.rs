//! `arbiter new-variant NAME`: a new plugin crate to start from.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::out::say;
use crate::scaffold;

/// Arguments of `arbiter new-variant`.
#[derive(Args, Debug)]
pub struct NewVariantArgs {
    /// The variant id (lowercase letters, digits, '-').
    name: String,
    /// Where to create the crate (a directory NAME is made inside it).
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Take arbiter-api from this local copy too (an arbiter checkout's
    /// plugin-api directory, or an unpacked arbiter-api crate), written as a
    /// path relative to the new crate; without it, by version from a registry.
    #[arg(long, value_name = "DIR")]
    api_path: Option<PathBuf>,
}

pub(super) fn run(args: &NewVariantArgs) -> Result<()> {
    let root = scaffold::new_variant(&args.name, &args.dir, args.api_path.as_deref())?;
    say!("Created {} (a tic-tac-toe to start from). Next:", root.display());
    say!("  cd {} && cargo test && cargo build --release", root.display());
    say!(
        "  ARBITER_PLUGIN_PATH=$PWD/target/release arbiter check target/release/libarbiter_{}.so",
        args.name.replace('-', "_")
    );
    Ok(())
}
