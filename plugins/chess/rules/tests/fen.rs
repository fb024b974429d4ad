//! FEN parsing: each malformed field gets its own specific error, and valid
//! FENs round-trip.

use chess_rules::ChessGame;

fn error(fen: &str) -> String {
    match ChessGame::from_fen(fen, true) {
        Ok(_) => panic!("accepted malformed FEN {fen}"),
        Err(e) => e.message,
    }
}

#[track_caller]
fn assert_error(fen: &str, expected: &str) {
    let msg = error(fen);
    assert!(msg.contains(expected), "FEN {fen}: expected error containing {expected:?}, got {msg:?}");
}

#[test]
fn each_malformed_field_gets_a_specific_error() {
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0", "expected 6 fields");
    assert_error("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "has 7 ranks");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "bad piece letter 'X'");
    assert_error("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 ('ppppppppp') covers 9 squares");
    assert_error("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "covers 7 squares");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "found 7");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1", "white has 2 kings");
    assert_error("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black has no king");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move 'x'");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1", "bad letter 'z'");
    assert_error(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
        "castling right 'K' needs the white king on e1 and a rook on h1",
    );
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkq - 0 1", "'K' appears twice");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant square 'e9' is not a square");
    assert_error(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1",
        "must be on rank 3 when black is to move",
    );
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "no white pawn on e4");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock 'x'");
    assert_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", "fullmove number '0'");
    assert_error("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "the side not to move (black) is in check");
    assert_error("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on a8");
    assert_error("4k3/8/8/8/8/8/PPPPPPPP/P3K3 w - - 0 1", "9 pawns");
}

#[test]
fn four_field_epd_style_fen_is_accepted_with_default_clocks() {
    let g = ChessGame::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", true).unwrap();
    assert_eq!(g.fen(), "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
}

#[test]
fn en_passant_square_is_written_only_when_the_capture_is_legal() {
    // After 1.e4 no black pawn can take en passant: the square is dropped.
    let g = ChessGame::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", true).unwrap();
    assert_eq!(g.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let g = ChessGame::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", true).unwrap();
    assert_eq!(g.fen(), "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
}

#[test]
fn halfmove_clock_beyond_100_is_kept() {
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 140 200";
    assert_eq!(ChessGame::from_fen(fen, true).unwrap().fen(), fen);
}
