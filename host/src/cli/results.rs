//! `arbiter results [ID]`: standings, crosstable and statistics of a stored
//! tournament (the latest by default), and its games as PGN or JSON lines.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::record::store::Store;
use crate::tournament::driver::TournamentView;
use crate::tournament::standings;

/// Arguments of `arbiter results`.
#[derive(Args, Debug)]
pub struct ResultsArgs {
    /// Tournament id (default: the latest).
    id: Option<i64>,
    /// SQLite store.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Write the tournament's games to this PGN file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Write the tournament's games to this JSON-lines file.
    #[arg(long)]
    jsonl: Option<PathBuf>,
}

pub(super) fn run(args: &ResultsArgs) -> Result<()> {
    let store = Store::open(&args.db)?;
    let t = TournamentView::load(&store, args.id)?;
    let stored = store.tournament(Some(t.id))?.expect("just loaded");
    let (games, byes) = t.results(&store)?;
    let state = if stored.finished_at.is_some() {
        "finished"
    } else {
        "not finished (arbiter tournament --resume continues it)"
    };
    println!("Tournament {} '{}': {} games, {state}", t.id, t.definition.config.name, games.len());
    println!();
    print!("{}", standings::render(&t.names(), &t.definition.variants, &games, &byes));
    let rows = store.games(Some(t.id))?;
    if let Some(path) = &args.pgn {
        let mut f = std::fs::File::create(path)?;
        for g in &rows {
            f.write_all(g.pgn.as_bytes())?;
        }
        println!("{} games written to {}", rows.len(), path.display());
    }
    if let Some(path) = &args.jsonl {
        let mut f = std::fs::File::create(path)?;
        for g in &rows {
            writeln!(f, "{}", g.json)?;
        }
        println!("{} games written to {}", rows.len(), path.display());
    }
    Ok(())
}
