//! Scenario tests for the tavreli rules of RULES.md §4.3 and §7.2, the
//! ambiguity options, and the draw rules.

use arbiter_api::kit::{Game, Outcome, Variant, Viewer};
use arbiter_tavreli::game::TavreliGame;
use arbiter_tavreli::Tavreli;
use serde_json::{json, Map};

/// A position from ranks 8..1, each a list of (file, tower) with towers top first.
fn pos(rows: [&str; 8], side: &str) -> String {
    format!("{} {side} - 0", rows.join("/"))
}

fn game(text: &str) -> TavreliGame {
    Tavreli.from_position(text, &Map::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn moves(g: &TavreliGame) -> Vec<String> {
    let mut ids = Vec::new();
    g.legal_moves(&mut ids);
    let mut t: Vec<String> = ids.into_iter().map(|m| g.move_text(m, Viewer::Referee)).collect();
    t.sort();
    t
}

fn play(g: &mut TavreliGame, m: &str) {
    let id = g.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    g.play(id);
}

const EMPTY: &str = ".,.,.,.,.,.,.,.";

#[test]
fn moving_onto_any_piece_stacks_and_a_tower_moves_whole_or_split() {
    // White warrior a1 takes the black knight on a5, then the tower splits.
    let mut g =
        game(&pos([".,.,.,.,k,.,.,.", EMPTY, EMPTY, "n,.,.,.,.,.,.,.", EMPTY, EMPTY, EMPTY, "R,.,.,.,K,.,.,."], "w"));
    play(&mut g, "a1-a5");
    assert!(g.position_text().contains("R':n"), "{}", g.position_text());
    play(&mut g, "e8-d8");
    let m = moves(&g);
    assert!(m.contains(&"a5-a6".to_string()) && m.contains(&"a5-a6(2)".to_string()), "{m:?}");
    play(&mut g, "a5-a6");
    // The split frees the knight: it is Black's again.
    assert!(g.position_text().starts_with(".,.,.,k'"), "{}", g.position_text());
    assert!(moves(&g).iter().any(|m| m.starts_with("a5-")), "the freed knight moves");
}

#[test]
fn nothing_goes_onto_a_magus_and_the_magus_climbs_only_unattacked_towers() {
    let g = game(&pos(
        [".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, ".,.,.,.,.,r,.,.", EMPTY, ".,.,.,.,.,N,.,.", ".,.,.,Q,K,.,.,."],
        "w",
    ));
    let m = moves(&g);
    assert!(!m.contains(&"d1-e1".to_string()), "no piece onto a Magus, not even its own side's");
    // f2 is attacked by the black warrior on f4: the Magus may not climb onto the knight there.
    assert!(!m.contains(&"e1-f2".to_string()) && m.contains(&"e1-e2".to_string()), "{m:?}");
}

#[test]
fn pawns_promote_to_their_designated_piece_even_on_another_file() {
    // The e-pawn (designated Helgi) stands on d7 and promotes on d8.
    let mut g =
        game(&pos([".,.,.,.,.,.,.,k", ".,.,.,Ph',.,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,.,.,.,K,.,.,."], "w"));
    play(&mut g, "d7-d8");
    assert!(g.position_text().starts_with(".,.,.,H*'"), "{}", g.position_text());
}

#[test]
fn a_split_leaving_a_pawn_on_its_last_rank_promotes_it() {
    // A white warrior stands on a white pawn (designated archer) on c8.
    let mut g = game(&pos(
        [".,.,R':Pb',.,.,.,.,.", EMPTY, ".,.,.,.,.,.,.,k", EMPTY, EMPTY, EMPTY, EMPTY, ".,.,.,.,K,.,.,."],
        "w",
    ));
    play(&mut g, "c8-c5");
    assert!(g.position_text().starts_with(".,.,B*'"), "{}", g.position_text());
}

#[test]
fn a_promoted_pawn_covered_by_an_enemy_is_demoted_and_the_option_widens_it() {
    let text = pos(
        [".,.,.,.,.,.,.,k", EMPTY, EMPTY, ".,.,.,.,r,.,.,.", EMPTY, ".,.,.,.,R*',.,.,.", EMPTY, "K,.,.,.,.,.,.,."],
        "b",
    );
    let mut g = game(&text);
    play(&mut g, "e5-e3");
    assert!(g.position_text().contains("r':Pr'"), "enemy cover demotes: {}", g.position_text());
    // With the any-cover option, an own piece on top demotes too.
    let text = pos(
        [".,.,.,.,.,.,.,k", EMPTY, EMPTY, EMPTY, EMPTY, ".,.,.,.,R*',.,.,.", ".,.,.,B,.,.,.,.", "K,.,.,.,.,.,.,."],
        "w",
    );
    let opts = json!({"demotion": "any-cover"}).as_object().unwrap().clone();
    let mut g = Tavreli.from_position(&text, &opts).unwrap();
    play(&mut g, "d2-e3");
    assert!(g.position_text().contains("B':Pr'"), "{}", g.position_text());
    let mut g = game(&text);
    play(&mut g, "d2-e3");
    assert!(g.position_text().contains("B':R*'"), "own cover keeps it by default: {}", g.position_text());
}

#[test]
fn a_split_that_frees_a_prisoner_giving_check_is_illegal() {
    // The white archer on d4 holds a black warrior prisoner; lifting the archer
    // alone would free the warrior, which attacks the white Magus on d1.
    let g =
        game(&pos([".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, ".,.,.,B:r,.,.,.,.", EMPTY, EMPTY, ".,.,.,K,.,.,.,."], "w"));
    let m = moves(&g);
    assert!(!m.iter().any(|m| m.starts_with("d4-") && !m.ends_with("(2)")), "{m:?}");
    assert!(m.iter().any(|m| m.starts_with("d4-") && m.ends_with("(2)")), "the whole tower may move: {m:?}");
}

#[test]
fn castling_needs_a_bare_unmoved_magus_and_rook() {
    let g = game(&pos(["r,.,.,.,k,.,.,r", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, "R,.,.,.,K,.,.,R"], "w"));
    let m = moves(&g);
    assert!(m.contains(&"e1-g1".to_string()) && m.contains(&"e1-c1".to_string()), "{m:?}");
    // A rook carrying a prisoner may not castle.
    let g = game(&pos(["r,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, "R,.,.,.,K,.,.,R:n"], "w"));
    assert!(!moves(&g).contains(&"e1-g1".to_string()));
}

#[test]
fn en_passant_moves_the_passed_tower_beneath_the_capturer() {
    let mut g = game(&pos(
        [".,.,.,.,k,.,.,.", ".,.,.,pq,.,.,.,.", EMPTY, ".,.,.,.,Ph',.,.,.", EMPTY, EMPTY, EMPTY, ".,.,.,.,K,.,.,."],
        "b",
    ));
    play(&mut g, "d7-d5");
    play(&mut g, "e5-d6");
    assert!(g.position_text().contains("Ph':pq'"), "{}", g.position_text());
}

#[test]
fn mate_stalemate_and_the_draw_rules() {
    // Black Magus h8 boxed by a white prince g6... mated by Qg7 supported by the Magus.
    let mut g = game(&pos([".,.,.,.,.,.,.,k", EMPTY, ".,.,.,.,.,K,Q,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY], "w"));
    play(&mut g, "g6-g7");
    assert_eq!((g.status().outcome, g.status().reason), (Outcome::Win(0), "checkmate"));
    let g =
        game(&pos([".,.,.,.,.,.,.,k", ".,.,.,.,.,Q,.,.", ".,.,.,.,.,.,K,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY], "b"));
    assert_eq!(g.status().reason, "stalemate");
    // Moved flags are part of a position (they decide castling and double
    // steps), so the start does not recur; the position after two plies (both
    // pieces moved) recurs at plies six and ten. Squares a tower has left
    // compare as empty whatever they held before.
    let mut g = game(&pos([".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,N,.,.,K,.,.,."], "w"));
    let cycle = ["b1-c3", "e8-d8", "c3-b1", "d8-e8"];
    for (i, m) in cycle.iter().cycle().take(10).enumerate() {
        assert!(g.status().is_ongoing(), "ply {i}");
        play(&mut g, m);
    }
    assert_eq!(g.status().reason, "repetition");
    let opts = json!({"repetitions": 0, "quiet_moves": 2}).as_object().unwrap().clone();
    let mut g = Tavreli
        .from_position(
            &pos([".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,N,.,.,K,.,.,."], "w"),
            &opts,
        )
        .unwrap();
    for m in ["b1-c3", "e8-d8", "c3-b1"] {
        play(&mut g, m);
    }
    assert!(g.status().is_ongoing());
    play(&mut g, "d8-e8");
    assert_eq!(g.status().reason, "moves without a pawn move or capture");
}

#[test]
fn malformed_positions_and_moves_get_specific_errors() {
    let err = |t: &str| Tavreli.from_position(t, &Map::new()).err().unwrap().message;
    assert!(err("x w - 0").contains("1 ranks, expected 8"));
    assert!(err(&pos([".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,.,.,.,X,.,.,."], "w"))
        .contains("bad piece letter 'X'"));
    assert!(err(&pos([".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,.,.,.,Q:K,.,.,."], "w"))
        .contains("a Magus is covered"));
    assert!(err(&pos(
        [".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,P,.,.,.,.,.,.", ".,.,.,.,K,.,.,."],
        "w"
    ))
    .contains("designation"));
    assert!(err(&pos([EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, ".,.,.,.,K,.,.,."], "w"))
        .contains("black has 0 Magi"));
    // More pieces of a kind than a set has (and no pawn promoted to them).
    let queens = vec!["Q"; 20].join(":");
    let board = [".,.,.,.,k,.,.,.", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, &format!(".,.,.,.,K,.,.,{queens}")];
    assert!(err(&pos(board, "w")).contains("white has 21 pieces"), "{}", err(&pos(board, "w")));
    let g = Tavreli.new_game(&Map::new()).unwrap();
    assert_eq!(g.parse_move("e2-e5").unwrap_err().kind, arbiter_api::ErrorKind::IllegalMove);
    assert_eq!(g.parse_move("e2e4").unwrap_err().kind, arbiter_api::ErrorKind::BadNotation);
    assert_eq!(g.parse_move("e2-e4(1)").unwrap_err().kind, arbiter_api::ErrorKind::BadNotation);
}

#[test]
fn observations_name_each_kind_in_lower_case_with_its_letter() {
    let g = Tavreli.new_game(&Map::new()).unwrap();
    let view = g.observe(Viewer::Spectator).view;
    let mut kinds: Vec<&str> = view.pieces.iter().map(|p| p.kind.as_str()).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds, ["archer", "horseman", "magus", "pawn", "prince", "warrior"]);
    let magus = view.pieces.iter().find(|p| p.kind == "magus" && p.owner == 0).unwrap();
    assert_eq!(magus.label, "K");
}
