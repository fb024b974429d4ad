//! Bluff chess: the rule scenarios of RULES.md §1, agreement with a simple
//! second implementation (tests/py/bluff_reference.py, on python-chess) over
//! random games, and the leak test for the hidden decision.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::process::{Command, Stdio};

use arbiter_api::kit::{Game, Outcome, Status, Variant, Viewer};
use arbiter_bluffchess::{BluffChess, BluffGame};
use serde_json::Map;

fn start() -> BluffGame {
    BluffChess.new_game(&Map::new()).unwrap()
}

fn play(g: &mut BluffGame, actions: &str) {
    for a in actions.split_whitespace() {
        let id = g.parse_move(a).unwrap_or_else(|e| panic!("{a}: {e} in {}", g.position_text()));
        g.play(id);
    }
}

/// The game's status as the reference prints it.
fn status_text(g: &BluffGame) -> String {
    let status = g.status();
    match status.outcome {
        Outcome::Ongoing => "ongoing".to_string(),
        Outcome::Win(p) => format!("win {p} {}", status.reason),
        _ => format!("draw {}", status.reason),
    }
}

fn texts(g: &BluffGame) -> Vec<String> {
    let mut ids = Vec::new();
    g.legal_moves(&mut ids);
    let mut t: Vec<String> = ids.into_iter().map(|m| g.move_text(m, Viewer::Referee)).collect();
    t.sort();
    t
}

#[test]
fn d5_after_e4_is_a_death_move_that_needs_a_decision() {
    let mut g = start();
    play(&mut g, "e4");
    assert_eq!(g.to_move(), 1, "1.e4 is no death move: Black moves next");
    play(&mut g, "d5");
    assert_eq!(g.to_move(), 1, "exd5 is legal, so Black decides next");
    let t = texts(&g);
    assert!(
        t.contains(&"d-".to_string()) && t.contains(&"de8".to_string()) && !t.contains(&"dd5".to_string()),
        "{t:?}"
    );
    assert_eq!(t.len(), 16, "stay, or any of the 15 other black pieces");
}

#[test]
fn capturing_a_stayed_alter_ego_wins_and_capturing_the_decoy_does_not() {
    let mut g = start();
    play(&mut g, "e4 d5 d- exd5");
    assert_eq!(g.status(), Status::win(0, "alter ego captured"));
    let mut g = start();
    play(&mut g, "e4 d5 dg8 exd5");
    assert!(g.status().is_ongoing(), "the alter ego had gone to the knight");
    // exd5 is a death move in its turn (Qxd5): White decides, then Black must
    // move the knight on g8.
    assert_eq!(g.to_move(), 0);
    play(&mut g, "d-");
    let t = texts(&g);
    assert!(t.iter().all(|m| m.starts_with('N')), "{t:?}");
}

#[test]
fn a_transfer_to_a_blocked_piece_passes_the_turn() {
    let mut g = start();
    // The rook on a8 cannot move: the turn passes, publicly.
    play(&mut g, "e4 d5 da8 Nc3");
    assert_eq!(texts(&g), vec!["pass"]);
    play(&mut g, "pass");
    assert_eq!(g.to_move(), 0);
    assert!(texts(&g).len() > 20, "White moves freely again");
}

#[test]
fn a_transfer_then_a_check_the_piece_cannot_meet_is_empty_mate() {
    let mut g = start();
    // Black's d5 is a death move; the alter ego goes to the rook on a8, and
    // Bb5+ is a check the rook cannot block or capture.
    play(&mut g, "e4 d5 da8 Bb5+");
    assert_eq!(g.status(), Status::win(0, "empty mate"));
}

#[test]
fn checkmate_and_stalemate_come_first() {
    let mut g = BluffChess.from_position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &Map::new()).unwrap();
    assert_eq!(g.status().outcome, Outcome::Draw);
    g = start();
    play(&mut g, "f3 e5 g4 Qh4#");
    assert_eq!(g.status(), Status::win(1, "checkmate"));
}

#[test]
fn the_hidden_decision_leaks_nothing_to_the_opponent_until_it_moves() {
    let mut stay = start();
    let mut transfer = start();
    play(&mut stay, "e4 d5");
    play(&mut transfer, "e4 d5");
    let (s, t) = (stay.parse_move("d-").unwrap(), transfer.parse_move("dg8").unwrap());
    for v in [Viewer::Player(0), Viewer::Spectator] {
        assert_eq!(stay.move_text(s, v), transfer.move_text(t, v));
        assert_eq!(stay.move_text(s, v), "d?");
    }
    stay.play(s);
    transfer.play(t);
    for v in [Viewer::Player(0), Viewer::Spectator] {
        assert_eq!(stay.observe(v), transfer.observe(v), "{v}");
    }
    assert_ne!(stay.observe(Viewer::Player(1)), transfer.observe(Viewer::Player(1)), "Black knows its own decision");
    let mut legal_s = Vec::new();
    let mut legal_t = Vec::new();
    stay.legal_moves(&mut legal_s);
    transfer.legal_moves(&mut legal_t);
    assert_eq!(legal_s, legal_t, "White's legal moves do not depend on Black's secret");
    // After White's move the decision is revealed.
    play(&mut stay, "Nc3");
    play(&mut transfer, "Nc3");
    assert_ne!(stay.observe(Viewer::Player(0)), transfer.observe(Viewer::Player(0)));
}

