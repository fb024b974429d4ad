//! Hostile input: mangled FENs and moves for every ini variant are errors or
//! positions, never a panic (a panic would void a game as a plugin fault).

use arbiter_api::kit::{Game, Variant};
use arbiter_fairy::installed;
use rand::{Rng, SeedableRng};

#[test]
fn mangled_positions_and_moves_never_panic() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let alphabet: Vec<char> = "pnbrqkPNBRQK+~[]/-0123456789 wbKQkq@abcdefghijkl*".chars().collect();
    for v in installed() {
        let start = v.info().start_position;
        let mut tried = 0;
        for _ in 0..300 {
            let mut text: Vec<char> = start.chars().collect();
            for _ in 0..rng.random_range(1..6) {
                let at = rng.random_range(0..text.len().max(1));
                match rng.random_range(0..4) {
                    0 if !text.is_empty() => {
                        text.remove(at.min(text.len() - 1));
                    }
                    1 => text.insert(at.min(text.len()), alphabet[rng.random_range(0..alphabet.len())]),
                    2 if !text.is_empty() => {
                        let i = at.min(text.len() - 1);
                        text[i] = alphabet[rng.random_range(0..alphabet.len())];
                    }
                    _ => text.extend(std::iter::repeat_n('P', rng.random_range(0..300))),
                }
            }
            let text: String = text.into_iter().collect();
            if let Ok(game) = v.from_position(&text, &Default::default()) {
                tried += 1;
                let mut moves = Vec::new();
                game.legal_moves(&mut moves);
                let _ = game.status();
                let _ = game.position_text();
                let _ = game.perft(2);
                for junk in ["", "e2", "P@", "z9z9", "a1a1+", "@@", "e7e8x", "k@e4"] {
                    let _ = game.parse_move(junk);
                }
            }
        }
        assert!(tried > 0 || v.id == "placement", "{}: no mangled position was readable", v.id);
    }
}

#[test]
fn crafted_hostile_positions_are_one_line_errors_or_positions() {
    let all = installed();
    let get = |id: &str| all.iter().find(|v| v.id == id).unwrap();
    let pawns = "P".repeat(300);
    let cases: Vec<(&str, String)> = vec![
        ("crazyhouse", format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{pawns}] w KQkq - 0 1")),
        ("crazyhouse", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8/8[] w KQkq - 0 1".into()),
        (
            "chess".replace("chess", "fairy-chess").leak(),
            "rnbqkbnr/pppppppp/99/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        ),
        ("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+[-] w 0 1".into()),
        ("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+K[-] w 0 1".into()),
        ("crazyhouse", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN~[] w KQkq - 0 1".into()),
        ("3check", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999+1 0 1".into()),
        ("fairy-chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQkqabc - 99999999999 0".into()),
        ("fairy-chess", "8/8/8/8/8/8/8/8 w - - 0 1".into()),
        ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - z9 0 1".into()),
    ];
    for (id, fen) in cases {
        match get(id).from_position(&fen, &Default::default()) {
            Err(e) => assert!(!e.message.contains('\n') && !e.message.is_empty(), "{id}: {e:?}"),
            Ok(game) => {
                let _ = game.perft(2);
                let _ = game.position_text();
            }
        }
    }
}

#[test]
fn a_castling_file_without_its_king_on_the_castling_rank_is_dropped_and_reads_back_as_written() {
    let all = installed();
    let seirawan = all.iter().find(|v| v.id == "seirawan").unwrap();
    // Black's king is on f6, far from its castling rank: the file letter 'h'
    // names a rook it cannot castle with (found by the fuzz test: it was kept
    // and written back as 'k', which then read back as no right at all).
    let text = "2nrqb1r/p5e1/np2Pkp1/2PQ1P1p/1P6/B3P2N/P5PP/R2K1BER[] w h - 1 31";
    let game = seirawan.from_position(text, &Default::default()).unwrap();
    let written = game.position_text();
    assert!(written.contains(" w - - "), "{written}");
    let again = seirawan.from_position(&written, &Default::default()).unwrap();
    assert_eq!(again.position_text(), written);
}
