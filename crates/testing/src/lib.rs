//! What arbiter's unit tests share: kit variants run in process (the
//! fixture plugin's, linked as a library), a scripted player, whole games
//! played by the referee, a made-up record, temporary folders and stores,
//! engines of a few lines of shell.
//!
//! A dev-dependency only. A crate's own unit tests may use what here
//! carries types of the crates below it (a test build of a crate is a crate
//! of its own: its types are not those this crate was built against).

use std::collections::VecDeque;

use arbiter_api::host::VariantHandle;
use arbiter_fixture::{Fault, Race};
use serde_json::{Map, Value};

use arbiter_core::clock::TimeControl;
use arbiter_core::model::{GameRecord, PlyRecord, Seat};
use arbiter_core::seat::{Answer, Player, PlayerError, Reply, Seen, Turn};
use arbiter_core::verdict::{GameResult, Termination};
use arbiter_store::SlotResult;

/// The fixture's race to ten, in process, misbehaving as `fault` says.
pub fn race(fault: Fault) -> VariantHandle {
    VariantHandle::in_process(Race { id: "race", fault }, "fixture-plugin", "0.1.0").unwrap()
}

/// The fixture's game of hidden secrets, in process.
pub fn secret() -> VariantHandle {
    let secret = arbiter_fixture::Secret { id: "secret", sampling: arbiter_fixture::Sampling::Honest };
    VariantHandle::in_process(secret, "fixture-plugin", "0.1.0").unwrap()
}

/// A whole game of `variant` with options `given` (over its defaults),
/// each seat playing its first legal move, as the referee records it.
pub fn played(variant: &VariantHandle, given: Value) -> GameRecord {
    let options = options(variant, given);
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(Scripted::new(vec![])), Box::new(Scripted::new(vec![]))];
    let start = arbiter_play::referee::StartFrom::Standard;
    arbiter_play::referee::play_game(variant, &options, start, &mut players, &game_config()).unwrap()
}

/// Two players' settings for a test game: a minute and a second each.
pub fn game_config() -> arbiter_play::referee::GameConfig {
    arbiter_play::referee::GameConfig::new(vec![TimeControl::parse("60+1").unwrap(); 2], 1000)
}

/// A race (the fixture's, in process, from its start) between `first`
/// and a player of the first legal move, as the referee records it.
pub fn race_against(first: Box<dyn Player>) -> GameRecord {
    race_game(&mut vec![first, Box::new(Scripted::new(vec![]))])
}

/// A race (the fixture's, in process, from its start) between `players`,
/// kept for another game, as the referee records it.
pub fn race_game(players: &mut Vec<Box<dyn Player>>) -> GameRecord {
    let v = race(Fault::None);
    let start = arbiter_play::referee::StartFrom::Standard;
    arbiter_play::referee::play_game(&v, &options(&v, serde_json::json!({})), start, players, &game_config()).unwrap()
}

/// An engine of a few lines of shell, in a folder of its own named after
/// the test: it writes every line it reads to its log, then answers as the
/// `case` arms say (`pattern) commands;;`, one a line); the script and the log.
#[cfg(unix)]
pub fn shell_engine(name: &str, arms: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = temp_folder(name);
    let (script, log) = (dir.join("engine.sh"), dir.join("sent.log"));
    let body = format!(
        "while read -r line; do printf '%s\\n' \"$line\" >> {}; case \"$line\" in\n{arms}\nesac; done\n",
        log.display()
    );
    std::fs::write(&script, body).unwrap();
    (script, log)
}

