//! Reading and writing Fairy-Stockfish's FEN (the board, hands, castling
//! rights, counters) and moves' UCI text.

use crate::rules::Rules;
use std::sync::Arc;

use super::{Color, Move, Piece, Position, Rooks, MOST_KINDS, MOST_SQUARES};

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
            ep_victim: None,
            halfmove: 0,
            passes: 0,
            bikjang_plies: 0,
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
            if let Some(e) = rest.get(k).filter(|t| **t == "-" || rules.parse_squares(t).is_some()) {
                // A custom pawn's squares (`e5e6`): the passed one is empty.
                let squares = rules.parse_squares(e).unwrap_or_default();
                let passed = squares.iter().find(|&&s| pos.board[s].is_none()).or(squares.first());
                pos.ep = passed.map(|&s| s as u16);
                if rules.custom_pawns {
                    // The custom pawn stands on the other square named, or
                    // behind the passed one (not a chess pawn: it is taken
                    // behind the square, as the chess pawn is).
                    let back = if pos.side == Color::White { -1 } else { 1 };
                    let behind = pos.ep.and_then(|e| pos.offset(e as usize, 0, back));
                    let custom = |s: &usize| {
                        pos.board[*s].is_some_and(|p| {
                            rules.pieces[p.kind as usize].pawn && rules.pieces[p.kind as usize].initial_leaps
                        })
                    };
                    let named = squares.iter().copied().find(|&s| pos.board[s].is_some());
                    pos.ep_victim = named.or(behind.filter(custom)).map(|s| s as u16);
                }
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
        // The en passant square stands only where a pawn could take on it
        // (a custom pawn's, always).
        if pos.ep.is_some() && pos.ep_victim.is_none() && !pos.ep_capturable() {
            pos.ep = None;
        }
        // Kings facing in the position given: its first ply of bikjang.
        if rules.bikjang && pos.generals_face() {
            pos.bikjang_plies = 1;
        }
        Ok(pos)
    }

    pub(super) fn read_castling(&mut self, text: &str) -> Result<(), String> {
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
            if rules.gating || rules.cambodian_moves {
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
        // A free hand (ataxx's) is not written.
        if (rules.drops && !rules.free_drops) || rules.gating {
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
            Some(sq) if self.ep_victim.is_some() => {
                // A custom pawn's: the passed square and the pawn's, in the board's order.
                let pawn = self.ep_victim.map_or(sq as usize, |v| v as usize);
                for s in [(sq as usize).min(pawn), (sq as usize).max(pawn)] {
                    out.push_str(&rules.square_name(s));
                }
            }
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

    pub(super) fn castling_text(&self) -> String {
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
            if (self.rules.gating && holding) || self.rules.cambodian_moves {
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
    pub(super) fn rook_between(&self, color: Color, rook: usize, kingside: bool) -> bool {
        let w = self.rules.width as usize;
        let (rank, file) = (rook / w, rook % w);
        let files: Vec<usize> = if kingside { (file + 1..w).collect() } else { (0..file).collect() };
        files.into_iter().any(|f| {
            self.board[rank * w + f]
                .is_some_and(|p| p.color == color && self.rules.castle_rook_kinds.contains(&(p.kind as usize)))
        })
    }

    /// A move in Fairy-Stockfish's UCI notation (`e2e4`, `e7e8q`, `P@e4`, `e1g1`).
    pub fn uci(&self, m: Move) -> String {
        let r = &self.rules;
        match m {
            // A pass: the mover's first piece staying where it is.
            Move::Pass { at } => format!("{0}{0}", r.square_name(at as usize)),
            // Fairy-Stockfish's gating notation: the move, then where the
            // piece landed and where the wall goes.
            Move::Walled { wall, .. } => {
                let base = m.unwalled();
                let landed = match base {
                    Move::Castle { rook, .. } if r.chess960 => rook,
                    Move::Normal { to, .. }
                    | Move::EnPassant { to, .. }
                    | Move::Castle { to, .. }
                    | Move::Demote { to, .. }
                    | Move::Gate { to, .. }
                    | Move::GateCastle { to, .. }
                    | Move::Drop { to, .. }
                    | Move::Pass { at: to } => to,
                    Move::Walled { .. } => wall,
                };
                format!("{},{}{}", self.uci(base), r.square_name(landed as usize), r.square_name(wall as usize))
            }
            Move::Normal { from, to, promotion } => {
                let mut s = format!("{}{}", r.square_name(from as usize), r.square_name(to as usize));
                let pawn = |k: u8| {
                    self.board[from as usize]
                        .is_some_and(|p| r.pawn_promotion(p.color as usize, p.kind as usize, k as usize))
                };
                match promotion {
                    Some(k) if pawn(k) => s.push(r.pieces[k as usize].letter),
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
}
