//! One game of Bluff chess: a chess game plus each side's alter ego, its
//! must-move obligation, the death-move decision awaiting the mover, and
//! which side's last decision the opponent has not seen yet.

use arbiter_api::kit::{Game, Status, Viewer};
use arbiter_api::schema::Observation;
use arbiter_api::Error;
use chess_rules::fen::parse_square;
use chess_rules::game::{decode, encode};
use chess_rules::{san, ChessGame};
use cozy_chess::{Board, Color, File, Move, Piece, Square};

/// The start position in this variant's position notation.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | A:-,- M:-,- L:-,- D:- H:- X:-";

/// The turn passes (the must-move piece cannot move).
pub const PASS: u64 = 1 << 16;
/// Decision: the alter ego stays in the moved piece.
pub const STAY: u64 = 1 << 17;
/// Decision: the alter ego goes to the piece on the square in the low bits.
pub const TRANSFER: u64 = 1 << 18;

/// A Bluff chess game.
#[derive(Clone, Debug)]
pub struct BluffGame {
    chess: ChessGame,
    /// Square of the piece holding each side's alter ego (White, Black).
    alter_ego: [Option<Square>; 2],
    /// The piece each side must move on its next turn.
    must_move: [Option<Square>; 2],
    /// The piece each side moved last (public).
    last_moved: [Option<Square>; 2],
    /// The moved piece awaiting its mover's decision after a death move.
    deciding: Option<Square>,
    /// The side whose last decision the opponent has not seen yet.
    hidden: Option<usize>,
    /// An alter-ego capture ended the game.
    ended: Option<Status>,
    /// The rule options (RULES.md §1.4).
    options: Options,
}

/// The options for the open points of RULES.md §1.4; the defaults are its
/// recommended resolutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// B1: a death move needs only a pseudo-legal capture of the moved piece.
    pub pseudo_legal_death: bool,
    /// B5: the rook, not the king, is the turn piece when castling.
    pub castling_rook: bool,
    /// B6: the king may receive a transferred alter ego.
    pub transfer_to_king: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { pseudo_legal_death: false, castling_rook: false, transfer_to_king: true }
    }
}

/// The seat of colour `c` (White 0), which also indexes the per-side arrays.
fn side(c: Color) -> usize {
    (c == Color::Black) as usize
}

fn sq_text(s: Option<Square>) -> String {
    s.map(|s| s.to_string()).unwrap_or_else(|| "-".into())
}

