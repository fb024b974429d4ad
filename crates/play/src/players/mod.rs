//! Players, chosen by a spec string: `random[:seed=N]`, `mcts[:iterations=N|movetime=S]`,
//! `uci:CMD[,option=value...]` (chess engines), `xboard:CMD`, `hub:CMD` (draughts
//! engines), `engine:CMD` (arbiter's JSON-lines protocol) and `human`; an
//! engine's command may be followed by its [`EngineSettings`]. Each kind is
//! a file with its [`PlayerKind`] row, listed once in [`KINDS`]. A player sees a game only through the referee's
//! [`arbiter_core::seat::Turn`], [`arbiter_core::seat::Start`] and [`arbiter_core::seat::Seen`].

/// The [`Player`] methods every engine player answers alike, from its
/// `engine` ([`EngineSlot`]) and `name` fields: pinning, its name in the
/// records, and the name the engine reported.
macro_rules! engine_identity {
    () => {
        fn pin_to_cpu(&mut self, cpu: usize) -> Result<(), arbiter_core::process::AffinityError> {
            self.engine.pin(cpu)
        }

        fn name(&self) -> String {
            self.name.clone()
        }

        fn engine_name(&self) -> Option<String> {
            self.engine.reported_name()
        }

        fn on_virtual_clock(&self) -> bool {
            self.engine.sandboxed
        }
    };
}

pub mod engine;
pub mod hub;
pub mod human;
pub mod kept;
pub mod mcts;
pub mod random;
pub mod settings;
pub mod ucci;
pub mod uci;
pub mod usi;
pub mod xboard;

pub use kept::KeptEngines;
pub use random::RandomPlayer;
pub use settings::{EngineSettings, OptionValueError, SettingError};

pub use arbiter_core::seat::{Answer, MoveWait, Player, PlayerError, Reply};

use arbiter_core::engine::EngineProcess;
use arbiter_core::process::ProcessError;

/// An engine's process, started on demand and dropped (its whole process
/// group killed) after any failure, so that the next game starts a fresh one;
/// with `restart=on`, dropped before every game too (a sandboxed engine
/// always is: each game starts from the same state, whoever played before).
#[derive(Default)]
pub struct EngineSlot {
    process: Option<EngineProcess>,
    restart: bool,
    /// The engine runs in the sandbox, on its virtual clock.
    pub sandboxed: bool,
    /// The name the engine last said it has.
    reported: Option<String>,
}

impl EngineSlot {
    /// A slot for the engine `settings` start: it keeps its process between
    /// games, or (`restart`, or sandboxed) starts a fresh one for each.
    pub fn new(settings: &EngineSettings) -> EngineSlot {
        let sandboxed = settings.is_sandboxed();
        EngineSlot { process: None, restart: settings.restart || sandboxed, sandboxed, reported: None }
    }

    /// A game begins: with `restart=on`, the process of the last one is
    /// told `quit` (if its protocol has such a line) and ended.
    pub fn begin_game(&mut self, quit: Option<&str>) {
        if self.restart {
            if let (Some(mut p), Some(line)) = (self.process.take(), quit) {
                let _ = p.send(line);
            }
        }
    }

    /// Pins the running process, if any, to `cpu`.
    pub fn pin(&self, cpu: usize) -> Result<(), arbiter_core::process::AffinityError> {
        match self.process.as_ref().and_then(EngineProcess::pid) {
            Some(pid) => arbiter_core::process::pin_process_to_cpu(pid, cpu),
            None => Ok(()),
        }
    }

    /// The name the engine said it has, if it has said one.
    pub fn reported_name(&self) -> Option<String> {
        self.reported.clone()
    }

    /// Whether the process is running.
    pub fn running(&self) -> bool {
        self.process.is_some()
    }

    /// Runs `talk` on the process, first started with `start` if it is not
    /// running (the name it reports, if any, goes to `name`).
    pub fn talk<T>(
        &mut self,
        start: impl FnOnce() -> Result<(EngineProcess, Option<String>), PlayerError>,
        name: &mut String,
        talk: impl FnOnce(&mut EngineProcess) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        if self.process.is_none() {
            let (process, reported) = start()?;
            if let Some(n) = reported {
                *name = n.clone();
                self.reported = Some(n);
            }
            self.process = Some(process);
        }
        let result = talk(self.process.as_mut().expect("started above"));
        if result.is_err() {
            self.process = None;
        }
        result
    }
}

