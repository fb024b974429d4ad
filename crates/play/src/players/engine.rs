//! `engine:CMD`: arbiter's own JSON-lines protocol, for engines of any
//! variant, hidden information included. The engine gets its observation, its
//! legal moves with their texts and its clocks, and answers with a move; the
//! protocol is specified in docs/engine-protocol.md.

use serde_json::{json, Value};

use super::{
    handshake, Answer, EngineSettings, EngineSlot, MoveWait, Player, PlayerError, PlayerKind, ProgramSpec, Protocol,
    Reply,
};
use arbiter_core::clock::TurnTime;
use arbiter_core::engine::EngineProcess;
use arbiter_core::model::Seat;
use arbiter_core::process::deadline_after;
use arbiter_core::seat::{Seen, Start, Turn};
use arbiter_core::verdict::GameResult;

/// The protocol version this host speaks.
pub const PROTOCOL: &str = "arbiter-engine/1";

/// How long an engine may take to answer `hello` (unless its `timeout=`
/// says otherwise).
const HANDSHAKE_MS: u64 = 10_000;

/// An engine speaking the JSON-lines protocol.
pub struct JsonEngine {
    settings: EngineSettings,
    /// `option.NAME=VALUE` settings, told with `hello`.
    options: Vec<(String, String)>,
    engine: EngineSlot,
    name: String,
    /// Whether the running engine said `set_options` in its `ready`: it
    /// takes new option values between games.
    sets_options: bool,
    /// Whether `options` changed since the running engine was told them.
    unsent: bool,
    /// A failure met while telling the engine about a move, reported when it
    /// is next asked to move.
    failed: Option<PlayerError>,
}

impl JsonEngine {
    /// A player for the engine `settings` start, told `options` with
    /// `hello`; the process starts with the first game.
    pub fn new(settings: EngineSettings, options: Vec<(String, String)>) -> Self {
        // The last word: `python3 my_engine.py` is my_engine.py.
        let words = arbiter_core::process::command_words(&settings.command);
        let name = words.last().and_then(|w| w.rsplit('/').next()).unwrap_or("engine").to_string();
        let engine = EngineSlot::new(&settings);
        JsonEngine { engine, settings, options, name, sets_options: false, unsent: false, failed: None }
    }

    /// Starts the engine: `hello` (with the options, if any) until `ready`:
    /// the process, its name, and whether it takes `set_options`.
    fn start(
        settings: &EngineSettings,
        options: &[(String, String)],
    ) -> Result<(EngineProcess, Option<String>, bool), PlayerError> {
        let mut p = settings.start()?;
        let mut hello = json!({"type": "hello", "protocol": PROTOCOL});
        if !options.is_empty() {
            hello["options"] = options_json(options);
        }
        p.send(&hello.to_string())?;
        let ready = p
            .recv_until(Some(deadline_after(settings.handshake_ms(HANDSHAKE_MS))), |l| {
                serde_json::from_str::<Value>(l).ok().filter(|v| v["type"] == "ready")
            })
            .map_err(|e| handshake(e, "ready"))?;
        Ok((p, ready["name"].as_str().map(String::from), ready["set_options"] == true))
    }

    /// Runs `talk` on the engine (see [`EngineSlot`]); a process not running
    /// is started only if `start` (`None` otherwise).
    fn with_engine<T>(
        &mut self,
        start: bool,
        talk: impl FnOnce(&mut EngineProcess) -> Result<T, PlayerError>,
    ) -> Result<Option<T>, PlayerError> {
        if !start && !self.engine.running() {
            return Ok(None);
        }
        let (settings, options, sets_options) = (&self.settings, &self.options, &mut self.sets_options);
        let start = || {
            let (p, name, sets) = Self::start(settings, options)?;
            *sets_options = sets;
            Ok((p, name))
        };
        self.engine.talk(start, &mut self.name, talk).map(Some)
    }

    fn send(&mut self, start: bool, msg: Value) -> Result<(), PlayerError> {
        self.with_engine(start, |p| Ok(p.send(&msg.to_string())?)).map(|_| ())
    }
}

