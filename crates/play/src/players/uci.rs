//! `uci:CMD[,name=value...]`: a chess engine speaking UCI (Stockfish and the
//! like). Handshake (`uci`/`uciok`, `setoption`, `isready`/`readyok`),
//! `ucinewgame` per game, `position fen ... moves ...` from the game's start,
//! `go` with the clocks (or movetime, nodes, depth), `bestmove` back; the last
//! `info ... score` and `time` are kept for adjudication and host latency.
//! Moves reach the engine in UCI notation through the chess plugin's
//! `uci_move` call. A process that dies or hangs is restarted for the next game.
//!
//! With `ponder=on` the engine thinks on the opponent's time: after each
//! `bestmove X ponder Y` it is sent the position after `Y` and `go ponder`;
//! when the opponent plays `Y` it is told `ponderhit` (its clock runs from
//! then, as every move's does: from the moment it is asked), else `stop`,
//! and is asked afresh. Each move records whether its ponder hit.
//!
//! USI (shogi) and UCCI (xiangqi) engines hold the same conversation in
//! their own words, positions and notation: a [`Dialect`] each, its
//! notation in `usi.rs` and `ucci.rs`.

use super::{
    handshake, refuses_hidden, Answer, EngineSettings, EngineSlot, KindSpec, MoveWait, OptionValueError, Player,
    PlayerError, PlayerKind, Reply, SettingError,
};
use arbiter_core::engine::EngineProcess;
use arbiter_core::model::Seat;
use arbiter_core::process::{deadline_after, ProcessError};
use arbiter_core::seat::{Seen, Start, Turn};
use arbiter_core::verdict::GameResult;

/// Which of UCI's family an engine speaks: the conversation is the same,
/// the words, positions, moves and clocks are each protocol's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// UCI: chess and Fairy-Stockfish's variants in its coordinates.
    Uci,
    /// USI: shogi's protocol (SFEN, `7g7f`, `btime` for sente, byoyomi).
    Usi,
    /// UCCI: xiangqi's protocol (FEN, ICCS coordinates, `time`/`opptime`).
    Ucci,
}

impl Dialect {
    /// The player kind speaking it.
    fn kind(self) -> &'static PlayerKind {
        match self {
            Dialect::Uci => &KIND,
            Dialect::Usi => &super::usi::KIND,
            Dialect::Ucci => &super::ucci::KIND,
        }
    }

    /// The protocol's name, for messages (`UCI`).
    fn label(self) -> &'static str {
        match self {
            Dialect::Uci => "UCI",
            Dialect::Usi => "USI",
            Dialect::Ucci => "UCCI",
        }
    }

    /// The command that starts the protocol (`uci`); the engine answers
    /// it with the same word and `ok`.
    fn hello(self) -> &'static str {
        self.kind().name
    }

    /// The command before each game, where the protocol has one.
    fn new_game(self) -> Option<&'static str> {
        match self {
            Dialect::Uci => Some("ucinewgame"),
            Dialect::Usi => Some("usinewgame"),
            Dialect::Ucci => None,
        }
    }

    /// The line setting option `k` to `v` (`None`: a button, pressed).
    fn setoption(self, k: &str, v: Option<&str>) -> String {
        match (self, v) {
            (Dialect::Ucci, Some(v)) => format!("setoption {k} {v}"),
            (Dialect::Ucci, None) => format!("setoption {k}"),
            (_, Some(v)) => format!("setoption name {k} value {v}"),
            (_, None) => format!("setoption name {k}"),
        }
    }

    /// A move in Fairy-Stockfish's coordinates as the engine writes it
    /// (UCI's, as it is).
    fn coordinates_to_engine(self, text: String, size: BoardSize) -> String {
        match self {
            Dialect::Uci => text,
            Dialect::Usi => super::usi::to_usi(&text, size),
            Dialect::Ucci => super::ucci::to_iccs(&text, size),
        }
    }

    /// Moves as the engine writes them (one, or a line of them), in
    /// Fairy-Stockfish's coordinates (UCI's, as they are).
    fn engine_to_coordinates(self, text: String, size: BoardSize) -> String {
        let each = |convert: fn(&str, BoardSize) -> String| {
            text.split(' ').map(|m| convert(m, size)).collect::<Vec<_>>().join(" ")
        };
        match self {
            Dialect::Uci => text,
            Dialect::Usi => each(super::usi::from_usi),
            Dialect::Ucci => each(super::ucci::from_iccs),
        }
    }

    /// The `position` command of a game's start (its FEN, or SFEN for
    /// USI), with no moves yet.
    fn position(self, start_fen: &str) -> PositionLine {
        let text = match self {
            Dialect::Usi => format!("position sfen {}", super::usi::sfen(start_fen)),
            _ => format!("position fen {start_fen}"),
        };
        PositionLine { head: text.len(), last: text.len(), text }
    }
}

/// A game's `position` command as it stands: the start and the moves
/// since in the engine's notation, grown a move at a time rather than
/// written afresh each ply.
#[derive(Clone, Debug, Default)]
struct PositionLine {
    text: String,
    /// Where the start ends (the moves follow).
    head: usize,
    /// Where the last move begins.
    last: usize,
}

impl PositionLine {
    /// The line with `mv` played.
    fn push(&mut self, mv: &str) {
        if self.text.len() == self.head {
            self.text.push_str(" moves");
        }
        self.text.push(' ');
        self.last = self.text.len();
        self.text.push_str(mv);
    }

    /// The last move played, if any.
    fn last_move(&self) -> Option<&str> {
        (self.text.len() > self.head).then(|| &self.text[self.last..])
    }

