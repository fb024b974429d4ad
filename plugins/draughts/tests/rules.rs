//! Scenario tests for the rules that distinguish the variants, the draw
//! rules at exactly the ply they trigger, and PDN in and out.

use arbiter_api::kit::{Game, Outcome, Variant, Viewer};
use arbiter_draughts::geometry::Geometry;
use arbiter_draughts::{Draughts, BRAZILIAN, CHECKERS, INTERNATIONAL, RUSSIAN};
use serde_json::{json, Map, Value};

fn opts(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn texts<G: Geometry>(variant: &Draughts<G>, fen: &str) -> Vec<String> {
    let g = variant.from_position(fen, &opts(json!({"repetitions": 3, "quiet_moves": 25}))).unwrap();
    let mut t: Vec<String> = g.moves_with_text().into_iter().map(|(_, t)| t).collect();
    t.sort();
    t
}

#[test]
fn majority_rule_makes_the_king_take_three_rather_than_the_man_one() {
    // Man 34 could take 30 alone; king 46 takes 37, 23 and 30 (46x37 to 28,
    // x23 to 19, x30 to 35), and kings and men count the same.
    let moves = texts(&INTERNATIONAL, "W:WK46,34:B37,23,30");
    assert_eq!(moves, vec!["46x35"]);
}

#[test]
fn free_choice_rule_sets_offer_every_capture() {
    // 26 can take one piece (26x19), 9 can take two (9x18x27): Russian lets
    // White choose, the Brazilian majority rule does not.
    let fen = "W:W26,31,9:B28,14,4,23";
    assert_eq!(texts(&RUSSIAN, fen), vec!["26x19", "9x27"]);
    assert_eq!(texts(&BRAZILIAN, fen), vec!["9x27"]);
}

#[test]
fn a_flying_kings_capture_offers_every_landing_square() {
    let moves = texts(&INTERNATIONAL, "W:WK46:B37");
    assert_eq!(moves, vec!["46x10", "46x14", "46x19", "46x23", "46x28", "46x32", "46x5"]);
    // A short king (checkers) lands right behind.
    let moves = texts(&CHECKERS, "B:W18:BK22");
    assert_eq!(moves, vec!["22x15"]);
}

#[test]
fn a_man_passing_the_crown_row_mid_capture_follows_each_variants_rule() {
    // International: 11 takes 7 to land on 2 (the crown row) and must go on
    // taking 8 backwards as a man, ending on 13 uncrowned.
    let g = INTERNATIONAL.from_position("W:W11:B7,8", &Map::new()).unwrap();
    let moves = g.moves_with_text();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].1, "11x13");
    assert!(!moves[0].0.crowns);
    // 8x8: black man 22 takes 26 to land on 31, its crown row.
    // Checkers: crowned, and the move ends there.
    let g = CHECKERS.from_position("B:W26,27:B22", &Map::new()).unwrap();
    let moves = g.moves_with_text();
    assert_eq!(moves.iter().map(|m| m.1.as_str()).collect::<Vec<_>>(), vec!["22x31"]);
    assert!(moves[0].0.crowns);
    // Russian: crowned at once, goes on as a flying king over 27.
    let mut russian: Vec<(String, bool)> = RUSSIAN
        .from_position("B:W26,27:B22", &Map::new())
        .unwrap()
        .moves_with_text()
        .into_iter()
        .map(|(m, t)| (t, m.crowns))
        .collect();
    russian.sort();
    assert_eq!(russian, vec![("22x20".to_string(), true), ("22x24".to_string(), true)]);
    // Brazilian: goes on as a man (backwards) and ends uncrowned on 24.
    let brazilian: Vec<(String, bool)> = BRAZILIAN
        .from_position("B:W26,27:B22", &Map::new())
        .unwrap()
        .moves_with_text()
        .into_iter()
        .map(|(m, t)| (t, m.crowns))
        .collect();
    assert_eq!(brazilian, vec![("22x24".to_string(), false)]);
}

#[test]
fn a_man_ending_on_the_crown_row_is_crowned() {
    let mut g = INTERNATIONAL.from_position("W:W7:B20", &Map::new()).unwrap();
    let mv = g.parse_move("7-1").unwrap();
    g.play(mv);
    assert_eq!(g.position_text(), "B:WK1:B20");
}

/// Plays `plies` moves cycling through `moves`; the status after each ply.
fn statuses<G: Geometry>(
    variant: &Draughts<G>,
    fen: &str,
    options: Value,
    moves: &[&str],
    plies: usize,
) -> Vec<arbiter_api::Status> {
    let mut g = variant.from_position(fen, &opts(options)).unwrap();
    let mut out = Vec::new();
    for m in moves.iter().cycle().take(plies) {
        let id = g.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        assert!(g.is_legal(id), "{m} in {}", g.position_text());
        g.play(id);
        out.push(g.status());
    }
    out
}

