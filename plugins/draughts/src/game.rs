//! One game of draughts under a rule set: the position plus what the draw
//! rules need (the positions since the last man move or capture, the endgame
//! counters), game endings, notation and observations.

use arbiter_api::kit::{Game, Status, Viewer};
use arbiter_api::schema::{Observation, ObservationView, PieceView};
use arbiter_api::Error;

use crate::geometry::Geometry;
use crate::pdn;
use crate::position::{CaptureSink, Move, Position, Side};
use crate::rules::RuleSet;

/// Draw thresholds in plies, resolved from the rule set and the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawLimits {
    /// Repetitions of a position (same side to move) that draw; 0 = off.
    pub repetitions: u32,
    /// Plies without a man move or a capture that draw; 0 = off.
    pub quiet_plies: u32,
    /// Plies after one king against three pieces (one a king) arose; 0 = off.
    pub three_v_one_plies: u32,
    /// Plies after one king against at most two pieces (one a king) arose; 0 = off.
    pub two_v_one_plies: u32,
}

/// A game of draughts.
#[derive(Debug)]
pub struct DraughtsGame<G: Geometry> {
    pos: Position<G>,
    rules: RuleSet,
    limits: DrawLimits,
    /// Positions since the last man move or capture, the current one excluded.
    history: Vec<Position<G>>,
    /// Plies since the last man move or capture.
    quiet: u32,
    /// Ply count at which the running endgame count ends in a draw, if any.
    endgame_deadline: Option<u32>,
    /// The endgame class the deadline was set for (3 = 1 v 3, 2 = 1 v 2).
    endgame_class: u8,
    /// Plies played in this game.
    ply: u32,
}

impl<G: Geometry> Clone for DraughtsGame<G> {
    fn clone(&self) -> Self {
        DraughtsGame { history: self.history.clone(), ..*self }
    }

    fn clone_from(&mut self, other: &Self) {
        self.history.clone_from(&other.history);
        let history = std::mem::take(&mut self.history);
        *self = DraughtsGame { history: Vec::new(), ..*other };
        self.history = history;
    }
}

/// Captures with their landing squares (for notation), duplicates dropped.
#[derive(Default)]
struct WithPaths(Vec<(Move, Vec<u8>)>);

impl CaptureSink for WithPaths {
    fn capture(&mut self, mv: Move, path: &[u8]) {
        if !self.0.iter().any(|(m, _)| *m == mv) {
            self.0.push((mv, path.to_vec()));
        }
    }
}

/// The board cell (see the observation schema) of 0-based square index
/// `idx`: square 1 is the top row's second cell as White sees the board.
fn cell_of<G: Geometry>(idx: u32) -> u32 {
    let row = idx / G::PER_ROW;
    let col = 2 * (idx % G::PER_ROW) + u32::from(row.is_multiple_of(2));
    (G::WIDTH - 1 - row) * G::WIDTH + col
}

/// Encodes a move as an id: from | to << 6 | captured squares << 12 | crowns << 62
/// (squares as 0-based indices, so a 10x10 capture fits in 62 bits).
pub fn encode<G: Geometry>(mv: &Move) -> u64 {
    let mut captured_idx = 0u64;
    let mut c = mv.captured;
    while c != 0 {
        captured_idx |= 1u64 << G::idx(c.trailing_zeros());
        c &= c - 1;
    }
    G::idx(mv.from as u32) as u64 | (G::idx(mv.to as u32) as u64) << 6 | captured_idx << 12 | (mv.crowns as u64) << 62
}

/// Decodes a move id made by [`encode`] (which `is_legal` has checked).
pub fn decode<G: Geometry>(id: u64) -> Move {
    let mut captured = 0u64;
    let mut c = (id >> 12) & ((1u64 << 50) - 1);
    while c != 0 {
        captured |= 1u64 << G::bit(c.trailing_zeros());
        c &= c - 1;
    }
    Move {
        from: G::bit((id & 63) as u32) as u8,
        to: G::bit(((id >> 6) & 63) as u32) as u8,
        captured,
        crowns: id >> 62 & 1 == 1,
    }
}

impl<G: Geometry> DraughtsGame<G> {
    /// A game from `pos` under `rules` with draw `limits`.
    pub fn new(pos: Position<G>, rules: RuleSet, limits: DrawLimits) -> Self {
        let mut g = DraughtsGame {
            pos,
            rules,
            limits,
            history: Vec::new(),
            quiet: 0,
            endgame_deadline: None,
            endgame_class: 0,
            ply: 0,
        };
        g.update_endgame();
        g
    }

