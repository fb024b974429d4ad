//! `arbiter check uci:CMD` / `hub:CMD`: an engine taken through its
//! protocol step by step, as fastchess's `-compliance` does, each step a
//! [`CheckResult`]: the handshake and its option lines, readiness, searches
//! under each kind of limit (move time, clocks, depth, nodes, infinite then
//! `stop`) from the start and from a set-up position with moves, every
//! `bestmove`/`done` and the first move of every `pv` legal by the variant's
//! plugin, the score of a forced mate from the engine's own side, and `quit`.
//! A step that cannot be reached (the engine died) fails with the reason.

use arbiter_api::host::{Game, VariantHandle};
use arbiter_api::Outcome;

use super::CheckResult;
use crate::players::EngineSettings;
use arbiter_core::engine::EngineProcess;
use arbiter_core::process::{deadline_after, ProcessError};

/// How long a handshake or readiness answer may take, unless `timeout=` says.
const HANDSHAKE_MS: u64 = 10_000;

/// A move-time search's limit, and the overrun tolerated before it fails.
const MOVETIME_MS: u64 = 200;
const OVERRUN_MS: u64 = 500;

/// A chess position to search after moves (`position fen ... moves ...`).
const CHESS_MIDDLEGAME: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

/// A mate in one for the side to move (Rd8#).
const CHESS_MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";

/// The steps so far, and the engine while it is still usable.
struct Run {
    results: Vec<CheckResult>,
    engine: Option<EngineProcess>,
}

impl Run {
    fn record(&mut self, name: impl Into<String>, failure: Option<String>) {
        self.results.push(CheckResult { name: name.into(), failure });
    }

    /// Runs one step on the engine; a step after the engine died fails as such.
    fn step(&mut self, name: &str, f: impl FnOnce(&mut EngineProcess) -> Result<(), String>) {
        let failure = match self.engine.as_mut() {
            None => Some("not reached: the engine failed earlier".to_string()),
            Some(p) => f(p).err(),
        };
        if failure.as_deref().is_some_and(|f| f.contains("exited")) {
            self.engine = None;
        }
        self.record(name, failure);
    }

    /// The variant's start position, or a failed step saying why not.
    fn start_position(&mut self, variant: &VariantHandle) -> Option<Game> {
        match variant.new_game(&serde_json::Map::new()) {
            Ok(g) => Some(g),
            Err(e) => {
                self.record("the variant gives a start position", Some(e.to_string()));
                None
            }
        }
    }

    /// `quit` ends the engine within a second.
    fn quit(&mut self, line: &str) {
        self.step(&format!("'{line}' ends the engine within 1 s"), |p| {
            p.send(line).map_err(|e| e.to_string())?;
            loop {
                match p.recv(Some(deadline_after(1000))) {
                    Ok(_) => continue,
                    Err(ProcessError::Exited { .. }) => return Ok(()),
                    Err(ProcessError::Timeout) => return Err("still running 1 s after it".into()),
                    Err(e) => return Err(e.to_string()),
                }
            }
        });
    }
}

