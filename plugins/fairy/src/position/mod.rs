//! A position of any variant the rules describe: the board, pieces in hand,
//! castling rights, the en passant square, counters. Reading and writing
//! Fairy-Stockfish's FEN and moves' text is in `fen`, which squares
//! a side attacks in `attacks`, the legal moves in `movegen`, playing a move
//! in `apply`.

use std::sync::Arc;

use crate::rules::Rules;

/// A piece on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its kind (index into the rules' pieces).
    pub kind: u8,
    /// Its side ([`Color::Wall`] for a wall square).
    pub color: Color,
    /// A promoted pawn (`~` in FEN): goes to hand as a pawn.
    pub promoted: bool,
    /// For a piece promoted shogi-style (`+p` in FEN), the kind it was:
    /// it goes to hand as that.
    pub base: Option<u8>,
}

/// Whose a piece is: a side's, or a wall square's (`*` in FEN), which no
/// piece may enter, pass or take. The side to move is never a wall. As an
/// index (`color as usize`) a side picks its entry of the per-side tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Color {
    /// The first player, whose pieces move up the board.
    White = 0,
    /// The second player.
    Black = 1,
    /// A wall square's.
    Wall = 2,
}

impl Color {
    /// The two sides, White first.
    pub const SIDES: [Color; 2] = [Color::White, Color::Black];

    /// The side a FEN letter's case names: lowercase is Black's.
    pub fn of_letter(c: char) -> Color {
        if c.is_ascii_lowercase() {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The other side (a wall's is a wall).
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
            Color::Wall => Color::Wall,
        }
    }

    /// The side as the seat it plays from (White 0, Black 1).
    pub fn seat(self) -> u32 {
        self as u32
    }

    /// A piece letter as this side's pieces are written in FEN: uppercase
    /// for White, lowercase for Black.
    pub fn letter_case(self, letter: char) -> char {
        if self == Color::White {
            letter.to_ascii_uppercase()
        } else {
            letter
        }
    }
}

impl Piece {
    /// A wall square.
    pub const WALL: Piece = Piece { kind: 0, color: Color::Wall, promoted: false, base: None };
}

/// What a move does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece goes from one square to another, promoting to `promotion` if given.
    Normal { from: u16, to: u16, promotion: Option<u8> },
    /// An en passant capture.
    EnPassant { from: u16, to: u16 },
    /// The king goes to `to`, the rook from `rook` beside it.
    Castle { from: u16, to: u16, rook: u16 },
    /// A piece from hand onto an empty square, promoted if `promoted` (`dropPromoted`).
    Drop { kind: u8, to: u16, promoted: bool },
    /// A promoted piece moves and turns back into what it was (`pieceDemotion`).
    Demote { from: u16, to: u16 },
    /// A move that brings `kind` from hand onto the square it left (S-chess gating).
    Gate { from: u16, to: u16, kind: u8 },
    /// Castling that brings `kind` from hand onto the king's square, or the rook's if `on_rook`.
    GateCastle { from: u16, to: u16, rook: u16, kind: u8, on_rook: bool },
    /// A move (`base`, its number) that then puts a wall on `wall` (`wallingRule`).
    Walled { base: u64, wall: u16 },
    /// No move (`pass`, `passOnStalemate`), written as the mover's king
    /// (or its first piece) staying on its square `at`, as Fairy-Stockfish writes it.
    Pass { at: u16 },
}

