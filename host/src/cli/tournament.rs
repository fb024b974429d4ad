//! `arbiter tournament`: a tournament from a TOML definition and/or flags,
//! with a progress bar, standings, Ctrl-C that stops cleanly and prints the
//! resume command, and `--resume ID` to continue a killed tournament.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::out::{say, say_or_quit, say_text, say_text_or_quit};
use super::{AdjudicationArgs, ColourArgs, RecordArgs};
use arbiter_core::model::GameRecord;
use arbiter_core::plugin::Registry;
use arbiter_core::sync::LockExt;
use arbiter_fleet::queue;
use arbiter_play::record::files::RecordFiles;
use arbiter_play::record::EventInfo;
use arbiter_store::{Store, StoreError};
use arbiter_tournament::config::{Format, OpeningConfig, OpeningOrder, PlayerConfig, TournamentConfig};
use arbiter_tournament::driver::{Progress, RunEnd, Tournament};
use arbiter_tournament::standings;
use arbiter_tournament::Isolation;

/// Arguments of `arbiter tournament`.
#[derive(Args, Debug)]
#[command(after_help = super::matches::TC_HELP)]
pub struct TournamentArgs {
    /// A TOML definition (see configs/); flags below override its values.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Continue tournament ID from the store (its definition is stored there).
    #[arg(long, value_name = "ID")]
    resume: Option<i64>,
    /// A participant, NAME=SPEC (e.g. sf=uci:stockfish); repeatable.
    #[arg(long = "player", value_name = "NAME=SPEC")]
    players: Vec<String>,
    /// A variant to play (repeatable); `all` for every installed variant.
    #[arg(long = "variant", value_name = "ID")]
    variants: Vec<String>,
    /// The pairing system.
    #[arg(long, value_parser = Format::parser())]
    format: Option<Format>,
    /// Round-robin/gauntlet cycles, or Swiss rounds.
    #[arg(long)]
    rounds: Option<u32>,
    /// Games per pairing and variant (2 = one paired opening).
    #[arg(long)]
    games_per_pairing: Option<u32>,
    #[command(flatten)]
    colours: ColourArgs,
    /// Each pairing plays the openings from the first, in order: every
    /// opponent of a gauntlet meets the same openings with both colours
    /// (by default each pair takes the next opening, whoever plays it).
    #[arg(long)]
    fair_openings: bool,
    /// Pin each concurrent game (and its engines) to a CPU of its own, as
    /// fastchess's -use-affinity (Linux).
    #[arg(long)]
    affinity: bool,
    /// Time control for everyone.
    #[arg(long)]
    tc: Option<String>,
    /// Games played at once.
    #[arg(long)]
    concurrency: Option<usize>,
    /// Seed of the schedule, openings and seeded players.
    #[arg(long)]
    seed: Option<u64>,
    /// Adjudicate a draw after this many plies.
    #[arg(long)]
    max_plies: Option<u32>,
    /// Event name.
    #[arg(long)]
    name: Option<String>,
    /// Openings for a variant, VARIANT=FILE (repeatable).
    #[arg(long = "openings", value_name = "VARIANT=FILE")]
    openings: Vec<String>,
    /// Use the openings in random order (seeded) instead of file order.
    #[arg(long)]
    random_openings: bool,
    /// From a PGN/PDN book, play this many plies of each game (default: all).
    #[arg(long, value_name = "N")]
    opening_plies: Option<u32>,
    /// Begin with each book's K-th opening (from 1), as fastchess's `start=K`.
    #[arg(long, value_name = "K")]
    opening_start: Option<u32>,
    #[command(flatten)]
    records: RecordArgs,
    #[command(flatten)]
    adjudication: AdjudicationArgs,
    /// Play on threads of this process instead of worker processes (not
    /// kept for --resume, which uses worker processes unless given again).
    #[arg(long)]
    in_process: bool,
    /// Seconds a game may make no progress beyond a move's budget before it is recorded as hung.
    #[arg(long)]
    watchdog: Option<u64>,
    /// The overrun tolerated before a flag falls, in ms (default 50).
    #[arg(long, value_name = "MS")]
    margin: Option<u64>,
    /// The store: an SQLite file, or a postgres:// URL shared by many machines.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Queue the games in the store for `arbiter worker --db` processes on
    /// any machine, and play N of them here at once (0: only queue them).
    #[arg(long, value_name = "N")]
    local_workers: Option<usize>,
    /// Print the standings every N games (0: only at the end).
    #[arg(long, default_value_t = 0)]
    standings_every: usize,
}

