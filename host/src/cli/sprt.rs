//! `arbiter sprt`: two players until the SPRT decides (normalized Elo,
//! pentanomial GSPRT as fishtest and fastchess run it). The match is a
//! tournament with a stopping rule, so it is stored, resumed and spread
//! over machines (`--local-workers`) as any tournament is.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::out::{say, say_or_quit};
use super::{AdjudicationArgs, ColourArgs, OptionArgs, RecordArgs};
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_core::stats::report::{head_to_head, SprtLine};
use arbiter_core::stats::sprt::{Model, Sprt, Verdict};
use arbiter_play::record::files::RecordFiles;
use arbiter_play::record::EventInfo;
use arbiter_store::{SlotResult, Store, StoreError};
use arbiter_tournament::config::{OpeningConfig, PlayerConfig, TournamentConfig};
use arbiter_tournament::driver::{Progress, RunEnd, Tournament};
use arbiter_tournament::sprt_match::SprtTally;
use arbiter_tournament::Isolation;

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
    /// The Elo model of --elo0 and --elo1 (fastchess's names).
    #[arg(long, default_value = "normalized", value_parser = model_names())]
    model: Model,
    /// Count single games (trinomial) instead of colour-swapped pairs
    /// (pentanomial, the default); the bayesian model needs it.
    #[arg(long)]
    trinomial: bool,
    /// False-positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// False-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Print the head-to-head report (fastchess's shape, with the LLR)
    /// every N games; it is printed at the end in any case.
    #[arg(long, value_name = "N", default_value_t = 0)]
    rating_interval: u32,
    /// Stop after this many games whatever the test says (pairs: an even number).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(2..=20_000))]
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
    /// From a PGN/PDN book, play this many plies of each game (default: all).
    #[arg(long, value_name = "N", requires = "openings")]
    opening_plies: Option<u32>,
    /// Begin with the book's K-th opening (from 1), as fastchess's `start=K`.
    #[arg(long, value_name = "K", requires = "openings")]
    opening_start: Option<u32>,
    /// Seed for seeded players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Adjudicate a draw after this many plies.
    #[arg(long)]
    max_plies: Option<u32>,
    /// The overrun tolerated before a flag falls, in ms.
    #[arg(long, value_name = "MS", default_value_t = arbiter_tournament::config::DEFAULT_MARGIN_MS)]
    margin: u64,
    /// The store: an SQLite file, or a postgres:// URL shared by many machines.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Queue the games in the store for `arbiter worker --db` processes on
    /// any machine, and play N of them here at once (0: only queue them).
    /// The worker that stores the deciding game closes the queue.
    #[arg(long, value_name = "N")]
    local_workers: Option<usize>,
    /// Play on threads of this process instead of worker processes.
    #[arg(long)]
    in_process: bool,
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
    #[command(flatten)]
    options: OptionArgs,
}

/// The tournament an SPRT is: a round-robin of the two players in
/// colour-swapped pairs, as many as `--max-games` allows, with the test as
/// its stopping rule.
/// `--model`'s parser: fastchess's names of the Elo models.
fn model_names() -> impl clap::builder::TypedValueParser<Value = Model> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Model::ALL.map(Model::name))
        .map(|name| Model::named(&name).expect("one of the possible values"))
}

fn definition(args: &SprtArgs) -> Result<TournamentConfig> {
    let mut cfg: TournamentConfig = toml::from_str("players = []").expect("defaults parse");
    cfg.name = format!("SPRT {} vs {}", args.p1, args.p2);
    cfg.players = vec![
        PlayerConfig { name: format!("{} (test)", args.p1), spec: args.p1.clone(), tc: None },
        PlayerConfig { name: format!("{} (base)", args.p2), spec: args.p2.clone(), tc: None },
    ];
    cfg.variants = vec![args.variant.clone()];
    cfg.rounds = args.max_games / 2;
    cfg.games_per_pairing = 2;
    cfg.tc = args.tc.clone();
    cfg.concurrency = args.concurrency as usize;
    cfg.seed = args.seed;
    cfg.max_plies = args.max_plies;
    cfg.margin_ms = args.margin;
    cfg.in_process = args.in_process;
    cfg.affinity = args.affinity;
    args.adjudication.apply_to(&mut cfg)?;
    args.colours.apply_to(&mut cfg);
    if let Some(file) = &args.openings {
        let file = file.display().to_string();
        cfg.openings.insert(
            args.variant.clone(),
            OpeningConfig { file, order: Default::default(), plies: args.opening_plies, start: args.opening_start },
        );
    }
    let options = args.options.to_map()?;
    if !options.is_empty() {
        cfg.options.insert(args.variant.clone(), options);
    }
    cfg.sprt = Some(Sprt::new(args.elo0, args.elo1, args.alpha, args.beta)?.counting(args.model, !args.trinomial)?);
    cfg.validate()?;
    Ok(cfg)
}

