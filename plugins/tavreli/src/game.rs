//! One game of tavreli: the position plus the draw bookkeeping (repetition of
//! the full stack configuration, the 50-move rule), notation and observations.

use arbiter_api::kit::{Game, Status, Viewer};
use arbiter_api::schema::{Observation, ObservationView, PieceView};
use arbiter_api::Error;

use crate::position::{EnPassant, Kind, Move, Piece, Position, Rules, Side, Special, Tower};

/// Draw thresholds (0 = off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draws {
    /// Occurrences of a position that draw.
    pub repetitions: u32,
    /// Moves by each side without a pawn-top move or a capture that draw.
    pub quiet_moves: u32,
}

/// A game of tavreli.
#[derive(Clone, Debug)]
pub struct TavreliGame {
    pos: Position,
    rules: Rules,
    draws: Draws,
    /// Hashes of the positions since the last pawn-top move or capture.
    history: Vec<u64>,
    halfmove: u32,
}

/// A position's repetition key: the full stack configuration, side and en
/// passant record (64-bit hash; a collision is astronomically unlikely).
fn key(pos: &Position) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    pos.hash(&mut h);
    h.finish()
}

/// Encodes a move: from | to << 6 | count << 12 | special << 18.
pub fn encode(m: &Move) -> u64 {
    let special = match m.special {
        Special::None => 0,
        Special::Castle => 1,
        Special::EnPassant => 2,
        Special::DoubleStep => 3,
    };
    m.from as u64 | (m.to as u64) << 6 | (m.count as u64) << 12 | special << 18
}

fn square_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

fn parse_square(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]))
        .then(|| ((b[1] - b'1') * 8 + b[0] - b'a') as usize)
}

/// Decodes a move id made by [`encode`].
pub fn decode(id: u64) -> Option<Move> {
    let special = match (id >> 18) & 3 {
        0 => Special::None,
        1 => Special::Castle,
        2 => Special::EnPassant,
        _ => Special::DoubleStep,
    };
    let count = ((id >> 12) & 63) as u8;
    (id >> 20 == 0 && count >= 1).then_some(Move { from: (id & 63) as u8, to: ((id >> 6) & 63) as u8, count, special })
}

/// The `from-to` text of a move, with `(k)` when k >= 2 pieces move.
pub fn move_text(m: &Move) -> String {
    let mut s = format!("{}-{}", square_name(m.from as usize), square_name(m.to as usize));
    if m.count >= 2 {
        s.push_str(&format!("({})", m.count));
    }
    s
}

fn piece_token(p: &Piece) -> String {
    let mut s = String::new();
    let letter = p.kind.letter();
    s.push(if p.side == Side::White { letter } else { letter.to_ascii_lowercase() });
    if let Some(d) = p.designation {
        if p.kind == Kind::Pawn {
            s.push(d.letter().to_ascii_lowercase());
        } else {
            s.push('*');
        }
    }
    if p.moved {
        s.push('\'');
    }
    s
}

impl TavreliGame {
    /// A game from a position and its halfmove clock.
    pub fn new(pos: Position, halfmove: u32, rules: Rules, draws: Draws) -> Self {
        TavreliGame { pos, rules, draws, history: Vec::new(), halfmove }
    }

    /// The position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    fn moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.pos.legal_moves(&self.rules, &mut out);
        out
    }

    fn status_with(&self, has_moves: bool) -> Status {
        let side = self.pos.side;
        if !has_moves {
            return if self.pos.in_check(side) {
                Status::win(side.opponent().index() as u32, "checkmate")
            } else {
                Status::draw("stalemate")
            };
        }
        let now = key(&self.pos);
        if self.draws.repetitions > 0
            && 1 + self.history.iter().filter(|&&k| k == now).count() as u32 >= self.draws.repetitions
        {
            return Status::draw("repetition");
        }
        if self.draws.quiet_moves > 0 && self.halfmove >= 2 * self.draws.quiet_moves {
            return Status::draw("moves without a pawn move or capture");
        }
        Status::ONGOING
    }

    /// Plays a legal move, keeping the draw counters.
    pub fn play_move(&mut self, m: Move) {
        let from = &self.pos.tower(m.from as usize);
        let pawn_top = from.top().is_some_and(|p| p.kind == Kind::Pawn);
        let capture = m.special == Special::EnPassant
            || self.pos.tower(m.to as usize).top().is_some_and(|p| p.side != self.pos.side)
                && m.special != Special::Castle;
        if pawn_top || capture {
            self.history.clear();
            self.halfmove = 0;
        } else {
            self.history.push(key(&self.pos));
            self.halfmove += 1;
        }
        self.pos.play(m, &self.rules);
    }

    /// The board, towers top first (`pn':N'` is a pawn on a knight), every
    /// column as wide as the tallest tower so that the columns line up.
    fn render(&self) -> String {
        let cell = |sq: usize| -> String {
            let t = self.pos.tower(sq);
            let text = t.pieces().rev().map(|p| piece_token(&p)).collect::<Vec<_>>().join(":");
            if text.is_empty() {
                ".".to_string()
            } else {
                text
            }
        };
        let w = (0..64).map(|sq| cell(sq).chars().count()).max().unwrap_or(1).max(2) + 1;
        let mut s = String::new();
        for r in (0..8).rev() {
            s.push_str(&format!("{} ", r + 1));
            for f in 0..8 {
                s.push_str(&format!("{:>w$}", cell(r * 8 + f)));
            }
            s.push('\n');
        }
        s.push_str("  ");
        for f in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            s.push_str(&format!("{f:>w$}"));
        }
        s.push('\n');
        s
    }
}