/// Takes a UCI engine through the protocol on `variant` (chess).
pub fn check_uci(settings: &EngineSettings, variant: &VariantHandle) -> Vec<CheckResult> {
    let mut run = start(settings);
    let handshake_ms = settings.handshake_ms(HANDSHAKE_MS);
    let mut options = Vec::new();
    run.step("'uci' is answered with 'id name' and 'uciok'", |p| {
        p.send("uci").map_err(|e| e.to_string())?;
        let mut name = None;
        p.recv_until(Some(deadline_after(handshake_ms)), |l| {
            if let Some(n) = l.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            } else if let Some(o) = l.strip_prefix("option ") {
                options.push(o.trim().to_string());
            }
            (l.trim() == "uciok").then_some(())
        })
        .map_err(|e| waited(e, "uciok", handshake_ms))?;
        name.map(|_| ()).ok_or_else(|| "no 'id name' line before 'uciok'".to_string())
    });
    if run.engine.is_some() {
        let bad: Vec<String> =
            options.iter().filter_map(|o| option_problem(o).map(|why| format!("'{o}': {why}"))).collect();
        run.record(
            format!("its {} option lines are well formed", options.len()),
            (!bad.is_empty()).then(|| bad.join("; ")),
        );
    }
    for (name, lines) in [
        ("'isready' is answered with 'readyok'", &["isready"][..]),
        ("'ucinewgame' then 'isready': 'readyok'", &["ucinewgame", "isready"]),
    ] {
        run.step(name, |p| ask(p, lines, "readyok", handshake_ms));
    }
    let Some(start) = run.start_position(variant) else { return run.results };
    let middlegame = variant.from_position(CHESS_MIDDLEGAME, &serde_json::Map::new()).ok();
    let (after, moves) = match middlegame.as_ref() {
        Some(g) => play_first(g, 2, |g, mv| crate::players::coordinate_text(g, mv).unwrap_or_default()),
        None => {
            run.record(
                "the variant reads a chess position",
                Some(format!("{} refused {CHESS_MIDDLEGAME}", variant.info().id)),
            );
            return run.results;
        }
    };
    let set_up = format!("position fen {CHESS_MIDDLEGAME} moves {}", moves.join(" "));
    let searches: [(&str, String, &Game, String, u64); 5] = [
        (
            "from the start, 'go movetime 200'",
            "position startpos".into(),
            &start,
            format!("go movetime {MOVETIME_MS}"),
            MOVETIME_MS + OVERRUN_MS,
        ),
        (
            "after 'position fen ... moves ...', 'go wtime 1000 btime 1000 winc 100 binc 100'",
            set_up.clone(),
            &after,
            "go wtime 1000 btime 1000 winc 100 binc 100".into(),
            1100 + OVERRUN_MS,
        ),
        ("'go depth 4', with info lines giving depth and score", set_up.clone(), &after, "go depth 4".into(), 30_000),
        ("'go nodes 1000'", set_up.clone(), &after, "go nodes 1000".into(), 30_000),
        ("'go infinite', then 'stop' after 100 ms", set_up.clone(), &after, "go infinite".into(), 1000),
    ];
    for (name, position, game, go, limit_ms) in searches {
        run.step(&format!("{name}: a legal 'bestmove' in time"), |p| {
            let found = uci_search(p, &position, &go, limit_ms)?;
            check_found(game, &found, |m| m.to_string())?;
            if go.contains("depth") && !found.infos.iter().any(|i| i.depth.is_some() && i.score.is_some()) {
                return Err("no 'info' line with both depth and score".into());
            }
            Ok(())
        });
    }
    if let Ok(mate) = variant.from_position(CHESS_MATE_IN_ONE, &serde_json::Map::new()) {
        run.step("a mate in one is played and scored 'mate 1' (the mover's view)", |p| {
            let found = uci_search(p, &format!("position fen {CHESS_MATE_IN_ONE}"), "go depth 3", 30_000)?;
            let mv = check_found(&mate, &found, |m| m.to_string())?;
            let mut g = mate.clone();
            g.apply(mv).map_err(|e| e.to_string())?;
            if g.status().outcome != Outcome::Win(0) {
                return Err(format!("'{}' does not mate", found.best));
            }
            match found.infos.iter().rev().find_map(|i| i.score.clone()) {
                Some(s) if s == "mate 1" => Ok(()),
                Some(s) => Err(format!("its last score is '{s}', not 'mate 1'")),
                None => Err("no score reported".into()),
            }
        });
    }
    run.quit("quit");
    run.results
}

