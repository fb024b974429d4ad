//! A position of any variant the rules describe: the board, pieces in hand,
//! castling rights, the en passant square, counters; reading and writing
//! Fairy-Stockfish's FEN; legal moves and playing them.

use std::sync::Arc;

use crate::betza::{Hop, Step};
use crate::rules::{Counting, Rules};

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
        }
    }

    /// The move without its gated piece.
    pub fn ungated(self) -> Move {
        match self {
            Move::Gate { from, to, .. } => Move::Normal { from, to, promotion: None },
            Move::GateCastle { from, to, rook, .. } => Move::Castle { from, to, rook },
            other => other,
        }
    }

    /// The move a number names, if it names one.
    pub fn from_id(id: u64) -> Option<Move> {
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
            _ => return None,
        })
    }
}

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
    /// Plies since the last capture or pawn move.
    pub halfmove: u32,
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

impl Position {
    /// Reads a FEN of the variant: `board[pocket] side [castling] [ep] [checks] [halfmove fullmove]`.
    pub fn from_fen(rules: &Arc<Rules>, fen: &str) -> Result<Position, String> {
        let (w, h) = (rules.width as usize, rules.height as usize);
        let mut fields = fen.split_whitespace();
        let placement = fields.next().ok_or_else(|| "empty FEN".to_string())?;
        let (board_text, pocket) = match placement.find('[') {
            Some(i) => {
                let rest = &placement[i + 1..];
                let pocket = rest.strip_suffix(']').ok_or_else(|| format!("pocket '{rest}' has no closing ]"))?;
                (&placement[..i], Some(pocket))
            }
            None => (placement, None),
        };
        let mut pos = Position {
            rules: rules.clone(),
            board: [None; MOST_SQUARES],
            hands: [[0; MOST_KINDS]; 2],
            side: Color::White,
            castle_rooks: [Rooks::default(); 2],
            gates: [0; 2],
            ep: None,
            halfmove: 0,
            fullmove: 1,
            // Without a counter in the FEN, the next check wins (as Fairy-Stockfish reads it).
            checks_left: [1; 2],
            counting_limit: 0,
            counting_ply: 0,
        };
        let rows: Vec<&str> = board_text.split('/').collect();
        // A pocket may be written as one more rank.
        let (rows, extra_pocket) = if rows.len() == h + 1 { (&rows[..h], Some(rows[h])) } else { (&rows[..], None) };
        if rows.len() != h {
            return Err(format!("{} ranks, the board has {h}", rows.len()));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = h - 1 - i;
            let mut file = 0usize;
            let chars: Vec<char> = row.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                if c.is_ascii_digit() {
                    let digits: String = chars[j..].iter().take_while(|c| c.is_ascii_digit()).collect();
                    j += digits.len();
                    let empty = digits.parse::<usize>().ok().filter(|&n| n >= 1 && n <= w).ok_or_else(|| {
                        format!("rank {}: '{digits}' empty squares on a board of {w} files", rank + 1)
                    })?;
                    file += empty;
                    continue;
                }
                if c == '*' {
                    if file >= w {
                        return Err(format!("rank {} has more than {w} files", rank + 1));
                    }
                    pos.board[rank * w + file] = Some(Piece::WALL);
                    (file, j) = (file + 1, j + 1);
                    continue;
                }
                let promoted_prefix = c == '+';
                let c = if promoted_prefix {
                    j += 1;
                    *chars.get(j).ok_or_else(|| format!("rank {}: '+' with no piece", rank + 1))?
                } else {
                    c
                };
                let mut kind =
                    rules.kind_of(c).ok_or_else(|| format!("rank {}: '{c}' is no piece of {}", rank + 1, rules.id))?;
                let mut base = None;
                if promoted_prefix {
                    base = Some(kind as u8);
                    kind = rules.promoted_kind[kind].ok_or_else(|| {
                        format!("rank {}: '+{c}': {} pieces do not promote", rank + 1, rules.pieces[kind].name)
                    })?;
                }
                j += 1;
                let promoted = chars.get(j) == Some(&'~');
                if promoted {
                    j += 1;
                }
                if file >= w {
                    return Err(format!("rank {} has more than {w} files", rank + 1));
                }
                pos.board[rank * w + file] =
                    Some(Piece { kind: kind as u8, color: Color::of_letter(c), promoted, base });
                file += 1;
            }
            if file != w {
                return Err(format!("rank {} has {file} files, the board has {w}", rank + 1));
            }
        }
        for text in pocket.into_iter().chain(extra_pocket) {
            for c in text.chars().filter(|&c| c != '-') {
                let kind = rules.kind_of(c).ok_or_else(|| format!("pocket: '{c}' is no piece of {}", rules.id))?;
                let count = &mut pos.hands[Color::of_letter(c) as usize][kind];
                *count = count.checked_add(1).ok_or_else(|| format!("pocket: more than 255 '{c}'"))?;
            }
        }
        pos.side = match fields.next() {
            Some("w") | None => Color::White,
            Some("b") => Color::Black,
            Some(s) => return Err(format!("side to move '{s}' must be w or b")),
        };
        let rest: Vec<&str> = fields.collect();
        let mut k = 0;
        // Castling rights and the en passant square may be left out.
        if let Some(c) = rest.get(k).filter(|t| t.chars().all(|c| c == '-' || c.is_ascii_alphabetic())) {
            pos.read_castling(c)?;
            k += 1;
            if let Some(e) = rest.get(k).filter(|t| **t == "-" || rules.parse_square(t).is_some()) {
                pos.ep = rules.parse_square(e).map(|s| s as u16);
                k += 1;
            } else if let Some(limit) = rest.get(k).filter(|_| rules.counting.is_some() && rest.len() == k + 3) {
                // A running count stands where the en passant square would.
                pos.counting_limit = limit.parse().map_err(|_| format!("counting limit '{limit}' is not a number"))?;
                k += 1;
            }
        }
        if let Some(checks) = rest.get(k).filter(|t| t.contains('+')) {
            let (a, b) = checks.split_once('+').unwrap_or(("", ""));
            let parse = |t: &str| t.parse::<u32>().map_err(|_| format!("check counter '{checks}' is not N+N"));
            pos.checks_left = [parse(a)?, parse(b)?];
            k += 1;
        }
        if let Some(n) = rest.get(k) {
            pos.halfmove = n.parse().map_err(|_| format!("halfmove clock '{n}' is not a number"))?;
            k += 1;
        }
        if let Some(n) = rest.get(k).filter(|n| !n.starts_with('+')) {
            pos.fullmove = n
                .parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("move number '{n}' is not a number from 1"))?;
            k += 1;
        }
        if pos.counting_limit > 0 {
            (pos.counting_ply, pos.halfmove) = (pos.halfmove, 0);
        }
        // Lichess writes the checks given, after the counters: `+1+0`.
        if let Some(given) = rest.get(k).filter(|t| t.starts_with('+') && rules.check_counting) {
            let parts: Vec<&str> = given[1..].split('+').collect();
            let bad = || format!("check counter '{given}' is not +N+N");
            let [a, b] = parts.as_slice() else { return Err(bad()) };
            let given = |t: &str| t.parse::<u32>().map(|n| 3u32.saturating_sub(n)).map_err(|_| bad());
            pos.checks_left = [given(a)?, given(b)?];
            k += 1;
        }
        if k < rest.len() {
            return Err(format!("unexpected field '{}'", rest[k]));
        }
        // The en passant square stands only where a pawn could take on it.
        if pos.ep.is_some() && !pos.ep_capturable() {
            pos.ep = None;
        }
        Ok(pos)
    }

    fn read_castling(&mut self, text: &str) -> Result<(), String> {
        if text == "-" {
            return Ok(());
        }
        let rules = self.rules.clone();
        for c in text.chars() {
            let color = Color::of_letter(c);
            let rank = self.own_rank(color, rules.castle_rank) as usize;
            let king_file = self
                .castle_king_square(color)
                .filter(|k| k / rules.width as usize == rank)
                .map(|k| k % rules.width as usize);
            let rook_at = |f: usize| {
                self.board[rank * rules.width as usize + f]
                    .is_some_and(|p| p.color == color && rules.castle_rook_kinds.contains(&(p.kind as usize)))
            };
            let file = match c.to_ascii_lowercase() {
                'k' => king_file.and_then(|k| (k + 1..rules.width as usize).rev().find(|&f| rook_at(f))),
                'q' => king_file.and_then(|k| (0..k).find(|&f| rook_at(f))),
                // A file names the rook, but castling still needs the king
                // on its rank (as K and Q do): else the right is dropped, and
                // the position reads back as it is written.
                f if (f as u8) >= b'a' && ((f as u8 - b'a') as usize) < rules.width as usize => {
                    king_file.and(Some((f as u8 - b'a') as usize)).filter(|&f| rook_at(f))
                }
                _ => return Err(format!("castling right '{c}' is not K, Q, k, q or a file")),
            };
            if rules.gating {
                // A letter names a gate where a piece of the side stands; K and
                // Q the king's square too. With pieces in hand, a file is only a gate.
                let w = rules.width as usize;
                let named = match c.to_ascii_lowercase() {
                    'k' | 'q' => file,
                    f => Some((f as u8 - b'a') as usize),
                };
                if let Some(f) = named.filter(|&f| self.board[rank * w + f].is_some_and(|p| p.color == color)) {
                    self.gates[color as usize] |= 1 << f;
                }
                let king_letter = matches!(c, 'K' | 'Q' | 'k' | 'q');
                if let Some(k) = king_file.filter(|_| king_letter) {
                    self.gates[color as usize] |= 1 << k;
                }
                let holding = self.hands[color as usize].iter().any(|&n| n > 0) || rules.captures_to_hand;
                if !king_letter && holding {
                    continue;
                }
            }
            // A right with no rook to castle with is dropped, as Fairy-Stockfish does.
            if let Some(f) = file {
                let sq = (rank * rules.width as usize + f) as u16;
                if !self.castle_rooks[color as usize].contains(&sq) {
                    self.castle_rooks[color as usize].push(sq);
                }
            }
        }
        Ok(())
    }

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

    /// Writes the position as Fairy-Stockfish writes it.
    pub fn fen(&self) -> String {
        let rules = &self.rules;
        let (w, h) = (rules.width as usize, rules.height as usize);
        let mut out = String::new();
        for rank in (0..h).rev() {
            let mut empty = 0;
            for file in 0..w {
                match self.board[rank * w + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        if p.color == Color::Wall {
                            out.push('*');
                            continue;
                        }
                        if let Some(b) = p.base {
                            out.push('+');
                            out.push(self.letter(Piece { kind: b, ..p }));
                            continue;
                        }
                        out.push(self.letter(p));
                        if p.promoted {
                            out.push('~');
                        }
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank > 0 {
                out.push('/');
            }
        }
        if rules.drops || rules.gating {
            out.push('[');
            for color in Color::SIDES {
                let mut kinds: Vec<usize> = (0..rules.pieces.len()).collect();
                kinds.sort_by_key(|&k| std::cmp::Reverse(rules.pieces[k].order));
                for k in kinds {
                    for _ in 0..self.hands[color as usize][k] {
                        out.push(self.letter(Piece { kind: k as u8, color, promoted: false, base: None }));
                    }
                }
            }
            out.push(']');
        }
        out.push_str(if self.side == Color::White { " w " } else { " b " });
        out.push_str(&self.castling_text());
        out.push(' ');
        match self.ep {
            _ if self.counting_limit > 0 => out.push_str(&self.counting_limit.to_string()),
            Some(sq) => out.push_str(&rules.square_name(sq as usize)),
            None => out.push('-'),
        }
        if rules.check_counting {
            out.push_str(&format!(" {}+{}", self.checks_left[0], self.checks_left[1]));
        }
        let halfmove = if self.counting_limit > 0 { self.counting_ply } else { self.halfmove };
        out.push_str(&format!(" {} {}", halfmove, self.fullmove));
        out
    }

    fn castling_text(&self) -> String {
        let mut text = String::new();
        for color in Color::SIDES {
            let mut rooks: Vec<u16> = self.castle_rooks[color as usize].iter().copied().collect();
            let king = self.castle_king_square(color);
            // Kingside first, then queenside, as FEN orders them.
            rooks.sort_by_key(|&r| std::cmp::Reverse(r));
            for r in rooks {
                let f = r as usize % self.rules.width as usize;
                let outermost = match king {
                    Some(k) if (r as usize) > k => !self.rook_between(color, r as usize, true),
                    Some(_) => !self.rook_between(color, r as usize, false),
                    None => true,
                };
                let c = match (king, outermost && !self.rules.chess960) {
                    (Some(k), true) if (r as usize) > k => 'k',
                    (Some(_), true) => 'q',
                    _ => (b'a' + f as u8) as char,
                };
                text.push(color.letter_case(c));
            }
            // Gates, but those the castling letters already name.
            let holding = self.hands[color as usize].iter().any(|&n| n > 0) || self.rules.captures_to_hand;
            if self.rules.gating && holding {
                let w = self.rules.width as usize;
                let castles = self.castle_rooks[color as usize].iter().next().is_some();
                for f in 0..w {
                    let named = self.gates[color as usize] & (1 << f) != 0;
                    let implied = (castles && !self.rules.chess960 && king.is_some_and(|k| k % w == f))
                        || self.castle_rooks[color as usize].iter().any(|&r| r as usize % w == f);
                    if named && !implied {
                        let c = (b'a' + f as u8) as char;
                        text.push(color.letter_case(c));
                    }
                }
            }
        }
        if text.is_empty() {
            "-".into()
        } else {
            text
        }
    }

    /// Whether another rook of `color` stands beyond `rook` on its rank (towards the edge).
    fn rook_between(&self, color: Color, rook: usize, kingside: bool) -> bool {
        let w = self.rules.width as usize;
        let (rank, file) = (rook / w, rook % w);
        let files: Vec<usize> = if kingside { (file + 1..w).collect() } else { (0..file).collect() };
        files.into_iter().any(|f| {
            self.board[rank * w + f]
                .is_some_and(|p| p.color == color && self.rules.castle_rook_kinds.contains(&(p.kind as usize)))
        })
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

    /// The squares a piece of `color` on `sq` reaches with `step`: (target, is a capture).
    fn step_targets(&self, sq: usize, color: Color, step: &Step, out: &mut Vec<(usize, bool)>) {
        let flip = if color == Color::White { 1 } else { -1 };
        let (dx, dy) = (step.dx as i32 * flip, step.dy as i32 * flip);
        let them = color.opponent();
        let enemy = |s: usize| self.board[s].is_some_and(|p| p.color == them);
        if step.range == 1 && step.hop == Hop::None {
            if step.lame && self.lame_blocked(sq, dx, dy) {
                return;
            }
            if let Some(t) = self.offset(sq, dx, dy) {
                match self.board[t] {
                    None if step.quiet => out.push((t, false)),
                    Some(_) if step.capture && enemy(t) => out.push((t, true)),
                    _ => {}
                }
            }
            return;
        }
        let limit = if step.range == 0 || step.hop != Hop::None { usize::MAX } else { step.range as usize };
        let (mut at, mut n, mut screened) = (sq, 0, false);
        while n < limit {
            let Some(t) = self.offset(at, dx, dy) else { break };
            (at, n) = (t, n + 1);
            let occupied = self.board[t].is_some();
            if step.hop != Hop::None && !screened {
                screened = occupied;
                continue;
            }
            if occupied {
                if step.capture && enemy(t) {
                    out.push((t, true));
                }
                break;
            }
            if step.quiet {
                out.push((t, false));
            }
            if step.hop == Hop::Grasshopper {
                break;
            }
        }
    }

    /// Whether the first square of a lame leap is taken (or off the board).
    fn lame_blocked(&self, sq: usize, dx: i32, dy: i32) -> bool {
        let leg = (dx.signum() * i32::from(dx.abs() >= dy.abs()), dy.signum() * i32::from(dy.abs() >= dx.abs()));
        match self.offset(sq, leg.0, leg.1) {
            Some(l) => self.board[l].is_some(),
            None => true,
        }
    }

    /// Whether `color`'s pieces attack `sq` (as if an enemy piece stood there).
    pub fn attacked(&self, sq: usize, by: Color) -> bool {
        let w = self.rules.width as i32;
        let squares = self.rules.width as usize * self.rules.height as usize;
        let flip = if by == Color::White { 1 } else { -1 };
        let (tx, ty) = (sq as i32 % w, sq as i32 / w);
        self.board[..squares]
            .iter()
            .enumerate()
            .any(|(from, p)| p.is_some_and(|p| p.color == by && self.attacks_from(from, p, tx, ty, flip, sq)))
    }

    /// Whether piece `p` on `from` attacks `sq` (at file `tx`, rank `ty`).
    /// Inlined always: it runs for every square of every attack test, and
    /// as a call of its own it made perft 1.7x slower.
    #[inline(always)]
    fn attacks_from(&self, from: usize, p: Piece, tx: i32, ty: i32, flip: i32, sq: usize) -> bool {
        let w = self.rules.width as i32;
        let by = p.color;
        {
            let def = &self.rules.pieces[p.kind as usize];
            // Only the steps that can reach that far in that direction are walked.
            let mut mask =
                def.reach[crate::rules::reach_index((tx - from as i32 % w) * flip, (ty - from as i32 / w) * flip)];
            while mask != 0 {
                let i = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let hit = match def.steps.get(i) {
                    Some(step) if i < 63 => self.hits(from, by, step, sq),
                    // Past 63 steps the mask cannot tell them apart: try them all.
                    _ => {
                        def.steps[63.min(def.steps.len())..].iter().any(|st| st.capture && self.hits(from, by, st, sq))
                    }
                };
                if hit {
                    return true;
                }
            }
            false
        }
    }

    /// The squares of `by`'s pieces that attack `sq`.
    pub fn attackers(&self, sq: usize, by: Color) -> Vec<usize> {
        let w = self.rules.width as i32;
        let flip = if by == Color::White { 1 } else { -1 };
        let (tx, ty) = (sq as i32 % w, sq as i32 / w);
        let squares = self.rules.width as usize * self.rules.height as usize;
        (0..squares)
            .filter(|&from| {
                self.board[from].is_some_and(|p| p.color == by && self.attacks_from(from, p, tx, ty, flip, sq))
            })
            .collect()
    }

    /// Whether `step` of a piece of `color` on `from` captures on `sq`.
    fn hits(&self, from: usize, color: Color, step: &Step, sq: usize) -> bool {
        let w = self.rules.width as i32;
        let flip = if color == Color::White { 1 } else { -1 };
        let (dx, dy) = (step.dx as i32 * flip, step.dy as i32 * flip);
        // Where `sq` lies from `from`: the step must point at it, a whole number of times.
        let (fx, fy) = ((sq as i32 % w) - (from as i32 % w), (sq as i32 / w) - (from as i32 / w));
        let times = if dx != 0 { fx / dx } else { fy / dy };
        if times < 1 || times * dx != fx || times * dy != fy {
            return false;
        }
        let rules = &self.rules;
        if let Some(p) = self.board[from] {
            if rules.mobility[color as usize][p.kind as usize].as_ref().is_some_and(|region| !region[sq]) {
                return false;
            }
            if step.dx != 0
                && rules.pieces[p.kind as usize].soldier
                && self.own_rank(color, self.rank_of(from)) < rules.soldier_rank
            {
                return false;
            }
        }
        if step.range == 1 && step.hop == Hop::None {
            return times == 1 && !(step.lame && self.lame_blocked(from, dx, dy));
        }
        if step.hop == Hop::None && step.range != 0 && times > step.range as i32 {
            return false;
        }
        // The squares between: empty for a slider, one piece for a cannon,
        // one piece right before the target for a grasshopper.
        let between = (1..times).filter(|&k| self.board[(from as i32 + k * dx + k * dy * w) as usize].is_some());
        match step.hop {
            Hop::None => between.count() == 0,
            Hop::Cannon => between.count() == 1,
            Hop::Grasshopper => times >= 2 && between.collect::<Vec<_>>() == [times - 1],
        }
    }

    /// Whether `color`'s royal piece is attacked.
    pub fn in_check(&self, color: Color) -> bool {
        self.rules.has_royal && self.royal_square(color).is_some_and(|k| self.attacked(k, color.opponent()))
    }

    /// The squares of `color`'s pseudo-royal pieces: of each extinction kind
    /// of which it has at most one more than the extinction count.
    pub fn pseudo_royals(&self, color: Color) -> Vec<usize> {
        let rules = &self.rules;
        if !rules.pseudo_royal {
            return Vec::new();
        }
        let squares = rules.width as usize * rules.height as usize;
        let mut out = Vec::new();
        for &kind in &rules.extinction_kinds {
            if self.on_board(color, kind) <= rules.extinction_count + 1 {
                out.extend(
                    (0..squares)
                        .filter(|&sq| self.board[sq].is_some_and(|p| p.color == color && p.kind as usize == kind)),
                );
            }
        }
        out
    }

    /// Whether `sq` touches one of `royals` (in atomic, touching kings cannot take each other).
    fn touches(&self, sq: usize, royals: &[usize]) -> bool {
        let w = self.rules.width as i32;
        royals.iter().any(|&r| {
            let (dx, dy) = ((r as i32 % w - sq as i32 % w).abs(), (r as i32 / w - sq as i32 / w).abs());
            dx <= 1 && dy <= 1 && r != sq
        })
    }

    /// Whether one of `color`'s pseudo-royal pieces stands attacked (a
    /// touching enemy pseudo-royal shields it where captures explode).
    pub fn pseudo_royal_attacked(&self, color: Color) -> bool {
        let theirs = self.pseudo_royals(color.opponent());
        self.pseudo_royals(color)
            .into_iter()
            .any(|sq| !(self.rules.blast && self.touches(sq, &theirs)) && self.attacked(sq, color.opponent()))
    }

    /// Whether `m` keeps the side to move's pseudo-royal pieces: none blown
    /// up, none left attacked, unless it takes one of the opponent's.
    fn pseudo_royals_safe_after(&self, m: Move, next: &Position) -> bool {
        let (us, them) = (self.side, self.side.opponent());
        let rules = &self.rules;
        let mut mine = self.pseudo_royals(us);
        let (from, dest) = match m {
            Move::Normal { from, to, .. }
            | Move::EnPassant { from, to }
            | Move::Castle { from, to, .. }
            | Move::Demote { from, to }
            | Move::Gate { from, to, .. }
            | Move::GateCastle { from, to, .. } => (Some(from as usize), to as usize),
            Move::Drop { to, .. } => (None, to as usize),
        };
        for sq in mine.iter_mut() {
            if Some(*sq) == from {
                *sq = dest;
            }
        }
        match m {
            Move::Drop { kind, to, .. } if rules.extinction_kinds.contains(&(kind as usize)) => mine.push(to as usize),
            Move::Normal { promotion: Some(k), .. } if rules.extinction_kinds.contains(&(k as usize)) => {
                if self.on_board(us, k as usize) > rules.extinction_count {
                    // One more of the kind than may be royal: none of them is.
                    mine.retain(|&sq| next.board[sq].is_none_or(|p| p.kind != k));
                } else {
                    mine.push(dest);
                }
            }
            _ => {}
        }
        let gone = |sq: usize, color: Color| next.board[sq].is_none_or(|p| p.color != color);
        if mine.iter().any(|&sq| gone(sq, us)) {
            return false;
        }
        let theirs = self.pseudo_royals(them);
        if theirs.iter().any(|&sq| gone(sq, them)) {
            return true;
        }
        mine.iter().all(|&sq| (rules.blast && self.touches(sq, &theirs)) || !next.attacked(sq, them))
    }

    /// Whether a pawn of the side to move may legally take en passant now.
    fn ep_capturable(&self) -> bool {
        let Some(ep) =
            self.ep.filter(|&e| self.rules.en_passant && self.rules.ep_region[self.side as usize][e as usize])
        else {
            return false;
        };
        // The pawns that could take: beside the passed square's far side.
        let back = if self.side == Color::White { -1 } else { 1 };
        [-1, 1].into_iter().filter_map(|dx| self.offset(ep as usize, dx, back)).any(|from| {
            self.board[from].is_some_and(|p| p.color == self.side && self.rules.pieces[p.kind as usize].pawn)
                && self.safe_after(Move::EnPassant { from: from as u16, to: ep })
        })
    }

    /// Whether the side to move's royal piece is safe after `m`.
    fn safe_after(&self, m: Move) -> bool {
        if !self.rules.has_royal && !self.rules.pseudo_royal {
            return true;
        }
        let us = self.side;
        let mut next = self.clone();
        // A gated piece shields nothing, as Fairy-Stockfish judges it.
        next.apply_raw(m.ungated());
        if next.in_check(us) || (self.rules.flying_general && next.generals_face()) {
            return false;
        }
        !self.rules.pseudo_royal || self.pseudo_royals_safe_after(m, &next)
    }

    /// Whether the two royal pieces stand on one file with nothing between.
    fn generals_face(&self) -> bool {
        let (Some(a), Some(b)) = (self.royal_square(Color::White), self.royal_square(Color::Black)) else {
            return false;
        };
        let w = self.rules.width as usize;
        a % w == b % w && (a.min(b) + w..a.max(b)).step_by(w).all(|s| self.board[s].is_none())
    }

    /// Every move of the side to move that obeys the piece rules, before the king's safety.
    fn pseudo_moves(&self, out: &mut Vec<Move>) {
        let rules = &self.rules;
        let us = self.side;
        let mut targets = Vec::new();
        for (from, p) in self.board.iter().enumerate() {
            let Some(p) = p else { continue };
            if p.color != us {
                continue;
            }
            let def = &rules.pieces[p.kind as usize];
            targets.clear();
            // A soldier steps only forward until it has crossed its river.
            let soldier = def.soldier && self.own_rank(us, self.rank_of(from)) < rules.soldier_rank;
            for step in &def.steps {
                if soldier && step.dx != 0 {
                    continue;
                }
                self.step_targets(from, us, step, &mut targets);
            }
            // Two steps may reach one square (a tori shogi eagle's K and bR): one move.
            if def.overlapping {
                targets.sort_unstable();
                targets.dedup();
            }
            if let Some(region) = &rules.mobility[us as usize][p.kind as usize] {
                targets.retain(|&(t, _)| region[t]);
            }
            if def.pawn {
                let forward = if us == Color::White { 1 } else { -1 };
                if rules.double_step_region[us as usize][from] {
                    if let (Some(one), Some(two)) = (self.offset(from, 0, forward), self.offset(from, 0, 2 * forward)) {
                        if self.board[one].is_none() && self.board[two].is_none() {
                            targets.push((two, false));
                        }
                    }
                }
                if let Some(ep) = self.ep.filter(|_| rules.en_passant) {
                    for dx in [-1, 1] {
                        if self.offset(from, dx, forward) == Some(ep as usize) {
                            out.push(Move::EnPassant { from: from as u16, to: ep });
                        }
                    }
                }
            }
            let promotes_to = rules.promoted_kind[p.kind as usize].filter(|_| p.base.is_none() && !def.pawn);
            let demotes = rules.piece_demotion && p.base.is_some();
            for &(to, capture) in &targets {
                let (from, to16) = (from as u16, to as u16);
                if promotes_to.is_some() || demotes {
                    // Shogi-style: into, out of or within the zone, the piece may
                    // promote (or demote, in kyoto shogi; with promotion on capture,
                    // only by taking); it must where it could never move again, or
                    // where the rules say so.
                    let zone = &rules.promotion_region[us as usize];
                    let immobile = rules.immobility_illegal && self.immobile(p.kind as usize, us, to);
                    if (zone[from as usize] || zone[to]) && (!rules.promotion_on_capture || capture) {
                        out.push(match promotes_to {
                            Some(k) => Move::Normal { from, to: to16, promotion: Some(k as u8) },
                            None => Move::Demote { from, to: to16 },
                        });
                        if rules.mandatory_piece_promotion || (promotes_to.is_some() && immobile) {
                            continue;
                        }
                    } else if immobile {
                        continue;
                    }
                    out.push(Move::Normal { from, to: to16, promotion: None });
                } else if def.pawn && rules.promotion_region[us as usize][to] {
                    let kinds = &rules.promotion_kinds[us as usize];
                    for &k in kinds {
                        // A kind with a promotion limit is out once the side holds that many on the board.
                        if rules.promotion_limit[k].is_some_and(|most| self.on_board(us, k) >= most) {
                            continue;
                        }
                        out.push(Move::Normal { from, to: to16, promotion: Some(k as u8) });
                    }
                    let stays = !rules.mandatory_promotion || kinds.is_empty();
                    if stays && !(rules.immobility_illegal && self.immobile(p.kind as usize, us, to)) {
                        out.push(Move::Normal { from, to: to16, promotion: None });
                    }
                } else {
                    out.push(Move::Normal { from, to: to16, promotion: None });
                }
            }
        }
        if rules.castling {
            self.castling_moves(out);
        }
        if rules.gating && self.gates[us as usize] != 0 {
            for i in 0..out.len() {
                self.gating_moves(out[i], out);
            }
        }
        if rules.drops {
            self.drop_moves(out);
        }
    }

    /// How many pieces of `kind` `color` has on the board.
    fn on_board(&self, color: Color, kind: usize) -> u32 {
        self.board.iter().flatten().filter(|p| p.color == color && p.kind as usize == kind).count() as u32
    }

    fn castling_moves(&self, out: &mut Vec<Move>) {
        let rules = &self.rules;
        let us = self.side;
        let Some(king) = self.castle_king_square(us) else { return };
        let rooks = self.castle_rooks[us as usize];
        let w = rules.width as usize;
        let rank = self.own_rank(us, rules.castle_rank) as usize;
        if king / w != rank || self.in_check(us) {
            return;
        }
        for &rook in rooks.iter() {
            let rook = rook as usize;
            if rook / w != rank || self.board[rook].is_none_or(|p| p.color != us) {
                continue;
            }
            let kingside = rook > king;
            let king_to = rank * w + if kingside { rules.castle_king_file } else { rules.castle_queen_file } as usize;
            let rook_to = if kingside { king_to - 1 } else { king_to + 1 };
            // Every square either piece crosses or lands on is empty but for the two.
            let span = |a: usize, b: usize| a.min(b)..=a.max(b);
            let clear = span(king, king_to)
                .chain(span(rook, rook_to))
                .all(|s| s == king || s == rook || self.board[s].is_none());
            // The king crosses no attacked square (nor starts on one, when
            // it is pseudo-royal; touching the enemy's shields it in atomic).
            let royal_king = self.pseudo_royals(us).contains(&king);
            let theirs = if royal_king { self.pseudo_royals(us.opponent()) } else { Vec::new() };
            let safe = span(king, king_to).all(|s| {
                (s == king && !royal_king)
                    || (self.rules.blast && royal_king && self.touches(s, &theirs))
                    || !self.attacked_without(s, us.opponent(), &[king, rook])
            });
            if clear && safe {
                out.push(Move::Castle { from: king as u16, to: king_to as u16, rook: rook as u16 });
            }
        }
    }

    /// Whether `by` attacks `sq` with the pieces on `gone` lifted off.
    fn attacked_without(&self, sq: usize, by: Color, gone: &[usize]) -> bool {
        let mut lifted = self.clone();
        for &g in gone {
            lifted.board[g] = None;
        }
        lifted.attacked(sq, by)
    }

    fn drop_moves(&self, out: &mut Vec<Move>) {
        let rules = &self.rules;
        let us = self.side;
        for (kind, &n) in self.hands[us as usize].iter().enumerate() {
            if n == 0 {
                continue;
            }
            for to in 0..rules.width as usize * rules.height as usize {
                if self.board[to].is_some() || !self.drop_allowed(kind, us, to) {
                    continue;
                }
                if rules.immobility_illegal && self.immobile(kind, us, to) {
                    continue;
                }
                if rules.drop_promoted && rules.promoted_kind[kind].is_some() {
                    out.push(Move::Drop { kind: kind as u8, to: to as u16, promoted: true });
                }
                out.push(Move::Drop { kind: kind as u8, to: to as u16, promoted: false });
            }
        }
    }

    /// Whether `color` may put a `kind` from hand on `to` (by a drop or a
    /// gate): its drop region, no pawn on the first rank or in the
    /// promotion zone, no doubled shogi pawns.
    fn drop_allowed(&self, kind: usize, color: Color, to: usize) -> bool {
        let rules = &self.rules;
        if !rules.drop_region[color as usize][to] {
            return false;
        }
        if rules.drop_no_doubled == Some(kind) {
            let (w, file) = (rules.width as usize, to % rules.width as usize);
            let on_file = (0..rules.height as usize)
                .filter(|r| {
                    self.board[r * w + file]
                        .is_some_and(|q| q.color == color && q.kind as usize == kind && q.base.is_none())
                })
                .count();
            if on_file as u32 >= rules.drop_no_doubled_count {
                return false;
            }
        }
        if rules.pieces[kind].pawn {
            if self.own_rank(color, self.rank_of(to)) == 0 && !rules.first_rank_pawn_drops {
                return false;
            }
            if rules.promotion_region[color as usize][to] && !rules.promotion_zone_pawn_drops {
                return false;
            }
        }
        true
    }

    /// Whether a piece of `kind` and `color` on `sq` could never move again
    /// (a shogi pawn or lance on the last rank, a knight on the last two).
    fn immobile(&self, kind: usize, color: Color, sq: usize) -> bool {
        let flip = if color == Color::White { 1 } else { -1 };
        !self.rules.pieces[kind]
            .steps
            .iter()
            .any(|st| self.offset(sq, st.dx as i32 * flip, st.dy as i32 * flip).is_some())
    }

    /// Every legal move of the side to move (the game's end is not looked at).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        let mut pseudo = Vec::new();
        self.pseudo_moves(&mut pseudo);
        let start = out.len();
        if !self.rules.has_royal && !self.rules.pseudo_royal {
            out.extend(pseudo);
        } else {
            // Out of check, a drop or a move of a piece off every line through
            // the king cannot expose it (see `Rules::lines_only`): no need to try it.
            let king = self.royal_square(self.side);
            let quiet_check =
                king.is_some() && self.rules.lines_only && !self.rules.pseudo_royal && !self.in_check(self.side);
            let hoppers = self.rules.hoppers;
            let w = self.rules.width as i32;
            let aligned = |sq: usize| {
                king.is_some_and(|k| {
                    let (df, dr) = ((sq as i32 % w) - (k as i32 % w), (sq as i32 / w) - (k as i32 / w));
                    df == 0 || dr == 0 || df.abs() == dr.abs()
                })
            };
            out.extend(pseudo.into_iter().filter(|&m| {
                let safe_without_trying = quiet_check
                    && match m {
                        Move::Drop { to, .. } => !hoppers || !aligned(to as usize),
                        Move::Normal { from, to, .. } | Move::Demote { from, to } => {
                            Some(from as usize) != king
                                && !aligned(from as usize)
                                && (!hoppers || !aligned(to as usize))
                        }
                        Move::EnPassant { .. } | Move::Castle { .. } | Move::Gate { .. } | Move::GateCastle { .. } => {
                            false
                        }
                    };
                safe_without_trying || self.safe_after(m)
            }));
        }
        if !self.rules.mutually_immune.is_empty() {
            // A piece of a mutually immune kind may not take one of its own kind (atomar's kings).
            let immune = |k: u8| self.rules.mutually_immune.contains(&(k as usize));
            out.retain(|&m| match m {
                Move::Normal { from, to, .. } => match (self.board[from as usize], self.board[to as usize]) {
                    (Some(a), Some(b)) => !(immune(a.kind) && a.kind == b.kind),
                    _ => true,
                },
                _ => true,
            });
        }
        if !self.rules.checking {
            // No move may give check (racing kings).
            let them = self.side.opponent();
            let mut kept = out.split_off(start);
            kept.retain(|&m| {
                let mut next = self.clone();
                next.apply_raw(m);
                !next.in_check(them)
            });
            out.extend(kept);
        }
        if self.rules.makpong && self.in_check(self.side) {
            // Makpong: a king in check may move only to take its one checker.
            let king = self.royal_square(self.side);
            let checkers = king.map(|k| self.attackers(k, self.side.opponent())).unwrap_or_default();
            out.retain(|&m| match m {
                Move::Normal { from, to, .. } if Some(from as usize) == king => checkers == [to as usize],
                _ => true,
            });
        }
        if self.rules.must_capture && out.iter().any(|&m| self.is_capture(m)) {
            out.retain(|&m| self.is_capture(m));
        }
    }

    /// Whether `m` takes a piece.
    pub fn is_capture(&self, m: Move) -> bool {
        match m {
            Move::Normal { to, .. } | Move::Demote { to, .. } | Move::Gate { to, .. } => {
                self.board[to as usize].is_some()
            }
            Move::EnPassant { .. } => true,
            Move::Castle { .. } | Move::GateCastle { .. } | Move::Drop { .. } => false,
        }
    }

    /// Plays `m` (legal or at least pseudo-legal); the en passant square
    /// stays only where the next player may take on it.
    pub fn apply(&mut self, m: Move) {
        self.apply_raw(m);
        if self.ep.is_some() && !self.ep_capturable() {
            self.ep = None;
        }
    }

    /// Plays `m`, keeping any en passant square a double step leaves.
    fn apply_raw(&mut self, m: Move) {
        let us = self.side;
        let rules = self.rules.clone();
        let mut reset = false;
        self.ep = None;
        if self.counting_limit > 0 {
            self.counting_ply = self.counting_ply.saturating_add(1);
        }
        // What a counting rule needs to know of the move, taken before it is made.
        let counted = rules.counting.map(|rule| {
            let captured = match m {
                Move::Normal { to, .. } | Move::Demote { to, .. } | Move::Gate { to, .. } => self.board[to as usize],
                Move::EnPassant { .. } => Some(Piece { kind: 0, color: us.opponent(), promoted: false, base: None }),
                Move::Castle { .. } | Move::GateCastle { .. } | Move::Drop { .. } => None,
            };
            let pawn_promotion = matches!(m, Move::Normal { from, promotion: Some(_), .. }
                if self.board[from as usize].is_some_and(|p| rules.pieces[p.kind as usize].pawn));
            (rule, captured, pawn_promotion)
        });
        // A demotion is a move after which the piece is what it was; a
        // gating move, one after which a piece from hand stands where it left.
        let (m, demote, gate) = match m {
            Move::Demote { from, to } => (Move::Normal { from, to, promotion: None }, true, None),
            Move::Gate { from, to, kind } => (Move::Normal { from, to, promotion: None }, false, Some((kind, from))),
            Move::GateCastle { from, to, rook, kind, on_rook } => {
                (Move::Castle { from, to, rook }, false, Some((kind, if on_rook { rook } else { from })))
            }
            other => (other, false, None),
        };
        if rules.gating {
            self.update_gates(m, us);
        }
        match m {
            Move::Normal { from, to, promotion } => {
                let (from, to) = (from as usize, to as usize);
                let mut piece = self.board[from].take().expect("a piece to move");
                let captures = self.board[to].is_some();
                if let Some(captured) = self.board[to] {
                    reset = true;
                    self.take(captured, us);
                    self.castle_rooks[captured.color as usize].retain(|&r| r as usize != to);
                    // A king taken (giveaway, extinction) takes its side's
                    // rights with it, as Fairy-Stockfish's mask of its square does.
                    if Some(captured.kind as usize) == rules.castle_king {
                        self.castle_rooks[captured.color as usize].clear();
                    }
                }
                let def = &rules.pieces[piece.kind as usize];
                // Captures, promotions (but kyoto's turning over) and moves of
                // the n-move rule's kinds (pawns) that cannot be taken back reset its count.
                let irreversible = rules.n_move_kinds.contains(&(piece.kind as usize))
                    && !self.steps_back(piece.kind as usize, us, to, from);
                if irreversible || promotion.is_some_and(|_| def.pawn || !rules.piece_demotion) {
                    reset = true;
                }
                if def.pawn {
                    let (a, b) = (self.rank_of(from) as i32, self.rank_of(to) as i32);
                    if (a - b).abs() == 2 && from % rules.width as usize == to % rules.width as usize {
                        self.ep = Some(((from + to) / 2) as u16);
                    }
                }
                if Some(piece.kind as usize) == rules.castle_king {
                    self.castle_rooks[us as usize].clear();
                }
                self.castle_rooks[us as usize].retain(|&r| r as usize != from);
                if rules.walling_past {
                    self.board[from] = Some(Piece::WALL);
                }
                if let Some(k) = promotion {
                    piece = if def.pawn {
                        Piece { kind: k, color: us, promoted: rules.captures_to_hand && !rules.drop_loop, base: None }
                    } else {
                        Piece { kind: k, color: us, promoted: false, base: Some(piece.kind) }
                    };
                }
                if demote {
                    piece = Piece { kind: piece.base.unwrap_or(piece.kind), base: None, ..piece };
                }
                self.board[to] = Some(piece);
                if captures && rules.blast {
                    self.explode(to);
                }
            }
            Move::EnPassant { from, to } => {
                let (from, to) = (from as usize, to as usize);
                let piece = self.board[from].take();
                let w = rules.width as usize;
                let victim = (from / w) * w + to % w;
                if let Some(captured) = self.board[victim].take() {
                    self.take(captured, us);
                }
                self.board[to] = piece;
                reset = true;
                if rules.blast {
                    self.explode(to);
                }
            }
            Move::Castle { from, to, rook } => {
                let (from, to, rook) = (from as usize, to as usize, rook as usize);
                let king = self.board[from].take();
                let r = self.board[rook].take();
                let rook_to = if rook > from { to - 1 } else { to + 1 };
                self.board[to] = king;
                self.board[rook_to] = r;
                self.castle_rooks[us as usize].clear();
            }
            Move::Drop { kind, to, promoted } => {
                // A drop resets the n-move count, as Fairy-Stockfish counts it.
                reset = true;
                self.hands[us as usize][kind as usize] -= 1;
                self.board[to as usize] = Some(match rules.promoted_kind[kind as usize].filter(|_| promoted) {
                    Some(k) => Piece { kind: k as u8, color: us, promoted: false, base: Some(kind) },
                    None => Piece { kind, color: us, promoted: false, base: None },
                });
            }
            Move::Demote { .. } | Move::Gate { .. } | Move::GateCastle { .. } => {
                unreachable!("demotions and gating moves were made plain moves above")
            }
        }
        if let Some((kind, square)) = gate {
            self.hands[us as usize][kind as usize] -= 1;
            self.board[square as usize] = Some(Piece { kind, color: us, promoted: false, base: None });
        }
        if rules.gating && !rules.captures_to_hand && self.hands[us as usize].iter().all(|&n| n == 0) {
            // Nothing left to gate: the gates close.
            self.gates[us as usize] = 0;
        }
        self.halfmove = if reset { 0 } else { self.halfmove.saturating_add(1) };
        if us == Color::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.side = us.opponent();
        if let Some((rule, captured, pawn_promotion)) = counted {
            let captured_pawn = match m {
                Move::EnPassant { .. } => true,
                _ => captured.is_some_and(|p| rules.pieces[p.kind as usize].pawn),
            };
            self.start_count(rule, captured.is_some(), captured_pawn, pawn_promotion);
        }
    }

    /// A piece leaving a gate, or taken on one, closes it (castling closes the rook's too).
    fn update_gates(&mut self, m: Move, us: Color) {
        match m {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } | Move::Demote { from, to } => {
                self.gates[us as usize] &= !self.gate_bit(us, from);
                self.gates[us.opponent() as usize] &= !self.gate_bit(us.opponent(), to);
            }
            Move::Castle { from, rook, .. } => {
                self.gates[us as usize] &= !(self.gate_bit(us, from) | self.gate_bit(us, rook))
            }
            _ => {}
        }
    }

    /// The gate bit of `sq` for `color`: its file's, if it is on that side's castling rank.
    fn gate_bit(&self, color: Color, sq: u16) -> u16 {
        let w = self.rules.width as usize;
        if self.rank_of(sq as usize) == self.own_rank(color, self.rules.castle_rank) {
            1 << (sq as usize % w)
        } else {
            0
        }
    }

    /// The gating moves beside `m`: one for each kind in hand, onto the
    /// square the piece leaves (for castling, the king's or the rook's).
    fn gating_moves(&self, m: Move, out: &mut Vec<Move>) {
        let us = self.side as usize;
        let open = |sq: u16| self.gates[us] & self.gate_bit(self.side, sq) != 0;
        for k in (0..self.rules.pieces.len()).filter(|&k| self.hands[us][k] > 0) {
            let kind = k as u8;
            let open = |sq: u16| open(sq) && self.drop_allowed(k, self.side, sq as usize);
            match m {
                Move::Normal { from, to, promotion: None } if open(from) => out.push(Move::Gate { from, to, kind }),
                Move::Castle { from, to, rook } => {
                    // Not onto a square king or rook lands on (Chess960).
                    let rook_to = if rook > from { to - 1 } else { to + 1 };
                    let open = |sq: u16| open(sq) && sq != to && sq != rook_to;
                    if open(from) {
                        out.push(Move::GateCastle { from, to, rook, kind, on_rook: false });
                    }
                    if open(rook) {
                        out.push(Move::GateCastle { from, to, rook, kind, on_rook: true });
                    }
                }
                _ => {}
            }
        }
    }

    /// Starts a count once the move just made calls for one (as
    /// Fairy-Stockfish counts: the side to move may be the one counting).
    fn start_count(&mut self, rule: Counting, captured: bool, captured_pawn: bool, promoted: bool) {
        let (stm, mover) = (self.side, self.side.opponent());
        let pieces = |c: Color| self.board.iter().flatten().filter(|p| p.color == c).count() as u32;
        let total = pieces(Color::White) + pieces(Color::Black);
        if rule != Counting::Asean
            && captured_pawn
            && pieces(mover) == 1
            && self.pawns() == 0
            && self.count_limit(rule, mover) > 0
        {
            self.counting_limit = 2 * self.count_limit(rule, mover);
            self.counting_ply = 2 * total - 1;
        }
        let fresh = self.counting_limit == 0 || ((captured || promoted) && pieces(stm) == 1);
        if fresh && self.count_limit(rule, stm) > 0 {
            self.counting_limit = 2 * self.count_limit(rule, stm);
            self.counting_ply = if rule == Counting::Asean || pieces(stm) > 1 { 0 } else { 2 * total };
        }
    }

    /// How many pawns stand on the board.
    fn pawns(&self) -> u32 {
        self.board
            .iter()
            .flatten()
            .filter(|p| p.color != Color::Wall && self.rules.pieces[p.kind as usize].pawn)
            .count() as u32
    }

    /// The moves `counting` side may count to under the rule (0: no count for it).
    fn count_limit(&self, rule: Counting, counting: Color) -> u32 {
        let other = counting.opponent();
        let all = |c: Color| self.board.iter().flatten().filter(|p| p.color == c).count() as u32;
        let of = |c: Color, name: &str| {
            self.board
                .iter()
                .flatten()
                .filter(|p| p.color == c && self.rules.pieces[p.kind as usize].name == name)
                .count() as u32
        };
        let (rooks, khons, knights) = (of(other, "rook"), of(other, "silver"), of(other, "knight"));
        let honour = |board: u32, offset: u32| {
            if rooks > 1 {
                8 - offset
            } else if rooks == 1 {
                16 - offset
            } else if khons > 1 {
                22 - offset
            } else if knights > 1 {
                32 - offset
            } else if khons == 1 {
                44 - offset
            } else {
                board
            }
        };
        match rule {
            Counting::Makruk => {
                if self.pawns() > 0 || all(other) == 1 {
                    0
                } else if all(counting) > 1 {
                    64
                } else {
                    honour(64, 0)
                }
            }
            Counting::Cambodian => {
                if all(counting) > 3 || all(other) == 1 {
                    0
                } else if all(counting) > 1 {
                    63
                } else if self.pawns() > 0 {
                    0
                } else {
                    honour(63, 1)
                }
            }
            Counting::Asean => {
                if self.pawns() > 0 || all(counting) > 1 {
                    0
                } else if rooks > 0 {
                    16
                } else if khons > 0 {
                    44
                } else if knights > 0 {
                    64
                } else {
                    0
                }
            }
        }
    }

    /// Whether a piece of `kind` and `color` on `at` could step back to
    /// `back` on an empty board (a sideways pawn's move can be undone).
    fn steps_back(&self, kind: usize, color: Color, at: usize, back: usize) -> bool {
        let w = self.rules.width as i32;
        let flip = if color == Color::White { 1 } else { -1 };
        let (fx, fy) = ((back as i32 % w) - (at as i32 % w), (back as i32 / w) - (at as i32 / w));
        self.rules.pieces[kind].steps.iter().filter(|st| st.quiet && st.hop == Hop::None).any(|st| {
            let (dx, dy) = (st.dx as i32 * flip, st.dy as i32 * flip);
            let times = if dx != 0 { fx / dx } else { fy / dy };
            times >= 1 && times * dx == fx && times * dy == fy && (st.range == 0 || times <= st.range as i32)
        })
    }

    /// A capture on `sq` explodes: the capturer and every piece but pawns
    /// around it go, but for the blast-immune kinds; castling rights go with them.
    fn explode(&mut self, sq: usize) {
        let rules = self.rules.clone();
        let mut blast = vec![sq];
        for dy in -1..=1 {
            for dx in -1..=1 {
                if let Some(n) = self.offset(sq, dx, dy).filter(|&n| n != sq) {
                    if self.board[n].is_some_and(|p| p.color != Color::Wall && !rules.pieces[p.kind as usize].pawn) {
                        blast.push(n);
                    }
                }
            }
        }
        for b in blast {
            let Some(p) = self.board[b] else { continue };
            if rules.blast_immune.contains(&(p.kind as usize)) {
                continue;
            }
            self.board[b] = None;
            if Some(p.kind as usize) == rules.castle_king {
                self.castle_rooks[p.color as usize].clear();
            }
            for rooks in self.castle_rooks.iter_mut() {
                rooks.retain(|&r| r as usize != b);
            }
        }
    }

    /// A captured piece goes to the capturer's hand, a promoted one as a pawn.
    fn take(&mut self, captured: Piece, by: Color) {
        if !self.rules.captures_to_hand {
            return;
        }
        let kind = if let Some(b) = captured.base {
            b as usize
        } else if captured.promoted {
            self.rules.pieces.iter().position(|p| p.pawn).unwrap_or(captured.kind as usize)
        } else {
            captured.kind as usize
        };
        self.hands[by as usize][kind] += 1;
    }

    /// A move in Fairy-Stockfish's UCI notation (`e2e4`, `e7e8q`, `P@e4`, `e1g1`).
    pub fn uci(&self, m: Move) -> String {
        let r = &self.rules;
        match m {
            Move::Normal { from, to, promotion } if r.walling_past => {
                // Fairy-Stockfish's gating notation: the move, then where the wall goes.
                let (a, b) = (r.square_name(from as usize), r.square_name(to as usize));
                let mut s = format!("{a}{b}");
                if let Some(k) = promotion {
                    s.push(r.pieces[k as usize].letter);
                }
                format!("{s},{b}{a}")
            }
            Move::Normal { from, to, promotion } => {
                let mut s = format!("{}{}", r.square_name(from as usize), r.square_name(to as usize));
                let pawn = self.board[from as usize].is_some_and(|p| r.pieces[p.kind as usize].pawn);
                match promotion {
                    Some(k) if pawn => s.push(r.pieces[k as usize].letter),
                    Some(_) => s.push('+'),
                    None => {}
                }
                s
            }
            // Chess960 castling is written as the king taking its rook.
            Move::Castle { from, rook, .. } if r.chess960 => {
                format!("{}{}", r.square_name(from as usize), r.square_name(rook as usize))
            }
            Move::EnPassant { from, to } | Move::Castle { from, to, .. } => {
                format!("{}{}", r.square_name(from as usize), r.square_name(to as usize))
            }
            Move::Drop { kind, to, promoted } => {
                let plus = if promoted { "+" } else { "" };
                format!("{plus}{}@{}", r.pieces[kind as usize].letter.to_ascii_uppercase(), r.square_name(to as usize))
            }
            Move::Demote { from, to } => {
                format!("{}{}-", r.square_name(from as usize), r.square_name(to as usize))
            }
            // The piece letter after the move; gating on the rook's square is
            // written from the rook to the king.
            Move::Gate { from, to, kind } => {
                format!(
                    "{}{}{}",
                    r.square_name(from as usize),
                    r.square_name(to as usize),
                    r.pieces[kind as usize].letter
                )
            }
            Move::GateCastle { from, to, rook, kind, on_rook } => {
                let letter = r.pieces[kind as usize].letter;
                if on_rook {
                    format!("{}{}{letter}", r.square_name(rook as usize), r.square_name(from as usize))
                } else {
                    format!("{}{letter}", self.uci(Move::Castle { from, to, rook }))
                }
            }
        }
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
