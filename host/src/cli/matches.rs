//! `arbiter match`: parses the players and settings, runs
//! [`crate::tournament::duel::run_match`], and prints a line per game, the
//! running score, and at the end the score with Elo ± 95% and LOS.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::out::{say, say_or_quit};
use super::{AdjudicationArgs, ColourArgs, GameArgs, OptionArgs, RecordArgs};
use crate::clock::TimeControl;
use crate::players::PlayerSpec;
use crate::plugin::Registry;
use crate::stats::report::head_to_head;
use crate::stats::sprt::Pentanomial;
use crate::stats::Score;
use crate::store::Store;
use crate::tournament::config::DEFAULT_WATCHDOG_SECS;
use crate::tournament::duel::{paired_schedule, run_match, Colours, MatchEvent, Recording};
use crate::tournament::{Entrant, Isolation, RunConfig};
use crate::Viewer;

/// Arguments of `arbiter match`.
#[derive(Args, Debug)]
#[command(after_help = TC_HELP)]
pub struct MatchArgs {
    /// Variant id.
    variant: String,
    /// The first player: random[:seed=N], mcts[:iterations=N|movetime=S], uci:CMD[,opt=val], engine:CMD, human.
    #[arg(long)]
    p1: String,
    /// The second player.
    #[arg(long)]
    p2: String,
    /// Name of the first player in records (default: its spec).
    #[arg(long)]
    name1: Option<String>,
    /// Name of the second player in records (default: its spec).
    #[arg(long)]
    name2: Option<String>,
    /// Games to play; colours alternate.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    games: u32,
    /// Time control for both players (default: the variant's).
    #[arg(long)]
    tc: Option<String>,
    /// Time control of the first player only.
    #[arg(long)]
    tc1: Option<String>,
    /// Time control of the second player only.
    #[arg(long)]
    tc2: Option<String>,
    /// Overrun tolerated before a flag falls, in ms.
    #[arg(long, default_value_t = crate::tournament::config::DEFAULT_MARGIN_MS)]
    margin: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
    /// SQLite store the games are committed to.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Do not write the SQLite store.
    #[arg(long)]
    no_db: bool,
    #[command(flatten)]
    records: RecordArgs,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
    #[command(flatten)]
    colours: ColourArgs,
    /// Pin each concurrent game (and its engines) to a CPU of its own, as
    /// fastchess's -use-affinity (Linux).
    #[arg(long)]
    affinity: bool,
    /// Print the head-to-head report (fastchess's shape) every N games and
    /// at the end (0: only cutechess-cli's closing lines).
    #[arg(long, value_name = "N", default_value_t = 0)]
    rating_interval: u32,
    /// Openings file (one position a line; EPD operations are stripped), each
    /// opening played by a pair of games with colours swapped.
    #[arg(long, conflicts_with = "position")]
    openings: Option<PathBuf>,
    /// Use the openings in random order (seeded by --seed) instead of file order.
    #[arg(long, requires = "openings")]
    random_openings: bool,
    /// From a PGN/PDN book, play this many plies of each game (default: all).
    #[arg(long, value_name = "N", requires = "openings")]
    opening_plies: Option<u32>,
    /// Begin with the book's K-th opening (from 1), as fastchess's `start=K`.
    #[arg(long, value_name = "K", requires = "openings")]
    opening_start: Option<u32>,
    /// Write the record files as this player (index) saw the games.
    #[arg(long = "as", value_name = "PLAYER")]
    as_player: Option<u32>,
    #[command(flatten)]
    game: GameArgs,
    /// Do not claim claimable draws (threefold, 50 moves) automatically.
    #[arg(long)]
    no_claim: bool,
    #[command(flatten)]
    options: OptionArgs,
}

/// The time-control syntax, shown by `--help`.
pub const TC_HELP: &str = "Time controls: inf | st=SECS (per move) | [MOVES/]SECS[+INC] periods joined by ':' \
(40/5400+30:1800+30), INC may be dN (simple delay) or bN (Bronstein) | hg=SECS (hourglass); \
modifiers after commas: nodes=N, depth=N, cap=SECS (game-time cap, then a draw).";

