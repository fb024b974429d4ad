//! The ini plugin against Fairy-Stockfish's rules (pyffish, an independent
//! oracle run as a separate Python process, never linked): for every
//! variant of the list, the start position, and positions of seeded random
//! games, must give the same FEN, the same legal moves, and the same perft
//! counts. A fast sample runs by default (the start and one random game's
//! end per variant, to depth 2: each pyffish call costs about 2 ms, so
//! the sample is most of this crate's test time); the long run, eight games
//! a variant to depth 3, is `--ignored`.

use arbiter_api::kit::{Game, Variant};
use arbiter_fairy::{installed, FairyVariant};
use serde_json::Value;

/// The variants the plugin plays exactly, by Fairy-Stockfish's name.
pub const EXACT: &[&str] = &[
    "chess",
    "normal",
    "nocastle",
    "kingofthehill",
    "3check",
    "5check",
    "crazyhouse",
    "loop",
    "chessgi",
    "pocketknight",
    "capahouse",
    "antichess",
    "giveaway",
    "losers",
    "extinction",
    "horde",
    "misere",
    "capablanca",
    "gothic",
    "embassy",
    "janus",
    "centaur",
    "chancellor",
    "modern",
    "amazon",
    "almost",
    "sortofalmost",
    "chigorin",
    "hoppelpoppel",
    "newzealand",
    "knightmate",
    "nightrider",
    "grasshopper",
    "torpedo",
    "shako",
    "gardner",
    "losalamos",
    "makruk",
    "ai-wok",
    "asean",
    "shatranj",
    "chaturanga",
    "breakthrough",
    "clobber",
    "clobber10",
    "shogi",
    "minishogi",
    "mini",
    "judkins",
    "gorogoro",
    "xiangqi",
    "minixiangqi",
    "fairy",
    "raazuvaa",
    "kinglet",
    "codrus",
    "threekings",
    "fox-and-hounds",
    "paradigm",
    "perfect",
    "tencubed",
    "jesonmor",
    "courier",
    "dragon",
    "euroshogi",
    "yarishogi",
    "okisakishogi",
    "checkshogi",
    "georgian",
    "racingkings",
    "makpong",
    "suicide",
    "armageddon",
    "gustav3",
    "omicron",
    "troitzky",
    "joust",
    "grand",
    "opulent",
    "torishogi",
    "fischerandom",
    "caparandom",
    "nocheckatomic",
    "atomic",
    "atomar",
    "coregal",
    "shoshogi",
    "dobutsu",
    "shatar",
    "kyotoshogi",
    "micro",
    "seirawan",
    "shouse",
    "pawnsideways",
    "pawnback",
    "legan",
    "berolina",
    "petrified",
    "manchu",
    "snailtrail",
    "duck",
    "amazons",
    "isolation",
    "isolation7x7",
    "cambodian",
    "karouk",
    "flipersi",
    "flipello",
    "flipello10",
    "ataxx",
    "placement",
    "sittuyin",
    "janggi",
    "janggitraditional",
    "janggimodern",
    "janggicasual",
    "wolf",
    "spartan",
];

fn variant(name: &str) -> FairyVariant {
    let all = installed();
    all.into_iter().find(|v| v.rules.id == name).unwrap_or_else(|| panic!("no ini variant {name}"))
}

fn oracle(variants: &[&str], depth: u32, games: u32, plies: u32, san: bool) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle.py");
    let mut args =
        vec![script.to_string(), variants.join(","), depth.to_string(), games.to_string(), plies.to_string()];
    if san {
        args.push("san".into());
    }
    let out = std::process::Command::new("python3").args(args).output().expect("python3");
    assert!(out.status.success(), "pyffish (pip install pyffish): {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn agree(variants: &[&str], depth: u32, games: u32, plies: u32) {
    agree_with(variants, depth, games, plies, false)
}