const SHUFFLE: [&str; 4] = ["46-41", "1-6", "41-46", "6-1"];

#[test]
fn third_repetition_draws_at_the_eighth_ply() {
    let s = statuses(&INTERNATIONAL, "W:WK46,48,49:BK1,2,3", json!({"repetitions": 3, "quiet_moves": 25}), &SHUFFLE, 8);
    assert!(s[..7].iter().all(|st| st.is_ongoing()));
    assert_eq!((s[7].outcome, s[7].reason), (Outcome::Draw, "repetition"));
}

#[test]
fn twenty_five_king_moves_each_draw_at_the_fiftieth_ply() {
    let s =
        statuses(&INTERNATIONAL, "W:WK46,48,49:BK1,2,3", json!({"repetitions": 0, "quiet_moves": 25}), &SHUFFLE, 50);
    assert!(s[..49].iter().all(|st| st.is_ongoing()), "{:?}", s.iter().position(|st| !st.is_ongoing()));
    assert_eq!((s[49].outcome, s[49].reason), (Outcome::Draw, "moves without a man move or capture"));
}

#[test]
fn one_king_against_three_draws_after_sixteen_moves_each() {
    let o = json!({"repetitions": 0, "quiet_moves": 0, "one_v_three_moves": 16, "one_v_two_moves": 5});
    let s = statuses(&INTERNATIONAL, "W:WK46:BK1,2,3", o, &SHUFFLE, 32);
    assert!(s[..31].iter().all(|st| st.is_ongoing()));
    assert_eq!((s[31].outcome, s[31].reason), (Outcome::Draw, "one king against three pieces"));
}

#[test]
fn one_king_against_two_draws_after_five_moves_each() {
    let o = json!({"repetitions": 0, "quiet_moves": 0, "one_v_three_moves": 16, "one_v_two_moves": 5});
    let s = statuses(&INTERNATIONAL, "W:WK46:BK1,3", o, &SHUFFLE, 10);
    assert!(s[..9].iter().all(|st| st.is_ongoing()));
    assert_eq!((s[9].outcome, s[9].reason), (Outcome::Draw, "one king against two pieces"));
}

#[test]
fn a_side_without_pieces_or_moves_loses() {
    let g = INTERNATIONAL.from_position("B:W28:B", &Map::new()).unwrap();
    assert_eq!((g.status().outcome, g.status().reason), (Outcome::Win(0), "no pieces left"));
    // Black man on 46?? cannot stand there; a blocked black man on 36 with 41 and 47 taken.
    let g = INTERNATIONAL.from_position("B:W41,47,K50:B36", &Map::new()).unwrap();
    assert_eq!(g.status().reason, "no legal move");
}

#[test]
fn pdn_positions_round_trip_and_malformed_fields_get_specific_errors() {
    let g = INTERNATIONAL.from_position("W:W31-35,K40:B1-3,K20.", &Map::new()).unwrap();
    assert_eq!(g.position_text(), "W:W31,32,33,34,35,K40:B1,2,3,K20");
    let err = |fen: &str| INTERNATIONAL.from_position(fen, &Map::new()).err().unwrap().message;
    assert!(err("X:W31:B1").contains("side to move 'X' must be W or B"));
    assert!(err("W:W31:B51").contains("'51' in '51' is not a square from 1 to 50"));
    assert!(err("W:W31,31:B1").contains("square 31 is given twice"));
    assert!(err("W:W35-31:B1").contains("range '35-31' runs backwards"));
    assert!(err("W:W3:B10").contains("a white man cannot stand on square 3, its crowning row"));
    assert!(err("W:W31:W32").contains("two piece lists for White"));
    assert!(err("W:X31:B1").contains("piece list 'X31' must start with W or B"));
    assert!(err("W:W31").contains("needs a piece list for each side"));
    assert!(err("W:Wx:B1").contains("'x' in 'x' is not a square"));
}

