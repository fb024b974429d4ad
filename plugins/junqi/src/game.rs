//! One game of Junqi under a referee: the deployment phase (one action per
//! piece, every prefix completable), the movement phase (roads, straight rail
//! runs, engineers' rail paths, camps and headquarters), combat with public
//! verdicts, the flag reveal after a marshal's death, the end of the game,
//! and what each viewer may know. Each piece carries what its opponent knows
//! of it (a set of possible kinds, narrowed by its moves and its combats),
//! which is what `sample_world` respects.

use std::sync::OnceLock;

use arbiter_api::kit::{Game, Status, Viewer};
use arbiter_api::schema::{Observation, ObservationView, PieceView};
use arbiter_api::Error;

use crate::board::{self, CellKind, CELLS};
use crate::pieces::{
    self, combat, consistent, Kind, Verdict, ALL, BOMB, CODES, COUNTS, ENGINEER, FLAG, KINDS, MARSHAL, MINE, NAMES,
};

/// Variant options (RULES.md §2.9, §2.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// J1: the middle front crossing is a railway (else a road).
    pub middle_railway: bool,
    /// Plies without combat that draw (0: never).
    pub quiet_limit: u32,
    /// J9: the side that moves first after deployment.
    pub first: Side,
}

impl Default for Options {
    fn default() -> Self {
        Options { middle_railway: true, quiet_limit: 70, first: Side::Red }
    }
}

/// A move as its id encodes it: bit 20 marks a deployment (the kind in bits
/// 8..16, the cell in bits 0..8); otherwise the origin is in bits 0..8 and
/// the destination in bits 8..16. The one place ids are made and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Put a piece of `kind` on `cell` (the deployment phase).
    Deploy {
        /// The piece kind.
        kind: usize,
        /// The cell.
        cell: usize,
    },
    /// Move the piece on `from` to `to` (attacking whatever stands there).
    Step {
        /// The origin cell.
        from: usize,
        /// The destination cell.
        to: usize,
    },
}

/// The deployment flag of a move id.
const DEPLOY: u64 = 1 << 20;

impl Move {
    /// The move's id.
    pub fn id(self) -> u64 {
        match self {
            Move::Deploy { kind, cell } => DEPLOY | (kind as u64) << 8 | cell as u64,
            Move::Step { from, to } => from as u64 | (to as u64) << 8,
        }
    }

    /// The move an id names, if it names one (no bits outside the fields,
    /// kinds and cells in range).
    pub fn from_id(id: u64) -> Option<Move> {
        let (low, high) = ((id & 0xff) as usize, ((id >> 8) & 0xff) as usize);
        let mv = match id >> 16 {
            0 => Move::Step { from: low, to: high },
            f if f == DEPLOY >> 16 => Move::Deploy { kind: high, cell: low },
            _ => return None,
        };
        let in_range = match mv {
            Move::Deploy { kind, cell } => kind < KINDS && cell < CELLS,
            Move::Step { from, to } => from < CELLS && to < CELLS,
        };
        in_range.then_some(mv)
    }

    /// The cells it touches: the cell of a deployment, origin and destination of a step.
    pub fn cells(self) -> Vec<u32> {
        match self {
            Move::Deploy { cell, .. } => vec![cell as u32],
            Move::Step { from, to } => vec![from as u32, to as u32],
        }
    }
}

/// A player's side: Red deploys first and holds rows 6-11, Blue rows
/// 0-5. As an index (`side as usize`) it picks its entry of per-side tables,
/// and it is its seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Side {
    /// The first seat.
    Red = 0,
    /// The second seat.
    Blue = 1,
}

impl Side {
    /// Both sides, Red first.
    pub const BOTH: [Side; 2] = [Side::Red, Side::Blue];

    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::Red => Side::Blue,
            Side::Blue => Side::Red,
        }
    }

    /// The side's seat, as the kit numbers players.
    pub fn seat(self) -> u32 {
        self as u32
    }

    /// The side on `seat`, if there is one.
    pub fn of_seat(seat: u32) -> Option<Side> {
        Side::BOTH.get(seat as usize).copied()
    }

    /// The side's letter in position text: `r` or `b`.
    pub fn letter(self) -> char {
        ['r', 'b'][self as usize]
    }

    /// The side a position text's letter names.
    pub fn of_letter(letter: char) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| s.letter() == letter)
    }

    /// The side's name, capitalised.
    pub fn name(self) -> &'static str {
        ["Red", "Blue"][self as usize]
    }
}