    /// Back to the start, no moves played.
    fn clear(&mut self) {
        self.text.truncate(self.head);
        self.last = self.head;
    }
}

/// A board's size, for notations that count squares from an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardSize {
    /// Files (columns).
    pub files: u32,
    /// Ranks (rows).
    pub ranks: u32,
}

impl BoardSize {
    /// The size of a variant's board, as its geometry gives it (a graph
    /// board, which no UCI-family engine plays, counts as 8x8).
    pub fn of(info: &arbiter_api::schema::VariantInfo) -> BoardSize {
        match info.board {
            arbiter_api::schema::BoardGeometry::Grid { width, height, .. }
            | arbiter_api::schema::BoardGeometry::Lines { width, height, .. } => {
                BoardSize { files: width, ranks: height }
            }
            arbiter_api::schema::BoardGeometry::Graph { .. } => BoardSize { files: 8, ranks: 8 },
        }
    }
}

/// Settings of a UCI (or USI, or UCCI) engine player.
#[derive(Clone, Debug, PartialEq)]
pub struct UciConfig {
    /// How the engine's process is started and kept.
    pub engine: EngineSettings,
    /// `setoption` pairs sent after the handshake.
    pub options: Vec<(String, String)>,
    /// The protocol it speaks.
    pub dialect: Dialect,
}

impl UciConfig {
    /// Parses `CMD[,name=value...]`: the [`EngineSettings`] by their names,
    /// `option.NAME=value` or any other name as an option of the engine.
    pub fn parse(rest: &str, dialect: Dialect) -> Result<UciConfig, SettingError> {
        let mut parts = rest.split(',');
        let command = parts.next().unwrap_or("").trim();
        if command.is_empty() {
            let kind = dialect.kind();
            return Err(SettingError::NoCommand { kind: kind.name, example: kind.example });
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
        Ok(UciConfig { engine, options, dialect })
    }
}

/// The UCCI option that switches an engine's times from seconds to ms.
const USEMILLISEC: &str = "usemillisec";

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
    /// The `position` command of the game being played.
    line: PositionLine,
    /// The board's size, for USI's notation.
    size: BoardSize,
    /// Whether the engine was last told `UCI_Chess960 true`.
    chess960: bool,
    /// The `UCI_Variant` the engine was last told (Fairy-Stockfish's name).
    variant: Option<String>,
    /// The opponent's move the engine is pondering on (`go ponder` sent).
    pondering: Option<String>,
    /// The options the running engine declared.
    declared: Vec<DeclaredOption>,
    /// Option values taken since the engine started, told before its next game.
    unsent: Vec<(String, String)>,
    /// The buffer a search keeps its `info` lines in, kept between moves.
    info_lines: String,
}

impl UciPlayer {
    /// A player for the engine `cfg` describes; the process starts with the first game.
    pub fn new(cfg: UciConfig) -> Self {
        let name = cfg.engine.program_name();
        UciPlayer {
            engine: EngineSlot::new(&cfg.engine),
            cfg,
            name,
            line: PositionLine::default(),
            size: BoardSize { files: 8, ranks: 8 },
            chess960: false,
            variant: None,
            pondering: None,
            declared: Vec::new(),
            unsent: Vec::new(),
            info_lines: String::new(),
        }
    }

    /// Runs `talk` on the engine (see [`EngineSlot`]).
    fn with_engine<T>(
        &mut self,
        talk: impl FnOnce(&mut EngineProcess) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        let (cfg, declared) = (&self.cfg, &mut self.declared);
        let start = || {
            let (p, name, options) = Self::start(cfg)?;
            *declared = options;
            Ok((p, name))
        };
        self.engine.talk(start, &mut self.name, talk)
    }

    /// Starts the engine: `uci` until `uciok` (its name and options noted),
    /// then the configured `setoption`s.
    fn start(cfg: &UciConfig) -> Result<(EngineProcess, Option<String>, Vec<DeclaredOption>), PlayerError> {
        let mut p = cfg.engine.start()?;
        let (name, declared) = Self::handshake(&mut p, cfg)?;
        // UCI's way of telling an engine it will be asked to ponder (unless
        // set by hand); USI's option is `USI_Ponder`.
        let is_ponder = |k: &str| k.eq_ignore_ascii_case("Ponder") || k.eq_ignore_ascii_case("USI_Ponder");
        let ponder_set = cfg.options.iter().any(|(k, _)| is_ponder(k));
        if let Some(o) = declared.iter().find(|o| is_ponder(&o.name)).filter(|_| cfg.engine.ponder && !ponder_set) {
            p.send(&cfg.dialect.setoption(&o.name, Some("true")))?;
        }
        // UCCI's times are in seconds unless the engine offers milliseconds.
        let millis = declared.iter().find(|o| o.name.eq_ignore_ascii_case(USEMILLISEC));
        if let Some(o) = millis.filter(|_| cfg.dialect == Dialect::Ucci) {
            p.send(&cfg.dialect.setoption(&o.name, Some("true")))?;
        }
        for (k, v) in &cfg.options {
            p.send(&setoption(cfg.dialect, &declared, &cfg.engine.command, k, v)?)?;
        }
        Ok((p, name, declared))
    }

