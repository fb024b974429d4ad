//! Round trips over every position of a few hundred seeded random games:
//! FEN out and back in, and every legal move through SAN and UCI and back.
//! Two tests of 150 games (two seeds), which run side by side.

use arbiter_api::kit::{Game, Viewer};
use chess_rules::{san, ChessGame};

/// A small deterministic generator so the games are the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[test]
fn fen_san_and_uci_round_trip_in_random_games() {
    round_trips_in_150_games(2026);
}

#[test]
fn fen_san_and_uci_round_trip_in_more_random_games() {
    round_trips_in_150_games(2027);
}

/// Every round trip at every position of 150 random games from `seed`.
fn round_trips_in_150_games(seed: u64) {
    let mut rng = SplitMix(seed);
    let mut positions = 0;
    for _ in 0..150 {
        let mut g = ChessGame::from_fen(chess_rules::fen::START_FEN, true).unwrap();
        let mut moves = Vec::new();
        for _ in 0..300 {
            moves.clear();
            g.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            positions += 1;
            let fen = g.fen();
            let back = ChessGame::from_fen(&fen, true).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(back.fen(), fen);
            let mut sans = std::collections::HashSet::new();
            for &m in &moves {
                let text = g.move_text(m, Viewer::Referee);
                assert!(sans.insert(text.clone()), "duplicate SAN {text} in {fen}");
                assert_eq!(g.parse_move(&text).unwrap(), m, "SAN {text} in {fen}");
                let mv = chess_rules::game::decode(m).unwrap();
                let uci = san::to_uci(g.board(), mv);
                assert_eq!(g.parse_move(&uci).unwrap(), m, "UCI {uci} in {fen}");
            }
            let pick = moves[(rng.next() % moves.len() as u64) as usize];
            g.play(pick);
        }
    }
    assert!(positions > 10_000, "only {positions} positions visited");
}