/// A piece on the board (or removed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Whose it is.
    pub owner: Side,
    /// Its kind.
    pub kind: Kind,
    /// The kinds its opponent still thinks it could be.
    pub known: u16,
}

struct Geometry {
    roads: Vec<Vec<usize>>,
    lines: Vec<Vec<usize>>,
    rail: Vec<Vec<usize>>,
}

fn geometry(middle_railway: bool) -> &'static Geometry {
    static GEO: OnceLock<[Geometry; 2]> = OnceLock::new();
    let g = GEO.get_or_init(|| {
        [false, true].map(|m| {
            let lines = board::rail_lines(m);
            Geometry { roads: board::roads(), rail: board::rail_graph(&lines), lines }
        })
    });
    &g[middle_railway as usize]
}

/// The rows of `side`'s half, its last two rows and its front row.
fn half(side: Side, row: usize) -> bool {
    if side == Side::Red {
        row >= 6
    } else {
        row <= 5
    }
}
fn last_two(side: Side, row: usize) -> bool {
    if side == Side::Red {
        row >= 10
    } else {
        row <= 1
    }
}
fn front(side: Side, row: usize) -> bool {
    row == if side == Side::Red { 6 } else { 5 }
}

/// Cells counted by the zones of one side's deployment: headquarters, the
/// last two rows, the rows behind the front, and the whole half (camps stay
/// empty while deploying, so they count in none).
#[derive(Clone, Copy, Default)]
struct Zones {
    headquarters: u32,
    last_two: u32,
    behind_front: u32,
    half: u32,
}

impl Zones {
    /// The zones of `side` that `cell` lies in (one or none of each).
    fn of(side: Side, cell: usize) -> Zones {
        let row = cell / 5;
        if !half(side, row) || board::kind(cell) == CellKind::Camp {
            return Zones::default();
        }
        Zones {
            headquarters: (board::kind(cell) == CellKind::Headquarters) as u32,
            last_two: last_two(side, row) as u32,
            behind_front: !front(side, row) as u32,
            half: 1,
        }
    }

    fn plus(self, o: Zones) -> Zones {
        Zones {
            headquarters: self.headquarters + o.headquarters,
            last_two: self.last_two + o.last_two,
            behind_front: self.behind_front + o.behind_front,
            half: self.half + o.half,
        }
    }

    fn minus(self, o: Zones) -> Zones {
        Zones {
            headquarters: self.headquarters - o.headquarters,
            last_two: self.last_two - o.last_two,
            behind_front: self.behind_front - o.behind_front,
            half: self.half - o.half,
        }
    }

    /// Whether pieces `left` to deploy fit in these free cells: the flag in
    /// a headquarters, mines in the last two rows, bombs off the front row.
    fn holds(&self, left: &[u32; KINDS]) -> bool {
        left[FLAG] <= self.headquarters
            && left[FLAG] + left[MINE] <= self.last_two
            && left[FLAG] + left[MINE] + left[BOMB] <= self.behind_front
            && left.iter().sum::<u32>() <= self.half
    }
}

/// Whether `side`, with `left` to deploy and `free` cells, can still complete
/// its deployment after placing `placed` = (kind, an empty cell).
fn completable_after(left: &[u32; KINDS], free: Zones, side: Side, (kind, cell): (Kind, usize)) -> bool {
    let mut left = *left;
    left[kind] -= 1;
    free.minus(Zones::of(side, cell)).holds(&left)
}

/// The deployment rule a kind breaks on a cell, if any.
pub fn deployment_violation(side: Side, kind: Kind, cell: usize) -> Option<&'static str> {
    let row = cell / 5;
    if !half(side, row) {
        Some("outside its own half")
    } else if board::kind(cell) == CellKind::Camp {
        Some("in a camp (camps start empty)")
    } else if kind == FLAG && board::kind(cell) != CellKind::Headquarters {
        Some("the flag must stand in an own headquarters")
    } else if kind == MINE && !last_two(side, row) {
        Some("mines go only in the last two rows")
    } else if kind == BOMB && front(side, row) {
        Some("bombs may not stand in the front row")
    } else {
        None
    }
}

/// The kinds that may be deployed on a cell (public: where a piece stands).
fn deployable_kinds(side: Side, cell: usize) -> u16 {
    (0..KINDS).filter(|&k| deployment_violation(side, k, cell).is_none()).fold(0, |m, k| m | 1 << k)
}

