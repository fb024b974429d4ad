//! The `arbiter` command line: clap definitions and one function per
//! subcommand that parses, calls the library and prints. No logic a test would
//! need lives here.

mod check;
mod info;
mod list;
mod matches;
mod new_variant;
pub mod out;
mod perft;
mod play;
mod ratings;
mod replay;
mod results;
mod serve;
mod sprt;
mod store;
mod tokens;
mod tournament;
mod tune;
mod worker;

use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::{Args, Parser, Subcommand};
use serde_json::{Map, Value};

use arbiter_core::plugin::{Registry, SearchPath};
use arbiter_tournament::config::TournamentConfig;

/// arbiter: referee games of any installed board-game variant.
#[derive(Parser, Debug)]
#[command(name = "arbiter", version, about)]
pub struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// A directory (or a single file) to load plugins from; repeatable. Searched
    /// before ARBITER_PLUGIN_PATH and the defaults.
    #[arg(long = "plugin-dir", value_name = "DIR", global = true)]
    pub plugin_dirs: Vec<PathBuf>,

    /// Append every engine's input and output to FILE, a line each with
    /// the time, the engine and its pid (`>` sent, `<` received); gzipped
    /// when FILE ends in `.gz` (written a game at a time).
    #[arg(long = "log", value_name = "FILE", global = true)]
    pub engine_log: Option<PathBuf>,

    /// The password of a `postgres://` store whose URL names none, from
    /// the first line of FILE (else PGPASSWORD is read): a password in a
    /// URL on the command line shows in every process listing.
    #[arg(long, value_name = "FILE", global = true, env = "ARBITER_DB_PASSWORD_FILE")]
    pub db_password_file: Option<PathBuf>,

    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the installed variants.
    List,
    /// Show a variant's rules summary, options, notation and time control.
    Info {
        /// Variant id, as `arbiter list` shows it.
        variant: String,
    },
    /// Count the leaves of the legal-move tree.
    Perft(perft::PerftArgs),
    /// Run the plugin conformance suite on a plugin file or an installed variant.
    Check(check::CheckArgs),
    /// Create a new variant plugin crate (a complete tic-tac-toe to start from).
    NewVariant(new_variant::NewVariantArgs),
    /// Play one game between two players (random by default) and print it.
    Play(play::PlayArgs),
    /// Play a match between two players and record every game.
    Match(matches::MatchArgs),
    /// Re-play every game of a PGN file through the plugin and report the first illegal move.
    Replay(replay::ReplayArgs),
    /// Run (or resume) a tournament: many players, one or several variants.
    Tournament(tournament::TournamentArgs),
    /// Standings, crosstable and exports of a stored tournament.
    Results(results::ResultsArgs),
    /// A rating list over stored tournaments, per variant, with error bars.
    Ratings(ratings::RatingsArgs),
    /// Two players until the SPRT (normalized Elo, pentanomial) decides.
    Sprt(sprt::SprtArgs),
    /// Tune a player's parameters by SPSA (fishtest's and OpenBench's algorithm).
    Tune(tune::TuneArgs),
    /// A web view: live tournaments, the game viewer, play in the browser.
    Serve(serve::ServeArgs),
    /// Play the games queued in a shared store (PostgreSQL) or by a coordinator (--server), on any machine.
    Worker(worker::WorkerArgs),
    /// Remote workers' tokens: issue, revoke, list (with the uploads refused).
    Tokens(tokens::TokensArgs),
    /// Copy a store between backends (SQLite file, PostgreSQL URL).
    Store(store::StoreArgs),
}

/// How games start and end: the players' seed, the start position, a ply limit.
#[derive(Args, Debug, Clone)]
pub struct GameArgs {
    /// Seed for seeded players (the same seed replays the same games).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Start every game from this position (the variant's position notation).
    #[arg(long)]
    pub position: Option<String>,
    /// Adjudicate a draw after this many plies.
    #[arg(long)]
    pub max_plies: Option<u32>,
}

/// Who moves first in a pairing's games, as cutechess-cli's and fastchess's
/// `-noswap` and `-reverse`.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ColourArgs {
    /// Do not swap colours: no pairs, every game with the first-named
    /// player first, each on the next opening.
    #[arg(long)]
    pub noswap: bool,
    /// The second-named player first in each pair's first game (with
    /// --noswap, in every game).
    #[arg(long)]
    pub reverse: bool,
}

