//! `uci:CMD[,name=value...]`: a chess engine speaking UCI (Stockfish and the
//! like). Handshake (`uci`/`uciok`, `setoption`, `isready`/`readyok`),
//! `ucinewgame` per game, `position fen ... moves ...` from the game's start,
//! `go` with the clocks (or movetime, nodes, depth), `bestmove` back; the last
//! `info ... score` and `time` are kept for adjudication and host latency.
//! Moves reach the engine in UCI notation through the chess plugin's
//! `uci_move` call. A process that dies or hangs is restarted for the next game.

use super::{
    handshake, refuses_hidden, Answer, EngineSettings, EngineSlot, KindSpec, MoveWait, OptionValueError, Player,
    PlayerError, PlayerKind, Reply, SettingError,
};
use crate::process::{deadline_after, ChildProcess, ProcessError};
use crate::seat::{Seen, Start, Turn};
use crate::verdict::GameResult;

/// Settings of a UCI engine player.
#[derive(Clone, Debug, PartialEq)]
pub struct UciConfig {
    /// How the engine's process is started and kept.
    pub engine: EngineSettings,
    /// `setoption` pairs sent after the handshake.
    pub options: Vec<(String, String)>,
}

impl UciConfig {
    /// Parses `CMD[,name=value...]`: the [`EngineSettings`] by their names,
    /// `option.NAME=value` or any other name as a UCI option.
    pub fn parse(rest: &str) -> Result<UciConfig, SettingError> {
        let mut parts = rest.split(',');
        let command = parts.next().unwrap_or("").trim();
        if command.is_empty() {
            return Err(SettingError::NoCommand { kind: KIND.name, example: KIND.example });
        }
        let (mut engine, mut options) = (EngineSettings::of(command), Vec::new());
        for kv in parts {
            let (k, v) = kv
                .split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| SettingError::NotNameValue(kv.into()))?;
            if let Some(option) = k.strip_prefix("option.") {
                options.push((option.to_string(), v.to_string()));
            } else if !engine.set(k, v)? {
                options.push((k.to_string(), v.to_string()));
            }
        }
        Ok(UciConfig { engine, options })
    }
}

/// How long an engine may take to answer `uci` and `isready` (unless its
/// `timeout=` says otherwise).
const HANDSHAKE_MS: u64 = 10_000;

/// How long an engine told to `stop` (at its hang limit, with no clock) may
/// take to send its `bestmove`.
const STOP_GRACE_MS: u64 = 1_000;

/// A UCI engine.
pub struct UciPlayer {
    cfg: UciConfig,
    engine: EngineSlot,
    name: String,
    start_fen: String,
    moves: Vec<String>,
    /// Whether the engine was last told `UCI_Chess960 true`.
    chess960: bool,
    /// The `UCI_Variant` the engine was last told (Fairy-Stockfish's name).
    variant: Option<String>,
}

impl UciPlayer {
    /// A player for the engine `cfg` describes; the process starts with the first game.
    pub fn new(cfg: UciConfig) -> Self {
        let name = cfg.engine.program_name();
        UciPlayer {
            engine: EngineSlot::new(cfg.engine.restart),
            cfg,
            name,
            start_fen: String::new(),
            moves: Vec::new(),
            chess960: false,
            variant: None,
        }
    }

    /// Runs `talk` on the engine (see [`EngineSlot`]).
    fn with_engine<T>(
        &mut self,
        talk: impl FnOnce(&mut ChildProcess) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        self.engine.talk(|| Self::start(&self.cfg), &mut self.name, talk)
    }