/// A game of Junqi.
#[derive(Clone, Debug)]
pub struct JunqiGame {
    cells: [Option<Piece>; CELLS],
    dead: Vec<Piece>,
    deploying: bool,
    to_move: Side,
    quiet: u32,
    revealed: [bool; 2],
    winner: Option<Side>,
    last: Option<(usize, usize, Option<Verdict>)>,
    opts: Options,
}

impl JunqiGame {
    /// An empty board at the start of deployment (Red deploys first).
    pub fn new(opts: Options) -> Self {
        JunqiGame {
            cells: [None; CELLS],
            dead: Vec::new(),
            deploying: true,
            to_move: Side::Red,
            quiet: 0,
            revealed: [false; 2],
            winner: None,
            last: None,
            opts,
        }
    }

    /// The position text of a fresh game (for the info card).
    pub fn position_text_for_info(&self) -> String {
        Game::position_text(self)
    }

    /// The piece on a cell.
    pub fn piece(&self, cell: usize) -> Option<Piece> {
        self.cells[cell]
    }

    /// Kinds `side` still has to deploy.
    fn remaining(&self, side: Side) -> [u32; KINDS] {
        let mut left = COUNTS;
        for p in self.cells.iter().flatten().filter(|p| p.owner == side) {
            left[p.kind] = left[p.kind].saturating_sub(1);
        }
        left
    }

    /// Whether `side` can still complete its deployment (the zones are nested:
    /// headquarters within the last two rows within the rows behind the front).
    fn completable(&self, side: Side) -> bool {
        self.free_cells(side).holds(&self.remaining(side))
    }

    /// The empty cells of `side`'s half where its pieces may still go, counted
    /// by the zones the deployment rules name.
    fn free_cells(&self, side: Side) -> Zones {
        (0..CELLS).filter(|&c| self.cells[c].is_none()).fold(Zones::default(), |sum, c| sum.plus(Zones::of(side, c)))
    }

    fn deploy_moves(&self, out: &mut Vec<u64>) {
        let side = self.to_move;
        let left = self.remaining(side);
        // Counted once: each candidate placement only takes its own cell away.
        let free = self.free_cells(side);
        for kind in (0..KINDS).filter(|&k| left[k] > 0) {
            for cell in 0..CELLS {
                if self.cells[cell].is_none()
                    && deployment_violation(side, kind, cell).is_none()
                    && completable_after(&left, free, side, (kind, cell))
                {
                    out.push(Move::Deploy { kind, cell }.id());
                }
            }
        }
    }

    /// The (from, to) moves of the side to move in the movement phase.
    fn movement_moves(&self, out: &mut Vec<u64>) {
        let side = self.to_move;
        let geo = geometry(self.opts.middle_railway);
        let push = |out: &mut Vec<u64>, from: usize, to: usize| {
            let id = Move::Step { from, to }.id();
            if !out.contains(&id) {
                out.push(id);
            }
        };
        for from in 0..CELLS {
            let Some(p) = self.cells[from] else { continue };
            if p.owner != side || !pieces::movable(p.kind) || board::kind(from) == CellKind::Headquarters {
                continue;
            }
            let target_ok = |to: usize| match self.cells[to] {
                None => true,
                Some(q) => q.owner != side && board::kind(to) != CellKind::Camp,
            };
            for &to in &geo.roads[from] {
                if target_ok(to) {
                    push(out, from, to);
                }
            }
            if board::kind(from) != CellKind::Station {
                continue;
            }
            if p.kind == ENGINEER {
                // Any path over rail segments through empty stations.
                let mut seen = [false; CELLS];
                seen[from] = true;
                let mut queue = vec![from];
                while let Some(at) = queue.pop() {
                    for &n in &geo.rail[at] {
                        if seen[n] {
                            continue;
                        }
                        match self.cells[n] {
                            None => {
                                seen[n] = true;
                                push(out, from, n);
                                queue.push(n);
                            }
                            Some(q) if q.owner != side => push(out, from, n),
                            Some(_) => {}
                        }
                    }
                }
            } else {
                for line in geo.lines.iter().filter(|l| l.contains(&from)) {
                    let at = line.iter().position(|&c| c == from).expect("on the line");
                    for dir in [-1i32, 1] {
                        let mut i = at as i32 + dir;
                        while (0..line.len() as i32).contains(&i) {
                            let to = line[i as usize];
                            match self.cells[to] {
                                None => push(out, from, to),
                                Some(q) => {
                                    if q.owner != side {
                                        push(out, from, to);
                                    }
                                    break;
                                }
                            }
                            i += dir;
                        }
                    }
                }
            }
        }
    }