impl ColourArgs {
    /// Sets the colours asked for in a tournament's definition.
    pub fn apply_to(&self, cfg: &mut TournamentConfig) {
        cfg.noswap |= self.noswap;
        cfg.reverse |= self.reverse;
    }
}

/// Score adjudication, as cutechess-cli and fastchess take it.
#[derive(Args, Debug, Clone, Default)]
pub struct AdjudicationArgs {
    /// Resign adjudication from engines' scores: a side whose score is at
    /// most -score for movecount moves loses (`movecount=3,score=600[,twosided]`).
    #[arg(long, value_name = "RULE")]
    pub resign: Option<String>,
    /// Draw adjudication from engines' scores: from full move movenumber,
    /// every side within ±score for movecount moves draws
    /// (`movenumber=40,movecount=8,score=10`).
    #[arg(long, value_name = "RULE")]
    pub draw: Option<String>,
    /// Ask the variant's plugin after each ply whether it can adjudicate
    /// the game (its `adjudicate` call: an endgame database, say).
    #[arg(long)]
    pub plugin_adjudication: bool,
    /// Adjudicate from endgame tablebases the variant's plugin probes
    /// (chess: Syzygy WDL files), folders separated by `:`, as fastchess's `-tb`.
    #[arg(long, value_name = "PATH")]
    pub tb: Option<String>,
    /// Probe only positions with at most N pieces.
    #[arg(long, value_name = "N", requires = "tb")]
    pub tb_pieces: Option<u32>,
    /// Adjudicate wins and losses the fifty-move rule would save as such.
    #[arg(long, requires = "tb")]
    pub tb_ignore50: bool,
    /// Which tablebase verdicts end a game: both, win-loss or draw.
    #[arg(long, value_name = "WHICH", requires = "tb", default_value = "both")]
    pub tb_adjudicate: String,
}

impl AdjudicationArgs {
    /// Sets the rules given in a tournament's definition (those not given
    /// stay as the definition has them).
    pub fn apply_to(&self, cfg: &mut TournamentConfig) -> Result<()> {
        if self.resign.is_some() {
            cfg.resign = self.resign.clone();
        }
        if self.draw.is_some() {
            cfg.draw = self.draw.clone();
        }
        cfg.plugin_adjudication |= self.plugin_adjudication;
        if let Some(tb) = self.tablebases()? {
            cfg.tablebases = Some(tb);
        }
        Ok(())
    }

    /// The tablebases given with `--tb`, checked.
    pub fn tablebases(&self) -> Result<Option<arbiter_play::referee::adjudication::Tablebases>> {
        let Some(path) = &self.tb else { return Ok(None) };
        let tb = arbiter_play::referee::adjudication::Tablebases {
            path: path.clone(),
            pieces: self.tb_pieces,
            ignore50: self.tb_ignore50,
            results: self.tb_adjudicate.clone(),
        };
        tb.validate().map_err(|e| anyhow!("--tb: {e}"))?;
        Ok(Some(tb))
    }
}