    /// `uci` until `uciok` (`usi`, `ucci` likewise): the engine's name and
    /// the options it declares.
    fn handshake(p: &mut EngineProcess, cfg: &UciConfig) -> Result<(Option<String>, Vec<DeclaredOption>), PlayerError> {
        let hello = cfg.dialect.hello();
        let ok = format!("{hello}ok");
        p.send(hello)?;
        let (mut name, mut declared) = (None, Vec::new());
        p.recv_until(Some(deadline_after(cfg.engine.handshake_ms(HANDSHAKE_MS))), |l| {
            if let Some(n) = l.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            } else if let Some(option) = DeclaredOption::parse(l) {
                declared.push(option);
            }
            (l.trim() == ok).then_some(())
        })
        .map_err(|e| handshake(e, &ok))?;
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
    /// The option an `option name ...` line declares (UCCI's `option
    /// NAME ...` too), if it is one.
    pub fn parse(line: &str) -> Option<DeclaredOption> {
        let rest = line.trim().strip_prefix("option ")?;
        let rest = rest.strip_prefix("name ").unwrap_or(rest);
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

/// The `setoption` line telling an engine that declared `declared` the
/// value `v` of its option `k`: checked against the option's type, and
/// sent anyway (with a warning naming what it offers) if it declared none
/// of that name.
fn setoption(
    dialect: Dialect,
    declared: &[DeclaredOption],
    command: &str,
    k: &str,
    v: &str,
) -> Result<String, PlayerError> {
    let Some(option) = declared.iter().find(|o| o.name.eq_ignore_ascii_case(k)) else {
        let offered = match declared.is_empty() {
            true => "none".to_string(),
            false => declared.iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(", "),
        };
        tracing::warn!("engine '{command}' has no {} option '{k}' (it offers: {offered})", dialect.label());
        return Ok(dialect.setoption(k, Some(v)));
    };
    option.check(v).map_err(|why| PlayerError::Protocol(format!("option {k}: {why}")))?;
    Ok(match option.kind {
        OptionKind::Button => dialect.setoption(k, None),
        _ => dialect.setoption(k, Some(v)),
    })
}

impl Player for UciPlayer {
    engine_identity!();

    /// UCI sets options whenever the engine waits: the changed values are
    /// told before the next `ucinewgame`. An option told before and not
    /// now cannot be taken back but by a new process.
    fn take_options(&mut self, options: &[(String, String)]) -> bool {
        super::take_new_options(&mut self.cfg.options, &mut self.unsent, options)
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        self.stop_ponder();
        let dialect = self.cfg.dialect;
        let state = super::whole_position(start, dialect.label())?;
        self.line = dialect.position(&state.position_text());
        self.size = BoardSize::of(start.info);
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
        // Values taken since the engine started (a fresh one is told them
        // all); one it refuses ends the process, as any failure does.
        let unsent = std::mem::take(&mut self.unsent);
        let told = match self.engine.running() && !unsent.is_empty() {
            true => Some((self.declared.clone(), self.cfg.engine.command.clone())),
            false => None,
        };
        self.with_engine(|p| {
            if let Some((declared, command)) = told {
                for (k, v) in &unsent {
                    p.send(&setoption(dialect, &declared, &command, k, v)?)?;
                }
            }
            if tell {
                p.send(&dialect.setoption("UCI_Chess960", Some(&chess960.to_string())))?;
            }
            // An ini variant: its file first if it is a user's, then its name
            // (Fairy-Stockfish's `UCI_Variant` in every protocol it speaks).
            if let Some((name, path)) = variant.filter(|_| tell_variant) {
                if let Some(path) = path {
                    p.send(&dialect.setoption("VariantPath", Some(&path)))?;
                }
                p.send(&dialect.setoption("UCI_Variant", Some(&name)))?;
            }
            if let Some(new_game) = dialect.new_game() {
                p.send(new_game)?;
            }
            p.send("isready")?;
            p.recv_until(Some(deadline_after(ready_ms)), |l| (l.trim() == "readyok").then_some(()))
                .map_err(|e| handshake(e, "readyok"))
        })
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        if seen.before.is_some() {
            let text = seen.coordinates.map_or_else(|| seen.text.clone(), String::from);
            self.line.push(&self.cfg.dialect.coordinates_to_engine(text, self.size));
        }
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let asked = std::time::Instant::now();
        let wait = MoveWait::of(turn);
        let limits = Limits::of(turn);
        let ponder_hit = self.settle_ponder()?;
        let dialect = self.cfg.dialect;
        let go = limits.go(dialect, None, dialect == Dialect::Ucci && self.ucci_ms());
        let infinite = go == "go infinite";
        // The kept buffer, emptied: a search that failed left its lines there.
        let mut unread = std::mem::take(&mut self.info_lines);
        unread.clear();
        let mut search = Search { unread, ..Search::default() };
        // Lent to the engine's turn (which borrows the player whole), then put back.
        let position = std::mem::take(&mut self.line);
        let best = self.with_engine(|p| {
            // After a ponder hit the engine is searching this very position already.
            if ponder_hit != Some(true) {
                p.begin_move(wait.limit_ms);
                // One write: the engine reads both lines at one wake-up.
                p.send_lines(&[&position.text, &go])?;
            }
            let mut read = |line: &str| read_search_line(line, &mut search);
            let best = match p.recv_until(Some(wait.deadline), &mut read) {
                // A sandboxed engine's time is spent: nothing more can come.
                Err(ProcessError::Timeout) if infinite && !p.is_virtual() => {
                    p.send("stop")?;
                    p.recv_until(Some(deadline_after(STOP_GRACE_MS)), read).map_err(|e| wait.blame(e.into()))
                }
                r => r.map_err(|e| wait.blame(e.into())),
            }?;
            Ok((best, p.finish_move()))
        });
        self.line = position;
        self.info_lines = std::mem::take(&mut search.unread);
        let (best, clock_us) = best?;
        // Pondering needs a search that ends by itself once told `ponderhit`.
        if let (true, false, Some(expected)) = (self.cfg.engine.ponder, infinite, search.ponder.take()) {
            self.start_ponder(&best, expected, &limits, asked.elapsed().as_millis() as u64);
        }
        let size = self.size;
        let answer = match best.as_str() {
            // USI's resignation.
            "resign" if dialect == Dialect::Usi => Answer::Resign,
            _ => Answer::Text(dialect.engine_to_coordinates(best, size)),
        };
        let pv = search.pv.map(|pv| dialect.engine_to_coordinates(pv, size));
        Ok(Reply {
            reported_ms: search.reported_ms,
            score: search.score,
            depth: search.depth,
            nodes: search.nodes,
            seldepth: search.seldepth,
            pv,
            ponder_hit,
            clock_us,
            ..Reply::answer(answer)
        })
    }

    fn game_over(&mut self, _result: &GameResult, _me: Seat) {
        self.stop_ponder();
        self.line.clear();
    }
}

impl UciPlayer {
    /// Whether the engine reads UCCI's times in ms (it offers
    /// `usemillisec`, set when it started; else they are whole seconds).
    fn ucci_ms(&self) -> bool {
        self.declared.iter().any(|o| o.name.eq_ignore_ascii_case(USEMILLISEC))
    }

    /// Ends a ponder search before the engine is asked to move: `ponderhit`
    /// if the opponent played the move it pondered on (the search goes on,
    /// now on the clock), else `stop` and its `bestmove` read and dropped.
    /// Whether it was a hit; `None` if the engine was not pondering.
    fn settle_ponder(&mut self) -> Result<Option<bool>, PlayerError> {
        let Some(expected) = self.pondering.take() else { return Ok(None) };
        if self.line.last_move() == Some(expected.as_str()) {
            self.with_engine(|p| Ok(p.send("ponderhit")?))?;
            return Ok(Some(true));
        }
        self.with_engine(stop_search)?;
        Ok(Some(false))
    }

    /// Starts the engine thinking on `expected`, the opponent's reply to
    /// `best`: the position after both, and `go ponder` with the clocks as
    /// they will stand (this engine's less the `used_ms` it just took, plus
    /// its increment). An engine that cannot be told just does not ponder.
    fn start_ponder(&mut self, best: &str, expected: String, limits: &Limits, used_ms: u64) {
        let mut line = self.line.clone();
        line.push(best);
        line.push(&expected);
        let dialect = self.cfg.dialect;
        let go = limits.go(dialect, Some(used_ms), dialect == Dialect::Ucci && self.ucci_ms()).replacen(
            "go",
            "go ponder",
            1,
        );
        match self.with_engine(|p| Ok(p.send_lines(&[&line.text, &go])?)) {
            Ok(()) => self.pondering = Some(expected),
            Err(e) => tracing::warn!("engine '{}': not pondering: {e}", self.name),
        }
    }

    /// Stops a ponder search the game made pointless (it ended, or a new one
    /// starts), reading its `bestmove` so the engine is ready for the next.
    fn stop_ponder(&mut self) {
        if self.pondering.take().is_none() {
            return;
        }
        if let Err(e) = self.with_engine(stop_search) {
            tracing::warn!("engine '{}': did not stop pondering: {e}", self.name);
        }
    }
}

/// Ends a search with `stop`, its `bestmove` read and dropped.
fn stop_search(p: &mut EngineProcess) -> Result<(), PlayerError> {
    p.send("stop")?;
    let mut ignored = Search::default();
    p.recv_until(Some(deadline_after(STOP_GRACE_MS)), |l| read_search_line(l, &mut ignored))?;
    Ok(())
}

/// What limits a search: the clocks, a fixed time, nodes or depth, as a
/// turn gives them.
struct Limits {
    /// The mover (0 White, 1 Black).
    me: Seat,
    /// Both clocks' remaining time and what a move earns (the increment,
    /// or the byoyomi), if both run.
    clocks: Option<[(u64, u64); 2]>,
    /// The byoyomi, what a move may take past the main time (0: none).
    byoyomi_ms: u64,
    /// Moves to the next time control, for the mover.
    moves_to_go: Option<u32>,
    /// A fixed time for the move.
    movetime_ms: Option<u64>,
    /// A node limit.
    nodes: Option<u64>,
    /// A depth limit.
    depth: Option<u32>,
}

impl Limits {
    fn of(turn: &Turn<'_>) -> Limits {
        let (me, white, black) = (turn.player(), turn.clock(Seat::FIRST), turn.clock(Seat::SECOND));
        let clocks = match (white.remaining_ms, black.remaining_ms) {
            (Some(w), Some(b)) => Some([(w, white.earned_ms()), (b, black.earned_ms())]),
            _ => None,
        };
        let tc = turn.time_control();
        Limits {
            me,
            clocks,
            moves_to_go: turn.clock(me).moves_to_go,
            movetime_ms: turn.clock(me).movetime_ms,
            byoyomi_ms: turn.clock(me).byoyomi_ms,
            nodes: tc.nodes,
            depth: tc.depth,
        }
    }

    /// The `go` command in `dialect`'s words; with `used_ms`, for the
    /// mover's next move (its clock less that time, plus its increment):
    /// `go infinite` when nothing limits the search.
    /// UCCI's times are whole seconds (rounded down) unless the engine
    /// was told `usemillisec` (`ucci_ms`).
    fn go(&self, dialect: Dialect, used_ms: Option<u64>, ucci_ms: bool) -> String {
        use std::fmt::Write as _;
        // Written into one buffer (writing to a String cannot fail).
        let mut go = String::with_capacity(64);
        go.push_str("go");
        let byoyomi = self.byoyomi_ms;
        let ucci = |ms: u64| if ucci_ms { ms } else { ms / 1000 };
        if let Some(mt) = self.movetime_ms {
            let _ = match dialect {
                Dialect::Uci => write!(go, " movetime {mt}"),
                Dialect::Usi => write!(go, " btime 0 wtime 0 byoyomi {mt}"),
                Dialect::Ucci => write!(go, " time {} movestogo 1", ucci(mt)),
            };
        } else if let Some(mut clocks) = self.clocks {
            let mine = self.me.index() % 2;
            if let Some(used) = used_ms {
                let (left, inc) = clocks[mine];
                // Byoyomi is not added to the main time: it is each move's.
                let earned = if byoyomi > 0 { 0 } else { inc };
                clocks[mine] = (left.saturating_sub(used) + earned, inc);
            }
            let [(w, winc), (b, binc)] = clocks;
            let (mtg, (t, inc), (ot, oinc)) = (self.moves_to_go, clocks[mine], clocks[1 - mine]);
            let (t, inc, ot, oinc) = (ucci(t), ucci(inc), ucci(ot), ucci(oinc));
            let _ = match (dialect, mtg) {
                (Dialect::Uci, _) => write!(go, " wtime {w} btime {b} winc {winc} binc {binc}"),
                // USI's `btime` is the first player's (sente's).
                (Dialect::Usi, _) if byoyomi > 0 => write!(go, " btime {w} wtime {b} byoyomi {byoyomi}"),
                (Dialect::Usi, _) => write!(go, " btime {w} wtime {b} binc {winc} winc {binc}"),
                (Dialect::Ucci, Some(m)) => write!(go, " time {t} movestogo {m} opptime {ot} oppmovestogo {m}"),
                (Dialect::Ucci, None) => write!(go, " time {t} increment {inc} opptime {ot} oppincrement {oinc}"),
            };
            if let (Some(m), Dialect::Uci | Dialect::Usi) = (mtg, dialect) {
                let _ = write!(go, " movestogo {m}");
            }
        }
        if let Some(n) = self.nodes {
            let _ = write!(go, " nodes {n}");
        }
        if let Some(d) = self.depth {
            let _ = write!(go, " depth {d}");
        }
        if go == "go" {
            // No limit at all: search until told to stop, at the hang limit.
            go.push_str(" infinite");
        }
        go
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
    /// The time the engine says it took, in ms.
    reported_ms: Option<u64>,
    /// The opponent's move it expects (`bestmove ... ponder MOVE`).
    ponder: Option<String>,
    /// `info` lines kept as they came, each with its newline, not yet read
    /// (see [`Search::settle`]).
    unread: String,
}

/// The most `info` text kept unread; past it the lines are read at once.
const UNREAD_CAP: usize = 64 << 10;

impl Search {
    /// Keeps an `info` line to read when the search ends: an engine writes
    /// a dozen a move, each waking the game thread, and only the last says
    /// what the record keeps, so a wake-up costs a copy, not a parse.
    fn keep(&mut self, line: &str) {
        if self.unread.len() + line.len() >= UNREAD_CAP {
            self.settle();
        }
        self.unread.push_str(line);
        self.unread.push('\n');
    }

    /// Reads the kept `info` lines, the last first, each field taken from
    /// the last line that gives it (as reading them in order, each over
    /// the one before, would): usually the last line alone.
    fn settle(&mut self) {
        let unread = std::mem::take(&mut self.unread);
        let mut given = Fields::default();
        for line in unread.lines().rev() {
            let said = Said::of(line);
            if let (false, Some(score)) = (given.score, said.score) {
                self.score = score;
                given.score = true;
            }
            take(&mut self.depth, said.depth, &mut given.depth);
            take(&mut self.seldepth, said.seldepth, &mut given.seldepth);
            take(&mut self.nodes, said.nodes, &mut given.nodes);
            take(&mut self.reported_ms, said.reported_ms, &mut given.time);
            if let (false, Some(pv)) = (given.pv, said.pv) {
                let mut text = self.pv.take().unwrap_or_default();
                text.clear();
                for m in pv.split_ascii_whitespace() {
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(m);
                }
                self.pv = Some(text).filter(|pv| !pv.is_empty());
                given.pv = true;
            }
            if given.all() {
                break;
            }
        }
        // The buffer is kept for the next search.
        self.unread = unread;
        self.unread.clear();
    }
}

/// Which fields a later line has given already, as [`Search::settle`]
/// reads the lines from the last.
#[derive(Default)]
struct Fields {
    score: bool,
    depth: bool,
    seldepth: bool,
    nodes: bool,
    time: bool,
    pv: bool,
}

impl Fields {
    /// Every field is given: earlier lines can change nothing.
    fn all(&self) -> bool {
        self.score && self.depth && self.seldepth && self.nodes && self.time && self.pv
    }
}

/// `value` into `field` unless a later line gave it (`given`).
fn take<T>(field: &mut Option<T>, value: Option<T>, given: &mut bool) {
    if let (false, Some(v)) = (*given, value) {
        *field = Some(v);
        *given = true;
    }
}

/// What one `info` line says, the last of each in it. A number that does
/// not parse says nothing (the one before stands), but a score that does
/// not parse is no score (`Some(None)`), and a `pv` is the rest of the
/// line, whatever it holds.
#[derive(Default)]
struct Said<'a> {
    score: Option<Option<i32>>,
    depth: Option<u32>,
    seldepth: Option<u32>,
    nodes: Option<u64>,
    reported_ms: Option<u64>,
    pv: Option<&'a str>,
}

impl<'a> Said<'a> {
    /// Reads an `info` line's words in place (`info string` is free text,
    /// read for nothing).
    fn of(line: &'a str) -> Said<'a> {
        let mut said = Said::default();
        let mut words = line.split_ascii_whitespace().peekable();
        if words.next() != Some("info") {
            return said;
        }
        let mut previous = "info";
        while let Some(word) = words.next() {
            // The word the next one follows: this one, or the number it took.
            let mut last = word;
            match (previous, word) {
                (_, "string") => break,
                (_, "pv") => {
                    // The rest of the line (`word` lies in it).
                    let after = word.as_ptr() as usize - line.as_ptr() as usize + word.len();
                    said.pv = Some(&line[after..]);
                    break;
                }
                (_, "seldepth") => said.seldepth = parse_next(&mut words, &mut last).or(said.seldepth),
                (_, "time") => said.reported_ms = parse_next(&mut words, &mut last).or(said.reported_ms),
                (_, "depth") => said.depth = parse_next(&mut words, &mut last).or(said.depth),
                (_, "nodes") => said.nodes = parse_next(&mut words, &mut last).or(said.nodes),
                ("score", "cp") => said.score = Some(parse_next(&mut words, &mut last)),
                ("score", "mate") => {
                    said.score =
                        Some(
                            parse_next::<i32>(&mut words, &mut last)
                                .map(|m| if m > 0 { 30000 - m } else { -30000 - m }),
                        )
                }
                _ => {}
            }
            previous = last;
        }
        said
    }
}

/// Reads one line of an engine's search: `info` is kept for when the
/// search ends (its score, depth, selective depth, nodes, pv and the time
/// it reports); `bestmove` reads what was kept and gives the move (and
/// notes the move it would ponder on).
fn read_search_line(line: &str, search: &mut Search) -> Option<String> {
    let mut words = line.split_ascii_whitespace();
    match words.next() {
        Some("info") => {
            search.keep(line);
            None
        }
        Some("bestmove") => {
            search.settle();
            let best = words.next().unwrap_or("").to_string();
            search.ponder = match (words.next(), words.next()) {
                (Some("ponder"), Some(m)) => Some(m.to_string()),
                _ => None,
            };
            Some(best)
        }
        _ => None,
    }
}

/// The number in the next word, taken (it becomes `last`) if it is one.
fn parse_next<'a, T: std::str::FromStr>(
    words: &mut std::iter::Peekable<std::str::SplitAsciiWhitespace<'a>>,
    last: &mut &'a str,
) -> Option<T> {
    let value = words.peek()?.parse().ok()?;
    *last = words.next()?;
    Some(value)
}

/// `uci:CMD[,name=value...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "uci",
    example: "uci:stockfish",
    runs_a_program: true,
    parse: |rest| Ok(Box::new(UciConfig::parse(rest, Dialect::Uci)?)),
};

impl KindSpec for UciConfig {
    fn create(&self, game_seed: u64) -> Box<dyn Player> {
        let engine = EngineSettings { seed: game_seed, ..self.engine.clone() };
        Box::new(UciPlayer::new(UciConfig { engine, ..self.clone() }))
    }

