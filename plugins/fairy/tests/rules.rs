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
    let hands: Vec<(u32, &str, u32)> = view.hands.iter().map(|h| (h.owner, h.label.as_str(), h.count)).collect();
    assert_eq!(hands, [(0, "P", 2), (0, "B", 1), (1, "r", 1)]);
    // Walls stand on their squares, the duck as a duck.
    let duck = installed().into_iter().find(|v| v.id == "duck").unwrap();
    let game = duck.from_position("rnbqkbnr/pppppppp/8/4*3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", &Default::default());
    let view = game.unwrap().observe(Viewer::Spectator).view;
    assert_eq!(view.blocked.iter().map(|b| (b.cell, b.kind.as_str())).collect::<Vec<_>>(), [(36, "duck")]);
}

/// The board view's glyphs: xiangqi's and janggi's characters on their
/// counters, each side's own (帥 and 將), shogi's kanji with promoted
/// pieces' (と) and kyoto shogi's other sides, chess's figurines.
#[test]
fn pieces_are_drawn_with_each_games_own_characters() {
    let sets = |id: &str| installed().into_iter().find(|v| v.id == id).unwrap().piece_sets();
    let glyph = |id: &str, key: &str| sets(id)[0].glyphs.get(key).cloned().unwrap_or_default();
    assert_eq!(sets("xiangqi")[0].style, "xiangqi");
    assert_eq!(
        [glyph("xiangqi", "K"), glyph("xiangqi", "k"), glyph("xiangqi", "H"), glyph("xiangqi", "h")],
        ["帥", "將", "傌", "馬"]
    );
    assert_eq!(sets("janggi")[0].style, "janggi");
    assert_eq!(
        [glyph("janggi", "K"), glyph("janggi", "k"), glyph("janggi", "C"), glyph("janggi", "P")],
        ["楚", "漢", "包", "卒"]
    );
    assert_eq!(sets("shogi")[0].style, "shogi");
    assert_eq!(
        [glyph("shogi", "K"), glyph("shogi", "k"), glyph("shogi", "+P"), glyph("shogi", "+r")],
        ["玉", "王", "と", "龍"]
    );
    assert_eq!([glyph("kyotoshogi", "+L"), glyph("kyotoshogi", "+N"), glyph("kyotoshogi", "+P")], ["と", "金", "飛"]);
    assert_eq!(glyph("crazyhouse", "knight"), "♞");
    assert!(sets("crazyhouse")[0].figurines);
}