/// Prints each game with the test's state (and every `every` games the
/// report), and appends the record files.
struct Lines {
    tally: SprtTally,
    files: RecordFiles,
    every: u32,
    report: Box<dyn Fn(&SprtTally) -> String>,
}

impl Progress for Lines {
    fn game_done(&mut self, _: &Tournament, record: &GameRecord, event: &EventInfo, _: usize, _: usize) {
        for e in self.files.append(record, event) {
            eprintln!("warning: {e}");
        }
        if let Some(slot) = SlotResult::of(record, event) {
            self.tally.add(&slot);
        }
        say_or_quit!("{}", game_line(&self.tally, record));
        if self.every > 0
            && self.tally.counted.games.is_multiple_of(self.every)
            && !self.tally.decided()
            && self.tally.after_decision == 0
        {
            say_or_quit!("{}", (self.report)(&self.tally));
        }
    }

    fn game_not_stored(&mut self, record: &GameRecord, event: &EventInfo, error: &StoreError) {
        for e in self.files.append(record, event) {
            eprintln!("warning: {e}");
        }
        eprintln!("game {}: not stored: {error}", super::out::game_number(event));
    }
}

/// One game and where the test stands after it.
fn game_line(t: &SprtTally, record: &GameRecord) -> String {
    let p = t.counted.pentanomial.counts;
    let game = if t.after_decision > 0 {
        format!("Game after the decision ({} of them)", t.after_decision)
    } else {
        format!("Game {}", t.counted.games)
    };
    format!(
        "{game}: {}  score {}-{}-{}  pairs [{}, {}, {}, {}, {}]  LLR {:.2}",
        super::out::result(record),
        t.counted.score.wins,
        t.counted.score.losses,
        t.counted.score.draws,
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
        t.llr
    )
}

/// The verdict as a sentence: what was decided, after how many games.
pub(super) fn verdict_line(t: &SprtTally, test: &str) -> String {
    let (lower, upper) = t.sprt.bounds();
    let late = match t.after_decision {
        0 => String::new(),
        n => format!("; {n} games in flight then were stored and not counted"),
    };
    match t.verdict {
        Verdict::AcceptH1 => {
            format!(
                "H1 accepted after {} games: {test} is stronger (LLR {:.2} >= {upper:.2}){late}",
                t.counted.games, t.llr
            )
        }
        Verdict::AcceptH0 => {
            format!("H0 accepted after {} games (LLR {:.2} <= {lower:.2}){late}", t.counted.games, t.llr)
        }
        Verdict::Continue => format!("no decision after {} games (LLR {:.2})", t.counted.games, t.llr),
    }
}

