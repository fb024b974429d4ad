//! `arbiter match`: two players, many games. The match is a tournament of
//! two entrants in one variant, so it is stored as it is played, resumed
//! (`arbiter tournament --resume`) and spread over machines
//! (`--local-workers`) as any tournament is; it prints a line per game, the
//! running score, and at the end the score with Elo ± 95% and LOS.

use std::path::PathBuf;

use anyhow::Result;
use arbiter_api::host::VariantHandle;
use clap::Args;

use super::out::{say, say_or_quit};
use super::{AdjudicationArgs, ColourArgs, GameArgs, OptionArgs, RecordArgs};
use arbiter_api::Viewer;
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_core::stats::report::head_to_head;
use arbiter_core::stats::Score;
use arbiter_play::record::files::RecordFiles;
use arbiter_play::record::{redact, EventInfo};
use arbiter_store::{SlotResult, Store, StoreError};
use arbiter_tournament::config::{OpeningConfig, OpeningOrder, PlayerConfig, TournamentConfig, MAX_GAMES_PER_PAIRING};
use arbiter_tournament::driver::{Progress, RunEnd, Tournament};
use arbiter_tournament::duel::PairTally;
use arbiter_tournament::Isolation;

/// Arguments of `arbiter match`.
#[derive(Args, Debug)]
#[command(after_help = TC_HELP)]
pub struct MatchArgs {
    /// Variant id.
    variant: String,
    #[arg(long, help = super::play::first_player_help())]
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
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=MAX_GAMES_PER_PAIRING as i64))]
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
    #[arg(long, default_value_t = arbiter_tournament::config::DEFAULT_MARGIN_MS)]
    margin: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
    /// The store the games are committed to: an SQLite file, or a
    /// postgres:// URL shared by many machines.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Keep no store (the games only reach the record files asked for).
    #[arg(long, conflicts_with = "local_workers")]
    no_db: bool,
    /// Queue the games in the store for `arbiter worker --db` processes on
    /// any machine, and play N of them here at once (0: only queue them).
    #[arg(long, value_name = "N")]
    local_workers: Option<usize>,
    /// Play each game in a worker process of its own (a plugin that
    /// crashes costs one game) instead of on threads of this process.
    #[arg(long)]
    worker_processes: bool,
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
    #[arg(long = "as", value_name = "PLAYER", conflicts_with = "local_workers")]
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
(40/5400+30:1800+30), INC may be dN (simple delay), bN (Bronstein) or byoN (byoyomi) | hg=SECS (hourglass); \
modifiers after commas: nodes=N, depth=N, cap=SECS (game-time cap, then a draw).";

/// The tournament a match is: a round-robin of the two players in one
/// variant, `--games` games in colour-swapped pairs (one opening each).
fn definition(args: &MatchArgs) -> Result<TournamentConfig> {
    let (mut name1, mut name2) =
        (args.name1.clone().unwrap_or(args.p1.clone()), args.name2.clone().unwrap_or(args.p2.clone()));
    if name1 == name2 {
        name1.push_str("#1");
        name2.push_str("#2");
    }
    let mut cfg: TournamentConfig = toml::from_str("players = []").expect("defaults parse");
    cfg.name = format!("{name1} vs {name2} ({})", args.variant);
    cfg.players = vec![
        PlayerConfig { name: name1, spec: args.p1.clone(), tc: args.tc1.clone() },
        PlayerConfig { name: name2, spec: args.p2.clone(), tc: args.tc2.clone() },
    ];
    cfg.variants = vec![args.variant.clone()];
    cfg.games_per_pairing = args.games;
    cfg.tc = args.tc.clone();
    cfg.concurrency = args.concurrency as usize;
    cfg.seed = args.game.seed;
    cfg.max_plies = args.game.max_plies;
    cfg.margin_ms = args.margin;
    cfg.claim_draws = !args.no_claim;
    cfg.affinity = args.affinity;
    // Games run on threads of this process unless asked otherwise.
    cfg.in_process = !args.worker_processes;
    args.adjudication.apply_to(&mut cfg)?;
    args.colours.apply_to(&mut cfg);
    if let Some(file) = &args.openings {
        let order = if args.random_openings { OpeningOrder::Random } else { OpeningOrder::Sequential };
        let file = file.display().to_string();
        cfg.openings.insert(
            args.variant.clone(),
            OpeningConfig { file, order, plies: args.opening_plies, start: args.opening_start },
        );
    }
    if let Some(position) = &args.game.position {
        cfg.start.insert(args.variant.clone(), position.clone());
    }
    let options = args.options.to_map()?;
    if !options.is_empty() {
        cfg.options.insert(args.variant.clone(), options);
    }
    cfg.validate()?;
    Ok(cfg)
}