    fn moves(&self) -> Vec<u64> {
        let mut out = Vec::new();
        if self.deploying {
            self.deploy_moves(&mut out);
        } else if self.winner.is_none() && !(self.opts.quiet_limit > 0 && self.quiet >= self.opts.quiet_limit) {
            self.movement_moves(&mut out);
        }
        out
    }

    fn status_now(&self) -> Status {
        if self.deploying {
            return Status::ONGOING;
        }
        if let Some(w) = self.winner {
            return Status::win(w.seat(), "flag captured");
        }
        let mut moves = Vec::new();
        self.movement_moves(&mut moves);
        if moves.is_empty() {
            return Status::win(self.to_move.opponent().seat(), "no legal move");
        }
        if self.opts.quiet_limit > 0 && self.quiet >= self.opts.quiet_limit {
            return Status::draw("no combat within the limit");
        }
        Status::ONGOING
    }

    /// The verdict a movement move would bring (None for a plain move).
    fn verdict_of(&self, from: usize, to: usize) -> Option<Verdict> {
        let (a, d) = (self.cells[from]?, self.cells[to]?);
        Some(combat(a.kind, d.kind))
    }

    fn remove(&mut self, p: Piece) {
        if p.kind == MARSHAL {
            self.revealed[p.owner as usize] = true;
            for c in self.cells.iter_mut().flatten().filter(|q| q.owner == p.owner) {
                c.known &= if c.kind == FLAG { 1 << FLAG } else { !(1 << FLAG) };
            }
        }
        self.dead.push(p);
    }

    fn play_movement(&mut self, from: usize, to: usize) {
        let mut a = self.cells[from].take().expect("legal move");
        // A piece that moves is neither a mine nor the flag.
        a.known &= !(1 << MINE | 1 << FLAG);
        match self.cells[to] {
            None => {
                self.cells[to] = Some(a);
                self.quiet += 1;
                self.last = Some((from, to, None));
            }
            Some(mut d) => {
                let verdict = combat(a.kind, d.kind);
                d.known &= consistent(a.kind, true, verdict);
                a.known &= consistent(d.kind, false, verdict);
                self.cells[to] = None;
                match verdict {
                    Verdict::AttackerWon => {
                        self.cells[to] = Some(a);
                        self.remove(d);
                    }
                    Verdict::DefenderWon => {
                        self.cells[to] = Some(d);
                        self.remove(a);
                    }
                    Verdict::BothRemoved => {
                        self.remove(a);
                        self.remove(d);
                    }
                    Verdict::FlagCaptured => {
                        self.winner = Some(a.owner);
                        if a.kind == BOMB {
                            self.remove(a);
                        } else {
                            self.cells[to] = Some(a);
                        }
                        self.remove(d);
                    }
                }
                self.quiet = 0;
                self.last = Some((from, to, Some(verdict)));
            }
        }
        self.to_move = self.to_move.opponent();
    }

    fn play_deploy(&mut self, kind: Kind, cell: usize) {
        let side = self.to_move;
        self.cells[cell] = Some(Piece { owner: side, kind, known: deployable_kinds(side, cell) });
        if self.remaining(side).iter().sum::<u32>() == 0 {
            if side == Side::Red {
                self.to_move = Side::Blue;
            } else {
                self.deploying = false;
                self.to_move = self.opts.first;
            }
        }
    }

    /// Whether `viewer` may see the kind of `p`.
    fn sees(&self, viewer: Viewer, p: &Piece) -> bool {
        match viewer {
            Viewer::Referee => true,
            Viewer::Player(v) => v == p.owner.seat() || (p.kind == FLAG && self.revealed[p.owner as usize]),
            Viewer::Spectator => p.kind == FLAG && self.revealed[p.owner as usize],
        }
    }

    fn cell_text(&self, cell: usize, viewer: Viewer) -> String {
        match self.cells[cell] {
            None => match board::kind(cell) {
                CellKind::Camp => "( )".into(),
                CellKind::Headquarters => "[ ]".into(),
                CellKind::Station => " = ".into(),
                CellKind::Post => " . ".into(),
            },
            Some(p) => {
                let side = p.owner.letter();
                let kind = if self.sees(viewer, &p) { CODES[p.kind] } else { '?' };
                format!(" {side}{kind}")
            }
        }
    }

