//! Playing a move on a position: captures, promotions and demotions,
//! castling and gating rights, counters, explosions, pieces to hand.

use crate::betza::Hop;
use crate::rules::{Counting, Enclosing, Walling};

use super::{Color, Move, Piece, Position};

impl Position {
    /// Plays `m` (legal or at least pseudo-legal); the en passant square
    /// stays only where the next player may take on it (a custom pawn's,
    /// always).
    pub fn apply(&mut self, m: Move) {
        self.apply_raw(m);
        // A chess pawn's double step leaves its square only where it may be taken.
        if self.ep.is_some() && self.ep_victim.is_none() && !self.ep_capturable() {
            self.ep = None;
        }
        if self.rules.bikjang {
            self.bikjang_plies = if self.generals_face() { self.bikjang_plies.saturating_add(1) } else { 0 };
        }
    }

    /// Plays `m`, keeping any en passant square a double step leaves.
    pub(super) fn apply_raw(&mut self, m: Move) {
        if let Move::Pass { .. } = m {
            self.ep = None;
            self.ep_victim = None;
            self.halfmove = self.halfmove.saturating_add(1);
            if self.side == Color::Black {
                self.fullmove = self.fullmove.saturating_add(1);
            }
            self.side = self.side.opponent();
            self.passes = self.passes.saturating_add(1);
            return;
        }
        self.passes = 0;
        if let Move::Walled { wall, .. } = m {
            // The duck leaves its square for the new one; other walls stay.
            if self.rules.walling == Some(Walling::Duck) {
                for sq in self.board.iter_mut().filter(|p| p.is_some_and(|p| p.color == Color::Wall)) {
                    *sq = None;
                }
            }
            self.apply_raw(m.unwalled());
            self.board[wall as usize] = Some(Piece::WALL);
            // A wall on the square a pawn passed leaves nothing to take there.
            if self.ep == Some(wall) {
                self.ep = None;
            }
            return;
        }
        let us = self.side;
        let rules = self.rules.clone();
        let mut reset = false;
        let ep_victim = self.ep_victim.take();
        self.ep = None;
        if self.counting_limit > 0 {
            self.counting_ply = self.counting_ply.saturating_add(1);
        }
        // What a counting rule needs to know of the move, taken before it is made.
        let counted = rules.counting.map(|rule| {
            let captured = match m {
                Move::Normal { from, to, .. } | Move::Demote { from, to } | Move::Gate { from, to, .. } => {
                    self.board[to as usize].filter(|_| from != to)
                }
                Move::EnPassant { .. } => Some(Piece { kind: 0, color: us.opponent(), promoted: false, base: None }),
                Move::Castle { .. }
                | Move::GateCastle { .. }
                | Move::Drop { .. }
                | Move::Walled { .. }
                | Move::Pass { .. } => None,
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
        if rules.gating || rules.cambodian_moves {
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
                let irreversible = rules.n_move_kinds[us as usize].contains(&(piece.kind as usize))
                    && !self.steps_back(piece.kind as usize, us, to, from);
                let pawn_promotion =
                    promotion.is_some_and(|k| rules.pawn_promotion(us as usize, piece.kind as usize, k as usize));
                if irreversible || promotion.is_some_and(|_| pawn_promotion || !rules.piece_demotion) {
                    reset = true;
                }
                if def.pawn && def.initial_leaps {
                    // A custom pawn's initial leap leaves the square it
                    // passed, and its own, to be taken en passant.
                    if let Some(passed) = self.initial_leap(piece.kind as usize, us, from, to) {
                        self.ep = Some(passed as u16);
                        self.ep_victim = Some(to as u16);
                    }
                } else if def.pawn {
                    let (a, b) = (self.rank_of(from) as i32, self.rank_of(to) as i32);
                    if (a - b).abs() == 2 && from % rules.width as usize == to % rules.width as usize {
                        self.ep = Some(((from + to) / 2) as u16);
                    }
                }
                if Some(piece.kind as usize) == rules.castle_king {
                    self.castle_rooks[us as usize].clear();
                }
                self.castle_rooks[us as usize].retain(|&r| r as usize != from);
                // Petrification goes by the kind that moved, not the one it promotes to.
                let petrifies = captures && rules.petrify_kinds.contains(&(piece.kind as usize));
                if let Some(k) = promotion {
                    piece = if pawn_promotion {
                        Piece { kind: k, color: us, promoted: rules.captures_to_hand && !rules.drop_loop, base: None }
                    } else {
                        Piece { kind: k, color: us, promoted: false, base: Some(piece.kind) }
                    };
                }
                if demote {
                    piece = Piece { kind: piece.base.unwrap_or(piece.kind), base: None, ..piece };
                }
                // A petrifying piece that takes turns to stone there.
                self.board[to] = Some(if petrifies { Piece::WALL } else { piece });
                if captures && rules.blast {
                    self.explode(to);
                }
            }
            Move::EnPassant { from, to } => {
                let (from, to) = (from as usize, to as usize);
                let piece = self.board[from].take();
                let w = rules.width as usize;
                let victim = ep_victim.map_or((from / w) * w + to % w, |v| v as usize);
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
            // Played above, wall and all, or no move at all.
            Move::Walled { .. } | Move::Pass { .. } => {}
            Move::Drop { kind, to, promoted } => {
                // A drop resets the n-move count, as Fairy-Stockfish counts it.
                reset = true;
                if !rules.free_drops {
                    self.hands[us as usize][kind as usize] -= 1;
                }
                self.board[to as usize] = Some(match rules.promoted_kind[kind as usize].filter(|_| promoted) {
                    Some(k) => Piece { kind: k as u8, color: us, promoted: false, base: Some(kind) },
                    None => Piece { kind, color: us, promoted: false, base: None },
                });
                if rules.castling_dropped_piece {
                    self.castle_dropped(kind as usize, to as usize, us);
                }
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
        if rules.cambodian_moves {
            self.close_king_gate_aimed_at(m, us.opponent());
        }
        if let (Some(rule), Move::Normal { to, .. } | Move::Drop { to, .. }) = (rules.flip_enclosed, m) {
            self.flip_enclosed(rule, to as usize, us);
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
    pub(super) fn update_gates(&mut self, m: Move, us: Color) {
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

    /// Cambodian chess: a rook that moves onto the rank or file of
    /// `them`'s king on its gate takes away the king's leap (whatever
    /// stands between, as Fairy-Stockfish judges it).
    fn close_king_gate_aimed_at(&mut self, m: Move, them: Color) {
        let Move::Normal { to, .. } = m else { return };
        let is_rook = self.board[to as usize].is_some_and(|p| self.rules.pieces[p.kind as usize].name == "rook");
        let Some(king) = self.royal_square(them).filter(|_| is_rook) else { return };
        let gate = self.gate_bit(them, king as u16);
        let w = self.rules.width as usize;
        let (a, b) = (to as usize, king);
        let aimed = a != b && (a % w == b % w || a / w == b / w);
        if self.gates[them as usize] & gate != 0 && aimed {
            self.gates[them as usize] &= !gate;
        }
    }

    /// `castlingDroppedPiece`: a king dropped on its castling square may
    /// castle with the rooks in its rank's corners; a rook dropped in a
    /// corner, with such a king, may castle with it.
    fn castle_dropped(&mut self, kind: usize, to: usize, us: Color) {
        let rules = self.rules.clone();
        let w = rules.width as usize;
        let rank = self.own_rank(us, rules.castle_rank) as usize;
        if to / w != rank {
            return;
        }
        let king_home = rank * w + rules.castle_king_home_file as usize;
        let corners = [rank * w, rank * w + w - 1];
        let rook_at = |pos: &Position, sq: usize| {
            pos.board[sq].is_some_and(|p| p.color == us && rules.castle_rook_kinds.contains(&(p.kind as usize)))
        };
        if Some(kind) == rules.castle_king && to == king_home {
            let rooks: Vec<usize> = corners.into_iter().filter(|&sq| rook_at(self, sq)).collect();
            for sq in rooks {
                if !self.castle_rooks[us as usize].contains(&(sq as u16)) {
                    self.castle_rooks[us as usize].push(sq as u16);
                }
            }
        } else if rules.castle_rook_kinds.contains(&kind) && corners.contains(&to) {
            let king_there =
                self.board[king_home].is_some_and(|p| p.color == us && Some(p.kind as usize) == rules.castle_king);
            if king_there && !self.castle_rooks[us as usize].contains(&(to as u16)) {
                self.castle_rooks[us as usize].push(to as u16);
            }
        }
    }

    /// Turns to `us` the opponent's pieces a piece landing on `to` encloses
    /// (reversi: each line of them ending in one of `us`'s) or stands
    /// beside (ataxx).
    fn flip_enclosed(&mut self, rule: Enclosing, to: usize, us: Color) {
        let them = us.opponent();
        let theirs = |pos: &Position, sq: usize| pos.board[sq].is_some_and(|p| p.color == them);
        let mut turned = Vec::new();
        for (dx, dy) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
            match rule {
                Enclosing::Reversi => {
                    let mut run = Vec::new();
                    let mut at = self.offset(to, dx, dy);
                    while let Some(sq) = at.filter(|&sq| theirs(self, sq)) {
                        run.push(sq);
                        at = self.offset(sq, dx, dy);
                    }
                    if at.is_some_and(|sq| self.board[sq].is_some_and(|p| p.color == us)) {
                        turned.extend(run);
                    }
                }
                _ => turned.extend(self.offset(to, dx, dy).filter(|&sq| theirs(self, sq))),
            }
        }
        for sq in turned {
            if let Some(p) = self.board[sq].as_mut() {
                p.color = us;
            }
        }
    }

    /// The gate bit of `sq` for `color`: its file's, if it is on that side's castling rank.
    pub(super) fn gate_bit(&self, color: Color, sq: u16) -> u16 {
        let w = self.rules.width as usize;
        if self.rank_of(sq as usize) == self.own_rank(color, self.rules.castle_rank) {
            1 << (sq as usize % w)
        } else {
            0
        }
    }

    /// Starts a count once the move just made calls for one (as
    /// Fairy-Stockfish counts: the side to move may be the one counting).
    pub(super) fn start_count(&mut self, rule: Counting, captured: bool, captured_pawn: bool, promoted: bool) {
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
    pub(super) fn pawns(&self) -> u32 {
        self.board
            .iter()
            .flatten()
            .filter(|p| p.color != Color::Wall && self.rules.pieces[p.kind as usize].pawn)
            .count() as u32
    }

    /// The moves `counting` side may count to under the rule (0: no count for it).
    pub(super) fn count_limit(&self, rule: Counting, counting: Color) -> u32 {
        let other = counting.opponent();
        let all = |c: Color| self.board.iter().flatten().filter(|p| p.color == c).count() as u32;
        let of = |c: Color, name: &str| {
            self.board
                .iter()
                .flatten()
                .filter(|p| p.color == c && self.rules.pieces[p.kind as usize].name == name)
                .count() as u32
        };
        // The pieces' honour counts, looked at only once the board's is out.
        let honour = |board: u32, offset: u32| {
            let (rooks, khons, knights) = (of(other, "rook"), of(other, "silver"), of(other, "knight"));
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
                } else if of(other, "rook") > 0 {
                    16
                } else if of(other, "silver") > 0 {
                    44
                } else if of(other, "knight") > 0 {
                    64
                } else {
                    0
                }
            }
        }
    }

    /// Whether a piece of `kind` and `color` on `at` could step back to
    /// `back` on an empty board (a sideways pawn's move can be undone).
    pub(super) fn steps_back(&self, kind: usize, color: Color, at: usize, back: usize) -> bool {
        let w = self.rules.width as i32;
        let flip = if color == Color::White { 1 } else { -1 };
        let (fx, fy) = ((back as i32 % w) - (at as i32 % w), (back as i32 / w) - (at as i32 / w));
        self.rules.pieces[kind].steps.iter().filter(|st| st.quiet && !st.initial && st.hop == Hop::None).any(|st| {
            let (dx, dy) = (st.dx as i32 * flip, st.dy as i32 * flip);
            let times = if dx != 0 { fx / dx } else { fy / dy };
            times >= 1 && times * dx == fx && times * dy == fy && (st.range == 0 || times <= st.range as i32)
        })
    }

    /// The square a piece of `kind` passed over going from `from` to `to`,
    /// if only one of its initial leaps of two squares (a pawn's double
    /// step, berolina's diagonal one) makes that move.
    pub(super) fn initial_leap(&self, kind: usize, color: Color, from: usize, to: usize) -> Option<usize> {
        let w = self.rules.width as i32;
        let flip = if color == Color::White { 1 } else { -1 };
        let (fx, fy) = ((to as i32 % w) - (from as i32 % w), (to as i32 / w) - (from as i32 / w));
        let steps = &self.rules.pieces[kind].steps;
        let by = |st: &&crate::betza::Step| st.dx as i32 * flip == fx && st.dy as i32 * flip == fy && st.range == 1;
        let only_initial =
            steps.iter().any(|st| st.initial && by(&st)) && !steps.iter().any(|st| st.quiet && !st.initial && by(&st));
        if !only_initial || fx % 2 != 0 || fy % 2 != 0 {
            return None;
        }
        self.offset(from, fx / 2, fy / 2)
    }

    /// A capture on `sq` explodes: the capturer and every piece but pawns
    /// around it go, but for the blast-immune kinds; castling rights go with them.
    pub(super) fn explode(&mut self, sq: usize) {
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
    pub(super) fn take(&mut self, captured: Piece, by: Color) {
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
}
