//! Xiangqi's chasing rule as Fairy-Stockfish judges it (`chasingRule =
//! axf`, the Asian Xiangqi Federation's rule): which of the side to move's
//! pieces the last move chased, that is newly attacked where no real
//! defender stands, by a piece that may take it. A repetition in which one
//! side chased the same piece with every move loses for that side.

use super::{Color, Move, Position, MOST_KINDS};

/// Squares as a set, in the board's bit order (boards are at most 120 squares).
pub type Squares = u128;

fn bit(sq: usize) -> Squares {
    1u128 << sq
}

/// The squares of `set`, lowest first.
fn squares(mut set: Squares) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let sq = set.trailing_zeros() as usize;
        set &= set.wrapping_sub(1);
        (sq < 128).then_some(sq)
    })
}

/// Each side's pieces by kind, as sets (a position's census).
struct Census<'a> {
    position: &'a Position,
    by_kind: [[Squares; MOST_KINDS]; 2],
}

impl Census<'_> {
    /// `color`'s pieces of the kinds `names`, as a set.
    fn named(&self, color: Color, names: &[&str]) -> Squares {
        let kinds = self.position.rules.pieces.iter().take(MOST_KINDS).enumerate();
        kinds
            .filter(|(_, def)| names.contains(&def.name.as_str()))
            .fold(0, |s, (k, _)| s | self.by_kind[color as usize][k])
    }
}

impl Position {
    /// The kind's Fairy-Stockfish name of the piece on `sq`, if one stands there.
    fn name_on(&self, sq: usize) -> Option<&str> {
        self.board[sq].filter(|p| p.color != Color::Wall).map(|p| self.rules.pieces[p.kind as usize].name.as_str())
    }