    /// A game from its position text: PDN FEN, then optionally the draw
    /// counters [`DraughtsGame::position_text`] writes: `:Q` plies since the
    /// last man move or capture, `:E` plies left in the endgame count, `:R`
    /// times the position has now been seen (earlier positions' counts are
    /// not kept).
    pub fn from_text(text: &str, rules: RuleSet, limits: DrawLimits) -> Result<Self, Error> {
        let bad = |m: String| Error::bad_position(m);
        let mut fen = Vec::new();
        let (mut quiet, mut endgame_left, mut seen) = (None, None, None);
        for field in text.trim().trim_end_matches('.').split(':') {
            let number = |v: &str, what: &str| -> Result<u32, Error> {
                v.parse().map_err(|_| bad(format!("'{field}': {what} must be a whole number")))
            };
            match field.trim().split_at_checked(1) {
                Some(("Q", v)) if !v.is_empty() => quiet = Some(number(v, "Q (plies since a man move or capture)")?),
                Some(("E", v)) if !v.is_empty() => {
                    endgame_left = Some(number(v, "E (plies left in the endgame count)")?)
                }
                Some(("R", v)) if !v.is_empty() => seen = Some(number(v, "R (times the position was seen)")?),
                _ => fen.push(field),
            }
        }
        let mut game = DraughtsGame::new(pdn::parse_fen(&fen.join(":"))?, rules, limits);
        game.quiet = quiet.unwrap_or(0);
        let seen = seen.unwrap_or(1);
        if seen == 0 || seen > game.quiet + 1 {
            return Err(bad(format!("R{seen}: a position is seen from once to Q + 1 times")));
        }
        game.history = vec![game.pos; seen as usize - 1];
        if let Some(left) = endgame_left {
            if game.endgame_deadline.is_none() {
                return Err(bad(format!("E{left}: no endgame count runs in this position (or the rule is off)")));
            }
            game.endgame_deadline = Some(left);
        }
        Ok(game)
    }

    /// The current position.
    pub fn position(&self) -> &Position<G> {
        &self.pos
    }

    /// The player index of `side` (the side that moves first is player 0).
    pub fn player(&self, side: Side) -> u32 {
        let first = if self.rules.black_first { Side::Black } else { Side::White };
        (side != first) as u32
    }