impl BluffGame {
    /// Parses the position notation (a plain FEN is accepted too).
    pub fn parse(text: &str, options: Options) -> Result<BluffGame, Error> {
        let (fen, extra) = match text.split_once('|') {
            Some((f, e)) => (f.trim(), e.trim()),
            None => (text.trim(), "A:-,- M:-,- L:-,- D:- H:- X:-"),
        };
        let chess = ChessGame::from_fen(fen, false)?;
        let bad = |m: String| Error::bad_position(format!("Bluff chess state '{extra}': {m}"));
        let square = |s: &str| -> Result<Option<Square>, Error> {
            if s == "-" {
                Ok(None)
            } else {
                parse_square(s).map(Some).ok_or_else(|| bad(format!("'{s}' is not a square or -")))
            }
        };
        let mut game = BluffGame {
            chess,
            alter_ego: [None; 2],
            must_move: [None; 2],
            last_moved: [None; 2],
            deciding: None,
            hidden: None,
            ended: None,
            options,
        };
        let mut seen = [false; 6];
        for field in extra.split_whitespace() {
            let (key, value) = field.split_once(':').ok_or_else(|| bad(format!("field '{field}' is not KEY:VALUE")))?;
            let pair = |v: &str| -> Result<[Option<Square>; 2], Error> {
                let (w, b) = v.split_once(',').ok_or_else(|| bad(format!("'{v}' needs two squares: white,black")))?;
                Ok([square(w)?, square(b)?])
            };
            match key {
                "A" => (game.alter_ego, seen[0]) = (pair(value)?, true),
                "M" => (game.must_move, seen[1]) = (pair(value)?, true),
                "L" => (game.last_moved, seen[4]) = (pair(value)?, true),
                "X" => {
                    game.ended = match value {
                        "w" => Some(Status::win(0, "alter ego captured")),
                        "b" => Some(Status::win(1, "alter ego captured")),
                        "-" => None,
                        other => return Err(bad(format!("alter-ego capture winner '{other}' must be w, b or -"))),
                    };
                    seen[5] = true;
                }
                "D" => (game.deciding, seen[2]) = (square(value)?, true),
                "H" => {
                    game.hidden = match value {
                        "w" => Some(0),
                        "b" => Some(1),
                        "-" => None,
                        other => return Err(bad(format!("hidden side '{other}' must be w, b or -"))),
                    };
                    seen[3] = true;
                }
                other => return Err(bad(format!("unknown field '{other}' (A, M, L, D, H, X)"))),
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(bad("needs the fields A:, M:, L:, D:, H: and X:".into()));
        }
        let board = game.chess.board();
        // After an alter-ego capture the loser's holder is gone: nothing to check.
        for (i, colour) in [(0, Color::White), (1, Color::Black)].into_iter().filter(|_| game.ended.is_none()) {
            for (what, s) in [("alter ego", game.alter_ego[i]), ("must-move piece", game.must_move[i])] {
                if let Some(s) = s {
                    if board.color_on(s) != Some(colour) {
                        return Err(bad(format!(
                            "the {what} of {} is on {s}, which holds no piece of that side",
                            ["white", "black"][i]
                        )));
                    }
                }
            }
        }
        if let Some(d) = game.deciding {
            if board.color_on(d) != Some(!board.side_to_move()) {
                return Err(bad(format!("the piece awaiting a decision on {d} is not the last mover's")));
            }
        }
        Ok(game)
    }

    /// The chess game underneath.
    pub fn chess(&self) -> &ChessGame {
        &self.chess
    }

    /// The side that acts next: the decider, else the side to move on the board.
    fn actor(&self) -> usize {
        let on_board = self.chess.board().side_to_move();
        side(if self.deciding.is_some() { !on_board } else { on_board })
    }

    /// Legal chess moves of the piece on `from`.
    fn moves_from(board: &Board, from: Square) -> Vec<Move> {
        san::legal_moves(board).into_iter().filter(|m| m.from == from).collect()
    }

    /// The square of the piece a move captures (en passant included).
    fn captured_square(board: &Board, mv: Move) -> Option<Square> {
        if san::is_castle(board, mv) {
            return None;
        }
        if board.color_on(mv.to) == Some(!board.side_to_move()) {
            return Some(mv.to);
        }
        (board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file())
            .then(|| Square::new(mv.to.file(), mv.from.rank()))
    }

    /// Whether the side to move on `board` can capture the piece on `target`.
    fn capturable(&self, board: &Board, target: Square) -> bool {
        if board.piece_on(target) == Some(Piece::King) {
            return false;
        }
        if self.options.pseudo_legal_death {
            let them = board.side_to_move();
            let occ = board.occupied();
            return board.colors(them).into_iter().any(|from| {
                let attacks = match board.piece_on(from) {
                    Some(Piece::Pawn) => cozy_chess::get_pawn_attacks(from, them),
                    Some(Piece::Knight) => cozy_chess::get_knight_moves(from),
                    Some(Piece::Bishop) => cozy_chess::get_bishop_moves(from, occ),
                    Some(Piece::Rook) => cozy_chess::get_rook_moves(from, occ),
                    Some(Piece::Queen) => {
                        cozy_chess::get_bishop_moves(from, occ) | cozy_chess::get_rook_moves(from, occ)
                    }
                    Some(Piece::King) => cozy_chess::get_king_moves(from),
                    None => cozy_chess::BitBoard::EMPTY,
                };
                attacks.has(target)
            }) || san::legal_moves(board).into_iter().any(|m| Self::captured_square(board, m) == Some(target));
        }
        san::legal_moves(board).into_iter().any(|m| Self::captured_square(board, m) == Some(target))
    }

    /// The status in the order of RULES.md §7.3: alter-ego capture, checkmate,
    /// empty mate, stalemate, then the automatic draws.
    fn bluff_status(&self) -> Status {
        if self.deciding.is_some() && self.ended.is_none() {
            return Status::ONGOING;
        }
        self.endings(true)
    }

    /// The game's endings in that order; `empty_mate: false` leaves out the
    /// empty mate, which waits for a pending decision (RULES.md §7.3.2: the
    /// checker decides first, even when its checking move was a death move).
    fn endings(&self, empty_mate: bool) -> Status {
        if let Some(s) = self.ended {
            return s;
        }
        let board = self.chess.board();
        let me = board.side_to_move();
        let in_check = !board.checkers().is_empty();
        let other = side(!me) as u32;
        if !board.generate_moves(|_| true) {
            return if in_check { Status::win(other, "checkmate") } else { Status::draw("stalemate") };
        }
        if let Some(y) = self.must_move[side(me)].filter(|_| empty_mate) {
            if in_check && Self::moves_from(board, y).is_empty() {
                return Status::win(other, "empty mate");
            }
        }
        if board.occupied() == board.pieces(Piece::King) {
            return Status::draw("dead position");
        }
        let reps = self.chess.repetitions();
        if reps >= 5 {
            return Status::draw("fivefold repetition");
        }
        if self.chess.halfmove_clock() >= 150 {
            return Status::draw("seventy-five-move rule");
        }
        let claimable = if reps >= 3 {
            "threefold repetition"
        } else if self.chess.halfmove_clock() >= 100 {
            "fifty-move rule"
        } else {
            ""
        };
        Status { claimable, ..Status::ONGOING }
    }

    fn legal_ids(&self) -> Vec<u64> {
        if !self.bluff_status().is_ongoing() {
            return Vec::new();
        }
        let board = self.chess.board();
        if let Some(t) = self.deciding {
            let mover = !board.side_to_move();
            let mut out = vec![STAY];
            let kings = board.pieces(Piece::King);
            out.extend(
                board
                    .colors(mover)
                    .into_iter()
                    .filter(|&s| s != t && (self.options.transfer_to_king || !kings.has(s)))
                    .map(|s| TRANSFER | s as u64),
            );
            return out;
        }
        match self.must_move[side(board.side_to_move())] {
            Some(y) => {
                let moves = Self::moves_from(board, y);
                if moves.is_empty() {
                    vec![PASS]
                } else {
                    moves.into_iter().map(encode).collect()
                }
            }
            None => san::legal_moves(board).into_iter().map(encode).collect(),
        }
    }

    fn play_chess(&mut self, mv: Move) {
        let board = self.chess.board().clone();
        let (me, them) = (side(board.side_to_move()), side(!board.side_to_move()));
        let captured = Self::captured_square(&board, mv);
        let t = if san::is_castle(&board, mv) {
            let short = mv.to.file() > mv.from.file();
            let file = match (short, self.options.castling_rook) {
                (true, false) => File::G,
                (false, false) => File::C,
                (true, true) => File::F,
                (false, true) => File::D,
            };
            Square::new(file, mv.from.rank())
        } else {
            mv.to
        };
        self.chess.play_move(mv);
        self.must_move[me] = None;
        self.alter_ego[me] = Some(t);
        self.last_moved[me] = Some(t);
        self.hidden = None;
        if captured.is_some() && captured == self.alter_ego[them] {
            self.ended = Some(Status::win(me as u32, "alter ego captured"));
            return;
        }
        // Board endings and automatic draws come before any decision; an
        // empty mate is found only once the decision is made.
        if self.endings(false).is_ongoing() && self.capturable(self.chess.board(), t) {
            self.deciding = Some(t);
        }
    }

    fn decision_text(mv: u64) -> String {
        if mv == STAY {
            "d-".into()
        } else {
            format!("d{}", Square::index((mv & 63) as usize))
        }
    }

    fn note(&self, viewer: Viewer) -> Vec<String> {
        let names = ["White", "Black"];
        let knows = |s: usize| match viewer {
            Viewer::Referee => true,
            Viewer::Player(p) => p as usize == s || self.hidden != Some(s),
            Viewer::Spectator => self.hidden != Some(s),
        };
        let mut notes = Vec::new();
        for (s, name) in names.iter().enumerate() {
            if knows(s) {
                notes.push(format!("{name} alter ego: {}", sq_text(self.alter_ego[s])));
                if let Some(y) = self.must_move[s] {
                    notes.push(format!("{name} must move the piece on {y}"));
                }
            } else {
                notes.push(format!("{name} alter ego: hidden decision"));
            }
        }
        if let Some(t) = self.deciding {
            notes.push(format!("{} decides after the death move to {t}", names[self.actor()]));
        }
        notes
    }
}

impl Game for BluffGame {
    fn to_move(&self) -> u32 {
        self.actor() as u32
    }

