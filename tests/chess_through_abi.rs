//! The chess plugin loaded from its real `.so`: perft of every published
//! position, in the plugin and driven through the ABI, and games played by the
//! host's referee.

use arbiter::plugin::{Registry, SearchPath};
use arbiter_api::host::VariantHandle;
use arbiter_api::perft::{perft, Mode};
use arbiter_e2e::profile_dir;
use serde_json::{json, Map, Value};

fn chess() -> VariantHandle {
    let reg = Registry::load(&SearchPath::only(vec![profile_dir()]));
    assert!(reg.warnings().is_empty(), "{:?}", reg.warnings());
    reg.get("chess").expect("chess plugin built").clone()
}

/// Published perft counts only hold when games do not end on draw rules.
fn move_generation_only() -> Map<String, Value> {
    json!({"automatic_draws": false}).as_object().unwrap().clone()
}

fn check(fen: &str, depth: u32, nodes: u64) {
    let game = chess().from_position(fen, &move_generation_only()).unwrap();
    assert_eq!(perft(&game, depth, Mode::InPlugin).unwrap(), nodes, "in-plugin {fen} depth {depth}");
    assert_eq!(perft(&game, depth, Mode::Generic).unwrap(), nodes, "generic {fen} depth {depth}");
}

#[test]
fn start_position_to_depth_5() {
    check("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5, 4_865_609);
}

#[test]
fn cpw_positions_to_depth_4() {
    for (fen, nodes) in [
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -", 4_085_603),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 43_238),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 422_333),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2_103_487),
        ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3_894_594),
    ] {
        check(fen, 4, nodes);
    }
}

#[test]
fn edge_case_positions() {
    for (fen, depth, nodes) in [
        ("3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1_134_888),
        ("8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1_015_133),
        ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1_440_467),
        ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661_072),
        ("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803_711),
        ("1k6/1b6/8/8/7R/8/8/4K2R b K - 0 1", 5, 1_063_513),
    ] {
        check(fen, depth, nodes);
    }
}

#[test]
fn generic_perft_stops_where_the_game_ends_by_rule() {
    // With FIDE's automatic draws on, a game reaching K+B v K ends, so the
    // host-driven count is smaller than the move-generation count.
    let fen = "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1";
    let game = chess().from_position(fen, &Map::new()).unwrap();
    assert!(perft(&game, 6, Mode::Generic).unwrap() < 1_015_133);
    assert_eq!(perft(&game, 6, Mode::InPlugin).unwrap(), 1_015_133);
}

#[test]
fn random_games_through_the_referee_end_with_a_reason() {
    use arbiter::clock::TimeControl;
    use arbiter::players::PlayerSpec;
    use arbiter::referee::{play_game, GameConfig, StartFrom};
    let variant = chess();
    let config = GameConfig {
        time_controls: vec![TimeControl::parse("inf").unwrap(); 2],
        margin_ms: 0,
        max_plies: None,
        claim_draws: false,
        adjudication: Default::default(),
        pin_seats: false,
    };
    for seed in 0..20 {
        let mut players = [seed, seed + 100].map(|s| PlayerSpec::parse(&format!("random:seed={s}")).unwrap().create(0));
        let record = play_game(&variant, &Map::new(), StartFrom::Standard, &mut players, &config).unwrap();
        assert!(matches!(record.result.outcome, arbiter_api::Outcome::Win(_) | arbiter_api::Outcome::Draw));
        assert!(matches!(record.result.termination, arbiter::referee::Termination::Rules(_)), "{:?}", record.result);
        // Replaying the recorded SAN from the start reaches the same position.
        let mut replay = variant.new_game(&Map::new()).unwrap();
        for ply in &record.plies {
            let mv = replay.parse_move(&ply.text).unwrap();
            assert_eq!(mv, ply.mv);
            replay.apply(mv).unwrap();
        }
        assert_eq!(replay.position_text(), record.final_position);
    }
}

#[test]
fn illegal_move_ids_are_refused_and_leave_the_game_unchanged() {
    let mut game = chess().new_game(&Map::new()).unwrap();
    let before = game.position_text();
    for junk in [0, 1, u64::MAX, 0x7fff, 12 | (36 << 6)] {
        let e = game.apply(junk).unwrap_err();
        assert_eq!(e.kind, arbiter_api::ErrorKind::IllegalMove, "{junk:#x}");
        assert!(game.move_text(junk, arbiter_api::Viewer::Referee).is_err());
    }
    assert_eq!(game.position_text(), before);
}

#[test]
fn observation_follows_the_board_schema() {
    let game = chess().new_game(&Map::new()).unwrap();
    let obs = game.observe(arbiter_api::Viewer::Spectator).unwrap();
    assert_eq!(obs.view.pieces.len(), 32);
    let e1 = obs.view.pieces.iter().find(|p| p.cell == 4).unwrap();
    assert_eq!((e1.owner, e1.kind.as_str(), e1.label.as_str()), (0, "king", "K"));
    assert!(obs.text.contains("FEN rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
}
