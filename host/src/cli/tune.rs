//! `arbiter tune`: SPSA tuning of a player's parameters, as fishtest and
//! OpenBench run it. The run is a tournament (`tournament::tune`): stored
//! game by game, resumed with `--resume`, spread over workers with
//! `--local-workers`, shown by `arbiter results` and the web view.

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::{Args, FromArgMatches};

use super::out::{say, say_or_quit};
use super::{AdjudicationArgs, OptionArgs, RecordArgs};
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_core::stats::spsa::{setting_text, Param, Spsa};
use arbiter_play::record::files::RecordFiles;
use arbiter_play::record::EventInfo;
use arbiter_store::{Store, StoreError};
use arbiter_tournament::config::{OpeningConfig, PlayerConfig, TournamentConfig};
use arbiter_tournament::driver::{Progress, RunEnd, Tournament};
use arbiter_tournament::tune::{TunePoint, TuneState};
use arbiter_tournament::Isolation;

/// Arguments of `arbiter tune`.
#[derive(Args, Debug)]
#[command(after_help = "Parameters, in a file or with --param, one per line as fishtest and OpenBench write them:\n  \
    NAME, int|float, START, MIN, MAX, C_END, R_END\n\
    or as TOML: [[params]] name = \"Hash\" type = \"int\" start = 16 min = 1 max = 64 c_end = 4 r_end = 0.002\n\
    Engines (uci:, engine:) get each value as an option; built-in players (mcts) as a setting.")]
pub struct TuneArgs {
    /// Variant id (not needed with --resume).
    #[arg(required_unless_present = "resume")]
    variant: Option<String>,
    /// The player to tune (uci:..., engine:..., mcts:...).
    #[arg(long, required_unless_present = "resume")]
    player: Option<String>,
    /// A file of parameters (one a line, or TOML `[[params]]`).
    #[arg(long, value_name = "FILE")]
    params: Option<PathBuf>,
    /// One parameter, `NAME, int|float, START, MIN, MAX, C_END, R_END`; repeatable.
    #[arg(long = "param", value_name = "LINE")]
    param: Vec<String>,
    /// Iterations: game pairs.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    iterations: u32,
    /// Iterations played at once (default: half the concurrency, at least
    /// one). Iteration k plays around the estimate after the first k - N
    /// iterations to finish.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    in_flight: Option<u32>,
    /// `A` as a fraction of the iterations.
    #[arg(long, default_value_t = 0.1)]
    a_ratio: f64,
    /// The learning rate's decay exponent.
    #[arg(long, default_value_t = 0.602)]
    alpha: f64,
    /// The perturbation's decay exponent.
    #[arg(long, default_value_t = 0.101)]
    gamma: f64,
    /// Time control (default: the variant's).
    #[arg(long)]
    tc: Option<String>,
    /// Games played at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
    /// Openings file, each opening played by a pair with colours swapped.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Seed of the perturbations, the roundings and seeded players.
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
    /// Continue stored tune ID where it stopped.
    #[arg(long, value_name = "ID", conflicts_with_all = ["variant", "player", "params", "param"])]
    resume: Option<i64>,
    /// Queue the pairs in the store for `arbiter worker --db` processes on
    /// any machine (each worker plans the next pairs as results come), and
    /// play N games here at once (0: only queue them).
    #[arg(long, value_name = "N")]
    local_workers: Option<usize>,
    /// Play on threads of this process instead of worker processes.
    #[arg(long)]
    in_process: bool,
    /// After tuning, an SPRT of the tuned values against the start values,
    /// `ELO0,ELO1` (normalized Elo, pentanomial).
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
    sprt: Option<String>,
    #[command(flatten)]
    records: RecordArgs,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
    /// Pin each concurrent game (and its engines) to a CPU of its own (Linux).
    #[arg(long)]
    affinity: bool,
    #[command(flatten)]
    options: OptionArgs,
}

