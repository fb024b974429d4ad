//! A position (men and kings of each side, side to move) and its legal moves:
//! quiet moves by shifts of whole bitboards, captures by a depth-first search
//! that leaves captured pieces on the board until the end (no Turkish strike),
//! never jumps a piece twice, applies the majority rule when the rule set
//! asks for it, and removes duplicate captures (same origin, destination and
//! captured set).

use crate::geometry::{directions, step, Geometry};
use crate::rules::{MidCaptureCrowning, RuleSet};

/// White (moves towards square 1) or Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The side on the high numbers at the start.
    White,
    /// The side on squares 1.. at the start.
    Black,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

/// A move: bits of origin and destination, captured pieces, and whether the
/// piece ends as a new king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Origin bit.
    pub from: u8,
    /// Destination bit.
    pub to: u8,
    /// Bits of the captured pieces.
    pub captured: u64,
    /// The moving man becomes a king.
    pub crowns: bool,
}

/// A position.
#[derive(Clone, Copy, Debug)]
pub struct Position<G: Geometry> {
    /// White's pieces.
    pub white: u64,
    /// Black's pieces.
    pub black: u64,
    /// Kings of either side.
    pub kings: u64,
    /// Side to move.
    pub side: Side,
    geometry: std::marker::PhantomData<G>,
}

impl<G: Geometry> PartialEq for Position<G> {
    fn eq(&self, other: &Self) -> bool {
        (self.white, self.black, self.kings, self.side) == (other.white, other.black, other.kings, other.side)
    }
}

impl<G: Geometry> Eq for Position<G> {}

/// A capture found by the search, with its landing squares (bits) in order.
pub trait CaptureSink {
    /// A complete capture sequence.
    fn capture(&mut self, mv: Move, path: &[u8]);
}

impl CaptureSink for Vec<Move> {
    #[inline]
    fn capture(&mut self, mv: Move, _path: &[u8]) {
        if !self.contains(&mv) {
            self.push(mv);
        }
    }
}

thread_local! {
    /// The captures a search found, kept between searches so that none
    /// allocates once the thread has searched a long one (a perft searches
    /// at most every node; the .wasm build's allocator is dear).
    static FOUND: std::cell::Cell<Vec<(Move, Path)>> = const { std::cell::Cell::new(Vec::new()) };
    /// The captures [`Position::count_moves`] counts, kept likewise.
    static COUNTED: std::cell::Cell<Vec<Move>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The landing squares of a capture so far, kept inline: a capture takes
/// at most the opponent's 20 pieces, so nothing is allocated per capture.
#[derive(Clone, Copy, Default)]
struct Path {
    squares: [u8; 24],
    len: u8,
}

impl Path {
    #[inline(always)]
    fn push(&mut self, square: u8) {
        self.squares[self.len as usize] = square;
        self.len += 1;
    }

    #[inline(always)]
    fn pop(&mut self) {
        self.len -= 1;
    }

    fn squares(&self) -> &[u8] {
        &self.squares[..self.len as usize]
    }
}

/// The state of a capture search for one side: the longest capture so far
/// (majority rule) and the sequences found.
struct Search<'a, G: Geometry, S: CaptureSink> {
    rules: &'a RuleSet,
    enemy: u64,
    /// Occupied squares with the moving piece lifted off its origin.
    occupied: u64,
    promotion_row: u64,
    from: u8,
    /// The directions (bits of [`directions`]' indices) a man captures in.
    man_directions: u8,
    best: u32,
    found: Vec<(Move, Path)>,
    path: Path,
    sink: &'a mut S,
    geometry: std::marker::PhantomData<G>,
}

impl<G: Geometry> Position<G> {
    /// A position from bitboards.
    pub fn new(white: u64, black: u64, kings: u64, side: Side) -> Self {
        Position { white, black, kings, side, geometry: std::marker::PhantomData }
    }

