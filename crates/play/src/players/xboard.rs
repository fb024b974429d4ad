//! `xboard:CMD`: a chess engine speaking the xboard protocol, version 2
//! (CECP; GNU Chess and the like). Handshake `xboard`/`protover 2`, each
//! `feature` answered (`accepted`, or `rejected` for `san=1`: moves go in
//! coordinate notation) until `done=1`; per game `new`, `post` (thinking
//! lines), `easy` (no pondering), `setboard FEN` for a set-up start,
//! `level` from the time control or `st`/`sd`, then before each of its
//! moves `time`/`otim` in centiseconds and the moves it has not seen
//! (`usermove` when it asked for it) in `force` mode, and `go`. It answers
//! `move M`, or `resign`; the last thinking line (`ply score time nodes pv`)
//! gives the score, depth, nodes and the time it reports. A process that
//! dies or hangs is restarted for the next game.
//!
//! With `ponder=on` it is sent `hard` rather than `easy`, and after its
//! first `go` it is left out of `force` mode: it plays its side itself,
//! thinking on the opponent's time, and each of its later moves is asked by
//! `time`/`otim` and the opponent's move alone (no `force`, which would stop
//! the pondering, and no `go`). Its clock runs from that move on, as
//! without pondering. The protocol does not say whether a ponder hit, so
//! its moves record none.

use super::{
    handshake, Answer, EngineSettings, EngineSlot, MoveWait, Player, PlayerError, PlayerKind, ProgramSpec, Protocol,
    Reply,
};
use arbiter_core::engine::EngineProcess;
use arbiter_core::model::Seat;
use arbiter_core::process::{deadline_after, ProcessError};
use arbiter_core::seat::{Seen, Start, Turn};
use arbiter_core::verdict::GameResult;

/// How long an engine may take to finish its features (`done=1`) and to
/// answer a `ping` (unless its `timeout=` says otherwise).
const HANDSHAKE_MS: u64 = 10_000;

/// How long an engine that answers `ping` may be silent before it is pinged.
const NUDGE_MS: u64 = 25;

/// The standard start, which needs no `setboard`.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// What the engine asked for in its `feature` lines.
#[derive(Clone, Debug, Default)]
struct Features {
    /// Moves are sent as `usermove M`.
    usermove: bool,
    /// `setboard FEN` sets up a position.
    setboard: bool,
    /// `ping N` is answered by `pong N`.
    ping: bool,
    /// The variants it plays (`feature variants="normal,crazyhouse,..."`;
    /// empty when it did not say).
    variants: Vec<String>,
}

/// An xboard engine.
pub struct XboardPlayer {
    settings: EngineSettings,
    /// Options sent after the features (`option NAME=VALUE`).
    options: Vec<(String, String)>,
    engine: EngineSlot,
    name: String,
    features: Features,
    /// Moves the engine has not been told yet, in coordinate notation.
    unseen: Vec<String>,
    /// The engine's own last move, which it has played on its board.
    own: Option<String>,
    /// Whether the game's `level` was sent.
    level_sent: bool,
    /// Whether the engine plays its side itself, out of `force` mode
    /// (`ponder=on`, after its first `go`).
    playing: bool,
    /// Option values taken since the engine started, told before its next game.
    unsent: Vec<(String, String)>,
    /// Whether the board has ten ranks or more, which xboard numbers from
    /// 0 (xiangqi's `c0e2`) where arbiter's coordinates count from 1.
    zero_ranks: bool,
}

impl XboardPlayer {
    /// A player for the engine `settings` start, told `options` after its
    /// features; the process starts with the first game.
    pub fn new(settings: EngineSettings, options: Vec<(String, String)>) -> Self {
        XboardPlayer {
            name: settings.program_name(),
            engine: EngineSlot::new(&settings),
            settings,
            options,
            features: Features::default(),
            unseen: Vec::new(),
            own: None,
            level_sent: false,
            playing: false,
            unsent: Vec::new(),
            zero_ranks: false,
        }
    }

