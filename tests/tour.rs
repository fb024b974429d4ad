//! The README's short tour, line by line: each command runs as written (in a
//! fresh folder with a fresh store, `~` a fresh home) and must do what its
//! comment says. Two liberties, both about the machine, not the command:
//! `target/release/` is read as the folder of the build under test, and
//! `arbiter serve` listens on a free port instead of 8080.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use arbiter_e2e::{arbiter_bin, profile_dir, temp_dir, workspace};

/// The tour's commands: continuation lines joined, comments cut, words
/// split as a shell would (double quotes group).
fn tour_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let start = readme.find("## A short tour").expect("the README has a tour");
    let block = &readme[start..];
    let block = &block[block.find("```sh\n").unwrap() + 6..];
    let block = &block[..block.find("```").unwrap()];
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(|l| l.split(" # ").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (mut words, mut word, mut quoted) = (Vec::new(), String::new(), false);
            for c in l.chars() {
                match c {
                    '"' => quoted = !quoted,
                    c if c.is_whitespace() && !quoted => {
                        if !word.is_empty() {
                            words.push(std::mem::take(&mut word));
                        }
                    }
                    c => word.push(c),
                }
            }
            if !word.is_empty() {
                words.push(word);
            }
            words
        })
        .collect()
}

struct Ran {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, home: &Path, words: &[String], stdin: &str) -> Ran {
    let mut child = Command::new(arbiter_bin())
        .args(&words[1..])
        .current_dir(dir)
        .env("HOME", home)
        .env_remove("ARBITER_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    Ran {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `arbiter serve` as written, but on a free port: the page must load.
fn serve_answers(dir: &Path, words: &[String]) {
    let mut child = Command::new(arbiter_bin())
        .args(&words[1..])
        .args(["--bind", "127.0.0.1:0"])
        .current_dir(dir)
        .env_remove("ARBITER_PLUGIN_PATH")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.split("http://").nth(1).unwrap().split('/').next().unwrap().to_string();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(stream, "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut page = String::new();
    let _ = stream.read_to_string(&mut page);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "serve: {}", page.lines().next().unwrap_or(""));
}

/// The PostgreSQL URL the README's tour shows, replaced by a test database.
const README_POSTGRES: &str = "postgres://u@db/arbiter";

#[test]
fn every_line_of_the_readme_tour_does_what_its_comment_says() {
    let dir = temp_dir("tour");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let release = format!("{}/", profile_dir().display());
    let commands = tour_commands();
    let mut postgres: Option<Option<String>> = None;
    assert!(commands.len() >= 18, "the tour has its commands: {commands:?}");
    for words in commands {
        let words: Vec<String> = words
            .iter()
            .map(|w| {
                w.replace("target/release/", &release)
                    .replace("~/", &format!("{}/", home.display()))
                    .replace("plugins/chess/", &format!("{}/plugins/chess/", workspace().display()))
            })
            .collect();
        let line = words.join(" ");
        assert_eq!(words[0], "arbiter", "{line}");
        // The PostgreSQL lines run against a fresh database of the test server.
        let words: Vec<String> = if line.contains(README_POSTGRES) {
            let Some(url) = postgres.get_or_insert_with(|| arbiter_e2e::postgres_database("tour")).clone() else {
                eprintln!("skipped without PostgreSQL: {line}");
                continue;
            };
            words.iter().map(|w| w.replace(README_POSTGRES, &url)).collect()
        } else {
            words
        };
        let args: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
        if args == ["serve"] {
            serve_answers(&dir, &words);
            continue;
        }
        let human = args.contains(&"human");
        let r = run(&dir, &home, &words, if human { "moves\nresign\n" } else { "" });
        assert!(r.ok, "{line}\n{}\n{}", r.stdout, r.stderr);
        for bad in ["plugin hung", "plugin crashed", "engine crashed", "time forfeit", "engine hung"] {
            assert!(!r.stdout.contains(bad), "{line}: {bad}\n{}", r.stdout);
        }
        let says = |text: &str| assert!(r.stdout.contains(text), "{line}: no '{text}' in\n{}", r.stdout);
        let games = r.stdout.lines().filter(|l| l.starts_with("Game ")).count();
        match args.as_slice() {
            ["list"] => ["chess", "bluffchess", "junqi", "tavreli", "international", "checkers"].map(says).len(),
            ["-v", "list"] => {
                assert!(r.stderr.contains("loaded "), "{line}: no log lines: {}", r.stderr);
                0
            }
            ["info", "chess"] => ["default time control", "FEN"].map(says).len(),
            ["perft", "chess", "--depth", "4", "--divide"] => {
                says("197281");
                let per_move = r
                    .stdout
                    .lines()
                    .filter(|l| l.split_once(": ").is_some_and(|(m, n)| !m.contains(' ') && n.parse::<u64>().is_ok()));
                assert_eq!(per_move.count(), 20, "{line}: 20 moves");
                0
            }
            ["perft", "shako", ..] => ["185938"].map(says).len(),
            ["perft", "chess", "--position", ..] => ["674624"].map(says).len(),
            // Chess960 start 0 (bbqnnrkr), its depth-4 count as python-chess gives it.
            ["perft", "chess", "--option", ..] => ["201143"].map(says).len(),
            ["perft", ..] => ["4865609"].map(says).len(),
            ["play", "chess", "--seed", "7"] => ["Result: "].map(says).len(),
            ["play", "chess", "--p1", "human", ..] => {
                ["Your move> ", "Nf3", "Result: 0-1 {resignation}"].map(says).len()
            }
            ["match", "chess", "--p1", "uci:stockfish,restart=on,Hash=16", ..] => {
                assert_eq!(games, 2, "{line}");
                let pgn = std::fs::read_to_string(dir.join("settings.pgn")).unwrap();
                assert_eq!(pgn.matches("Engine \"Stockfish ").count(), 2, "{line}: {pgn}");
                0
            }
            ["match", "chess", "--p1", "uci:stockfish", "--p2", "uci:stockfish", ..] => {
                let adjudicated = "1-0 {adjudication: Syzygy tablebases: White wins (the plugin's adjudication)}";
                assert_eq!(r.stdout.matches(adjudicated).count(), 2, "{line}\n{}", r.stdout);
                0
            }
            ["match", "crazyhouse", ..] => {
                assert_eq!(games, 2, "{line}");
                says("Score of uci:fairy-stockfish vs mcts:iterations=50: ");
                0
            }
            ["match", "chess", "--p1", "random", ..] => {
                assert_eq!(games, 4, "{line}");
                0
            }
            ["match", ..] => {
                assert_eq!(games, 4, "{line}");
                says("Score of uci:stockfish vs mcts:iterations=400: ");
                let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
                assert_eq!(pgn.matches("[Event ").count(), 4, "{line}: the PGN file");
                // Stockfish's moves carry its score, depth and time as cutechess-cli writes them.
                let search = pgn.split('{').skip(1).find(|c| {
                    let first = c.split_whitespace().next().unwrap_or("");
                    first.contains('/') && (first.starts_with('+') || first.starts_with('-'))
                });
                assert!(
                    search.is_some_and(|c| {
                        c.split_whitespace().nth(1).is_some_and(|t| t.trim_end_matches(',').ends_with('s'))
                            && c.contains(", n=")
                            && c.contains(", pv=\"")
                    }),
                    "{line}: {pgn}"
                );
                let store = arbiter::store::Store::open(&dir.join("arbiter.db")).unwrap();
                assert_eq!(store.games(None).unwrap().len(), 4, "{line}: the store");
                assert_eq!(store.tournament_list().unwrap().len(), 1, "{line}: a match is a tournament");
                0
            }
            ["--log", "engines.log", ..] => {
                assert_eq!(games, 2, "{line}");
                let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
                assert!(log.contains("] > protover 2") && log.contains("] < bestmove "), "{line}: the engine log");
                0
            }
            ["replay", "games.pgn"] => ["4 game(s) replayed: every move is legal"].map(says).len(),
            ["tournament", .., "--local-workers", "0"] => {
                ["games queued; workers on any machine play them"].map(says).len()
            }
            ["tournament", "--player", ..] => {
                // The stored match before it is tournament 1.
                says("Tournament 2 ");
                assert_eq!(games, 6, "{line}: three Swiss rounds of one pairing, two games each");
                0
            }
            ["tournament", "--resume", "2"] => ["Standings"].map(says).len(),
            ["results"] => ["Tournament 2 ", "6 games, finished", "Crosstable"].map(says).len(),
            ["store", "copy", ..] => ["tournaments and ", " games copied from "].map(says).len(),
            ["worker", ..] => ["games stored, 0 discarded"].map(says).len(),
            ["results", "--db", ..] => ["Standings", "Worker host "].map(says).len(),
            ["results", "2", "--out", ..] => {
                let finals = std::fs::read_to_string(dir.join("t2.epd")).unwrap();
                assert_eq!(finals.lines().count(), 6, "{line}");
                0
            }
            ["results", "2", ..] => {
                let pgn = std::fs::read_to_string(dir.join("t2.pgn")).unwrap();
                let jsonl = std::fs::read_to_string(dir.join("t2.jsonl")).unwrap();
                assert_eq!((pgn.matches("[Event ").count(), jsonl.lines().count()), (6, 6), "{line}");
                0
            }
            ["ratings", ..] => ["chess: 10 games in 5 pairs", " 1500.0 ", "first mover's advantage "].map(says).len(),
            ["sprt", ..] => ["H1 accepted after "].map(says).len(),
            ["tune", ..] => ["Pair 6 of 6 ", "Tuned after 6 of 6 pairs: c=", "c (float, start 0.7"].map(says).len(),
            ["check", "uci:stockfish"] => ["PASS  a mate in one is played", ", 0 failed"].map(says).len(),
            ["check", ..] => ["Verdict: "].map(says).len(),
            ["new-variant", ..] => {
                assert!(home.join("src/mygame/Cargo.toml").exists(), "{line}");
                0
            }
            _ => panic!("the tour has a line this test does not know: {line}"),
        };
    }
}