/// The parameters of `--params FILE` (TOML `[[params]]` or one a line) and `--param`.
fn parameters(args: &TuneArgs) -> Result<Vec<Param>> {
    let mut params = Vec::new();
    if let Some(file) = &args.params {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Table {
            params: Vec<Param>,
        }
        let read = if text.contains("[[params]]") || text.trim_start().starts_with("params") {
            toml::from_str::<Table>(&text).map(|t| t.params).map_err(|e| anyhow!("{}", e.message()))
        } else {
            Spsa::parse_lines(&text).map_err(|e| anyhow!("{e}"))
        };
        params.extend(read.map_err(|e| anyhow!("{}: {e}", file.display()))?);
    }
    for line in &args.param {
        params.extend(Spsa::parse_lines(line).map_err(|e| anyhow!("--param '{line}': {e}"))?);
    }
    Ok(params)
}

/// The tournament a tune is: the player seated twice, a round-robin of
/// `--iterations` colour-swapped pairs, with its parameters.
fn definition(args: &TuneArgs) -> Result<TournamentConfig> {
    let (Some(variant), Some(player)) = (&args.variant, &args.player) else {
        anyhow::bail!("a new tune needs a variant and --player");
    };
    let mut spsa = Spsa::new(parameters(args)?);
    spsa.a_ratio = args.a_ratio;
    spsa.alpha = args.alpha;
    spsa.gamma = args.gamma;
    spsa.in_flight = args.in_flight.unwrap_or(args.concurrency.div_ceil(2));
    let mut cfg: TournamentConfig = toml::from_str("players = []").expect("defaults parse");
    let short = player.rsplit('/').next().unwrap_or(player);
    cfg.name = format!("SPSA {short}");
    cfg.players = vec![
        PlayerConfig { name: format!("{short} (+)"), spec: player.clone(), tc: None },
        PlayerConfig { name: format!("{short} (-)"), spec: player.clone(), tc: None },
    ];
    cfg.variants = vec![variant.clone()];
    cfg.rounds = args.iterations;
    cfg.games_per_pairing = 2;
    cfg.tc = args.tc.clone();
    cfg.concurrency = args.concurrency as usize;
    cfg.seed = args.seed;
    cfg.max_plies = args.max_plies;
    cfg.margin_ms = args.margin;
    cfg.in_process = args.in_process;
    cfg.affinity = args.affinity;
    args.adjudication.apply_to(&mut cfg)?;
    if let Some(file) = &args.openings {
        let file = file.display().to_string();
        cfg.openings
            .insert(variant.clone(), OpeningConfig { file, order: Default::default(), plies: None, start: None });
    }
    let options = args.options.to_map()?;
    if !options.is_empty() {
        cfg.options.insert(variant.clone(), options);
    }
    cfg.tune = Some(spsa);
    cfg.validate()?;
    Ok(cfg)
}

/// Prints each pair as it moves the estimate, and appends the record files.
struct Lines {
    files: RecordFiles,
}

impl Progress for Lines {
    fn game_done(&mut self, _: &Tournament, record: &GameRecord, event: &EventInfo, _: usize, _: usize) {
        for e in self.files.append(record, event) {
            eprintln!("warning: {e}");
        }
    }

    fn game_not_stored(&mut self, record: &GameRecord, event: &EventInfo, error: &StoreError) {
        for e in self.files.append(record, event) {
            eprintln!("warning: {e}");
        }
        eprintln!("game {}: not stored: {error}", super::out::game_number(event));
    }

    fn pair_done(&mut self, state: &TuneState, point: &TunePoint) {
        say_or_quit!("{}", pair_line(state, point));
    }
}

/// One finished pair and the estimate after it.
fn pair_line(state: &TuneState, point: &TunePoint) -> String {
    format!(
        "Pair {} of {} (iteration {}): {:+}  theta: {}",
        state.points.len(),
        state.iterations(),
        point.k,
        point.result,
        state.describe(&point.theta)
    )
}