    /// Starts the engine: `uci` until `uciok` (its name and options noted),
    /// then the configured `setoption`s.
    fn start(cfg: &UciConfig) -> Result<(ChildProcess, Option<String>), PlayerError> {
        let mut p = cfg.engine.start()?;
        let (name, declared) = Self::handshake(&mut p, cfg)?;
        for (k, v) in &cfg.options {
            match declared.iter().find(|o| o.name.eq_ignore_ascii_case(k)) {
                Some(option) => {
                    option.check(v).map_err(|why| PlayerError::Protocol(format!("option {k}: {why}")))?;
                    match option.kind {
                        OptionKind::Button => p.send(&format!("setoption name {k}"))?,
                        _ => p.send(&format!("setoption name {k} value {v}"))?,
                    }
                }
                None => {
                    tracing::warn!(
                        "engine '{}' has no UCI option '{k}' (it offers: {})",
                        cfg.engine.command,
                        if declared.is_empty() {
                            "none".to_string()
                        } else {
                            declared.iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(", ")
                        }
                    );
                    p.send(&format!("setoption name {k} value {v}"))?;
                }
            }
        }
        Ok((p, name))
    }

    /// `uci` until `uciok`: the engine's name and the options it declares.
    fn handshake(p: &mut ChildProcess, cfg: &UciConfig) -> Result<(Option<String>, Vec<DeclaredOption>), PlayerError> {
        p.send("uci")?;
        let (mut name, mut declared) = (None, Vec::new());
        p.recv_until(Some(deadline_after(cfg.engine.handshake_ms(HANDSHAKE_MS))), |l| {
            if let Some(n) = l.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            } else if let Some(option) = DeclaredOption::parse(l) {
                declared.push(option);
            }
            (l.trim() == "uciok").then_some(())
        })
        .map_err(|e| handshake(e, "uciok"))?;
        Ok((name, declared))
    }
}

/// Starts the engine once, before any game, and checks every configured
/// option's value against the type the engine declares for it (`Hash=abc`
/// for a spin option, a value outside its range, a combo value it does not
/// list), so that a mistyped setting is one error rather than an engine
/// that aborts and loses.
pub fn check_options(cfg: &UciConfig) -> Result<(), SettingError> {
    if cfg.options.is_empty() {
        return Ok(());
    }
    let mut p = cfg.engine.start().map_err(|e| SettingError::Engine(e.to_string()))?;
    let declared = UciPlayer::handshake(&mut p, cfg).map_err(|e| SettingError::Engine(e.to_string()))?.1;
    let _ = p.send("quit");
    for (k, v) in &cfg.options {
        if let Some(option) = declared.iter().find(|o| o.name.eq_ignore_ascii_case(k)) {
            option.check(v).map_err(|reason| SettingError::Option { name: k.clone(), reason })?;
        }
    }
    Ok(())
}

/// What kind of value a UCI option takes.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    /// A whole number within bounds.
    Spin {
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `true` or `false`.
    Check,
    /// One of the listed values.
    Combo(Vec<String>),
    /// No value: setting it presses it.
    Button,
    /// Any text.
    Text,
}

/// An option as the engine declares it (`option name Hash type spin default 16 min 1 max 33554432`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredOption {
    /// Its name.
    pub name: String,
    /// The values it takes.
    pub kind: OptionKind,
}