    fn moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(48);
        self.pos.legal_moves(&self.rules, &mut out);
        out
    }

    fn find(&self, id: u64) -> Option<Move> {
        self.moves().into_iter().find(|m| encode::<G>(m) == id)
    }

    /// The endgame class: 3 for one king against three pieces with a king,
    /// 2 for one king against at most two pieces with a king, else 0.
    fn endgame_class(&self) -> u8 {
        let (w, b, k) = (self.pos.white, self.pos.black, self.pos.kings);
        let classify = |lone: u64, other: u64| -> u8 {
            if lone.count_ones() != 1 || lone & k == 0 || other & k == 0 {
                return 0;
            }
            match other.count_ones() {
                3 => 3,
                1 | 2 => 2,
                _ => 0,
            }
        };
        classify(w, b).max(classify(b, w))
    }

    /// Starts, shortens or clears the endgame count after a move. A capture
    /// that turns a 16-move ending into a 5-move one ends the game at whichever
    /// limit expires first.
    fn update_endgame(&mut self) {
        let class = self.endgame_class();
        let limit = match class {
            3 => self.limits.three_v_one_plies,
            2 => self.limits.two_v_one_plies,
            _ => 0,
        };
        if class == 0 || limit == 0 {
            self.endgame_deadline = None;
        } else if class != self.endgame_class || self.endgame_deadline.is_none() {
            let deadline = self.ply + limit;
            self.endgame_deadline = Some(self.endgame_deadline.map_or(deadline, |d| d.min(deadline)));
        }
        self.endgame_class = class;
    }

    /// Plays a legal move, keeping the draw counters.
    pub fn play_move(&mut self, mv: Move) {
        let man = self.pos.kings & (1u64 << mv.from) == 0;
        if man || mv.captured != 0 {
            self.history.clear();
            self.quiet = 0;
        } else {
            self.history.push(self.pos);
            self.quiet += 1;
        }
        self.pos.play(mv);
        self.ply += 1;
        self.update_endgame();
    }

    fn status_of(&self, has_move: bool) -> Status {
        if !has_move {
            let winner = self.player(self.pos.side.other());
            return Status::win(
                winner,
                if self.pos.pieces(self.pos.side) == 0 { "no pieces left" } else { "no legal move" },
            );
        }
        let l = &self.limits;
        if l.repetitions > 0 {
            let seen = 1 + self.history.iter().filter(|p| **p == self.pos).count() as u32;
            if seen >= l.repetitions {
                return Status::draw("repetition");
            }
        }
        if l.quiet_plies > 0 && self.quiet >= l.quiet_plies {
            return Status::draw("moves without a man move or capture");
        }
        if self.endgame_deadline.is_some_and(|d| self.ply >= d) {
            return Status::draw(if self.endgame_class == 3 {
                "one king against three pieces"
            } else {
                "one king against two pieces"
            });
        }
        Status::ONGOING
    }

    fn ongoing(&self) -> bool {
        self.status_of(true).is_ongoing()
    }

    /// Legal moves with their PDN texts.
    pub fn moves_with_text(&self) -> Vec<(Move, String)> {
        let mut caps = WithPaths::default();
        self.pos.captures(&self.rules, &mut caps);
        if caps.0.is_empty() {
            return self.moves().into_iter().map(|m| (m, pdn::move_text::<G>(&m, &[], false))).collect();
        }
        caps.0
            .iter()
            .map(|(m, path)| {
                let ambiguous = caps.0.iter().filter(|(o, _)| o.from == m.from && o.to == m.to).count() > 1;
                (*m, pdn::move_text::<G>(m, path, ambiguous))
            })
            .collect()
    }

    /// The board, with the playable squares' numbers beside it (moves are
    /// typed as those numbers, `32-28`), as draughts diagrams show them.
    fn render(&self) -> String {
        let mut s = String::new();
        let w = G::WIDTH;
        for row in 0..w {
            let mut key = String::from("    ");
            for col in 0..w {
                let dark = (row + col) % 2 == 1;
                if !dark {
                    s.push_str("  ");
                    key.push_str("   ");
                    continue;
                }
                let idx = row * G::PER_ROW + col / 2;
                key.push_str(&format!("{:>3}", idx + 1));
                let b = 1u64 << G::bit(idx);
                let king = self.pos.kings & b != 0;
                s.push(' ');
                s.push(match (self.pos.white & b != 0, self.pos.black & b != 0) {
                    (true, _) if king => 'W',
                    (true, _) => 'w',
                    (_, true) if king => 'B',
                    (_, true) => 'b',
                    _ => '.',
                });
            }
            s.push_str(key.trim_end());
            s.push('\n');
        }
        s.push_str(&format!("FEN {}\n", pdn::write_fen(&self.pos)));
        s
    }
}

impl<G: Geometry> Game for DraughtsGame<G> {
    fn to_move(&self) -> u32 {
        self.player(self.pos.side)
    }

    fn status(&self) -> Status {
        let mut any = Vec::new();
        self.pos.legal_moves(&self.rules, &mut any);
        self.status_of(!any.is_empty())
    }

    fn legal_moves(&self, out: &mut Vec<u64>) {
        if !self.ongoing() {
            return;
        }
        let mut moves = Vec::with_capacity(48);
        self.pos.legal_moves(&self.rules, &mut moves);
        out.extend(moves.iter().map(encode::<G>));
    }

    fn is_legal(&self, mv: u64) -> bool {
        self.ongoing() && self.find(mv).is_some()
    }

    fn move_cells(&self, mv: u64) -> Option<Vec<u32>> {
        let m = self.find(mv).filter(|_| self.ongoing())?;
        Some(vec![cell_of::<G>(G::idx(m.from as u32)), cell_of::<G>(G::idx(m.to as u32))])
    }

    fn play(&mut self, mv: u64) {
        self.play_move(decode::<G>(mv));
    }

