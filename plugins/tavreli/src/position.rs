//! A tavreli position (RULES.md §4, §7.2): a tower of pieces on each square,
//! the side to move and the en passant record; move generation, attacks,
//! and playing a move (promotion at the destination or by split, demotion,
//! en passant with towers, castling).

/// White or Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Moves first; its pawns go up the board.
    White,
    /// Moves second.
    Black,
}

impl Side {
    /// Both sides, White first.
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// 0 for White, 1 for Black: a player index, and the index of
    /// per-side tables.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The side of player `index` (0 or 1).
    pub fn of_index(index: usize) -> Side {
        if index == 0 {
            Side::White
        } else {
            Side::Black
        }
    }
}

/// Piece kinds: the Magus (king) moves first in this list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Magus: moves like a king; never covered.
    Magus,
    /// Prince: moves like a queen.
    Prince,
    /// Warrior: moves like a rook.
    Warrior,
    /// Archer: moves like a bishop.
    Archer,
    /// Horseman: moves like a knight.
    Horseman,
    /// Pawn.
    Pawn,
    /// Helgi: queen plus knight (only by promotion of the e-pawn).
    Helgi,
}

impl Kind {
    /// The letter in positions (upper case for White).
    pub fn letter(self) -> char {
        ['K', 'Q', 'R', 'B', 'N', 'P', 'H'][self as usize]
    }

    /// The kind's name in observations ("magus", "horseman").
    pub fn name(self) -> &'static str {
        ["magus", "prince", "warrior", "archer", "horseman", "pawn", "helgi"][self as usize]
    }

    /// The kind of a position letter (either case).
    pub fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'K' => Kind::Magus,
            'Q' => Kind::Prince,
            'R' => Kind::Warrior,
            'B' => Kind::Archer,
            'N' => Kind::Horseman,
            'P' => Kind::Pawn,
            'H' => Kind::Helgi,
            _ => return None,
        })
    }
}

/// One piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its owner.
    pub side: Side,
    /// What it moves as now.
    pub kind: Kind,
    /// For a pawn (promoted or not): the piece it promotes to.
    pub designation: Option<Kind>,
    /// Whether it has changed square as part of a moving unit.
    pub moved: bool,
}

impl Piece {
    fn is_promoted_pawn(&self) -> bool {
        self.designation.is_some() && self.kind != Kind::Pawn
    }
}

/// The highest tower the board can hold: all 32 pieces.
pub const MAX_HEIGHT: usize = 32;

impl Piece {
    /// The piece packed in a byte: side, kind, designation (7 = none), moved.
    fn pack(self) -> u8 {
        self.side.index() as u8
            | (self.kind as u8) << 1
            | (self.designation.map_or(7, |d| d as u8)) << 4
            | (self.moved as u8) << 7
    }

    fn unpack(b: u8) -> Piece {
        const KINDS: [Kind; 7] =
            [Kind::Magus, Kind::Prince, Kind::Warrior, Kind::Archer, Kind::Horseman, Kind::Pawn, Kind::Helgi];
        let d = (b >> 4) & 7;
        Piece {
            side: Side::of_index((b & 1) as usize),
            kind: KINDS[((b >> 1) & 7) as usize],
            designation: (d != 7).then(|| KINDS[d as usize]),
            moved: b >> 7 == 1,
        }
    }
}

/// A set of kinds as bits of their discriminants.
const fn kinds(ks: &[Kind]) -> u8 {
    let mut bits = 0;
    let mut i = 0;
    while i < ks.len() {
        bits |= 1 << ks[i] as u8;
        i += 1;
    }
    bits
}
/// The kinds that attack along ranks and files.
const ALONG_RANKS: u8 = kinds(&[Kind::Prince, Kind::Warrior, Kind::Helgi]);
/// The kinds that attack along diagonals.
const ALONG_DIAGONALS: u8 = kinds(&[Kind::Prince, Kind::Archer, Kind::Helgi]);
/// The kinds that attack with knight jumps.
const JUMPERS: u8 = kinds(&[Kind::Horseman, Kind::Helgi]);

/// The pieces on one square, bottom first, packed one byte each (bytes
/// past the height are stale and ignored by equality and hashing).
#[derive(Clone, Copy, Debug)]
pub struct Tower {
    len: u8,
    pieces: [u8; MAX_HEIGHT],
}

