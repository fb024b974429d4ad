//! `engine:CMD`: arbiter's own JSON-lines protocol, for engines of any
//! variant, hidden information included. The engine gets its observation, its
//! legal moves with their texts and its clocks, and answers with a move; the
//! protocol is specified in docs/engine-protocol.md.

use serde_json::{json, Value};

use super::{
    handshake, Answer, EngineSettings, EngineSlot, MoveWait, Player, PlayerError, PlayerKind, ProgramSpec, Reply,
};
use crate::clock::TurnTime;
use crate::process::{deadline_after, ChildProcess};
use crate::seat::{Seen, Start, Turn};
use crate::verdict::GameResult;

/// The protocol version this host speaks.
pub const PROTOCOL: &str = "arbiter-engine/1";

/// How long an engine may take to answer `hello` (unless its `timeout=`
/// says otherwise).
const HANDSHAKE_MS: u64 = 10_000;

/// An engine speaking the JSON-lines protocol.
pub struct JsonEngine {
    settings: EngineSettings,
    engine: EngineSlot,
    name: String,
    /// A failure met while telling the engine about a move, reported when it
    /// is next asked to move.
    failed: Option<PlayerError>,
}

impl JsonEngine {
    /// A player for the engine `settings` start; the process starts with the first game.
    pub fn new(settings: EngineSettings) -> Self {
        // The last word: `python3 my_engine.py` is my_engine.py.
        let words = settings.command.split_whitespace();
        let name = words.last().and_then(|w| w.rsplit('/').next()).unwrap_or("engine").to_string();
        JsonEngine { engine: EngineSlot::new(settings.restart), settings, name, failed: None }
    }

    /// Starts the engine: `hello` until `ready`.
    fn start(settings: &EngineSettings) -> Result<(ChildProcess, Option<String>), PlayerError> {
        let mut p = settings.start()?;
        p.send(&json!({"type": "hello", "protocol": PROTOCOL}).to_string())?;
        let ready = p
            .recv_until(Some(deadline_after(settings.handshake_ms(HANDSHAKE_MS))), |l| {
                serde_json::from_str::<Value>(l).ok().filter(|v| v["type"] == "ready")
            })
            .map_err(|e| handshake(e, "ready"))?;
        Ok((p, ready["name"].as_str().map(String::from)))
    }

    /// Runs `talk` on the engine (see [`EngineSlot`]); a process not running
    /// is started only if `start` (`None` otherwise).
    fn with_engine<T>(
        &mut self,
        start: bool,
        talk: impl FnOnce(&mut ChildProcess) -> Result<T, PlayerError>,
    ) -> Result<Option<T>, PlayerError> {
        if !start && !self.engine.running() {
            return Ok(None);
        }
        self.engine.talk(|| Self::start(&self.settings), &mut self.name, talk).map(Some)
    }

    fn send(&mut self, start: bool, msg: Value) -> Result<(), PlayerError> {
        self.with_engine(start, |p| Ok(p.send(&msg.to_string())?)).map(|_| ())
    }
}

fn clock_json(t: TurnTime) -> Value {
    json!({
        "remaining_ms": t.remaining_ms,
        "increment_ms": t.increment_ms,
        "moves_to_go": t.moves_to_go,
        "movetime_ms": t.movetime_ms,
    })
}

impl Player for JsonEngine {
    fn pin_to_cpu(&mut self, cpu: usize) -> Result<(), crate::process::AffinityError> {
        self.engine.pin(cpu)
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn engine_name(&self) -> Option<String> {
        self.engine.reported_name()
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        self.failed = None;
        self.engine.begin_game(None);
        self.send(
            true,
            json!({
                "type": "new_game",
                "variant": start.info.id,
                "player": start.player,
                "info": start.info,
                "observation": {"text": start.observation.text, "view": start.observation.view},
            }),
        )
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        if let Err(e) = self.send(false, json!({"type": "moved", "player": seen.player, "move": seen.text})) {
            self.failed.get_or_insert(e);
        }
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let observation = turn.observe().map_err(PlayerError::Plugin)?;
        let legal: Vec<Value> = turn
            .legal_moves()
            .iter()
            .map(|&m| turn.move_text(m).map(|t| json!({"id": m, "text": t})))
            .collect::<Result<_, _>>()
            .map_err(PlayerError::Plugin)?;
        let tc = turn.time_control();
        let clocks: Vec<Value> = (0..2).map(|p| clock_json(turn.clock(p))).collect();
        let go = json!({
            "type": "go",
            "ply": turn.ply(),
            "observation": {"text": observation.text, "view": observation.view},
            "legal_moves": legal,
            "clock": clock_json(turn.clock(turn.player())),
            "clocks": clocks,
            "budget_ms": turn.budget_ms(),
            "nodes": tc.nodes,
            "depth": tc.depth,
        });
        let wait = MoveWait::of(turn);
        let answer = self.with_engine(false, |p| {
            p.send(&go.to_string())?;
            loop {
                let line = p.recv(Some(wait.deadline)).map_err(|e| wait.blame(e.into()))?;
                if line.trim().is_empty() {
                    continue;
                }
                let v = serde_json::from_str::<Value>(&line).map_err(|_| {
                    PlayerError::Protocol(format!("not JSON: {}", line.chars().take(80).collect::<String>()))
                })?;
                match v["type"].as_str() {
                    Some("log") => continue,
                    Some("move") | Some("resign") => return Ok(v),
                    _ => {
                        return Err(PlayerError::Protocol(format!(
                            "expected a move, got {}",
                            line.chars().take(80).collect::<String>()
                        )))
                    }
                }
            }
        })?;
        let not_running = || format!("'{}' is not running (it failed earlier in this game)", self.settings.command);
        let answer = answer.ok_or_else(|| PlayerError::Crashed(not_running()))?;
        let reported_ms = answer["time_ms"].as_u64();
        let score = answer["score"].as_i64().map(|s| s as i32);
        let action = if answer["type"] == "resign" {
            Answer::Resign
        } else if let Some(id) = answer["id"].as_u64() {
            Answer::Move(id)
        } else if let Some(text) = answer["move"].as_str() {
            Answer::Text(text.to_string())
        } else {
            return Err(PlayerError::Protocol("a move needs \"move\" (text) or \"id\"".into()));
        };
        Ok(Reply { reported_ms, score, ..Reply::answer(action) })
    }

    fn game_over(&mut self, result: &GameResult, me: u32) {
        let over = json!({
            "type": "game_over",
            "result": result.pgn(),
            "termination": result.termination.to_string(),
            "you": me,
        });
        // A dead engine is not restarted just to be told the game is over.
        let _ = self.send(false, over);
    }
}

/// `engine:CMD[,setting=value...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "engine",
    example: "engine:./my-engine",
    runs_a_program: true,
    parse: |rest| {
        let settings = EngineSettings::parse(rest)?;
        Ok(Box::new(ProgramSpec { settings, make: |s| Box::new(JsonEngine::new(s)), whole_positions: false }))
    },
};
