//! Chess960 and Double Fischer Random through the real chess plugin, with
//! python-chess as the independent referee: perft from numbered starts and
//! from positions with castling rights left (X-FEN and Shredder-FEN), and
//! Stockfish playing whole games told `UCI_Chess960`.

use arbiter_e2e::{arbiter, temp_dir};

/// python-chess's perft of each `fen` to `depth` (Chess960 rules), and
/// positions it reaches by seeded random play from numbered starts, as
/// `X-FEN|Shredder-FEN|count` lines.
fn python(script: &str) -> String {
    let out = std::process::Command::new("python3").args(["-c", script]).output().expect("python3");
    assert!(out.status.success(), "python-chess: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const POSITIONS: &str = r#"
import chess, random
def perft(b, d):
    if d == 0: return 1
    n = 0
    for m in b.legal_moves:
        b.push(m); n += perft(b, d - 1); b.pop()
    return n
rng = random.Random(960)
for number in [0, 1, 17, 518, 959, 441, 706, 123]:
    b = chess.Board.from_chess960_pos(number)
    # Some plies of random play, keeping positions where castling is still possible.
    for _ in range(rng.randrange(0, 12)):
        moves = list(b.legal_moves)
        if not moves: break
        b.push(rng.choice(moves))
    if b.is_game_over(): continue
    print(f"{number}|{b.fen()}|{b.fen(shredder=True)}|{perft(b, 3)}")
"#;

fn perft(fen: &str, depth: &str) -> u64 {
    let run = arbiter(&["perft", "chess", "--position", fen, "--depth", depth, "--option", "chess960=true"]);
    assert!(run.ok, "{fen}: {}", run.stderr);
    let line =
        run.stdout.lines().find(|l| l.starts_with("Nodes searched: ")).unwrap_or_else(|| panic!("{}", run.stdout));
    line.trim_start_matches("Nodes searched: ").trim().parse().unwrap()
}

#[test]
fn perft_from_chess960_positions_agrees_with_python_chess_in_x_fen_and_shredder_fen() {
    let lines = python(POSITIONS);
    assert!(lines.lines().count() >= 6, "{lines}");
    for line in lines.lines() {
        let f: Vec<&str> = line.split('|').collect();
        let expected: u64 = f[3].parse().unwrap();
        assert_eq!(perft(f[1], "3"), expected, "start {}: {}", f[0], f[1]);
        assert_eq!(perft(f[2], "3"), expected, "start {}: {}", f[0], f[2]);
    }
}

#[test]
fn numbered_starts_and_double_fischer_random_are_the_published_arrays() {
    let start = |opts: &[&str]| {
        let mut args = vec!["play", "chess", "--p1", "random", "--p2", "random", "--max-plies", "0"];
        for o in opts {
            args.extend(["--option", o]);
        }
        arbiter(&args)
    };
    let expected = python(
        "import chess\nfor n in (0, 518, 959):\n print(chess.Board.from_chess960_pos(n).fen())\n\
         b = chess.Board.from_chess960_pos(0)\nw = chess.Board.from_chess960_pos(959)\n\
         print(b.board_fen().split('/')[0] + '/' + '/'.join(w.board_fen().split('/')[1:]))",
    );
    let e: Vec<&str> = expected.lines().collect();
    for (n, fen) in [("0", e[0]), ("518", e[1]), ("959", e[2])] {
        let run = start(&["chess960=true", &format!("start_number={n}")]);
        assert!(run.ok && run.stdout.contains(fen), "start {n}: {fen}\n{}{}", run.stdout, run.stderr);
    }
    // Black's array from 0, White's from 959.
    let run = start(&["chess960=true", "start_number=959", "black_start_number=0"]);
    assert!(run.ok && run.stdout.contains(e[3]), "{}\n{}{}", e[3], run.stdout, run.stderr);
    let run = start(&["chess960=true", "start_number=960"]);
    assert!(!run.ok && run.stderr.contains("start_number: 960 is not a start number from 0 to 959"), "{}", run.stderr);
}

#[test]
fn stockfish_plays_chess960_told_uci_chess960_and_every_game_replays() {
    let dir = temp_dir("chess960");
    let pgn = dir.join("960.pgn");
    let run = arbiter(&[
        "match",
        "chess",
        "--p1",
        "uci:stockfish",
        "--p2",
        "uci:stockfish",
        "--games",
        "4",
        "--tc",
        "inf,nodes=3000",
        "--max-plies",
        "120",
        "--concurrency",
        "2",
        "--option",
        "chess960=true",
        "--option",
        "start_number=0",
        "--no-db",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(run.ok, "{}", run.stderr);
    for bad in ["illegal", "protocol error", "crashed", "hung"] {
        assert!(!run.stdout.contains(bad), "{bad}: {}", run.stdout);
    }
    // python-chess reads the games as Chess960 and finds every move legal.
    let check = std::process::Command::new("python3")
        .args([
            "-c",
            "import chess.pgn,sys\nf=open(sys.argv[1])\nn=0\nwhile (g:=chess.pgn.read_game(f)):\n \
             assert g.headers['Variant']=='Chess960' and not g.errors and g.board().chess960, g.errors\n n+=1\nassert n==4",
            pgn.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(check.status.success(), "python-chess: {}", String::from_utf8_lossy(&check.stderr));
    let replay = arbiter(&["replay", pgn.to_str().unwrap()]);
    assert!(
        replay.ok && replay.stdout.contains("4 game(s) replayed: every move is legal"),
        "{}{}",
        replay.stdout,
        replay.stderr
    );
}