impl PartialEq for Tower {
    fn eq(&self, other: &Tower) -> bool {
        self.live() == other.live()
    }
}

impl Eq for Tower {}

impl std::hash::Hash for Tower {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.live().hash(state);
    }
}

impl Default for Tower {
    fn default() -> Self {
        Tower { len: 0, pieces: [0; MAX_HEIGHT] }
    }
}

impl Tower {
    fn live(&self) -> &[u8] {
        &self.pieces[..self.len as usize]
    }
    /// The packed top byte, if any.
    fn top_byte(&self) -> Option<u8> {
        self.len.checked_sub(1).map(|i| self.pieces[i as usize])
    }
    /// Number of pieces.
    pub fn height(&self) -> usize {
        self.len as usize
    }
    /// The top piece.
    pub fn top(&self) -> Option<Piece> {
        self.len.checked_sub(1).map(|i| Piece::unpack(self.pieces[i as usize]))
    }
    /// The pieces, bottom first.
    pub fn pieces(&self) -> impl DoubleEndedIterator<Item = Piece> + '_ {
        self.pieces[..self.len as usize].iter().map(|&b| Piece::unpack(b))
    }
    /// Puts a piece on top (building positions).
    pub fn push_piece(&mut self, p: Piece) {
        self.push(p);
    }
    fn push(&mut self, p: Piece) {
        self.pieces[self.len as usize] = p.pack();
        self.len += 1;
    }
    fn take_top(&mut self, k: usize) -> Vec<Piece> {
        let start = self.len as usize - k;
        let unit = self.pieces[start..self.len as usize].iter().map(|&b| Piece::unpack(b)).collect();
        self.len = start as u8;
        unit
    }
    fn get(&self, i: usize) -> Piece {
        Piece::unpack(self.pieces[i])
    }
    fn set(&mut self, i: usize, p: Piece) {
        self.pieces[i] = p.pack();
    }
}

/// A move: origin, destination, pieces taken from the top, and the special kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Origin square (a1 = 0, h8 = 63).
    pub from: u8,
    /// Destination square.
    pub to: u8,
    /// Pieces moving (1 = only the top piece).
    pub count: u8,
    /// Castling, en passant capture, or an ordinary move.
    pub special: Special,
}

/// What is special about a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// Nothing.
    None,
    /// Castling (written as the Magus's move).
    Castle,
    /// En passant capture.
    EnPassant,
    /// A pawn's double step.
    DoubleStep,
}

/// The en passant record after a double step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EnPassant {
    /// The square passed over.
    pub passed: u8,
    /// Where the unit landed.
    pub landing: u8,
    /// How many pieces double-stepped.
    pub count: u8,
}

/// Towers, side and en passant record as they were before a move.
struct Saved {
    towers: [(usize, Tower); 4],
    tops: Tops,
    side: Side,
    ep: Option<EnPassant>,
}

/// What the legality of a node's candidates depends on (see [`Position::guard`]).
#[derive(Clone, Copy)]
struct Guard {
    magus: usize,
    checked: bool,
    shields: u64,
    pinned: u64,
}

/// Rule options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// T3: any piece above a promoted pawn demotes it (else only an enemy one).
    pub demote_on_any_cover: bool,
}

/// Bitboards of the tower tops, kept in step with the towers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Tops {
    /// Squares whose top belongs to each side.
    by_side: [u64; 2],
    /// Squares whose top is of each kind, either side's.
    by_kind: [u64; 7],
}

impl Tops {
    fn occupied(&self) -> u64 {
        self.by_side[0] | self.by_side[1]
    }

    /// `side`'s tops of any kind in the set `kinds` (see [`kinds`]).
    fn of(&self, side: Side, kinds: u8) -> u64 {
        let mut bits = 0;
        for (k, b) in self.by_kind.iter().enumerate() {
            if kinds & (1 << k) != 0 {
                bits |= b;
            }
        }
        bits & self.by_side[side.index()]
    }

    /// Records that the top on `sq` went from `before` to `after`.
    fn retop(&mut self, sq: usize, before: Option<u8>, after: Option<u8>) {
        let bit = 1u64 << sq;
        if let Some(top) = before {
            self.by_side[(top & 1) as usize] &= !bit;
            self.by_kind[((top >> 1) & 7) as usize] &= !bit;
        }
        if let Some(top) = after {
            self.by_side[(top & 1) as usize] |= bit;
            self.by_kind[((top >> 1) & 7) as usize] |= bit;
        }
    }
}