    fn verdict_text(v: Option<Verdict>) -> &'static str {
        v.map(Verdict::text).unwrap_or("move")
    }

    /// Draws new kinds for `side`'s pieces in `world`, consistent with what
    /// its opponent knows of each (the true kinds are one such draw), with
    /// the xorshift state `rng`; false if no draw fits.
    fn resample(&self, world: &mut JunqiGame, side: Side, rng: &mut u64) -> bool {
        // Every piece `side` ever deployed: (Some(cell) | None for the dead, known kinds).
        let mut items: Vec<(Option<usize>, usize, u16)> = Vec::new();
        for c in 0..CELLS {
            if let Some(q) = self.cells[c].filter(|q| q.owner == side) {
                items.push((Some(c), 0, q.known));
            }
        }
        for (i, q) in self.dead.iter().enumerate().filter(|(_, q)| q.owner == side) {
            items.push((None, i, q.known));
        }
        let mut slots: Vec<Kind> = (0..KINDS).flat_map(|k| std::iter::repeat_n(k, COUNTS[k] as usize)).collect();
        let mut next = || {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            *rng
        };
        for i in (1..slots.len()).rev() {
            slots.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let mut order: Vec<usize> = (0..items.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        // Kuhn's augmenting paths: a perfect matching of pieces to kinds that
        // respects what the viewer knows (the true assignment is one).
        let mut slot_of_item: Vec<Option<usize>> = vec![None; items.len()];
        let mut item_of_slot: Vec<Option<usize>> = vec![None; slots.len()];
        fn augment(
            i: usize,
            items: &[(Option<usize>, usize, u16)],
            slots: &[Kind],
            seen: &mut [bool],
            soi: &mut [Option<usize>],
            ios: &mut [Option<usize>],
        ) -> bool {
            for s in 0..slots.len() {
                if seen[s] || items[i].2 & (1 << slots[s]) == 0 {
                    continue;
                }
                seen[s] = true;
                if ios[s].is_none() || augment(ios[s].expect("matched"), items, slots, seen, soi, ios) {
                    soi[i] = Some(s);
                    ios[s] = Some(i);
                    return true;
                }
            }
            false
        }
        for &i in &order {
            let mut seen = vec![false; slots.len()];
            if !augment(i, &items, &slots, &mut seen, &mut slot_of_item, &mut item_of_slot) {
                return false;
            }
        }
        for (i, &(cell, dead_index, _)) in items.iter().enumerate() {
            let kind = slots[slot_of_item[i].expect("perfect matching")];
            match cell {
                Some(c) => world.cells[c].as_mut().expect("piece").kind = kind,
                None => world.dead[dead_index].kind = kind,
            }
        }
        // Mid-deployment the side's unplaced pieces must still fit.
        !world.deploying || world.completable(side)
    }
}

impl Game for JunqiGame {
    fn to_move(&self) -> u32 {
        self.to_move.seat()
    }

    fn status(&self) -> Status {
        self.status_now()
    }

    fn legal_moves(&self, out: &mut Vec<u64>) {
        if self.deploying || self.status_now().is_ongoing() {
            out.extend(self.moves());
        }
    }

    fn is_legal(&self, mv: u64) -> bool {
        match Move::from_id(mv) {
            Some(Move::Deploy { kind, cell }) => {
                let (side, left) = (self.to_move, self.remaining(self.to_move));
                self.deploying
                    && self.cells[cell].is_none()
                    && deployment_violation(side, kind, cell).is_none()
                    && left[kind] > 0
                    && completable_after(&left, self.free_cells(side), side, (kind, cell))
            }
            Some(Move::Step { .. }) => {
                !self.deploying && self.status_now().is_ongoing() && {
                    let mut moves = Vec::new();
                    self.movement_moves(&mut moves);
                    moves.contains(&mv)
                }
            }
            None => false,
        }
    }

    fn play(&mut self, mv: u64) {
        match Move::from_id(mv) {
            Some(Move::Deploy { kind, cell }) => self.play_deploy(kind, cell),
            Some(Move::Step { from, to }) => self.play_movement(from, to),
            None => unreachable!("the kit plays only legal moves"),
        }
    }

    fn move_text(&self, mv: u64, viewer: Viewer) -> String {
        let (from, to) = match Move::from_id(mv) {
            Some(Move::Deploy { kind, cell }) => {
                return match viewer {
                    Viewer::Referee => format!("{}@{}", CODES[kind], board::name(cell)),
                    Viewer::Player(p) if p == self.to_move.seat() => {
                        format!("{}@{}", CODES[kind], board::name(cell))
                    }
                    _ => format!("deploy@{}", board::name(cell)),
                };
            }
            Some(Move::Step { from, to }) => (from, to),
            None => return format!("?{mv:#x}"),
        };
        let attack = self.cells[to].is_some();
        let base = format!("{}{}{}", board::name(from), if attack { 'x' } else { '-' }, board::name(to));
        // The mover asks for its texts before it moves: no verdict for it.
        match viewer {
            Viewer::Player(p) if p == self.to_move.seat() => base,
            _ if attack => format!("{base}:{}", Self::verdict_text(self.verdict_of(from, to))),
            _ => base,
        }
    }

    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        // A verdict after ':' (as other viewers read the move) is not part of it.
        let t = text.trim().split(':').next().unwrap_or("");
        let legal = self.moves();
        let id = if let Some((k, c)) = t.split_once('@') {
            let kind = k.chars().next().filter(|_| k.len() == 1).and_then(pieces::from_code);
            let (Some(kind), Some(cell)) = (kind, board::parse(c)) else {
                return Err(Error::bad_notation(format!(
                    "'{t}' is not a deployment (kind code 9..1, L, B or F, @, cell A0..L4)"
                )));
            };
            if !self.deploying {
                return Err(Error::illegal_move(format!("'{t}': deployment is over")));
            }
            if let Some(why) = deployment_violation(self.to_move, kind, cell) {
                return Err(Error::illegal_move(format!("'{t}': {} on {}: {why}", NAMES[kind], board::name(cell))));
            }
            if self.remaining(self.to_move)[kind] == 0 {
                return Err(Error::illegal_move(format!("'{t}': every {} is already deployed", NAMES[kind])));
            }
            Move::Deploy { kind, cell }.id()
        } else {
            let parts: Vec<&str> = t.split(['-', 'x']).collect();
            match parts.as_slice() {
                [a, b] => match (board::parse(a), board::parse(b)) {
                    (Some(from), Some(to)) => Move::Step { from, to }.id(),
                    _ => return Err(Error::bad_notation(format!("'{t}' is not a move (such as G0-F0 or G0xF0)"))),
                },
                _ => return Err(Error::bad_notation(format!("'{t}' is not a move (such as G0-F0 or G0xF0)"))),
            }
        };
        if legal.contains(&id) {
            Ok(id)
        } else {
            Err(Error::illegal_move(format!("'{t}' is not legal here")))
        }
    }

    fn position_text(&self) -> String {
        let rows: Vec<String> = (0..12)
            .map(|r| {
                (0..5)
                    .map(|c| match self.cells[r * 5 + c] {
                        None => ".".to_string(),
                        Some(p) => format!("{}{}{:03x}", p.owner.letter(), CODES[p.kind], p.known),
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let dead: Vec<String> =
            self.dead.iter().map(|p| format!("{}{}{:03x}", p.owner.letter(), CODES[p.kind], p.known)).collect();
        let revealed: String =
            Side::BOTH.into_iter().filter(|&s| self.revealed[s as usize]).map(Side::letter).collect();
        let last = match self.last {
            None => "-".to_string(),
            Some((f, t, v)) => format!("{}-{}:{}", board::name(f), board::name(t), Self::verdict_text(v)),
        };
        format!(
            "{} {} quiet={} revealed={} winner={} last={} | {} | dead={}",
            if self.deploying { "deploy" } else { "move" },
            self.to_move.letter(),
            self.quiet,
            if revealed.is_empty() { "-".into() } else { revealed },
            self.winner.map(Side::letter).unwrap_or('-'),
            last,
            rows.join("/"),
            if dead.is_empty() { "-".into() } else { dead.join(",") }
        )
    }

    fn observe(&self, viewer: Viewer) -> Observation {
        let mut text = String::new();
        for r in 0..12 {
            text.push_str(&format!("{} ", (b'A' + r as u8) as char));
            for c in 0..5 {
                text.push_str(&self.cell_text(r * 5 + c, viewer));
            }
            text.push('\n');
        }
        text.push_str("    0  1  2  3  4\n");
        let pieces = (0..CELLS)
            .filter_map(|c| {
                self.cells[c].map(|p| {
                    let seen = self.sees(viewer, &p);
                    PieceView {
                        cell: c as u32,
                        owner: p.owner.seat(),
                        kind: if seen { NAMES[p.kind].into() } else { "unknown".into() },
                        label: if seen { CODES[p.kind].to_string() } else { "?".into() },
                        stack: Vec::new(),
                    }
                })
            })
            .collect();
        let mut notes = Vec::new();
        if self.deploying {
            notes.push(format!("deployment: {} places its pieces", self.to_move.name()));
        }
        if let Some((f, t, v)) = self.last {
            notes.push(format!("last move {}-{}: {}", board::name(f), board::name(t), Self::verdict_text(v)));
        }
        for s in Side::BOTH {
            if self.revealed[s as usize] {
                notes.push(format!("{}'s marshal is gone: its flag is revealed", s.name()));
            }
        }
        notes.push(format!("plies without combat: {}", self.quiet));
        for n in &notes {
            text.push_str(n);
            text.push('\n');
        }
        let viewer_name = ObservationView::viewer_name(viewer);
        let highlights = self.last.map(|(f, t, _)| vec![f as u32, t as u32]).unwrap_or_default();
        Observation {
            text,
            view: ObservationView {
                viewer: viewer_name,
                to_move: self.to_move.seat(),
                pieces,
                highlights,
                notes,
                ..Default::default()
            },
        }
    }

    fn sample_world(&self, viewer: Viewer, seed: u64) -> Self {
        // A player knows its own pieces; a spectator (or a seat no one sits
        // on) knows neither side's beyond what combat and a fallen marshal made public.
        let opponent_of = |p: u32| Side::of_seat(p).map(Side::opponent);
        let hidden: Vec<Side> = match viewer {
            Viewer::Referee => return self.clone(),
            Viewer::Player(p) => opponent_of(p).map_or(Side::BOTH.to_vec(), |o| vec![o]),
            Viewer::Spectator => Side::BOTH.to_vec(),
        };
        let mut rng = seed ^ 0x2545_F491_4F6C_DD1D;
        let mut world = self.clone();
        for side in hidden {
            if !self.resample(&mut world, side, &mut rng) {
                return self.clone();
            }
        }
        world
    }

    fn move_cells(&self, mv: u64) -> Option<Vec<u32>> {
        if self.is_legal(mv) {
            Move::from_id(mv).map(Move::cells)
        } else {
            None
        }
    }

    fn evaluate(&self, player: u32) -> Option<f64> {
        const VALUE: [f64; KINDS] = [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 2.5, 2.0, 5.0, 0.0];
        let material =
            |s: Side| self.cells.iter().flatten().filter(|q| q.owner == s).map(|q| VALUE[q.kind]).sum::<f64>();
        let me = Side::of_seat(player)?;
        Some(((material(me) - material(me.opponent())) / 20.0).tanh())
    }
}

/// Parses the position notation written by `position_text`.
pub fn parse_position(text: &str, opts: Options) -> Result<JunqiGame, Error> {
    let bad = |m: String| Error::bad_position(format!("Junqi position: {m}"));
    let parts: Vec<&str> = text.split('|').map(str::trim).collect();
    let [head, rows, dead] = parts.as_slice() else {
        return Err(bad("expected 'HEADER | ROW/ROW/... | dead=...'".into()));
    };
    let mut g = JunqiGame::new(opts);
    let fields: Vec<&str> = head.split_whitespace().collect();
    let [phase, side, quiet, revealed, winner, last] = fields.as_slice() else {
        return Err(bad(format!("header '{head}' needs phase, side, quiet=, revealed=, winner=, last=")));
    };
    g.deploying = match *phase {
        "deploy" => true,
        "move" => false,
        other => return Err(bad(format!("phase '{other}' must be deploy or move"))),
    };
    g.to_move = match *side {
        "r" => Side::Red,
        "b" => Side::Blue,
        other => return Err(bad(format!("side '{other}' must be r or b"))),
    };
    g.quiet = quiet
        .strip_prefix("quiet=")
        .and_then(|q| q.parse().ok())
        .ok_or_else(|| bad(format!("'{quiet}' is not quiet=N")))?;
    let rev = revealed.strip_prefix("revealed=").ok_or_else(|| bad(format!("'{revealed}' is not revealed=...")))?;
    if rev != "-" && (rev.is_empty() || !rev.chars().all(|c| c == 'r' || c == 'b')) {
        return Err(bad(format!("'{revealed}' must be revealed=- or name sides r and b")));
    }
    if g.deploying && rev != "-" {
        return Err(bad(format!("'{revealed}' during deployment: no flag is revealed before the movement phase")));
    }
    g.revealed = [rev.contains('r'), rev.contains('b')];
    g.winner = match winner.strip_prefix("winner=") {
        Some("r") => Some(Side::Red),
        Some("b") => Some(Side::Blue),
        Some("-") => None,
        _ => return Err(bad(format!("'{winner}' is not winner=r|b|-"))),
    };
    let last = last.strip_prefix("last=").ok_or_else(|| bad(format!("'{last}' is not last=...")))?;
    if last != "-" {
        let (squares, verdict) =
            last.split_once(':').ok_or_else(|| bad(format!("last move '{last}' needs a verdict")))?;
        let (f, t) = squares.split_once('-').ok_or_else(|| bad(format!("last move '{squares}' is not FROM-TO")))?;
        let v = match verdict {
            "move" => None,
            "attacker_won" => Some(Verdict::AttackerWon),
            "defender_won" => Some(Verdict::DefenderWon),
            "both_removed" => Some(Verdict::BothRemoved),
            "flag_captured" => Some(Verdict::FlagCaptured),
            other => return Err(bad(format!("unknown verdict '{other}'"))),
        };
        let (Some(f), Some(t)) = (board::parse(f), board::parse(t)) else {
            return Err(bad(format!("bad cells in '{squares}'")));
        };
        g.last = Some((f, t, v));
    }
    let piece = |tok: &str| -> Result<Piece, Error> {
        let mut ch = tok.chars();
        let Some(owner) = ch.next().and_then(Side::of_letter) else {
            return Err(bad(format!("piece '{tok}' must start with r or b")));
        };
        let kind =
            ch.next().and_then(pieces::from_code).ok_or_else(|| bad(format!("piece '{tok}': unknown kind code")))?;
        let known =
            u16::from_str_radix(ch.as_str(), 16).map_err(|_| bad(format!("piece '{tok}': bad knowledge mask")))?;
        Ok(Piece { owner, kind, known: known & ALL })
    };
    let row_texts: Vec<&str> = rows.split('/').collect();
    if row_texts.len() != 12 {
        return Err(bad(format!("{} rows, expected 12", row_texts.len())));
    }
    for (r, row) in row_texts.iter().enumerate() {
        let cells: Vec<&str> = row.split(',').map(str::trim).collect();
        if cells.len() != 5 {
            return Err(bad(format!("row {} has {} cells, expected 5", (b'A' + r as u8) as char, cells.len())));
        }
        for (c, tok) in cells.iter().enumerate() {
            if *tok != "." {
                g.cells[r * 5 + c] = Some(piece(tok)?);
            }
        }
    }
    let dead = dead.strip_prefix("dead=").ok_or_else(|| bad(format!("'{dead}' is not dead=...")))?;
    if dead != "-" {
        for tok in dead.split(',') {
            g.dead.push(piece(tok.trim())?);
        }
    }
    // Counts never exceed the set, and a deployment obeys its rules.
    for side in Side::BOTH {
        let mut n = [0u32; KINDS];
        for p in g.cells.iter().flatten().chain(&g.dead).filter(|p| p.owner == side) {
            n[p.kind] += 1;
        }
        if let Some(k) = (0..KINDS).find(|&k| n[k] > COUNTS[k]) {
            return Err(bad(format!(
                "{} has {} {}s, at most {}",
                ["red", "blue"][side as usize],
                n[k],
                NAMES[k],
                COUNTS[k]
            )));
        }
        if g.deploying {
            for c in 0..CELLS {
                if let Some(p) = g.cells[c].filter(|p| p.owner == side) {
                    if let Some(why) = deployment_violation(side, p.kind, c) {
                        return Err(bad(format!(
                            "{} {} on {}: {why}",
                            ["red", "blue"][side as usize],
                            NAMES[p.kind],
                            board::name(c)
                        )));
                    }
                }
            }
        }
    }
    // A flag never moves from its headquarters; a flag is revealed only
    // once its side's marshal is gone.
    for side in Side::BOTH {
        let name = ["red", "blue"][side as usize];
        for c in 0..CELLS {
            if g.cells[c].is_some_and(|p| p.owner == side && p.kind == FLAG)
                && deployment_violation(side, FLAG, c).is_some()
            {
                return Err(bad(format!(
                    "{name} flag on {}: the flag must stand in an own headquarters",
                    board::name(c)
                )));
            }
        }
        let marshal_lives = g.cells.iter().flatten().any(|p| p.owner == side && p.kind == MARSHAL);
        if g.revealed[side as usize] && marshal_lives {
            return Err(bad(format!("revealed= names {name}'s flag, but {name}'s marshal still stands")));
        }
    }
    // A complete deployment given as a position starts the movement phase.
    if g.deploying && Side::BOTH.into_iter().all(|s| g.remaining(s).iter().sum::<u32>() == 0) {
        g.deploying = false;
    }
    Ok(g)
}