/// Option values as the protocol sends them: an object of strings.
fn options_json(options: &[(String, String)]) -> Value {
    Value::Object(options.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
}

fn clock_json(t: TurnTime) -> Value {
    json!({
        "remaining_ms": t.remaining_ms,
        "increment_ms": t.increment_ms,
        "moves_to_go": t.moves_to_go,
        "movetime_ms": t.movetime_ms,
        "byoyomi_ms": t.byoyomi_ms,
    })
}

impl Player for JsonEngine {
    engine_identity!();

    /// Taken between games by an engine that said `set_options` (or one
    /// not running, which `hello` tells).
    fn take_options(&mut self, options: &[(String, String)]) -> bool {
        let running = self.engine.running();
        if running && !self.sets_options {
            return false;
        }
        self.options = options.to_vec();
        self.unsent = running;
        true
    }

    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        self.failed = None;
        self.engine.begin_game(None);
        // A fresh process is told the options with `hello`.
        if std::mem::take(&mut self.unsent) && self.engine.running() {
            self.send(false, json!({"type": "set_options", "options": options_json(&self.options)}))?;
        }
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
        let clocks: Vec<Value> = Seat::all(2).map(|p| clock_json(turn.clock(p))).collect();
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
            p.begin_move(wait.limit_ms);
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
                    Some("move") | Some("resign") => return Ok((v, p.finish_move())),
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
        let (answer, clock_us) = answer.ok_or_else(|| PlayerError::Crashed(not_running()))?;
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
        Ok(Reply { reported_ms, score, clock_us, ..Reply::answer(action) })
    }

    fn game_over(&mut self, result: &GameResult, me: Seat) {
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

/// `engine:CMD[,setting=value...][,option.NAME=VALUE...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "engine",
    example: "engine:./my-engine",
    runs_a_program: true,
    parse: |rest| {
        Ok(Box::new(ProgramSpec::parse(
            rest,
            Protocol { make: |s, o| Box::new(JsonEngine::new(s, o)), whole_positions: false, can_ponder: false },
        )?))
    },
};

// Shell engines: Unix only.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use arbiter_api::Outcome;
    use arbiter_core::model::Seat;

    use crate::players::PlayerSpec;
    use crate::referee::{play_game, StartFrom, Termination};
    use crate::testing::game_config;
    use arbiter_core::seat::Player;
    use arbiter_testing::{options, race, Scripted};

    /// A race between a JSON-lines engine of a few shell lines, answering
    /// `go` with `answer` (first), and a player of the first legal move;
    /// the record and what the engine was sent (`to_the_end`: once it has
    /// read `game_over`).
    fn engine_game(
        name: &str,
        answer: &str,
        to_the_end: bool,
        tail: &str,
    ) -> (arbiter_core::model::GameRecord, String) {
        let (script, log) = arbiter_testing::shell_engine(
            name,
            &format!(
                "*'\"hello\"'*) echo '{{\"type\":\"ready\",\"name\":\"fake 2\"}}';;\n\
             *'\"go\"'*) echo '{{\"type\":\"log\",\"message\":\"thinking\"}}'; echo '{answer}';;"
            ),
        );
        let engine = PlayerSpec::parse(&format!("engine:sh {}{tail}", script.display())).unwrap().create(0);
        let v = race(arbiter_fixture::Fault::None);
        // The engine is kept until it has read the game's end.
        let mut players: Vec<Box<dyn Player>> = vec![engine, Box::new(Scripted::new(vec![]))];
        let opts = options(&v, serde_json::json!({}));
        let record = play_game(&v, &opts, StartFrom::Standard, &mut players, &game_config()).unwrap();
        // The engine logs `game_over` as it reads it, after the game.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut sent = std::fs::read_to_string(&log).unwrap_or_default();
        while to_the_end && std::time::Instant::now() < until && !sent.contains("game_over") {
            std::thread::sleep(std::time::Duration::from_millis(10));
            sent = std::fs::read_to_string(&log).unwrap_or_default();
        }
        (record, sent)
    }

    #[test]
    fn an_engine_is_told_the_game_each_move_and_the_end_and_its_move_score_and_time_are_kept() {
        let (record, sent) =
            engine_game("json-engine", r#"{"type":"move","move":"+2","score":7,"time_ms":3}"#, true, "");
        assert_eq!(record.engines.first().map(String::as_str), Some("fake 2"));
        let mine: Vec<_> = record.plies.iter().filter(|p| p.player == Seat::FIRST).collect();
        assert!(mine.iter().all(|p| (p.text.as_str(), p.score, p.reported_ms) == ("+2", Some(7), Some(3))));
        let kinds: Vec<String> = sent
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(kinds.first().map(String::as_str), Some("hello"));
        assert_eq!(kinds[1], "new_game");
        assert_eq!(kinds.iter().filter(|k| *k == "moved").count(), record.plies.len(), "every move, its own included");
        assert_eq!(kinds.iter().filter(|k| *k == "go").count(), mine.len());
        assert_eq!(kinds.last().map(String::as_str), Some("game_over"));
        let go: serde_json::Value = serde_json::from_str(sent.lines().find(|l| l.contains("\"go\"")).unwrap()).unwrap();
        assert_eq!(go["legal_moves"], serde_json::json!([{"id": 1, "text": "+1"}, {"id": 2, "text": "+2"}]));
        assert_eq!(go["clock"]["remaining_ms"], 60_000);
    }

    #[test]
    fn an_answer_that_is_not_json_or_not_a_move_loses_as_a_protocol_error() {
        for (name, answer, says) in [
            ("json-engine-text", "e2e4", "not JSON: e2e4"),
            ("json-engine-kind", r#"{"type":"ready"}"#, "expected a move"),
            ("json-engine-empty", r#"{"type":"move"}"#, "a move needs"),
        ] {
            let (record, _) = engine_game(name, answer, false, "");
            assert_eq!(record.result.outcome, Outcome::Win(1), "{name}");
            match &record.result.termination {
                Termination::EngineProtocol(why) => assert!(why.contains(says), "{name}: {why}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn option_settings_are_told_with_hello_and_the_rest_still_start_the_engine() {
        let answer = r#"{"type":"move","move":"+1"}"#;
        let (_, sent) = engine_game("json-engine-options", answer, true, ",restart=on,option.Depth=3,option.Bias=0.25");
        let hello: serde_json::Value = serde_json::from_str(sent.lines().next().unwrap()).unwrap();
        assert_eq!(hello["options"], serde_json::json!({"Depth": "3", "Bias": "0.25"}));
        let (_, plain) = engine_game("json-engine-no-options", answer, true, "");
        let hello: serde_json::Value = serde_json::from_str(plain.lines().next().unwrap()).unwrap();
        assert!(hello.get("options").is_none(), "{hello}");
        let e = PlayerSpec::parse("engine:./e,option.X=1,colour=red").unwrap_err().to_string();
        assert!(e.contains("unknown engine setting 'colour'"), "{e}");
    }

    #[test]
    fn an_engine_that_says_set_options_is_told_new_values_between_games_and_one_that_does_not_is_not_kept() {
        for sets in [true, false] {
            let ready = if sets { r#"{"type":"ready","set_options":true}"# } else { r#"{"type":"ready"}"# };
            let (script, log) = arbiter_testing::shell_engine(
                &format!("json-engine-set-options-{sets}"),
                &format!("*'\"hello\"'*) echo '{ready}';;\n*'\"go\"'*) echo '{{\"type\":\"move\",\"id\":1}}';;"),
            );
            let spec = PlayerSpec::parse(&format!("engine:sh {},option.A=1", script.display())).unwrap();
            let mut players: Vec<Box<dyn Player>> = vec![spec.create(0), Box::new(Scripted::new(vec![]))];
            arbiter_testing::race_game(&mut players);
            let taken = players[0].take_options(&[("A".into(), "2".into()), ("B".into(), "x".into())]);
            assert_eq!(taken, sets, "only an engine that said set_options takes new values");
            if !sets {
                continue;
            }
            arbiter_testing::race_game(&mut players);
            let sent = std::fs::read_to_string(&log).unwrap();
            let told: Vec<serde_json::Value> = sent
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .filter(|m| ["hello", "set_options", "new_game"].contains(&m["type"].as_str().unwrap()))
                .collect();
            let kinds: Vec<&str> = told.iter().map(|m| m["type"].as_str().unwrap()).collect();
            assert_eq!(kinds, ["hello", "new_game", "set_options", "new_game"], "one process");
            assert_eq!(told[0]["options"], serde_json::json!({"A": "1"}));
            assert_eq!(told[2]["options"], serde_json::json!({"A": "2", "B": "x"}));
        }
    }
}
