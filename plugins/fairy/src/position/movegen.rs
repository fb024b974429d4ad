//! The legal moves of a position: pseudo-legal moves, castling, drops,
//! gating, then the king's safety.

use super::{Color, Move, Position};
use crate::rules::{Enclosing, Walling};

impl Position {
    /// Whether `m` keeps the side to move's pseudo-royal pieces: none blown
    /// up, none left attacked, unless it takes one of the opponent's.
    pub(super) fn pseudo_royals_safe_after(&self, m: Move, next: &Position) -> bool {
        let (us, them) = (self.side, self.side.opponent());
        let rules = &self.rules;
        let mut mine = self.pseudo_royals(us);
        let m = m.unwalled();
        let (from, dest) = match m {
            Move::Normal { from, to, .. }
            | Move::EnPassant { from, to }
            | Move::Castle { from, to, .. }
            | Move::Demote { from, to }
            | Move::Gate { from, to, .. }
            | Move::GateCastle { from, to, .. } => (Some(from as usize), to as usize),
            Move::Drop { to, .. } => (None, to as usize),
            Move::Walled { .. } | Move::Pass { .. } => return true,
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
        if mine.iter().any(|&sq| gone(sq, us)) || next.duple_checked(us) {
            return false;
        }
        let theirs = self.pseudo_royals(them);
        if theirs.iter().any(|&sq| gone(sq, them)) {
            return true;
        }
        mine.iter().all(|&sq| (rules.blast && self.touches(sq, &theirs)) || !next.attacked_by_takers(sq, them))
    }

    /// Whether a pawn of the side to move may legally take en passant now.
    pub(super) fn ep_capturable(&self) -> bool {
        let Some(ep) =
            self.ep.filter(|&e| self.rules.en_passant && self.rules.ep_region[self.side as usize][e as usize])
        else {
            return false;
        };
        // The pawns that could take: beside the passed square's far side.
        let back = if self.side == Color::White { -1 } else { 1 };
        [-1, 1].into_iter().filter_map(|dx| self.offset(ep as usize, dx, back)).any(|from| {
            self.board[from]
                .is_some_and(|p| p.color == self.side && self.rules.ep_takers[p.color as usize][p.kind as usize])
                && self.safe_after(Move::EnPassant { from: from as u16, to: ep })
        })
    }

    /// Whether the side to move's royal piece is safe after `m`.
    pub(super) fn safe_after(&self, m: Move) -> bool {
        if !self.rules.has_royal && !self.rules.pseudo_royal {
            return true;
        }
        let us = self.side;
        let mut next = self.clone();
        // A gated piece shields nothing, as Fairy-Stockfish judges it.
        next.apply_raw(m.ungated());
        // Generals may not face each other (flyingGeneral), nor stay facing (bikjang).
        if next.in_check(us) || ((self.rules.flying_general || self.bikjang_plies > 0) && next.generals_face()) {
            return false;
        }
        !self.rules.pseudo_royal || self.pseudo_royals_safe_after(m, &next)
    }

    /// Every move of the side to move that obeys the piece rules, before the king's safety.
    pub(super) fn pseudo_moves(&self, out: &mut Vec<Move>) {
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
            let initial_region = rules.double_step_region[us as usize][from];
            for step in &def.steps {
                if (soldier && step.dx != 0) || (step.initial && !initial_region) {
                    continue;
                }
                self.step_targets(from, us, step, &mut targets);
            }
            if let Some(palace) = def.palace.filter(|_| rules.diagonal_lines.get(from).is_some_and(|&l| l)) {
                self.palace_targets(from, us, palace, &mut targets);
            }
            // Two steps may reach one square (a tori shogi eagle's K and bR): one move.
            if def.overlapping {
                targets.sort_unstable();
                targets.dedup();
            }
            if let Some(region) = &rules.mobility[us as usize][p.kind as usize] {
                targets.retain(|&(t, _)| region[t]);
            }
            let takes_ep = rules.en_passant && rules.ep_takers[us as usize][p.kind as usize];
            if def.pawn && def.initial_leaps {
                // A custom pawn takes en passant with any of its captures,
                // onto the passed square where it could not just move.
                if let Some(ep) = self.ep.filter(|&e| takes_ep && self.board[e as usize].is_none()) {
                    let flip = if us == Color::White { 1 } else { -1 };
                    let lands = |st: &crate::betza::Step| {
                        st.capture
                            && st.range == 1
                            && st.hop == crate::betza::Hop::None
                            && !st.initial
                            && self.offset(from, st.dx as i32 * flip, st.dy as i32 * flip) == Some(ep as usize)
                    };
                    let quiet_there = targets.iter().any(|&(t, capture)| t == ep as usize && !capture);
                    if !quiet_there && def.steps.iter().any(lands) {
                        out.push(Move::EnPassant { from: from as u16, to: ep });
                    }
                }
            } else if def.pawn {
                let forward = if us == Color::White { 1 } else { -1 };
                if rules.double_step_region[us as usize][from] {
                    if let (Some(one), Some(two)) = (self.offset(from, 0, forward), self.offset(from, 0, 2 * forward)) {
                        if self.board[one].is_none() && self.board[two].is_none() {
                            targets.push((two, false));
                        }
                    }
                }
                if let Some(ep) = self.ep.filter(|_| takes_ep) {
                    for dx in [-1, 1] {
                        if self.offset(from, dx, forward) == Some(ep as usize) {
                            out.push(Move::EnPassant { from: from as u16, to: ep });
                        }
                    }
                }
            }
            let pawn_promotes = rules.promotion_pawns[us as usize][p.kind as usize];
            let promotes_to = rules.promoted_kind[p.kind as usize].filter(|_| p.base.is_none() && !pawn_promotes);
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
                } else if pawn_promotes && rules.promotion_region[us as usize][to] && !rules.sittuyin_promotion {
                    let kinds = &rules.promotion_kinds[us as usize];
                    // A pawn that also promotes shogi-style (wolf chess's elephant).
                    if let Some(k) = rules.promoted_kind[p.kind as usize].filter(|k| !kinds.contains(k)) {
                        out.push(Move::Normal { from, to: to16, promotion: Some(k as u8) });
                    }
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
        if rules.cambodian_moves && self.gates[us as usize] != 0 {
            self.cambodian_moves(out);
        }
        if rules.sittuyin_promotion {
            self.sittuyin_promotions(out);
        }
        if rules.drops {
            self.drop_moves(out);
        }
    }

    /// Cambodian chess's first moves, from a gate onto an empty square: the
    /// king's leap as a knight one rank forward (not out of check), the
    /// met's (the fers's) two steps straight forward.
    fn cambodian_moves(&self, out: &mut Vec<Move>) {
        let us = self.side;
        let forward = if us == Color::White { 1 } else { -1 };
        let in_check = self.in_check(us);
        for from in 0..self.rules.width as usize * self.rules.height as usize {
            let Some(p) = self.board[from].filter(|p| p.color == us) else { continue };
            if self.gates[us as usize] & self.gate_bit(us, from as u16) == 0 {
                continue;
            }
            let def = &self.rules.pieces[p.kind as usize];
            let targets: &[(i32, i32)] = match (def.royal, def.name.as_str()) {
                (true, _) if !in_check => &[(-2, forward), (2, forward)],
                (false, "fers") => &[(0, 2 * forward)],
                _ => &[],
            };
            for &(dx, dy) in targets {
                if let Some(to) = self.offset(from, dx, dy).filter(|&to| self.board[to].is_none()) {
                    out.push(Move::Normal { from: from as u16, to: to as u16, promotion: None });
                }
            }
        }
    }

    /// Sittuyin's promotions (see `Rules::sittuyin_promotion`), written as
    /// the pawn's move with the piece it becomes (`d5d5f`, `d5c6f`).
    fn sittuyin_promotions(&self, out: &mut Vec<Move>) {
        let rules = &self.rules;
        let us = self.side;
        let squares = rules.width as usize * rules.height as usize;
        let pawn_at = |sq: usize| self.board[sq].is_some_and(|p| p.color == us && rules.pieces[p.kind as usize].pawn);
        let pawns: Vec<usize> = (0..squares).filter(|&sq| pawn_at(sq)).collect();
        let zone = &rules.promotion_region[us as usize];
        for &from in pawns.iter().filter(|&&sq| pawns.len() == 1 || zone[sq]) {
            for &k in &rules.promotion_kinds[us as usize] {
                if rules.promotion_limit[k].is_some_and(|most| self.on_board(us, k) >= most) {
                    continue;
                }
                let mut targets = vec![(from, false)];
                for step in rules.pieces[k].steps.iter().filter(|st| st.quiet) {
                    self.step_targets(from, us, step, &mut targets);
                }
                for (to, capture) in targets {
                    if capture || (to != from && self.board[to].is_some()) {
                        continue;
                    }
                    // The new piece may attack nothing, nor uncover a check.
                    let mut next = self.clone();
                    next.board[from] = None;
                    next.board[to] = Some(super::Piece { kind: k as u8, color: us, promoted: false, base: None });
                    let mut attacks = Vec::new();
                    for step in rules.pieces[k].steps.iter().filter(|st| st.capture) {
                        next.step_targets(to, us, step, &mut attacks);
                    }
                    if attacks.iter().any(|&(_, capture)| capture) || next.in_check(us.opponent()) {
                        continue;
                    }
                    out.push(Move::Normal { from: from as u16, to: to as u16, promotion: Some(k as u8) });
                }
            }
        }
    }

    /// How many pieces of `kind` `color` has on the board.
    pub(super) fn on_board(&self, color: Color, kind: usize) -> u32 {
        self.board.iter().flatten().filter(|p| p.color == color && p.kind as usize == kind).count() as u32
    }

    pub(super) fn castling_moves(&self, out: &mut Vec<Move>) {
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

    pub(super) fn drop_moves(&self, out: &mut Vec<Move>) {
        let rules = &self.rules;
        let us = self.side;
        let kinds = rules.pieces.len();
        for (kind, &n) in self.hands[us as usize].iter().enumerate().take(kinds) {
            if n == 0 && !rules.free_drops {
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
    pub(super) fn drop_allowed(&self, kind: usize, color: Color, to: usize) -> bool {
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
        if rules.sittuyin_rook_drop && rules.pieces[kind].name == "rook" && self.own_rank(color, self.rank_of(to)) != 0
        {
            return false;
        }
        if rules.drop_opposite_colored_bishop && !self.bishops_can_differ(kind, color, to) {
            return false;
        }
        match rules.enclosing_drop {
            Some(rule) => self.encloses(rule, color, to),
            None => true,
        }
    }

    /// `dropOppositeColoredBishop`: whether, after `color` drops a `kind`
    /// on `to`, its bishops (on the board and in hand) can still stand on
    /// squares of both colours: a bishop not on the colour its others
    /// fill, another piece not on a square the bishops still need.
    fn bishops_can_differ(&self, kind: usize, color: Color, to: usize) -> bool {
        let rules = &self.rules;
        let Some(bishop) = rules.pieces.iter().position(|p| p.name == "bishop") else { return true };
        let w = rules.width as usize;
        let dark = |sq: usize| (sq % w + sq / w).is_multiple_of(2);
        let squares = w * rules.height as usize;
        let mine = |sq: usize| self.board[sq].is_some_and(|p| p.color == color && p.kind as usize == bishop);
        let all = self.on_board(color, bishop) as usize + self.hands[color as usize][bishop] as usize;
        if kind == bishop {
            let same = (0..squares).filter(|&sq| mine(sq) && dark(sq) == dark(to)).count();
            return same < all.div_ceil(2);
        }
        let room = |shade: bool| {
            let free = |sq: usize| sq != to && self.board[sq].is_none() && rules.drop_region[color as usize][sq];
            (0..squares).filter(|&sq| dark(sq) == shade && (mine(sq) || free(sq))).count()
        };
        room(true) >= all / 2 && room(false) >= all / 2
    }

    /// Whether a drop of `color` on `to` obeys the enclosing rule: onto
    /// the start squares while one is empty, then reversi's (it closes a
    /// line of the opponent's pieces with one of its own), ataxx's (beside
    /// one of its own), snort's (beside none of the opponent's) or the
    /// top's (on the first rank or onto a piece).
    fn encloses(&self, rule: Enclosing, color: Color, to: usize) -> bool {
        let start = &self.rules.enclosing_drop_start;
        if start.iter().any(|&sq| self.board[sq].is_none()) {
            return start.contains(&to);
        }
        let is = |sq: Option<usize>, c: Color| sq.is_some_and(|sq| self.board[sq].is_some_and(|p| p.color == c));
        let around = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];
        match rule {
            Enclosing::Reversi => around.iter().any(|&(dx, dy)| {
                let mut at = self.offset(to, dx, dy);
                let mut between = 0;
                while is(at, color.opponent()) {
                    between += 1;
                    at = at.and_then(|sq| self.offset(sq, dx, dy));
                }
                between > 0 && is(at, color)
            }),
            Enclosing::Ataxx => around.iter().any(|&(dx, dy)| is(self.offset(to, dx, dy), color)),
            Enclosing::Snort => ![(0, 1), (0, -1), (1, 0), (-1, 0)]
                .iter()
                .any(|&(dx, dy)| is(self.offset(to, dx, dy), color.opponent())),
            Enclosing::Top => {
                to < self.rules.width as usize || self.offset(to, 0, -1).is_some_and(|sq| self.board[sq].is_some())
            }
        }
    }

    /// Whether a piece of `kind` and `color` on `sq` could never move again
    /// (a shogi pawn or lance on the last rank, a knight on the last two).
    pub(super) fn immobile(&self, kind: usize, color: Color, sq: usize) -> bool {
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
        // No king of its own on the board (none in the variant, or still in
        // hand in a setup phase): no move can expose one; a king dropped
        // is still tried.
        let kingless = !self.rules.pseudo_royal && (!self.rules.has_royal || self.royal_square(self.side).is_none());
        if kingless {
            let royal_drop = |m: &Move| matches!(m, Move::Drop { kind, .. } if self.rules.pieces[*kind as usize].royal);
            out.extend(pseudo.into_iter().filter(|m| !royal_drop(m) || self.safe_after(*m)));
        } else {
            // Out of check, a drop or a move of a piece off every line through
            // the king cannot expose it (see `Rules::lines_only`): no need to try it.
            // A lone pseudo-royal piece (petrified's commoner), in a variant
            // with no king, is guarded as a king is, where no blast can reach it.
            let king = match (self.rules.pseudo_royal, self.rules.has_royal) {
                (false, _) => self.royal_square(self.side),
                (true, false) => match self.pseudo_royals(self.side).as_slice() {
                    [sq] if !self.rules.blast && self.rules.lines_only => Some(*sq),
                    _ => None,
                },
                // A king and pseudo-royal pieces besides (coregal): every move is tried.
                (true, true) => None,
            };
            // Kings facing (bikjang): every move must part them, so every move is tried.
            let quiet_check = king.is_some()
                && self.bikjang_plies == 0
                && self.rules.lines_only
                && match (self.rules.pseudo_royal, king) {
                    (false, _) => !self.in_check(self.side),
                    (true, Some(sq)) => !self.attacked_by_takers(sq, self.side.opponent()),
                    (true, None) => false,
                };
            let hoppers = self.rules.hoppers;
            let w = self.rules.width as i32;
            let aligned = |sq: usize| {
                king.is_some_and(|k| {
                    let (df, dr) = ((sq as i32 % w) - (k as i32 % w), (sq as i32 / w) - (k as i32 / w));
                    df == 0 || dr == 0 || df.abs() == dr.abs()
                })
            };
            // A piece of an extinction kind dropped or promoted to may be a
            // new pseudo-royal one: such a move is tried.
            let becomes_royal = |k: usize| self.rules.pseudo_royal && self.rules.extinction_kinds.contains(&k);
            out.extend(pseudo.into_iter().filter(|&m| {
                let safe_without_trying = quiet_check
                    && match m {
                        Move::Drop { to, kind, .. } => {
                            !becomes_royal(kind as usize) && (!hoppers || !aligned(to as usize))
                        }
                        Move::Normal { promotion: Some(k), .. } if becomes_royal(k as usize) => false,
                        Move::Normal { from, to, .. } | Move::Demote { from, to } => {
                            Some(from as usize) != king
                                && (!aligned(from as usize) || king.is_some_and(|k| !self.may_pin(k, from as usize)))
                                && (!hoppers || !aligned(to as usize))
                        }
                        Move::EnPassant { .. }
                        | Move::Castle { .. }
                        | Move::Gate { .. }
                        | Move::GateCastle { .. }
                        | Move::Walled { .. }
                        | Move::Pass { .. } => false,
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
        if let Some(rule) = self.rules.walling {
            for m in out.split_off(start) {
                for wall in self.wall_squares(m, rule) {
                    out.push(Move::Walled { base: m.id(), wall });
                }
            }
        }
        // While a side holds a piece it must drop, only drops are legal (if any is).
        if self.rules.must_drop {
            let us = self.side as usize;
            let held = match self.rules.must_drop_kind {
                Some(k) => self.hands[us][k] > 0,
                None => self.hands[us].iter().any(|&n| n > 0),
            };
            if held {
                let wanted = |m: &Move| match (m, self.rules.must_drop_kind) {
                    (Move::Drop { kind, .. }, Some(k)) => *kind as usize == k,
                    (Move::Drop { .. }, None) => true,
                    _ => false,
                };
                let mut mine = out.split_off(start);
                mine.retain(|m| !matches!(m, Move::Drop { .. }) || wanted(m));
                if mine.iter().any(wanted) {
                    mine.retain(wanted);
                }
                out.extend(mine);
            }
        }
        // A side that may pass (Janggi) may do so out of check, or while
        // the kings face each other; its king stays where it is.
        if self.rules.pass[self.side as usize] {
            let squares = self.rules.width as usize * self.rules.height as usize;
            let first = || (0..squares).find(|&sq| self.board[sq].is_some_and(|p| p.color == self.side));
            if let Some(at) = self.royal_square(self.side).or_else(first) {
                if self.bikjang_plies > 0 || !self.in_check(self.side) {
                    out.push(Move::Pass { at: at as u16 });
                }
            }
        }
        // With no move, a side that may pass does: its first piece stays put.
        if out.len() == start && self.rules.pass_on_stalemate[self.side as usize] {
            let squares = self.rules.width as usize * self.rules.height as usize;
            if let Some(at) = (0..squares).find(|&sq| self.board[sq].is_some_and(|p| p.color == self.side)) {
                out.push(Move::Pass { at: at as u16 });
            }
        }
    }

    /// Where `m` may put its wall under `rule`: an empty square (after the
    /// move) of the mover's walling region, as the rule narrows it.
    fn wall_squares(&self, m: Move, rule: Walling) -> Vec<u16> {
        let rules = &self.rules;
        let us = self.side;
        let region = &rules.walling_region[us as usize];
        // A past wall goes where the piece was: nothing else to look at.
        if let (Walling::Past, Move::Normal { from, .. } | Move::Demote { from, .. }) = (rule, m) {
            return if region[from as usize] { vec![from] } else { Vec::new() };
        }
        // The board after the move: a plain move empties its square and
        // fills its target; anything else (castling, en passant, a blast, an
        // arrow shot from the new square) is played on a copy.
        let plain = matches!(m, Move::Normal { .. } | Move::Demote { .. }) && !rules.blast && rule != Walling::Arrow;
        let next = if plain {
            None
        } else {
            let mut next = self.clone();
            next.apply_raw(m);
            Some(next)
        };
        let (w, h) = (rules.width as usize, rules.height as usize);
        let empty_after = |sq: usize| match (&next, m) {
            (Some(next), _) => next.board[sq].is_none(),
            (None, Move::Normal { from, to, .. } | Move::Demote { from, to }) => {
                sq != to as usize && (sq == from as usize || self.board[sq].is_none())
            }
            (None, _) => false,
        };
        let mut open: Vec<bool> = (0..w * h).map(|sq| region[sq] && empty_after(sq)).collect();
        let (from, to) = match m {
            Move::Normal { from, to, .. }
            | Move::EnPassant { from, to }
            | Move::Demote { from, to }
            | Move::Gate { from, to, .. }
            | Move::Castle { from, to, .. }
            | Move::GateCastle { from, to, .. } => (Some(from), Some(to)),
            Move::Drop { to, .. } | Move::Pass { at: to } => (None, Some(to)),
            Move::Walled { .. } => (None, None),
        };
        match (rule, from, to) {
            (Walling::Past, Some(from), _) => {
                open.iter_mut().enumerate().for_each(|(sq, o)| *o &= sq == from as usize);
            }
            (Walling::Past, None, _) => open.fill(false),
            (Walling::Arrow, _, Some(to)) => {
                // Where the piece that moved could move on from where it landed.
                let mut reach = vec![false; w * h];
                if let Some((next, p)) = next.as_ref().and_then(|n| Some((n, n.board[to as usize]?))) {
                    let mut targets = Vec::new();
                    for step in rules.pieces[p.kind as usize].steps.iter().filter(|st| st.quiet) {
                        next.step_targets(to as usize, us, step, &mut targets);
                    }
                    targets.iter().filter(|&&(_, capture)| !capture).for_each(|&(t, _)| reach[t] = true);
                }
                open.iter_mut().zip(reach).for_each(|(o, r)| *o &= r);
            }
            (Walling::Arrow, _, None) => open.fill(false),
            (Walling::Edge, ..) => {
                let wall = |sq: usize| self.board[sq].is_some_and(|p| p.color == Color::Wall);
                for (sq, o) in open.iter_mut().enumerate() {
                    let (f, r) = (sq % w, sq / w);
                    let edge = f == 0 || r == 0 || f == w - 1 || r == h - 1;
                    let beside = [(0, 1), (0, -1), (1, 0), (-1, 0)]
                        .into_iter()
                        .any(|(dx, dy)| self.offset(sq, dx, dy).is_some_and(wall));
                    *o &= edge || beside;
                }
            }
            (Walling::Duck | Walling::Static, ..) => {}
        }
        open.iter().enumerate().filter(|(_, &o)| o).map(|(sq, _)| sq as u16).collect()
    }

    /// Whether moving the piece on `from`, on a line through the king on
    /// `king`, may expose the king: it is within a lame leap's blocking
    /// distance of it, or an enemy piece lies beyond it on that line and it
    /// is the first piece from the king (a slider's only shield), or with
    /// hoppers the first or second (a cannon's screen). Only these can be
    /// unblocked (see `Rules::lines_only`).
    fn may_pin(&self, king: usize, from: usize) -> bool {
        let w = self.rules.width as i32;
        let (df, dr) = ((from as i32 % w) - (king as i32 % w), (from as i32 / w) - (king as i32 / w));
        if self.rules.lame_leapers && df.abs().max(dr.abs()) <= i32::from(self.rules.lame_reach) {
            return true;
        }
        let shields = if self.rules.hoppers { 2 } else { 1 };
        let (sx, sy) = (df.signum(), dr.signum());
        let (mut at, mut pieces, mut passed) = (king, 0, false);
        while let Some(next) = self.offset(at, sx, sy) {
            at = next;
            let Some(p) = self.board[at] else { continue };
            pieces += 1;
            if at == from {
                passed = true;
                if pieces > shields {
                    return false;
                }
            } else if passed && p.color == self.side.opponent() {
                return true;
            } else if !passed && pieces >= shields {
                // Enough other pieces between the king and `from` still shield it.
                return false;
            }
        }
        false
    }

    /// Whether `m` takes a piece.
    pub fn is_capture(&self, m: Move) -> bool {
        match m {
            // A piece that stays where it is (sittuyin's promotion) takes nothing.
            Move::Normal { from, to, .. } | Move::Demote { from, to } | Move::Gate { from, to, .. } => {
                from != to && self.board[to as usize].is_some()
            }
            Move::EnPassant { .. } => true,
            Move::Castle { .. } | Move::GateCastle { .. } | Move::Drop { .. } | Move::Pass { .. } => false,
            Move::Walled { .. } => self.is_capture(m.unwalled()),
        }
    }

    /// The gating moves beside `m`: one for each kind in hand, onto the
    /// square the piece leaves (for castling, the king's or the rook's).
    pub(super) fn gating_moves(&self, m: Move, out: &mut Vec<Move>) {
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
}