    fn status(&self) -> Status {
        self.bluff_status()
    }

    fn legal_moves(&self, out: &mut Vec<u64>) {
        out.extend(self.legal_ids());
    }

    fn play(&mut self, mv: u64) {
        if mv == PASS {
            let me = self.actor();
            self.chess.play_pass();
            self.must_move[me] = None;
            self.hidden = None;
        } else if mv == STAY || mv & TRANSFER != 0 {
            let me = self.actor();
            if mv != STAY {
                let y = Square::index((mv & 63) as usize);
                self.alter_ego[me] = Some(y);
                self.must_move[me] = Some(y);
            }
            self.deciding = None;
            self.hidden = Some(me);
        } else {
            self.play_chess(decode(mv).expect("checked by is_legal"));
        }
    }

    fn move_text(&self, mv: u64, viewer: Viewer) -> String {
        if mv == PASS {
            "pass".into()
        } else if mv == STAY || mv & TRANSFER != 0 {
            match viewer {
                Viewer::Player(p) if p as usize != self.actor() => "d?".into(),
                Viewer::Spectator => "d?".into(),
                _ => Self::decision_text(mv),
            }
        } else {
            san::to_san(self.chess.board(), decode(mv).expect("legal"))
        }
    }

    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        let t = text.trim();
        let legal = self.legal_ids();
        let id = if t == "pass" {
            PASS
        } else if t == "d-" {
            STAY
        } else if let Some(sq) = t.strip_prefix('d').and_then(parse_square) {
            TRANSFER | sq as u64
        } else {
            encode(san::parse_move(self.chess.board(), t)?)
        };
        if legal.contains(&id) {
            Ok(id)
        } else {
            Err(Error::illegal_move(format!("'{t}' is not a legal action here ({})", self.position_text())))
        }
    }