/// A position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    towers: [Tower; 64],
    /// Side to move.
    pub side: Side,
    /// The last move's double step, if any.
    pub ep: Option<EnPassant>,
    tops: Tops,
}

fn rank(sq: usize) -> i32 {
    (sq / 8) as i32
}

/// The eight lines from a square as (file, rank) steps; the first four
/// increase the square index.
const LINES: [(i32, i32); 8] = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (1, -1), (-1, -1)];
/// The lines along ranks and files, as indices into [`LINES`].
const RANK_LINES: [usize; 4] = [0, 1, 4, 5];
/// The diagonal lines, as indices into [`LINES`].
const DIAGONAL_LINES: [usize; 4] = [2, 3, 6, 7];
const KNIGHT: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const MAGUS: [(i32, i32); 8] = LINES;

/// For each line and square, the squares beyond it to the board's edge.
static RAYS: [[u64; 64]; 8] = {
    let mut rays = [[0u64; 64]; 8];
    let mut l = 0;
    while l < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = ((sq % 8) as i32 + LINES[l].0, (sq / 8) as i32 + LINES[l].1);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                rays[l][sq] |= 1u64 << (r * 8 + f);
                f += LINES[l].0;
                r += LINES[l].1;
            }
            sq += 1;
        }
        l += 1;
    }
    rays
};

/// For each square, the squares one step of `deltas` away.
const fn leaps(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < deltas.len() {
            let (f, r) = ((sq % 8) as i32 + deltas[i].0, (sq / 8) as i32 + deltas[i].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1u64 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}
static KNIGHT_LEAPS: [u64; 64] = leaps(&KNIGHT);
static MAGUS_STEPS: [u64; 64] = leaps(&MAGUS);
/// The squares a pawn of each side attacks from each square.
static PAWN_ATTACKS: [[u64; 64]; 2] = [leaps(&[(1, 1), (-1, 1)]), leaps(&[(1, -1), (-1, -1)])];

/// The nearest square of `bits` (all on line `l` from one square) to that square.
fn nearest(l: usize, bits: u64) -> usize {
    (if l < 4 { bits.trailing_zeros() } else { 63 - bits.leading_zeros() }) as usize
}

/// The squares a slider on `sq` reaches along line `l`: up to and including
/// the first occupied one.
fn slide(l: usize, sq: usize, occupied: u64) -> u64 {
    let ray = RAYS[l][sq];
    let blockers = ray & occupied;
    if blockers == 0 {
        ray
    } else {
        ray & !RAYS[l][nearest(l, blockers)]
    }
}

fn slides(lines: &[usize; 4], sq: usize, occupied: u64) -> u64 {
    lines.iter().fold(0, |a, &l| a | slide(l, sq, occupied))
}

/// The squares of `bits`, lowest first.
fn squares(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let sq = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            sq
        })
    })
}

/// The last rank of `side`'s pawns.
pub fn last_rank(side: Side) -> i32 {
    if side == Side::White {
        7
    } else {
        0
    }
}

impl Position {
    /// The start position: the chess setup, each pawn designated by its file.
    pub fn start() -> Position {
        let mut towers = [Tower::default(); 64];
        let back = [
            Kind::Warrior,
            Kind::Horseman,
            Kind::Archer,
            Kind::Prince,
            Kind::Magus,
            Kind::Archer,
            Kind::Horseman,
            Kind::Warrior,
        ];
        let design = [
            Kind::Warrior,
            Kind::Horseman,
            Kind::Archer,
            Kind::Prince,
            Kind::Helgi,
            Kind::Archer,
            Kind::Horseman,
            Kind::Warrior,
        ];
        for f in 0..8 {
            for (side, back_rank, pawn_rank) in [(Side::White, 0, 1), (Side::Black, 7, 6)] {
                towers[back_rank * 8 + f].push(Piece { side, kind: back[f], designation: None, moved: false });
                towers[pawn_rank * 8 + f].push(Piece {
                    side,
                    kind: Kind::Pawn,
                    designation: Some(design[f]),
                    moved: false,
                });
            }
        }
        Position::new(towers, Side::White, None)
    }

    /// A position from its towers, side to move and en passant record.
    pub fn new(towers: [Tower; 64], side: Side, ep: Option<EnPassant>) -> Position {
        let mut tops = Tops::default();
        for (sq, t) in towers.iter().enumerate() {
            tops.retop(sq, None, t.top_byte());
        }
        Position { towers, side, ep, tops }
    }

