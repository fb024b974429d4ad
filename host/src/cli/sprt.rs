//! `arbiter sprt`: two players until the SPRT decides (normalized Elo,
//! pentanomial GSPRT as fishtest and fastchess run it).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::{AdjudicationArgs, OptionArgs};
use crate::clock::TimeControl;
use crate::players::PlayerSpec;
use crate::plugin::Registry;
use crate::record::store::Store;
use crate::stats::sprt::{Sprt, Verdict};
use crate::tournament::config::{DEFAULT_MARGIN_MS, DEFAULT_WATCHDOG_SECS};
use crate::tournament::sprt_match::run_sprt;
use crate::tournament::{Entrant, Isolation, RunConfig};

/// Arguments of `arbiter sprt`.
#[derive(Args, Debug)]
#[command(after_help = super::matches::TC_HELP)]
pub struct SprtArgs {
    /// Variant id.
    variant: String,
    /// The player under test.
    #[arg(long)]
    p1: String,
    /// The baseline.
    #[arg(long)]
    p2: String,
    /// H0: normalized Elo difference.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// H1: normalized Elo difference.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    elo1: f64,
    /// False-positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// False-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Stop after this many games whatever the test says.
    #[arg(long, default_value_t = 20_000)]
    max_games: u32,
    /// Time control for both (default: the variant's).
    #[arg(long)]
    tc: Option<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
    /// Openings file (one position per line), used in file order, each for a pair.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Seed for seeded players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Adjudicate a draw after this many plies.
    #[arg(long)]
    max_plies: Option<u32>,
    /// SQLite store.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
    #[command(flatten)]
    options: OptionArgs,
}

pub(super) fn run(registry: &Registry, args: &SprtArgs) -> Result<()> {
    let variant = registry.get(&args.variant)?;
    let options = args.options.to_map()?;
    variant.new_game(&options)?;
    let tc = TimeControl::parse(args.tc.as_deref().unwrap_or(&variant.info().default_time_control))?;
    let make = |spec: &str, name: &str| -> Result<Entrant> {
        let parsed = PlayerSpec::parse(spec)?;
        parsed.check_available(spec)?;
        parsed.can_play(spec, variant.info())?;
        Ok(Entrant { name: name.into(), spec: parsed, spec_text: spec.into(), tc: Some(tc.clone()) })
    };
    let entrants = [make(&args.p1, &format!("{} (test)", args.p1))?, make(&args.p2, &format!("{} (base)", args.p2))?];
    let openings: Vec<String> = match &args.openings {
        Some(p) => crate::tournament::openings::load(variant, p, &options, None)?,
        None => Vec::new(),
    };
    let sprt = Sprt::new(args.elo0, args.elo1, args.alpha, args.beta)?;
    let (lower, upper) = sprt.bounds();
    println!(
        "SPRT [{}, {}] alpha {} beta {}: LLR bounds ({lower:.2}, {upper:.2})",
        args.elo0, args.elo1, args.alpha, args.beta
    );
    let store = Store::open(&args.db)?;
    let config = RunConfig {
        concurrency: args.concurrency as usize,
        margin_ms: DEFAULT_MARGIN_MS,
        max_plies: args.max_plies,
        claim_draws: true,
        adjudication: args.adjudication.to_adjudication()?,
        watchdog: Duration::from_secs(DEFAULT_WATCHDOG_SECS),
        isolation: Isolation::InProcess,
        stop: Default::default(),
    };
    let state = run_sprt(
        &entrants,
        variant,
        &options,
        &openings,
        &sprt,
        args.max_games,
        args.seed,
        &config,
        Some(&store),
        |record, s| {
            let p = s.pentanomial.counts;
            println!(
                "Game {}: {} {{{}}}  score {}-{}-{}  pairs [{}, {}, {}, {}, {}]  LLR {:.2}",
                s.games,
                record.result.pgn(),
                record.result.termination,
                s.score.wins,
                s.score.losses,
                s.score.draws,
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                s.llr
            );
        },
    )?;
    println!();
    println!("{}", super::matches::summary(&state.score));
    println!(
        "{}",
        match state.verdict {
            Verdict::AcceptH1 => format!(
                "H1 accepted after {} games: {} is stronger (LLR {:.2} >= {upper:.2})",
                state.games, args.p1, state.llr
            ),
            Verdict::AcceptH0 =>
                format!("H0 accepted after {} games (LLR {:.2} <= {lower:.2})", state.games, state.llr),
            Verdict::Continue => format!("no decision after {} games (LLR {:.2})", state.games, state.llr),
        }
    );
    Ok(())
}
