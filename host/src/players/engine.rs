//! `engine:CMD`: arbiter's own JSON-lines protocol, for engines of any
//! variant, hidden information included. The engine gets its observation, its
//! legal moves with their texts and its clocks, and answers with a move; the
//! protocol is specified in docs/engine-protocol.md.

use serde_json::{json, Value};

use super::{Answer, Player, PlayerError, Reply};
use crate::clock::TurnTime;
use crate::process::{deadline_after, EngineProcess};
use crate::referee::{GameResult, Seen, Start, Turn};

/// The protocol version this host speaks.
pub const PROTOCOL: &str = "arbiter-engine/1";

/// How long an engine may take to answer `hello` and `new_game`.
const HANDSHAKE_MS: u64 = 10_000;

/// An engine speaking the JSON-lines protocol.
pub struct JsonEngine {
    command: String,
    process: Option<EngineProcess>,
    name: String,
}

impl JsonEngine {
    /// A player for the engine started by `command`; the process starts with the first game.
    pub fn new(command: String) -> Self {
        let name = command.split_whitespace().last().and_then(|w| w.rsplit('/').next()).unwrap_or("engine").to_string();
        JsonEngine { command, process: None, name }
    }

    fn process(&mut self) -> Result<&mut EngineProcess, PlayerError> {
        if self.process.is_none() {
            let mut p = EngineProcess::start(&self.command)?;
            p.send(&json!({"type": "hello", "protocol": PROTOCOL}).to_string())?;
            let ready = p.recv_until(Some(deadline_after(HANDSHAKE_MS)), |l| {
                serde_json::from_str::<Value>(l).ok().filter(|v| v["type"] == "ready")
            })?;
            if let Some(n) = ready["name"].as_str() {
                self.name = n.to_string();
            }
            self.process = Some(p);
        }
        Ok(self.process.as_mut().expect("just started"))
    }

    fn send(&mut self, msg: Value) -> Result<(), PlayerError> {
        let r = self.process()?.send(&msg.to_string());
        if r.is_err() {
            self.process = None;
        }
        r
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
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        self.send(json!({
            "type": "new_game",
            "variant": start.info.id,
            "player": start.player,
            "info": start.info,
            "observation": {"text": start.observation.text, "view": start.observation.view},
        }))
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        let _ = self.send(json!({"type": "moved", "player": seen.player, "move": seen.text}));
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let observation = turn.observe().map_err(|e| PlayerError::Crashed(e.to_string()))?;
        let legal: Vec<Value> = turn
            .legal_moves()
            .iter()
            .map(|&m| turn.move_text(m).map(|t| json!({"id": m, "text": t})))
            .collect::<Result<_, _>>()
            .map_err(|e| PlayerError::Crashed(e.to_string()))?;
        let tc = turn.time_control();
        let clocks: Vec<Value> = (0..2).map(|p| clock_json(turn.clock(p))).collect();
        self.send(json!({
            "type": "go",
            "ply": turn.ply(),
            "observation": {"text": observation.text, "view": observation.view},
            "legal_moves": legal,
            "clock": clock_json(turn.clock(turn.player())),
            "clocks": clocks,
            "budget_ms": turn.budget_ms(),
            "nodes": tc.nodes,
            "depth": tc.depth,
        }))?;
        let deadline = turn.budget_ms().map(deadline_after);
        let p = self.process()?;
        let answer = loop {
            let line = match p.recv(deadline) {
                Ok(l) => l,
                Err(e) => {
                    self.process = None;
                    return Err(e);
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                self.process = None;
                return Err(PlayerError::Protocol(format!("not JSON: {}", line.chars().take(80).collect::<String>())));
            };
            match v["type"].as_str() {
                Some("log") => continue,
                Some("move") | Some("resign") => break v,
                _ => {
                    return Err(PlayerError::Protocol(format!(
                        "expected a move, got {}",
                        line.chars().take(80).collect::<String>()
                    )))
                }
            }
        };
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
        Ok(Reply { answer: action, reported_ms, score })
    }

    fn game_over(&mut self, result: &GameResult, me: u32) {
        let _ = self
            .send(json!({"type": "game_over", "result": result.pgn(), "termination": result.termination, "you": me}));
    }
}