    /// A sandboxed engine does the same work whatever the machine, on a
    /// clock too.
    fn repeats_itself(&self, _on_a_clock: bool) -> bool {
        self.engine.is_sandboxed()
    }

    fn ponders(&self) -> bool {
        self.engine.ponder
    }

    fn settings(&self) -> Option<&EngineSettings> {
        Some(&self.engine)
    }

    fn options(&self) -> &[(String, String)] {
        &self.options
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
        let mut search = super::Search::default();
        let mut read = |line: &str| super::read_search_line(line, &mut search);
        assert_eq!(read("info depth 1 seldepth 2 score cp 31 nodes 20 time 3 pv e2e4"), None);
        assert_eq!(
            read("info depth 12 seldepth 17 score cp -15 upperbound nodes 90210 nps 1 time 41 pv d2d4 g8f6 c2c4"),
            None
        );
        assert_eq!(read("info string NNUE evaluation using nn-x.nnue pv a1a2"), None, "free text changes nothing");
        assert_eq!(read("info currmove e2e4 currmovenumber 1"), None);
        let mut malformed = super::Search::default();
        super::read_search_line("info nodes pv e2e4  e7e5 ", &mut malformed);
        malformed.settle();
        assert_eq!(
            (malformed.nodes, malformed.pv.as_deref()),
            (None, Some("e2e4 e7e5")),
            "a missing number takes no word"
        );
        assert_eq!(read("bestmove d2d4 ponder g8f6").as_deref(), Some("d2d4"));
        assert_eq!(
            (search.score, search.depth, search.seldepth, search.nodes),
            (Some(-15), Some(12), Some(17), Some(90210))
        );
        assert_eq!((search.pv.as_deref(), search.reported_ms), (Some("d2d4 g8f6 c2c4"), Some(41)));
        assert_eq!(search.ponder.as_deref(), Some("g8f6"), "the move to ponder on");
        let mut mate = super::Search::default();
        super::read_search_line("info depth 9 score mate 3 pv a1a8", &mut mate);
        mate.settle();
        assert_eq!(mate.score, Some(29997));
        super::read_search_line("info depth 9 score mate -2 pv a1a8", &mut mate);
        mate.settle();
        assert_eq!(mate.score, Some(-29998));
        assert_eq!(super::read_search_line("bestmove", &mut mate).as_deref(), Some(""));
        assert_eq!(mate.ponder, None);
    }