/// Every value form Fairy-Stockfish's parser reads: files as a letter or a
/// number from 1 (`maxFile = j`, `castlingKingsideFile = 7`), booleans as
/// true/false or 1/0, regions of files, ranks and squares in either case
/// up to a `-`.
#[test]
fn ini_values_read_in_every_form_fairy_stockfish_reads() {
    use arbiter_fairy::FairyVariant;
    let by_letter =
        "[tenfiles:chess]\nmaxFile = j\nstartFen = rnbqkkbnrr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKKBNRR w - - 0 1\n\
                     castling = false\n";
    let v = FairyVariant::from_ini(by_letter, "tenfiles").unwrap();
    assert_eq!(v.rules.width, 10);
    let by_number = by_letter.replace("maxFile = j", "maxFile = 10").replace("castling = false", "castling = 0");
    let v = FairyVariant::from_ini(&by_number, "tenfiles").unwrap();
    assert_eq!((v.rules.width, v.rules.castling), (10, false));
    let castle = "[castle:chess]\ncastlingKingsideFile = 7\ncastlingQueensideFile = C\nchess960 = 1\n";
    let v = FairyVariant::from_ini(castle, "castle").unwrap();
    assert_eq!((v.rules.castle_king_file, v.rules.castle_queen_file, v.rules.chess960), (6, 2, true));
    let regions = "[zones:chess]\npromotionRegionWhite = *8 A7 h*\npromotionRegionBlack = *1 - *2\n";
    let v = FairyVariant::from_ini(regions, "zones").unwrap();
    let white = &v.rules.promotion_region[0];
    let (a7, h3, b7) = (6 * 8, 2 * 8 + 7, 6 * 8 + 1);
    assert!(white[a7] && white[h3] && !white[b7] && (56..64).all(|s| white[s]));
    let black = &v.rules.promotion_region[1];
    assert!((0..8).all(|s| black[s]) && !(8..16).any(|s| black[s]), "a '-' ends the region");
    for (bad, says) in [("maxFile = 0", "maxFile: '0' is not a file"), ("castling = yes", "must be true or false")] {
        let e = FairyVariant::from_ini(&format!("[bad:chess]\n{bad}\n"), "bad").err().unwrap();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// Every key is known where it is read: `doubleStepRank` (once listed and
/// never applied) bounds the pawns' double step as Fairy-Stockfish's does
/// (from the second rank up to it, from each side's own side), and a key
/// no read asks for is refused by name.
#[test]
fn double_step_rank_is_applied_and_a_key_nothing_reads_is_refused() {
    use arbiter_fairy::FairyVariant;
    let v = FairyVariant::from_ini("[dsr:chess]\ndoubleStepRank = 3\n", "dsr").unwrap();
    let [white, black] = &v.rules.double_step_region;
    let rank = |region: &Vec<bool>, r: usize| (0..8).all(|f| region[r * 8 + f]);
    assert!(rank(white, 1) && rank(white, 2) && !rank(white, 0) && !rank(white, 3));
    assert!(rank(black, 6) && rank(black, 5) && !rank(black, 7) && !rank(black, 4));
    let game = v.from_position("4k3/8/8/8/8/P7/1P6/4K3 w - - 0 1", &Default::default()).unwrap();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let texts: Vec<String> = moves.iter().map(|&m| game.uci(m)).collect();
    assert!(texts.iter().any(|t| t == "a3a5") && texts.iter().any(|t| t == "b2b4"), "{texts:?}");
    let e = FairyVariant::from_ini("[min:chess]\ndoubleStepRankMin = 3\n", "min").err().unwrap();
    assert!(e.contains("doubleStepRankMin: unknown key"), "{e}");
}

/// Plays `moves` (Fairy-Stockfish's coordinates) in `variant` from `fen`
/// and returns the status after each.
fn statuses(variant: &str, fen: &str, moves: &[&str]) -> Vec<arbiter_api::Status> {
    let v = installed().into_iter().find(|v| v.id == variant).unwrap();
    let mut game = v.from_position(fen, &Default::default()).unwrap();
    moves
        .iter()
        .map(|m| {
            let mv = game.parse_move(m).unwrap_or_else(|e| panic!("{variant} {m}: {e:?}"));
            game.play(mv);
            game.status()
        })
        .collect()
}

/// Repetitions that decide the game as Fairy-Stockfish (pyffish's
/// `is_optional_game_end`) decides them on the same moves: in shogi and
/// xiangqi the side that checked with every move of the repetition loses
/// at its fourth (third) occurrence, in xiangqi the side that chased; a quiet repetition is a draw to claim;
/// in minishogi any repetition loses for sente, in tori shogi for whoever
/// completes it.
#[test]
fn repetitions_lose_for_perpetual_check_and_where_the_variant_says() {
    use arbiter_api::Outcome;
    let cycle = |a: &str, b: &str, c: &str, d: &str, times: usize| -> Vec<String> {
        [a, b, c, d].iter().cycle().take(4 * times).map(|s| s.to_string()).collect()
    };
    let run = |variant: &str, fen: &str, moves: &[String]| {
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        statuses(variant, fen, &moves)
    };
    // Sente's rook checks along ranks 9 and 8 while gote's king steps.
    let shogi = "4k4/R8/9/9/9/9/9/9/4K4[] w - - 0 1";
    let s = run("shogi", shogi, &cycle("a8a9", "e9e8", "a9a8", "e8e9", 3));
    assert!(s[..11].iter().all(|s| s.is_ongoing() && s.claimable.is_empty()), "{s:?}");
    assert_eq!((s[11].outcome, s[11].reason), (Outcome::Win(1), "perpetual check"), "sente checked: sente loses");
    // Rooks stepping aside and back: a fourth occurrence, drawn (claimable).
    let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[] w - - 0 1";
    let s = run("shogi", start, &cycle("h2g2", "b8c8", "g2h2", "c8b8", 3));
    assert!(s[..11].iter().all(|s| s.claimable.is_empty()), "{s:?}");
    assert!(s[11].is_ongoing() && s[11].claimable == "repetition", "{:?}", s[11]);
    // Xiangqi: the third occurrence, with checks throughout.
    let xiangqi = "4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1";
    let s = run("xiangqi", xiangqi, &cycle("a9a10", "e10e9", "a10a9", "e9e10", 2));
    assert_eq!((s[7].outcome, s[7].reason), (Outcome::Win(1), "perpetual check"));
    // Xiangqi: Red's cannon going b7-d7 and back while Black's goes g9-b9
    // and back chases with every move: at the third occurrence Red loses,
    // as Fairy-Stockfish judges it (its AXF rule).
    let chase = "1rb1kab2/6c2/2n2a2n/1C2p1p2/9/p5B1p/P1P1P1P1P/3r2N2/1R1N1KR2/cCBA1A3 w - - 3 26";
    let s = statuses("xiangqi", chase, &["b7d7", "g9b9", "d7b7", "b9g9", "b7d7", "g9b9", "d7b7", "b9g9"]);
    assert!(s[..7].iter().all(|s| s.is_ongoing() && s.claimable.is_empty()), "{s:?}");
    assert_eq!((s[7].outcome, s[7].reason), (Outcome::Win(1), "perpetual chase"));
    // Xiangqi's 50-move rule (its count from the FEN): claimable at the
    // hundredth ply without a capture.
    let quiet = "4k4/9/9/9/9/9/9/9/R8/3K5 w - - 96 60";
    let s = statuses("xiangqi", quiet, &["a2a3", "e10e9", "a3a4", "e9e10"]);
    assert!(s[..3].iter().all(|s| s.claimable.is_empty()) && s[3].claimable == "n-move rule", "{s:?}");
    // Minishogi: a quiet repetition loses for sente, to move or not.
    let mini = "rbsgk/4p/5/P4/KGSBR[] w - - 0 1";
    let s = run("minishogi", mini, &cycle("e1e2", "a5a4", "e2e1", "a4a5", 3));
    assert_eq!((s[11].outcome, s[11].reason), (Outcome::Win(1), "repetition"));
    let gote_to_move = "rbsgk/4p/5/P4/KGSBR[] b - - 0 1";
    let s = run("minishogi", gote_to_move, &cycle("a5a4", "e1e2", "a4a5", "e2e1", 3));
    assert_eq!((s[11].outcome, s[11].reason), (Outcome::Win(1), "repetition"), "gote to move: sente still loses");
    // Tori shogi: whoever completes the fourth occurrence loses.
    let tori = "rpckcpl/3f3/sssssss/2s1S2/SSSSSSS/3F3/LPCKCPR[] w - - 0 1";
    let s = run("torishogi", tori, &cycle("d2c2", "d6c6", "c2d2", "c6d6", 3));
    assert_eq!((s[11].outcome, s[11].reason), (Outcome::Win(0), "repetition"), "gote completed it");
}

/// Janggi's ends as Fairy-Stockfish (pyffish's `is_immediate_game_end` and
/// `is_optional_game_end`) gives them on the same moves: two passes, and
/// kings left facing by a pass (bikjang), are scored by points (Black's
/// komi wins a tie) or drawn under the traditional rules; under the modern
/// rules a piece moved back and forth twice loses, after a pass too.
#[test]
fn janggi_ends_by_points_bikjang_and_move_repetition() {
    use arbiter_api::Outcome;
    let start = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
    let end = |variant: &str, fen: &str, moves: &[&str]| {
        let s = statuses(variant, fen, moves);
        assert!(s[..s.len() - 1].iter().all(|s| s.is_ongoing()), "{variant}: {s:?}");
        let last = s.last().unwrap();
        (last.outcome, last.reason)
    };
    assert_eq!(end("janggi", start, &["e2e2", "e9e9"]), (Outcome::Win(1), "material count"));
    assert_eq!(end("janggitraditional", start, &["e2e2", "e9e9"]), (Outcome::Draw, "two passes"));
    let facing = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
    assert_eq!(end("janggi", facing, &["e1e1"]), (Outcome::Win(1), "material count"));
    assert_eq!(end("janggitraditional", facing, &["e1e1"]), (Outcome::Draw, "bikjang"));
    // Facing kings must be parted: the king steps aside, or passes.
    let v = installed().into_iter().find(|v| v.id == "janggi").unwrap();
    let game = v.from_position(facing, &Default::default()).unwrap();
    let mut ids = Vec::new();
    game.legal_moves(&mut ids);
    let mut moves: Vec<String> = ids.iter().map(|&m| game.uci(m)).collect();
    moves.sort();
    assert_eq!(moves, ["e1d1", "e1e1", "e1f1"]);
    // A pass read as its coordinates, its notation, xboard's `@@@@` or UCI's `0000`.
    let pass: Vec<u64> = ["e1e1", "Ke1", "@@@@", "0000"].iter().map(|t| game.parse_move(t).unwrap()).collect();
    assert!(pass.iter().all(|&m| m == pass[0]), "{pass:?}");
    // Kakao rules: White's horse back and forth twice (its third trip out loses).
    let trips = ["b1c3", "b10c8", "c3b1", "c8b10", "b1c3", "b10c8", "c3b1", "c8b10", "b1c3"];
    assert_eq!(end("janggimodern", start, &trips), (Outcome::Win(1), "move repetition"));
    // Under the other rules the third occurrence comes first, scored by points.
    assert_eq!(end("janggi", start, &trips[..8]), (Outcome::Win(1), "material count"));
    // After a pass, Black's horse back and forth twice.
    let after_pass = ["e2e2", "b10c8", "a1a2", "c8b10", "a2a1", "b10c8", "a1a2", "c8b10", "a2a1", "b10c8"];
    assert_eq!(end("janggimodern", start, &after_pass), (Outcome::Win(0), "move repetition"));
}

/// Every legal move's text in `variant` at `fen`, as the referee writes it.
fn written(variant: &str, fen: &str) -> (arbiter_fairy::FairyGame, Vec<String>) {
    let v = installed().into_iter().find(|v| v.id == variant).unwrap();
    let game = v.from_position(fen, &Default::default()).unwrap();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let texts = moves.iter().map(|&m| game.move_text(m, Viewer::Referee)).collect();
    (game, texts)
}

#[test]
fn moves_are_written_in_the_variants_notation_and_read_back_in_any_common_form() {
    // SAN: file before rank to tell knights apart, a pawn's capture by its
    // file, promotion with check, castling, mate.
    let (game, texts) = written("fairy-chess", "r3k2r/1P6/8/8/8/1N3N2/8/R3K2R w KQkq - 0 1");
    for t in ["Nbd2", "Nfd4", "bxa8=Q+", "b8=N", "O-O", "O-O-O"] {
        assert!(texts.iter().any(|x| x == t), "{t} in {texts:?}");
    }
    let (_, texts) = written("fairy-chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert!(texts.iter().any(|x| x == "Ra8#"), "{texts:?}");
    // Read back: the text, without or with other marks, or coordinates.
    let castle = game.parse_move("O-O").unwrap();
    for t in ["0-0", "O-O!", "e1g1"] {
        assert_eq!(game.parse_move(t).unwrap(), castle, "{t}");
    }
    assert_eq!(game.parse_move("bxa8=Q").unwrap(), game.parse_move("b7a8q").unwrap());
    assert!(game.parse_move("Nc3d5").is_err() && game.parse_move("").is_err());
    // Shogi: numbered squares from the right and the top, drops with `*`,
    // `+` to promote and `=` to decline, a promoted piece as `+` and its
    // letter; no check marks.
    let (game, texts) = written("shogi", "4k4/9/9/9/9/9/1B7/2+R6/4K4[P] w - - 0 1");
    for t in ["P*55", "B-43+", "B-43=", "B-76", "+R-77"] {
        assert!(texts.iter().any(|x| x == t), "{t} in {texts:?}");
    }
    assert_eq!(game.parse_move("P*55").unwrap(), game.parse_move("P@e5").unwrap());
    // Xiangqi: the horse and elephant as H and E (N and B in FEN).
    let (_, texts) = written("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    for t in ["Hc3", "Ece3", "Che3"] {
        assert!(texts.iter().any(|x| x == t), "{t} in {texts:?}");
    }
}