/// Parses a position: eight ranks (8 to 1) separated by `/`, eight cells each
/// separated by `,`: `.` or a tower top first, pieces joined by `:`; then the
/// side to move (`w`/`b`), the en passant record (`PASSED-LANDING-COUNT` or
/// `-`) and the halfmove clock.
pub fn parse_position(text: &str) -> Result<(Position, u32), Error> {
    let bad = |m: String| Error::bad_position(format!("tavreli position: {m}"));
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [board, side, ep, clock] = fields.as_slice() else {
        return Err(bad(format!(
            "expected 4 fields (board, side, en passant, halfmove clock), found {}",
            fields.len()
        )));
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(bad(format!("{} ranks, expected 8", ranks.len())));
    }
    let mut towers = [Tower::default(); 64];
    for (i, rank_text) in ranks.iter().enumerate() {
        let r = 7 - i;
        let cells: Vec<&str> = rank_text.split(',').collect();
        if cells.len() != 8 {
            return Err(bad(format!("rank {} has {} cells, expected 8", r + 1, cells.len())));
        }
        for (f, cell) in cells.iter().enumerate() {
            if *cell == "." {
                continue;
            }
            let mut tokens: Vec<&str> = cell.split(':').collect();
            tokens.reverse();
            for tok in tokens {
                let p = parse_piece(tok).map_err(|m| bad(format!("{} ('{cell}'): {m}", square_name(r * 8 + f))))?;
                towers[r * 8 + f].push_piece(p);
            }
        }
    }
    // Nothing may stand on a Magus.
    for (sq, t) in towers.iter().enumerate() {
        if t.pieces().rev().skip(1).any(|p| p.kind == Kind::Magus) {
            return Err(bad(format!("{}: a Magus is covered", square_name(sq))));
        }
    }
    for side in Side::BOTH {
        let n = (0..64).filter(|&s| towers[s].pieces().any(|p| p.side == side && p.kind == Kind::Magus)).count();
        if n != 1 {
            return Err(bad(format!("{} has {n} Magi, expected 1", ["white", "black"][side.index()])));
        }
        // Pieces are never removed (captives stay in towers) and only pawns
        // turn into other pieces: a side has what its set had, plus one
        // piece for each missing pawn.
        let count =
            |kind: Kind| towers.iter().flat_map(|t| t.pieces()).filter(|p| p.side == side && p.kind == kind).count();
        let name = ["white", "black"][side.index()];
        let pawns = count(Kind::Pawn);
        let total: usize = towers.iter().map(|t| t.pieces().filter(|p| p.side == side).count()).sum();
        let promoted: usize =
            [(Kind::Prince, 1), (Kind::Warrior, 2), (Kind::Archer, 2), (Kind::Horseman, 2), (Kind::Helgi, 0)]
                .into_iter()
                .map(|(kind, set)| count(kind).saturating_sub(set))
                .sum();
        if total > 16 || pawns > 8 || count(Kind::Helgi) > 1 || promoted > 8 - pawns.min(8) {
            return Err(bad(format!(
                "{name} has {total} pieces ({pawns} pawns, {promoted} beyond the set): more than 16 pieces, 8 pawns, \
                 one Helgi, or promoted pieces than missing pawns"
            )));
        }
    }
    let side = match *side {
        "w" => Side::White,
        "b" => Side::Black,
        other => return Err(bad(format!("side to move '{other}' must be w or b"))),
    };
    let ep = if *ep == "-" {
        None
    } else {
        let parts: Vec<&str> = ep.split('-').collect();
        match parts.as_slice() {
            [p, l, c] => match (parse_square(p), parse_square(l), c.parse::<u8>()) {
                (Some(p), Some(l), Ok(c)) if c >= 1 => Some(EnPassant { passed: p as u8, landing: l as u8, count: c }),
                _ => return Err(bad(format!("en passant '{ep}' is not PASSED-LANDING-COUNT"))),
            },
            _ => return Err(bad(format!("en passant '{ep}' is not PASSED-LANDING-COUNT"))),
        }
    };
    let clock = clock.parse().map_err(|_| bad(format!("halfmove clock '{clock}' is not a number")))?;
    let pos = Position::new(towers, side, ep);
    if pos.in_check(side.opponent()) {
        return Err(bad("the side not to move is in check".into()));
    }
    Ok((pos, clock))
}