/// A new, empty folder for one test, named after it, in the system's
/// temporary directory; removed when the test process exits.
pub fn temp_folder(name: &str) -> std::path::PathBuf {
    static REMOVE_AT_EXIT: std::sync::Once = std::sync::Once::new();
    // SAFETY: registers a plain function, once.
    REMOVE_AT_EXIT.call_once(|| unsafe {
        libc::atexit(remove_temp_folders);
    });
    let dir = std::env::temp_dir().join(format!("arbiter-unit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TEMP_FOLDERS.lock().unwrap_or_else(|e| e.into_inner()).push(dir.clone());
    dir
}

/// The folders [`temp_folder`] made.
static TEMP_FOLDERS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes the folders [`temp_folder`] made (as the test process exits).
extern "C" fn remove_temp_folders() {
    // A test thread still running at exit may hold the lock: then they stay.
    if let Ok(folders) = TEMP_FOLDERS.try_lock() {
        for dir in folders.iter() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A new SQLite store, in memory: nothing is left behind.
pub fn temp_store() -> arbiter_store::Store {
    arbiter_store::Store::in_memory().unwrap()
}

/// The variant's default options, overridden by `given`.
pub fn options(v: &VariantHandle, given: Value) -> Map<String, Value> {
    let mut map: Map<String, Value> = v.info().options.iter().map(|o| (o.name.clone(), o.default.clone())).collect();
    map.extend(given.as_object().cloned().unwrap_or_default());
    map
}

/// A player that answers from a script, then always plays the first legal
/// move; it keeps every move text it was shown.
pub struct Scripted {
    pub script: VecDeque<Result<Answer, PlayerError>>,
    pub seen: Vec<String>,
    pub accepts_draws: bool,
    pub sleep_ms: u64,
}

impl Scripted {
    /// A player answering `script`, then the first legal move.
    pub fn new(script: Vec<Result<Answer, PlayerError>>) -> Scripted {
        Scripted { script: script.into(), seen: Vec::new(), accepts_draws: false, sleep_ms: 0 }
    }
}

impl Player for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        std::thread::sleep(std::time::Duration::from_millis(self.sleep_ms));
        let answer = self.script.pop_front().unwrap_or(Ok(Answer::Move(turn.legal_moves()[0])))?;
        Ok(Reply::answer(answer))
    }

    fn notify(&mut self, seen: &Seen<'_>) {
        self.seen.push(seen.text.clone());
    }

    fn accepts_draw(&mut self, _from: Seat) -> bool {
        self.accepts_draws
    }
}

/// A drawn two-player game of made-up moves, one ply per entry of
/// `movers` (`m0`, `m1`...), with clocks and a time control.
pub fn record(movers: &[u32]) -> GameRecord {
    let plies = movers
        .iter()
        .enumerate()
        .map(|(i, &player)| PlyRecord {
            player: Seat::new(player),
            mv: i as u64,
            text: format!("m{i}"),
            coordinates: None,
            used_us: 1500 * i as u64,
            reported_ms: (i % 2 == 0).then_some(i as u64),
            clock_ms: Some(60_000 - i as u64),
            score: (i % 3 == 0).then_some(-(i as i32)),
            depth: (i % 3 == 0).then_some(i as u32 + 10),
            nodes: (i % 3 == 0).then_some(1000 * i as u64),
            seldepth: (i % 3 == 0).then_some(i as u32 + 14),
            pv: (i == 3).then(|| "e2e4 e7e5".to_string()),
            ponder_hit: (i == 2).then_some(true),
        })
        .collect();
    GameRecord {
        variant: "x".into(),
        plugin: "x 1".into(),
        players: vec!["a".into(), "b".into()],
        time_controls: vec![TimeControl::parse("60+1").unwrap(); 2],
        options: serde_json::json!({"size": 3}).as_object().unwrap().clone(),
        start_position: "s".into(),
        standard_start: true,
        plies,
        result: GameResult { outcome: arbiter_api::Outcome::Draw, termination: Termination::DrawAgreed },
        final_position: "f".into(),
        started_at: 1_700_000_000,
        duration_ms: 1234,
        viewer: None,
        record_tags: vec![("GameType".into(), "20".into())],
        engines: vec!["Alpha 1.0".into(), String::new()],
    }
}

/// Game `index` of a match, pairs `(2k, 2k + 1)`, with entrant 0 first or second.
pub fn match_game(index: u32, first_moves_first: bool, result: &str) -> SlotResult {
    let winner = match result {
        "1-0" => Some(Seat::FIRST),
        "0-1" => Some(Seat::SECOND),
        _ => None,
    };
    SlotResult {
        index,
        pair: Some(index - index % 2),
        seats: if first_moves_first { vec![0, 1] } else { vec![1, 0] },
        variant: "chess".into(),
        result: result.into(),
        winner,
    }
}

/// A tournament definition as `arbiter tournament` stores it: the TOML
/// lines `head`, then `players` as (name, spec); playing `variants`.
pub fn definition(
    head: &str,
    players: &[(&str, &str)],
    variants: &[&str],
) -> arbiter_tournament::view::StoredDefinition {
    let mut text = format!("{head}\n");
    for (name, spec) in players {
        text.push_str(&format!("[[players]]\nname = \"{name}\"\nspec = \"{spec}\"\n"));
    }
    arbiter_tournament::view::StoredDefinition {
        config: arbiter_tournament::config::TournamentConfig::from_toml("t.toml", &text).unwrap(),
        variants: variants.iter().map(|v| v.to_string()).collect(),
        openings: Default::default(),
        plugins: Default::default(),
        engines: Default::default(),
    }
}

/// Plays `job` in this process, as a worker process would.
pub fn play_in_process(registry: &arbiter_core::plugin::Registry, job: &arbiter_tournament::worker::Job) -> GameRecord {
    use arbiter_tournament::worker::{play_job, KEPT_ENGINES};
    let pulse = arbiter_tournament::pulse::Pulse::shared(std::time::Duration::from_secs(30));
    let line = serde_json::to_string(job).unwrap();
    let mut engines = arbiter_play::players::KeptEngines::new(KEPT_ENGINES);
    play_job(registry, &line, &pulse, &mut engines, &mut None).unwrap().0
}

/// A tune of seeded MCTS players on the fixture's race, stored.
pub fn stored_tune(
    store: &arbiter_store::Store,
    iterations: u32,
    in_flight: u32,
) -> arbiter_tournament::driver::Tournament {
    let registry = arbiter_core::plugin::Registry::of([race(Fault::None)]);
    let head = format!(
        "variants = [\"race\"]\nrounds = {iterations}\nin_process = true\nconcurrency = 2\n[tune]\n\
         in_flight = {in_flight}\nparams = [{{ name = \"c\", type = \"float\", start = 1.0, min = 0.0, max = 4.0, \
         c_end = 0.3, r_end = 0.2 }}]"
    );
    let spec = "mcts:iterations=6";
    let definition = definition(&head, &[("m (+)", spec), ("m (-)", spec)], &["race"]);
    let id = store.add_tournament("t", &serde_json::to_string(&definition).unwrap()).unwrap();
    arbiter_tournament::driver::Tournament::planned(
        &registry,
        arbiter_tournament::view::TournamentView { id, definition },
    )
    .unwrap()
}