#[test]
fn move_texts_parse_back_and_ambiguous_captures_carry_their_landing_squares() {
    // Two captures from 27 to 27's far side with different captured sets need
    // landing squares; every text must parse back to its own move.
    for (variant, fen) in
        [("international", "W:WK46,34:B37,23,30"), ("international", "W:W28:B22,23,32,33,17,19,12,13")]
    {
        let _ = variant;
        let g = INTERNATIONAL.from_position(fen, &Map::new()).unwrap();
        let mut ids = Vec::new();
        g.legal_moves(&mut ids);
        let mut seen = std::collections::HashSet::new();
        for id in ids {
            let text = g.move_text(id, Viewer::Referee);
            assert!(seen.insert(text.clone()), "duplicate text {text} in {fen}");
            assert_eq!(g.parse_move(&text).unwrap(), id, "{text} in {fen}");
        }
    }
    let g = INTERNATIONAL.new_game(&Map::new()).unwrap();
    assert_eq!(g.parse_move("32-29").unwrap_err().kind, arbiter_api::ErrorKind::IllegalMove);
    assert_eq!(g.parse_move("e4").unwrap_err().kind, arbiter_api::ErrorKind::BadNotation);
    assert_eq!(g.parse_move("32-99").unwrap_err().kind, arbiter_api::ErrorKind::BadNotation);
    // A text longer than any move is refused unsplit, in a short message.
    let long = "32-".repeat(1 << 18);
    let e = g.parse_move(&long).unwrap_err();
    assert_eq!(e.kind, arbiter_api::ErrorKind::BadNotation);
    assert!(e.message.len() < 100 && e.message.contains("786432 bytes"), "{}", e.message);
}

#[test]
fn no_turkish_strike_a_captured_piece_blocks_until_the_move_ends() {
    // King 32 between 28 and 37 on one diagonal. Were 28 removed as soon as
    // it is taken, the king could come back over it and take 37 too (two
    // pieces, which the majority rule would then impose). It stays until the
    // end of the move, so every capture takes one piece.
    let moves = texts(&INTERNATIONAL, "W:WK32:B28,37");
    assert_eq!(moves, vec!["32x10", "32x14", "32x19", "32x23", "32x41", "32x46", "32x5"]);
}

#[test]
fn the_position_text_carries_the_draw_counters_so_a_game_read_back_ends_alike() {
    // After every ply of each draw rule's run, the game read back from its
    // text has the same status, and reaches the draw at the same ply.
    for (fen, options) in [
        ("W:WK46,48,49:BK1,2,3", json!({"repetitions": 3, "quiet_moves": 25})),
        ("W:WK46,48,49:BK1,2,3", json!({"repetitions": 0, "quiet_moves": 25})),
        ("W:WK46:BK1,2,3", json!({"repetitions": 0, "quiet_moves": 0, "one_v_three_moves": 16})),
        ("W:WK46:BK1,2", json!({"repetitions": 0, "quiet_moves": 0, "one_v_two_moves": 5})),
    ] {
        let mut g = INTERNATIONAL.from_position(fen, &opts(options.clone())).unwrap();
        for (ply, m) in SHUFFLE.iter().cycle().enumerate().take(60) {
            let text = g.position_text();
            let back = INTERNATIONAL.from_position(&text, &opts(options.clone())).unwrap();
            assert_eq!(back.status(), g.status(), "{fen} at ply {ply}: '{text}'");
            assert_eq!(back.position_text(), text, "{fen} at ply {ply}");
            if !g.status().is_ongoing() {
                break;
            }
            g.play(g.parse_move(m).unwrap());
        }
        assert!(!g.status().is_ongoing(), "{fen} {options}: the rule ends the game");
    }
    // Plain PDN stays plain; counters that cannot be are refused.
    assert_eq!(INTERNATIONAL.from_position("W:W31:B20", &Map::new()).unwrap().position_text(), "W:W31:B20");
    for bad in ["W:WK46:BK1:Qx", "W:WK46:BK1:R5", "W:W31:B20:E3", "W:W:B", "W:W6-26:B50"] {
        assert!(INTERNATIONAL.from_position(bad, &Map::new()).is_err(), "{bad}");
    }
}

/// The two boards' bit layouts and neighbours.
mod geometry {
    use arbiter_draughts::geometry::*;

    #[test]
    fn masks_have_the_right_number_of_squares_and_rows() {
        assert_eq!(Ten::MASK.count_ones(), 50);
        assert_eq!(Eight::MASK.count_ones(), 32);
        assert_eq!(Ten::TOP_ROW.count_ones(), 5);
        assert_eq!(Eight::BOTTOM_ROW.count_ones(), 4);
        for idx in 0..50 {
            assert_eq!(Ten::idx(Ten::bit(idx)), idx);
        }
        for idx in 0..32 {
            assert_eq!(Eight::idx(Eight::bit(idx)), idx);
        }
    }

    /// The squares next to `square` (1-based, Manoury) on the 10x10 board.
    fn neighbours(square: u32) -> Vec<u32> {
        let b = Ten::bit(square - 1) as i32;
        directions::<Ten>().iter().filter_map(|&d| step::<Ten>(b, d)).map(|x| Ten::idx(x as u32) + 1).collect()
    }

    #[test]
    fn neighbours_follow_manoury_numbering() {
        assert_eq!(neighbours(28), vec![22, 23, 32, 33]);
        // Square 46 (a1) has only 41 above it; square 5 only 10 below.
        assert_eq!(neighbours(46), vec![41]);
        assert_eq!(neighbours(5), vec![10]);
    }
}
