//! Perft of the chess rules against the published tables (RULES.md §5.1:
//! Chess Programming Wiki positions and Martin Sedlak's edge cases).

use chess_rules::fen::parse_fen;
use chess_rules::game::perft;

fn count(fen: &str, depth: u32) -> u64 {
    perft(&parse_fen(fen).unwrap().board, depth)
}

#[test]
fn startpos_matches_published_counts_to_depth_5() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for (d, n) in [(1, 20), (2, 400), (3, 8_902), (4, 197_281), (5, 4_865_609)] {
        assert_eq!(count(fen, d), n, "depth {d}");
    }
}

#[test]
fn cpw_positions_match_published_counts_to_depth_4() {
    let table: [(&str, [u64; 4]); 6] = [
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", [48, 2_039, 97_862, 4_085_603]),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", [14, 191, 2_812, 43_238]),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9_467, 422_333]),
        ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", [6, 264, 9_467, 422_333]),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1_486, 62_379, 2_103_487]),
        ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2_079, 89_890, 3_894_594]),
    ];
    for (fen, counts) in table {
        for (i, n) in counts.iter().enumerate() {
            assert_eq!(count(fen, i as u32 + 1), *n, "{fen} depth {}", i + 1);
        }
    }
}

#[test]
fn position_3_matches_at_depth_5() {
    assert_eq!(count("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 5), 674_624);
}

#[test]
fn edge_case_suite_matches_published_counts() {
    let suite = [
        ("3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1_134_888),
        ("8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1_015_133),
        ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1_440_467),
        ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661_072),
        ("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803_711),
        ("1k6/1b6/8/8/7R/8/8/4K2R b K - 0 1", 5, 1_063_513),
    ];
    for (fen, depth, nodes) in suite {
        assert_eq!(count(fen, depth), nodes, "{fen}");
    }
}