    /// Kept lines read from the last give what reading each in order, over
    /// the one before, gives: a field a later line garbles or leaves out,
    /// a score it garbles, a PV it empties, `info string`, and more lines
    /// than are kept unread at once.
    #[test]
    fn kept_info_lines_read_from_the_last_agree_with_reading_them_in_order() {
        let lines = [
            "info depth 1 seldepth 2 score cp 31 nodes 20 time 3 pv e2e4",
            "info depth x nodes 40",
            "info score cp zz depth 2",
            "info score mate -2 seldepth 9",
            "info string depth 50 pv h2h4",
            "info depth 3 time 7 pv",
            "info nodes 90 pv  d2d4   g8f6 ",
            "info currmove e2e4 currmovenumber 1 time 8",
            "  info  depth 4 depth 5 score cp 1 score cp nope",
            "info seldepth 12 time 9 score mate 4 nodes 100",
        ];
        // In order, each line over the one before: the plain reading.
        let in_order = |chosen: &[&str]| {
            let mut s = super::Search::default();
            for line in chosen {
                let said = super::Said::of(line);
                s.score = said.score.unwrap_or(s.score);
                s.depth = said.depth.or(s.depth);
                s.seldepth = said.seldepth.or(s.seldepth);
                s.nodes = said.nodes.or(s.nodes);
                s.reported_ms = said.reported_ms.or(s.reported_ms);
                if let Some(pv) = said.pv {
                    s.pv = Some(pv.split_ascii_whitespace().collect::<Vec<_>>().join(" ")).filter(|p| !p.is_empty());
                }
            }
            (s.score, s.depth, s.seldepth, s.nodes, s.reported_ms, s.pv)
        };
        for mask in 0u32..1 << lines.len() {
            let chosen: Vec<&str> = (0..lines.len()).filter(|i| mask >> i & 1 == 1).map(|i| lines[i]).collect();
            let mut kept = super::Search::default();
            for line in &chosen {
                super::read_search_line(line, &mut kept);
            }
            kept.settle();
            let got = (kept.score, kept.depth, kept.seldepth, kept.nodes, kept.reported_ms, kept.pv);
            assert_eq!(got, in_order(&chosen), "{chosen:?}");
        }
        // Past the cap the kept lines are read at once, and the last still wins.
        let mut long = super::Search::default();
        for n in 0..20_000 {
            super::read_search_line(&format!("info depth {n} nodes {n} pv e2e4"), &mut long);
        }
        assert!(long.unread.len() < super::UNREAD_CAP);
        super::read_search_line("info depth 7", &mut long);
        assert_eq!(super::read_search_line("bestmove e2e4", &mut long).as_deref(), Some("e2e4"));
        assert_eq!((long.depth, long.nodes, long.pv.as_deref()), (Some(7), Some(19_999), Some("e2e4")));
    }

