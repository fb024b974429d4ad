//! Scenario tests for the FIDE Laws as the chess game applies them: game
//! endings, automatic and claimable draws, castling, en passant, promotion.

use arbiter_api::kit::{Game, Outcome, Viewer};
use chess_rules::ChessGame;

fn game(fen: &str) -> ChessGame {
    ChessGame::from_fen(fen, true).unwrap()
}

fn play(g: &mut ChessGame, moves: &str) {
    for m in moves.split_whitespace() {
        let id = g.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        assert!(g.is_legal(id), "{m} should be legal");
        g.play(id);
    }
}

fn legal_sans(g: &ChessGame) -> Vec<String> {
    let mut ids = Vec::new();
    g.legal_moves(&mut ids);
    ids.into_iter().map(|m| g.move_text(m, Viewer::Referee)).collect()
}

#[test]
fn fools_mate_is_checkmate_for_black() {
    let mut g = game(chess_rules::fen::START_FEN);
    play(&mut g, "f3 e5 g4 Qh4#");
    let st = g.status();
    assert_eq!(st.outcome, Outcome::Win(1));
    assert_eq!(st.reason, "checkmate");
    assert!(legal_sans(&g).is_empty());
}

#[test]
fn stalemate_is_a_draw() {
    let g = game("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(g.status().outcome, Outcome::Draw);
    assert_eq!(g.status().reason, "stalemate");
}

#[test]
fn dead_positions_end_the_game() {
    for fen in [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
        "8/2b5/4k3/8/8/3KB3/8/8 w - - 0 1",
    ] {
        let g = game(fen);
        assert_eq!(g.status().reason, "dead position", "{fen}");
        assert!(legal_sans(&g).is_empty(), "{fen}");
    }
    // Opposite-coloured bishops and two knights are not dead.
    for fen in ["8/3b4/4k3/8/8/3KB3/8/8 w - - 0 1", "8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"] {
        assert!(game(fen).status().is_ongoing(), "{fen}");
    }
}

#[test]
fn automatic_draws_can_be_switched_off() {
    let g = ChessGame::from_fen("8/8/4k3/8/8/3K4/8/8 w - - 0 1", false).unwrap();
    assert!(g.status().is_ongoing());
    assert_eq!(legal_sans(&g).len(), 8);
}

#[test]
fn threefold_is_claimable_and_fivefold_ends_the_game() {
    let mut g = game(chess_rules::fen::START_FEN);
    let cycle = "Nf3 Nf6 Ng1 Ng8";
    play(&mut g, cycle);
    assert_eq!(g.status().claimable, "");
    play(&mut g, cycle);
    assert_eq!(g.status().claimable, "threefold repetition");
    assert!(g.status().is_ongoing());
    play(&mut g, cycle);
    assert!(g.status().is_ongoing());
    play(&mut g, "Nf3 Nf6 Ng1");
    assert!(g.status().is_ongoing(), "black's position has stood only 4 times");
    play(&mut g, "Ng8");
    assert_eq!(g.status().outcome, arbiter_api::Outcome::Draw);
    assert_eq!(g.status().reason, "fivefold repetition");
}

#[test]
fn en_passant_right_distinguishes_positions_for_repetition() {
    // After 1.e4 (no black pawn can capture) the e3 square does not count, so
    // the position after the knights' dance is the same as after 1.e4.
    let mut g = game("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    play(&mut g, "Nf6 Nf3 Ng8 Ng1 Nf6 Nf3 Ng8 Ng1");
    assert_eq!(g.repetitions(), 3);
    // With a capturable pawn, the first position differs from the later ones.
    let mut g = game("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    play(&mut g, "Nf6 Nf3 Ng8 Ng1 Nf6 Nf3 Ng8 Ng1");
    assert_eq!(g.repetitions(), 2);
}

#[test]
fn fifty_moves_are_claimable_and_seventy_five_end_the_game() {
    let mut g = game("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    assert_eq!(g.status().claimable, "");
    play(&mut g, "Ra2");
    assert_eq!(g.status().claimable, "fifty-move rule");
    let mut g = game("4k3/8/8/8/8/8/8/R3K3 w - - 149 80");
    play(&mut g, "Ra2");
    assert_eq!(g.status().reason, "seventy-five-move rule");
}

#[test]
fn mate_on_the_seventy_fifth_move_takes_precedence() {
    let mut g = game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80");
    play(&mut g, "Ra8#");
    assert_eq!(g.status().reason, "checkmate");
}

#[test]
fn castling_needs_rights_empty_squares_and_no_attacked_transit() {
    assert!(legal_sans(&game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")).contains(&"O-O-O".to_string()));
    // Through check: a rook on f8 attacks f1.
    let sans = legal_sans(&game("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1"));
    assert!(!sans.contains(&"O-O".into()) && sans.contains(&"O-O-O".into()));
    // Out of check.
    assert!(!legal_sans(&game("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1")).iter().any(|s| s.starts_with("O-O")));
    // Blocked.
    assert!(!legal_sans(&game("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1")).iter().any(|s| s.starts_with("O-O")));
    // b1 attacked does not stop queenside castling.
    assert!(legal_sans(&game("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1")).contains(&"O-O-O".to_string()));
    // No right.
    assert!(!legal_sans(&game("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1")).contains(&"O-O".to_string()));
    // Moving the king or rook loses the right.
    let mut g = game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play(&mut g, "Rh2 Ke7 Rh1 Ke8");
    assert!(!legal_sans(&g).contains(&"O-O".to_string()));
    assert!(g.fen().contains(" Q - "), "{}", g.fen());
}

#[test]
fn en_passant_only_when_legal() {
    let mut g = game("4k3/8/8/8/1p6/8/P7/4K3 w - - 0 1");
    play(&mut g, "a4");
    assert!(legal_sans(&g).contains(&"bxa3".to_string()));
    play(&mut g, "bxa3");
    assert!(g.fen().starts_with("4k3/8/8/8/8/p7/8/4K3 w"));
    // Pinned along the rank: the capture would expose the king.
    let g = game("8/8/8/K1pP3r/8/8/8/7k w - c6 0 1");
    assert!(!legal_sans(&g).contains(&"dxc6".to_string()));
}

#[test]
fn promotion_offers_four_pieces_and_san_marks_them() {
    let g = game("8/P6k/8/8/8/8/8/4K3 w - - 0 1");
    let sans = legal_sans(&g);
    for p in ["a8=Q", "a8=R", "a8=B", "a8=N"] {
        assert!(sans.contains(&p.to_string()), "{sans:?}");
    }
    let mut g = game("7k/P7/8/8/8/8/8/4K3 w - - 0 1");
    play(&mut g, "a8=Q+");
    assert!(g.fen().starts_with("Q6k/"));
}

#[test]
fn san_disambiguates_by_file_rank_or_both() {
    let g = game("4k3/8/8/8/8/8/8/N3K2N w - - 0 1");
    assert!(legal_sans(&g).contains(&"Nab3".to_string()) || legal_sans(&g).contains(&"Ng3".to_string()));
    let g = game("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    let sans = legal_sans(&g);
    assert!(sans.contains(&"R5a3".to_string()) && sans.contains(&"R1a3".to_string()), "{sans:?}");
    let g = game("7k/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1");
    let sans = legal_sans(&g);
    assert!(sans.contains(&"Qa4b3".to_string()), "{sans:?}");
    // A pinned knight cannot go to d4: the other one needs no file.
    let g = game("4r2k/8/8/1N6/8/8/4N3/4K3 w - - 0 1");
    let sans = legal_sans(&g);
    assert!(sans.contains(&"Nd4".to_string()) && !sans.iter().any(|s| s.starts_with("Nbd4")), "{sans:?}");
}

#[test]
fn illegal_and_unparsable_moves_are_errors() {
    let g = game(chess_rules::fen::START_FEN);
    let e = g.parse_move("e5").unwrap_err();
    assert_eq!(e.kind, arbiter_api::ErrorKind::IllegalMove);
    assert!(e.message.contains("'e5' is not a legal move for white"), "{}", e.message);
    let e = g.parse_move("hello").unwrap_err();
    assert_eq!(e.kind, arbiter_api::ErrorKind::BadNotation);
    assert!(g.parse_move("e2e5").is_err());
    assert!(g.parse_move("").is_err());
    assert!(g.parse_move("Zz9").is_err());
    assert!(!g.is_legal(u64::MAX));
    assert!(!g.is_legal(0));
}

#[test]
fn uci_castling_and_king_takes_rook_both_parse() {
    let g = game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(g.parse_move("e1g1").unwrap(), g.parse_move("O-O").unwrap());
    assert_eq!(g.parse_move("e1c1").unwrap(), g.parse_move("0-0-0").unwrap());
}

#[test]
fn flag_fall_against_bare_material_is_recognised() {
    assert!(!game("8/8/4k3/8/8/3K4/8/8 w - - 0 1").can_win(0));
    assert!(!game("8/8/4k3/8/8/3KN3/8/8 w - - 0 1").can_win(0));
    assert!(game("8/8/4k3/4p3/8/3KN3/8/8 w - - 0 1").can_win(0));
    assert!(game("8/8/4k3/8/8/3K4/7R/8 w - - 0 1").can_win(0));
    assert!(!game("8/8/4k3/8/8/3K4/7R/8 w - - 0 1").can_win(1));
}