    /// The tower on `sq` (a1 = 0, h8 = 63).
    pub fn tower(&self, sq: usize) -> &Tower {
        &self.towers[sq]
    }

    /// The square of `side`'s Magus.
    pub fn magus(&self, side: Side) -> Option<usize> {
        let bits = self.tops.of(side, kinds(&[Kind::Magus]));
        (bits != 0).then(|| bits.trailing_zeros() as usize)
    }

    /// The squares a top piece of `kind` owned by `side` on `sq` attacks: a
    /// slider up to and including the first occupied square; a pawn its two
    /// forward diagonals.
    fn attacks(&self, sq: usize, kind: Kind, side: Side) -> u64 {
        let occupied = self.tops.occupied();
        match kind {
            Kind::Magus => MAGUS_STEPS[sq],
            Kind::Prince => slides(&RANK_LINES, sq, occupied) | slides(&DIAGONAL_LINES, sq, occupied),
            Kind::Warrior => slides(&RANK_LINES, sq, occupied),
            Kind::Archer => slides(&DIAGONAL_LINES, sq, occupied),
            Kind::Horseman => KNIGHT_LEAPS[sq],
            Kind::Helgi => slides(&RANK_LINES, sq, occupied) | slides(&DIAGONAL_LINES, sq, occupied) | KNIGHT_LEAPS[sq],
            Kind::Pawn => PAWN_ATTACKS[side.index()][sq],
        }
    }

    /// The kind bit (see [`kinds`]) of the top on `t` if `by` owns it, else 0.
    fn top_kind_of(&self, t: usize, by: Side) -> u8 {
        match self.towers[t].top_byte() {
            Some(b) if (b & 1) as usize == by.index() => 1 << ((b >> 1) & 7),
            _ => 0,
        }
    }

    /// Whether `by` attacks `sq` (only tops attack).
    pub fn attacked(&self, sq: usize, by: Side) -> bool {
        self.attacked_with(sq, by, self.tops.occupied(), 0)
    }

    /// Whether `by`'s tops, but those on `gone`, attack `sq` when the
    /// occupied squares are `occupied`.
    fn attacked_with(&self, sq: usize, by: Side, occupied: u64, gone: u64) -> bool {
        let tops = &self.tops;
        let of = |kinds: u8| tops.of(by, kinds) & !gone;
        KNIGHT_LEAPS[sq] & of(JUMPERS) != 0
            || MAGUS_STEPS[sq] & of(kinds(&[Kind::Magus])) != 0
            || PAWN_ATTACKS[by.opponent().index()][sq] & of(kinds(&[Kind::Pawn])) != 0
            || slides(&RANK_LINES, sq, occupied) & of(ALONG_RANKS) != 0
            || slides(&DIAGONAL_LINES, sq, occupied) & of(ALONG_DIAGONALS) != 0
    }

    /// Whether `side`'s Magus is attacked.
    pub fn in_check(&self, side: Side) -> bool {
        self.magus(side).is_some_and(|m| self.attacked(m, side.opponent()))
    }

    /// Pseudo-legal moves (before the check test).
    fn candidates(&self, out: &mut Vec<Move>) {
        let side = self.side;
        let tops = &self.tops;
        let no_magus = !tops.by_kind[Kind::Magus as usize];
        let empty = !tops.occupied();
        for s in squares(tops.by_side[side.index()]) {
            let tower = &self.towers[s];
            let h = tower.height();
            let add = |targets: u64, special: Special, out: &mut Vec<Move>| {
                for to in squares(targets) {
                    for k in 1..=h {
                        out.push(Move { from: s as u8, to: to as u8, count: k as u8, special });
                    }
                }
            };
            let kind = tower.get(h - 1).kind;
            match kind {
                Kind::Pawn => {
                    let forward = |sq: usize| if side == Side::White { sq + 8 } else { sq - 8 };
                    let (r, last) = (rank(s), last_rank(side));
                    if r != last {
                        let t = forward(s);
                        // Forward onto an empty square or an own tower.
                        let open = (empty | tops.by_side[side.index()]) & no_magus;
                        add(open & (1 << t), Special::None, out);
                        let start = if side == Side::White { 1 } else { 6 };
                        if r == start && !tower.get(h - 1).moved && empty & (1 << t) != 0 {
                            add(open & (1 << forward(t)), Special::DoubleStep, out);
                        }
                    }
                    let diagonals = PAWN_ATTACKS[side.index()][s];
                    add(diagonals & tops.by_side[side.opponent().index()] & no_magus, Special::None, out);
                    if let Some(e) = self.ep {
                        add(diagonals & empty & (1 << e.passed), Special::EnPassant, out);
                    }
                }
                kind => {
                    let targets = self.attacks(s, kind, side) & no_magus;
                    if kind == Kind::Magus {
                        // The Magus climbs only onto a square the enemy does not attack.
                        let climbs = squares(targets & !empty).filter(|&t| !self.attacked(t, side.opponent()));
                        add(targets & empty | climbs.fold(0, |a, t| a | 1 << t), Special::None, out);
                        self.castlings(s, out);
                    } else {
                        add(targets, Special::None, out);
                    }
                }
            }
        }
    }

