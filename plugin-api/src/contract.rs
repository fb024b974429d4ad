//! The plugin contract as checks (feature `contract`): the executable form of
//! docs/ABI.md and the [`crate::kit`] docs. A variant is put through seeded
//! random games; each check yields one named result, and the timings of the
//! hot calls are reported. `arbiter check` runs it on plugin files (each
//! variant in a child process); a plugin's own `cargo test` runs it in
//! process with [`assert_contract`], as OpenSpiel's basic tests do:
//!
//! ```ignore
//! #[test]
//! fn the_plugin_contract_holds() {
//!     let v = VariantHandle::in_process(MyVariant, env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")).unwrap();
//!     arbiter_api::contract::assert_contract(&v, &CheckConfig::default());
//! }
//! ```

use std::collections::HashSet;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::Map;

use crate::host::{Game, MoveBuf, VariantHandle};
use crate::perft::{perft, Mode};
use crate::schema::{BoardGeometry, ObservationView};
use crate::{ErrorKind, Outcome, Viewer};

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// What was checked.
    pub name: String,
    /// `None` if it passed, else what went wrong and where.
    pub failure: Option<String>,
}

/// How a run of checks is set up.
#[derive(Clone, Copy, Debug)]
pub struct CheckConfig {
    /// Random games per variant.
    pub games: u32,
    /// Seed of the games.
    pub seed: u64,
    /// Plies per game when the variant declares no bound.
    pub ply_cap: u32,
}

impl Default for CheckConfig {
    /// `arbiter check`'s defaults: 20 games, seed 1, 1000 plies at most.
    fn default() -> CheckConfig {
        CheckConfig { games: 20, seed: 1, ply_cap: 1000 }
    }
}

impl CheckConfig {
    /// These games in two halves (the first half's seeds, then the
    /// rest's): for a plugin whose contract takes long, two tests that
    /// run side by side and together play exactly these games.
    pub fn halves(&self) -> [CheckConfig; 2] {
        let first = self.games / 2;
        [
            CheckConfig { games: first, ..*self },
            CheckConfig { games: self.games - first, seed: self.seed.wrapping_add(u64::from(first)), ..*self },
        ]
    }
}

/// Runs every check on `variant` and panics with every failure, one a line:
/// the contract as one test of a plugin's own suite.
pub fn assert_contract(variant: &VariantHandle, cfg: &CheckConfig) {
    let (results, _) = check_variant(variant, cfg, &mut |_| {});
    let failures: Vec<String> =
        results.iter().filter_map(|r| r.failure.as_ref().map(|f| format!("FAIL {}: {f}", r.name))).collect();
    assert!(failures.is_empty(), "{} breaks the plugin contract:\n{}", variant.info().id, failures.join("\n"));
}

/// Time spent in each hot call, for the report.
#[derive(Clone, Debug, Default)]
pub struct CallTimes {
    /// Call name, calls, total and worst time.
    pub rows: Vec<(&'static str, u64, Duration, Duration)>,
}

impl CallTimes {
    fn time<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let t0 = Instant::now();
        let r = f();
        let dt = t0.elapsed();
        match self.rows.iter_mut().find(|r| r.0 == name) {
            Some(row) => {
                row.1 += 1;
                row.2 += dt;
                row.3 = row.3.max(dt);
            }
            None => self.rows.push((name, 1, dt, dt)),
        }
        r
    }
}

/// Collects results: a failure is kept with the first place it was seen.
struct Report<'a> {
    results: Vec<CheckResult>,
    /// Told of each check the moment its outcome is final: a failure, or a
    /// check that runs once.
    on_settled: &'a mut dyn FnMut(&CheckResult),
    /// Positions where a player's observation hides something.
    hidden_positions: u32,
    /// Those of them where every sampled world was the true state.
    truth_positions: u32,
}

impl Report<'_> {
    /// Records a check that runs once, and settles it at once.
    fn settle(&mut self, name: &str, ok: Result<(), String>) {
        let passed = ok.is_ok();
        self.check(name, ok);
        if passed {
            if let Some(r) = self.results.iter().find(|r| r.name == name && r.failure.is_none()) {
                (self.on_settled)(r);
            }
        }
    }

    fn check(&mut self, name: &str, ok: Result<(), String>) {
        let index = match self.results.iter().position(|r| r.name == name) {
            Some(i) => i,
            None => {
                self.results.push(CheckResult { name: name.to_string(), failure: None });
                self.results.len() - 1
            }
        };
        let r = &mut self.results[index];
        if r.failure.is_none() {
            if let Err(why) = ok {
                r.failure = Some(why);
                (self.on_settled)(r);
            }
        }
    }
}