/// The start state an engine speaking `protocol` is told: whole positions
/// only, so a hidden-information variant is refused.
pub fn whole_position<'a>(
    start: &arbiter_core::seat::Start<'a>,
    protocol: &str,
) -> Result<&'a arbiter_api::host::Game, PlayerError> {
    start.state.ok_or_else(|| {
        PlayerError::Protocol(format!("{protocol} engines need a perfect-information variant, not {}", start.info.id))
    })
}

/// A move in coordinate notation (`e2e4`, `e7e8q`), as UCI and xboard
/// engines read it, from the chess plugin's `uci_move` call.
pub fn coordinate_text(state: &arbiter_api::host::Game, mv: u64) -> Option<String> {
    state.clone().uci_move(mv)
}

/// `text` (coordinates: `c1e3`, `P@e4`, `c7c8q`) with every square's rank
/// moved by `by` (xboard's and UCCI's ranks of a ten-rank board count from 0).
pub(crate) fn shift_ranks(text: &str, by: i64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c.is_ascii_lowercase() && chars.peek().is_some_and(char::is_ascii_digit) {
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            let rank = digits.parse::<i64>().unwrap_or(0) + by;
            out.push_str(&rank.to_string());
        }
    }
    out
}

/// Whether a chess game is Chess960 (the chess plugin's `chess960` call;
/// other variants: no).
pub fn is_chess960(state: &arbiter_api::host::Game) -> bool {
    let mut g = state.clone();
    g.call_json("chess960", &serde_json::Value::Null).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The variant as Fairy-Stockfish names it, and the ini file to load it
/// from when it is a user's (an ini variant's `uci_variant` call; `None`
/// for the compiled variants, which UCI engines play as chess).
pub fn uci_variant(state: &arbiter_api::host::Game) -> Option<(String, Option<String>)> {
    let mut g = state.clone();
    let v = g.call_json("uci_variant", &serde_json::Value::Null).ok()?;
    Some((v["name"].as_str()?.to_string(), v["path"].as_str().map(String::from)))
}

/// Takes `new` option values for an engine whose options so far are
/// `told`: the values that changed join `unsent` (replacing one of the same
/// name not yet sent), and `told` becomes `new`. `false`, changing nothing,
/// if `told` names an option `new` does not: a protocol sets options but
/// cannot unset them, so that takes a new process. Names compare without
/// case, as UCI's do.
pub(crate) fn take_new_options(
    told: &mut Vec<(String, String)>,
    unsent: &mut Vec<(String, String)>,
    new: &[(String, String)],
) -> bool {
    let named = |k: &str| new.iter().any(|(n, _)| n.eq_ignore_ascii_case(k));
    if !told.iter().all(|(k, _)| named(k)) {
        return false;
    }
    for (k, v) in new {
        if !told.iter().any(|(n, w)| n.eq_ignore_ascii_case(k) && w == v) {
            unsent.retain(|(n, _)| !n.eq_ignore_ascii_case(k));
            unsent.push((k.clone(), v.clone()));
        }
    }
    *told = new.to_vec();
    true
}

/// A handshake step that timed out is a protocol error (the engine never
/// said what the protocol requires), not a time forfeit.
pub fn handshake(e: ProcessError, expected: &str) -> PlayerError {
    match e {
        ProcessError::Timeout => PlayerError::Protocol(format!("no '{expected}' within the handshake time")),
        e => e.into(),
    }
}

/// A malformed player spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("player '{spec}': {reason}")]
pub struct SpecError {
    spec: String,
    reason: String,
}

/// One kind of player, as a spec names it (the word before the colon).
/// Adding a kind is one file (its player, and a [`KindSpec`] that makes
/// it) and one row in [`KINDS`].
pub struct PlayerKind {
    /// The word a spec starts with (`uci`).
    pub name: &'static str,
    /// A spec of this kind, for messages (`uci:stockfish`).
    pub example: &'static str,
    /// Whether the kind runs a program, so that a spec of it must name one.
    pub runs_a_program: bool,
    /// Reads the `NAME=VALUE` settings (or the command) after the colon.
    pub parse: fn(&str) -> Result<Box<dyn KindSpec>, SettingError>,
}

/// Every kind of player, in the order messages list them.
pub const KINDS: &[PlayerKind] =
    &[random::KIND, mcts::KIND, uci::KIND, usi::KIND, ucci::KIND, xboard::KIND, hub::KIND, engine::KIND, human::KIND];

/// What one kind's parsed settings do: make players, and say what they
/// need. The defaults fit a built-in player that plays any variant.
pub trait KindSpec: std::fmt::Debug + Send + Sync {
    /// A player for one game; `game_seed` varies per game so that seeded
    /// players do not repeat themselves across a match.
    fn create(&self, game_seed: u64) -> Box<dyn Player>;
    /// An engine's process settings (`None` for built-in players).
    fn settings(&self) -> Option<&EngineSettings> {
        None
    }
    /// An engine's options (`option.NAME=VALUE`), as its protocol tells them.
    fn options(&self) -> &[(String, String)] {
        &[]
    }
    /// Why this player cannot play `info`'s variant, if it cannot.
    fn refuses(&self, _info: &arbiter_api::schema::VariantInfo) -> Option<String> {
        None
    }
    /// Checks what only the engine can answer (a UCI engine's option values
    /// against the types it declares), once, before any game.
    fn check_options(&self) -> Result<(), SettingError> {
        Ok(())
    }
    /// Whether a person plays, at this terminal.
    fn is_person(&self) -> bool {
        false
    }
    /// Whether the player thinks on its opponent's time (a UCI or xboard
    /// engine with `ponder=on`).
    fn ponders(&self) -> bool {
        false
    }
    /// Whether, given its seed, it plays the same moves on any machine,
    /// `on_a_clock` or not: it reads no clock (a seeded built-in player that
    /// does not search for a time or by the clock's budget). An engine
    /// repeats itself only at a node limit, which its time control says,
    /// not its spec.
    fn repeats_itself(&self, _on_a_clock: bool) -> bool {
        false
    }
    /// Whether its moves may carry a score (an engine's evaluation, MCTS's
    /// search value); the other reports of a search (depth, nodes, PV) come
    /// from engines alone.
    fn reports_score(&self) -> bool {
        false
    }
}

/// How a program kind makes its player from its settings and options.
pub(crate) type MakeProgram = fn(EngineSettings, Vec<(String, String)>) -> Box<dyn Player>;

/// What a protocol of engine programs is to arbiter: how it makes its
/// player, and what its engines can do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Protocol {
    /// Its player, for the settings and options.
    pub(crate) make: MakeProgram,
    /// Whether it is told whole positions (so refuses hidden information).
    pub(crate) whole_positions: bool,
    /// Whether its engines can think on the opponent's time (`ponder=on`).
    pub(crate) can_ponder: bool,
}