    fn castlings(&self, s: usize, out: &mut Vec<Move>) {
        let side = self.side;
        let home = if side == Side::White { 4 } else { 60 };
        let t = &self.towers[s];
        if s != home || t.height() != 1 || t.top().is_some_and(|p| p.moved) || self.attacked(s, side.opponent()) {
            return;
        }
        for (corner, between, pass, land) in [
            (home + 3, 0b11u64 << (home + 1), home + 1, home + 2),
            (home - 4, 0b111u64 << (home - 3), home - 1, home - 2),
        ] {
            let rook = &self.towers[corner];
            let rook_ok = rook.height() == 1
                && rook
                    .top()
                    .is_some_and(|p| p.side == side && p.kind == Kind::Warrior && p.designation.is_none() && !p.moved);
            if rook_ok && between & self.tops.occupied() == 0 && !self.attacked(pass, side.opponent()) {
                out.push(Move { from: s as u8, to: land as u8, count: 1, special: Special::Castle });
            }
        }
    }

    /// The squares a move changes (at most four).
    fn touched(&self, m: Move) -> [usize; 4] {
        let (from, to) = (m.from as usize, m.to as usize);
        match m.special {
            Special::Castle if to > from => [from, to, from + 3, from + 1],
            Special::Castle => [from, to, from - 4, from - 1],
            Special::EnPassant => {
                let landing = self.ep.map_or(to, |e| e.landing as usize);
                [from, to, landing, landing]
            }
            _ => [from, to, to, to],
        }
    }

    /// Whether `m` (a pseudo-legal candidate of this position) leaves the
    /// mover's Magus unattacked.
    pub fn is_legal(&self, m: Move, rules: &Rules) -> bool {
        let mut cands = Vec::with_capacity(64);
        self.candidates(&mut cands);
        cands.contains(&m) && {
            let mut next = self.clone();
            next.play(m, rules);
            !next.in_check(self.side)
        }
    }

    /// Whether the side to move has any legal move (stops at the first).
    pub fn has_legal_move(&self, rules: &Rules) -> bool {
        let mut cands = Vec::with_capacity(64);
        self.candidates(&mut cands);
        let guard = self.guard();
        let mut scratch: Option<Position> = None;
        cands.into_iter().any(|m| {
            if self.surely_legal(m, &guard) {
                return true;
            }
            scratch.get_or_insert_with(|| self.clone()).safe_after(m, rules, guard.magus)
        })
    }

    /// Plays `m`, tells whether the mover's Magus (at `magus` unless it is
    /// the piece moving) is then safe, and takes the move back.
    fn safe_after(&mut self, m: Move, rules: &Rules, magus: usize) -> bool {
        let side = self.side;
        let moving = m.from as usize == magus;
        if moving && m.special == Special::None {
            if let Some(safe) = self.magus_step_safe(m) {
                return safe;
            }
        }
        let saved = self.save(m);
        self.play(m, rules);
        let safe = !self.attacked(if moving { m.to as usize } else { magus }, side.opponent());
        self.restore(&saved);
        safe
    }