fn parse_piece(tok: &str) -> Result<Piece, String> {
    let mut chars = tok.chars().peekable();
    let c = chars.next().ok_or("empty piece")?;
    let kind = Kind::from_letter(c).ok_or(format!("bad piece letter '{c}'"))?;
    let side = if c.is_ascii_uppercase() { Side::White } else { Side::Black };
    let mut designation = None;
    if kind == Kind::Pawn {
        let d = chars.next().ok_or("a pawn needs its designation letter (r, n, b, q or h)")?;
        designation = Some(match d {
            'r' => Kind::Warrior,
            'n' => Kind::Horseman,
            'b' => Kind::Archer,
            'q' => Kind::Prince,
            'h' => Kind::Helgi,
            other => return Err(format!("bad pawn designation '{other}'")),
        });
    } else if chars.peek() == Some(&'*') {
        chars.next();
        if kind == Kind::Magus {
            return Err("a Magus cannot be a promoted pawn".into());
        }
        designation = Some(kind);
    }
    let moved = chars.peek() == Some(&'\'');
    if moved {
        chars.next();
    }
    if let Some(extra) = chars.next() {
        return Err(format!("unexpected '{extra}' in '{tok}'"));
    }
    Ok(Piece { side, kind, designation, moved })
}

impl Game for TavreliGame {
    fn to_move(&self) -> u32 {
        self.pos.side.index() as u32
    }

    fn status(&self) -> Status {
        self.status_with(self.pos.has_legal_move(&self.rules))
    }

    fn is_legal(&self, mv: u64) -> bool {
        decode(mv).is_some_and(|m| self.pos.is_legal(m, &self.rules)) && self.status_with(true).is_ongoing()
    }

    fn legal_moves(&self, out: &mut Vec<u64>) {
        let moves = self.moves();
        if self.status_with(!moves.is_empty()).is_ongoing() {
            out.extend(moves.iter().map(encode));
        }
    }

    fn play(&mut self, mv: u64) {
        self.play_move(decode(mv).expect("checked by is_legal"));
    }

    fn move_cells(&self, mv: u64) -> Option<Vec<u32>> {
        decode(mv).filter(|_| self.is_legal(mv)).map(|m| vec![m.from as u32, m.to as u32])
    }

    fn move_text(&self, mv: u64, _viewer: Viewer) -> String {
        decode(mv).map(|m| move_text(&m)).unwrap_or_default()
    }

    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        let t = text.trim();
        let (squares, count) = match t.split_once('(') {
            Some((sq, rest)) => {
                let n = rest.strip_suffix(')').and_then(|n| n.parse::<u8>().ok()).filter(|&n| n >= 2);
                (
                    sq,
                    n.ok_or_else(|| {
                        Error::bad_notation(format!("'{t}': the piece count in parentheses must be 2 or more"))
                    })?,
                )
            }
            None => (t, 1),
        };
        let (f, to) = squares
            .split_once('-')
            .and_then(|(a, b)| Some((parse_square(a)?, parse_square(b)?)))
            .ok_or_else(|| Error::bad_notation(format!("'{t}' is not a move such as e2-e4 or d4-d5(2)")))?;
        self.moves()
            .into_iter()
            .find(|m| m.from as usize == f && m.to as usize == to && m.count == count)
            .map(|m| encode(&m))
            .ok_or_else(|| Error::illegal_move(format!("'{t}' is not legal in {}", self.position_text())))
    }

    fn position_text(&self) -> String {
        let ranks: Vec<String> = (0..8)
            .rev()
            .map(|r| {
                (0..8)
                    .map(|f| {
                        let t = &self.pos.tower(r * 8 + f);
                        if t.height() == 0 {
                            ".".to_string()
                        } else {
                            t.pieces().rev().map(|p| piece_token(&p)).collect::<Vec<_>>().join(":")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let ep = match self.pos.ep {
            Some(e) => format!("{}-{}-{}", square_name(e.passed as usize), square_name(e.landing as usize), e.count),
            None => "-".into(),
        };
        format!("{} {} {} {}", ranks.join("/"), if self.pos.side == Side::White { "w" } else { "b" }, ep, self.halfmove)
    }

    fn observe(&self, viewer: Viewer) -> Observation {
        let view_piece = |p: &Piece, cell: u32| PieceView {
            cell,
            owner: p.side.index() as u32,
            kind: p.kind.name().to_string(),
            label: p.kind.letter().to_string(),
            stack: Vec::new(),
        };
        let pieces = (0..64)
            .filter_map(|sq| {
                let t = &self.pos.tower(sq);
                let top = t.top()?;
                let mut v = view_piece(&top, sq as u32);
                v.stack = t.pieces().rev().skip(1).map(|p| view_piece(&p, sq as u32)).collect();
                Some(v)
            })
            .collect();
        let viewer = match viewer {
            Viewer::Player(p) => p.to_string(),
            Viewer::Spectator => "spectator".into(),
            Viewer::Referee => "referee".into(),
        };
        let mut text = self.render();
        text.push_str(&format!("{}\n", self.position_text()));
        Observation { text, view: ObservationView { viewer, to_move: self.to_move(), pieces, ..Default::default() } }
    }

    fn perft(&self, depth: u32) -> u64 {
        crate::position::perft(&self.pos, &self.rules, depth)
    }
}