pub(super) fn run(registry: &Registry, args: &SprtArgs, plugin_dirs: &[PathBuf]) -> Result<()> {
    let definition = Tournament::define(registry, definition(args)?)?;
    let store = Store::open(&args.db)?;
    let tournament = Tournament::create(registry, &store, definition)?;
    let sprt = tournament.definition.config.sprt.expect("an SPRT's definition has its test");
    let (lower, upper) = sprt.bounds();
    say!(
        "SPRT [{}, {}] ({:?} Elo, {}) alpha {} beta {}: LLR bounds ({lower:.2}, {upper:.2}); tournament {} in {}",
        args.elo0,
        args.elo1,
        args.model,
        if args.trinomial { "trinomial" } else { "pentanomial" },
        args.alpha,
        args.beta,
        tournament.id,
        store.location()
    );
    let names = [args.p1.clone(), args.p2.clone()];
    let default_tc = registry.get(&args.variant)?.info().default_time_control.clone();
    let about = format!("{}, {}", args.tc.clone().unwrap_or(default_tc), args.variant);
    let (elo0, elo1) = (args.elo0, args.elo1);
    let report = move |t: &SprtTally| {
        let sprt = SprtLine { llr: t.llr, bounds: t.sprt.bounds(), elo: (elo0, elo1) };
        let pairs = t.sprt.pentanomial.then_some(&t.counted.pentanomial);
        head_to_head(&names[0], &names[1], &about, &t.counted.score, pairs, Some(sprt))
    };
    if let Some(n) = args.local_workers {
        super::tournament::run_queued(registry, &store, &tournament, n, &args.records, plugin_dirs)?;
    } else {
        let stop = super::stop_on_interrupt("");
        let isolation = if args.in_process {
            Isolation::InProcess
        } else {
            Isolation::Workers { plugin_dirs: plugin_dirs.to_vec() }
        };
        let mut lines = Lines {
            tally: SprtTally::new(sprt),
            files: args.records.open(true)?,
            every: args.rating_interval,
            report: Box::new(report.clone()),
        };
        if tournament.run(&store, isolation, stop, &mut lines)? != RunEnd::Finished {
            let tally = tournament.sprt_tally(&store)?.expect("an SPRT tournament");
            say!("{}", verdict_line(&tally, &args.p1));
            anyhow::bail!(
                "stopped before the test decided; continue with: arbiter tournament --resume {} --db {}",
                tournament.id,
                store.location()
            );
        }
    }
    let tally = tournament.sprt_tally(&store)?.expect("an SPRT tournament");
    say!();
    say!("{}", super::matches::summary(&tally.counted.score));
    say!("{}", report(&tally));
    say!("{}", verdict_line(&tally, &args.p1));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{definition, game_line, verdict_line, SprtArgs};
    use crate::cli::parse_line;
    use arbiter_core::stats::sprt::{Sprt, Verdict};
    use arbiter_testing::match_game as game;
    use arbiter_tournament::sprt_match::SprtTally;

    fn args(line: &str) -> SprtArgs {
        parse_line(line).unwrap()
    }

    #[test]
    fn an_sprt_is_a_round_robin_of_colour_swapped_pairs_with_its_test_as_the_stopping_rule() {
        let cfg =
            definition(&args("chess --p1 new --p2 old --elo0 -1 --elo1 4 --max-games 1000 --concurrency 4")).unwrap();
        let names: Vec<&str> = cfg.players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["new (test)", "old (base)"]);
        assert_eq!((cfg.rounds, cfg.games_per_pairing, cfg.concurrency), (500, 2, 4));
        let sprt = cfg.sprt.unwrap();
        assert_eq!((sprt.elo0, sprt.elo1, sprt.pentanomial), (-1.0, 4.0, true));
        let e = definition(&args("chess --p1 a --p2 b --noswap")).unwrap_err();
        assert!(e.to_string().contains("use --trinomial"), "{e}");
        assert!(!definition(&args("chess --p1 a --p2 b --noswap --trinomial")).unwrap().sprt.unwrap().pentanomial);
        let e = definition(&args("chess --p1 a --p2 b --elo0 5 --elo1 0")).unwrap_err();
        assert!(!e.to_string().is_empty());
    }

    #[test]
    fn the_lines_say_where_the_test_stands_and_what_it_decided() {
        let sprt = Sprt::new(0.0, 200.0, 0.05, 0.05).unwrap();
        let mut t = SprtTally::new(sprt);
        let mut record = arbiter_testing::record(&[0, 1]);
        record.result.outcome = arbiter_api::Outcome::Win(0);
        record.result.termination = arbiter_core::verdict::Termination::Resignation;
        t.add(&game(0, true, "1-0"));
        assert!(
            game_line(&t, &record).starts_with("Game 1: 1-0 {resignation}  score 1-0-0  pairs [0, 0, 0, 0, 0]  LLR ")
        );
        assert!(verdict_line(&t, "new").starts_with("no decision after 1 games (LLR "));
        let mut i = 1;
        while t.verdict == Verdict::Continue {
            t.add(&game(i, i % 2 == 0, if i % 2 == 0 { "1-0" } else { "0-1" }));
            i += 1;
        }
        assert!(verdict_line(&t, "new").starts_with(&format!("H1 accepted after {} games: new is stronger", i)));
        t.add(&game(i, true, "0-1"));
        assert!(game_line(&t, &record).starts_with("Game after the decision (1 of them)"));
        assert!(verdict_line(&t, "new").ends_with("; 1 games in flight then were stored and not counted"));
    }
}