pub(super) fn run(registry: &Registry, args: &MatchArgs) -> Result<()> {
    let variant = registry.get(&args.variant)?;
    let options = args.options.to_map()?;
    // Refuse bad options, and tables the plugin cannot read, before any game starts.
    variant.new_game(&options)?;
    let adjudication = args.adjudication.to_adjudication()?;
    if let Some(tb) = &adjudication.tablebases {
        tb.check_with(variant, &options)?;
    }
    let seats = variant.info().players.len() as u32;
    if let Some(p) = args.as_player.filter(|&p| p >= seats) {
        anyhow::bail!(
            "--as {p}: {} has players 0 to {} ({})",
            args.variant,
            seats - 1,
            variant.info().players.join(", ")
        );
    }
    let base_tc = args.tc.clone().unwrap_or_else(|| variant.info().default_time_control.clone());
    let tc_of = |own: &Option<String>| TimeControl::parse(own.as_deref().unwrap_or(&base_tc));
    let (mut name1, mut name2) =
        (args.name1.clone().unwrap_or(args.p1.clone()), args.name2.clone().unwrap_or(args.p2.clone()));
    if name1 == name2 {
        name1.push_str("#1");
        name2.push_str("#2");
    }
    let entrants = [
        Entrant {
            name: name1,
            spec: PlayerSpec::parse(&args.p1)?,
            spec_text: args.p1.clone(),
            tc: Some(tc_of(&args.tc1)?),
        },
        Entrant {
            name: name2,
            spec: PlayerSpec::parse(&args.p2)?,
            spec_text: args.p2.clone(),
            tc: Some(tc_of(&args.tc2)?),
        },
    ];
    for e in &entrants {
        e.spec.check_available(&e.spec_text)?;
        e.spec.check_options(&e.spec_text)?;
        e.spec.can_play(&e.spec_text, variant.info())?;
    }
    let openings = match &args.openings {
        Some(file) => {
            let shuffle = args.random_openings.then_some(args.game.seed);
            crate::tournament::openings::load(variant, file, &options, shuffle, args.opening_plies, args.opening_start)?
        }
        None => Vec::new(),
    };
    let colours = Colours { noswap: args.colours.noswap, reverse: args.colours.reverse };
    let schedule = paired_schedule(
        variant,
        &options,
        args.game.position.as_deref(),
        &openings,
        args.games,
        args.game.seed,
        colours,
    );
    let store = if args.no_db { None } else { Some(Store::open(&args.db)?) };
    let mut files = args.records.open(true)?;
    let human = entrants.iter().any(|e| e.spec.is_person());
    let config = RunConfig {
        // A person at this terminal plays one game at a time.
        concurrency: if human { 1 } else { args.concurrency as usize },
        margin_ms: args.margin,
        max_plies: args.game.max_plies,
        claim_draws: !args.no_claim,
        adjudication,
        watchdog: Duration::from_secs(DEFAULT_WATCHDOG_SECS),
        isolation: Isolation::InProcess,
        stop: Default::default(),
        affinity: args.affinity,
    };
    let event_name = format!("{} vs {} ({})", entrants[0].name, entrants[1].name, args.variant);
    let about = format!("{}, {}", args.tc.as_deref().unwrap_or(&base_tc), args.variant);
    let paired = !args.colours.noswap && args.games >= 2;
    let report = |score: &Score, pairs: &Pentanomial| {
        head_to_head(&entrants[0].name, &entrants[1].name, &about, score, paired.then_some(pairs), None)
    };
    let recording =
        Recording { store: store.as_ref(), files: &mut files, export_as: args.as_player.map(Viewer::Player) };
    let end = run_match(&entrants, &schedule, &config, &event_name, recording, |event| match event {
        MatchEvent::NotStarted { game, error } => eprintln!("game {}: could not start: {error}", game + 1),
        MatchEvent::Finished { game, record, score, pairs, done, problems } => {
            for p in problems {
                eprintln!("game {}: {p}", game + 1);
            }
            say_or_quit!("Game {} ({}): {}", game + 1, super::out::players(record), super::out::result(record));
            say_or_quit!(
                "Score of {} vs {}: {} - {} - {}  [{:.3}] {}/{}",
                entrants[0].name,
                entrants[1].name,
                score.wins,
                score.losses,
                score.draws,
                score.ratio(),
                done,
                args.games
            );
            if args.rating_interval > 0 && done % args.rating_interval as usize == 0 && done < args.games as usize {
                say_or_quit!("{}", report(score, pairs));
            }
        }
    });
    say!();
    say!("{}", summary(&end.score));
    if args.rating_interval > 0 {
        say!("{}", report(&end.score, &end.pairs));
    }
    if let Some(e) = end.store_failure {
        anyhow::bail!("{e} (the games played are in the other records asked for; none started after the failure)");
    }
    if !end.failures.is_empty() {
        anyhow::bail!("{} game(s) failed: {}", end.failures.len(), end.failures[0]);
    }
    Ok(())
}

/// The closing lines: Elo difference with its 95% error, LOS and draw ratio.
pub fn summary(score: &Score) -> String {
    let elo = match score.elo() {
        Some((e, m)) => format!("{:.1} +/- {m:.1}", e + 0.0),
        None => "n/a (no win or no loss yet)".to_string(),
    };
    format!("Elo difference: {elo}, LOS: {:.1} %, DrawRatio: {:.1} %", score.los() * 100.0, score.draw_ratio() * 100.0)
}