    #[test]
    fn ponder_is_a_setting_on_or_off_and_not_an_option() {
        let cfg = UciConfig::parse("stockfish,ponder=on,Hash=16", Dialect::Uci).unwrap();
        assert!(cfg.engine.ponder);
        assert_eq!(cfg.options, [("Hash".to_string(), "16".to_string())]);
        assert!(!UciConfig::parse("stockfish,ponder=off", Dialect::Uci).unwrap().engine.ponder);
        assert!(!UciConfig::parse("stockfish", Dialect::Uci).unwrap().engine.ponder);
        let e = UciConfig::parse("stockfish,ponder=yes", Dialect::Uci).unwrap_err().to_string();
        assert!(e.contains("ponder") && e.contains("must be on or off"), "{e}");
        let raw = UciConfig::parse("stockfish,option.Ponder=true", Dialect::Uci).unwrap();
        assert_eq!((raw.engine.ponder, raw.options[0].0.as_str()), (false, "Ponder"), "the UCI option itself, by hand");
    }

    #[test]
    fn a_ponder_search_is_told_the_clocks_as_they_will_stand_after_the_move() {
        let limits = Limits {
            me: Seat::SECOND,
            clocks: Some([(60_000, 1_000), (30_000, 500)]),
            moves_to_go: None,
            movetime_ms: None,
            byoyomi_ms: 0,
            nodes: Some(5000),
            depth: None,
        };
        assert_eq!(limits.go(Dialect::Uci, None, true), "go wtime 60000 btime 30000 winc 1000 binc 500 nodes 5000");
        // Black took 2 s and earns its increment.
        assert_eq!(
            limits.go(Dialect::Uci, Some(2_000), true),
            "go wtime 60000 btime 28500 winc 1000 binc 500 nodes 5000"
        );
        let fixed = Limits { clocks: None, movetime_ms: Some(100), nodes: None, ..limits };
        assert_eq!(fixed.go(Dialect::Uci, Some(50), true), "go movetime 100");
        let none = Limits { movetime_ms: None, ..fixed };
        assert_eq!(none.go(Dialect::Uci, None, true), "go infinite", "nothing limits the search");
    }