    /// The standard start: 20 (or 12) men each.
    pub fn start(rules: &RuleSet) -> Self {
        let rows = if G::PER_ROW == 5 { 4 } else { 3 };
        let n = G::PER_ROW * rows;
        let mut white = 0;
        let mut black = 0;
        for idx in 0..n {
            black |= 1u64 << G::bit(idx);
            white |= 1u64 << G::bit(G::SQUARES - 1 - idx);
        }
        Self::new(white, black, 0, if rules.black_first { Side::Black } else { Side::White })
    }

    /// The pieces of `side`.
    #[inline(always)]
    pub fn pieces(&self, side: Side) -> u64 {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }

    /// The row where `side`'s men are crowned.
    #[inline(always)]
    pub fn promotion_row(side: Side) -> u64 {
        match side {
            Side::White => G::TOP_ROW,
            Side::Black => G::BOTTOM_ROW,
        }
    }

    /// The two forward directions of `side`'s men.
    #[inline(always)]
    fn forward(side: Side) -> [i32; 2] {
        let d = directions::<G>();
        match side {
            Side::White => [d[0], d[1]],
            Side::Black => [d[2], d[3]],
        }
    }

    /// The directions `side`'s men capture in, as bits of [`directions`]'
    /// indices: the two forward ones, or all four.
    fn man_capture_directions(side: Side, backwards: bool) -> u8 {
        match (backwards, side) {
            (true, _) => 0b1111,
            (false, Side::White) => 0b0011,
            (false, Side::Black) => 0b1100,
        }
    }

    /// Appends the legal moves to `out` (captures if any, else quiet moves).
    pub fn legal_moves(&self, rules: &RuleSet, out: &mut Vec<Move>) {
        self.captures(rules, out);
        if out.is_empty() {
            self.quiet_moves(rules, out);
        }
    }

    /// Feeds every legal capture (after the majority rule) to `sink`.
    pub fn captures<S: CaptureSink>(&self, rules: &RuleSet, sink: &mut S) {
        let own = self.pieces(self.side);
        let enemy = self.pieces(self.side.other());
        let occupied = self.white | self.black;
        // Quick test: can any piece capture at all? Men need an adjacent enemy
        // with an empty square behind it; kings are searched directly. Most
        // positions have none: then nothing is set up (nor allocated).
        let empty = !occupied & G::MASK;
        let men = own & !self.kings;
        let capturing_men = men_that_can_capture::<G>(men, enemy, empty, rules.men_capture_backwards, self.side);
        let candidates = capturing_men | (own & self.kings);
        if candidates == 0 {
            return;
        }
        let mut search: Search<'_, G, S> = Search {
            geometry: std::marker::PhantomData,
            rules,
            enemy,
            occupied,
            promotion_row: Self::promotion_row(self.side),
            from: 0,
            man_directions: Self::man_capture_directions(self.side, rules.men_capture_backwards),
            best: 0,
            found: FOUND.with(|f| f.take()),
            path: Path::default(),
            sink,
        };
        let mut bits = candidates;
        while bits != 0 {
            let from = bits.trailing_zeros();
            bits &= bits - 1;
            search.from = from as u8;
            search.occupied = occupied & !(1u64 << from);
            if self.kings & (1u64 << from) != 0 {
                search.king(from as i32, 0, false);
            } else {
                search.man(from as i32, 0);
            }
        }
        for (mv, path) in search.found.drain(..) {
            search.sink.capture(mv, path.squares());
        }
        FOUND.with(|f| f.set(std::mem::take(&mut search.found)));
    }

    /// Appends the quiet (non-capturing) moves to `out`.
    pub fn quiet_moves(&self, rules: &RuleSet, out: &mut Vec<Move>) {
        let own = self.pieces(self.side);
        let empty = !(self.white | self.black) & G::MASK;
        let promo = Self::promotion_row(self.side);
        let men = own & !self.kings;
        for d in Self::forward(self.side) {
            let mut targets = shift::<G>(men, d) & empty;
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                let from = (to as i32 - d) as u8;
                out.push(Move { from, to: to as u8, captured: 0, crowns: promo & (1u64 << to) != 0 });
            }
        }
        self.king_slides(rules, empty, |from, to| out.push(Move { from, to, captured: 0, crowns: false }));
    }

    /// Calls `f(from, to)` for every quiet king move (flying or one step).
    #[inline(always)]
    fn king_slides(&self, rules: &RuleSet, empty: u64, mut f: impl FnMut(u8, u8)) {
        let mut kings = self.pieces(self.side) & self.kings;
        while kings != 0 {
            let from = kings.trailing_zeros() as i32;
            kings &= kings - 1;
            for d in directions::<G>() {
                let mut at = from;
                while let Some(next) = step::<G>(at, d) {
                    if empty & (1u64 << next) == 0 {
                        break;
                    }
                    f(from as u8, next as u8);
                    if !rules.flying_kings {
                        break;
                    }
                    at = next;
                }
            }
        }
    }

    /// The number of legal moves (for bulk-counted perft).
    pub fn count_moves(&self, rules: &RuleSet) -> usize {
        let mut caps = COUNTED.with(|c| c.take());
        caps.clear();
        self.captures(rules, &mut caps);
        let captures = caps.len();
        COUNTED.with(|c| c.set(caps));
        if captures > 0 {
            return captures;
        }
        let own = self.pieces(self.side);
        let empty = !(self.white | self.black) & G::MASK;
        let men = own & !self.kings;
        let mut n = 0;
        for d in Self::forward(self.side) {
            n += (shift::<G>(men, d) & empty).count_ones() as usize;
        }
        self.king_slides(rules, empty, |_, _| n += 1);
        n
    }

    /// Plays `mv` (which must be legal).
    pub fn play(&mut self, mv: Move) {
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        let was_king = self.kings & from != 0;
        match self.side {
            Side::White => {
                self.white = (self.white & !from) | to;
                self.black &= !mv.captured;
            }
            Side::Black => {
                self.black = (self.black & !from) | to;
                self.white &= !mv.captured;
            }
        }
        self.kings &= !(from | mv.captured);
        if was_king || mv.crowns {
            self.kings |= to;
        }
        self.side = self.side.other();
    }
}

