//! Variants without code, end to end: the ini plugin's variants played by
//! Fairy-Stockfish (a real UCI engine told `UCI_Variant`) against MCTS,
//! every move refereed by arbiter and every record replayed by pyffish to
//! the same final position; a user's ini file picked up from a folder by
//! the installed binary, checked and played in a tournament; a bad file
//! named by file, line and key while the other variants still load.

use std::process::Command;

use arbiter::store::Store;
use arbiter_e2e::{arbiter_bin, fairy_stockfish, temp_dir};

/// Runs `arbiter` with `envs` set; (success, stdout, stderr).
fn run(args: &[&str], envs: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(arbiter_bin())
        .env_remove("ARBITER_PLUGIN_PATH")
        .env_remove("ARBITER_VARIANTS_INI")
        .envs(envs.iter().copied())
        .args(args)
        .output()
        .expect("run arbiter");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The final position pyffish reaches playing `moves` from `start` in `variant`.
fn pyffish_final(variant: &str, start: &str, moves: &[String]) -> String {
    let script = "import pyffish as sf, sys; print(sf.get_fen(sys.argv[1], sys.argv[2], sys.argv[3].split()))";
    let out = Command::new("python3").args(["-c", script, variant, start, &moves.join(" ")]).output().expect("python3");
    assert!(out.status.success(), "pyffish (pip install pyffish): {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn fairy_stockfish_plays_ini_variants_refereed_move_by_move_and_pyffish_agrees() {
    let dir = temp_dir("ini-fsf");
    let db = dir.join("t.db");
    let engine = format!("fsf=uci:{}", fairy_stockfish());
    // Chess-like, drops, the xiangqi and shogi families, a large board with
    // cannons, a horde, check counting, makruk, racing kings' flag, and
    // S-chess's gating.
    let variants = [
        "fairy-chess",
        "crazyhouse",
        "xiangqi",
        "shogi",
        "shako",
        "horde",
        "3check",
        "makruk",
        "racingkings",
        "seirawan",
    ];
    let mut args =
        vec!["tournament", "--player", &engine, "--player", "mcts=mcts:iterations=20", "--tc", "inf,nodes=1500"];
    for v in &variants {
        args.extend(["--variant", v]);
    }
    args.extend(["--max-plies", "400", "--concurrency", "2", "--db", db.to_str().unwrap()]);
    let (ok, out, err) = run(&args, &[]);
    assert!(ok, "{out}\n{err}");
    let games = Store::open(&db).unwrap().games(None).unwrap();
    assert_eq!(games.len(), 2 * variants.len());
    for g in &games {
        let r = &g.record;
        let termination = r.result.termination.to_string();
        // Every game ends by a rule of its variant: no refusal, no fault, no ply limit.
        assert!(
            !termination.contains("illegal") && !termination.contains("ply limit") && !termination.contains("crash"),
            "{}: {termination}",
            r.variant
        );
        let moves: Vec<String> = r.plies.iter().map(|p| p.coordinates.clone().expect("coordinates")).collect();
        let name = if r.variant == "fairy-chess" { "chess" } else { r.variant.as_str() };
        assert_eq!(pyffish_final(name, &r.start_position, &moves), r.final_position, "{}: {termination}", r.variant);
    }
}

/// A variant no built-in defines: 10x8, no knights, a wazir-alfil leaper.
const USER_INI: &str = "\
# A user's variant, loaded without a build.
[waffle10:chess]
maxFile = 10
knight = -
customPiece1 = w:WA
startFen = rwwbqkbwwr/pppppppppp/10/10/10/10/PPPPPPPPPP/RWWBQKBWWR w - - 0 1
castling = false
promotionPieceTypes = qrbw
";

#[test]
fn a_user_ini_variant_loads_without_a_build_passes_check_and_plays_a_tournament() {
    let dir = temp_dir("ini-user");
    std::fs::write(dir.join("waffle.ini"), USER_INI).unwrap();
    let folder = dir.to_str().unwrap();
    let env = [("ARBITER_VARIANTS_INI", folder)];
    let (ok, out, err) = run(&["list"], &env);
    assert!(ok && out.lines().any(|l| l.starts_with("waffle10 ")), "{out}\n{err}");
    assert!(!err.contains("waffle"), "no warning: {err}");
    let (ok, out, err) = run(&["info", "waffle10"], &env);
    assert!(ok && out.contains("10x8"), "{out}\n{err}");
    let (ok, out, err) = run(&["check", "waffle10", "--games", "3"], &env);
    assert!(ok && out.contains("0 failed"), "{out}\n{err}");
    let db = dir.join("t.db");
    let (ok, out, err) = run(
        &[
            "tournament",
            "--player",
            "a=random",
            "--player",
            "m=mcts:iterations=10",
            "--variant",
            "waffle10",
            "--max-plies",
            "80",
            "--db",
            db.to_str().unwrap(),
        ],
        &env,
    );
    assert!(ok, "{out}\n{err}");
    assert_eq!(Store::open(&db).unwrap().games(None).unwrap().len(), 2);
}

#[test]
fn a_bad_ini_section_is_named_by_file_line_and_key_and_the_others_still_load() {
    let dir = temp_dir("ini-bad");
    let file = dir.join("bad.ini");
    std::fs::write(
        &file,
        "[good:chess]\n\n[typo:chess]\ncastlingKingSideFile = g\n\n[huge:chess]\nmaxFile = 13\n\n[cycle:loop2]\n[loop2:cycle]\n\
         [twice:chess]\ncustomPiece1 = n:NN\n[betza:chess]\ncustomPiece1 = x:Yq\n",
    )
    .unwrap();
    let path = file.display().to_string();
    let (ok, out, err) = run(&["list"], &[("ARBITER_VARIANTS_INI", &path)]);
    assert!(ok, "{err}");
    assert!(out.lines().any(|l| l.starts_with("good ")), "{out}");
    for (line, key) in [
        (4, "castlingKingSideFile: unknown key"),
        (7, "maxFile: a board of 13x8"),
        (12, "customPiece1: letter 'n' is used by"),
        (14, "customPiece1:"),
    ] {
        assert!(err.contains(&format!("{path}:{line}: {key}")), "line {line}: {err}");
    }
    assert!(err.contains("inheritance cycle"), "{err}");
    // A malformed position or move of an ini variant is one line too.
    let (ok, _, err) = run(
        &["perft", "crazyhouse", "--position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP[X] w - - 0 1", "--depth", "1"],
        &[],
    );
    assert!(!ok && err.trim().lines().count() == 1, "{err}");
}

/// Fairy-Stockfish as shogi and xiangqi engines speak: USI on shogi (from
/// the start and from a position with bishops in hand, under byoyomi) and
/// minishogi, UCCI on xiangqi and minixiangqi, against itself so that both
/// sides' clocks, positions and moves cross in the protocol's own words;
/// every move refereed: no illegal move, protocol error or loss on time.
#[test]
fn fairy_stockfish_plays_shogi_over_usi_and_xiangqi_over_ucci() {
    let fairy = fairy_stockfish();
    let hands = "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL[Bb] w - - 0 3";
    for (protocol, variant, tc, position) in [
        ("usi", "shogi", "0+byo0.2", None),
        ("usi", "shogi", "st=0.05", Some(hands)),
        ("usi", "minishogi", "st=0.05", None),
        ("ucci", "xiangqi", "1+0.05", None),
        ("ucci", "minixiangqi", "st=0.05", None),
    ] {
        let engine = format!("{protocol}:{fairy}");
        let log = temp_dir(&format!("ini-{protocol}-{variant}")).join("engines.log");
        let log_text = log.to_str().unwrap();
        let mut args = vec![
            "match",
            variant,
            "--p1",
            &engine,
            "--p2",
            &engine,
            "--games",
            "2",
            "--tc",
            tc,
            "--max-plies",
            "40",
            "--no-db",
            "--log",
            log_text,
        ];
        if let Some(p) = position {
            args.extend(["--position", p]);
        }
        let (ok, out, err) = run(&args, &[]);
        let what = format!("{protocol} {variant} {tc}");
        assert!(ok, "{what}: {err}");
        let games: Vec<&str> = out.lines().filter(|l| l.starts_with("Game ")).collect();
        assert_eq!(games.len(), 2, "{what}: {out}");
        for g in games {
            assert!(
                !["illegal move", "protocol error", "crashed", "time forfeit"].iter().any(|bad| g.contains(bad)),
                "{what}: {g}"
            );
        }
        // The protocol's own words: SFEN and USI's squares, or ICCS's.
        let said = std::fs::read_to_string(&log).unwrap();
        let expected: &[&str] = match protocol {
            "usi" => &["> usi", "> usinewgame", "> position sfen ", "> go btime "],
            _ => &["> ucci", "> setoption UCI_Variant ", "> position fen ", "> go time "],
        };
        for word in expected {
            assert!(said.contains(word), "{what}: the engine was never told '{word}'");
        }
    }
}

/// Fairy-Stockfish over xboard (CECP) plays ini variants as their engines
/// do: told `variant NAME`, moves in xboard's coordinates (a ten-rank
/// board's ranks counted from 0, as xiangqi's `c0e2`), every move refereed:
/// no illegal move and no protocol error, on crazyhouse, minishogi and
/// xiangqi.
#[test]
fn fairy_stockfish_plays_ini_variants_over_xboard() {
    let engine = format!("xboard:{}", fairy_stockfish());
    for variant in ["crazyhouse", "minishogi", "xiangqi"] {
        let (ok, out, err) = run(
            &[
                "match",
                variant,
                "--p1",
                &engine,
                "--p2",
                "random",
                "--games",
                "2",
                "--tc",
                "st=0.05",
                "--max-plies",
                "40",
                "--no-db",
            ],
            &[],
        );
        assert!(ok, "{variant}: {err}");
        let games: Vec<&str> = out.lines().filter(|l| l.starts_with("Game ")).collect();
        assert_eq!(games.len(), 2, "{variant}: {out}");
        for g in games {
            assert!(
                !g.contains("illegal move") && !g.contains("protocol error") && !g.contains("crashed"),
                "{variant}: {g}"
            );
        }
    }
}