/// The spec of a kind that is only an engine program, its settings and
/// its options (xboard, hub, engine).
#[derive(Debug)]
pub(crate) struct ProgramSpec {
    /// Its process settings.
    pub(crate) settings: EngineSettings,
    /// `option.NAME=VALUE` settings, told the engine as its protocol sets
    /// options (xboard `option`, Hub `set-param`, JSON-lines `hello`).
    pub(crate) options: Vec<(String, String)>,
    /// Its protocol.
    pub(crate) protocol: Protocol,
}

impl ProgramSpec {
    /// Reads `CMD[,setting=value...][,option.NAME=VALUE...]`.
    pub(crate) fn parse(rest: &str, protocol: Protocol) -> Result<ProgramSpec, SettingError> {
        let mut kept = Vec::new();
        let mut options = Vec::new();
        for part in rest.split(',') {
            match part.trim().strip_prefix("option.").and_then(|kv| kv.split_once('=')) {
                Some((k, v)) if !kept.is_empty() => options.push((k.trim().to_string(), v.trim().to_string())),
                _ => kept.push(part),
            }
        }
        let settings = EngineSettings::parse(&kept.join(","))?;
        if settings.ponder && !protocol.can_ponder {
            return Err(SettingError::BadValue {
                name: "ponder".into(),
                value: "on".into(),
                expected: "is for UCI and xboard engines only",
            });
        }
        Ok(ProgramSpec { settings, options, protocol })
    }
}

impl KindSpec for ProgramSpec {
    fn create(&self, game_seed: u64) -> Box<dyn Player> {
        (self.protocol.make)(EngineSettings { seed: game_seed, ..self.settings.clone() }, self.options.clone())
    }

    /// A sandboxed engine does the same work whatever the machine, on a
    /// clock too.
    fn repeats_itself(&self, _on_a_clock: bool) -> bool {
        self.settings.is_sandboxed()
    }

    fn settings(&self) -> Option<&EngineSettings> {
        Some(&self.settings)
    }

    fn options(&self) -> &[(String, String)] {
        &self.options
    }

    fn refuses(&self, info: &arbiter_api::schema::VariantInfo) -> Option<String> {
        self.protocol.whole_positions.then(|| refuses_hidden(info)).flatten()
    }

