//! `hub:CMD`: a draughts engine speaking the Hub protocol (Scan, dame):
//! `hub` → `id`/`param` lines → `wait`; `init` → `ready`; `new-game` per game;
//! per move `pos pos=... moves="..."` from the game's start, `level` with the
//! clocks (or move time, depth, nodes), `go think` → `done move=...`. Moves
//! travel in Hub notation through the draughts plugin's `hub_move` and
//! `hub_position` calls; `info ... score=` is kept (in hundredths of a man).

use super::{
    handshake, Answer, EngineSettings, EngineSlot, MoveWait, Player, PlayerError, PlayerKind, ProgramSpec, Protocol,
    Reply,
};
use arbiter_core::clock::fmt_secs;
use arbiter_core::engine::EngineProcess;
use arbiter_core::model::Seat;
use arbiter_core::process::{deadline_after, ProcessError};
use arbiter_core::seat::{Seen, Start, Turn};
use arbiter_core::verdict::GameResult;

/// How long an engine may take to answer `hub` and `init` (unless its
/// `timeout=` says otherwise).
const HANDSHAKE_MS: u64 = 30_000;

/// How long an engine told to `stop` (at its hang limit, with no clock) may
/// take to answer `done`.
const STOP_GRACE_MS: u64 = 1_000;

/// A Hub engine.
pub struct HubPlayer {
    settings: EngineSettings,
    /// Parameters set before `init` (`set-param`).
    params: Vec<(String, String)>,
    engine: EngineSlot,
    name: String,
    start: String,
    moves: Vec<String>,
}

impl HubPlayer {
    /// A player for the engine `settings` start, its `params` set before
    /// `init`; the process starts with the first game.
    pub fn new(settings: EngineSettings, params: Vec<(String, String)>) -> Self {
        HubPlayer {
            name: settings.program_name(),
            engine: EngineSlot::new(&settings),
            settings,
            params,
            start: String::new(),
            moves: Vec::new(),
        }
    }

    /// Starts the engine: `hub` until `wait`, its parameters, then `init`
    /// until `ready`.
    fn start(
        settings: &EngineSettings,
        params: &[(String, String)],
    ) -> Result<(EngineProcess, Option<String>), PlayerError> {
        let mut p = settings.start()?;
        let handshake_ms = settings.handshake_ms(HANDSHAKE_MS);
        p.send("hub")?;
        let mut name = None;
        p.recv_until(Some(deadline_after(handshake_ms)), |l| {
            if let Some(rest) = l.strip_prefix("id ") {
                name = field(rest, "name");
            }
            (l.trim() == "wait").then_some(())
        })
        .map_err(|e| handshake(e, "wait"))?;
        for (name, value) in params {
            p.send(&format!("set-param name={} value={}", hub_value(name), hub_value(value)))?;
        }
        p.send("init")?;
        p.recv_until(Some(deadline_after(handshake_ms)), |l| (l.trim() == "ready").then_some(()))
            .map_err(|e| handshake(e, "ready"))?;
        Ok((p, name))
    }

    /// Runs `talk` on the engine (see [`EngineSlot`]).
    fn with_engine<T>(
        &mut self,
        talk: impl FnOnce(&mut EngineProcess) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        self.engine.talk(|| Self::start(&self.settings, &self.params), &mut self.name, talk)
    }
}

/// A value as a Hub line carries it: quoted if it holds a space.
fn hub_value(value: &str) -> String {
    if value.contains(' ') {
        format!("\"{value}\"")
    } else {
        value.to_string()
    }
}

/// The value of `key=value` (or `key="quoted value"`) in a Hub line.
fn field(line: &str, key: &str) -> Option<String> {
    let at = line.find(&format!("{key}="))? + key.len() + 1;
    let rest = &line[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        quoted.split('"').next().map(String::from)
    } else {
        rest.split_whitespace().next().map(String::from)
    }
}

fn call(state: &arbiter_api::host::Game, method: &str, args: serde_json::Value) -> Option<String> {
    let mut g = state.clone();
    g.call_json(method, &args).ok()?.as_str().map(String::from)
}