/// Prints each game and the running score (and every `every` games the
/// report), and appends the record files, as the player `--as` names saw
/// the games if it names one.
struct Lines<'a> {
    names: [String; 2],
    games: u32,
    tally: PairTally,
    files: RecordFiles,
    export_as: Option<(VariantHandle, Viewer)>,
    every: u32,
    report: &'a dyn Fn(&PairTally) -> String,
    /// Record files not written, one line each.
    unwritten: Vec<String>,
}

impl Lines<'_> {
    /// A finished game: into the record files, the score, and the lines.
    fn finished(&mut self, record: &GameRecord, event: &EventInfo) {
        let number = super::out::game_number(event);
        let export = match &self.export_as {
            Some((variant, viewer)) => redact::record_as_seen_by(variant, record, *viewer),
            None => Ok(record.clone()),
        };
        let unwritten = match export {
            Ok(r) => self.files.append(&r, event),
            Err(e) if !self.files.is_empty() => vec![format!("{}: {e}", self.files.describe().join(", "))],
            Err(_) => Vec::new(),
        };
        for e in unwritten {
            eprintln!("game {number}: not written to the {e}");
            self.unwritten.push(e);
        }
        if let Some(slot) = SlotResult::of(record, event) {
            self.tally.add(&slot);
        }
        let (score, done) = (&self.tally.score, self.tally.games);
        say_or_quit!("Game {number} ({}): {}", super::out::players(record), super::out::result(record));
        say_or_quit!(
            "Score of {} vs {}: {} - {} - {}  [{:.3}] {done}/{}",
            self.names[0],
            self.names[1],
            score.wins,
            score.losses,
            score.draws,
            score.ratio(),
            self.games
        );
        if self.every > 0 && done.is_multiple_of(self.every) && done < self.games {
            say_or_quit!("{}", (self.report)(&self.tally));
        }
    }
}

impl Progress for Lines<'_> {
    fn game_done(&mut self, _: &Tournament, record: &GameRecord, event: &EventInfo, _: usize, _: usize) {
        self.finished(record, event);
    }

    fn game_not_stored(&mut self, record: &GameRecord, event: &EventInfo, error: &StoreError) {
        eprintln!("game {}: not stored: {error}", super::out::game_number(event));
        self.finished(record, event);
    }
}