    /// What the legality of the side to move's candidates depends on: where
    /// its Magus stands, whether it is in check, the squares that shield it
    /// (on each of the eight lines from it, the first occupied square: only
    /// changes there can open a line), and among those the pinned ones, with
    /// an enemy slider of that line next beyond them.
    fn guard(&self) -> Guard {
        let magus = self.magus(self.side).expect("each side has its Magus");
        let enemy = self.side.opponent();
        let occupied = self.tops.occupied();
        let (mut shields, mut pinned) = (0, 0);
        for (lines, sliders) in [(RANK_LINES, ALONG_RANKS), (DIAGONAL_LINES, ALONG_DIAGONALS)] {
            for l in lines {
                let blockers = RAYS[l][magus] & occupied;
                if blockers == 0 {
                    continue;
                }
                let shield = nearest(l, blockers);
                shields |= 1u64 << shield;
                let beyond = blockers & RAYS[l][shield];
                if beyond != 0 && self.top_kind_of(nearest(l, beyond), enemy) & sliders != 0 {
                    pinned |= 1u64 << shield;
                }
            }
        }
        Guard { magus, checked: self.attacked(magus, enemy), shields, pinned }
    }

    /// Whether a candidate is legal without playing it: the side is not in
    /// check, the Magus does not move, the move is neither castling nor en
    /// passant, its origin is not pinned (see [`Position::guard`]), and an
    /// enemy piece it leaves on top there neither stands on a shield nor is a
    /// knight attacking the Magus (after any promotion by split). Covering
    /// pieces at the destination only ever blocks.
    fn surely_legal(&self, m: Move, guard: &Guard) -> bool {
        let Guard { magus, checked, shields, pinned } = *guard;
        let from = m.from as usize;
        let bit = 1u64 << from;
        if checked || from == magus || pinned & bit != 0 || matches!(m.special, Special::Castle | Special::EnPassant) {
            return false;
        }
        let tower = &self.towers[from];
        let (h, k) = (tower.len as usize, m.count as usize);
        if k == h {
            return true;
        }
        let below = tower.pieces[h - k - 1];
        if (below & 1) as usize == self.side.index() {
            return true;
        }
        if shields & bit != 0 {
            return false;
        }
        if KNIGHT_LEAPS[magus] & bit == 0 {
            // A slider, pawn or Magus revealed off the shields stays blocked.
            return true;
        }
        let mut kind = (below >> 1) & 7;
        if kind == Kind::Pawn as u8 && rank(from) == last_rank(self.side.opponent()) {
            kind = (below >> 4) & 7;
        }
        (1 << kind) & JUMPERS == 0
    }

    /// Whether an ordinary Magus move is legal, when that can be told
    /// without playing it: the tower it leaves is then empty or topped by
    /// its own side, so the only changes are the vacated square, the
    /// destination (now occupied) and the enemy top covered there.
    fn magus_step_safe(&self, m: Move) -> Option<bool> {
        let (from, to) = (m.from as usize, m.to as usize);
        let tower = &self.towers[from];
        let (h, k) = (tower.len as usize, m.count as usize);
        let vacated = if k == h {
            1u64 << from
        } else if (tower.pieces[h - k - 1] & 1) as usize == self.side.index() {
            0
        } else {
            return None;
        };
        let occupied = (self.tops.occupied() & !vacated) | 1u64 << to;
        Some(!self.attacked_with(to, self.side.opponent(), occupied, 1u64 << to))
    }

    /// What `m` will change, to restore it afterwards.
    fn save(&self, m: Move) -> Saved {
        let touched = self.touched(m);
        Saved { towers: touched.map(|sq| (sq, self.towers[sq])), tops: self.tops, side: self.side, ep: self.ep }
    }

    fn restore(&mut self, saved: &Saved) {
        // In reverse, so a square listed twice ends with its first saving.
        for (sq, t) in saved.towers.iter().rev() {
            self.towers[*sq] = *t;
        }
        self.tops = saved.tops;
        self.side = saved.side;
        self.ep = saved.ep;
    }

    /// The legal moves: each candidate is accepted at once when it surely
    /// is, else played in place, tested for check and taken back.
    pub fn legal_moves_in_place(&mut self, rules: &Rules, out: &mut Vec<Move>) {
        let mut cands = Vec::with_capacity(64);
        self.candidates(&mut cands);
        let guard = self.guard();
        for m in cands {
            if self.surely_legal(m, &guard) || self.safe_after(m, rules, guard.magus) {
                out.push(m);
            }
        }
    }

    /// The legal moves (see [`Position::legal_moves_in_place`]).
    pub fn legal_moves(&self, rules: &Rules, out: &mut Vec<Move>) {
        self.clone().legal_moves_in_place(rules, out);
    }

