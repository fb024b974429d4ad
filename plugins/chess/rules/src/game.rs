//! One game of FIDE chess: the board plus what the Laws need beyond it (the
//! 150-ply clock and the positions since the last irreversible move), the
//! game-ending rules, and the move id encoding.

use arbiter_api::kit::{Game, Status, Viewer};
use arbiter_api::schema::{Observation, ObservationView, PieceView};
use arbiter_api::Error;
use cozy_chess::{BitBoard, Board, Color, Move, Piece, Rank, Square};

use crate::fen::{self, legal_en_passant, piece_letter};
use crate::san;

/// Encodes a move as an opaque id: from | to << 6 | promotion << 12.
pub fn encode(mv: Move) -> u64 {
    let promo = match mv.promotion {
        None => 0,
        Some(Piece::Knight) => 1,
        Some(Piece::Bishop) => 2,
        Some(Piece::Rook) => 3,
        Some(Piece::Queen) => 4,
        Some(_) => 7,
    };
    mv.from as u64 | (mv.to as u64) << 6 | promo << 12
}

/// The cells a legal move touches, origin then destination; castling (the
/// king onto its own rook inside) shows the king's destination square.
pub fn move_cells(board: &Board, mv: Move) -> Vec<u32> {
    let to = if san::is_castle(board, mv) {
        let file = if mv.to.file() > mv.from.file() { cozy_chess::File::G } else { cozy_chess::File::C };
        Square::new(file, mv.from.rank())
    } else {
        mv.to
    };
    vec![mv.from as u32, to as u32]
}

/// Decodes a move id; `None` for ids no legal move could have.
pub fn decode(id: u64) -> Option<Move> {
    if id >> 15 != 0 {
        return None;
    }
    let promotion = match (id >> 12) & 7 {
        0 => None,
        1 => Some(Piece::Knight),
        2 => Some(Piece::Bishop),
        3 => Some(Piece::Rook),
        4 => Some(Piece::Queen),
        _ => return None,
    };
    Some(Move { from: Square::index((id & 63) as usize), to: Square::index(((id >> 6) & 63) as usize), promotion })
}

/// A chess game: position, clocks for the draw rules, repetition history.
#[derive(Debug)]
pub struct ChessGame {
    board: Board,
    /// Plies since the last capture or pawn move (uncapped, unlike the board's).
    halfmove_clock: u16,
    /// Repetition keys of the positions since the last irreversible move,
    /// the current one excluded.
    history: Vec<u64>,
    /// End the game on dead position, fivefold repetition and the 75-move rule.
    automatic_draws: bool,
    /// Chess960 (Fischer random): X-FEN positions, UCI castling as king takes rook.
    chess960: bool,
}

impl Clone for ChessGame {
    fn clone(&self) -> Self {
        ChessGame {
            board: self.board.clone(),
            halfmove_clock: self.halfmove_clock,
            history: self.history.clone(),
            automatic_draws: self.automatic_draws,
            chess960: self.chess960,
        }
    }

    fn clone_from(&mut self, other: &Self) {
        self.board.clone_from(&other.board);
        self.halfmove_clock = other.halfmove_clock;
        self.history.clone_from(&other.history);
        self.automatic_draws = other.automatic_draws;
        self.chess960 = other.chess960;
    }
}

/// The repetition key: the position as FIDE compares it (side, pieces,
/// castling rights, and en passant only when the capture is legal).
fn repetition_key(board: &Board) -> u64 {
    if legal_en_passant(board).is_some() {
        board.hash()
    } else {
        board.hash_without_ep()
    }
}

impl ChessGame {
    /// A game from a FEN, with the FIDE automatic draws on or off.
    pub fn from_fen(text: &str, automatic_draws: bool) -> Result<ChessGame, Error> {
        Self::from_fen_with(text, automatic_draws, false)
    }

    /// A game from a FEN, of standard chess or Chess960 (see
    /// [`fen::parse_fen_with`]).
    pub fn from_fen_with(text: &str, automatic_draws: bool, chess960: bool) -> Result<ChessGame, Error> {
        let parsed = fen::parse_fen_with(text, chess960)?;
        Ok(ChessGame {
            board: parsed.board,
            halfmove_clock: parsed.halfmove_clock,
            history: Vec::new(),
            automatic_draws,
            chess960,
        })
    }

    /// The current board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Plays a legal move, keeping the draw-rule bookkeeping.
    pub fn play_move(&mut self, mv: Move) {
        let irreversible = self.board.piece_on(mv.from) == Some(Piece::Pawn)
            || (san::is_capture(&self.board, mv) && !san::is_castle(&self.board, mv));
        if irreversible {
            self.history.clear();
            self.halfmove_clock = 0;
        } else {
            self.history.push(repetition_key(&self.board));
            self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        }
        self.board.play_unchecked(mv);
    }