    fn ponders(&self) -> bool {
        self.settings.ponder
    }

    fn reports_score(&self) -> bool {
        true
    }
}

/// Why a hidden-information variant is refused to engines that are told
/// whole positions (UCI, xboard, Hub).
pub(crate) fn refuses_hidden(info: &arbiter_api::schema::VariantInfo) -> Option<String> {
    info.capabilities.hidden_information.then(|| {
        format!("{} hides information; UCI, xboard and Hub engines need whole positions (use engine:)", info.id)
    })
}

/// `NAME=VALUE` pairs separated by commas.
pub(crate) fn settings_pairs(rest: &str) -> Result<Vec<(String, String)>, SettingError> {
    rest.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| SettingError::NotNameValue(kv.into()))
        })
        .collect()
}

/// A parsed player spec, ready to create players from (one per game seat).
#[derive(Clone, Debug)]
pub struct PlayerSpec {
    /// Its kind's row in [`KINDS`].
    kind: &'static PlayerKind,
    /// The spec as written (trimmed).
    text: String,
    /// What its kind read from it.
    spec: std::sync::Arc<dyn KindSpec>,
}

impl std::fmt::Debug for PlayerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Two specs are equal when they are written the same.
impl PartialEq for PlayerSpec {
    fn eq(&self, other: &PlayerSpec) -> bool {
        self.text == other.text
    }
}

impl PlayerSpec {
    /// Parses a spec string.
    pub fn parse(spec: &str) -> Result<PlayerSpec, SpecError> {
        let err = |reason: String| SpecError { spec: spec.escape_debug().to_string(), reason };
        // A newline would reach an engine as a second command.
        if let Some(c) = spec.chars().find(|c| c.is_control()) {
            return Err(err(format!("holds the control character {:?}", c)));
        }
        let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let Some(kind) = KINDS.iter().find(|k| k.name == name.trim()) else {
            let known: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            return Err(err(format!("unknown player kind '{}' ({})", name.trim(), known.join(", "))));
        };
        if kind.runs_a_program && rest.trim().is_empty() {
            return Err(err(format!("{}: needs a command, e.g. {}", kind.name, kind.example)));
        }
        let parsed = (kind.parse)(rest).map_err(|e| err(e.to_string()))?;
        Ok(PlayerSpec { kind, text: spec.trim().to_string(), spec: parsed.into() })
    }

    /// The spec written with `settings` added: as options of an engine
    /// (`uci:sf,option.Hash=16`), as settings of a built-in player
    /// (`mcts:iterations=50,c=0.9`). Parse the result to check it.
    pub fn with_settings(&self, settings: &[(String, String)]) -> String {
        let prefix = if self.kind.runs_a_program { "option." } else { "" };
        let mut text = self.text.trim_end_matches(':').to_string();
        let mut first = !text.contains(':');
        for (name, value) in settings {
            text.push(if first { ':' } else { ',' });
            first = false;
            text.push_str(&format!("{prefix}{name}={value}"));
        }
        text
    }