    /// Runs `talk` on the engine (see [`EngineSlot`]).
    fn with_engine<T>(
        &mut self,
        talk: impl FnOnce(&mut EngineProcess, &Features) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        let (settings, options) = (self.settings.clone(), self.options.clone());
        let features = std::cell::RefCell::new(self.features.clone());
        let out = self.engine.talk(
            || {
                let (p, name, f) = Self::start(&settings, &options)?;
                *features.borrow_mut() = f;
                Ok((p, name))
            },
            &mut self.name,
            |p| talk(p, &features.borrow()),
        );
        self.features = features.into_inner();
        out
    }

    /// Starts the engine: `xboard`, `protover 2`, every feature answered
    /// until `done=1`, then the options.
    fn start(
        settings: &EngineSettings,
        options: &[(String, String)],
    ) -> Result<(EngineProcess, Option<String>, Features), PlayerError> {
        let mut p = settings.start()?;
        p.send("xboard")?;
        p.send("protover 2")?;
        let (mut name, mut features, mut answers) = (None, Features::default(), Vec::new());
        let deadline = deadline_after(settings.handshake_ms(HANDSHAKE_MS));
        let mut read = |l: &str| {
            let rest = l.trim().strip_prefix("feature ")?;
            let mut done = false;
            for (key, value) in feature_pairs(rest) {
                let on = value == "1";
                match key.as_str() {
                    "done" => done = on,
                    "san" if on => answers.push(format!("rejected {key}")),
                    "usermove" => features.usermove = on,
                    "setboard" => features.setboard = on,
                    "ping" => features.ping = on,
                    "variants" => features.variants = value.split(',').map(|v| v.trim().to_string()).collect(),
                    "myname" => name = Some(value.clone()),
                    _ => {}
                }
                if !(key == "san" && on) {
                    answers.push(format!("accepted {key}"));
                }
            }
            done.then_some(())
        };
        recv_nudged(&mut p, deadline, true, &mut read).map_err(|e| handshake(e, "feature done=1"))?;
        for a in answers {
            p.send(&a)?;
        }
        for (k, v) in options {
            p.send(&format!("option {k}={v}"))?;
        }
        Ok((p, name, features))
    }
}

/// Reads lines until one satisfies `want`, within `deadline`; with `nudge`,
/// an engine silent for [`NUDGE_MS`] is sent a `ping` (answered `pong`,
/// which is ignored). GNU Chess 6 writes its output only as it reads input
/// (its features one per line read, its move after the search): without
/// nudges it says nothing more.
fn recv_nudged<T>(
    p: &mut EngineProcess,
    deadline: std::time::Instant,
    nudge: bool,
    mut want: impl FnMut(&str) -> Option<T>,
) -> Result<T, ProcessError> {
    let mut nudges = 0u64;
    // A sandboxed engine runs only while it is awaited: nothing to nudge.
    let nudge = nudge && !p.is_virtual();
    loop {
        let pause = if nudge { deadline_after(NUDGE_MS).min(deadline) } else { deadline };
        match p.recv_until(Some(pause), &mut want) {
            Err(ProcessError::Timeout) if pause < deadline => {
                nudges += 1;
                p.send(&format!("ping {nudges}"))?;
            }
            r => return r,
        }
    }
}

/// The `key=value` pairs of a `feature` line (values may be quoted).
fn feature_pairs(line: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut rest = line.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim().to_string();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => after.split_once(' ').unwrap_or((after, "")),
        };
        pairs.push((key, value.to_string()));
        rest = next.trim();
    }
    pairs
}

/// `M:SS` as `level` takes a base time.
fn level_base(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// What the engine's reply lines said.
#[derive(Default)]
struct Thinking {
    score: Option<i32>,
    depth: Option<u32>,
    nodes: Option<u64>,
    reported_ms: Option<u64>,
    pv: Option<String>,
}

impl Thinking {
    /// Reads a thinking line (`ply score time nodes pv`); scores of 100000
    /// and more (mates, as GNU Chess and Crafty write them) become ±30000
    /// less the distance in moves, when the engine gives it.
    fn read(&mut self, line: &str) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| w.get(i).and_then(|t| t.trim_end_matches(['.', '&']).parse::<i64>().ok());
        if let (Some(ply), Some(score), Some(cs), Some(nodes)) = (number(0), number(1), number(2), number(3)) {
            self.depth = u32::try_from(ply).ok();
            self.score = Some(match score {
                s if s >= 100_000 => 30_000 - ((s - 100_000) / 2).min(999) as i32,
                s if s <= -100_000 => -30_000 + ((-s - 100_000) / 2).min(999) as i32,
                s => s.clamp(-29_000, 29_000) as i32,
            });
            self.reported_ms = u64::try_from(cs).ok().map(|c| c * 10);
            self.nodes = u64::try_from(nodes).ok();
            self.pv = Some(w[4..].join(" ")).filter(|pv| !pv.is_empty());
        }
    }
}