impl Player for HubPlayer {
    engine_identity!();

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        let state = super::whole_position(start, "Hub")?;
        self.start = call(state, "hub_position", serde_json::json!({})).ok_or_else(|| {
            PlayerError::Protocol(format!("variant {} has no Hub position (hub_position)", start.info.id))
        })?;
        self.moves.clear();
        self.engine.begin_game(Some("quit"));
        self.with_engine(|p| Ok(p.send("new-game")?))
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        if let Some((before, mv)) = seen.before {
            self.moves
                .push(call(before, "hub_move", serde_json::json!({ "move": mv })).unwrap_or_else(|| seen.text.clone()));
        }
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let me = turn.clock(turn.player());
        let tc = turn.time_control();
        let level = if let Some(mt) = me.movetime_ms {
            format!("level move-time={}", fmt_secs(mt))
        } else if let Some(d) = tc.depth {
            format!("level depth={d}")
        } else if let Some(n) = tc.nodes {
            format!("level nodes={n}")
        } else if let Some(r) = me.remaining_ms {
            let moves = me.moves_to_go.map(|m| format!(" moves={m}")).unwrap_or_default();
            format!("level time={} inc={}{moves}", fmt_secs(r), fmt_secs(me.earned_ms()))
        } else {
            "level infinite".to_string()
        };
        let pos = if self.moves.is_empty() {
            format!("pos pos={}", self.start)
        } else {
            format!("pos pos={} moves=\"{}\"", self.start, self.moves.join(" "))
        };
        let wait = MoveWait::of(turn);
        let infinite = level == "level infinite";
        let mut score = None;
        let mut read = |line: &str| {
            if line.starts_with("info") {
                if let Some(s) = field(line, "score").and_then(|s| s.parse::<f64>().ok()) {
                    score = Some((s * 100.0).round() as i32);
                }
                None
            } else if line.starts_with("done") {
                Some(field(line, "move").unwrap_or_default())
            } else {
                None
            }
        };
        let (mv, clock_us) = self.with_engine(|p| {
            p.begin_move(wait.limit_ms);
            p.send(&pos)?;
            p.send(&level)?;
            p.send("go think")?;
            let mv = match p.recv_until(Some(wait.deadline), &mut read) {
                // No limit at all: the engine is told to stop at the hang
                // limit (a sandboxed engine's time is spent: nothing can come).
                Err(ProcessError::Timeout) if infinite && !p.is_virtual() => {
                    p.send("stop")?;
                    p.recv_until(Some(deadline_after(STOP_GRACE_MS)), &mut read).map_err(|e| wait.blame(e.into()))
                }
                r => r.map_err(|e| wait.blame(e.into())),
            }?;
            Ok((mv, p.finish_move()))
        })?;
        Ok(Reply { score, clock_us, ..Reply::answer(Answer::Text(mv)) })
    }

    fn game_over(&mut self, _result: &GameResult, _me: Seat) {
        self.moves.clear();
    }
}

/// `hub:CMD[,setting=value...][,option.NAME=VALUE...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "hub",
    example: "hub:dame hub",
    runs_a_program: true,
    parse: |rest| {
        Ok(Box::new(ProgramSpec::parse(
            rest,
            Protocol { make: |s, o| Box::new(HubPlayer::new(s, o)), whole_positions: true, can_ponder: false },
        )?))
    },
};

#[cfg(test)]
mod tests {
    use super::{field, HubPlayer};
    use crate::players::EngineSettings;
    use crate::referee::Termination;

    #[test]
    fn a_variant_with_no_hub_position_is_refused_before_the_engine_starts() {
        let engine = HubPlayer::new(EngineSettings::parse("/no/such/hub-engine").unwrap(), Vec::new());
        let record = arbiter_testing::race_against(Box::new(engine));
        match record.result.termination {
            Termination::EngineProtocol(why) => assert_eq!(why, "variant race has no Hub position (hub_position)"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_hub_line_s_fields_are_read_bare_or_quoted() {
        let line = "id name=\"Scan 3.1\" version=3.1 author=\"Fabien Letouzey\"";
        assert_eq!(field(line, "name").as_deref(), Some("Scan 3.1"));
        assert_eq!(field(line, "version").as_deref(), Some("3.1"));
        assert_eq!(field(line, "author").as_deref(), Some("Fabien Letouzey"));
        assert_eq!(field(line, "country"), None);
        assert_eq!(field("done move=32-28 ponder=19-23", "move").as_deref(), Some("32-28"));
    }

    /// A Hub engine of a few shell lines is started with two parameters:
    /// each is set after `wait` and before `init`, a value with a space quoted.
    #[cfg(unix)]
    #[test]
    fn parameters_are_set_between_the_greeting_and_init() {
        let (script, log) = arbiter_testing::shell_engine(
            "hub-params",
            "hub) printf '%s\\n' 'id name=fake' 'param name=level value=1 type=int' wait;;\n\
             init) echo ready;;",
        );
        let settings = EngineSettings::parse(&format!("sh {}", script.display())).unwrap();
        let params = vec![("level".to_string(), "4".to_string()), ("book".to_string(), "my book".to_string())];
        let (_engine, name) = HubPlayer::start(&settings, &params).unwrap();
        assert_eq!(name.as_deref(), Some("fake"));
        let sent = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = sent.lines().collect();
        assert_eq!(lines, ["hub", "set-param name=level value=4", "set-param name=book value=\"my book\"", "init"]);
    }
}