fn err(e: crate::Error) -> String {
    if e.kind == ErrorKind::Panic {
        format!("panicked: {}", e.message)
    } else {
        e.message
    }
}

/// Whether `e`, from `call` in position `here`, is a fault (a panic, a
/// trap, a state that faulted): then it is reported once, as what it is,
/// under "no call panics" naming the call and the position, and the game
/// is not checked further (every later answer of a faulted state would
/// fail some other check for a cause that is not its own).
fn faulted(report: &mut Report, call: &str, here: &str, e: &crate::Error) -> bool {
    // A sandbox's time limit names the call as a native watchdog does.
    if e.kind == ErrorKind::Panic && e.message.contains("ran past its time limit") {
        report.check("no call aborts or hangs", Err(format!("{}, in '{here}'", e.message)));
        return true;
    }
    if matches!(e.kind, ErrorKind::Panic | ErrorKind::Faulted) {
        report.check("no call panics", Err(format!("{call} in '{here}': {}", err(e.clone()))));
        true
    } else {
        false
    }
}

/// The position the checks are at, for a watchdog to name with a call
/// that never returns (see [`checking_at`]).
static CHECKING_AT: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// The position text of the position the checks are at now (empty before
/// the first): `arbiter check` names it with a call that hangs.
pub fn checking_at() -> String {
    CHECKING_AT.lock().map(|p| p.clone()).unwrap_or_default()
}

/// Texts no move or position should be read from, built around `near` (a
/// real one): empty, blank, very long, not ASCII, control characters, and
/// near misses (a character more, one less, the case changed).
fn hostile_texts(near: &str) -> Vec<String> {
    let mut texts: Vec<String> = vec![
        String::new(),
        " ".into(),
        "\n".into(),
        "a".repeat(1 << 20),
        "♞é日本\u{202e}".into(),
        "\0".into(),
        format!("{near}\0"),
        format!("{near}x"),
        format!("{near}{near}"),
        near.to_uppercase(),
        near.to_lowercase(),
    ];
    let mut chars: Vec<char> = near.chars().collect();
    if chars.pop().is_some() {
        texts.push(chars.iter().collect());
    }
    if let Some(first) = near.chars().next() {
        texts.push(near.replacen(first, "é", 1));
    }
    texts
}

/// How long a call on hostile input may take before it is named as slow.
const SLOW_INPUT: Duration = Duration::from_secs(2);

/// A reader of text checked by [`check_inputs`]: it reads, or says why not.
type Reader<'a> = dyn Fn(&str) -> Result<(), crate::Error> + 'a;

/// Every reader of text (`parse_move` here, `from_position` with the
/// start's text) given hostile texts: none may panic or take long, and
/// each real text must still read as itself (checked where they are read).
fn check_inputs(
    variant: &VariantHandle,
    game: &Game,
    near_move: &str,
    here: &str,
    positions: bool,
    report: &mut Report,
) -> bool {
    let parse = |text: &str| game.parse_move(text).map(drop);
    let read_position = |text: &str| variant.from_position(text, &Map::new()).map(drop);
    let readers: [(&str, Vec<String>, &Reader); 2] = [
        ("parse_move", hostile_texts(near_move), &parse),
        ("from_position", if positions { hostile_texts(here) } else { Vec::new() }, &read_position),
    ];
    for (call, texts, read) in readers {
        for text in texts {
            let t0 = Instant::now();
            let read = read(&text);
            let shown: String = text.chars().take(24).collect::<String>().escape_debug().to_string();
            if let Err(e) = &read {
                if faulted(report, &format!("{call} of '{shown}'"), here, e) {
                    return false;
                }
            }
            report.check(
                "every input is read without a panic or a hang",
                if t0.elapsed() > SLOW_INPUT {
                    Err(format!("{call} took {:?} on a text of {} bytes in '{here}'", t0.elapsed(), text.len()))
                } else {
                    Ok(())
                },
            );
        }
    }
    true
}

/// Every viewer's observation of `game` (an error's text where there is none).
fn observations(game: &Game, viewers: &[Viewer]) -> Vec<Result<crate::schema::Observation, String>> {
    viewers.iter().map(|v| game.observe(*v).map_err(err)).collect()
}