pub(super) fn run(registry: &Registry, args: &TuneArgs, plugin_dirs: &[PathBuf]) -> Result<()> {
    let new = if args.resume.is_none() { Some(Tournament::define(registry, definition(args)?)?) } else { None };
    let store = Store::open(&args.db)?;
    let tournament = match new {
        Some(definition) => Tournament::create(registry, &store, definition)?,
        None => Tournament::resume(registry, &store, args.resume)?,
    };
    let Some(state) = tournament.tune_state(&store)? else {
        anyhow::bail!("tournament {} is not a tune (continue it with arbiter tournament --resume)", tournament.id);
    };
    let spsa = state.spsa();
    say!(
        "SPSA: {} parameters, {} pairs ({} at once), A {}, alpha {}, gamma {}; tune {} in {}",
        spsa.params.len(),
        state.iterations(),
        spsa.in_flight,
        setting_text(arbiter_core::stats::spsa::ParamKind::Float, spsa.a_ratio * state.iterations() as f64),
        spsa.alpha,
        spsa.gamma,
        tournament.id,
        store.location()
    );
    say!("Start: {}", state.describe(&state.start));
    if !state.points.is_empty() {
        say!("Resumed after {} pairs: {}", state.points.len(), state.describe(state.theta()));
    }
    if let Some(n) = args.local_workers {
        super::tournament::run_queued(registry, &store, &tournament, n, &args.records, plugin_dirs)?;
        if n == 0 {
            return Ok(());
        }
    } else {
        let stop = super::stop_on_interrupt("");
        let isolation = if tournament.definition.config.in_process {
            Isolation::InProcess
        } else {
            Isolation::Workers { plugin_dirs: plugin_dirs.to_vec() }
        };
        let mut lines = Lines { files: args.records.open(true)? };
        if tournament.run(&store, isolation, stop, &mut lines)? != RunEnd::Finished {
            anyhow::bail!("stopped; continue with: arbiter tune --resume {} --db {}", tournament.id, store.location());
        }
    }
    let state = tournament.tune_state(&store)?.expect("a tune");
    say!();
    say_or_quit!("{}", render(&state));
    if let Some(bounds) = &args.sprt {
        closing_sprt(registry, args, &tournament, &state, bounds, plugin_dirs)?;
    }
    Ok(())
}