    /// The kind of player (`random`, `uci`...).
    pub fn kind(&self) -> &'static str {
        self.kind.name
    }

    /// The command line of an engine player.
    pub fn command(&self) -> Option<&str> {
        self.settings().map(|e| e.command.as_str())
    }

    /// Whether this player can play `info`'s variant (searching a
    /// hidden-information variant needs its `sample_world`; UCI, xboard
    /// and Hub engines see whole positions only).
    pub fn can_play(&self, text: &str, info: &arbiter_api::schema::VariantInfo) -> Result<(), SpecError> {
        match self.spec.refuses(info) {
            Some(reason) => Err(SpecError { spec: text.to_string(), reason }),
            None => Ok(()),
        }
    }

    /// Whether this is an engine (a process of its own, kept between games).
    pub fn is_engine(&self) -> bool {
        self.settings().is_some()
    }

    /// An engine's options (`option.NAME=VALUE`; none for built-in players).
    pub fn options(&self) -> &[(String, String)] {
        self.spec.options()
    }

    /// Whether `other` runs the same engine process as this spec (kind,
    /// command and process settings), whatever the options told it.
    pub fn same_process(&self, other: &PlayerSpec) -> bool {
        self.kind.name == other.kind.name && self.settings().is_some() && self.settings() == other.settings()
    }

    /// Whether a person plays, at this terminal.
    pub fn is_person(&self) -> bool {
        self.spec.is_person()
    }

    /// Whether it is one of arbiter's own players (random, mcts): it plays
    /// only legal moves, never resigns, offers or accepts a draw, and has
    /// no process to crash or hang.
    pub fn is_built_in(&self) -> bool {
        !self.is_engine() && !self.is_person()
    }

    /// Whether, given its seed, it plays the same moves on any machine,
    /// `on_a_clock` or not (see [`KindSpec::repeats_itself`]).
    pub fn repeats_itself(&self, on_a_clock: bool) -> bool {
        self.spec.repeats_itself(on_a_clock)
    }

    /// Whether the player thinks on its opponent's time.
    pub fn ponders(&self) -> bool {
        self.spec.ponders()
    }

    /// Whether its moves may carry a score (see [`KindSpec::reports_score`]).
    pub fn reports_score(&self) -> bool {
        self.spec.reports_score()
    }

    /// Checks that an engine's program can be found, so that a typo fails
    /// before the first game rather than forfeiting every game.
    pub fn check_available(&self, text: &str) -> Result<(), SpecError> {
        let Some(settings) = self.settings() else { return Ok(()) };
        let refuse = |reason: String| SpecError { spec: text.to_string(), reason };
        if let Some(d) = settings.dir.as_ref().filter(|d| !d.is_dir()) {
            return Err(refuse(format!("directory '{}' not found", d.display())));
        }
        let program = match settings.program_path() {
            Some(path) => path.to_string_lossy().into_owned(),
            None => arbiter_core::process::command_words(&settings.command).into_iter().next().unwrap_or_default(),
        };
        arbiter_core::process::find_program(&program).map(|_| ()).map_err(|e| refuse(e.to_string()))
    }

    /// Checks what can only be checked by asking the engine, once, before
    /// any game: a UCI engine's option values against the types it declares.
    pub fn check_options(&self, text: &str) -> Result<(), SpecError> {
        self.spec.check_options().map_err(|e| SpecError { spec: text.to_string(), reason: e.to_string() })
    }

    /// An engine player's process settings (`None` for built-in players).
    pub fn settings(&self) -> Option<&EngineSettings> {
        self.spec.settings()
    }

    /// Creates a player; `game_seed` varies per game so seeded players do not
    /// repeat themselves across a match.
    pub fn create(&self, game_seed: u64) -> Box<dyn Player> {
        self.spec.create(game_seed)
    }
}

#[cfg(test)]
mod tests {
    use super::PlayerSpec;