/// Takes a Hub engine through the protocol on `variant` (a draughts
/// variant with the plugin's `hub_position` and `hub_move` calls).
pub fn check_hub(settings: &EngineSettings, variant: &VariantHandle) -> Vec<CheckResult> {
    let mut run = start(settings);
    let handshake_ms = settings.handshake_ms(30_000);
    run.step("'hub' is answered with 'id name=...' and 'wait'", |p| {
        p.send("hub").map_err(|e| e.to_string())?;
        let mut named = false;
        p.recv_until(Some(deadline_after(handshake_ms)), |l| {
            named |= l.starts_with("id ") && l.contains("name=");
            (l.trim() == "wait").then_some(())
        })
        .map_err(|e| waited(e, "wait", handshake_ms))?;
        named.then_some(()).ok_or_else(|| "no 'id name=...' line before 'wait'".to_string())
    });
    run.step("'init' is answered with 'ready'", |p| ask(p, &["init"], "ready", handshake_ms));
    let Some(start) = run.start_position(variant) else { return run.results };
    let hub_text = |g: &Game, method: &str, args: serde_json::Value| -> Option<String> {
        let mut g = g.clone();
        g.call_json(method, &args).ok()?.as_str().map(String::from)
    };
    let Some(start_pos) = hub_text(&start, "hub_position", serde_json::json!({})) else {
        run.record("the variant has Hub positions (hub_position)", Some(format!("{} has none", variant.info().id)));
        return run.results;
    };
    let to_hub = |g: &Game, mv: u64| hub_text(g, "hub_move", serde_json::json!({ "move": mv })).unwrap_or_default();
    let (after, moves) = play_first(&start, 2, to_hub);
    let with_moves = format!("pos pos={start_pos} moves=\"{}\"", moves.join(" "));
    let searches: [(&str, String, &Game, &str, u64); 4] = [
        (
            "from the start, 'level move-time=0.2'",
            format!("pos pos={start_pos}"),
            &start,
            "level move-time=0.2",
            MOVETIME_MS + OVERRUN_MS,
        ),
        (
            "after 'pos ... moves=...', 'level time=1 inc=0.1'",
            with_moves.clone(),
            &after,
            "level time=1 inc=0.1",
            1100 + OVERRUN_MS,
        ),
        ("'level depth=4'", with_moves.clone(), &after, "level depth=4", 30_000),
        ("'level infinite', then 'stop' after 100 ms", with_moves.clone(), &after, "level infinite", 1000),
    ];
    run.step("'new-game' is accepted", |p| p.send("new-game").map_err(|e| e.to_string()));
    for (name, pos, game, level, limit_ms) in searches {
        run.step(&format!("{name}: a legal 'done move=...' in time"), |p| {
            let found = hub_search(p, &pos, level, limit_ms)?;
            check_found(game, &found, |m| to_hub(game, m)).map(|_| ())
        });
    }
    run.step("'ping' is answered with 'pong'", |p| ask(p, &["ping"], "pong", handshake_ms));
    run.quit("quit");
    run.results
}

/// Starts the engine, as the first step.
fn start(settings: &EngineSettings) -> Run {
    let mut run = Run { results: Vec::new(), engine: None };
    match settings.start() {
        Ok(p) => {
            run.engine = Some(p);
            run.record(format!("'{}' starts", settings.command), None);
        }
        Err(e) => run.record(format!("'{}' starts", settings.command), Some(e.to_string())),
    }
    run
}

/// Sends `lines`, then waits up to `ms` for the line `expected`.
fn ask(p: &mut EngineProcess, lines: &[&str], expected: &str, ms: u64) -> Result<(), String> {
    for l in lines {
        p.send(l).map_err(|e| e.to_string())?;
    }
    p.recv_until(Some(deadline_after(ms)), |l| (l.trim() == expected).then_some(()))
        .map_err(|e| waited(e, expected, ms))
}

/// A wait for `expected` that failed, in words.
fn waited(e: ProcessError, expected: &str, ms: u64) -> String {
    match e {
        ProcessError::Timeout => format!("no '{expected}' within {} s", arbiter_core::clock::fmt_secs(ms)),
        e => e.to_string(),
    }
}

/// What a search said: its move and its info lines.
struct Found {
    best: String,
    infos: Vec<Info>,
}

/// One `info` line's depth, score (`cp 31`, `mate 1`) and first pv move.
struct Info {
    depth: Option<u32>,
    score: Option<String>,
    pv_first: Option<String>,
}

