//! `arbiter results [ID]`: standings, crosstable and statistics of a stored
//! tournament (the latest by default), and its games written again from the
//! store in any record format.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::out::{say, say_text};
use super::RecordArgs;
use arbiter_store::Store;
use arbiter_tournament::standings;
use arbiter_tournament::view::TournamentView;

/// Arguments of `arbiter results`.
#[derive(Args, Debug)]
pub struct ResultsArgs {
    /// Tournament id (default: the latest).
    id: Option<i64>,
    /// The store: an SQLite file or a postgres:// URL.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Files to write the tournament's games to (each emptied first).
    #[command(flatten)]
    records: RecordArgs,
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
    say!("Tournament {} '{}': {} games, {state}", t.id, t.definition.config.name, games.games());
    if t.definition.config.fair_openings && !t.definition.openings.values().all(Vec::is_empty) {
        say!("Openings: each pairing plays the same openings, in the same order, with both colours");
    }
    say!();
    say_text!("{}", standings::render(&t.names(), &t.definition.variants, &games, &byes));
    if let Some(line) = super::out::ponder_hits(&t.ponder_hits(&store)?) {
        say!("{line}");
    }
    if let Some(tally) = t.sprt_tally(&store)? {
        let p = tally.counted.pentanomial.counts;
        let test = &t.definition.config.players[0].spec;
        say!(
            "SPRT pairs [{}, {}, {}, {}, {}]: {}",
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            super::sprt::verdict_line(&tally, test)
        );
    }
    if let Some(state) = t.tune_state(&store)? {
        say!();
        say_text!("{}", super::tune::render(&state));
    }
    let (waiting, playing) = store.queue_counts(t.id)?;
    if waiting + playing > 0 {
        say!("Queue: {waiting} games waiting, {playing} being played by workers");
    }
    let unconfirmed = store.awaiting_confirmation(t.id)?;
    if unconfirmed > 0 {
        say!(
            "Awaiting confirmation: {unconfirmed} results rest on one worker's word (a resignation, an engine's \
             crash...) and are not counted above; each counts once a second worker's game ends alike, or the \
             operator accepts it (`arbiter tokens accept {} GAME`)",
            t.id
        );
    }
    for w in store.worker_rates(t.id)? {
        say!("Worker host {}: {} games, {:.1} games/min", w.host, w.games, w.per_minute);
    }
    for r in arbiter_tournament::audit::worker_residuals(&store, t.id)?.iter().filter(|r| r.games > 0) {
        let flag = if r.flagged() { ": flagged, its results drift from the other workers'" } else { "" };
        say!("Worker {}: residual z = {:+.2} over {} games compared{flag}", r.worker, r.z, r.games);
    }
    let mut files = args.records.open(false)?;
    if !files.is_empty() {
        let (rows, skipped) = store.readable_games(Some(t.id))?;
        for g in &rows {
            if let Some(e) = files.append(&g.record, &g.event()).into_iter().next() {
                anyhow::bail!("{e}");
            }
        }
        say!("{} games written to the {}", rows.len(), files.describe().join(", "));
        for why in &skipped {
            eprintln!("skipped: {why}");
        }
        if !skipped.is_empty() {
            anyhow::bail!("{} stored games could not be read and were not written (named above)", skipped.len());
        }
    }
    Ok(())
}
