//! Players, chosen by a spec string: `random[:seed=N]`, `mcts[:iterations=N|movetime=S]`,
//! `uci:CMD[,option=value...]` (chess engines), `xboard:CMD`, `hub:CMD` (draughts
//! engines), `engine:CMD` (arbiter's JSON-lines protocol) and `human`; an
//! engine's command may be followed by its [`EngineSettings`]. A player sees a game only through the referee's
//! [`crate::seat::Turn`], [`crate::seat::Start`] and [`crate::seat::Seen`].

pub mod engine;
pub mod hub;
pub mod human;
pub mod mcts;
pub mod random;
pub mod settings;
pub mod uci;
pub mod xboard;

pub use random::RandomPlayer;
pub use settings::EngineSettings;

pub use crate::seat::{Answer, MoveWait, Player, PlayerError, Reply};

use crate::process::ProcessError;

/// An engine's process, started on demand and dropped (its whole process
/// group killed) after any failure, so that the next game starts a fresh one;
/// with `restart=on`, dropped before every game too.
#[derive(Default)]
pub struct EngineSlot {
    process: Option<crate::process::ChildProcess>,
    restart: bool,
    /// The name the engine last said it has.
    reported: Option<String>,
}

impl EngineSlot {
    /// A slot that keeps its process between games, or (`restart`) starts
    /// a fresh one for each.
    pub fn new(restart: bool) -> EngineSlot {
        EngineSlot { process: None, restart, reported: None }
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
        start: impl FnOnce() -> Result<(crate::process::ChildProcess, Option<String>), PlayerError>,
        name: &mut String,
        talk: impl FnOnce(&mut crate::process::ChildProcess) -> Result<T, PlayerError>,
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
    start: &crate::seat::Start<'a>,
    protocol: &str,
) -> Result<&'a arbiter_api::host::Game, PlayerError> {
    start.state.ok_or_else(|| {
        PlayerError::Protocol(format!("{protocol} engines need a perfect-information variant, not {}", start.info.id))
    })
}

/// A move in coordinate notation (`e2e4`, `e7e8q`), as UCI and xboard
/// engines read it, from the chess plugin's `uci_move` call.
pub fn coordinate_text(state: &arbiter_api::host::Game, mv: u64) -> Option<String> {
    let mut g = state.clone();
    g.call_json("uci_move", &serde_json::json!({ "move": mv })).ok()?.as_str().map(String::from)
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

/// A parsed player spec, ready to create players from (one per game seat).
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// `random[:seed=N]`.
    Random {
        /// Seed of the first game; later games derive theirs from it.
        seed: u64,
    },
    /// `mcts[:iterations=N|movetime=S][,seed=N]`.
    Mcts(mcts::MctsConfig),
    /// `uci:CMD[,name=value...]`.
    Uci(uci::UciConfig),
    /// `xboard:CMD` (CECP v2).
    Xboard(EngineSettings),
    /// `hub:CMD`.
    Hub(EngineSettings),
    /// `engine:CMD`.
    Engine(EngineSettings),
    /// `human`.
    Human,
}

impl PlayerSpec {
    /// The command line of an engine player.
    pub fn command(&self) -> Option<&str> {
        self.settings().map(|e| e.command.as_str())
    }