    /// Plays a pass: the side to move loses its turn (Bluff chess). It
    /// counts as a ply for the clocks and repetition and forfeits any en
    /// passant right. Refused (returns false) when the side to move is in check.
    pub fn play_pass(&mut self) -> bool {
        match self.board.null_move() {
            Some(next) => {
                self.history.push(repetition_key(&self.board));
                self.halfmove_clock = self.halfmove_clock.saturating_add(1);
                self.board = next;
                true
            }
            None => false,
        }
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    /// How many times the current position has stood, this time included.
    pub fn repetitions(&self) -> usize {
        let key = repetition_key(&self.board);
        1 + self.history.iter().rev().skip(1).step_by(2).filter(|&&k| k == key).count()
    }

    /// Dead position by material: K v K, K+minor v K, or only bishops, all on
    /// squares of one colour, besides the kings.
    pub fn is_dead_position(&self) -> bool {
        let b = &self.board;
        if !(b.pieces(Piece::Pawn) | b.pieces(Piece::Rook) | b.pieces(Piece::Queen)).is_empty() {
            return false;
        }
        let minors = b.pieces(Piece::Knight) | b.pieces(Piece::Bishop);
        if minors.len() <= 1 {
            return true;
        }
        b.pieces(Piece::Knight).is_empty() && same_colour_squares(b.pieces(Piece::Bishop))
    }

    /// The status by the FIDE Laws: mate and stalemate, then the automatic
    /// draws (dead position, fivefold, 75 moves), then claimable draws.
    pub fn chess_status(&self) -> Status {
        let has_move = self.board.generate_moves(|_| true);
        if !has_move {
            return if self.board.checkers().is_empty() {
                Status::draw("stalemate")
            } else {
                Status::win(self.player(!self.board.side_to_move()), "checkmate")
            };
        }
        let reps = self.repetitions();
        if self.automatic_draws {
            if self.is_dead_position() {
                return Status::draw("dead position");
            }
            if reps >= 5 {
                return Status::draw("fivefold repetition");
            }
            if self.halfmove_clock >= 150 {
                return Status::draw("seventy-five-move rule");
            }
        }
        let claimable = if reps >= 3 {
            "threefold repetition"
        } else if self.halfmove_clock >= 100 {
            "fifty-move rule"
        } else {
            ""
        };
        Status { claimable, ..Status::ONGOING }
    }

    fn player(&self, color: Color) -> u32 {
        if color == Color::White {
            0
        } else {
            1
        }
    }

    /// The FEN of the current position with the uncapped halfmove clock.
    pub fn fen(&self) -> String {
        fen::write_fen_with(&self.board, self.halfmove_clock, self.chess960)
    }

    /// Whether `color` has material that could mate against some series of
    /// legal moves (FIDE 6.9, in the manner of lichess's rule).
    pub fn has_mating_material(&self, color: Color) -> bool {
        let b = &self.board;
        let ours = b.colors(color);
        let theirs = b.colors(!color) & !b.pieces(Piece::King);
        if !(ours & (b.pieces(Piece::Pawn) | b.pieces(Piece::Rook) | b.pieces(Piece::Queen))).is_empty() {
            return true;
        }
        let knights = ours & b.pieces(Piece::Knight);
        let bishops = ours & b.pieces(Piece::Bishop);
        match (knights.len(), bishops.len()) {
            (0, 0) => false,
            (1, 0) => !theirs.is_empty(),
            (0, _) if same_colour_squares(bishops) => {
                // Only an enemy piece that can stand on the other colour, or a
                // knight or pawn, can box the king in.
                let other_bishops = theirs & b.pieces(Piece::Bishop);
                !(theirs & !b.pieces(Piece::Bishop)).is_empty() || !same_colour_squares(other_bishops | bishops)
            }
            _ => true,
        }
    }

    fn material(&self, color: Color) -> i32 {
        let b = &self.board;
        [(Piece::Pawn, 1), (Piece::Knight, 3), (Piece::Bishop, 3), (Piece::Rook, 5), (Piece::Queen, 9)]
            .iter()
            .map(|&(p, v)| v * b.colored_pieces(color, p).len() as i32)
            .sum()
    }

    fn render(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push_str(&format!("{} ", rank + 1));
            for file in 0..8 {
                let sq = Square::new(cozy_chess::File::index(file), Rank::index(rank));
                s.push(' ');
                s.push(match (self.board.piece_on(sq), self.board.color_on(sq)) {
                    (Some(p), Some(c)) => piece_letter(p, c),
                    _ => '.',
                });
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h\n");
        s.push_str(&format!("FEN {}\n", self.fen()));
        s
    }
}

fn same_colour_squares(squares: BitBoard) -> bool {
    squares.is_subset(BitBoard::LIGHT_SQUARES) || squares.is_subset(BitBoard::DARK_SQUARES)
}

/// Leaf count of the move-generation tree (draw rules ignored, as published
/// perft tables count), bulk-counting the last ply.
pub fn perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    if depth == 1 {
        board.generate_moves(|pm| {
            nodes += pm.len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|pm| {
        for mv in pm {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += perft(&child, depth - 1);
        }
        false
    });
    nodes
}

fn piece_name(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "pawn",
        Piece::Knight => "knight",
        Piece::Bishop => "bishop",
        Piece::Rook => "rook",
        Piece::Queen => "queen",
        Piece::King => "king",
    }
}

impl Game for ChessGame {
    fn to_move(&self) -> u32 {
        self.player(self.board.side_to_move())
    }

    fn status(&self) -> Status {
        self.chess_status()
    }

    fn legal_moves(&self, out: &mut Vec<u64>) {
        if self.automatic_draws && !self.chess_status().is_ongoing() {
            return;
        }
        self.board.generate_moves(|pm| {
            out.extend(pm.into_iter().map(encode));
            false
        });
    }

    fn is_legal(&self, mv: u64) -> bool {
        decode(mv).is_some_and(|m| self.board.is_legal(m))
            && (!self.automatic_draws || self.chess_status().is_ongoing())
    }

    fn play(&mut self, mv: u64) {
        self.play_move(decode(mv).expect("checked by is_legal"));
    }

    fn move_text(&self, mv: u64, _viewer: Viewer) -> String {
        san::to_san(&self.board, decode(mv).expect("checked by is_legal"))
    }

    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        san::parse_move(&self.board, text).map(encode)
    }

    fn position_text(&self) -> String {
        self.fen()
    }

    fn observe(&self, viewer: Viewer) -> Observation {
        let pieces = self
            .board
            .occupied()
            .into_iter()
            .map(|sq| {
                let piece = self.board.piece_on(sq).expect("occupied");
                let color = self.board.color_on(sq).expect("occupied");
                PieceView {
                    cell: sq as u32,
                    owner: self.player(color),
                    kind: piece_name(piece).into(),
                    label: piece_letter(piece, Color::White).to_string(),
                    stack: Vec::new(),
                }
            })
            .collect();
        let mut highlights = Vec::new();
        if !self.board.checkers().is_empty() {
            highlights.push(self.board.king(self.board.side_to_move()) as u32);
        }
        let viewer_name = ObservationView::viewer_name(viewer);
        let claim = self.chess_status().claimable;
        let view = ObservationView {
            viewer: viewer_name,
            to_move: self.to_move(),
            pieces,
            highlights,
            notes: if claim.is_empty() { Vec::new() } else { vec![format!("draw claimable: {claim}")] },
            ..Default::default()
        };
        Observation { text: self.render(), view }
    }

    fn perft(&self, depth: u32) -> u64 {
        perft(&self.board, depth)
    }

    fn evaluate(&self, player: u32) -> Option<f64> {
        let (us, them) = if player == 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
        Some(((self.material(us) - self.material(them)) as f64 / 10.0).tanh())
    }

    fn move_cells(&self, mv: u64) -> Option<Vec<u32>> {
        decode(mv).filter(|_| self.is_legal(mv)).map(|m| move_cells(&self.board, m))
    }

    fn can_win(&self, player: u32) -> bool {
        self.has_mating_material(if player == 0 { Color::White } else { Color::Black })
    }

    /// The move in UCI notation (`e1g1`; in Chess960 `e1h1`), for hosts
    /// that drive UCI and xboard engines.
    fn uci_move(&self, mv: u64) -> Option<String> {
        decode(mv).map(|m| san::to_uci_with(&self.board, m, self.chess960))
    }

    /// `chess960` says whether the game is Chess960 (engines are told
    /// `UCI_Chess960`); `adjudicate` `{"tablebases": {...}}` gives the
    /// Syzygy tables' verdict (see [`crate::syzygy`]); `check_tablebases`
    /// with the same argument checks every table file before a game, and
    /// answers `{"tables": N}` or names the bad file.
    fn call_json(&mut self, method: &str, args: &serde_json::Value) -> Result<serde_json::Value, Error> {
        // A WebAssembly build reads no tables: no call takes arguments.
        #[cfg(target_arch = "wasm32")]
        let _ = args;
        match method {
            "chess960" => Ok(serde_json::Value::Bool(self.chess960)),
            #[cfg(not(target_arch = "wasm32"))]
            "check_tablebases" => match crate::syzygy::Request::of(args)? {
                Some(request) => Ok(serde_json::json!({ "tables": crate::syzygy::check(&request.path)? })),
                None => Err(Error::bad_options("check_tablebases: no tablebases given")),
            },
            // Chess adjudicates only from tablebases the host names.
            #[cfg(not(target_arch = "wasm32"))]
            "adjudicate" => match crate::syzygy::Request::of(args)? {
                Some(request) => crate::syzygy::adjudicate(&self.board, self.halfmove_clock, &request),
                None => Err(Error::unsupported("chess adjudicates only from Syzygy tablebases (--tb PATH)")),
            },
            #[cfg(target_arch = "wasm32")]
            "check_tablebases" | "adjudicate" => Err(Error::unsupported(
                "Syzygy tablebases need the native chess plugin (a WebAssembly plugin reads no files)",
            )),
            _ => Err(Error::unsupported(format!(
                "unknown call '{method}' (chess offers chess960, adjudicate and check_tablebases)"
            ))),
        }
    }
}