impl DeclaredOption {
    /// The option an `option name ...` line declares, if it is one.
    pub fn parse(line: &str) -> Option<DeclaredOption> {
        let rest = line.trim().strip_prefix("option name ")?;
        let (name, tail) = rest.split_once(" type ")?;
        let mut words = tail.split_whitespace();
        let kind_word = words.next()?;
        // The values after each keyword, up to the next keyword (var values may hold spaces).
        let mut fields: Vec<(&str, Vec<&str>)> = Vec::new();
        for w in words {
            match w {
                "default" | "min" | "max" | "var" => fields.push((w, Vec::new())),
                _ => {
                    if let Some((_, v)) = fields.last_mut() {
                        v.push(w)
                    }
                }
            }
        }
        let field = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v.join(" "));
        let kind = match kind_word {
            "spin" => OptionKind::Spin {
                min: field("min").and_then(|m| m.parse().ok()).unwrap_or(i64::MIN),
                max: field("max").and_then(|m| m.parse().ok()).unwrap_or(i64::MAX),
            },
            "check" => OptionKind::Check,
            "combo" => {
                OptionKind::Combo(fields.iter().filter(|(k, _)| *k == "var").map(|(_, v)| v.join(" ")).collect())
            }
            "button" => OptionKind::Button,
            _ => OptionKind::Text,
        };
        Some(DeclaredOption { name: name.trim().to_string(), kind })
    }

    /// Whether `value` is one this option takes; why not, if not.
    pub fn check(&self, value: &str) -> Result<(), OptionValueError> {
        match &self.kind {
            &OptionKind::Spin { min, max } => match value.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(()),
                Ok(n) => Err(OptionValueError::OutOfRange { value: n, min, max }),
                Err(_) => Err(OptionValueError::NotWhole { value: value.into(), min, max }),
            },
            OptionKind::Check => match value {
                "true" | "false" => Ok(()),
                _ => Err(OptionValueError::NotBool(value.into())),
            },
            OptionKind::Combo(vars) => match vars.iter().any(|v| v.eq_ignore_ascii_case(value)) {
                true => Ok(()),
                false => Err(OptionValueError::NotListed { value: value.into(), vars: vars.join(", ") }),
            },
            OptionKind::Button | OptionKind::Text => Ok(()),
        }
    }
}

impl Player for UciPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn engine_name(&self) -> Option<String> {
        self.engine.reported_name()
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        let state = super::whole_position(start, "UCI")?;
        self.start_fen = state.position_text();
        self.moves.clear();
        let chess960 = super::is_chess960(state);
        let variant = super::uci_variant(state);
        self.engine.begin_game(Some("quit"));
        // Said when it changes: one engine process may play games of both kinds.
        let tell = chess960 != self.chess960 || (chess960 && !self.engine.running());
        self.chess960 = chess960;
        let name = variant.as_ref().map(|(n, _)| n.clone());
        let tell_variant = name.is_some() && (name != self.variant || !self.engine.running());
        self.variant = name;
        let ready_ms = self.cfg.engine.handshake_ms(HANDSHAKE_MS);
        self.with_engine(|p| {
            if tell {
                p.send(&format!("setoption name UCI_Chess960 value {chess960}"))?;
            }
            // An ini variant: its file first if it is a user's, then its name.
            if let Some((name, path)) = variant.filter(|_| tell_variant) {
                if let Some(path) = path {
                    p.send(&format!("setoption name VariantPath value {path}"))?;
                }
                p.send(&format!("setoption name UCI_Variant value {name}"))?;
            }
            p.send("ucinewgame")?;
            p.send("isready")?;
            p.recv_until(Some(deadline_after(ready_ms)), |l| (l.trim() == "readyok").then_some(()))
                .map_err(|e| handshake(e, "readyok"))
        })
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        if let Some((before, mv)) = seen.before {
            self.moves.push(super::coordinate_text(before, mv).unwrap_or_else(|| seen.text.clone()));
        }
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let me = turn.player();
        let mut go = String::from("go");
        let (white, black) = (turn.clock(0), turn.clock(1));
        let tc = turn.time_control();
        if let Some(mt) = turn.clock(me).movetime_ms {
            go.push_str(&format!(" movetime {mt}"));
        } else if let (Some(w), Some(b)) = (white.remaining_ms, black.remaining_ms) {
            go.push_str(&format!(" wtime {w} btime {b} winc {} binc {}", white.increment_ms, black.increment_ms));
            if let Some(m) = turn.clock(me).moves_to_go {
                go.push_str(&format!(" movestogo {m}"));
            }
        }
        if let Some(n) = tc.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(d) = tc.depth {
            go.push_str(&format!(" depth {d}"));
        }
        // No limit at all: search until told to stop, at the hang limit.
        let infinite = go == "go";
        if infinite {
            go.push_str(" infinite");
        }
        let position = if self.moves.is_empty() {
            format!("position fen {}", self.start_fen)
        } else {
            format!("position fen {} moves {}", self.start_fen, self.moves.join(" "))
        };
        let wait = MoveWait::of(turn);
        let (mut search, mut reported) = (Search::default(), None);
        let best = self.with_engine(|p| {
            p.send(&position)?;
            p.send(&go)?;
            let mut read = |line: &str| read_search_line(line, &mut search, &mut reported);
            match p.recv_until(Some(wait.deadline), &mut read) {
                Err(ProcessError::Timeout) if infinite => {
                    p.send("stop")?;
                    p.recv_until(Some(deadline_after(STOP_GRACE_MS)), read).map_err(|e| wait.blame(e.into()))
                }
                r => r.map_err(|e| wait.blame(e.into())),
            }
        })?;
        Ok(Reply {
            reported_ms: reported,
            score: search.score,
            depth: search.depth,
            nodes: search.nodes,
            seldepth: search.seldepth,
            pv: search.pv,
            ..Reply::answer(Answer::Text(best))
        })
    }

    fn game_over(&mut self, _result: &GameResult, _me: u32) {
        self.moves.clear();
    }
}