    fn move_text(&self, mv: u64, _viewer: Viewer) -> String {
        self.moves_with_text().into_iter().find(|(m, _)| encode::<G>(m) == mv).map(|(_, t)| t).unwrap_or_default()
    }

    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        let t = text.trim();
        // No move names more squares than the board has, however spaced:
        // a longer text is refused before it is split.
        if t.len() > 8 * (G::SQUARES as usize + 2) {
            let start: String = t.chars().take(24).collect();
            return Err(Error::bad_notation(format!("'{start}...' ({} bytes) is not a draughts move", t.len())));
        }
        let numbers: Vec<&str> = t.split(['-', 'x', 'X', ':']).collect();
        let squares: Vec<u32> =
            numbers.iter().map(|n| n.trim().parse::<u32>()).collect::<Result<_, _>>().map_err(|_| {
                Error::bad_notation(format!("'{t}' is not a draughts move (use 32-28, 28x19 or 28x19x10)"))
            })?;
        if squares.len() < 2 || squares.iter().any(|&n| n == 0 || n > G::SQUARES) {
            return Err(Error::bad_notation(format!("'{t}' is not a draughts move on squares 1-{}", G::SQUARES)));
        }
        let moves = self.moves_with_text();
        let illegal = || Error::illegal_move(format!("'{t}' is not a legal move in {}", pdn::write_fen(&self.pos)));
        if let Some((m, _)) = moves.iter().find(|(_, text)| text == t) {
            return Ok(encode::<G>(m));
        }
        let (from, to) = (squares[0], squares[squares.len() - 1]);
        let sq = |b: u8| pdn::square::<G>(b);
        let same_ends: Vec<&Move> =
            moves.iter().map(|(m, _)| m).filter(|m| sq(m.from) == from && sq(m.to) == to).collect();
        if squares.len() == 2 {
            return match same_ends.as_slice() {
                [m] => Ok(encode::<G>(m)),
                [] => Err(illegal()),
                _ => Err(Error::illegal_move(format!("'{t}' is ambiguous: give the intermediate squares"))),
            };
        }
        // The Hub form: origin, destination, then the captured squares.
        let (hub_from, hub_to) = (squares[0], squares[1]);
        let mut captured: Vec<u32> = squares[2..].to_vec();
        captured.sort_unstable();
        let hub = moves
            .iter()
            .map(|(m, _)| m)
            .find(|m| sq(m.from) == hub_from && sq(m.to) == hub_to && pdn::captured_squares::<G>(m) == captured);
        hub.map(encode::<G>).ok_or_else(illegal)
    }

    fn position_text(&self) -> String {
        // The draw counters follow the PDN FEN only when they are running,
        // so ordinary positions stay plain PDN (see `from_text`).
        let mut text = pdn::write_fen(&self.pos);
        if self.quiet > 0 {
            text.push_str(&format!(":Q{}", self.quiet));
        }
        if let Some(d) = self.endgame_deadline {
            text.push_str(&format!(":E{}", d.saturating_sub(self.ply)));
        }
        let seen = 1 + self.history.iter().filter(|p| **p == self.pos).count();
        if seen > 1 {
            text.push_str(&format!(":R{seen}"));
        }
        text
    }

    fn observe(&self, viewer: Viewer) -> Observation {
        let mut pieces = Vec::new();
        for idx in 0..G::SQUARES {
            let b = 1u64 << G::bit(idx);
            let side = if self.pos.white & b != 0 {
                Side::White
            } else if self.pos.black & b != 0 {
                Side::Black
            } else {
                continue;
            };
            let king = self.pos.kings & b != 0;
            pieces.push(PieceView {
                cell: cell_of::<G>(idx),
                owner: self.player(side),
                kind: if king { "king" } else { "man" }.into(),
                // A man is a plain disc, as on a real board; a king is marked.
                label: if king { "K" } else { "" }.into(),
                stack: Vec::new(),
            });
        }
        let viewer = match viewer {
            Viewer::Player(p) => p.to_string(),
            Viewer::Spectator => "spectator".into(),
            Viewer::Referee => "referee".into(),
        };
        Observation {
            text: self.render(),
            view: ObservationView { viewer, to_move: self.to_move(), pieces, ..Default::default() },
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        crate::position::perft(&self.pos, &self.rules, depth)
    }

    fn evaluate(&self, player: u32) -> Option<f64> {
        let side = if self.player(Side::White) == player { Side::White } else { Side::Black };
        let value = |s: Side| {
            let p = self.pos.pieces(s);
            (p & !self.pos.kings).count_ones() as f64 + 3.0 * (p & self.pos.kings).count_ones() as f64
        };
        Some(((value(side) - value(side.other())) / 5.0).tanh())
    }

    /// `hub_move` `{"move": id}` gives the move as the Hub protocol writes it;
    /// `hub_position` gives the position string.
    fn call_json(&mut self, method: &str, args: &serde_json::Value) -> Result<serde_json::Value, Error> {
        match method {
            "hub_move" => {
                let m = args["move"]
                    .as_u64()
                    .and_then(|id| self.find(id))
                    .ok_or_else(|| Error::illegal_move("hub_move: not a legal move id"))?;
                Ok(pdn::hub_text::<G>(&m).into())
            }
            "hub_position" => Ok(pdn::hub_position(&self.pos).into()),
            _ => Err(Error::unsupported(format!("unknown call '{method}' (draughts offers hub_move, hub_position)"))),
        }
    }
}