    #[test]
    fn usi_and_ucci_are_told_the_clocks_in_their_own_words() {
        // Gote (the second player) to move, sente with 60 s, gote 30 s.
        let limits = Limits {
            me: Seat::SECOND,
            clocks: Some([(60_000, 1_000), (30_000, 500)]),
            moves_to_go: None,
            movetime_ms: None,
            byoyomi_ms: 0,
            nodes: None,
            depth: None,
        };
        assert_eq!(limits.go(Dialect::Usi, None, true), "go btime 60000 wtime 30000 binc 1000 winc 500");
        assert_eq!(limits.go(Dialect::Ucci, None, true), "go time 30000 increment 500 opptime 60000 oppincrement 1000");
        assert_eq!(limits.go(Dialect::Ucci, None, false), "go time 30 increment 0 opptime 60 oppincrement 1");
        let byoyomi = Limits { clocks: Some([(0, 10_000), (5_000, 10_000)]), byoyomi_ms: 10_000, ..limits };
        assert_eq!(byoyomi.go(Dialect::Usi, None, true), "go btime 0 wtime 5000 byoyomi 10000");
        // Elsewhere the byoyomi is told as what each move earns.
        assert_eq!(byoyomi.go(Dialect::Uci, None, true), "go wtime 0 btime 5000 winc 10000 binc 10000");
        let fixed = Limits { clocks: None, movetime_ms: Some(2_500), byoyomi_ms: 0, ..limits };
        assert_eq!(fixed.go(Dialect::Usi, None, true), "go btime 0 wtime 0 byoyomi 2500");
        assert_eq!(fixed.go(Dialect::Ucci, None, false), "go time 2 movestogo 1");
    }