/// Sends a position and a `go`, reads to `bestmove` within `limit_ms`
/// (`go infinite` is told `stop` after 100 ms); a malformed info line fails.
fn uci_search(p: &mut EngineProcess, position: &str, go: &str, limit_ms: u64) -> Result<Found, String> {
    p.send(position).and_then(|_| p.send(go)).map_err(|e| e.to_string())?;
    let (mut infos, mut malformed) = (Vec::new(), None);
    let mut read = |l: &str| {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.first() {
            Some(&"info") => {
                match parse_info(&w) {
                    Ok(i) => infos.push(i),
                    Err(why) => {
                        malformed.get_or_insert(format!("'{l}': {why}"));
                    }
                }
                None
            }
            Some(&"bestmove") => Some(w.get(1).unwrap_or(&"").to_string()),
            _ => None,
        }
    };
    let best = answer(p, go == "go infinite", limit_ms, "bestmove", &mut read)?;
    if let Some(why) = malformed {
        return Err(why);
    }
    Ok(Found { best, infos })
}

/// Reads an `info` line's fields; a number field without its number, or a
/// score that is neither `cp N` nor `mate N`, is an error.
fn parse_info(w: &[&str]) -> Result<Info, String> {
    let mut info = Info { depth: None, score: None, pv_first: None };
    let number = |i: usize| w.get(i + 1).and_then(|n| n.parse::<i64>().ok());
    let mut i = 1;
    while i < w.len() {
        match w[i] {
            "string" => break,
            "depth" | "seldepth" | "nodes" | "time" | "nps" | "multipv" | "hashfull" | "tbhits" | "currmovenumber" => {
                let n = number(i).ok_or_else(|| format!("'{}' without a number", w[i]))?;
                if w[i] == "depth" {
                    info.depth = Some(n as u32);
                }
                i += 2;
            }
            "score" => {
                let kind = w.get(i + 1).copied().unwrap_or("");
                let n = number(i + 1);
                match (kind, n) {
                    ("cp" | "mate", Some(n)) => info.score = Some(format!("{kind} {n}")),
                    _ => return Err("a score that is not 'cp N' or 'mate N'".into()),
                }
                i += 3;
                while matches!(w.get(i), Some(&"lowerbound") | Some(&"upperbound")) {
                    i += 1;
                }
            }
            "pv" => {
                info.pv_first = w.get(i + 1).map(|m| m.to_string());
                break;
            }
            _ => i += 1,
        }
    }
    Ok(info)
}

/// Waits up to `limit_ms` for the search's `expected` answer, which `read`
/// gives; an `infinite` search must say nothing for 100 ms and is then told
/// `stop`.
fn answer(
    p: &mut EngineProcess,
    infinite: bool,
    limit_ms: u64,
    expected: &str,
    read: &mut impl FnMut(&str) -> Option<String>,
) -> Result<String, String> {
    if infinite {
        match p.recv_until(Some(deadline_after(100)), &mut *read) {
            Ok(_) => return Err(format!("'{expected}' before 'stop' on an infinite search")),
            Err(ProcessError::Timeout) => {}
            Err(e) => return Err(e.to_string()),
        }
        p.send("stop").map_err(|e| e.to_string())?;
    }
    p.recv_until(Some(deadline_after(limit_ms)), read).map_err(|e| waited(e, expected, limit_ms))
}

/// Sends a `pos`, a `level` and `go think`, reads to `done` within
/// `limit_ms` (`level infinite` is told `stop` after 100 ms).
fn hub_search(p: &mut EngineProcess, pos: &str, level: &str, limit_ms: u64) -> Result<Found, String> {
    for line in [pos, level, "go think"] {
        p.send(line).map_err(|e| e.to_string())?;
    }
    let mut read = |l: &str| {
        l.starts_with("done").then(|| {
            let at = l.find("move=").map(|i| i + 5).unwrap_or(l.len());
            l[at..].split_whitespace().next().unwrap_or("").to_string()
        })
    };
    let best = answer(p, level == "level infinite", limit_ms, "done", &mut read)?;
    Ok(Found { best, infos: Vec::new() })
}

/// The engine's move is legal in `game`, and so is the first move of
/// each pv it gave; `text` writes a legal move as the engine should.
fn check_found(game: &Game, found: &Found, text: impl Fn(u64) -> String) -> Result<u64, String> {
    let legal = game.legal_move_list().map_err(|e| e.to_string())?;
    let known: Vec<String> = legal.iter().map(|&m| text(m)).collect();
    let find = |t: &str| game.parse_move(t).ok().filter(|m| legal.contains(m));
    let mv = find(&found.best)
        .ok_or_else(|| format!("'{}' is not a legal move here (legal: {})", found.best, known.join(" ")))?;
    if let Some(pv) = found.infos.iter().filter_map(|i| i.pv_first.as_deref()).find(|m| find(m).is_none()) {
        return Err(format!("a pv starts with '{pv}', not a legal move here"));
    }
    Ok(mv)
}