impl Move {
    /// The move as the ABI's number.
    pub fn id(self) -> u64 {
        match self {
            Move::Normal { from, to, promotion } => {
                1 | (from as u64) << 4 | (to as u64) << 12 | promotion.map_or(0, |p| p as u64 + 1) << 20
            }
            Move::EnPassant { from, to } => 2 | (from as u64) << 4 | (to as u64) << 12,
            Move::Castle { from, to, rook } => 3 | (from as u64) << 4 | (to as u64) << 12 | (rook as u64) << 28,
            Move::Drop { kind, to, promoted } => {
                4 | (to as u64) << 12 | (kind as u64 + 1) << 20 | (promoted as u64) << 28
            }
            Move::Demote { from, to } => 5 | (from as u64) << 4 | (to as u64) << 12,
            Move::Gate { from, to, kind } => 6 | (from as u64) << 4 | (to as u64) << 12 | (kind as u64 + 1) << 20,
            Move::GateCastle { from, to, rook, kind, on_rook } => {
                7 | (from as u64) << 4
                    | (to as u64) << 12
                    | (kind as u64 + 1) << 20
                    | (rook as u64) << 28
                    | (on_rook as u64) << 36
            }
            Move::Walled { base, wall } => base | (wall as u64 + 1) << WALL_SHIFT,
            Move::Pass { at } => 8 | (at as u64) << 4,
        }
    }

    /// The move without its gated piece or its wall.
    pub fn ungated(self) -> Move {
        match self.unwalled() {
            Move::Gate { from, to, .. } => Move::Normal { from, to, promotion: None },
            Move::GateCastle { from, to, rook, .. } => Move::Castle { from, to, rook },
            other => other,
        }
    }

    /// The move without its wall.
    pub fn unwalled(self) -> Move {
        match self {
            Move::Walled { base, .. } => Move::from_id(base).unwrap_or(self),
            other => other,
        }
    }

    /// The move a number names, if it names one.
    pub fn from_id(id: u64) -> Option<Move> {
        let wall = (id >> WALL_SHIFT) & 0xff;
        if wall != 0 {
            let base = id & ((1 << WALL_SHIFT) - 1);
            return match Move::from_id(base)? {
                Move::Walled { .. } => None,
                _ => Some(Move::Walled { base, wall: wall as u16 - 1 }),
            };
        }
        let from = ((id >> 4) & 0xff) as u16;
        let to = ((id >> 12) & 0xff) as u16;
        let piece = ((id >> 20) & 0xff) as u8;
        let rook = ((id >> 28) & 0xff) as u16;
        Some(match id & 0xf {
            1 => Move::Normal { from, to, promotion: piece.checked_sub(1) },
            2 => Move::EnPassant { from, to },
            3 => Move::Castle { from, to, rook },
            4 => Move::Drop { kind: piece.checked_sub(1)?, to, promoted: rook == 1 },
            5 => Move::Demote { from, to },
            6 => Move::Gate { from, to, kind: piece.checked_sub(1)? },
            7 => Move::GateCastle { from, to, rook, kind: piece.checked_sub(1)?, on_rook: (id >> 36) & 1 == 1 },
            8 => Move::Pass { at: from },
            _ => return None,
        })
    }
}

/// Where a move's number keeps its wall square (plus one; 0: no wall).
const WALL_SHIFT: u32 = 40;

/// The most squares a board has (12 files, 10 ranks).
pub const MOST_SQUARES: usize = 120;

pub use crate::rules::MOST_KINDS;

/// Up to two rook squares a side may castle with (no allocation: positions
/// are copied at every move tried).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rooks([Option<u16>; 2]);

impl Rooks {
    fn push(&mut self, sq: u16) {
        if let Some(slot) = self.0.iter_mut().find(|s| s.is_none()) {
            *slot = Some(sq);
        }
    }
    fn retain(&mut self, keep: impl Fn(&u16) -> bool) {
        for slot in self.0.iter_mut() {
            if slot.is_some_and(|s| !keep(&s)) {
                *slot = None;
            }
        }
    }
    fn clear(&mut self) {
        self.0 = [None, None];
    }
    fn contains(&self, sq: &u16) -> bool {
        self.0.contains(&Some(*sq))
    }
    fn iter(&self) -> impl Iterator<Item = &u16> {
        self.0.iter().flatten()
    }
}