    /// A UCI engine in a few lines of shell for the fixture's race: it
    /// always answers `+1` and expects `expected`, and logs what it is sent.
    #[cfg(unix)]
    fn fake_engine(name: &str, expected: &str) -> (UciPlayer, std::path::PathBuf) {
        let (script, log) = arbiter_testing::shell_engine(
            name,
            &format!(
                "uci) echo 'id name fake'; echo 'option name Ponder type check default false'; echo uciok;;\n\
             isready) echo readyok;;\n\
             'go ponder'*) ;;\n\
             go*|ponderhit) echo 'info depth 1 score cp 5'; echo 'bestmove +1 ponder {expected}';;\n\
             stop) echo 'bestmove +2';;\n\
             quit) exit 0;;"
            ),
        );
        let cfg = UciConfig::parse(&format!("sh {},ponder=on", script.display()), Dialect::Uci).unwrap();
        (UciPlayer::new(cfg), log)
    }

    #[cfg(unix)]
    #[test]
    fn a_ponder_on_the_move_played_is_a_hit_and_the_engine_is_told_ponderhit() {
        let (engine, log) = fake_engine("uci-ponder-hit", "+1");
        let record = arbiter_testing::race_against(Box::new(engine));
        let mine: Vec<Option<bool>> =
            record.plies.iter().filter(|p| p.player == Seat::FIRST).map(|p| p.ponder_hit).collect();
        assert_eq!(mine[0], None, "nothing to ponder on before the first move");
        assert!(mine.len() > 2 && mine[1..].iter().all(|h| *h == Some(true)), "{mine:?}");
        let sent = std::fs::read_to_string(log).unwrap();
        assert!(sent.contains("setoption name Ponder value true"), "{sent}");
        let ponders = sent.lines().filter(|l| l.starts_with("go ponder")).count();
        assert_eq!(sent.matches("ponderhit").count(), mine.len() - 1, "{sent}");
        // The last ponder search, cut short by the end of the game, is stopped.
        assert_eq!(ponders, mine.len() - 1 + sent.matches("stop").count(), "{sent}");
        assert!(sent.contains("go ponder wtime "), "with the clocks: {sent}");
    }

    #[cfg(unix)]
    #[test]
    fn a_ponder_on_another_move_is_a_miss_stopped_before_the_engine_is_asked_afresh() {
        let (engine, log) = fake_engine("uci-ponder-miss", "+2");
        let record = arbiter_testing::race_against(Box::new(engine));
        let mine: Vec<Option<bool>> =
            record.plies.iter().filter(|p| p.player == Seat::FIRST).map(|p| p.ponder_hit).collect();
        assert!(mine.len() > 2 && mine[1..].iter().all(|h| *h == Some(false)), "{mine:?}");
        let sent = std::fs::read_to_string(log).unwrap();
        assert!(!sent.contains("ponderhit"), "{sent}");
        // Each miss: stop, then the position and a plain go.
        let lines: Vec<&str> = sent.lines().collect();
        for (i, _) in lines.iter().enumerate().filter(|(_, l)| **l == "stop") {
            if let Some(next) = lines.get(i + 2) {
                assert!(
                    lines[i + 1].starts_with("position ") && next.starts_with("go wtime"),
                    "{:?}",
                    &lines[i..i + 3]
                );
            }
        }
        assert!(record.plies.iter().all(|p| p.text == "+1"), "the stopped search's move is never played");
    }

    #[cfg(unix)]
    #[test]
    fn new_option_values_reach_the_running_engine_before_its_next_game() {
        use arbiter_core::seat::Player;
        let (script, log) = arbiter_testing::shell_engine(
            "uci-take-options",
            "uci) echo 'option name A type spin default 0 min 0 max 10'; echo uciok;;\n\
             isready) echo readyok;;\n\
             go*) echo 'bestmove +1';;",
        );
        let cfg = UciConfig::parse(&format!("sh {},A=1", script.display()), Dialect::Uci).unwrap();
        let mut players: Vec<Box<dyn Player>> =
            vec![Box::new(UciPlayer::new(cfg)), Box::new(arbiter_testing::Scripted::new(vec![]))];
        let play = arbiter_testing::race_game;
        play(&mut players);
        assert!(players[0].take_options(&[("A".into(), "2".into())]));
        play(&mut players);
        let sent = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = sent.lines().filter(|l| !l.starts_with("position") && !l.starts_with("go")).collect();
        assert_eq!(
            lines,
            [
                "uci",
                "setoption name A value 1",
                "ucinewgame",
                "isready",
                "setoption name A value 2",
                "ucinewgame",
                "isready"
            ],
            "one process, told the new value before its second game"
        );
        // A value the engine's declaration refuses loses that game and ends
        // the process; an option cannot be taken back but by a new one.
        assert!(players[0].take_options(&[("A".into(), "11".into())]));
        let refused = play(&mut players);
        assert!(
            refused.result.termination.to_string().contains("option A: 11 is outside 0..10"),
            "{:?}",
            refused.result
        );
        assert!(!std::fs::read_to_string(&log).unwrap().contains("value 11"));
        assert!(!players[0].take_options(&[]));
    }
}
