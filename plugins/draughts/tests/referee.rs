//! The move generator against an independent referee: py-draughts
//! (`pip install py-draughts`) gives the legal moves of at least 200
//! positions per rule set, reached by seeded random games, and they must be
//! exactly ours. English checkers is not compared there (its AmericanBoard
//! disagrees with the published perft); the perft tests pin it instead.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::process::{Command, Stdio};

use arbiter_api::kit::{Game, Variant};
use arbiter_draughts::geometry::Geometry;
use arbiter_draughts::{Draughts, BRAZILIAN, INTERNATIONAL, RUSSIAN};
use serde_json::Map;

/// Our moves as "FROM-TO:CAPTURED,...", sorted.
fn ours<G: Geometry>(game: &arbiter_draughts::game::DraughtsGame<G>) -> Vec<String> {
    let mut out: Vec<String> = game
        .moves_with_text()
        .into_iter()
        .map(|(m, _)| {
            let sq = |b: u8| arbiter_draughts::pdn::square::<G>(b);
            let caps = arbiter_draughts::pdn::captured_squares::<G>(&m);
            format!("{}-{}:{}", sq(m.from), sq(m.to), caps.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
        })
        .collect();
    out.sort();
    out
}

fn compare<G: Geometry>(variant: &Draughts<G>, id: &str) {
    let mut positions = Vec::new();
    let mut rng = SmallRng::seed_from_u64(0x2545_F491_4F6C_DD1D);
    while positions.len() < 600 {
        let mut g = variant.new_game(&Map::new()).unwrap();
        for _ in 0..120 {
            let mut moves = Vec::new();
            g.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            positions.push((g.position_text(), ours(&g)));
            g.play(moves[rng.random_range(0..moves.len())]);
        }
    }
    let mut child = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/py/check_draughts.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    {
        let mut stdin = child.stdin.take().unwrap();
        for (fen, _) in &positions {
            writeln!(stdin, "{}", serde_json::json!({"variant": id, "fen": fen})).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "py-draughts failed (pip install py-draughts)");
    let theirs: Vec<Vec<String>> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(theirs.len(), positions.len());
    for ((fen, mine), theirs) in positions.iter().zip(&theirs) {
        assert_eq!(mine, theirs, "{id} {fen}");
    }
}

#[test]
fn international_agrees_with_py_draughts() {
    compare(&INTERNATIONAL, "international");
}

#[test]
fn brazilian_agrees_with_py_draughts() {
    compare(&BRAZILIAN, "brazilian");
}

#[test]
fn russian_agrees_with_py_draughts() {
    compare(&RUSSIAN, "russian");
}