pub(super) fn run(registry: &Registry, args: &MatchArgs, plugin_dirs: &[PathBuf]) -> Result<()> {
    let variant = registry.get(&args.variant)?;
    let seats = variant.info().players.len() as u32;
    if let Some(p) = args.as_player.filter(|&p| p >= seats) {
        anyhow::bail!(
            "--as {p}: {} has players 0 to {} ({})",
            args.variant,
            seats - 1,
            variant.info().players.join(", ")
        );
    }
    let definition = Tournament::define(registry, definition(args)?)?;
    let store = if args.no_db { Store::in_memory()? } else { Store::open(&args.db)? };
    let tournament = Tournament::create(registry, &store, definition)?;
    let names = [tournament.entrants[0].name.clone(), tournament.entrants[1].name.clone()];
    let base_tc = args.tc.clone().unwrap_or_else(|| variant.info().default_time_control.clone());
    let about = format!("{base_tc}, {}", args.variant);
    let paired = !args.colours.noswap && args.games >= 2;
    let report =
        |t: &PairTally| head_to_head(&names[0], &names[1], &about, &t.score, paired.then_some(&t.pentanomial), None);
    if let Some(n) = args.local_workers {
        super::tournament::run_queued(registry, &store, &tournament, n, &args.records, plugin_dirs)?;
    } else {
        let isolation = if tournament.definition.config.in_process {
            Isolation::InProcess
        } else {
            Isolation::Workers { plugin_dirs: plugin_dirs.to_vec() }
        };
        let mut lines = Lines {
            names: names.clone(),
            games: args.games,
            tally: PairTally::default(),
            files: args.records.open(true)?,
            export_as: args.as_player.map(|p| (variant.clone(), Viewer::Player(p))),
            every: args.rating_interval,
            report: &report,
            unwritten: Vec::new(),
        };
        let end = tournament.run(&store, isolation, super::stop_on_interrupt(""), &mut lines)?;
        let resume = match args.no_db {
            true => "the games played are in the record files asked for (--no-db keeps no store)".to_string(),
            false => format!("resume with: arbiter tournament --resume {} --db {}", tournament.id, store.location()),
        };
        match end {
            RunEnd::Finished => {}
            RunEnd::PluginHungInProcess { index } => anyhow::bail!(
                "game {} hung inside a plugin in this process: the match stopped after {} games; {resume} (in worker \
                 processes, where a hang costs one game)",
                index + 1,
                lines.tally.games
            ),
            RunEnd::Interrupted => {
                say!();
                say!("{}", summary(&lines.tally.score));
                say!("Interrupted after {} games; {resume}", lines.tally.games);
                // As shells expect of a program stopped by Ctrl-C.
                arbiter_core::process::flush_engine_log();
                std::process::exit(130)
            }
        }
        if !lines.unwritten.is_empty() {
            anyhow::bail!("{} game(s) not written: {}", lines.unwritten.len(), lines.unwritten[0]);
        }
    }
    // The stored games, whoever played them (here, or queue workers).
    let mut tally = PairTally::default();
    for game in store.tournament_results(tournament.id)? {
        tally.add(&game);
    }
    say!();
    say!("{}", summary(&tally.score));
    if let Some(line) = super::out::ponder_hits(&tournament.ponder_hits(&store)?) {
        say!("{line}");
    }
    if args.rating_interval > 0 {
        say!("{}", report(&tally));
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

#[cfg(test)]
mod tests {
    use super::{definition, MatchArgs};
    use crate::cli::parse_line;
    use arbiter_tournament::schedule::plan;

    fn args(line: &str) -> MatchArgs {
        parse_line(line).unwrap()
    }

    /// Each game's (first-mover entrant, opening index, seed) in the match `line` defines.
    fn games(line: &str, openings: usize) -> Vec<(usize, Option<usize>, u64)> {
        let cfg = definition(&args(line)).unwrap();
        let rounds = plan(&cfg, &[openings], &|_| None);
        rounds.iter().flat_map(|r| &r.games).map(|g| (g.seats[0], g.opening, g.seed)).collect()
    }

    #[test]
    fn a_match_is_one_pairing_whose_games_go_in_colour_swapped_pairs_one_opening_each() {
        let g = games("chess --p1 random --p2 mcts --games 5 --seed 9", 2);
        let firsts: Vec<(usize, Option<usize>)> = g.iter().map(|&(f, o, _)| (f, o)).collect();
        assert_eq!(firsts, [(0, Some(0)), (1, Some(0)), (0, Some(1)), (1, Some(1)), (0, Some(0))]);
        let seeds: std::collections::HashSet<u64> = g.iter().map(|x| x.2).collect();
        assert_eq!(seeds.len(), 5, "each game its own seed");
        assert_eq!(g, games("chess --p1 random --p2 mcts --games 5 --seed 9", 2), "the seed fixes the schedule");
        let reversed = games("chess --p1 random --p2 mcts --games 2 --reverse", 0);
        assert_eq!((reversed[0].0, reversed[0].1), (1, None));
        let noswap = games("chess --p1 random --p2 mcts --games 3 --noswap", 2);
        let firsts: Vec<(usize, Option<usize>)> = noswap.iter().map(|&(f, o, _)| (f, o)).collect();
        assert_eq!(firsts, [(0, Some(0)), (0, Some(1)), (0, Some(0))], "no pairs: a new opening each game");
    }

    #[test]
    fn a_match_s_players_settings_and_start_reach_its_definition() {
        let cfg = definition(&args(
            "chess --p1 random --p2 random --tc 10+0.1 --tc2 5+0.05 --no-claim --max-plies 80 --position P --option chess960=true",
        ))
        .unwrap();
        let players: Vec<(&str, Option<&str>)> =
            cfg.players.iter().map(|p| (p.name.as_str(), p.tc.as_deref())).collect();
        assert_eq!(players, [("random#1", None), ("random#2", Some("5+0.05"))], "one spec twice: two names");
        assert_eq!((cfg.tc.as_deref(), cfg.claim_draws, cfg.max_plies), (Some("10+0.1"), false, Some(80)));
        assert_eq!(cfg.name, "random#1 vs random#2 (chess)");
        assert_eq!(cfg.start.get("chess").map(String::as_str), Some("P"));
        assert_eq!(cfg.options["chess"]["chess960"], serde_json::Value::Bool(true));
        assert!(cfg.in_process && cfg.games_per_pairing == 2);
        assert!(!definition(&args("chess --p1 a --p2 b --worker-processes")).unwrap().in_process);
        let named = definition(&args("chess --p1 random --p2 random --name1 x --name2 y")).unwrap();
        assert_eq!(named.players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["x", "y"]);
        let e = definition(&args("chess --p1 random --p2 random --resign movecount=0")).unwrap_err();
        assert!(e.to_string().contains("resign"), "{e}");
        assert!(parse_line::<MatchArgs>("chess --p1 a --p2 b --games 100001").is_err());
        assert!(parse_line::<MatchArgs>("chess --p1 a --p2 b --no-db --local-workers 2").is_err());
    }
}