    /// Plays a move (legal or pseudo-legal).
    pub fn play(&mut self, m: Move, rules: &Rules) {
        let (from, to, k) = (m.from as usize, m.to as usize, m.count as usize);
        let side = self.side;
        let touched = self.touched(m);
        let tops_before = touched.map(|sq| self.towers[sq].top_byte());
        let ep_before = self.ep.take();
        match m.special {
            Special::Castle => {
                let (corner, rook_to) = if to > from { (from + 3, from + 1) } else { (from - 4, from - 1) };
                let mut magus = self.towers[from].take_top(1);
                let mut rook = self.towers[corner].take_top(1);
                magus[0].moved = true;
                rook[0].moved = true;
                self.towers[to].push(magus[0]);
                self.towers[rook_to].push(rook[0]);
            }
            Special::EnPassant => {
                // Exactly the pieces that double-stepped go beneath the capturer.
                let e = ep_before.expect("en passant follows a double step");
                let landing = e.landing as usize;
                let n = (e.count as usize).min(self.towers[landing].height());
                for v in self.towers[landing].take_top(n) {
                    self.towers[to].push(v);
                }
                self.move_unit(from, to, k);
                self.demote(to, rules);
            }
            _ => {
                let height_before = self.towers[from].height();
                self.move_unit(from, to, k);
                if m.special == Special::DoubleStep {
                    let passed = (from + to) / 2;
                    self.ep = Some(EnPassant { passed: passed as u8, landing: to as u8, count: k as u8 });
                }
                // Promotion at the destination: the unit's top pawn on its last rank.
                let t = &mut self.towers[to];
                let top_index = t.height() - 1;
                let mut top = t.get(top_index);
                if top.kind == Kind::Pawn && rank(to) == last_rank(top.side) {
                    top.kind = top.designation.expect("pawns are designated");
                    t.set(top_index, top);
                }
                // Promotion by split: a pawn left on top on its own last rank.
                if k < height_before {
                    let f = &mut self.towers[from];
                    let i = f.height() - 1;
                    let mut p = f.get(i);
                    if p.kind == Kind::Pawn && rank(from) == last_rank(p.side) {
                        p.kind = p.designation.expect("pawns are designated");
                        f.set(i, p);
                    }
                }
                self.demote(to, rules);
            }
        }
        for (i, &sq) in touched.iter().enumerate() {
            // A square listed again (see `touched`) is already recorded.
            if i == 0 || sq != touched[i - 1] {
                self.tops.retop(sq, tops_before[i], self.towers[sq].top_byte());
            }
        }
        self.side = side.opponent();
    }

    fn move_unit(&mut self, from: usize, to: usize, k: usize) {
        let src = &mut self.towers[from];
        let start = src.len as usize - k;
        let mut unit = [0u8; MAX_HEIGHT];
        unit[..k].copy_from_slice(&src.pieces[start..start + k]);
        src.len = start as u8;
        let dst = &mut self.towers[to];
        for &b in &unit[..k] {
            // Every piece of a moving unit has now moved.
            dst.pieces[dst.len as usize] = b | 0x80;
            dst.len += 1;
        }
    }

    /// A promoted pawn with an enemy (or, by option, any) piece above it
    /// becomes a pawn again.
    fn demote(&mut self, sq: usize, rules: &Rules) {
        let t = &mut self.towers[sq];
        let h = t.height();
        for i in 0..h {
            let mut p = t.get(i);
            if !p.is_promoted_pawn() {
                continue;
            }
            let covered = (i + 1..h).any(|j| rules.demote_on_any_cover || t.get(j).side != p.side);
            if covered {
                p.kind = Kind::Pawn;
                p.moved = true;
                t.set(i, p);
            }
        }
    }
}

/// Leaf count `depth` plies deep (no draw rule), bulk-counting the last ply;
/// each distinct (from, to, count) is one move.
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    fn go(pos: &mut Position, rules: &Rules, depth: u32) -> u64 {
        let mut moves = Vec::with_capacity(64);
        pos.legal_moves_in_place(rules, &mut moves);
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut n = 0;
        for m in moves {
            let saved = pos.save(m);
            pos.play(m, rules);
            n += go(pos, rules, depth - 1);
            pos.restore(&saved);
        }
        n
    }
    if depth == 0 {
        1
    } else {
        go(&mut pos.clone(), rules, depth)
    }
}