/// As [`agree`], and with `san` every legal move's text must be what
/// Fairy-Stockfish writes by default.
fn agree_with(variants: &[&str], depth: u32, games: u32, plies: u32, san: bool) {
    let mut failures = Vec::new();
    for case in oracle(variants, depth, games, plies, san) {
        let name = case["variant"].as_str().unwrap();
        let fen = case["fen"].as_str().unwrap();
        let v = variant(name);
        let game = match v.from_position(fen, &Default::default()) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name} {fen}: {e}"));
                continue;
            }
        };
        let written = case["written"].as_str().unwrap();
        if game.position_text() != written {
            failures
                .push(format!("{name}: FEN {fen} written back as {}, Fairy-Stockfish {written}", game.position_text()));
        }
        let mut ids = Vec::new();
        game.legal_moves(&mut ids);
        let mut ours: Vec<String> = ids.iter().map(|&m| game.uci(m)).collect();
        ours.sort();
        let theirs: Vec<String> =
            case["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
        if ours != theirs && !(ours.is_empty() && game.status().outcome != arbiter_api::Outcome::Ongoing) {
            let extra: Vec<&String> = ours.iter().filter(|m| !theirs.contains(m)).collect();
            let missing: Vec<&String> = theirs.iter().filter(|m| !ours.contains(m)).collect();
            failures.push(format!("{name} {fen}: moves: extra {extra:?}, missing {missing:?}"));
            continue;
        }
        // Every move leads where Fairy-Stockfish's does, counters and all.
        for &id in &ids {
            let text = game.uci(id);
            if san {
                let written = game.move_text(id, arbiter_api::Viewer::Referee);
                let want = case["san"][&text].as_str().unwrap_or_default();
                if written != want {
                    failures.push(format!("{name} {fen}: {text} written {written}, Fairy-Stockfish {want}"));
                }
                match game.parse_move(&written) {
                    Ok(back) if back == id => {}
                    other => failures.push(format!("{name} {fen}: {written} read back as {other:?}, not {text}")),
                }
            }
            // The sample leaves out the positions after each of a thousand moves.
            if case["children"].is_null() {
                continue;
            }
            let mut child = game.clone();
            child.play(id);
            let want = case["children"][&text].as_str().unwrap_or_default();
            if child.position_text() != want {
                failures
                    .push(format!("{name} {fen}: after {text}: {} , Fairy-Stockfish {want}", child.position_text()));
            }
        }
        for (d, want) in case["counts"].as_array().unwrap().iter().enumerate() {
            let got = game.perft(d as u32 + 1);
            if got != want.as_u64().unwrap() {
                failures.push(format!("{name} {fen}: perft {} is {got}, Fairy-Stockfish says {want}", d + 1));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

/// The first or second half of [`EXACT`]: two tests, so that the two
/// halves (each a pyffish process) run side by side.
fn half(second: bool) -> &'static [&'static str] {
    let (first, rest) = EXACT.split_at(EXACT.len() / 2);
    if second {
        rest
    } else {
        first
    }
}

#[test]
fn every_exact_variant_agrees_with_fairy_stockfish_on_a_sample() {
    // ARBITER_ORACLE_VARIANTS=a,b checks those instead (while writing a definition).
    match std::env::var("ARBITER_ORACLE_VARIANTS") {
        Ok(list) => agree(&list.split(',').collect::<Vec<_>>(), 2, 3, 40),
        Err(_) => agree(half(false), 2, 1, 30),
    }
}

#[test]
fn the_other_half_of_the_exact_variants_agrees_with_fairy_stockfish_on_a_sample() {
    if std::env::var("ARBITER_ORACLE_VARIANTS").is_err() {
        agree(half(true), 2, 1, 30);
    }
}

/// Positions given as FEN (`variant@FEN`) agree with Fairy-Stockfish, and
/// so do short random games from each.
fn given_starts_agree(starts: &[&str]) {
    agree(starts, 2, 3, 80);
}

#[test]
fn given_starts_agree_with_fairy_stockfish() {
    // Pawnless endings where makruk's and ASEAN's counts run (the limit in
    // the en passant field, the count in the halfmove field), and S-chess
    // castling with a piece gated on the king's or the rook's square.
    given_starts_agree(&[
            "seirawan@r3k2r/8/8/8/8/8/8/R3K2R[HEhe] w KQkq - 0 1",
            "seirawan@r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[H] w KQBCDFGkq - 0 1",
            "shouse@r3k2r/8/8/8/8/8/8/R3K2R[HEhe] w KQkq - 0 1",
            "makruk@8/8/8/4k3/8/3r4/8/R3K3 w - - 0 1",
            "makruk@8/8/2s5/4k3/8/3r4/1N6/R3K3 w - - 0 1",
            "makruk@8/8/8/4k3/8/2Pr4/8/R3K3 w - - 0 1",
            "makpong@8/8/8/4k3/8/3n4/8/R2SK3 w - - 0 1",
            "asean@8/8/8/4k3/8/3r4/8/R3K3 w - - 0 1",
            "asean@8/8/2b5/4k3/8/3r4/1N6/R3K3 w - - 0 1",
            // Chessgi is loop chess: a promoted piece is not marked `~`.
            "chessgi@rnb2pnb/1k1pPQ2/p2q2p1/2p4r/2P5/P3P3/PP1PB1PP/R1BN1KNR[Pp] w - - 4 21",
            // Berolina: a diagonal double step passing a pawn that takes
            // straight ahead (en passant), and one it may not take.
            "berolina@4k3/8/8/8/2p5/8/1P1P4/4K3 w - - 0 1",
            "berolina@4k3/6p1/8/5P2/8/8/8/4K3 b - - 0 1",
            // Petrified: a bishop that takes turns to stone; a king may not
            // take (it would be lost), so a pawn's check must be escaped.
            "petrified@4k3/8/8/3p4/4B3/8/8/4K3 w - - 0 1",
            "petrified@4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",
            // A pawn that takes and promotes to a petrifying queen stays a queen.
            "petrified@5bnr/p1knp1pp/2b1r3/4ppB1/QP5P/N4P*1/5pB1/R4KNR b - - 3 28",
            // Cambodian chess: a rook onto the king's rank takes its leap
            // away (even past a piece between); no leap out of check.
            "cambodian@3mk3/8/8/8/8/8/8/R2KM3 w DEde - 0 1",
            "cambodian@4k3/8/8/8/8/8/8/3KMR2 b DEde - 0 1",
            // Flipello: Black has no move but to pass, its first stone
            // staying put (`a1a1`); White then has a square to fill.
            "flipello@PPPPPPpP/pPpPpp1P/ppPPppPP/pppPppPP/pPpPPPPP/pPPPPPPP/pppPPpPP/p1pppp1P[PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPpppppppppppppppppppppppppppppppp] b - - 0 29",
            // Placement: rooks in the corners, then the king dropped on e1
            // castles with them; bishops must take both colours.
            "placement@8/pppppppp/8/8/8/8/PPPPPPPP/R6R[KQBBNNkqrrbbnn] w - - 0 1",
            // Sittuyin: a last pawn promotes anywhere, in place or a step
            // away, never attacking; two pawns, only in the zone.
            "sittuyin@k7/8/8/3P4/8/8/8/4K3 w - - 0 50",
            "sittuyin@k7/8/2r5/3P4/8/5P2/8/4K3 w - - 0 1",
    ]);
}

/// The other half of the given starts (a test of their own, so that the
/// halves run side by side).
#[test]
fn more_given_starts_agree_with_fairy_stockfish() {
    given_starts_agree(&[
        // Janggi: kings facing (bikjang) must be parted or passed; cannons
        // neither hop over nor take each other, on files and on the
        // palace's diagonals; rooks, soldiers, advisors and kings move
        // along the diagonals; elephants blocked on either square.
        "janggi@4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
        "janggi@3ak4/9/9/9/9/9/9/5p3/4N4/3CK4 w - - 0 1",
        "janggi@3ak4/9/9/9/9/9/9/5p3/4c4/3CK4 w - - 0 1",
        "janggi@3ak4/4c4/3C1R3/9/9/9/9/3r5/4P4/4K4 w - - 0 1",
        "janggi@4k4/4a4/3R5/9/9/9/9/9/9/4K4 w - - 0 1",
        "janggimodern@4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
        // Spartan: one of two kings may be left in check, not both
        // (duple check); a hoplite promotes, to a second king too.
        "spartan@4k1k1/8/8/8/8/8/8/4K1Q1 b - - 0 1",
        "spartan@4k1k1/8/8/8/8/8/3P4/4R1RK b - - 0 1",
        "spartan@7k/8/8/8/8/8/h7/1N2K3 b - - 0 1",
        "spartan@4k1k1/8/8/8/8/8/h7/1N2K3 b - - 0 1",
        // Wolf: a sergeant's double step may be taken en passant by a
        // pawn, not by a sergeant; a pawn may also promote to an elephant.
        "wolf@k7/8/8/8/8/8/1p6/8/S7/7K w - - 0 1",
        "wolf@k7/8/8/8/8/8/1s6/8/P7/7K w - - 0 1",
        "wolf@k7/2P5/8/8/8/8/8/8/8/7K w - - 0 1",
        // Pawn sideways: an en passant square written with the pawn's.
        "pawnsideways@4k3/8/8/8/2pP4/8/8/4K3 b - d3d4 0 1",
    ]);
}

#[test]
#[ignore = "long: perft 3 over 8 random games per variant"]
fn every_exact_variant_agrees_with_fairy_stockfish_at_depth_3() {
    match std::env::var("ARBITER_ORACLE_VARIANTS") {
        Ok(list) => agree(&list.split(',').collect::<Vec<_>>(), 3, 8, 60),
        Err(_) => agree(EXACT, 3, 8, 60),
    }
}

/// Variants whose notation has something of its own: drops, gating,
/// shogi's and its promotions, synonyms (xiangqi), walls, pawns that are
/// not chess pawns, castling of every width.
const NOTATION_SAMPLE: &[&str] = &[
    "chess",
    "crazyhouse",
    "seirawan",
    "shogi",
    "minishogi",
    "kyotoshogi",
    "torishogi",
    "xiangqi",
    "janggi",
    "manchu",
    "isolation",
    "sittuyin",
    "makruk",
    "capablanca",
    "grand",
    "atomic",
    "berolina",
    "fischerandom",
];

#[test]
fn moves_are_written_as_fairy_stockfish_writes_them() {
    match std::env::var("ARBITER_ORACLE_VARIANTS") {
        Ok(list) => agree_with(&list.split(',').collect::<Vec<_>>(), 1, 4, 80, true),
        Err(_) => agree_with(NOTATION_SAMPLE, 1, 1, 80, true),
    }
}

#[test]
#[ignore = "long: every exact variant's notation over 8 random games"]
fn every_exact_variant_writes_moves_as_fairy_stockfish_does() {
    agree_with(EXACT, 1, 8, 80, true)
}

#[test]
fn start_positions_are_the_ones_fairy_stockfish_gives() {
    for v in installed() {
        let game = v.new_game(&Default::default()).unwrap();
        assert_eq!(game.position_text(), v.info().start_position, "{}", v.id);
    }
}

#[test]
fn every_built_in_section_loads() {
    let names: Vec<String> =
        arbiter_fairy::ini::parse("built-in", arbiter_fairy::BUILT_IN).unwrap().into_iter().map(|s| s.name).collect();
    let problems: Vec<String> =
        names.iter().filter_map(|n| FairyVariant::from_ini("", n).err().map(|e| format!("{n}: {e}"))).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(installed().len(), names.len());
}

/// Fairy-Stockfish's word on each (variant, FEN) of `cases`: whether the
/// game has ended (by an immediate rule or for want of a move), its value
/// for the side to move (positive: it has won), and the legal moves. One
/// Python process for them all (starting one takes most of a second).
fn fairy_stockfish_verdicts(cases: &[(&str, &str)]) -> Vec<(bool, i64, Vec<String>)> {
    let script = "import pyffish as sf, sys, json
for line in sys.stdin:
    v, f = json.loads(line)
    ended, value = sf.is_immediate_game_end(v, f, [])
    moves = [] if ended else sorted(sf.legal_moves(v, f, []))
    if not ended and not moves:
        ended, value = True, sf.game_result(v, f, [])
    print(json.dumps([ended, value, moves]))";
    let input: String = cases.iter().map(|case| format!("{}\n", serde_json::json!(case))).collect();
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "pyffish (pip install pyffish) failed");
    let verdicts: Vec<(bool, i64, Vec<String>)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("pyffish's verdict"))
        .collect();
    assert_eq!(verdicts.len(), cases.len(), "a verdict for each case");
    verdicts
}