/// Variant options given as `--option name=value` (values parsed as JSON when
/// they are JSON, else taken as strings).
#[derive(Args, Debug, Clone, Default)]
pub struct OptionArgs {
    /// A variant option, `name=value`; repeatable.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

impl OptionArgs {
    fn to_map(&self) -> Result<Map<String, Value>> {
        let mut map = Map::new();
        for item in &self.options {
            let (name, value) =
                item.split_once('=').ok_or_else(|| anyhow!("--option '{item}' must have the form name=value"))?;
            let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
            map.insert(name.trim().to_string(), value);
        }
        Ok(map)
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    if let Some(log) = &cli.engine_log {
        // Before any thread starts; worker processes inherit it.
        let path = std::path::absolute(log).unwrap_or_else(|_| log.clone());
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("--log {}: cannot write it", log.display()))?;
        std::env::set_var(arbiter_core::process::ENGINE_LOG_VAR, path);
    }
    if let Some(file) = &cli.db_password_file {
        // Read where a store is opened, in this process and its workers.
        let path = std::path::absolute(file).unwrap_or_else(|_| file.clone());
        std::env::set_var("ARBITER_DB_PASSWORD_FILE", path);
    }
    if let Command::NewVariant(args) = &cli.command {
        return new_variant::run(args);
    }
    for warning in arbiter_core::plugin::search::hand_ini_places_to_plugins(&cli.plugin_dirs) {
        eprintln!("warning: {warning}");
    }
    let registry = Registry::load(&SearchPath::resolve(&cli.plugin_dirs));
    for warning in registry.warnings() {
        eprintln!("warning: {warning}");
    }
    match cli.command {
        Command::List => list::run(&registry),
        Command::Info { variant } => info::run(&registry, &variant),
        Command::Perft(args) => perft::run(&registry, &args),
        Command::Play(args) => play::run(&registry, &args),
        Command::Check(args) => check::run(&registry, &args, &cli.plugin_dirs),
        Command::NewVariant(args) => new_variant::run(&args),
        Command::Match(args) => matches::run(&registry, &args, &cli.plugin_dirs),
        Command::Replay(args) => replay::run(&registry, &args),
        Command::Tournament(args) => tournament::run(&registry, &args, &cli.plugin_dirs),
        Command::Results(args) => results::run(&args),
        Command::Ratings(args) => ratings::run(&args),
        Command::Sprt(args) => sprt::run(&registry, &args, &cli.plugin_dirs),
        Command::Tune(args) => tune::run(&registry, &args, &cli.plugin_dirs),
        Command::Serve(args) => serve::run(registry, &args),
        Command::Worker(args) => worker::run(&registry, &args, &cli.plugin_dirs),
        Command::Store(args) => store::run(&args),
        Command::Tokens(args) => tokens::run(&registry, &args),
    }
}

/// The record files a run appends its games to as they finish.
#[derive(Args, Debug, Clone, Default)]
pub struct RecordArgs {
    /// Also append every game to this PGN file (PDN for draughts).
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Also append every game to this JSON-lines file.
    #[arg(long)]
    pub jsonl: Option<PathBuf>,
    /// Also append each game's final position (the variant's position text)
    /// to this file, one a line, as cutechess-cli's -epdout does.
    #[arg(long)]
    pub epdout: Option<PathBuf>,
    /// Also append every game to FILE in FORMAT (each record format); repeatable.
    #[arg(long = "out", value_name = "FORMAT=FILE", help = out_help())]
    pub out: Vec<String>,
}

/// `--out`'s help, naming every record format the registry holds.
fn out_help() -> String {
    let formats: Vec<&str> = arbiter_play::record::FORMATS.iter().map(|f| f.name()).collect();
    format!("Also append every game to FILE in FORMAT ({}); repeatable", formats.join(", "))
}

impl RecordArgs {
    /// Every file asked for, as (format name, path).
    pub fn outputs(&self) -> Result<Vec<(String, PathBuf)>> {
        let mut outputs = Vec::new();
        for (name, path) in [("pgn", &self.pgn), ("jsonl", &self.jsonl), ("epd", &self.epdout)] {
            if let Some(p) = path {
                outputs.push((name.to_string(), p.clone()));
            }
        }
        for o in &self.out {
            let (name, path) = o.split_once('=').ok_or_else(|| anyhow!("--out '{o}' must be FORMAT=FILE"))?;
            arbiter_play::record::format(name).map_err(|e| anyhow!("--out '{o}': {e}"))?;
            outputs.push((name.to_string(), PathBuf::from(path)));
        }
        Ok(outputs)
    }

    /// Opens every file asked for, to append to or (`append` false) anew.
    pub fn open(&self, append: bool) -> Result<arbiter_play::record::files::RecordFiles> {
        let outputs = self.outputs()?;
        Ok(arbiter_play::record::files::RecordFiles::open(
            outputs.iter().map(|(n, p)| (n.as_str(), p.as_path())),
            append,
        )?)
    }
}

/// Installs the Ctrl-C handler of a command that plays many games: the
/// first press sets the returned flag (the games in progress finish and
/// are stored), the second abandons them (exit 130, the engine log
/// written); `after` says what abandoning leaves ("their claims expire").
fn stop_on_interrupt(after: &'static str) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            eprintln!("\nabandoning the games in progress");
            arbiter_core::process::flush_engine_log();
            std::process::exit(130);
        }
        eprintln!("\nstopping after the games in progress (Ctrl-C again to abandon them{after})");
    });
    stop
}