impl Player for XboardPlayer {
    engine_identity!();

    /// xboard's `option NAME=VALUE` may be sent whenever the engine waits:
    /// the changed values are told in `force` mode before the next game.
    fn take_options(&mut self, options: &[(String, String)]) -> bool {
        super::take_new_options(&mut self.options, &mut self.unsent, options)
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        let state = super::whole_position(start, "xboard")?;
        let fen = state.position_text();
        let chess960 = super::is_chess960(state);
        // An ini variant is told by Fairy-Stockfish's name (`variant
        // crazyhouse`), its definition file first where it is a user's.
        let variant = super::uci_variant(state);
        self.zero_ranks = matches!(start.info.board, arbiter_api::schema::BoardGeometry::Grid { height, .. }
                | arbiter_api::schema::BoardGeometry::Lines { height, .. } if height >= 10);
        self.unseen.clear();
        self.own = None;
        self.level_sent = false;
        self.playing = false;
        let ponder = self.settings.ponder;
        self.engine.begin_game(Some("quit"));
        let ready_ms = self.settings.handshake_ms(HANDSHAKE_MS);
        // Values taken since the engine started (a fresh one is told them all).
        let unsent = std::mem::take(&mut self.unsent);
        let told = if self.engine.running() { unsent } else { Vec::new() };
        self.with_engine(|p, f| {
            p.send("new")?;
            p.send("force")?;
            for (k, v) in &told {
                p.send(&format!("option {k}={v}"))?;
            }
            p.send("post")?;
            p.send(if ponder { "hard" } else { "easy" })?;
            if chess960 {
                p.send("variant fischerandom")?;
            }
            if let Some((name, path)) = variant.as_ref().filter(|(n, _)| n != "chess") {
                if !f.variants.is_empty() && !f.variants.iter().any(|v| v == name) && path.is_none() {
                    return Err(PlayerError::Protocol(format!(
                        "the engine plays {} (feature variants), not {name}",
                        f.variants.join(", ")
                    )));
                }
                if let Some(path) = path {
                    p.send(&format!("option VariantPath={path}"))?;
                }
                p.send(&format!("variant {name}"))?;
            }
            if fen != START_FEN {
                if !f.setboard {
                    return Err(PlayerError::Protocol(format!(
                        "the engine cannot set up a position (no setboard): {fen}"
                    )));
                }
                p.send(&format!("setboard {fen}"))?;
            }
            if f.ping {
                p.send("ping 1")?;
                p.recv_until(Some(deadline_after(ready_ms)), |l| (l.trim() == "pong 1").then_some(()))
                    .map_err(|e| handshake(e, "pong 1"))?;
            }
            Ok(())
        })
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        if seen.before.is_some() {
            let text = seen.coordinates.map_or_else(|| seen.text.clone(), String::from);
            let text = if self.zero_ranks { super::shift_ranks(&text, -1) } else { text };
            // Its own move the engine has played already.
            if self.own.as_deref() == Some(text.as_str()) {
                self.own = None;
            } else {
                self.unseen.push(text);
            }
        }
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let me = turn.player();
        let mine = turn.clock(me);
        let theirs = turn.clock(me.opponent());
        let tc = turn.time_control().clone();
        let mut setup = Vec::new();
        if !self.level_sent {
            self.level_sent = true;
            if let Some(mt) = mine.movetime_ms {
                setup.push(format!("st {}", mt.div_ceil(1000).max(1)));
            } else if let Some(left) = mine.remaining_ms {
                let inc = mine.earned_ms() as f64 / 1000.0;
                setup.push(format!("level {} {} {inc}", mine.moves_to_go.unwrap_or(0), level_base(left)));
            }
            if let Some(d) = tc.depth {
                setup.push(format!("sd {d}"));
            }
        }
        let unseen = std::mem::take(&mut self.unseen);
        let wait = MoveWait::of(turn);
        let mut thinking = Thinking::default();
        // A playing engine is told the opponent's one move, which it may have pondered on.
        let told = self.playing && setup.is_empty() && unseen.len() == 1;
        self.playing = self.settings.ponder;
        let answer = self
            .with_engine(|p, f| {
                let usermove = |m: &String| if f.usermove { format!("usermove {m}") } else { m.clone() };
                p.begin_move(wait.limit_ms);
                if !told {
                    p.send("force")?;
                    for line in &setup {
                        p.send(line)?;
                    }
                    for m in &unseen {
                        p.send(&usermove(m))?;
                    }
                }
                if let (Some(a), Some(b)) = (mine.remaining_ms, theirs.remaining_ms) {
                    p.send(&format!("time {}", a / 10))?;
                    p.send(&format!("otim {}", b / 10))?;
                }
                p.send(&if told { usermove(&unseen[0]) } else { "go".to_string() })?;
                recv_nudged(p, wait.deadline, f.ping, |l| {
                    let l = l.trim();
                    // `My move is : M` is how GNU Chess 6 says `move M`.
                    if let Some(m) = l
                        .strip_prefix("move ")
                        .or_else(|| l.strip_prefix("My move is").map(|r| r.trim_start_matches([' ', ':'])))
                    {
                        return Some(Ok(Answer::Text(m.trim().to_string())));
                    }
                    if l == "resign" || l.starts_with("tellics resign") {
                        return Some(Ok(Answer::Resign));
                    }
                    // An engine that does not know a command the protocol
                    // makes optional (`post`, `easy`, `hard`, `option`...)
                    // says so and plays on, as xboard lets it: only a refused
                    // move or position is an error.
                    let optional = ["post", "easy", "hard", "option", "random", "computer", "otim", "time"];
                    let refused = l.rsplit_once(':').map(|(_, c)| c.trim().split(' ').next().unwrap_or(""));
                    let unknown = l.starts_with("Error (unk") && refused.is_some_and(|c| optional.contains(&c));
                    if (l.starts_with("Illegal move") || l.starts_with("Error")) && !unknown {
                        return Some(Err(PlayerError::Protocol(format!("the engine said: {l}"))));
                    }
                    thinking.read(l);
                    None
                })
                .map_err(|e| wait.blame(e.into()))?
                .map(|answer| (answer, p.finish_move()))
            })
            .inspect_err(|_| self.playing = false)?;
        let (answer, clock_us) = answer;
        let mut answer = answer;
        if let Answer::Text(m) = &mut answer {
            self.own = Some(m.clone());
            if self.zero_ranks {
                *m = super::shift_ranks(m, 1);
            }
        }
        Ok(Reply {
            reported_ms: thinking.reported_ms,
            score: thinking.score,
            depth: thinking.depth,
            nodes: thinking.nodes,
            pv: thinking.pv,
            clock_us,
            ..Reply::answer(answer)
        })
    }