#[test]
fn ends_and_moves_agree_with_fairy_stockfish_on_crafted_positions() {
    let cases: &[(&str, &str)] = &[
        ("shatranj", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"),
        ("shatranj", "8/8/8/4k3/8/8/8/R3K3 b - - 0 1"),
        ("shatranj", "8/8/8/3rk3/8/8/8/R3K3 w - - 0 1"),
        ("shatranj", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        ("kingofthehill", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        ("kingofthehill", "8/8/8/3K4/8/8/8/4k3 b - - 0 1"),
        ("3check", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0+3 0 1"),
        ("3check", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0+3 0 1"),
        ("3check", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1 +3+0"),
        ("antichess", "8/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("horde", "rnbqkbnr/pppppppp/8/8/8/8/8/8 w kq - 0 1"),
        ("breakthrough", "P7/8/8/8/8/8/8/7p b - - 0 1"),
        ("losers", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("losers", "4k3/8/8/8/8/8/3N4/4K3 b - - 0 1"),
        ("losers", "4k3/8/8/3n4/8/8/3P4/4K3 w - - 0 1"),
        ("extinction", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w - - 0 1"),
        ("extinction", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBK1BNR w - - 0 1"),
        // Racing kings: White's king first, Black may follow for a draw; Black's first wins.
        ("racingkings", "7K/8/8/8/8/8/k7/8 b - - 0 1"),
        ("racingkings", "7K/k7/8/8/8/8/8/8 b - - 0 1"),
        ("racingkings", "k6K/8/8/8/8/8/8/8 w - - 0 1"),
        ("racingkings", "k7/8/8/8/8/8/8/7K w - - 0 1"),
        ("racingkings", "8/8/8/8/8/3k4/8/K1R5 w - - 0 1"),
        // Jeson mor: the centre counts once the knight has survived a move there.
        ("jesonmor", "9/9/9/9/4N4/9/9/9/n8 b - - 0 1"),
        ("jesonmor", "9/9/9/9/4N4/9/9/9/n8 w - - 0 1"),
        // Suicide: a stalemate goes to the side with fewer pieces; armageddon's draws to Black.
        ("suicide", "8/8/8/8/8/p7/P7/7k w - - 0 1"),
        ("suicide", "8/8/8/8/8/p7/P7/8 w - - 0 1"),
        ("armageddon", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
        // Makpong: a king in check may only take its checker.
        ("makpong", "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"),
        ("makpong", "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1"),
        ("makpong", "4k3/8/8/8/8/4r3/8/4K3 w - - 0 1"),
        // Grand: promotion only to a kind the side has lost, and a must on the last rank.
        ("grand", "k9/3P6/10/10/10/10/10/10/10/K9 w - - 0 1"),
        ("grand", "k9/10/3P6/10/10/10/10/10/QR8/KR8 w - - 0 1"),
        // Joust: walls left behind; a knight with no square left loses.
        ("joust", "8/8/8/8/8/**6/**6/N*6 w - - 0 1"),
        // Chess960 castling: king takes rook, the king staying put or the rook on its square.
        ("fischerandom", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"),
        ("fischerandom", "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1"),
        ("fischerandom", "rk6/8/8/8/8/8/8/RK5r w Aa - 0 1"),
        ("fischerandom", "qk5r/8/8/8/8/8/8/RK6 w A - 0 1"),
        ("caparandom", "r4k3r/10/10/10/10/10/10/R4K3R w KQkq - 0 1"),
        // Black's pieces are White's turned half round: a left quail keeps its side.
        ("torishogi", "3k3/3l3/7/7/4r2/2L4/3K3[-] w 0 1"),
        ("torishogi", "3k3/3l3/7/7/4r2/2L4/3K3[-] b 0 1"),
        // Atomic: touching kings, a blast that takes the enemy king, one that would take our own.
        ("atomic", "8/8/8/3kK3/8/8/8/8 w - - 0 1"),
        ("atomic", "4k3/4q3/8/8/8/8/4R3/4K3 w - - 0 1"),
        ("atomic", "4k3/8/8/8/8/8/3qQ3/4K3 w - - 0 1"),
        ("atomic", "8/8/8/8/8/8/8/4K3 b - - 0 1"),
        ("atomic", "r3k2r/8/8/8/8/8/8/R3K1qR w KQkq - 0 1"),
        ("atomar", "8/8/8/3kK3/8/8/8/8 w - - 0 1"),
        ("atomar", "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"),
        ("nocheckatomic", "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"),
        // Coregal: a queen attacked must be saved like a king.
        ("coregal", "1nbqkb2/r1pp2pr/p5n1/1p2PpB1/1P2P2p/N1PP1B1P/P5P1/R2QK1NR b KQ - 3 16"),
        // Dobutsu: the lion on the far rank wins only where it cannot be taken.
        ("dobutsu", "1L1/3/1l1/3[-] b 0 1"),
        ("dobutsu", "1Lg/3/1l1/3[-] b 0 1"),
        ("dobutsu", "1L1/3/1l1/3[-] w 0 1"),
        ("dobutsu", "1L1/3/3/1l1[-] w 0 1"),
        // Shatar: a rook's mate counts, a bishop's alone draws, a knight's alone loses.
        ("shatar", "k7/2K5/8/8/8/8/8/R7 b - - 0 1"),
        ("shatar", "k7/P7/1K6/8/8/8/8/7B b - - 0 1"),
        ("shatar", "k7/2N5/1K6/8/8/8/8/1R6 b - - 0 1"),
        ("shatar", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        // Kyoto and micro shogi: drops either side up, turning over on moving or taking.
        ("kyotoshogi", "p1ks+l/5/2n2/5/+LSK+NP[N] w 0 1"),
        ("micro", "kb+r+l/p3/4/3P/+L+RBK[Pb] w 0 1"),
        ("checkshogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] w 0 1"),
    ];
    let mut failures = Vec::new();
    for (&(name, fen), (theirs, value, moves)) in cases.iter().zip(fairy_stockfish_verdicts(cases)) {
        let game = variant(name).from_position(fen, &Default::default()).unwrap();
        let status = game.status();
        let ours = status.outcome != arbiter_api::Outcome::Ongoing;
        // Our outcome as Fairy-Stockfish scores it: for the side to move.
        let ours_value = match status.outcome {
            arbiter_api::Outcome::Win(p) if p == game.to_move() => 1,
            arbiter_api::Outcome::Win(_) => -1,
            _ => 0,
        };
        if ours != theirs || (ours && ours_value != value.signum()) {
            failures.push(format!("{name} {fen}: ours {status:?}, Fairy-Stockfish ended={theirs} value {value}"));
            continue;
        }
        let mut ids = Vec::new();
        game.legal_moves(&mut ids);
        let mut mine: Vec<String> = ids.iter().map(|&m| game.uci(m)).collect();
        mine.sort();
        if mine != moves {
            failures.push(format!("{name} {fen}: moves {mine:?}, Fairy-Stockfish {moves:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_mate_by_a_pawn_drop_loses_for_the_dropper_as_fairy_stockfish_scores_it() {
    // Fairy-Stockfish lets the drop be played and scores the mate for the mated side.
    let (name, fen, drop) =
        ("euroshogi", "n2pkn2/g5b1/p1pgG1pp/1p1G1rP1/P1P1pp2/BPN1+bP2/1RK5/5B1N[Ppp] w - - 0 30", "P@e7");
    let script = "import pyffish as sf, sys; print(sf.game_result(sys.argv[1], sys.argv[2], [sys.argv[3]]))";
    let out = std::process::Command::new("python3").args(["-c", script, name, fen, drop]).output().expect("python3");
    let value: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("pyffish's game result");
    assert!(value > 0, "Fairy-Stockfish scores the mate for the side to move");
    let mut game = variant(name).from_position(fen, &Default::default()).unwrap();
    let mut ids = Vec::new();
    game.legal_moves(&mut ids);
    let id = *ids.iter().find(|&&m| game.uci(m) == drop).expect("the drop is legal");
    game.play(id);
    let status = game.status();
    assert_eq!(status.outcome, arbiter_api::Outcome::Win(game.to_move()), "{status:?}");
    assert_eq!(status.reason, "mate by a pawn drop");
}

/// Xiangqi repetitions from `chases.py`: after every ply of each cycle, our
/// verdict (a draw to claim, a win for one side, or none) against
/// Fairy-Stockfish's (`is_optional_game_end`).
fn repetitions_agree(cases: u32, seed: u32) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/chases.py");
    let out = std::process::Command::new("python3")
        .args([script, &cases.to_string(), &seed.to_string()])
        .output()
        .expect("python3");
    assert!(out.status.success(), "pyffish (pip install pyffish): {}", String::from_utf8_lossy(&out.stderr));
    let v = variant("xiangqi");
    let mut failures = Vec::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let fen = case["fen"].as_str().unwrap();
        let mut game = v.from_position(fen, &Default::default()).unwrap();
        let moves: Vec<&str> = case["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        for (k, m) in moves.iter().enumerate() {
            let id = game.parse_move(m).unwrap_or_else(|e| panic!("{fen} {m}: {e:?}"));
            game.play(id);
            let status = game.status();
            let side = game.to_move();
            let ours = match status.outcome {
                arbiter_api::Outcome::Ongoing if status.claimable.is_empty() => (false, 0),
                arbiter_api::Outcome::Ongoing | arbiter_api::Outcome::Draw | arbiter_api::Outcome::Faulted => (true, 0),
                arbiter_api::Outcome::Win(w) => (true, if w == side { 32000 } else { -32000 }),
            };
            let end = &case["ends"][k];
            let theirs = (end[0].as_bool().unwrap(), end[1].as_i64().unwrap());
            if ours != theirs {
                failures.push(format!(
                    "{fen} moves {:?}: ours {ours:?} ({}), Fairy-Stockfish {theirs:?}",
                    &moves[..=k],
                    status.reason
                ));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

#[test]
#[ignore = "long: 150 xiangqi repetitions, most of them chases, against pyffish"]
fn xiangqi_repetitions_are_judged_as_fairy_stockfish_judges_them() {
    repetitions_agree(150, 3)
}