/// `line` read as a subcommand's arguments `A`, as the command line reads
/// them (for the subcommands' tests).
#[cfg(test)]
fn parse_line<A: clap::Args + clap::FromArgMatches>(line: &str) -> Result<A, clap::Error> {
    let command = A::augment_args(clap::Command::new("arbiter"));
    let matches = command.try_get_matches_from(std::iter::once("arbiter").chain(line.split_whitespace()))?;
    A::from_arg_matches(&matches)
}

#[cfg(test)]
mod tests {
    use super::{AdjudicationArgs, ColourArgs, OptionArgs, RecordArgs};
    use arbiter_tournament::config::TournamentConfig;

    #[test]
    fn option_values_are_json_when_they_parse_as_json_and_text_otherwise() {
        let given = OptionArgs {
            options: ["chess960=true", "start_number= 7", "name=Bob", "list=[1,2]"].map(String::from).to_vec(),
        };
        let map = given.to_map().unwrap();
        assert_eq!(map["chess960"], serde_json::json!(true));
        assert_eq!(map["start_number"], serde_json::json!(7));
        assert_eq!(map["name"], serde_json::json!("Bob"));
        assert_eq!(map["list"], serde_json::json!([1, 2]));
        let bad = OptionArgs { options: vec!["chess960".into()] }.to_map().unwrap_err();
        assert_eq!(bad.to_string(), "--option 'chess960' must have the form name=value");
    }

    #[test]
    fn record_files_are_named_by_flag_or_by_format_and_an_unknown_format_is_refused() {
        let args = RecordArgs {
            pgn: Some("a.pgn".into()),
            epdout: Some("f.epd".into()),
            out: vec!["jsonl=b.jsonl".into()],
            ..Default::default()
        };
        let outputs: Vec<(String, String)> =
            args.outputs().unwrap().into_iter().map(|(n, p)| (n, p.display().to_string())).collect();
        let names: Vec<(&str, &str)> = outputs.iter().map(|(n, p)| (n.as_str(), p.as_str())).collect();
        assert_eq!(names, [("pgn", "a.pgn"), ("epd", "f.epd"), ("jsonl", "b.jsonl")]);
        let e = RecordArgs { out: vec!["b.jsonl".into()], ..Default::default() }.outputs().unwrap_err();
        assert_eq!(e.to_string(), "--out 'b.jsonl' must be FORMAT=FILE");
        let e = RecordArgs { out: vec!["xml=b.xml".into()], ..Default::default() }.outputs().unwrap_err();
        assert!(e.to_string().starts_with("--out 'xml=b.xml': unknown record format 'xml'"), "{e}");
    }

    #[test]
    fn adjudication_and_colour_flags_set_a_definition_and_leave_what_they_do_not_name() {
        let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/../plugins/chess/rules/tests/syzygy").to_string();
        let mut cfg: TournamentConfig =
            toml::from_str("players = []\ndraw = \"movenumber=40,movecount=8,score=10\"").unwrap();
        let flags = AdjudicationArgs {
            resign: Some("movecount=3,score=600".into()),
            plugin_adjudication: true,
            tb: Some(tables.clone()),
            tb_adjudicate: "win-loss".into(),
            ..Default::default()
        };
        flags.apply_to(&mut cfg).unwrap();
        assert_eq!(cfg.resign.as_deref(), Some("movecount=3,score=600"));
        assert_eq!(cfg.draw.as_deref(), Some("movenumber=40,movecount=8,score=10"), "kept: no --draw given");
        assert!(cfg.plugin_adjudication);
        let tb = cfg.tablebases.clone().unwrap();
        assert_eq!((tb.path.as_str(), tb.results.as_str()), (tables.as_str(), "win-loss"));
        let bad = AdjudicationArgs { tb: Some(tables), tb_adjudicate: "some".into(), ..Default::default() };
        assert!(bad.apply_to(&mut cfg).unwrap_err().to_string().starts_with("--tb: "));
        ColourArgs { noswap: false, reverse: true }.apply_to(&mut cfg);
        assert!(cfg.reverse && !cfg.noswap);
    }
}