/// Runs every check on `variant`; `on_settled` hears of each check whose
/// outcome is final as soon as it is (a failure, or a check that runs once),
/// so a caller can stream it before a later call aborts the process.
pub fn check_variant(
    variant: &VariantHandle,
    cfg: &CheckConfig,
    on_settled: &mut dyn FnMut(&CheckResult),
) -> (Vec<CheckResult>, CallTimes) {
    let mut report = Report { results: Vec::new(), on_settled, hidden_positions: 0, truth_positions: 0 };
    let mut times = CallTimes::default();

    report.settle("info card is complete", info_problems(variant));
    let start = match variant.new_game(&Map::new()) {
        Ok(g) => g,
        Err(e) => {
            report.settle("a new game starts with default options", Err(err(e)));
            return (report.results, times);
        }
    };
    report.settle("a new game starts with default options", Ok(()));
    report.settle(
        "the start position text round-trips",
        variant.from_position(&start.position_text(), &Map::new()).map_err(err).and_then(|g| {
            if g.position_text() == start.position_text() {
                Ok(())
            } else {
                Err(format!("'{}' reads back as '{}'", start.position_text(), g.position_text()))
            }
        }),
    );
    report.settle(
        "a new game is the same every time",
        variant.new_game(&Map::new()).map_err(err).and_then(|again| {
            let (mut a, mut b) = (MoveBuf::new(), MoveBuf::new());
            let _ = (start.legal_moves(&mut a), again.legal_moves(&mut b));
            if again.position_text() != start.position_text() || again.to_move() != start.to_move() || *a != *b {
                Err(format!(
                    "two new games differ: '{}' (player {} to move) and '{}' (player {} to move)",
                    start.position_text(),
                    start.to_move(),
                    again.position_text(),
                    again.to_move()
                ))
            } else {
                Ok(())
            }
        }),
    );
    let mut first_runs = Vec::new();
    for game_no in 0..cfg.games {
        let trace = play_checked(variant, &start, cfg, cfg.seed.wrapping_add(game_no as u64), &mut report, &mut times);
        if game_no < 3 {
            first_runs.push(trace);
        }
    }
    // Determinism: the same seeds replay the same games, move for move and
    // in everything said of them (statuses, positions, observations, texts).
    let mut ignore = |_: &CheckResult| {};
    let mut scratch = Report { results: Vec::new(), on_settled: &mut ignore, hidden_positions: 0, truth_positions: 0 };
    for (game_no, first) in first_runs.iter().enumerate() {
        let seed = cfg.seed.wrapping_add(game_no as u64);
        let again = play_checked(variant, &start, cfg, seed, &mut scratch, &mut CallTimes::default());
        report.check(
            "the same seed gives the same game",
            match first_diff(&again, first) {
                n if n == again.len() && n == first.len() => Ok(()),
                n => Err(format!(
                    "two games with seed {seed} differ at ply {n}: '{}' and '{}'",
                    first.get(n).map_or("(the end)", String::as_str),
                    again.get(n).map_or("(the end)", String::as_str)
                )),
            },
        );
    }
    // Generic perft equals in-plugin perft (one ply less for wide games).
    let depth = if start.legal_move_list().map_or(0, |m| m.len()) > 50 { 2 } else { 3 };
    let generic_perft = match (perft(&start, depth, Mode::InPlugin), perft(&start, depth, Mode::Generic)) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Ok(a), Ok(b)) => Err(format!("depth {depth}: in-plugin {a}, generic {b}")),
        (Err(e), _) | (_, Err(e)) => Err(err(e)),
    };
    report.check("generic perft equals in-plugin perft", generic_perft);
    // The kit's default sample_world hands out the true state: a searching
    // player would then see what it must not.
    if variant.info().capabilities.hidden_information && variant.info().capabilities.sample_world {
        let (hidden, truth) = (report.hidden_positions, report.truth_positions);
        report.check(
            "sampled worlds are not the true state where something is hidden",
            if hidden >= 3 && truth == hidden {
                Err(format!("at all {hidden} positions where a player's view hides something, every world sampled for it was the true state"))
            } else {
                Ok(())
            },
        );
    }
    (report.results, times)
}