/// The tuned values and each parameter's path, as `results` prints them.
pub(super) fn render(state: &TuneState) -> String {
    let mut out = format!(
        "Tuned after {} of {} pairs: {}\n",
        state.points.len(),
        state.iterations(),
        state.describe(state.theta())
    );
    for (i, p) in state.spsa().params.iter().enumerate() {
        let path: Vec<f64> =
            std::iter::once(state.start[i]).chain(state.points.iter().map(|point| point.theta[i])).collect();
        out.push_str(&format!("\n{} ({}, start {}, bounds {} to {}):\n", p.name, kind_name(p), p.start, p.min, p.max));
        for line in plot(&path, 60, 6) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

fn kind_name(p: &Param) -> &'static str {
    match p.kind {
        arbiter_core::stats::spsa::ParamKind::Int => "int",
        arbiter_core::stats::spsa::ParamKind::Float => "float",
    }
}

/// A path drawn in `height` rows of at most `width` columns (each column
/// the mean of its share of the points), labelled with the path's highest
/// and lowest values and the pairs it spans.
fn plot(path: &[f64], width: usize, height: usize) -> Vec<String> {
    let columns: Vec<f64> = match path.len() {
        0 => return Vec::new(),
        n if n <= width => path.to_vec(),
        n => (0..width)
            .map(|c| {
                let (a, b) = (c * n / width, ((c + 1) * n / width).max(c * n / width + 1));
                path[a..b].iter().sum::<f64>() / (b - a) as f64
            })
            .collect(),
    };
    let (lo, hi) = columns.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let span = (hi - lo).max(f64::EPSILON);
    let row_of = |v: f64| (((hi - v) / span) * (height - 1) as f64).round() as usize;
    let label = |v: f64| format!("{:>10}", setting_text(arbiter_core::stats::spsa::ParamKind::Float, v));
    let mut lines: Vec<String> = (0..height)
        .map(|r| {
            let mark: String = columns.iter().map(|&v| if row_of(v) == r { '*' } else { ' ' }).collect();
            let axis = match r {
                0 => label(hi),
                r if r == height - 1 => label(lo),
                _ => " ".repeat(10),
            };
            format!("{axis} |{}", mark.trim_end())
        })
        .collect();
    lines.push(format!("{} +{}", " ".repeat(10), "-".repeat(columns.len())));
    let last = format!("{} pairs", path.len() - 1);
    let gap = columns.len().saturating_sub(1 + last.len()).max(2);
    lines.push(format!("{}  0{}{last}", " ".repeat(10), " ".repeat(gap)));
    lines
}

/// The closing test: the tuned values (rounded as the player takes them)
/// against the start values, an SPRT in the same store.
fn closing_sprt(
    registry: &Registry,
    args: &TuneArgs,
    tournament: &Tournament,
    state: &TuneState,
    bounds: &str,
    plugin_dirs: &[PathBuf],
) -> Result<()> {
    let (elo0, elo1) = bounds.split_once(',').ok_or_else(|| anyhow!("--sprt '{bounds}' must be ELO0,ELO1"))?;
    let base = &tournament.entrants[0].spec;
    let settings = |theta: &[f64]| -> Vec<(String, String)> {
        state.spsa().params.iter().zip(theta).map(|(p, v)| (p.name.clone(), setting_text(p.kind, *v))).collect()
    };
    let (tuned, start) = (base.with_settings(&settings(state.theta())), base.with_settings(&settings(&state.start)));
    let cfg = &tournament.definition.config;
    let mut argv: Vec<String> = vec![
        "sprt".into(),
        tournament.definition.variants[0].clone(),
        "--p1".into(),
        tuned,
        "--p2".into(),
        start,
        format!("--elo0={}", elo0.trim()),
        format!("--elo1={}", elo1.trim()),
        "--concurrency".into(),
        cfg.concurrency.to_string(),
        "--seed".into(),
        cfg.seed.to_string(),
        "--db".into(),
        arbiter_store::without_password(&args.db.display().to_string()),
    ];
    if let Some(tc) = &cfg.tc {
        argv.extend(["--tc".into(), tc.clone()]);
    }
    if let Some(n) = cfg.max_plies {
        argv.extend(["--max-plies".into(), n.to_string()]);
    }
    if let Some(o) = cfg.openings.values().next() {
        argv.extend(["--openings".into(), o.file.clone()]);
    }
    if cfg.in_process {
        argv.push("--in-process".into());
    }
    let command = <super::sprt::SprtArgs as Args>::augment_args(clap::Command::new("sprt"));
    let sprt = super::sprt::SprtArgs::from_arg_matches(&command.try_get_matches_from(argv)?)?;
    say!();
    say!("Closing SPRT: the tuned values against the start values");
    super::sprt::run(registry, &sprt, plugin_dirs)
}

#[cfg(test)]
mod tests {
    use super::{definition, plot, TuneArgs};
    use crate::cli::parse_line;
    use arbiter_core::stats::spsa::ParamKind;

    fn args(line: &str) -> TuneArgs {
        parse_line(line).unwrap()
    }

    #[test]
    fn a_tune_is_the_player_seated_twice_playing_one_pair_an_iteration() {
        let cfg = definition(&args(
            "race --player mcts:iterations=20 --param c,float,1,0,4,0.2,0.05 --param playout,int,20,5,60,3,0.01 \
             --iterations 300 --concurrency 4 --seed 9",
        ))
        .unwrap();
        let names: Vec<(&str, &str)> = cfg.players.iter().map(|p| (p.name.as_str(), p.spec.as_str())).collect();
        assert_eq!(
            names,
            [("mcts:iterations=20 (+)", "mcts:iterations=20"), ("mcts:iterations=20 (-)", "mcts:iterations=20")]
        );
        assert_eq!((cfg.rounds, cfg.games_per_pairing, cfg.concurrency, cfg.seed), (300, 2, 4, 9));
        let spsa = cfg.tune.unwrap();
        assert_eq!(spsa.in_flight, 2, "half the concurrency");
        assert_eq!((spsa.params[0].kind, spsa.params[1].kind), (ParamKind::Float, ParamKind::Int));
        assert_eq!((spsa.a_ratio, spsa.alpha, spsa.gamma), (0.1, 0.602, 0.101));
    }

    #[test]
    fn schedule_constants_and_pairs_in_flight_come_from_flags_and_resume_takes_no_definition() {
        let cfg = definition(&args(
            "race --player mcts --param c,float,1,0,4,0.2,0.05 --in-flight 3 --a-ratio 0.2 --alpha 0.7 --gamma 0.2",
        ))
        .unwrap();
        let spsa = cfg.tune.unwrap();
        assert_eq!((spsa.in_flight, spsa.a_ratio, spsa.alpha, spsa.gamma), (3, 0.2, 0.7, 0.2));
        assert!(parse_line::<TuneArgs>("--resume 4").is_ok());
        assert!(
            parse_line::<TuneArgs>("race --player mcts --resume 4").is_err(),
            "a resumed tune keeps its definition"
        );
        assert!(parse_line::<TuneArgs>("race").is_err(), "a new tune needs its player");
        assert!(parse_line::<TuneArgs>("race --player mcts --iterations 0").is_err());
    }

    #[test]
    fn parameters_come_from_a_file_of_lines_or_of_toml_and_bad_ones_are_named() {
        let dir = arbiter_testing::temp_folder("cli-tune-params");
        let (lines, table) = (dir.join("p.txt"), dir.join("p.toml"));
        std::fs::write(&lines, "# tuned\nc, float, 1, 0, 4, 0.2, 0.05\n").unwrap();
        std::fs::write(
            &table,
            "[[params]]\nname = \"c\"\ntype = \"float\"\nstart = 1.0\nmin = 0.0\nmax = 4.0\nc_end = 0.2\nr_end = 0.05\n",
        )
        .unwrap();
        for file in [&lines, &table] {
            let cfg = definition(&args(&format!("race --player mcts --params {}", file.display()))).unwrap();
            assert_eq!(cfg.tune.unwrap().params[0].name, "c", "{}", file.display());
        }
        let e = definition(&args("race --player mcts --param c,float,9,0,4,0.2,0.05")).unwrap_err().to_string();
        assert!(e.contains("tune: parameter c: start 9 must lie within"), "{e}");
        let e = definition(&args("race --player mcts --param c,float,1,0,4")).unwrap_err().to_string();
        assert!(e.starts_with("--param 'c,float,1,0,4': line 1:"), "{e}");
        let e = definition(&args("race --player mcts")).unwrap_err().to_string();
        assert!(e.contains("no parameters to tune"), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_path_is_drawn_between_its_highest_and_lowest_values() {
        let path: Vec<f64> = (0..=120).map(|i| i as f64 / 10.0).collect();
        let lines = plot(&path, 60, 4);
        assert_eq!(lines.len(), 6);
        assert!(lines[0].trim_start().starts_with("11.9 |"), "{:?}", lines[0]);
        assert!(lines[3].trim_start().starts_with("0.05 |*"), "{:?}", lines[3]);
        assert!(lines[0].ends_with('*'), "rising: the last column on the top row");
        assert!(lines[5].trim_start().starts_with("0 ") && lines[5].ends_with("120 pairs"), "{:?}", lines[5]);
        assert!(plot(&[1.0, 2.0], 60, 4)[5].ends_with("0  1 pairs"), "a short path still reads");
        assert!(plot(&[], 60, 4).is_empty());
        assert_eq!(plot(&[3.0], 60, 4).len(), 6, "one point: no span, still drawn");
    }
}