/// A whole position.
#[derive(Clone, Debug)]
pub struct Position {
    /// The variant's rules.
    pub rules: Arc<Rules>,
    /// Squares, rank by rank from White's first (only `width * height` are used).
    pub board: [Option<Piece>; MOST_SQUARES],
    /// Pieces in hand: counts by kind, White's then Black's.
    pub hands: [[u8; MOST_KINDS]; 2],
    /// The side to move.
    pub side: Color,
    /// Rooks that may still castle, by colour.
    pub castle_rooks: [Rooks; 2],
    /// The files of its first rank where each side may still gate, a bit
    /// each (S-chess: every gate is on the castling rank).
    pub gates: [u16; 2],
    /// The square a pawn passed over on the last move, if any.
    pub ep: Option<u16>,
    /// Where the custom pawn that passed over [`Position::ep`] stands (it
    /// is taken there); `None` for the chess pawn, taken behind the square.
    pub ep_victim: Option<u16>,
    /// Plies since the last capture or pawn move.
    pub halfmove: u32,
    /// Passes in a row just made (`passOnStalemate`, `pass`: two end the game).
    pub passes: u8,
    /// Under bikjang, how many positions in a row, this one the last, the
    /// kings have faced each other (0: they do not now).
    pub bikjang_plies: u8,
    /// The full move number.
    pub fullmove: u32,
    /// Checks each side must still give to win (check counting).
    pub checks_left: [u32; 2],
    /// Under a counting rule, the plies the count allows (0: no count
    /// running); written in the en passant field.
    pub counting_limit: u32,
    /// The plies counted so far; written in the halfmove field.
    pub counting_ply: u32,
}

mod apply;
mod attacks;
pub mod chase;
mod fen;
mod movegen;

impl Position {
    /// The board rank `rank` of `color`'s own side (0 is its first).
    pub fn own_rank(&self, color: Color, rank: u8) -> u8 {
        if color == Color::White {
            rank
        } else {
            self.rules.height - 1 - rank
        }
    }

    fn rank_of(&self, sq: usize) -> u8 {
        (sq / self.rules.width as usize) as u8
    }

    fn letter(&self, p: Piece) -> char {
        p.color.letter_case(self.rules.pieces[p.kind as usize].letter)
    }

    /// The square of `color`'s castling king, if it has one.
    pub fn castle_king_square(&self, color: Color) -> Option<usize> {
        let kind = self.rules.castle_king?;
        self.board.iter().position(|p| p.is_some_and(|p| p.color == color && p.kind as usize == kind))
    }

    /// The square of `color`'s royal piece, if it has one.
    pub fn royal_square(&self, color: Color) -> Option<usize> {
        self.board.iter().position(|p| p.is_some_and(|p| p.color == color && self.rules.pieces[p.kind as usize].royal))
    }

    fn offset(&self, sq: usize, dx: i32, dy: i32) -> Option<usize> {
        let w = self.rules.width as i32;
        let (f, r) = ((sq as i32) % w + dx, (sq as i32) / w + dy);
        (f >= 0 && f < w && r >= 0 && r < self.rules.height as i32).then(|| (r * w + f) as usize)
    }

    /// A key of everything repetition compares: board, hands, side, rights,
    /// ep and check counts (FNV-1a over their bytes: cheap enough to take
    /// at every move).
    pub fn key(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut add = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        let squares = self.rules.width as usize * self.rules.height as usize;
        for (sq, p) in self.board[..squares].iter().enumerate() {
            if let Some(p) = p {
                let base = p.base.map_or(0, |b| b as u64 + 1);
                add((sq as u64) << 32
                    | (p.kind as u64) << 16
                    | (p.color as u64) << 8
                    | (p.promoted as u64) << 4
                    | base << 40);
            }
        }
        for (c, hand) in self.hands.iter().enumerate() {
            for (k, &n) in hand.iter().enumerate().filter(|(_, &n)| n > 0) {
                add(1 << 62 | (c as u64) << 48 | (k as u64) << 8 | n as u64);
            }
        }
        for (c, rooks) in self.castle_rooks.iter().enumerate() {
            for &r in rooks.iter() {
                add(1 << 61 | (c as u64) << 16 | r as u64);
            }
        }
        add(self.side as u64 | (self.ep.map_or(0xffff, |e| e as u64)) << 8);
        add(1 << 60 | (self.checks_left[0] as u64) << 16 | self.checks_left[1] as u64);
        h
    }
}
