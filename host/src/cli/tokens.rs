//! `arbiter tokens`: the remote workers' tokens of a coordinator's store
//! (see [`arbiter_fleet::coordinator`]): issue one (shown once, kept as
//! its sha256), revoke one, list them, and the uploads refused; the uploads
//! held back from a worker; and an unconfirmed result the operator accepts.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};

use super::out::say;
use arbiter_core::plugin::Registry;
use arbiter_fleet::coordinator::{accept_unconfirmed, issue_token};
use arbiter_store::Store;

/// Arguments of `arbiter tokens`.
#[derive(Args, Debug)]
pub struct TokensArgs {
    /// The coordinator's store (the one `arbiter serve` shows).
    #[arg(long, default_value = "arbiter.db", global = true)]
    db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    action: TokensAction,
}

/// The token subcommands.
#[derive(Subcommand, Debug)]
enum TokensAction {
    /// Issue a token for worker NAME and print it (it is not kept: only its hash is).
    Issue {
        /// The worker's name (letters, digits, '.', '_', '-'): stored games name it.
        name: String,
        /// Days the token is accepted (until revoked if not given).
        #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..=36_500))]
        days: Option<u32>,
    },
    /// Revoke worker NAME's token: its requests are refused from now on.
    Revoke {
        /// The worker's name.
        name: String,
    },
    /// Every token issued, and the uploads each worker had refused.
    List,
    /// The uploads held back from worker NAME (its results drift from the
    /// other workers'): each game listed, its records written to the files asked for.
    Held {
        /// The worker's name.
        name: String,
        /// Files to write the held games to (each emptied first).
        #[command(flatten)]
        records: super::RecordArgs,
    },
    /// Accept an unconfirmed result (a resignation, an engine's crash... that
    /// one worker uploaded and no second worker's game has confirmed): game
    /// GAME of tournament TOURNAMENT is stored as uploaded, and counts.
    Accept {
        /// The tournament.
        tournament: i64,
        /// The game's number in it (as `arbiter results` and the refusals name it).
        game: u32,
        /// The worker whose upload to accept (the latest one if not given).
        #[arg(long)]
        worker: Option<String>,
    },
}

pub(super) fn run(registry: &Registry, args: &TokensArgs) -> Result<()> {
    let store = Store::open(&args.db)?;
    match &args.action {
        TokensAction::Issue { name, days } => {
            let valid = days.map(|d| std::time::Duration::from_secs(u64::from(d) * 86_400));
            say!("{}", issue_token(&store, name, valid)?)
        }
        TokensAction::Revoke { name } => {
            if !store.revoke_worker_token(name)? {
                bail!("worker '{name}' has no token in force in {}", store.location());
            }
            say!("worker '{name}': token revoked");
        }
        TokensAction::List => {
            let refusals = store.refusals(None)?;
            for t in store.worker_tokens()? {
                let refused = refusals.iter().filter(|r| r.worker == t.name).count();
                let now = arbiter_tournament::worker::unix_now() as i64 * 1000;
                let state = match (t.revoked_ms, t.expires_ms) {
                    (Some(_), _) => "revoked",
                    (None, Some(e)) if e <= now => "expired",
                    _ => "in force",
                };
                say!(
                    "{:<24} {state:<9} issued {}  {refused} uploads refused",
                    t.name,
                    arbiter_core::model::calendar::date((t.issued_ms / 1000) as u64, '-')
                );
            }
            for r in &refusals {
                let kind = r.kind.name();
                say!("{kind}: worker {} tournament {} game {}: {}", r.worker, r.tournament, r.index + 1, r.reason);
            }
        }
        TokensAction::Accept { tournament, game, worker } => {
            let (from, record) = accept_unconfirmed(registry, &store, *tournament, *game, worker.as_deref())?;
            say!(
                "tournament {tournament} game {game}: {} ({}) accepted as worker {from} uploaded it",
                super::out::result(&record),
                record.result.termination
            );
        }
        TokensAction::Held { name, records } => {
            let held = store.held_uploads(name)?;
            let mut files = records.open(false)?;
            let mut unreadable = 0;
            for (r, record) in &held {
                let event =
                    arbiter_play::record::EventInfo { event: format!("held from {name}"), round: 0, tournament: None };
                match record {
                    Ok(record) => {
                        say!(
                            "held: tournament {} game {}: {}: {}",
                            r.tournament,
                            r.index + 1,
                            super::out::players(record),
                            super::out::result(record)
                        );
                        if let Some(e) = files.append(record, &event).into_iter().next() {
                            bail!("{e}");
                        }
                    }
                    Err(why) => {
                        unreadable += 1;
                        eprintln!("skipped: {why}");
                    }
                }
            }
            say!("{} uploads held back from worker '{name}'", held.len());
            if !files.is_empty() {
                say!("{} games written to the {}", held.len() - unreadable, files.describe().join(", "));
            }
        }
    }
    Ok(())
}