    #[test]
    fn a_control_character_in_a_spec_is_refused_before_it_reaches_an_engine() {
        for spec in ["uci:stockfish,Threads=1\nquit", "uci:stockfish\r", "engine:./e\0x", "random:seed=1\t"] {
            let e = PlayerSpec::parse(spec).unwrap_err().to_string();
            assert!(e.contains("holds the control character"), "{e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    #[test]
    fn every_kind_reads_its_own_specs_and_names_what_is_wrong() {
        for (spec, kind, engine) in [
            ("random", "random", false),
            ("random:seed=7", "random", false),
            ("mcts:iterations=50", "mcts", false),
            ("uci:stockfish,Threads=1", "uci", true),
            ("xboard:gnuchess --xboard", "xboard", true),
            ("hub:dame hub", "hub", true),
            ("engine:./my-engine", "engine", true),
            ("human", "human", false),
        ] {
            let parsed = PlayerSpec::parse(spec).unwrap();
            assert_eq!((parsed.kind(), parsed.is_engine(), parsed.is_person()), (kind, engine, kind == "human"));
        }
        for (spec, says) in [
            ("wizard", "unknown player kind 'wizard' (random, mcts, uci, usi, ucci, xboard, hub, engine, human)"),
            ("uci:", "uci: needs a command, e.g. uci:stockfish"),
            ("hub", "hub: needs a command, e.g. hub:dame hub"),
            ("random:seed=x", "seed 'x' is not a number"),
            ("random:depth=3", "unknown setting 'depth' (random takes seed)"),
            ("random:seed", "'seed' is not name=value"),
        ] {
            let e = PlayerSpec::parse(spec).unwrap_err().to_string();
            assert!(e.ends_with(says), "{spec}: {e}");
        }
    }

    #[test]
    fn engines_told_whole_positions_refuse_hidden_variants() {
        let mut info = arbiter_testing::race(arbiter_fixture::Fault::None).info().clone();
        assert!(PlayerSpec::parse("uci:stockfish").unwrap().can_play("uci:stockfish", &info).is_ok());
        info.capabilities.hidden_information = true;
        for spec in ["uci:stockfish", "xboard:gnuchess", "hub:dame hub"] {
            let e = PlayerSpec::parse(spec).unwrap().can_play(spec, &info).unwrap_err().to_string();
            assert!(e.contains("need whole positions"), "{e}");
        }
        assert!(PlayerSpec::parse("engine:./e").unwrap().can_play("engine:./e", &info).is_ok());
        info.capabilities.sample_world = false;
        let e = PlayerSpec::parse("mcts").unwrap().can_play("mcts", &info).unwrap_err().to_string();
        assert!(e.contains("offers no sample_world"), "{e}");
    }

    #[test]
    fn settings_are_written_into_a_spec_as_options_of_an_engine_or_settings_of_a_built_in_player() {
        let set = [("c".to_string(), "0.9".to_string()), ("playout".to_string(), "12".to_string())];
        for (spec, written) in [
            ("mcts", "mcts:c=0.9,playout=12"),
            ("mcts:", "mcts:c=0.9,playout=12"),
            ("mcts:iterations=5", "mcts:iterations=5,c=0.9,playout=12"),
            ("uci:sf,Hash=16", "uci:sf,Hash=16,option.c=0.9,option.playout=12"),
            ("engine:./e", "engine:./e,option.c=0.9,option.playout=12"),
        ] {
            let text = PlayerSpec::parse(spec).unwrap().with_settings(&set);
            assert_eq!(text, written);
            assert!(PlayerSpec::parse(&text).is_ok(), "{text} reads back");
        }
        assert_eq!(PlayerSpec::parse("random").unwrap().with_settings(&[]), "random", "nothing to add");
        let e = PlayerSpec::parse("random").unwrap().with_settings(&set);
        assert!(
            PlayerSpec::parse(&e).unwrap_err().to_string().contains("unknown setting 'c'"),
            "a player without them"
        );
    }

    #[test]
    fn engine_options_follow_the_command_and_settings_and_a_comma_in_the_command_is_kept() {
        for spec in
            ["xboard:gnuchess -x,option.Depth=3", "hub:dame hub,restart=on,option.level=4", "engine:./e,option.A=1"]
        {
            let parsed = PlayerSpec::parse(spec).unwrap();
            assert!(parsed.is_engine(), "{spec}");
            assert!(!parsed.command().unwrap().contains("option"), "{spec}: {:?}", parsed.command());
        }
        let parsed = PlayerSpec::parse("engine:./e --list a,b").unwrap();
        assert_eq!(parsed.command(), Some("./e --list a,b"), "a tail that is not settings is the command's");
        let e = PlayerSpec::parse("hub:dame hub,option.level=4,colour=red").unwrap_err().to_string();
        assert!(e.contains("unknown engine setting 'colour'"), "{e}");
    }

    /// One game of the fixture's race between two specs, as `game_seed` seats them.
    fn race_between(first: &str, second: &str, game_seed: u64) -> arbiter_core::model::GameRecord {
        let variant = arbiter_testing::race(arbiter_fixture::Fault::None);
        let mut players = [first, second].map(|s| PlayerSpec::parse(s).unwrap().create(game_seed));
        let start = crate::referee::StartFrom::Standard;
        crate::referee::play_game(&variant, &Default::default(), start, &mut players, &crate::testing::game_config())
            .unwrap()
    }

    fn moves(r: &arbiter_core::model::GameRecord) -> Vec<u64> {
        r.plies.iter().map(|p| p.mv).collect()
    }

    #[test]
    fn seeded_players_repeat_a_game_and_vary_from_game_to_game() {
        for spec in ["random:seed=3", "mcts:iterations=30,seed=5"] {
            let once = race_between(spec, "random:seed=4", 7);
            assert_eq!(moves(&once), moves(&race_between(spec, "random:seed=4", 7)), "{spec}");
            let others: Vec<Vec<u64>> = (8..16).map(|g| moves(&race_between(spec, "random:seed=4", g))).collect();
            assert!(others.iter().any(|m| *m != moves(&once)), "{spec}: every game the same");
        }
    }

    #[test]
    fn mcts_plays_the_race_to_ten_perfectly_from_the_first_seat() {
        // Moving to 1, 4 and 7 wins: the first player always can.
        for game_seed in 0..10 {
            let r = race_between("mcts:iterations=300", "random", game_seed);
            assert_eq!(r.result.outcome, arbiter_api::Outcome::Win(0), "game {game_seed}: {:?}", moves(&r));
        }
    }
}