fn definition(args: &TournamentArgs) -> Result<TournamentConfig> {
    let mut cfg = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            TournamentConfig::from_toml(&path.display().to_string(), &text)?
        }
        None => toml::from_str("players = []").expect("defaults parse"),
    };
    for p in &args.players {
        let (name, spec) = p.split_once('=').with_context(|| format!("--player '{p}' must be NAME=SPEC"))?;
        cfg.players.push(PlayerConfig { name: name.trim().into(), spec: spec.trim().into(), tc: None });
    }
    if !args.variants.is_empty() {
        cfg.variants = args.variants.clone();
    }
    if let Some(f) = args.format {
        cfg.format = f;
    }
    macro_rules! set {
        ($($field:ident),*) => { $( if let Some(v) = args.$field.clone() { cfg.$field = v.into(); } )* };
    }
    set!(rounds, games_per_pairing, concurrency, seed, name);
    if args.tc.is_some() {
        cfg.tc = args.tc.clone();
    }
    if args.max_plies.is_some() {
        cfg.max_plies = args.max_plies;
    }
    if let Some(w) = args.watchdog {
        cfg.watchdog_secs = w;
    }
    if let Some(m) = args.margin {
        cfg.margin_ms = m;
    }
    cfg.in_process |= args.in_process;
    cfg.affinity |= args.affinity;
    cfg.fair_openings |= args.fair_openings;
    args.adjudication.apply_to(&mut cfg)?;
    args.colours.apply_to(&mut cfg);
    for o in &args.openings {
        let (variant, file) = o.split_once('=').with_context(|| format!("--openings '{o}' must be VARIANT=FILE"))?;
        let order = if args.random_openings { OpeningOrder::Random } else { OpeningOrder::Sequential };
        cfg.openings.insert(
            variant.into(),
            OpeningConfig { file: file.into(), order, plies: args.opening_plies, start: args.opening_start },
        );
    }
    cfg.validate()?;
    Ok(cfg)
}

/// Draws the progress bar and prints standings every N games.
struct Bar {
    bar: ProgressBar,
    every: usize,
    store: Arc<Store>,
    /// Live record files, appended as games are stored.
    files: RecordFiles,
}

impl Bar {
    /// Appends a finished game to the live record files; a file that fails
    /// is reported and the run goes on (the store has the game).
    fn write_records(&mut self, record: &GameRecord, event: &EventInfo) {
        for e in self.files.append(record, event) {
            self.bar.suspend(|| eprintln!("warning: {e}"));
        }
    }
}

impl Progress for Bar {
    fn game_done(&mut self, t: &Tournament, record: &GameRecord, event: &EventInfo, done: usize, total: usize) {
        self.write_records(record, event);
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        let (players, result) = (super::out::players(record), super::out::result(record));
        self.bar.set_message(format!("{players}: {result}"));
        let line = format!("Game {done} ({}): {players}: {result}", record.variant);
        // A hidden bar (output not a terminal) prints nothing itself.
        if self.bar.is_hidden() {
            say_or_quit!("{line}");
        } else {
            self.bar.println(line);
        }
        if self.every > 0 && done.is_multiple_of(self.every) {
            if let Ok((games, byes)) = t.results(&self.store) {
                self.bar.suspend(|| {
                    say_text_or_quit!("{}", standings::render(&t.names(), &t.definition.variants, &games, &byes))
                });
            }
        }
    }

    fn game_not_stored(&mut self, record: &GameRecord, event: &EventInfo, error: &StoreError) {
        self.write_records(record, event);
        self.bar.suspend(|| eprintln!("game {}: not stored: {error}", super::out::game_number(event)));
    }
}

