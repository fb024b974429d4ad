//! `arbiter match`: two players, N games with alternating colours, every
//! game recorded the moment it ends (SQLite, and PGN / JSON lines on request),
//! a running score line, and at the end the score with Elo ± 95% and LOS.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::{GameArgs, OptionArgs, RecordFile};
use crate::clock::TimeControl;
use crate::players::PlayerSpec;
use crate::plugin::Registry;
use crate::record::{jsonl, pgn, redact, store::Store, EventInfo};
use crate::stats::Score;
use crate::tournament::config::DEFAULT_WATCHDOG_SECS;
use crate::tournament::{run_games, Entrant, Isolation, RunConfig, ScheduledGame};
use crate::{Outcome, Viewer};

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
    /// Also append every game to this PGN file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Also append every game to this JSON-lines file.
    #[arg(long)]
    jsonl: Option<PathBuf>,
    /// Openings file (one position a line; EPD operations are stripped), each
    /// opening played by a pair of games with colours swapped.
    #[arg(long, conflicts_with = "position")]
    openings: Option<PathBuf>,
    /// Use the openings in random order (seeded by --seed) instead of file order.
    #[arg(long, requires = "openings")]
    random_openings: bool,
    /// Write the PGN and JSON-lines files as this player (index) saw the games.
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
    variant.new_game(&options)?; // refuse bad options before any game starts
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
        e.spec.can_play(&e.spec_text, variant.info())?;
    }
    let openings = match &args.openings {
        Some(file) => {
            let shuffle = args.random_openings.then_some(args.game.seed);
            crate::tournament::openings::load(variant, file, &options, shuffle)?
        }
        None => Vec::new(),
    };
    let schedule: Vec<ScheduledGame> = (0..args.games)
        .map(|i| ScheduledGame {
            round: i + 1,
            variant: variant.clone(),
            options: options.clone(),
            seats: if i % 2 == 0 { vec![0, 1] } else { vec![1, 0] },
            // Each opening for a pair of games, colours swapped.
            position: if openings.is_empty() {
                args.game.position.clone()
            } else {
                Some(openings[(i as usize / 2) % openings.len()].clone())
            },
            seed: args.game.seed.wrapping_add(i as u64),
        })
        .collect();
    let store = if args.no_db { None } else { Some(Store::open(&args.db)?) };
    let mut pgn_file = RecordFile::open(args.pgn.as_ref())?;
    let mut jsonl_file = RecordFile::open(args.jsonl.as_ref())?;
    let human = entrants.iter().any(|e| matches!(e.spec, PlayerSpec::Human));
    let config = RunConfig {
        // A person at this terminal plays one game at a time.
        concurrency: if human { 1 } else { args.concurrency as usize },
        margin_ms: args.margin,
        max_plies: args.game.max_plies,
        claim_draws: !args.no_claim,
        watchdog: Duration::from_secs(DEFAULT_WATCHDOG_SECS),
        isolation: Isolation::InProcess,
        stop: Default::default(),
    };
    let event_name = format!("{} vs {} ({})", entrants[0].name, entrants[1].name, args.variant);
    let mut score = Score::default();
    let mut failures = Vec::new();
    let mut done = 0;
    let mut store_failure = None;
    run_games(&entrants, &schedule, &config, None, |i, result| {
        done += 1;
        let event = EventInfo { event: event_name.clone(), round: schedule[i].round, tournament: None };
        let record = match result {
            Ok(r) => r,
            Err(e) => {
                eprintln!("game {}: could not start: {e}", i + 1);
                failures.push(e.to_string());
                return;
            }
        };
        // Every requested record is written on its own: one that fails
        // does not keep the game from the others.
        if let Some(s) = &store {
            if let Err(e) = s.add_game(&record, &event) {
                // A store that fails will fail again: no new game starts.
                config.stop.store(true, Ordering::SeqCst);
                if store_failure.is_none() {
                    eprintln!("game {}: not stored: {e}", i + 1);
                    store_failure = Some(e);
                }
            }
        }
        let export = match args.as_player {
            Some(p) => redact::record_as_seen_by(variant, &record, Viewer::Player(p)),
            None => Ok(record.clone()),
        };
        let mut exports = Vec::new();
        if let Some(f) = &mut pgn_file {
            let text = export.as_ref().map(|r| pgn::write_game(r, &event));
            exports.push(("PGN", text.map_err(|e| e.to_string()).and_then(|t| f.append(&t))));
        }
        if let Some(f) = &mut jsonl_file {
            let text = export.as_ref().map(|r| format!("{}\n", jsonl::game_json(r, &event)));
            exports.push(("JSON lines", text.map_err(|e| e.to_string()).and_then(|t| f.append(&t))));
        }
        for (what, written) in exports {
            if let Err(e) = written {
                eprintln!("game {}: not written to the {what} file: {e}", i + 1);
                failures.push(e);
            }
        }
        let p1_seat = schedule[i].seats.iter().position(|&e| e == 0).unwrap_or(0) as u32;
        match record.result.outcome {
            Outcome::Win(p) if p == p1_seat => score.wins += 1,
            Outcome::Win(_) => score.losses += 1,
            Outcome::Draw => score.draws += 1,
            // A game the plugin voided is no one's result.
            _ => {}
        }
        println!(
            "Game {} ({} vs {}): {} {{{}}}",
            i + 1,
            record.players[0],
            record.players.get(1).map(String::as_str).unwrap_or("?"),
            record.result.pgn(),
            record.result.termination
        );
        println!(
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
    });
    println!();
    println!("{}", summary(&score));
    if let Some(e) = store_failure {
        anyhow::bail!("{e} (the games played are in the other records asked for; none started after the failure)");
    }
    if !failures.is_empty() {
        anyhow::bail!("{} game(s) failed: {}", failures.len(), failures[0]);
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