    fn game_over(&mut self, result: &GameResult, _me: Seat) {
        let (pgn, why) = (result.pgn(), result.termination.to_string().replace(['{', '}'], ""));
        // A dead engine is not started again just to be told the result.
        if self.engine.running() {
            let _ = self.with_engine(|p, _| Ok(p.send(&format!("result {pgn} {{{why}}}"))?));
        }
        self.unseen.clear();
    }
}

/// `xboard:CMD[,setting=value...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "xboard",
    example: "xboard:gnuchess --xboard",
    runs_a_program: true,
    parse: |rest| {
        Ok(Box::new(ProgramSpec::parse(
            rest,
            Protocol { make: |s, o| Box::new(XboardPlayer::new(s, o)), whole_positions: true, can_ponder: true },
        )?))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ten_rank_board_s_ranks_count_from_zero_in_xboard() {
        assert_eq!(crate::players::shift_ranks("c1e3", -1), "c0e2");
        assert_eq!(crate::players::shift_ranks("h10h9", -1), "h9h8");
        assert_eq!(crate::players::shift_ranks("c0e2", 1), "c1e3");
        assert_eq!(crate::players::shift_ranks("P@e4", -1), "P@e3");
        assert_eq!(crate::players::shift_ranks("c7c8q", 0), "c7c8q");
    }

    #[test]
    fn features_with_quoted_values_are_read_whole() {
        let pairs = feature_pairs(r#"ping=1 setboard=1 myname="GNU Chess 6" usermove=1 done=0"#);
        let keys: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            keys,
            [("ping", "1"), ("setboard", "1"), ("myname", "GNU Chess 6"), ("usermove", "1"), ("done", "0")]
        );
    }

    #[test]
    fn thinking_lines_give_depth_score_time_and_nodes() {
        let mut t = Thinking::default();
        t.read("9 +4 22 503623 d5 exd5 Nf6");
        assert_eq!((t.depth, t.score, t.reported_ms, t.nodes), (Some(9), Some(4), Some(220), Some(503623)));
        assert_eq!(t.pv.as_deref(), Some("d5 exd5 Nf6"));
        t.read("My move is : d7d5");
        assert_eq!(t.depth, Some(9), "other lines change nothing");
        assert_eq!(level_base(90_500), "1:30");
    }

    /// A race game between an xboard engine of a few shell lines (first;
    /// it always plays `+1` after a thinking line) and a player of the
    /// first legal move; what the engine was sent.
    #[cfg(unix)]
    #[test]
    fn an_xboard_engine_is_set_up_told_the_moves_and_clocks_and_its_thinking_kept() {
        let (script, log) = arbiter_testing::shell_engine(
            "xboard-fake",
            "'protover 2') echo 'feature setboard=1 ping=1 usermove=1 myname=\"fake 1.0\" done=1';;\n\
             ping*) echo \"pong ${line#ping }\";;\n\
             go) echo '3 25 1 100 +1'; echo 'move +1';;\n\
             quit) exit 0;;",
        );
        let spec = format!("xboard:sh {},option.Depth=7", script.display());
        let engine = crate::players::PlayerSpec::parse(&spec).unwrap().create(0);
        let record = arbiter_testing::race_against(engine);
        assert!(matches!(record.result.outcome, arbiter_api::Outcome::Win(_)), "{:?}", record.result);
        assert_eq!(record.engines.first().map(String::as_str), Some("fake 1.0"), "its myname");
        let mine: Vec<_> = record.plies.iter().filter(|p| p.player == Seat::FIRST).collect();
        assert!(mine
            .iter()
            .all(|p| (p.score, p.depth, p.nodes, p.reported_ms) == (Some(25), Some(3), Some(100), Some(10))));
        let sent = std::fs::read_to_string(log).unwrap();
        let lines: Vec<&str> = sent.lines().collect();
        for expected in [
            "xboard",
            "protover 2",
            "accepted setboard",
            "accepted usermove",
            "option Depth=7",
            "new",
            "force",
            "post",
            "easy",
            "setboard 0 0",
        ] {
            assert!(lines.contains(&expected), "{expected}: {sent}");
        }
        assert!(lines.contains(&"level 0 1:00 1"), "the time control: {sent}");
        // Before each of its moves after the first: the opponent's move, the clocks in centiseconds, go.
        let go = lines.iter().enumerate().filter(|(_, l)| **l == "go").map(|(i, _)| i).nth(1).unwrap();
        assert_eq!(lines[go - 4..go - 2], ["force", "usermove +1"], "{sent}");
        assert!(lines[go - 2].starts_with("time 60") || lines[go - 2].starts_with("time 61"), "{sent}");
        assert!(lines[go - 1].starts_with("otim 60") || lines[go - 1].starts_with("otim 61"), "{sent}");
    }

    /// New option values reach the running engine in `force` mode before
    /// its next game; one it was told and is not now takes a new process.
    #[cfg(unix)]
    #[test]
    fn new_option_values_reach_the_running_engine_before_its_next_game() {
        use arbiter_core::seat::Player;
        let (script, log) = arbiter_testing::shell_engine(
            "xboard-take-options",
            "'protover 2') echo 'feature setboard=1 done=1';;\n\
             go) echo 'move +1';;",
        );
        let spec = format!("xboard:sh {},option.Depth=7,option.Style=solid", script.display());
        let mut players: Vec<Box<dyn Player>> = vec![
            crate::players::PlayerSpec::parse(&spec).unwrap().create(0),
            Box::new(arbiter_testing::Scripted::new(vec![])),
        ];
        let play = arbiter_testing::race_game;
        play(&mut players);
        let next = [("Depth".to_string(), "8".to_string()), ("Style".to_string(), "solid".to_string())];
        assert!(players[0].take_options(&next));
        play(&mut players);
        let sent = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> =
            sent.lines().filter(|l| l.starts_with("option") || *l == "new" || *l == "xboard").collect();
        assert_eq!(
            lines,
            ["xboard", "option Depth=7", "option Style=solid", "new", "new", "option Depth=8"],
            "one process, told the changed value before its second game: {sent}"
        );
        assert!(!players[0].take_options(&next[..1]), "Style cannot be taken back");
    }

    /// With `ponder=on`: `hard`, and after its first `go` the engine plays
    /// its side itself, asked each later move by the clocks and the
    /// opponent's move alone (a `force` would stop its pondering).
    #[cfg(unix)]
    #[test]
    fn a_pondering_xboard_engine_is_left_playing_and_told_only_the_opponent_s_moves() {
        let dir = arbiter_testing::temp_folder("xboard-ponder");
        let (script, log) = (dir.join("engine.sh"), dir.join("sent.log"));
        // It moves on `go`, and on a move only out of force mode, as the protocol says.
        let body = format!(
            "forced=0; while read -r line; do echo \"$line\" >> {log}; case \"$line\" in\n\
             'protover 2') echo 'feature setboard=1 ping=1 usermove=1 done=1';;\n\
             ping*) echo \"pong ${{line#ping }}\";;\n\
             force) forced=1;;\n\
             go) forced=0; echo 'move +1';;\n\
             usermove*) [ $forced = 0 ] && echo 'move +1';;\n\
             quit) exit 0;;\n\
             esac; done\n",
            log = log.display()
        );
        std::fs::write(&script, body).unwrap();
        let spec = crate::players::PlayerSpec::parse(&format!("xboard:sh {},ponder=on", script.display())).unwrap();
        assert!(spec.ponders());
        let record = arbiter_testing::race_against(spec.create(0));
        assert!(matches!(record.result.outcome, arbiter_api::Outcome::Win(_)), "{:?}", record.result);
        let sent = std::fs::read_to_string(log).unwrap();
        let lines: Vec<&str> = sent.lines().filter(|l| !l.starts_with("ping")).collect();
        assert!(lines.contains(&"hard") && !lines.contains(&"easy"), "{sent}");
        let first_go = lines.iter().position(|l| *l == "go").unwrap();
        let after: Vec<&str> = lines[first_go + 1..].iter().copied().take_while(|l| !l.starts_with("result")).collect();
        assert!(!after.contains(&"force") && !after.contains(&"go"), "left playing: {sent}");
        let asked: Vec<&[&str]> = after.chunks(3).collect();
        assert!(asked.len() >= 3, "{sent}");
        for ask in asked {
            assert!(ask[0].starts_with("time ") && ask[1].starts_with("otim "), "{sent}");
            assert_eq!(ask.get(2), Some(&"usermove +1"), "{sent}");
        }
        let mine = record.plies.iter().filter(|p| p.player == Seat::FIRST);
        assert!(mine.clone().count() > 3 && mine.clone().all(|p| p.ponder_hit.is_none()), "xboard says no hits");
    }

    #[test]
    fn only_uci_and_xboard_engines_take_ponder() {
        for kind in ["hub", "engine"] {
            let e = crate::players::PlayerSpec::parse(&format!("{kind}:prog,ponder=on")).unwrap_err().to_string();
            assert!(e.contains("ponder 'on' is for UCI and xboard engines only"), "{kind}: {e}");
        }
        assert!(!crate::players::PlayerSpec::parse("xboard:prog,ponder=off").unwrap().ponders());
    }
}
