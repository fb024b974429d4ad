//! Junqi: scenario tests for movement, camps, headquarters, deployment and
//! the endings; a deliberately simple second move generator that must agree
//! with the plugin on random games; leak tests; sampled worlds.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

use arbiter_api::kit::{Game, Outcome, Status, Variant, Viewer};
use arbiter_junqi::board;
use arbiter_junqi::game::{JunqiGame, Move, Side};
use arbiter_junqi::Junqi;
use serde_json::{json, Map};

/// Builds a movement-phase position from `(cell, piece)` pairs such as ("G0", "r9").
fn position(side: &str, pieces: &[(&str, &str)]) -> JunqiGame {
    let mut rows = vec![vec![".".to_string(); 5]; 12];
    for (cell, p) in pieces {
        let c = board::parse(cell).unwrap();
        rows[c / 5][c % 5] = format!("{p}fff");
    }
    let rows: Vec<String> = rows.iter().map(|r| r.join(",")).collect();
    let text = format!("move {side} quiet=0 revealed=- winner=- last=- | {} | dead=-", rows.join("/"));
    Junqi.from_position(&text, &Map::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn targets(g: &JunqiGame, from: &str) -> BTreeSet<String> {
    let f = board::parse(from).unwrap();
    let mut ids = Vec::new();
    g.legal_moves(&mut ids);
    ids.into_iter()
        .filter_map(|m| match Move::from_id(m) {
            Some(Move::Step { from, to }) if from == f => Some(board::name(to)),
            _ => None,
        })
        .collect()
}

fn set(cells: &[&str]) -> BTreeSet<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

// Both flags somewhere so the game is not over; Red to move.
const FLAGS: [(&str, &str); 2] = [("L1", "rF"), ("A1", "bF")];

#[test]
fn a_piece_runs_straight_along_the_rail_through_empty_stations_and_stops_at_the_first_piece() {
    let mut p = FLAGS.to_vec();
    p.extend([("K0", "r5"), ("G0", "b4")]);
    let g = position("r", &p);
    // K0 is the corner of row K's line and column 0's line: straight runs
    // only (up column 0 to the enemy on G0, along row K), plus road steps
    // (L0, and J1 across the camp's diagonal).
    assert_eq!(targets(&g, "K0"), set(&["H0", "I0", "J0", "G0", "K1", "K2", "K3", "K4", "L0", "J1"]));
}

#[test]
fn an_engineer_turns_corners_on_the_rail_and_attacks_along_its_path() {
    let mut p = FLAGS.to_vec();
    p.extend([("K0", "r1"), ("G2", "b4"), ("K3", "r5")]);
    let g = position("r", &p);
    let t = targets(&g, "K0");
    // Round the corner onto row G up to the enemy on G2 (attackable), all
    // the way round the loop (B0, B4, down column 4 to K4 and G3), but never
    // onto or through the own piece on K3.
    for cell in ["G0", "G1", "G2", "F0", "B0", "B4", "K1", "K2", "K4", "G3", "L0"] {
        assert!(t.contains(cell), "{cell} missing from {t:?}");
    }
    assert!(!t.contains("K3"), "{t:?}");
}

#[test]
fn posts_camps_and_headquarters_move_by_road_only() {
    let mut p = FLAGS.to_vec();
    p.extend([("H1", "r5"), ("I1", "r5"), ("L3", "r6"), ("G4", "r7")]);
    let g = position("r", &p);
    // A camp (H1) steps to all eight neighbours that are free.
    assert_eq!(targets(&g, "H1"), set(&["G0", "G1", "G2", "H0", "H2", "I0", "I2"]));
    // A piece in its own headquarters never moves.
    assert!(targets(&g, "L3").is_empty());
}

#[test]
fn a_piece_in_a_camp_cannot_be_attacked_and_an_occupied_camp_cannot_be_entered() {
    let mut p = FLAGS.to_vec();
    p.extend([("G1", "r1"), ("H1", "b9"), ("I2", "r5"), ("H3", "r4")]);
    let g = position("r", &p);
    assert!(!targets(&g, "G1").contains("H1"), "the enemy marshal in the camp is safe");
    assert!(!targets(&g, "I2").contains("H1"));
    assert!(targets(&g, "G1").contains("G0"));
}

#[test]
fn an_enemy_headquarters_can_be_attacked_and_the_winner_stays_frozen_there() {
    let mut g = position("r", &[("L1", "rF"), ("A1", "bF"), ("B1", "r5"), ("A3", "b6")]);
    let id = g.parse_move("B1xA1").unwrap();
    g.play(id);
    assert_eq!(g.status(), Status::win(0, "flag captured"));
    let mut g = position("r", &[("L1", "rF"), ("A1", "bF"), ("B3", "r6"), ("A3", "b5"), ("K0", "b5")]);
    g.play(g.parse_move("B3xA3").unwrap());
    assert_eq!(g.piece(board::parse("A3").unwrap()).unwrap().owner, Side::Red);
    g.play(g.parse_move("K0-J0").unwrap());
    assert!(targets(&g, "A3").is_empty(), "a piece in a headquarters never moves again");
}

#[test]
fn combat_verdicts_reach_the_board() {
    // Codes: 9 = marshal (40) down to 1 = engineer (32); L mine, B bomb.
    for (att, def, winner_on_target) in [
        ("r6", "b5", Some(Side::Red)),
        ("r5", "b6", Some(Side::Blue)),
        ("r5", "b5", None),
        ("r1", "bL", Some(Side::Red)),
        ("r5", "bL", Some(Side::Blue)),
        ("rB", "b9", None),
    ] {
        let mut g = position("r", &[("L1", "rF"), ("A1", "bF"), ("G0", att), ("F0", def)]);
        g.play(g.parse_move("G0xF0").unwrap());
        let on = g.piece(board::parse("F0").unwrap()).map(|p| p.owner);
        assert_eq!(on, winner_on_target, "{att} x {def}");
        assert!(g.piece(board::parse("G0").unwrap()).is_none());
    }
}

#[test]
fn the_marshals_death_reveals_its_flag_to_everyone() {
    let mut g = position("r", &[("L1", "rF"), ("A1", "bF"), ("G0", "rB"), ("F0", "b9")]);
    let before = g.observe(Viewer::Player(0));
    assert!(!before.text.contains("bF"));
    g.play(g.parse_move("G0xF0").unwrap());
    for v in [Viewer::Player(0), Viewer::Spectator] {
        let obs = g.observe(v);
        assert!(obs.view.pieces.iter().any(|p| p.cell == 1 && p.kind == "flag"), "{v}");
    }
}

#[test]
fn a_side_without_a_legal_move_loses_and_seventy_quiet_plies_draw() {
    // Red has only its flag and a mine: no move.
    let g = position("r", &[("L1", "rF"), ("K0", "rL"), ("A1", "bF"), ("F0", "b5")]);
    assert_eq!(g.status(), Status::win(1, "no legal move"));
    let opts = json!({"quiet_plies": 4}).as_object().unwrap().clone();
    let mut g = Junqi
        .from_position(&position("r", &[("L1", "rF"), ("K0", "r5"), ("A1", "bF"), ("B0", "b5")]).position_text(), &opts)
        .unwrap();
    for m in ["K0-K1", "B0-B1", "K1-K0", "B1-B0"] {
        assert!(g.status().is_ongoing());
        g.play(g.parse_move(m).unwrap());
    }
    assert_eq!(g.status().outcome, Outcome::Draw);
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    assert!(moves.is_empty());
}

#[test]
fn each_deployment_violation_gets_its_own_error() {
    let g = Junqi.new_game(&Map::new()).unwrap();
    let err = |t: &str| g.parse_move(t).unwrap_err().message;
    assert!(err("9@A0").contains("outside its own half"));
    assert!(err("9@H1").contains("in a camp"));
    assert!(err("F@L0").contains("the flag must stand in an own headquarters"));
    assert!(err("L@G0").contains("mines go only in the last two rows"));
    assert!(err("B@G2").contains("bombs may not stand in the front row"));
    assert!(err("Z@G2").contains("not a deployment"));
    let mut g = g;
    g.play(g.parse_move("F@L1").unwrap());
    assert!(g.parse_move("F@L3").unwrap_err().message.contains("every flag is already deployed"));
}

#[test]
fn random_deployments_always_complete() {
    for seed in 0..20u64 {
        let mut g = Junqi.new_game(&Map::new()).unwrap();
        let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for _ in 0..50 {
            let mut ids = Vec::new();
            g.legal_moves(&mut ids);
            assert!(!ids.is_empty(), "stuck in deployment: {}", g.position_text());
            g.play(ids[rng.random_range(0..ids.len())]);
        }
        assert!(g.position_text().starts_with("move "), "{}", g.position_text());
    }
}

/// The simple second generator: movement moves from the position text alone,
/// with the board written out by hand.
fn simple_moves(text: &str, middle_railway: bool) -> BTreeSet<(usize, usize)> {
    let body = text.split('|').nth(1).unwrap();
    let side = if text.split_whitespace().nth(1) == Some("r") { 'r' } else { 'b' };
    let cells: Vec<Option<(char, char)>> = body
        .split('/')
        .flat_map(|r| r.split(',').map(|t| t.trim().to_string()).collect::<Vec<_>>())
        .map(|t| if t == "." { None } else { Some((t.chars().next().unwrap(), t.chars().nth(1).unwrap())) })
        .collect();
    let camp = |c: usize| [11, 13, 17, 21, 23, 36, 38, 42, 46, 48].contains(&c);
    let hq = |c: usize| [1, 3, 56, 58].contains(&c);
    let station = |c: usize| {
        let (r, col) = (c / 5, c % 5);
        [1, 5, 6, 10].contains(&r) || ((col == 0 || col == 4) && (1..=10).contains(&r))
    };
    let road = |a: usize, b: usize| {
        let (ar, ac, br, bc) = ((a / 5) as i32, (a % 5) as i32, (b / 5) as i32, (b % 5) as i32);
        let (dr, dc) = ((ar - br).abs(), (ac - bc).abs());
        let same_side = (ar <= 5) == (br <= 5);
        (dr + dc == 1 && (same_side || ac % 2 == 0 && dc == 0))
            || (dr == 1 && dc == 1 && same_side && (camp(a) || camp(b)))
    };
    let mut lines: Vec<Vec<usize>> =
        vec![(5..10).collect(), (25..30).collect(), (30..35).collect(), (50..55).collect()];
    lines.push((1..=10).map(|r| r * 5).collect());
    lines.push((1..=10).map(|r| r * 5 + 4).collect());
    if middle_railway {
        lines.push(vec![27, 32]);
    }
    let mut out = BTreeSet::new();
    for from in 0..60 {
        let Some((owner, kind)) = cells[from] else { continue };
        if owner != side || kind == 'L' || kind == 'F' || hq(from) {
            continue;
        }
        let enemy = |c: usize| cells[c].is_some_and(|(o, _)| o != side);
        for (to, cell) in cells.iter().enumerate() {
            if road(from, to) && (cell.is_none() || (enemy(to) && !camp(to))) {
                out.insert((from, to));
            }
        }
        if !station(from) {
            continue;
        }
        if kind == '1' {
            let linked = |a: usize, b: usize| {
                lines.iter().any(|l| l.windows(2).any(|w| (w[0] == a && w[1] == b) || (w[0] == b && w[1] == a)))
            };
            let mut reached = vec![from];
            let mut i = 0;
            while i < reached.len() {
                let at = reached[i];
                i += 1;
                for (n, cell) in cells.iter().enumerate() {
                    if linked(at, n) && !reached.contains(&n) {
                        if cell.is_none() {
                            reached.push(n);
                            out.insert((from, n));
                        } else if enemy(n) {
                            out.insert((from, n));
                        }
                    }
                }
            }
        } else {
            for l in lines.iter().filter(|l| l.contains(&from)) {
                let at = l.iter().position(|&c| c == from).unwrap();
                for path in [l[..at].iter().rev().copied().collect::<Vec<_>>(), l[at + 1..].to_vec()] {
                    for c in path {
                        if cells[c].is_none() {
                            out.insert((from, c));
                        } else {
                            if enemy(c) {
                                out.insert((from, c));
                            }
                            break;
                        }
                    }
                }
            }
        }
    }
    out
}

#[test]
fn the_plugin_agrees_with_the_simple_generator_on_random_games() {
    let mut compared = 0;
    for (seed, middle) in (0..24u64).map(|s| (s, s % 2 == 0)) {
        let opts = json!({"middle_crossing": if middle { "railway" } else { "road" }}).as_object().unwrap().clone();
        let mut g = Junqi.new_game(&opts).unwrap();
        let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        for _ in 0..400 {
            let mut ids = Vec::new();
            g.legal_moves(&mut ids);
            if ids.is_empty() {
                break;
            }
            let text = g.position_text();
            if text.starts_with("move ") {
                let ours: BTreeSet<(usize, usize)> = ids
                    .iter()
                    .map(|&m| match Move::from_id(m) {
                        Some(Move::Step { from, to }) => (from, to),
                        other => panic!("{other:?} in the movement phase"),
                    })
                    .collect();
                assert_eq!(ours, simple_moves(&text, middle), "{text}");
                compared += 1;
            }
            g.play(ids[rng.random_range(0..ids.len())]);
        }
    }
    assert!(compared > 2000, "only {compared} positions compared");
}

fn deployed(seed: u64) -> JunqiGame {
    let mut g = Junqi.new_game(&Map::new()).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    while g.position_text().starts_with("deploy") {
        let mut ids = Vec::new();
        g.legal_moves(&mut ids);
        g.play(ids[rng.random_range(0..ids.len())]);
    }
    g
}

#[test]
fn states_differing_only_in_blues_hidden_ranks_look_the_same_to_red() {
    let g = deployed(7);
    // Swap the kinds of a blue major-general and a blue major: officers may
    // stand anywhere, so each could be where the other is.
    let text = g.position_text();
    let mut tokens: Vec<String> = text
        .split('|')
        .nth(1)
        .unwrap()
        .split('/')
        .flat_map(|r| r.split(',').map(|t| t.trim().to_string()).collect::<Vec<_>>())
        .collect();
    let a = tokens.iter().position(|t| t.starts_with('b') && (t.chars().nth(1) == Some('7'))).unwrap();
    let b = tokens.iter().position(|t| t.starts_with('b') && (t.chars().nth(1) == Some('4'))).unwrap();
    let (ka, kb) = (tokens[a].chars().nth(1).unwrap(), tokens[b].chars().nth(1).unwrap());
    tokens[a] = tokens[a].replacen(ka, &kb.to_string(), 1);
    tokens[b] = tokens[b].replacen(kb, &ka.to_string(), 1);
    let rows: Vec<String> = tokens.chunks(5).map(|c| c.join(",")).collect();
    let parts: Vec<&str> = text.split('|').collect();
    let twin_text = format!("{}| {} |{}", parts[0], rows.join("/"), parts[2]);
    let twin = Junqi.from_position(&twin_text, &Map::new()).unwrap();
    assert_ne!(g.position_text(), twin.position_text());
    assert_eq!(g.observe(Viewer::Player(0)), twin.observe(Viewer::Player(0)));
    assert_eq!(g.observe(Viewer::Spectator), twin.observe(Viewer::Spectator));
    let (mut m1, mut m2) = (Vec::new(), Vec::new());
    g.legal_moves(&mut m1);
    twin.legal_moves(&mut m2);
    assert_eq!(m1, m2);
    for &m in &m1 {
        assert_eq!(g.move_text(m, Viewer::Player(0)), twin.move_text(m, Viewer::Player(0)));
    }
}

#[test]
fn sampled_worlds_respect_counts_and_everything_the_viewer_learned() {
    let mut g = deployed(11);
    let mut rng = SmallRng::seed_from_u64(99);
    for _ in 0..300 {
        let mut ids = Vec::new();
        g.legal_moves(&mut ids);
        if ids.is_empty() {
            break;
        }
        for (seed, viewer) in (0..5).map(|s| (s, Viewer::Player(g.to_move()))).chain([(5, Viewer::Spectator)]) {
            let w = g.sample_world(viewer, seed);
            assert_eq!(w.observe(viewer), g.observe(viewer), "{viewer:?}");
            let text = w.position_text();
            // Every piece's kind lies in what its opponent knows of it.
            let tokens: Vec<String> =
                text.split('|').nth(1).unwrap().replace('/', ",").split(',').map(|t| t.trim().to_string()).collect();
            let dead: Vec<String> = text
                .split("dead=")
                .nth(1)
                .unwrap()
                .split(',')
                .map(|t| t.trim().to_string())
                .filter(|t| t != "-")
                .collect();
            let mut counts = [[0u32; 12]; 2];
            for t in tokens.iter().chain(&dead).filter(|t| *t != ".") {
                let owner = (t.as_bytes()[0] == b'b') as usize;
                let kind = arbiter_junqi::pieces::from_code(t.chars().nth(1).unwrap()).unwrap();
                let mask = u16::from_str_radix(&t[2..], 16).unwrap();
                assert!(mask & (1 << kind) != 0, "{t} breaks its own mask in {text}");
                counts[owner][kind] += 1;
            }
            assert_eq!(counts[0], arbiter_junqi::pieces::COUNTS);
            assert_eq!(counts[1], arbiter_junqi::pieces::COUNTS);
        }
        g.play(ids[rng.random_range(0..ids.len())]);
    }
}

#[test]
fn a_spectator_s_world_redraws_both_sides_and_a_player_s_only_the_opponent_s() {
    let g = deployed(11);
    // The kinds on each side's half (rows 0-5 Blue's, 6-11 Red's), as a position text lists them.
    let kinds = |w: &JunqiGame| -> [String; 2] {
        let text = w.position_text();
        let rows: Vec<&str> = text.split('|').nth(1).unwrap().trim().split('/').collect();
        [rows[6..].join("/"), rows[..6].join("/")]
    };
    let truth = kinds(&g);
    let redrawn = |viewer: Viewer| -> [bool; 2] {
        let mut changed = [false; 2];
        for seed in 0..20 {
            let w = kinds(&g.sample_world(viewer, seed));
            for side in 0..2 {
                changed[side] |= w[side] != truth[side];
            }
        }
        changed
    };
    assert_eq!(redrawn(Viewer::Spectator), [true, true], "a spectator knows neither side's pieces");
    assert_eq!(redrawn(Viewer::Player(0)), [false, true], "Red knows its own");
    assert_eq!(redrawn(Viewer::Player(1)), [true, false], "Blue knows its own");
    assert_eq!(redrawn(Viewer::Player(7)), [true, true], "a seat no one sits on knows what a spectator knows");
    assert_eq!(redrawn(Viewer::Referee), [false, false], "the referee knows all");
}

#[test]
fn inconsistent_positions_are_refused() {
    let text = |revealed: &str, pieces: &[(&str, &str)]| {
        let mut rows = vec![vec![".".to_string(); 5]; 12];
        for (cell, p) in pieces {
            let c = board::parse(cell).unwrap();
            rows[c / 5][c % 5] = format!("{p}fff");
        }
        let rows: Vec<String> = rows.iter().map(|r| r.join(",")).collect();
        format!("move r quiet=0 revealed={revealed} winner=- last=- | {} | dead=-", rows.join("/"))
    };
    let err = |t: String| Junqi.from_position(&t, &Map::new()).err().map(|e| e.message).unwrap_or_default();
    // A flag outside a headquarters (flags never move).
    assert!(err(text("-", &[("K2", "rF"), ("A1", "bF")]))
        .contains("red flag on K2: the flag must stand in an own headquarters"));
    // A revealed flag while the marshal stands.
    assert!(err(text("r", &[("L1", "rF"), ("A1", "bF"), ("G0", "r9")])).contains("red's marshal still stands"));
    // The same with the marshal gone is fine.
    assert!(Junqi.from_position(&text("r", &[("L1", "rF"), ("A1", "bF")]), &Map::new()).is_ok());
    // No flag is revealed during deployment, and revealed= names sides only.
    let deploying = text("r", &[("L1", "rF")]).replacen("move r", "deploy r", 1);
    assert!(err(deploying).contains("during deployment: no flag is revealed"), "revealed= while deploying");
    assert!(err(text("x", &[("L1", "rF"), ("A1", "bF")])).contains("must be revealed=- or name sides r and b"));
}

#[test]
fn move_ids_round_trip_and_junk_ids_name_no_move() {
    for mv in [Move::Deploy { kind: 11, cell: 59 }, Move::Deploy { kind: 0, cell: 0 }, Move::Step { from: 3, to: 58 }] {
        assert_eq!(Move::from_id(mv.id()), Some(mv));
    }
    for junk in [u64::MAX, 1 << 40, 60, 60 << 8, (1 << 20) | (12 << 8), 1 << 17] {
        assert_eq!(Move::from_id(junk), None, "{junk:#x}");
    }
}

/// The combat table and what a verdict tells about the unseen piece.
mod pieces {
    use arbiter_junqi::pieces::*;

    #[test]
    fn every_cell_of_the_combat_table() {
        assert_eq!(COUNTS.iter().sum::<u32>(), 25);
        for (a, attacker) in NAMES.iter().enumerate().take(ENGINEER + 1) {
            for (d, defender) in NAMES.iter().enumerate().take(ENGINEER + 1) {
                let expected = match a.cmp(&d) {
                    std::cmp::Ordering::Less => Verdict::AttackerWon,
                    std::cmp::Ordering::Greater => Verdict::DefenderWon,
                    std::cmp::Ordering::Equal => Verdict::BothRemoved,
                };
                assert_eq!(combat(a, d), expected, "{attacker} v {defender}");
            }
            assert_eq!(combat(a, BOMB), Verdict::BothRemoved);
            assert_eq!(combat(BOMB, a), Verdict::BothRemoved);
            assert_eq!(combat(a, MINE), if a == ENGINEER { Verdict::AttackerWon } else { Verdict::DefenderWon });
            assert_eq!(combat(a, FLAG), Verdict::FlagCaptured);
        }
        assert_eq!(combat(BOMB, BOMB), Verdict::BothRemoved);
        assert_eq!(combat(BOMB, MINE), Verdict::BothRemoved);
        assert_eq!(combat(BOMB, FLAG), Verdict::FlagCaptured);
    }

    #[test]
    fn verdicts_narrow_what_the_opponent_can_be() {
        // A piece that beat my colonel (index 4) is a brigadier or higher.
        assert_eq!(consistent(4, false, Verdict::AttackerWon), 0b1111);
        // My engineer cleared what it attacked: a mine.
        assert_eq!(consistent(ENGINEER, true, Verdict::AttackerWon), 1 << MINE);
        // Both removed with my major: a major or a bomb.
        assert_eq!(consistent(5, true, Verdict::BothRemoved), 1 << 5 | 1 << BOMB);
    }
}

/// The board: cell kinds, names and the road links.
mod cells {
    use arbiter_junqi::board::*;

    #[test]
    fn each_half_has_23_posts_5_camps_and_2_headquarters() {
        let half: Vec<CellKind> = (30..60).map(kind).collect();
        assert_eq!(half.iter().filter(|k| **k == CellKind::Camp).count(), 5);
        assert_eq!(half.iter().filter(|k| **k == CellKind::Headquarters).count(), 2);
        assert_eq!(half.iter().filter(|k| matches!(k, CellKind::Post | CellKind::Station)).count(), 23);
        assert_eq!(name(56), "L1");
        assert_eq!(parse("l1"), Some(56));
    }

    #[test]
    fn front_links_only_at_columns_0_2_4_and_camps_link_diagonally() {
        let r = roads();
        assert!(r[25].contains(&30) && r[27].contains(&32) && r[29].contains(&34));
        assert!(!r[26].contains(&31) && !r[28].contains(&33));
        // Camp C1 (row 2, col 1) touches B0, B2, D0, D2 diagonally.
        let camp = 2 * 5 + 1;
        for d in [5, 7, 15, 17] {
            assert!(r[camp].contains(&d), "{}", name(d));
        }
    }
}