/// What an engine's `info` lines said of its search, the last of each.
#[derive(Default)]
struct Search {
    /// The score, mate scores as ±30000 less the distance.
    score: Option<i32>,
    /// The depth.
    depth: Option<u32>,
    /// The nodes searched.
    nodes: Option<u64>,
    /// The selective depth.
    seldepth: Option<u32>,
    /// The principal variation.
    pv: Option<String>,
}

/// Reads one line of an engine's search: `info` updates the score, depth,
/// selective depth, nodes, pv and the time it reports (`info string` is
/// free text, read for nothing); `bestmove` gives the move.
fn read_search_line(line: &str, search: &mut Search, reported: &mut Option<u64>) -> Option<String> {
    let score = &mut search.score;
    let w: Vec<&str> = line.split_whitespace().collect();
    match w.first() {
        Some(&"info") => {
            for i in 1..w.len() {
                match (w[i - 1], w[i]) {
                    (_, "string") => break,
                    (_, "pv") => {
                        search.pv = Some(w[i + 1..].join(" ")).filter(|pv| !pv.is_empty());
                        break;
                    }
                    (_, "seldepth") => search.seldepth = w.get(i + 1).and_then(|t| t.parse().ok()).or(search.seldepth),
                    (_, "time") => *reported = w.get(i + 1).and_then(|t| t.parse().ok()).or(*reported),
                    (_, "depth") => search.depth = w.get(i + 1).and_then(|t| t.parse().ok()).or(search.depth),
                    (_, "nodes") => search.nodes = w.get(i + 1).and_then(|t| t.parse().ok()).or(search.nodes),
                    ("score", "cp") => *score = w.get(i + 1).and_then(|t| t.parse().ok()),
                    ("score", "mate") => {
                        *score = w.get(i + 1).and_then(|t| t.parse::<i32>().ok()).map(|m| {
                            if m > 0 {
                                30000 - m
                            } else {
                                -30000 - m
                            }
                        })
                    }
                    _ => {}
                }
            }
            None
        }
        Some(&"bestmove") => Some(w.get(1).unwrap_or(&"").to_string()),
        _ => None,
    }
}

/// `uci:CMD[,name=value...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "uci",
    example: "uci:stockfish",
    runs_a_program: true,
    parse: |rest| Ok(Box::new(UciConfig::parse(rest)?)),
};

impl KindSpec for UciConfig {
    fn create(&self, _game_seed: u64) -> Box<dyn Player> {
        Box::new(UciPlayer::new(self.clone()))
    }

    fn settings(&self) -> Option<&EngineSettings> {
        Some(&self.engine)
    }

    fn refuses(&self, info: &arbiter_api::schema::VariantInfo) -> Option<String> {
        refuses_hidden(info)
    }