    /// Parses a spec string.
    pub fn parse(spec: &str) -> Result<PlayerSpec, SpecError> {
        let err = |reason: String| SpecError { spec: spec.escape_debug().to_string(), reason };
        // A newline would reach an engine as a second command.
        if let Some(c) = spec.chars().find(|c| c.is_control()) {
            return Err(err(format!("holds the control character {:?}", c)));
        }
        let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let pairs = |rest: &str| -> Result<Vec<(String, String)>, SpecError> {
            rest.split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|kv| {
                    kv.split_once('=')
                        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                        .ok_or_else(|| err(format!("'{kv}' is not name=value")))
                })
                .collect()
        };
        match kind.trim() {
            "random" => {
                let mut seed = 1;
                for (k, v) in pairs(rest)? {
                    match k.as_str() {
                        "seed" => seed = v.parse().map_err(|_| err(format!("seed '{v}' is not a number")))?,
                        _ => return Err(err(format!("unknown setting '{k}' (random takes seed)"))),
                    }
                }
                Ok(PlayerSpec::Random { seed })
            }
            "mcts" => mcts::MctsConfig::from_pairs(&pairs(rest)?).map(PlayerSpec::Mcts).map_err(err),
            "uci" => uci::UciConfig::parse(rest).map(PlayerSpec::Uci).map_err(err),
            "engine" if !rest.trim().is_empty() => EngineSettings::parse(rest).map(PlayerSpec::Engine).map_err(err),
            "hub" if !rest.trim().is_empty() => EngineSettings::parse(rest).map(PlayerSpec::Hub).map_err(err),
            "hub" => Err(err("hub: needs a command, e.g. hub:dame hub".into())),
            "xboard" if !rest.trim().is_empty() => EngineSettings::parse(rest).map(PlayerSpec::Xboard).map_err(err),
            "xboard" => Err(err("xboard: needs a command, e.g. xboard:gnuchess --xboard".into())),
            "engine" => Err(err("engine: needs a command, e.g. engine:./my-engine".into())),
            "human" => Ok(PlayerSpec::Human),
            other => Err(err(format!("unknown player kind '{other}' (random, mcts, uci, xboard, hub, engine, human)"))),
        }
    }

    /// Whether this player can play `info`'s variant: searching a
    /// hidden-information variant needs its `sample_world`, and UCI and Hub
    /// engines see whole positions only.
    pub fn can_play(&self, text: &str, info: &arbiter_api::schema::VariantInfo) -> Result<(), SpecError> {
        let caps = &info.capabilities;
        let refuse = |reason: String| Err(SpecError { spec: text.to_string(), reason });
        match self {
            PlayerSpec::Mcts(_) if caps.hidden_information && !caps.sample_world => refuse(format!(
                "mcts cannot search {}: it hides information and its plugin offers no sample_world",
                info.id
            )),
            PlayerSpec::Uci(_) | PlayerSpec::Hub(_) | PlayerSpec::Xboard(_) if caps.hidden_information => {
                refuse(format!(
                    "{} hides information; UCI, xboard and Hub engines need whole positions (use engine:)",
                    info.id
                ))
            }
            _ => Ok(()),
        }
    }

    /// Whether this is an engine (a process of its own, kept between games).
    pub fn is_engine(&self) -> bool {
        self.settings().is_some()
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
            None => settings.command.split_whitespace().next().unwrap_or("").to_string(),
        };
        crate::process::find_program(&program).map(|_| ()).map_err(refuse)
    }

    /// Checks what can only be checked by asking the engine, once, before
    /// any game: a UCI engine's option values against the types it declares.
    pub fn check_options(&self, text: &str) -> Result<(), SpecError> {
        match self {
            PlayerSpec::Uci(cfg) => {
                uci::check_options(cfg).map_err(|reason| SpecError { spec: text.to_string(), reason })
            }
            _ => Ok(()),
        }
    }

    /// An engine player's process settings (`None` for built-in players).
    pub fn settings(&self) -> Option<&EngineSettings> {
        match self {
            PlayerSpec::Uci(cfg) => Some(&cfg.engine),
            PlayerSpec::Engine(e) | PlayerSpec::Hub(e) | PlayerSpec::Xboard(e) => Some(e),
            PlayerSpec::Random { .. } | PlayerSpec::Mcts(_) | PlayerSpec::Human => None,
        }
    }

    /// Creates a player; `game_seed` varies per game so seeded players do not
    /// repeat themselves across a match.
    pub fn create(&self, game_seed: u64) -> Box<dyn Player> {
        match self {
            PlayerSpec::Random { seed } => Box::new(RandomPlayer::new(seed.wrapping_add(game_seed))),
            PlayerSpec::Mcts(cfg) => Box::new(mcts::MctsPlayer::new(cfg.clone(), game_seed)),
            PlayerSpec::Uci(cfg) => Box::new(uci::UciPlayer::new(cfg.clone())),
            PlayerSpec::Engine(e) => Box::new(engine::JsonEngine::new(e.clone())),
            PlayerSpec::Hub(e) => Box::new(hub::HubPlayer::new(e.clone())),
            PlayerSpec::Xboard(e) => Box::new(xboard::XboardPlayer::new(e.clone())),
            PlayerSpec::Human => Box::new(human::HumanPlayer::new()),
        }
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
}