pub(super) fn run(registry: &Registry, args: &TournamentArgs, plugin_dirs: &[PathBuf]) -> Result<()> {
    // A new tournament is checked before the store is opened: refused, it leaves no file.
    let new = if args.resume.is_none() { Some(Tournament::define(registry, definition(args)?)?) } else { None };
    let store = Arc::new(Store::open(&args.db)?);
    let tournament = match new {
        Some(definition) => Tournament::create(registry, &store, definition)?,
        None => Tournament::resume(registry, &store, args.resume)?,
    };
    let cfg = &tournament.definition.config;
    say!(
        "Tournament {} '{}': {} players, variants {}, {:?}, store {}",
        tournament.id,
        cfg.name,
        tournament.entrants.len(),
        tournament.definition.variants.join(", "),
        cfg.format,
        store.location()
    );
    if let Some(n) = args.local_workers {
        run_queued(registry, &store, &tournament, n, &args.records, plugin_dirs)?;
        let (games, byes) = tournament.results(&store)?;
        say!();
        say_text!("{}", standings::render(&tournament.names(), &tournament.definition.variants, &games, &byes));
        return Ok(());
    }
    let stop = super::stop_on_interrupt("");
    // A resumed run plays in worker processes unless told again: the run
    // before it may have died in-process.
    let in_process = if args.resume.is_some() { args.in_process } else { cfg.in_process };
    let isolation =
        if in_process { Isolation::InProcess } else { Isolation::Workers { plugin_dirs: plugin_dirs.to_vec() } };
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {elapsed_precise} ETA {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut progress =
        Bar { bar: bar.clone(), every: args.standings_every, store: store.clone(), files: args.records.open(true)? };
    let end = tournament.run(&store, isolation, stop, &mut progress)?;
    bar.finish_and_clear();
    let (games, byes) = tournament.results(&store)?;
    say!();
    say_text!("{}", standings::render(&tournament.names(), &tournament.definition.variants, &games, &byes));
    let resume = format!("arbiter tournament --resume {} --db {}", tournament.id, store.location());
    match end {
        RunEnd::Finished => Ok(()),
        RunEnd::Interrupted => {
            say!("Interrupted with {} games saved. Resume with: {resume}", games.games());
            // As shells expect of a program stopped by Ctrl-C.
            arbiter_core::process::flush_engine_log();
            std::process::exit(130)
        }
        RunEnd::PluginHungInProcess { index } => bail!(
            "game {} hung inside a plugin in this process: it is stored as 'plugin hung' and the run stopped \
             with {} games saved. Resume in worker processes, where a hang costs one game: {resume}",
            index + 1,
            games.games()
        ),
    }
}

/// `--local-workers N`: queues the tournament's games in the store and
/// plays N at a time here with queue workers (if N > 0).
pub(super) fn run_queued(
    registry: &Registry,
    store: &Store,
    tournament: &Tournament,
    n: usize,
    records: &RecordArgs,
    plugin_dirs: &[PathBuf],
) -> Result<()> {
    let added = queue::enqueue_pending(store, tournament)?;
    say!(
        "{added} games queued; workers on any machine play them: arbiter worker --db {} --tournament {}",
        store.location(),
        tournament.id
    );
    if n == 0 {
        return Ok(());
    }
    let files = std::sync::Mutex::new(records.open(true)?);
    let workers = super::worker::queue_workers(n, Some(tournament.id), None, plugin_dirs);
    let on_game = |record: &GameRecord, event: &EventInfo| {
        for e in files.lock_or_recover().append(record, event) {
            eprintln!("warning: {e}");
        }
        say_or_quit!(
            "Game {} ({}): {}: {}",
            super::out::game_number(event),
            record.variant,
            super::out::players(record),
            super::out::result(record)
        );
    };
    let report = queue::run_queue_workers(registry, store, &workers, &AtomicBool::new(false), &on_game)?;
    say!("{} games played here ({} discarded as already stored elsewhere)", report.stored, report.duplicates);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{definition, TournamentArgs};
    use crate::cli::parse_line;
    use arbiter_tournament::config::{Format, OpeningOrder};

    fn args(line: &str) -> TournamentArgs {
        parse_line(line).unwrap()
    }

    #[test]
    fn flags_alone_define_a_tournament_and_override_a_toml_file() {
        let cfg = definition(&args(
            "--player sf=uci:stockfish --player r=random --variant chess --variant shogi --format swiss --rounds 3 \
             --games-per-pairing 4 --tc 5+0.05 --seed 7 --name Cup --openings chess=o.epd --random-openings \
             --opening-plies 6 --noswap --resign movecount=3,score=600 --margin 80",
        ))
        .unwrap();
        let players: Vec<(&str, &str)> = cfg.players.iter().map(|p| (p.name.as_str(), p.spec.as_str())).collect();
        assert_eq!(players, [("sf", "uci:stockfish"), ("r", "random")]);
        assert_eq!(
            (cfg.variants.clone(), cfg.format, cfg.rounds, cfg.games_per_pairing),
            (vec!["chess".to_string(), "shogi".to_string()], Format::named("swiss").unwrap(), 3, 4)
        );
        assert_eq!((cfg.tc.as_deref(), cfg.seed, cfg.name.as_str(), cfg.margin_ms), (Some("5+0.05"), 7, "Cup", 80));
        let o = &cfg.openings["chess"];
        assert_eq!((o.file.as_str(), o.order, o.plies), ("o.epd", OpeningOrder::Random, Some(6)));
        assert!(cfg.noswap && !cfg.reverse && cfg.resign.as_deref() == Some("movecount=3,score=600"));

        let dir = arbiter_testing::temp_folder("cli-tournament-toml");
        let toml = dir.join("t.toml");
        let two = "[[players]]\nname = \"a\"\nspec = \"random\"\n[[players]]\nname = \"b\"\nspec = \"mcts\"\n";
        std::fs::write(&toml, format!("rounds = 2\nseed = 5\n{two}")).unwrap();
        let line = format!("--config {} --player c=mcts --seed 9", toml.display());
        let cfg = definition(&args(&line)).unwrap();
        assert_eq!(
            (cfg.rounds, cfg.seed, cfg.players.len()),
            (2, 9, 3),
            "the file's rounds, the flag's seed, one more player"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_malformed_flag_is_named() {
        let e = definition(&args("--player sf --player r=random")).unwrap_err();
        assert_eq!(e.to_string(), "--player 'sf' must be NAME=SPEC");
        let e = definition(&args("--player a=random --player b=random --openings o.epd")).unwrap_err();
        assert_eq!(e.to_string(), "--openings 'o.epd' must be VARIANT=FILE");
        let e = definition(&args("--player a=random")).unwrap_err();
        assert!(e.to_string().contains("needs at least 2 players, has 1"), "{e}");
        let e = definition(&args("--config /no/such.toml")).unwrap_err();
        assert!(e.to_string().starts_with("cannot read /no/such.toml"), "{e}");
    }
}