    fn check_options(&self) -> Result<(), SettingError> {
        check_options(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_options_are_read_with_their_types() {
        let hash = DeclaredOption::parse("option name Hash type spin default 16 min 1 max 33554432").unwrap();
        assert_eq!(hash, DeclaredOption { name: "Hash".into(), kind: OptionKind::Spin { min: 1, max: 33554432 } });
        let style = DeclaredOption::parse("option name Play Style type combo default Normal var Very Solid var Normal")
            .unwrap();
        assert_eq!(style.name, "Play Style");
        assert_eq!(style.kind, OptionKind::Combo(vec!["Very Solid".into(), "Normal".into()]));
        let clear = DeclaredOption::parse("option name Clear Hash type button").unwrap();
        assert_eq!(clear.kind, OptionKind::Button);
        assert_eq!(
            DeclaredOption::parse("option name Ponder type check default false").unwrap().kind,
            OptionKind::Check
        );
        assert_eq!(
            DeclaredOption::parse("option name SyzygyPath type string default <empty>").unwrap().kind,
            OptionKind::Text
        );
        assert!(DeclaredOption::parse("id name Stockfish").is_none());
    }

    #[test]
    fn values_of_the_wrong_type_are_refused_with_the_reason() {
        let hash = DeclaredOption { name: "Hash".into(), kind: OptionKind::Spin { min: 1, max: 1024 } };
        assert!(hash.check("64").is_ok());
        assert_eq!(hash.check("abc").unwrap_err().to_string(), "'abc' is not a whole number (a spin option, 1..1024)");
        assert_eq!(hash.check("0").unwrap_err().to_string(), "0 is outside 1..1024");
        let ponder = DeclaredOption { name: "Ponder".into(), kind: OptionKind::Check };
        assert!(ponder.check("true").is_ok() && ponder.check("yes").is_err());
        let style =
            DeclaredOption { name: "Style".into(), kind: OptionKind::Combo(vec!["Solid".into(), "Risky".into()]) };
        assert!(style.check("solid").is_ok());
        assert_eq!(style.check("Wild").unwrap_err().to_string(), "'Wild' is none of Solid, Risky");
    }

    #[test]
    fn a_search_s_info_lines_keep_the_last_score_depth_nodes_and_pv_and_bestmove_ends_it() {
        let (mut search, mut reported) = (super::Search::default(), None);
        let mut read = |line: &str| super::read_search_line(line, &mut search, &mut reported);
        assert_eq!(read("info depth 1 seldepth 2 score cp 31 nodes 20 time 3 pv e2e4"), None);
        assert_eq!(
            read("info depth 12 seldepth 17 score cp -15 upperbound nodes 90210 nps 1 time 41 pv d2d4 g8f6 c2c4"),
            None
        );
        assert_eq!(read("info string NNUE evaluation using nn-x.nnue pv a1a2"), None, "free text changes nothing");
        assert_eq!(read("info currmove e2e4 currmovenumber 1"), None);
        assert_eq!(read("bestmove d2d4 ponder g8f6").as_deref(), Some("d2d4"));
        assert_eq!(
            (search.score, search.depth, search.seldepth, search.nodes),
            (Some(-15), Some(12), Some(17), Some(90210))
        );
        assert_eq!((search.pv.as_deref(), reported), (Some("d2d4 g8f6 c2c4"), Some(41)));
        let (mut mate, mut reported) = (super::Search::default(), None);
        super::read_search_line("info depth 9 score mate 3 pv a1a8", &mut mate, &mut reported);
        assert_eq!(mate.score, Some(29997));
        super::read_search_line("info depth 9 score mate -2 pv a1a8", &mut mate, &mut reported);
        assert_eq!(mate.score, Some(-29998));
        assert_eq!(super::read_search_line("bestmove", &mut mate, &mut reported).as_deref(), Some(""));
    }
}