#[test]
fn sampled_worlds_draw_the_hidden_decision() {
    let mut g = start();
    play(&mut g, "e4 d5 dg8");
    // Black's decision is hidden from White and from spectators alike; Black
    // and the referee know it.
    for viewer in [Viewer::Player(0), Viewer::Spectator] {
        let mut alter_egos = std::collections::HashSet::new();
        for seed in 0..200 {
            let w = g.sample_world(viewer, seed);
            assert_eq!(w.observe(viewer), g.observe(viewer), "{viewer}");
            alter_egos.insert(w.position_text());
        }
        assert!(alter_egos.len() > 10, "{viewer}: stay and many transfer targets are drawn: {}", alter_egos.len());
    }
    for viewer in [Viewer::Player(1), Viewer::Referee] {
        assert_eq!(g.sample_world(viewer, 7).position_text(), g.position_text(), "{viewer} knows the decision");
    }
}

#[test]
fn the_plugin_agrees_with_the_reference_implementation_on_random_games() {
    let mut games = Vec::new();
    let mut plugin_steps = Vec::new();
    let mut rng = SmallRng::seed_from_u64(0x1234_5678_9abc_def1);
    for _ in 0..60 {
        let mut g = start();
        let mut actions = Vec::new();
        let mut steps = Vec::new();
        for _ in 0..200 {
            steps.push((texts(&g), status_text(&g)));
            let mut ids = Vec::new();
            g.legal_moves(&mut ids);
            if ids.is_empty() {
                break;
            }
            let mv = ids[rng.random_range(0..ids.len())];
            actions.push(g.move_text(mv, Viewer::Referee));
            g.play(mv);
        }
        if steps.len() == actions.len() {
            steps.push((texts(&g), status_text(&g)));
        }
        games.push(actions);
        plugin_steps.push(steps);
    }
    let mut child = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/py/bluff_reference.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    {
        let mut stdin = child.stdin.take().unwrap();
        for a in &games {
            writeln!(stdin, "{}", serde_json::to_string(a).unwrap()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the reference failed (pip install chess)");
    let reference: Vec<Vec<(Vec<String>, String)>> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut steps = 0;
    for (n, (ours, theirs)) in plugin_steps.iter().zip(&reference).enumerate() {
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            assert_eq!(a, b, "game {n}, step {i}, after {:?}", &games[n][..i]);
            steps += 1;
        }
    }
    assert!(steps > 3000, "only {steps} steps compared");
    // RULES.md §7.3.2: after a checking death move the checker decides
    // first, and only then is the empty mate found. The random games pass
    // through that ordering from many mid-game positions.
    let decided_then_empty_mate = plugin_steps
        .iter()
        .flat_map(|g| g.windows(2))
        .filter(|w| w[0].0.iter().all(|t| t.starts_with('d')) && w[1].1.contains("empty mate"))
        .count();
    assert!(decided_then_empty_mate >= 3, "only {decided_then_empty_mate} empty mates right after a decision");
}

#[test]
fn the_ambiguity_options_change_what_they_name() {
    let opts = |k: &str, v: serde_json::Value| serde_json::json!({ k: v }).as_object().unwrap().clone();
    let mut g = BluffChess.new_game(&opts("transfer_to_king", false.into())).unwrap();
    play(&mut g, "e4 d5");
    let t = texts(&g);
    assert!(!t.contains(&"de8".to_string()) && t.len() == 15, "{t:?}");
    // Death test: the knight on e5 is pinned by the rook on e1, so Nxd3 is
    // not legal; only the pseudo-legal reading makes d2-d3 a death move.
    let fen = "4k3/8/8/4n3/8/8/3P4/4R1K1 w - - 0 1";
    let mut legal = BluffChess.from_position(fen, &Map::new()).unwrap();
    let mut pseudo = BluffChess.from_position(fen, &opts("death_test", "pseudo-legal".into())).unwrap();
    play(&mut legal, "d3");
    play(&mut pseudo, "d3");
    assert_eq!(legal.to_move(), 1, "no decision: Black moves");
    assert_eq!(pseudo.to_move(), 0, "White decides first");
}