    /// Each side's pieces by kind, taken in one pass over the board.
    fn census(&self) -> Census<'_> {
        let mut by_kind = [[0; MOST_KINDS]; 2];
        let squares = self.rules.width as usize * self.rules.height as usize;
        for (sq, p) in self.board[..squares].iter().enumerate() {
            if let Some(p) = p.filter(|p| p.color != Color::Wall) {
                by_kind[p.color as usize][p.kind as usize] |= bit(sq);
            }
        }
        Census { position: self, by_kind }
    }

    /// `color`'s pieces on squares `keep` admits.
    fn occupied_by(&self, color: Color, keep: impl Fn(usize) -> bool) -> Squares {
        let squares = self.rules.width as usize * self.rules.height as usize;
        (0..squares)
            .filter(|&sq| self.board[sq].is_some_and(|p| p.color == color) && keep(sq))
            .fold(0, |s, sq| s | bit(sq))
    }

    /// Every piece on the board.
    fn all_pieces(&self) -> Squares {
        let squares = self.rules.width as usize * self.rules.height as usize;
        (0..squares).filter(|&sq| self.board[sq].is_some_and(|p| p.color != Color::Wall)).fold(0, |s, sq| s | bit(sq))
    }

    /// Every square [`Position::raw_attacks`] of the piece on `from` may
    /// read or reach, whatever stands where: what it attacks on any board
    /// lies within, and a piece outside cannot change what it attacks.
    fn reach(&self, from: usize) -> Squares {
        let Some(p) = self.board[from] else { return 0 };
        let flip = if p.color == Color::White { 1 } else { -1 };
        let mut out = 0;
        for step in self.rules.pieces[p.kind as usize].steps.iter().filter(|st| st.capture) {
            let (dx, dy) = (step.dx as i32 * flip, step.dy as i32 * flip);
            if step.range == 1 && step.hop == crate::betza::Hop::None {
                if step.lame {
                    out |= crate::betza::lame_path(dx, dy)
                        .filter_map(|(x, y)| self.offset(from, x, y))
                        .fold(0, |s, t| s | bit(t));
                }
                out |= self.offset(from, dx, dy).map_or(0, bit);
                continue;
            }
            let limit =
                if step.range == 0 || step.hop != crate::betza::Hop::None { usize::MAX } else { step.range as usize };
            let (mut at, mut n) = (from, 0);
            while let Some(t) = self.offset(at, dx, dy).filter(|_| n < limit) {
                (at, n) = (t, n + 1);
                out |= bit(t);
            }
        }
        out
    }

    /// The squares the piece on `from` attacks by the geometry of its moves
    /// alone (Fairy-Stockfish's `attacks_bb`): no region, a soldier's
    /// sideways steps always; with `occupied` standing for the board's pieces.
    fn raw_attacks(&self, from: usize, occupied: Squares) -> Squares {
        let Some(p) = self.board[from] else { return 0 };
        let flip = if p.color == Color::White { 1 } else { -1 };
        let full = |sq: usize| occupied & bit(sq) != 0;
        let mut out = 0;
        for step in self.rules.pieces[p.kind as usize].steps.iter().filter(|st| st.capture) {
            let (dx, dy) = (step.dx as i32 * flip, step.dy as i32 * flip);
            if step.range == 1 && step.hop == crate::betza::Hop::None {
                let blocked =
                    step.lame && crate::betza::lame_path(dx, dy).any(|(x, y)| self.offset(from, x, y).is_none_or(full));
                if let Some(t) = self.offset(from, dx, dy).filter(|_| !blocked) {
                    out |= bit(t);
                }
                continue;
            }
            let hops = step.hop != crate::betza::Hop::None;
            let limit = if step.range == 0 || hops { usize::MAX } else { step.range as usize };
            let (mut at, mut n, mut screened) = (from, 0, false);
            while n < limit {
                let Some(t) = self.offset(at, dx, dy) else { break };
                (at, n) = (t, n + 1);
                if hops && !screened {
                    screened = full(t);
                    continue;
                }
                out |= bit(t);
                if full(t) {
                    break;
                }
            }
        }
        out
    }

    /// What the piece on `from` attacks as it may move (Fairy-Stockfish's
    /// `attacks_from`): an unpromoted soldier only straight ahead, and only
    /// within its kind's region.
    fn attacks_from_square(&self, from: usize) -> Squares {
        let Some(p) = self.board[from] else { return 0 };
        let rules = &self.rules;
        let mut out = self.raw_attacks(from, self.all_pieces());
        if rules.pieces[p.kind as usize].soldier && self.own_rank(p.color, self.rank_of(from)) < rules.soldier_rank {
            let w = rules.width as usize;
            out = squares(out).filter(|&sq| sq % w == from % w).fold(0, |s, sq| s | bit(sq));
        }
        if let Some(region) = &rules.mobility[p.color as usize][p.kind as usize] {
            out = squares(out).filter(|&sq| region[sq]).fold(0, |s, sq| s | bit(sq));
        }
        out
    }

    /// `by`'s pieces that attack `sq` were only the pieces of `occupied` on
    /// the board.
    fn attackers_with(&self, sq: usize, by: Color, occupied: Squares) -> Squares {
        let mut board = self.clone();
        let squares_n = self.rules.width as usize * self.rules.height as usize;
        for s in (0..squares_n).filter(|&s| occupied & bit(s) == 0) {
            board.board[s] = None;
        }
        board.attackers(sq, by).into_iter().fold(0, |s, a| s | bit(a))
    }

    /// The pieces (either side's) that alone stand between `color`'s king
    /// and an enemy piece that would attack it were they gone (both screens
    /// of a cannon with two): Fairy-Stockfish's `blockersForKing`.
    pub fn king_blockers(&self, color: Color) -> Squares {
        let Some(king) = self.royal_square(color) else { return 0 };
        let all = self.all_pieces();
        let mut out = 0;
        for x in squares(self.occupied_by(color.opponent(), |_| true)) {
            // Only a piece that could reach the king, and only a piece on
            // a square it reads, matters.
            let reach = self.reach(x);
            if reach & bit(king) == 0 || self.raw_attacks(x, all) & bit(king) != 0 {
                continue;
            }
            for p in squares(all & reach & !bit(x) & !bit(king)) {
                if self.raw_attacks(x, all & !bit(p)) & bit(king) != 0 {
                    out |= bit(p);
                }
            }
        }
        out
    }

    /// The side to move's pieces the last move `m` chased (`before` is the
    /// position it was played from): Fairy-Stockfish's `chased()`.
    pub fn chased(&self, before: &Position, m: Move) -> Squares {
        let Move::Normal { from, to, .. } = m else { return 0 };
        let (from, to) = (from as usize, to as usize);
        let (us, them) = (self.side, self.side.opponent());
        let all = self.all_pieces();
        let census = self.census();
        let w = self.rules.width as usize;
        let file = |sq: usize| (0..self.rules.height as usize).fold(0, |s, r| s | bit(r * w + sq % w));
        let rank = |sq: usize| (0..w).fold(0, |s, f| s | bit((sq / w) * w + f));
        let mut pins = self.king_blockers(us);
        let their_king = self.royal_square(them);
        if let Some(k) = their_king.filter(|_| self.rules.flying_general) {
            let on_file = file(k) & self.occupied_by(us, |_| true);
            let kings = census.named(us, &["king"]);
            let others = on_file & !kings;
            if on_file & kings != 0 && others.count_ones() <= 1 {
                pins |= others;
            }
        }
        let unpromoted_soldiers = self.occupied_by(us, |sq| {
            self.name_on(sq) == Some("soldier") && self.own_rank(us, self.rank_of(sq)) < self.rules.soldier_rank
        });
        let shielded = census.named(us, &["king"]) | unpromoted_soldiers;
        let mut chased: Squares = 0;
        let add = |attacker: usize, kind: &str, mut attacks: Squares, chased: &mut Squares| {
            if attacks & !*chased == 0 {
                return;
            }
            attacks &= !shielded;
            // Attacks on stronger pieces chase whatever defends them.
            if matches!(kind, "horse" | "cannon") {
                *chased |= attacks & census.named(us, &["rook"]);
            }
            if matches!(kind, "elephant" | "fers") {
                *chased |= attacks & census.named(us, &["rook", "cannon", "horse"]);
            }
            // Not a piece of the attacker's kind attacking back, but a pinned
            // one; a horse whose leg is blocked cannot attack back.
            let diagonal_neighbours = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
                .into_iter()
                .filter_map(|(dx, dy)| self.offset(attacker, dx, dy))
                .any(|sq| all & bit(sq) != 0);
            if kind == "horse" && diagonal_neighbours {
                for s in squares(attacks & census.named(us, &["horse"])) {
                    if self.raw_attacks(s, all) & bit(attacker) != 0 {
                        attacks ^= bit(s);
                    }
                }
            } else {
                attacks &= !census.named(us, &[kind]) | pins;
            }
            // A piece no real defender guards.
            for s in squares(attacks) {
                let roots = self.attackers_with(s, us, all & !bit(attacker)) & !pins;
                let only_king = roots == census.named(us, &["king"]) && roots != 0;
                let faces = only_king
                    && self.rules.flying_general
                    && their_king.is_some_and(|k| self.rook_attacks(k, all & !bit(attacker)) & bit(s) != 0);
                if roots == 0 || faces {
                    *chased |= bit(s);
                }
            }
        };
        let ours = self.occupied_by(us, |_| true);
        // Direct attacks: new ones of the piece that moved.
        let moved = self.name_on(to).unwrap_or("");
        if moved != "king" && moved != "soldier" {
            let mut direct = self.attacks_from_square(to) & ours;
            if moved == "rook" || moved == "cannon" {
                let line = if from % w == to % w {
                    file(from)
                } else if from / w == to / w {
                    rank(from)
                } else {
                    0
                };
                direct &= !line;
            }
            add(to, moved, direct, &mut chased);
        }
        // Discovered attacks.
        let orthogonal = |sq: usize| file(sq) | rank(sq);
        let wazir = |sq: usize| {
            [(0, 1), (0, -1), (1, 0), (-1, 0)]
                .into_iter()
                .filter_map(|(dx, dy)| self.offset(sq, dx, dy))
                .fold(0, |s, t| s | bit(t))
        };
        let fers = |sq: usize| {
            [(1, 1), (1, -1), (-1, 1), (-1, -1)]
                .into_iter()
                .filter_map(|(dx, dy)| self.offset(sq, dx, dy))
                .fold(0, |s, t| s | bit(t))
        };
        let candidates = (wazir(from) & census.named(them, &["horse"]))
            | (fers(from) & census.named(them, &["elephant"]))
            | ((orthogonal(from) & !bit(from)) & census.named(them, &["cannon", "rook"]))
            | ((orthogonal(to) & !bit(to)) & census.named(them, &["cannon"]));
        let captured = before.board[to].is_some();
        for s in squares(candidates) {
            let kind = self.name_on(s).unwrap_or("");
            let earlier = (if captured { all } else { all ^ bit(to) }) ^ bit(from);
            let discovered = ours & self.raw_attacks(s, all) & !self.raw_attacks(s, earlier);
            add(s, kind, discovered, &mut chased);
        }
        // Defenders newly pinned, and checks newly discovered.
        let (now, then) = (self.king_blockers(us), before.king_blockers(us));
        for s in squares(now & !then & ours) {
            let fake = ours & !shielded & self.raw_attacks(s, all);
            let their_pins = self.king_blockers(them);
            for s2 in squares(fake) {
                if self.attackers_with(s2, them, all) & !their_pins != 0 {
                    chased |= bit(s2);
                }
            }
        }
        let king_reach = self.royal_square(us).map_or(0, |k| self.attacks_from_square(k));
        for s in squares(now & !then & self.occupied_by(them, |_| true)) {
            let mut attacks = self.attacks_from_square(s) & ours;
            chased |= attacks & !king_reach;
            attacks &= king_reach;
            let king = self.royal_square(us).map_or(0, bit);
            for s2 in squares(attacks) {
                if self.attackers_with(s2, them, all ^ bit(s) ^ king) & !bit(s) != 0 {
                    chased |= bit(s2);
                }
            }
        }
        chased
    }

    /// A rook's attacks from `sq` with `occupied` standing for the pieces.
    fn rook_attacks(&self, sq: usize, occupied: Squares) -> Squares {
        let mut out = 0;
        for (dx, dy) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
            let mut at = sq;
            while let Some(t) = self.offset(at, dx, dy) {
                at = t;
                out |= bit(t);
                if occupied & bit(t) != 0 {
                    break;
                }
            }
        }
        out
    }
}

/// `set` seen before move `m`: a square the move landed on stands for the
/// one it left (Fairy-Stockfish's `undo_move_board`).
pub fn before_move(set: Squares, m: Move) -> Squares {
    match m {
        Move::Normal { from, to, .. } if set & bit(to as usize) != 0 => (set ^ bit(to as usize)) | bit(from as usize),
        _ => set,
    }
}