/// Shifts a bitboard one step in direction `d`, keeping it on the board.
#[inline(always)]
fn shift<G: Geometry>(bb: u64, d: i32) -> u64 {
    (if d > 0 { bb << d } else { bb >> -d }) & G::MASK
}

/// Men of `side` with an adjacent enemy and an empty square behind it.
#[inline(always)]
fn men_that_can_capture<G: Geometry>(men: u64, enemy: u64, empty: u64, backwards: bool, side: Side) -> u64 {
    let dirs = directions::<G>();
    let mut able = 0;
    for (i, &d) in dirs.iter().enumerate() {
        let forward = match side {
            Side::White => i < 2,
            Side::Black => i >= 2,
        };
        if !forward && !backwards {
            continue;
        }
        // A man at s captures towards d if s+d is enemy and s+2d is empty.
        let landing_ok = shift::<G>(empty, -d);
        let victim_ok = shift::<G>(enemy & landing_ok, -d);
        able |= men & victim_ok;
    }
    able
}

impl<G: Geometry, S: CaptureSink> Search<'_, G, S> {
    fn finish(&mut self, to: i32, captured: u64, crowns: bool) {
        let count = captured.count_ones();
        if self.rules.majority_capture {
            if count < self.best {
                return;
            }
            if count > self.best {
                self.best = count;
                self.found.clear();
            }
        }
        let mv = Move { from: self.from, to: to as u8, captured, crowns };
        self.found.push((mv, self.path));
    }

    /// Whether `bit` is free to land on (the moving piece left its origin;
    /// captured pieces stay until the move ends).
    #[inline(always)]
    fn empty(&self, bit: i32) -> bool {
        self.occupied & (1u64 << bit) == 0
    }

    #[inline(always)]
    fn capturable(&self, bit: i32, captured: u64) -> bool {
        let b = 1u64 << bit;
        self.enemy & b != 0 && captured & b == 0
    }

    /// Whether a man on `at` could capture further, `captured` taken so far.
    #[inline(always)]
    fn man_continues(&self, at: i32, captured: u64) -> bool {
        let victims = self.enemy & !captured;
        let free = !self.occupied & G::MASK;
        directions::<G>().into_iter().enumerate().any(|(i, d)| {
            self.man_directions & (1 << i) != 0 && shift::<G>(shift::<G>(1u64 << at, d) & victims, d) & free != 0
        })
    }

    /// Continues a man's capture from `at`; returns whether it could capture.
    fn man(&mut self, at: i32, captured: u64) -> bool {
        let mut continued = false;
        // Whole-bitboard steps: a step off the board lands outside the mask.
        let victims = self.enemy & !captured;
        let free = !self.occupied & G::MASK;
        for (i, d) in directions::<G>().into_iter().enumerate() {
            if self.man_directions & (1 << i) == 0 {
                continue;
            }
            let victim = shift::<G>(1u64 << at, d) & victims;
            let land = shift::<G>(victim, d) & free;
            if land == 0 {
                continue;
            }
            let land = land.trailing_zeros() as i32;
            continued = true;
            let taken = captured | victim;
            let crowned_here = self.promotion_row & (1u64 << land) != 0;
            self.path.push(land as u8);
            match (crowned_here, self.rules.crown_mid_capture) {
                (true, MidCaptureCrowning::CrownedStops) => self.finish(land, taken, true),
                (true, MidCaptureCrowning::CrownedContinues) => {
                    if !self.king(land, taken, true) {
                        self.finish(land, taken, true);
                    }
                }
                // Tested before the call: most captures end at their first landing.
                _ if self.man_continues(land, taken) => {
                    self.man(land, taken);
                }
                _ => self.finish(land, taken, crowned_here),
            }
            self.path.pop();
        }
        continued
    }

    /// Continues a king's capture from `at`; `crowns` marks a man crowned on
    /// the way (Russian). Returns whether it could capture. Where several
    /// landing squares follow a capture and some allow a further capture,
    /// only those may be chosen.
    fn king(&mut self, at: i32, captured: u64, crowns: bool) -> bool {
        let flying = self.rules.flying_kings;
        let mut continued = false;
        for d in directions::<G>() {
            let mut s = step::<G>(at, d);
            if flying {
                while let Some(x) = s.filter(|&x| self.empty(x)) {
                    s = step::<G>(x, d);
                }
            }
            let Some(victim) = s else { continue };
            if !self.capturable(victim, captured) {
                continue;
            }
            let mut landings = [0i32; 9];
            let mut n = 0;
            let mut t = step::<G>(victim, d);
            while let Some(l) = t {
                if !self.empty(l) {
                    break;
                }
                landings[n] = l;
                n += 1;
                if !flying {
                    break;
                }
                t = step::<G>(l, d);
            }
            if n == 0 {
                continue;
            }
            continued = true;
            let taken = captured | (1u64 << victim);
            let mut any_further = false;
            for &l in &landings[..n] {
                self.path.push(l as u8);
                any_further |= self.king(l, taken, crowns);
                self.path.pop();
            }
            if !any_further {
                for &l in &landings[..n] {
                    self.path.push(l as u8);
                    self.finish(l, taken, crowns);
                    self.path.pop();
                }
            }
        }
        continued
    }
}

/// Leaf count of the move tree `depth` plies deep (draw rules ignored),
/// bulk-counting the last ply; duplicate captures count once.
pub fn perft<G: Geometry>(pos: &Position<G>, rules: &RuleSet, depth: u32) -> u64 {
    // One move list a ply, reused across the whole count.
    let mut lists = vec![Vec::with_capacity(48); depth as usize];
    perft_with(pos, rules, depth, &mut lists)
}

/// [`perft`] with a move list for each ply below.
fn perft_with<G: Geometry>(pos: &Position<G>, rules: &RuleSet, depth: u32, lists: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves(rules) as u64;
    }
    let Some((moves, below)) = lists.split_first_mut() else { return 0 };
    moves.clear();
    pos.legal_moves(rules, moves);
    let mut leaves = 0;
    for &m in moves.iter() {
        let mut child = *pos;
        child.play(m);
        leaves += perft_with(&child, rules, depth - 1, below);
    }
    leaves
}
