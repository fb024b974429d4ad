//! The ini plugin's pieces one by one: Betza notation as Fairy-Stockfish
//! reads it, Chess960 start arrays by number, and how a position is shown.

use arbiter_api::kit::{Game, Variant};
use arbiter_api::Viewer;
use arbiter_fairy::betza::{parse, Hop};
use arbiter_fairy::installed;

fn targets(betza: &str) -> Vec<(i8, i8)> {
    let mut v: Vec<(i8, i8)> = parse(betza).unwrap().iter().map(|s| (s.dx, s.dy)).collect();
    v.sort();
    v
}

#[test]
fn atoms_directions_and_riders_read_as_fairy_stockfish_s() {
    assert_eq!(targets("N").len(), 8);
    assert_eq!(targets("K").len(), 8);
    assert_eq!(targets("fW"), vec![(0, 1)]);
    assert_eq!(targets("fsW"), vec![(-1, 0), (0, 1), (1, 0)]);
    assert_eq!(targets("ffN"), vec![(-1, 2), (1, 2)]);
    assert_eq!(targets("fN"), vec![(-1, 2), (1, 2)]);
    assert_eq!(targets("fsN"), vec![(-2, 1), (2, 1)]);
    assert_eq!(targets("fF"), vec![(-1, 1), (1, 1)]);
    assert_eq!(targets("FfW"), vec![(-1, -1), (-1, 1), (0, 1), (1, -1), (1, 1)]);
    assert_eq!(parse("R").unwrap()[0].range, 0);
    assert_eq!(parse("NN").unwrap()[0].range, 0);
    assert_eq!(parse("R4").unwrap()[0].range, 4);
    let pawn = parse("fmWfcF").unwrap();
    assert!(pawn.iter().all(|s| s.dy == 1));
    assert!(pawn.iter().any(|s| s.dx == 0 && s.quiet && !s.capture));
    let cannon = parse("mRcpR").unwrap();
    assert!(cannon.iter().any(|s| s.hop == Hop::Cannon && s.capture && !s.quiet));
    assert!(parse("nN").unwrap().iter().all(|s| s.lame));
    assert!(parse("xQ").is_err() && parse("fm").is_err() && parse("Y").is_err());
}

#[test]
fn chess960_arrays_follow_scharnagls_numbering() {
    let variant = installed().into_iter().find(|v| v.id == "fischerandom").unwrap();
    for (number, back) in [(518, "rnbqkbnr"), (0, "bbqnnrkr"), (959, "rkrnnqbb")] {
        let options = serde_json::json!({ "start_number": number });
        let game = variant.new_game(options.as_object().unwrap()).unwrap();
        let fen = game.position_text();
        assert!(fen.starts_with(&format!("{back}/pppppppp/")), "start {number}: {fen}");
    }
}

#[test]
fn promoted_pieces_and_hands_are_shown_as_the_fen_writes_them() {
    let shogi = installed().into_iter().find(|v| v.id == "shogi").unwrap();
    let game = shogi.from_position("4k4/9/9/9/4+P4/9/9/9/4K4[PPBr] w - - 0 1", &Default::default()).unwrap();
    let view = game.observe(Viewer::Spectator).view;
    let tokin = view.pieces.iter().find(|p| p.cell == 40).unwrap();
    assert_eq!((tokin.label.as_str(), tokin.kind.as_str()), ("+P", "gold"));
    assert_eq!(view.notes[..2], ["White holds B, P×2".to_string(), "Black holds r".to_string()]);
}
