//! `arbiter replay FILE`: re-plays every game of a PGN file through its
//! variant's plugin and reports the first illegal move with its game and
//! ply; `arbiter replay --db STORE`: audits a store, every stored game
//! replayed and its result checked against the rules, and every game
//! whose players are all sandboxed engines or built-in players played again
//! whole and compared; one line per game that does not hold up.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::out::say;
use arbiter_core::plugin::Registry;
use arbiter_play::record::replay::replay_pgn;
use arbiter_store::Store;
use arbiter_tournament::audit::{audit, count_differences, reexecute};

/// Arguments of `arbiter replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A PGN file written by arbiter (or any PGN with a Variant tag arbiter knows).
    #[arg(required_unless_present = "db", conflicts_with = "db")]
    file: Option<PathBuf>,
    /// Audit this store instead (an SQLite file or a postgres:// URL): every
    /// stored game replayed, its moves, final position and result checked
    /// against the rules, and every game whose players are all sandboxed
    /// (.wasm) engines or built-in players played again and compared.
    #[arg(long)]
    db: Option<PathBuf>,
    /// With --db: only this tournament's games.
    #[arg(long, requires = "db")]
    tournament: Option<i64>,
}

pub(super) fn run(registry: &Registry, args: &ReplayArgs) -> Result<()> {
    if let Some(db) = &args.db {
        let store = Store::open(db)?;
        let (count, mut refuted) = audit(registry, &store, args.tournament)?;
        // Games that replay alike anywhere are played again, players and all.
        let (again, differ) = reexecute(registry, &store, args.tournament, &refuted)?;
        refuted.extend(differ);
        for r in &refuted {
            say!("{r}");
        }
        let miscounted = count_differences(&store, args.tournament)?;
        for line in &miscounted {
            say!("{line}");
        }
        if !refuted.is_empty() {
            bail!("{} of {count} stored game(s) do not hold up when replayed", refuted.len());
        }
        if !miscounted.is_empty() {
            bail!("the counting rows differ from the stored games (standings read the counting rows)");
        }
        say!(
            "{count} stored game(s) replayed: every move is legal and every result is what the rules allow; the \
             counting rows agree with the stored games"
        );
        if again > 0 {
            say!("{again} of them (every player sandboxed or built in) played again here: the same moves, clocks and results");
        }
        return Ok(());
    }
    let file = args.file.as_ref().expect("clap requires a file without --db");
    let input = std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    match replay_pgn(registry, std::io::BufReader::new(input)) {
        Ok(n) => {
            say!("{n} game(s) replayed: every move is legal");
            Ok(())
        }
        Err(e) => bail!("{}: {e}", file.display()),
    }
}