    fn position_text(&self) -> String {
        let h = match self.hidden {
            Some(0) => "w",
            Some(_) => "b",
            None => "-",
        };
        let x = match self.ended.map(|s| s.outcome) {
            Some(arbiter_api::Outcome::Win(0)) => "w",
            Some(_) => "b",
            None => "-",
        };
        format!(
            "{} | A:{},{} M:{},{} L:{},{} D:{} H:{h} X:{x}",
            self.chess.fen(),
            sq_text(self.alter_ego[0]),
            sq_text(self.alter_ego[1]),
            sq_text(self.must_move[0]),
            sq_text(self.must_move[1]),
            sq_text(self.last_moved[0]),
            sq_text(self.last_moved[1]),
            sq_text(self.deciding)
        )
    }

    fn observe(&self, viewer: Viewer) -> Observation {
        let mut obs = self.chess.observe(viewer);
        let notes = self.note(viewer);
        // The chess text ends with the FEN; the alter-ego facts follow.
        for n in &notes {
            obs.text.push_str(n);
            obs.text.push('\n');
        }
        obs.view.notes.extend(notes);
        obs.view.to_move = self.to_move();
        obs
    }

    fn sample_world(&self, viewer: Viewer, seed: u64) -> Self {
        let mut world = self.clone();
        // The unseen decision is redrawn for whoever did not make it: the
        // opponent, a spectator, or a seat no one sits on.
        let made_it = |s: usize| match viewer {
            Viewer::Referee => true,
            Viewer::Player(p) => p as usize == s,
            Viewer::Spectator => false,
        };
        let Some(s) = self.hidden.filter(|&s| !made_it(s)) else { return world };
        // The hidden decision: stay, or a transfer to any other piece of s.
        let board = self.chess.board();
        let colour = if s == 0 { Color::White } else { Color::Black };
        let t = self.last_moved[s];
        let mut options: Vec<Option<Square>> = vec![None];
        options.extend(board.colors(colour).into_iter().filter(|&sq| Some(sq) != t).map(Some));
        let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        match options[(x % options.len() as u64) as usize] {
            None => {
                world.alter_ego[s] = t;
                world.must_move[s] = None;
            }
            Some(y) => {
                world.alter_ego[s] = Some(y);
                world.must_move[s] = Some(y);
            }
        }
        world
    }

    fn evaluate(&self, player: u32) -> Option<f64> {
        self.chess.evaluate(player)
    }

    fn move_cells(&self, mv: u64) -> Option<Vec<u32>> {
        if !self.is_legal(mv) {
            return None;
        }
        Some(if mv == PASS || mv == STAY {
            Vec::new()
        } else if mv & TRANSFER != 0 {
            vec![(mv & 63) as u32]
        } else {
            chess_rules::game::move_cells(self.chess.board(), decode(mv)?)
        })
    }

    fn can_win(&self, _player: u32) -> bool {
        let board = self.chess.board();
        board.occupied() != board.pieces(Piece::King)
    }
}
