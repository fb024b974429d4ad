//! What the host's unit tests share: kit variants run in process (the
//! fixture plugin's, linked as a library) and a scripted player.

use std::collections::VecDeque;

use arbiter_api::host::VariantHandle;
use arbiter_fixture::{Fault, Race};
use serde_json::{Map, Value};

use crate::model::Seat;
use crate::seat::{Answer, Player, PlayerError, Reply, Seen, Turn};

/// The fixture's race to ten, in process, misbehaving as `fault` says.
pub(crate) fn race(fault: Fault) -> VariantHandle {
    VariantHandle::in_process(Race { id: "race", fault }, "fixture-plugin", "0.1.0").unwrap()
}

/// The fixture's game of hidden secrets, in process.
pub(crate) fn secret() -> VariantHandle {
    let secret = arbiter_fixture::Secret { id: "secret", sampling: arbiter_fixture::Sampling::Honest };
    VariantHandle::in_process(secret, "fixture-plugin", "0.1.0").unwrap()
}

/// A whole game of `variant` with options `given` (over its defaults),
/// each seat playing its first legal move, as the referee records it.
pub(crate) fn played(variant: &VariantHandle, given: Value) -> crate::model::GameRecord {
    let options = options(variant, given);
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(Scripted::new(vec![])), Box::new(Scripted::new(vec![]))];
    let start = crate::referee::StartFrom::Standard;
    crate::referee::play_game(variant, &options, start, &mut players, &game_config()).unwrap()
}

/// Two players' settings for a test game: a minute and a second each.
pub(crate) fn game_config() -> crate::referee::GameConfig {
    crate::referee::GameConfig {
        time_controls: vec![crate::clock::TimeControl::parse("60+1").unwrap(); 2],
        margin_ms: 1000,
        max_plies: None,
        claim_draws: true,
        adjudication: Default::default(),
        pin_seats: false,
    }
}

/// A race (the fixture's, in process, from its start) between `first`
/// and a player of the first legal move, as the referee records it.
pub(crate) fn race_against(first: Box<dyn Player>) -> crate::model::GameRecord {
    race_game(&mut vec![first, Box::new(Scripted::new(vec![]))])
}

/// A race (the fixture's, in process, from its start) between `players`,
/// kept for another game, as the referee records it.
pub(crate) fn race_game(players: &mut Vec<Box<dyn Player>>) -> crate::model::GameRecord {
    let v = race(Fault::None);
    let start = crate::referee::StartFrom::Standard;
    crate::referee::play_game(&v, &options(&v, serde_json::json!({})), start, players, &game_config()).unwrap()
}

/// An engine of a few lines of shell, in a folder of its own named after
/// the test: it writes every line it reads to its log, then answers as the
/// `case` arms say (`pattern) commands;;`, one a line); the script and the log.
#[cfg(unix)]
pub(crate) fn shell_engine(name: &str, arms: &str) -> (std::path::PathBuf, std::path::PathBuf) {
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
pub(crate) fn temp_folder(name: &str) -> std::path::PathBuf {
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
pub(crate) fn temp_store() -> crate::store::Store {
    crate::store::Store::in_memory().unwrap()
}

/// A tournament definition as `arbiter tournament` stores it: the TOML
/// lines `head`, then `players` as (name, spec); playing `variants`.
pub(crate) fn definition(
    head: &str,
    players: &[(&str, &str)],
    variants: &[&str],
) -> crate::tournament::view::StoredDefinition {
    let mut text = format!("{head}\n");
    for (name, spec) in players {
        text.push_str(&format!("[[players]]\nname = \"{name}\"\nspec = \"{spec}\"\n"));
    }
    crate::tournament::view::StoredDefinition {
        config: crate::tournament::config::TournamentConfig::from_toml("t.toml", &text).unwrap(),
        variants: variants.iter().map(|v| v.to_string()).collect(),
        openings: Default::default(),
        plugins: Default::default(),
        engines: Default::default(),
    }
}

/// The variant's default options, overridden by `given`.
pub(crate) fn options(v: &VariantHandle, given: Value) -> Map<String, Value> {
    let mut map: Map<String, Value> = v.info().options.iter().map(|o| (o.name.clone(), o.default.clone())).collect();
    map.extend(given.as_object().cloned().unwrap_or_default());
    map
}

/// A player that answers from a script, then always plays the first legal
/// move; it keeps every move text it was shown.
pub(crate) struct Scripted {
    pub(crate) script: VecDeque<Result<Answer, PlayerError>>,
    pub(crate) seen: Vec<String>,
    pub(crate) accepts_draws: bool,
    pub(crate) sleep_ms: u64,
}

impl Scripted {
    /// A player answering `script`, then the first legal move.
    pub(crate) fn new(script: Vec<Result<Answer, PlayerError>>) -> Scripted {
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