/// The position after the first legal move is played `n` times, and those
/// moves as `text` writes them for the engine.
fn play_first(game: &Game, n: usize, text: impl Fn(&Game, u64) -> String) -> (Game, Vec<String>) {
    let mut g = game.clone();
    let mut texts = Vec::new();
    for _ in 0..n {
        let Some(mv) = g.legal_move_list().ok().and_then(|l| l.first().copied()) else { break };
        let said = text(&g, mv);
        if g.apply(mv).is_err() {
            break;
        }
        texts.push(said);
    }
    (g, texts)
}

/// What is wrong with one `option` line (after `option `), if anything.
fn option_problem(line: &str) -> Option<String> {
    let rest = line.strip_prefix("name ")?;
    let Some((_, after)) = rest.split_once(" type ") else { return Some("no 'type'".into()) };
    let mut w = after.split_whitespace();
    let kind = w.next().unwrap_or("");
    let field = |key: &str| {
        let words: Vec<&str> = after.split_whitespace().collect();
        words.iter().position(|x| *x == key).and_then(|i| words.get(i + 1)).map(|s| s.to_string())
    };
    match kind {
        "button" => None,
        "string" => None,
        "check" => match field("default").as_deref() {
            Some("true" | "false") => None,
            d => Some(format!("a check's default must be true or false, not {d:?}")),
        },
        "spin" => {
            let n = |key: &str| field(key).and_then(|v| v.parse::<i64>().ok());
            match (n("default"), n("min"), n("max")) {
                (Some(d), Some(lo), Some(hi)) if lo <= d && d <= hi => None,
                (Some(_), Some(_), Some(_)) => Some("default outside min..max".into()),
                _ => Some("a spin needs numeric default, min and max".into()),
            }
        }
        "combo" => {
            let vars: Vec<&str> =
                after.split(" var ").skip(1).map(|v| v.split_whitespace().next().unwrap_or("")).collect();
            match field("default") {
                _ if vars.is_empty() => Some("a combo without 'var' values".into()),
                Some(d) if vars.contains(&d.as_str()) => None,
                d => Some(format!("a combo's default {d:?} is none of its vars")),
            }
        }
        other => Some(format!("unknown type '{other}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lines_are_judged_by_their_type() {
        assert_eq!(option_problem("name Hash type spin default 16 min 1 max 33554432"), None);
        assert_eq!(option_problem("name Ponder type check default false"), None);
        assert_eq!(option_problem("name Clear Hash type button"), None);
        assert_eq!(option_problem("name Style type combo default Normal var Solid var Normal var Risky"), None);
        assert_eq!(option_problem("name EvalFile type string default <empty>"), None);
        assert!(option_problem("name Hash type spin default 16").unwrap().contains("min"));
        assert!(option_problem("name Hash type spin default 0 min 1 max 8").unwrap().contains("outside"));
        assert!(option_problem("name X type check default maybe").unwrap().contains("true or false"));
        assert!(option_problem("name X type combo default Z var A var B").unwrap().contains("none of its vars"));
        assert!(option_problem("name X type slider").unwrap().contains("unknown type"));
        assert!(option_problem("name X default 3").unwrap().contains("no 'type'"));
    }

    #[test]
    fn info_lines_are_read_field_by_field() {
        let w = |s: &'static str| s.split_whitespace().collect::<Vec<_>>();
        let i = parse_info(&w("info depth 12 seldepth 15 score cp -31 lowerbound nodes 500 pv e2e4 e7e5")).unwrap();
        assert_eq!((i.depth, i.score.as_deref(), i.pv_first.as_deref()), (Some(12), Some("cp -31"), Some("e2e4")));
        assert_eq!(parse_info(&w("info string depth is whatever")).unwrap().depth, None);
        assert!(parse_info(&w("info depth x")).is_err());
        assert!(parse_info(&w("info score 31")).is_err());
    }
}