/// Why a move text would corrupt a record (PGN and PDN write texts
/// verbatim into their movetext), if it would.
fn record_unsafe(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        Some("is empty")
    } else if text.contains(char::is_whitespace) {
        Some("contains white space, which splits a move in PGN")
    } else if ["1-0", "0-1", "1/2-1/2", "*"].contains(&text) {
        Some("is a PGN game result")
    } else if text.contains(['{', '}', ';', '[', ']', '"']) {
        // A `*` inside a move (shogi's drop `P*55`) is kept by readers that
        // split movetext at white space; alone it is a result (above).
        Some("contains a character PGN reserves ({ } ; [ ] \")")
    } else if text.starts_with(['$', '%']) {
        Some("starts like a PGN annotation ($ or %)")
    } else if text.trim_end_matches('.').chars().all(|c| c.is_ascii_digit()) && text.ends_with('.') {
        Some("reads as a PGN move number")
    } else {
        None
    }
}

fn first_diff(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn info_problems(variant: &VariantHandle) -> Result<(), String> {
    let info = variant.info();
    if info.id.is_empty() || info.id != info.id.to_lowercase() || info.id.contains(char::is_whitespace) {
        return Err(format!("id '{}' must be short, lowercase, without spaces", info.id));
    }
    if info.name.is_empty() || info.players.is_empty() || info.notation.is_empty() || info.start_position.is_empty() {
        return Err("name, players, notation and start_position must all be given".into());
    }
    match &info.board {
        BoardGeometry::Grid { width, height, files, ranks, .. }
        | BoardGeometry::Lines { width, height, files, ranks, .. } => {
            if *width == 0 || *height == 0 {
                return Err("grid board with no squares".into());
            }
            if (!files.is_empty() && files.len() != *width as usize)
                || (!ranks.is_empty() && ranks.len() != *height as usize)
            {
                return Err(format!("grid {width}x{height} has {} file and {} rank names", files.len(), ranks.len()));
            }
        }
        BoardGeometry::Graph { points, edges } => {
            if let Some(e) = edges.iter().find(|e| e.a as usize >= points.len() || e.b as usize >= points.len()) {
                return Err(format!("edge {}-{} names a point beyond the {} points", e.a, e.b, points.len()));
            }
        }
    }
    for o in &info.options {
        let ok = match o.kind.as_str() {
            "bool" => o.default.is_boolean(),
            "int" => o.default.is_i64() || o.default.is_u64(),
            "choice" => o.default.as_str().is_some_and(|d| o.choices.iter().any(|c| c == d)),
            "string" => o.default.is_string(),
            other => return Err(format!("option '{}' has unknown kind '{other}'", o.name)),
        };
        if !ok {
            return Err(format!("option '{}' default {} is not a valid {}", o.name, o.default, o.kind));
        }
    }
    Ok(())
}

/// The cells a board has.
fn cells(board: &BoardGeometry) -> u32 {
    match board {
        BoardGeometry::Grid { width, height, .. } | BoardGeometry::Lines { width, height, .. } => width * height,
        BoardGeometry::Graph { points, .. } => points.len() as u32,
    }
}

/// What is wrong with an observation made for `viewer`, if anything: a
/// cell not on the board (a piece's, a blocked one's), an owner that is no
/// seat (a piece's, a hand's), the wrong viewer or player to move.
fn schema_problem(view: &ObservationView, viewer: Viewer, to_move: u32, cells: u32, players: u32) -> Option<String> {
    if view.viewer != ObservationView::viewer_name(viewer) {
        return Some(format!("it names its viewer '{}'", view.viewer));
    }
    if view.to_move != to_move {
        return Some(format!("it says player {} is to move, not {to_move}", view.to_move));
    }
    if let Some(p) = view.pieces.iter().find(|p| p.cell >= cells) {
        return Some(format!("a piece stands on cell {}, beyond the board's {cells}", p.cell));
    }
    if let Some(p) = view.pieces.iter().find(|p| p.owner >= players) {
        return Some(format!("a piece on cell {} belongs to player {}, of {players}", p.cell, p.owner));
    }
    if let Some(b) = view.blocked.iter().find(|b| b.cell >= cells) {
        return Some(format!("a blocked cell {} lies beyond the board's {cells}", b.cell));
    }
    if let Some(h) = view.hands.iter().find(|h| h.owner >= players) {
        return Some(format!("a hand of {} belongs to player {}, of {players}", h.kind, h.owner));
    }
    view.highlights.iter().find(|&&h| h >= cells).map(|h| format!("it highlights cell {h}, beyond the board's {cells}"))
}

/// Plays one seeded random game, checking the contract at every position;
/// returns its trace: a line a ply (the status, the position, the
/// spectator's observation and the move played as each viewer reads it),
/// for the determinism check.
fn play_checked(
    variant: &VariantHandle,
    start: &Game,
    cfg: &CheckConfig,
    seed: u64,
    report: &mut Report,
    times: &mut CallTimes,
) -> Vec<String> {
    let info = variant.info();
    let cells = cells(&info.board);
    let players = info.players.len() as u32;
    let hidden = info.capabilities.hidden_information;
    let cap = info.max_plies.unwrap_or(cfg.ply_cap);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut game = start.clone();
    let mut played = Vec::new();
    let mut trace = Vec::new();
    let mut buf = MoveBuf::new();
    let mut viewers: Vec<Viewer> = (0..players).map(Viewer::Player).collect();
    viewers.extend([Viewer::Spectator, Viewer::Referee]);
    loop {
        let here = game.position_text();
        if let Ok(mut at) = CHECKING_AT.lock() {
            at.clone_from(&here);
        }
        let status = times.time("status", || game.status());
        if status.outcome == Outcome::Faulted {
            report.check("no call panics", Err(format!("status in '{here}': the state faulted (a panic in status)")));
            return trace;
        }
        if let Err(e) = times.time("legal_moves", || game.legal_moves(&mut buf)) {
            report.check("no call panics", Err(format!("legal_moves in '{here}': {}", err(e))));
            return trace;
        }
        // The same question twice gets the same answer.
        let mut twice = MoveBuf::new();
        let _ = game.legal_moves(&mut twice);
        let status_again = game.status();
        // What each viewer sees here (the checks below that compare with
        // this position's observations take these).
        let observed = observations(&game, &viewers);
        let pure = if status_again != status {
            Err(format!("status asked twice in '{here}' gave {status:?} and then {status_again:?}"))
        } else if *twice != *buf {
            Err(format!("legal_moves asked twice in '{here}' gave two lists (or one order, then another)"))
        } else if observations(&game, &viewers) != observed {
            Err(format!("an observation made twice in '{here}' differs"))
        } else {
            Ok(())
        };
        report.check("asked twice, a call gives the same answer", pure);
        let ongoing = status.is_ongoing();
        report.check(
            "legal moves are non-empty exactly while the game is ongoing",
            if ongoing != buf.is_empty() {
                Ok(())
            } else {
                Err(format!("{} legal moves with status {:?} in '{here}'", buf.len(), status.outcome))
            },
        );
        report.check(
            "finished games have a consistent status",
            match status.outcome {
                Outcome::Win(p) if p >= players => Err(format!("winner {p} of {players} players in '{here}'")),
                Outcome::Win(_) | Outcome::Draw if status.reason.is_empty() => {
                    Err(format!("no reason given for the end in '{here}'"))
                }
                _ => Ok(()),
            },
        );
        // Everything observable comes back from the position text: the
        // player to move, every viewer's observation (but its highlights,
        // which may show the last move) and, while the game goes on, its
        // legal moves in their order and its status. A game that has ended
        // may read back as one that goes on, or ends otherwise, where its
        // end depends on how its last position was reached (a repetition,
        // a mate by a pawn drop), which no position text carries; and a
        // claimable draw may depend on the repetitions before it.
        let round_trip = variant.from_position(&here, &Map::new()).map_err(err).and_then(|g| {
            let mut again = MoveBuf::new();
            let _ = g.legal_moves(&mut again);
            let (back, status_back) = (g.position_text(), g.status());
            let unlit = |o: Option<crate::schema::Observation>| {
                o.map(|mut o| {
                    o.view.highlights.clear();
                    o
                })
            };
            let seen_back: Vec<_> = viewers.iter().map(|v| unlit(g.observe(*v).ok())).collect();
            let seen_here = observed.iter().map(|o| unlit(o.as_ref().ok().cloned()));
            let going = status.is_ongoing();
            if back != here {
                Err(format!("'{here}' reads back as '{back}'"))
            } else if g.to_move() != game.to_move() {
                Err(format!("read back from '{here}', player {} is to move, not {}", g.to_move(), game.to_move()))
            } else if going && *again != *buf {
                Err(format!("read back from '{here}', the legal moves (or their order) differ"))
            } else if going && (status_back.outcome != status.outcome || status_back.reason != status.reason) {
                Err(format!(
                    "read back from '{here}', the game stands {:?} ({}), not {:?} ({})",
                    status_back.outcome, status_back.reason, status.outcome, status.reason
                ))
            } else if let Some((v, _)) =
                viewers.iter().zip(seen_back.into_iter().zip(seen_here)).find(|(_, (a, b))| a != b)
            {
                Err(format!("read back from '{here}', {v} observes something else"))
            } else {
                Ok(())
            }
        });
        report.check("position text round-trips", round_trip);
        let to_move = game.to_move();
        for v in &viewers {
            match times.time("observe", || game.observe(*v)) {
                Err(e) if faulted(report, &format!("observe for {v}"), &here, &e) => return trace,
                Err(e) => report.check("observations follow the schema", Err(format!("{v} in '{here}': {}", err(e)))),
                Ok(o) => report.check(
                    "observations follow the schema",
                    schema_problem(&o.view, *v, to_move, cells, players)
                        .map_or(Ok(()), |why| Err(format!("{v}'s observation in '{here}': {why}"))),
                ),
            }
        }
        let observed_by =
            |viewer: Viewer| viewers.iter().position(|v| *v == viewer).and_then(|i| observed[i].as_ref().ok().cloned());
        let spectator = observed_by(Viewer::Spectator);
        let mut line = format!(
            "{:?} {} | {here} | {}",
            status.outcome,
            status.reason,
            spectator.as_ref().map(|o| serde_json::to_string(&o.view).unwrap_or_default()).unwrap_or_default()
        );
        // An ongoing game without moves was reported above; it cannot go on.
        if !ongoing || buf.is_empty() {
            trace.push(line);
            break;
        }
        let mover = game.to_move();
        let mut texts = HashSet::new();
        for &mv in buf.iter() {
            let text = match times.time("move_text", || game.move_text(mv, Viewer::Player(mover))) {
                Ok(t) => t,
                Err(e) if faulted(report, &format!("move_text of move {mv:#x}"), &here, &e) => return trace,
                Err(e) => {
                    report.check(
                        "move texts are unique and parse back",
                        Err(format!("move {mv:#x} in '{here}': {}", err(e))),
                    );
                    continue;
                }
            };
            let back = game.parse_move(&text);
            if let Err(e) = &back {
                if faulted(report, &format!("parse_move of '{text}'"), &here, e) {
                    return trace;
                }
            }
            if game.move_text(mv, Viewer::Player(mover)).as_ref() != Ok(&text) {
                report.check(
                    "asked twice, a call gives the same answer",
                    Err(format!("move {mv:#x} in '{here}' reads '{text}', then otherwise")),
                );
            }
            let problem = if !texts.insert(text.clone()) {
                Some(format!("two moves read '{text}' in '{here}'"))
            } else if back.as_ref().ok() != Some(&mv) {
                Some(format!("'{text}' parses as {back:?}, not move {mv:#x}, in '{here}'"))
            } else {
                None
            };
            report.check("move texts are unique and parse back", problem.map_or(Ok(()), Err));
            report.check(
                "move texts are safe in records",
                record_unsafe(&text).map_or(Ok(()), |why| Err(format!("'{text}' in '{here}' {why}"))),
            );
        }
        // Every reader of text takes hostile input without a panic or a
        // hang: move texts at a few positions of each game, position texts
        // at its start (each costs some megabytes' reading).
        if played.len() <= 1 || played.len() % 64 == 0 {
            let near = game.move_text(buf[0], Viewer::Player(mover)).unwrap_or_default();
            if !check_inputs(variant, &game, &near, &here, played.is_empty(), report) {
                return trace;
            }
        }
        // Junk is refused and changes nothing.
        let junk = (0..8).map(|_| rng.random::<u64>()).find(|j| !buf.contains(j)).unwrap_or(u64::MAX);
        let mut probe = game.clone();
        let refused = match probe.apply(junk) {
            Err(e) if e.kind == ErrorKind::IllegalMove => probe.position_text() == here,
            _ => false,
        };
        let junk_text = probe.parse_move("@@ not a move @@").is_err();
        report.check(
            "junk move ids and texts are refused",
            if refused && junk_text { Ok(()) } else { Err(format!("junk id {junk:#x} or text accepted in '{here}'")) },
        );
        let mv = buf[rng.random_range(0..buf.len())];
        // Every viewer's text of a move is safe in records (an export for
        // that viewer writes it).
        for v in viewers.iter().filter(|v| **v != Viewer::Player(mover)) {
            if let Ok(text) = game.move_text(mv, *v) {
                report.check(
                    "move texts are safe in records",
                    record_unsafe(&text).map_or(Ok(()), |why| Err(format!("{v}'s text '{text}' in '{here}' {why}"))),
                );
                line.push_str(&format!(" | {v}: {text}"));
            }
        }
        trace.push(line);
        // Hidden information: every world sampled for a player looks the
        // same to it and to spectators as the true state does, has the same
        // status, gives the mover the same moves, and reads each move the
        // same to that player; else the plugin leaks what the player must
        // not know (or keeps from it what it may).
        if hidden && info.capabilities.sample_world {
            for p in 0..players {
                check_worlds(&game, p, mv, &buf, &here, &mut rng, report, times);
            }
            if game.observe(Viewer::Player(mover)).ok() != game.observe(Viewer::Referee).ok() {
                report.hidden_positions += 1;
                let worlds: Vec<Option<String>> = (0..4)
                    .map(|_| game.sample_world(Viewer::Player(mover), rng.random()).ok().map(|w| w.position_text()))
                    .collect();
                if worlds.iter().all(|w| w.as_deref() == Some(here.as_str())) {
                    report.truth_positions += 1;
                }
            }
        }
        // A declared capability is honoured.
        if info.capabilities.evaluate {
            let value = game.evaluate(mover);
            report.check(
                "declared capabilities are honoured",
                match value {
                    Some(v) if (-1.0..=1.0).contains(&v) => Ok(()),
                    Some(v) => Err(format!("evaluate gave {v}, outside [-1, 1], in '{here}'")),
                    None => Err(format!("evaluate is declared but gave nothing in '{here}'")),
                },
            );
        }
        // Clones are independent: a clone that plays on, and is asked for
        // its moves, its status and what each viewer sees, leaves the
        // original as it was (no cache or counter shared between them).
        let mut probe = game.clone();
        if probe.apply(mv).is_ok() {
            // The clone's position is the next one of this game: a fault
            // there is this game's to report, where it happened.
            let there = probe.position_text();
            let mut after = MoveBuf::new();
            if let Err(e) = probe.legal_moves(&mut after) {
                if faulted(report, "legal_moves", &there, &e) {
                    return trace;
                }
            }
            let _ = (probe.status(), observations(&probe, &viewers));
            if let Some(&next) = after.first() {
                let _ = probe.apply(next);
            }
        }
        drop(probe);
        let mut now = MoveBuf::new();
        let _ = game.legal_moves(&mut now);
        report.check(
            "clones are independent",
            if game.position_text() != here || *now != *buf || game.status() != status {
                Err(format!("the game in '{here}' changed when a clone of it played on"))
            } else if observations(&game, &viewers) != observed {
                Err(format!("in '{here}' a viewer sees something else once a clone of the game played on"))
            } else {
                Ok(())
            },
        );
        let copy = game.clone();
        let before = observed_by(Viewer::Referee);
        if let Err(e) = times.time("apply", || game.apply(mv)) {
            if faulted(report, &format!("apply of move {mv:#x}"), &here, &e) {
                return trace;
            }
            report.check("every legal move applies", Err(format!("move {mv:#x} in '{here}': {}", err(e))));
            return trace;
        }
        report.check("every legal move applies", Ok(()));
        // A move that changes nothing but the player to move is a pass the
        // variant must declare (`Game::is_pass`).
        let unchanged = |mut a: crate::schema::Observation, mut b: crate::schema::Observation| {
            a.view.to_move = 0;
            b.view.to_move = 0;
            a == b
        };
        let silent = match (before, game.observe(Viewer::Referee).ok()) {
            (Some(a), Some(b)) => unchanged(a, b),
            _ => false,
        };
        let declared = || {
            let mut probe = copy.clone();
            probe.call_json("is_pass", &serde_json::json!({ "move": mv })).ok() == Some(serde_json::Value::Bool(true))
        };
        report.check(
            "a move changes something, or is a declared pass",
            if !silent || declared() {
                Ok(())
            } else {
                let text = copy.move_text(mv, Viewer::Referee).unwrap_or_default();
                Err(format!(
                    "'{text}' in '{here}' changes nothing the referee sees but the player to move, and is_pass does not call it a pass"
                ))
            },
        );
        report.check(
            "clones are independent",
            if copy.position_text() == here {
                Ok(())
            } else {
                Err(format!("a clone changed when the original played in '{here}'"))
            },
        );
        played.push(mv);
        if played.len() as u32 > cap {
            let declared = info.max_plies.is_some();
            report.check(
                "games end within the declared maximum length",
                if declared { Err(format!("still going after {cap} plies")) } else { Ok(()) },
            );
            return trace;
        }
    }
    report.check("games end within the declared maximum length", Ok(()));
    report.check("no call panics", Ok(()));
    trace
}

/// The hidden-information checks at one position for worlds sampled for
/// player `p` (see `play_checked`); `mv` is the move about to be played,
/// `moves` the true legal moves.
#[allow(clippy::too_many_arguments)]
fn check_worlds(
    game: &Game,
    p: u32,
    mv: u64,
    moves: &MoveBuf,
    here: &str,
    rng: &mut SmallRng,
    report: &mut Report,
    times: &mut CallTimes,
) {
    let viewer = Viewer::Player(p);
    let mover = game.to_move();
    let (mine, public) = (game.observe(viewer).ok(), game.observe(Viewer::Spectator).ok());
    let status = game.status();
    // Every legal move (the mover's) as this player reads it; for a player
    // not to move, the move about to be played and a few others.
    let probes: Vec<u64> = if p == mover {
        moves.to_vec()
    } else {
        let mut some: Vec<u64> = (0..3).map(|_| moves[rng.random_range(0..moves.len())]).collect();
        some.push(mv);
        some
    };
    report.check("move texts reveal nothing the viewer cannot see", Ok(()));
    for _ in 0..2 {
        let world = match times.time("sample_world", || game.sample_world(viewer, rng.random())) {
            Ok(w) => w,
            Err(e) if faulted(report, &format!("sample_world for player {p}"), here, &e) => return,
            Err(e) => {
                report.check("sampled worlds agree with the viewer's observation", Err(err(e)));
                return;
            }
        };
        report.check(
            "sampled worlds agree with the viewer's observation",
            if world.observe(viewer).ok() == mine {
                Ok(())
            } else {
                Err(format!("a world sampled for player {p} looks different to it in '{here}'"))
            },
        );
        report.check(
            "spectators see only public facts",
            if world.observe(Viewer::Spectator).ok() == public {
                Ok(())
            } else {
                Err(format!(
                    "in '{here}', a spectator sees something different in a world sampled for player {p}: its view depends on what is hidden"
                ))
            },
        );
        let theirs = world.status();
        report.check(
            "sampled worlds have the true status",
            if theirs.outcome == status.outcome && theirs.reason == status.reason && theirs.claimable == status.claimable {
                Ok(())
            } else {
                Err(format!(
                    "in '{here}' the game stands {:?} ({}; claimable: '{}'), in a world sampled for player {p} {:?} ({}; claimable: '{}')",
                    status.outcome, status.reason, status.claimable, theirs.outcome, theirs.reason, theirs.claimable
                ))
            },
        );
        let mut world_moves = MoveBuf::new();
        let _ = world.legal_moves(&mut world_moves);
        if p == mover {
            let (a, b) = (moves.to_vec(), world_moves.to_vec());
            let (mut sorted_a, mut sorted_b) = (a.clone(), b.clone());
            sorted_a.sort_unstable();
            sorted_b.sort_unstable();
            report.check(
                "the mover's legal moves do not depend on what it cannot see",
                if sorted_a != sorted_b {
                    Err(format!(
                        "in '{here}' player {p} has {} legal moves, in a world sampled for it {}: the move list leaks",
                        a.len(),
                        b.len()
                    ))
                } else if a != b {
                    Err(format!(
                        "in '{here}' player {p}'s legal moves come in another order in a world sampled for it: the order leaks"
                    ))
                } else {
                    Ok(())
                },
            );
        }
        for &m in &probes {
            let (Ok(truth), Ok(there)) = (game.move_text(m, viewer), world.move_text(m, viewer)) else { continue };
            if truth == there || !world_moves.contains(&m) {
                continue;
            }
            // Texts may differ where the move itself shows the player the
            // difference (a battle's outcome); not where it sees the same after.
            let (mut a, mut b) = (game.clone(), world.clone());
            let same_after =
                a.apply(m).is_ok() && b.apply(m).is_ok() && a.observe(viewer).ok() == b.observe(viewer).ok();
            report.check(
                "move texts reveal nothing the viewer cannot see",
                if same_after {
                    Err(format!(
                        "in '{here}' player {p} reads a move as '{truth}', in a world sampled for it as '{there}', and sees the same after it either way"
                    ))
                } else {
                    Ok(())
                },
            );
        }
    }
}
