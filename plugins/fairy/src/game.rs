//! The kit's `Game` for an ini variant: legal moves, the ends the rules
//! give (checkmate and stalemate values, extinction, flags, check counts,
//! repetitions that lose: perpetual check, `nFoldValue`), draws to claim
//! (n-fold repetition, the n-move rule, the counting rules), and the
//! notation.

use arbiter_api::kit::Game;
use arbiter_api::schema::{BlockedView, HandView, Observation, ObservationView, PieceView};
use arbiter_api::{Status, Viewer};

use crate::position::{Color, Move, Position};
use crate::rules::{End, MaterialCounting};

/// A game in progress. Its legal moves and status are worked out once per
/// position (when it is reached), since every caller asks for them.
#[derive(Clone, Debug)]
pub struct FairyGame {
    /// The position now.
    pub pos: Position,
    /// Keys of the positions before, for repetitions.
    history: Vec<u64>,
    /// With `perpetualCheckIllegal`, `moveRepetitionIllegal` or
    /// `chasingRule`, each position before: whether its side to move was
    /// in check.
    checked: Vec<bool>,
    /// With `moveRepetitionIllegal` or `chasingRule`, each move played and
    /// whether it took.
    plies: Vec<(Move, bool)>,
    /// With `chasingRule`, the position the game started from (the
    /// positions of a repetition are played again from it to judge chases).
    root: Option<std::sync::Arc<Position>>,
    /// The last move played, if any.
    last: Option<Move>,
    /// For shatar, each position before: whether its side to move was in
    /// check, and by a knight, rook or bers (see [`FairyGame::shak_now`]).
    shaks: Vec<Option<bool>>,
    /// The legal moves if the game goes on, else none.
    legal: Vec<Move>,
    /// How the game stands.
    status: Status,
    /// Each legal move by its coordinates and by its notation (without
    /// marks), made the first time a move is read here.
    pub(crate) texts: std::sync::OnceLock<std::collections::HashMap<String, Move>>,
    /// The legal moves' numbers, made the first time a move is written
    /// here: a move's rivals for its notation are looked up, not searched.
    pub(crate) ids: std::sync::OnceLock<std::collections::HashSet<u64>>,
}

impl FairyGame {
    /// A game from `pos`.
    pub fn new(pos: Position) -> FairyGame {
        let root = pos.rules.chasing.then(|| std::sync::Arc::new(pos.clone()));
        let mut game = FairyGame {
            pos,
            history: Vec::new(),
            checked: Vec::new(),
            plies: Vec::new(),
            root,
            last: None,
            shaks: Vec::new(),
            legal: Vec::new(),
            status: Status::ONGOING,
            texts: std::sync::OnceLock::new(),
            ids: std::sync::OnceLock::new(),
        };
        game.refresh();
        game
    }

    /// Works out the legal moves and the status of the position reached.
    fn refresh(&mut self) {
        let moves = self.moves();
        self.status = self.status_with(&moves);
        self.legal = if self.status.is_ongoing() { moves } else { Vec::new() };
    }

    /// The legal moves, ignoring whether the game has ended.
    fn moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.pos.legal_moves(&mut out);
        out
    }

    /// How the game stands, given whether the side to move has a move.
    fn status_with(&self, moves: &[Move]) -> Status {
        let pos = &self.pos;
        let rules = &pos.rules;
        let side = pos.side;
        // Only the side that just moved can have given its last check.
        if rules.check_counting && pos.checks_left[side.opponent() as usize] == 0 {
            return Status::win(side.opponent().seat(), "check count");
        }
        // Pseudo-royal pieces cannot be taken, so extinction applies to them only where captures explode.
        if let Some(end) = rules.extinction.filter(|_| !rules.pseudo_royal || rules.blast) {
            // The side to move's opponent first; with extinctionClaim only it.
            let sides: &[Color] = if rules.extinction_claim { &[side.opponent()] } else { &[side.opponent(), side] };
            for &c in sides {
                if self.extinct(c) {
                    return verdict(c, end, "extinction");
                }
            }
        }
        if let Some(kind) = rules.flag {
            let (us, them) = (pos.side, pos.side.opponent());
            let reached = |c: Color| {
                let there: Vec<usize> = rules.flag_regions[c as usize]
                    .iter()
                    .copied()
                    .filter(|&sq| pos.board[sq].is_some_and(|p| p.color == c && p.kind as usize == kind))
                    .collect();
                // With flagPieceSafe a lone piece there counts only if it cannot be taken.
                let must_be_safe = rules.flag_piece_safe && (!rules.flag_move || c == them);
                match there.as_slice() {
                    [] => false,
                    [sq] if must_be_safe => !pos.attacked(*sq, c.opponent()),
                    _ => true,
                }
            };
            let royal = rules.pieces[kind].royal;
            // With flagMove a flag counts once the other side has had its
            // move: the side to move has won if its piece still stands there
            // (a draw if White's king was answered by Black's, as in racing
            // kings, or if both stand safe on their flags).
            if (rules.flag_move || rules.flag_piece_safe) && reached(us) {
                let both_count =
                    (rules.flag_move && us == Color::White && royal) || (rules.flag_piece_safe && !rules.flag_move);
                return if both_count && reached(them) {
                    Status::draw("both flags reached")
                } else {
                    Status::win(us.seat(), "flag reached")
                };
            }
            // A flag reached ends the game at once, unless flagMove leaves
            // a piece that is not a king to be taken, or Black's king may
            // still answer White's.
            if (!rules.flag_move || rules.flag_piece_safe || royal) && reached(them) {
                let answer =
                    rules.flag_move && us == Color::Black && !pos.in_check(us) && self.can_reach_flag(moves, kind);
                if !answer {
                    return Status::win(them.seat(), "flag reached");
                }
            }
        }
        // Two passes in a row, or a full board, end the game: a draw, or
        // the material count's result.
        let full = || pos.board[..rules.width as usize * rules.height as usize].iter().all(Option::is_some);
        if pos.passes >= 2 || (rules.adjudicate_full_board && full()) {
            let reason = if pos.passes >= 2 { "two passes" } else { "full board" };
            return self.counted().unwrap_or(Status::draw(reason));
        }
        // Kings left facing by a pass (bikjang) end it likewise.
        if rules.bikjang && pos.bikjang_plies >= 2 {
            return self.counted().unwrap_or(Status::draw("bikjang"));
        }
        // Sittuyin: a king and a pawn that could only promote are stalemated (a draw).
        if rules.sittuyin_promotion && !moves.is_empty() && self.on_board(side) == 2 && !pos.in_check(side) {
            let pawn = |sq: usize| pos.board[sq].is_some_and(|p| p.color == side && rules.pieces[p.kind as usize].pawn);
            let promotes =
                |m: &Move| matches!(m, Move::Normal { from, promotion: Some(_), .. } if pawn(*from as usize));
            if moves.iter().all(promotes) {
                return Status::draw("stalemate (only a promotion)");
            }
        }
        if moves.is_empty() {
            if pos.in_check(pos.side) || pos.pseudo_royal_attacked(pos.side) || pos.duple_checked(pos.side) {
                if rules.shatar_mate {
                    return self.shatar_mate();
                }
                if rules.pawn_drop_mate_illegal && self.mated_by_pawn_drop() {
                    return Status::win(side.seat(), "mate by a pawn drop");
                }
                return verdict(side, rules.checkmate, "checkmate");
            }
            let mut end = rules.stalemate;
            if rules.stalemate_piece_count {
                // Whoever has fewer pieces gets the stalemate's value.
                let (mine, theirs) = (self.on_board(pos.side), self.on_board(pos.side.opponent()));
                end = match mine.cmp(&theirs) {
                    std::cmp::Ordering::Equal => End::Draw,
                    std::cmp::Ordering::Less => end,
                    std::cmp::Ordering::Greater => end.reversed(),
                };
            }
            return match (end, self.counted()) {
                (End::Draw, Some(status)) => status,
                _ => verdict(side, end, "stalemate"),
            };
        }
        if rules.move_repetition_illegal && self.moved_back_and_forth() {
            return Status::win(side.seat(), "move repetition");
        }
        let mut status = Status::ONGOING;
        let reason = if let Some(since) = self.n_fold_since() {
            if let Some(decided) = self.repetition_decided(since) {
                return decided;
            }
            "repetition"
        } else if rules.n_move_plies > 0
            && pos.halfmove >= rules.n_move_plies
            // The allowance walks the count's plies: asked only once the count is reached.
            && pos.halfmove >= rules.n_move_plies + self.check_allowance()
        {
            "n-move rule"
        } else if pos.counting_limit > 0 && pos.counting_ply > pos.counting_limit {
            "counting rule"
        } else {
            return status;
        };
        // Under material counting a draw the rules give is decided by the count.
        if let Some(counted) = self.counted() {
            return counted;
        }
        status.claimable = reason;
        status
    }

    /// Where the positions repeated `nFoldRule` times began: the index in
    /// the history of the earliest of the occurrences that make the count
    /// with the position now, if they do.
    fn n_fold_since(&self) -> Option<usize> {
        let n = self.pos.rules.n_fold as usize;
        let now = self.pos.key();
        let before = n.checked_sub(1).filter(|_| n > 0)?;
        if before == 0 {
            return Some(self.history.len());
        }
        self.history.iter().enumerate().rev().filter(|(_, &k)| k == now).map(|(i, _)| i).nth(before - 1)
    }

    /// What a repetition since history index `since` gives when it is not
    /// a draw: a loss for the side that checked in every move of it
    /// (`perpetualCheckIllegal`; a draw if both did), else `nFoldValue` for
    /// the player to move (White's, reversed for Black, when absolute).
    fn repetition_decided(&self, since: usize) -> Option<Status> {
        let (pos, rules) = (&self.pos, &self.pos.rules);
        let side = pos.side;
        if rules.perpetual_check_illegal {
            let now = self.history.len();
            // Each position of the repetition, with whether its mover was in
            // check; the even ones from now back have `side` to move.
            let checked = |j: usize| if j == now { pos.in_check(side) } else { self.checked[j] };
            let (mut us_checked, mut them_checked) = (true, true);
            for j in since..=now {
                match (now - j) % 2 {
                    0 => us_checked &= checked(j),
                    _ => them_checked &= checked(j),
                }
            }
            match (us_checked, them_checked) {
                (true, true) => return Some(Status::draw("perpetual check by both")),
                (true, false) => return Some(Status::win(side.seat(), "perpetual check")),
                (false, true) => return Some(verdict_loss(side, "perpetual check")),
                (false, false) => {}
            }
        }
        if rules.chasing {
            if let Some(decided) = self.chase_decided(since) {
                return Some(decided);
            }
        }
        let value = match (rules.n_fold_value_absolute, side) {
            (true, Color::Black) => rules.n_fold_value.reversed(),
            _ => rules.n_fold_value,
        };
        (value != End::Draw).then(|| verdict(side, value, "repetition"))
    }

    /// Under the chasing rule, the plies the n-move rule's count is
    /// lengthened by for long runs of checks, as Fairy-Stockfish counts
    /// them: twice the checks beyond ten that either side gave since the
    /// count began (from the twentieth ply on).
    fn check_allowance(&self) -> u32 {
        let n = self.history.len();
        if !self.pos.rules.chasing || n < 20 {
            return 0;
        }
        let end = (self.pos.halfmove as usize).min(n);
        let checked = |k: usize| usize::from(if k == n { self.pos.in_check(self.pos.side) } else { self.checked[k] });
        let (mut them, mut us) = (checked(n), checked(n - 1));
        for i in (2..end).step_by(2) {
            them += checked(n - i);
            us += checked(n - i - 1);
        }
        2 * (them.max(us).saturating_sub(10)) as u32
    }

    /// Xiangqi's chases in a repetition since history index `since`: the
    /// side that chased one piece with every move of it loses (a draw if
    /// both did), as Fairy-Stockfish judges it; `None` if neither did.
    fn chase_decided(&self, since: usize) -> Option<Status> {
        use crate::position::chase::before_move;
        let root = self.root.as_ref()?;
        let n = self.history.len();
        let end = (self.pos.halfmove as usize).min(n);
        if n < 4 || n - since < 4 {
            return None;
        }
        // The positions since a ply before the repetition, and what each
        // position's last move chased.
        let first = since.saturating_sub(2);
        let mut pos = (**root).clone();
        for &(m, _) in &self.plies[..first] {
            pos.apply(m);
        }
        let mut chased = vec![0; first + 1];
        for &(m, _) in &self.plies[first..] {
            let before = pos.clone();
            pos.apply(m);
            chased.push(pos.chased(&before, m));
        }
        let mv = |k: usize| self.plies[k - 1].0;
        let mut them = before_move(chased[n], mv(n - 1)) & chased[n - 2];
        let mut us = before_move(chased[n - 1], mv(n - 2)) & chased[n - 3];
        let mut i = 4;
        while i <= n - since {
            if i != n {
                them = before_move(them, mv(n - i + 1)) & chased[n - i];
            }
            if i == n - since {
                break;
            }
            if i < end {
                us = before_move(us, mv(n - i)) & chased[n - i - 1];
            }
            i += 2;
        }
        let side = self.pos.side;
        match (them != 0, us != 0) {
            (false, false) => None,
            (true, false) => Some(Status::win(side.seat(), "perpetual chase")),
            (false, true) => Some(verdict_loss(side, "perpetual chase")),
            (true, true) => Some(Status::draw("perpetual chase by both")),
        }
    }

    /// Janggi's move repetition (`moveRepetitionIllegal`), as
    /// Fairy-Stockfish judges it for Kakao Janggi: the player who just
    /// moved took a piece that can enter the enemy palace back and forth
    /// (or passed, then moved back and forth) twice, with no capture and
    /// no check on the way; the player to move wins.
    fn moved_back_and_forth(&self) -> bool {
        let (pos, rules) = (&self.pos, &*self.pos.rules);
        let n = self.history.len();
        let end = (pos.halfmove as usize).min(n);
        if rules.n_fold == 0 || end < 4 {
            return false;
        }
        // Position k's move (the one that reached it), whether it took, and
        // whether its player to move was in check.
        let mv = |k: usize| k.checked_sub(1).map(|i| self.plies[i].0);
        let took = |k: usize| self.plies[k - 1].1;
        let checked = |k: usize| if k == n { pos.in_check(pos.side) } else { self.checked[k] };
        let reverse = |m: Option<Move>| match m {
            Some(Move::Normal { from, to, promotion: None }) => {
                Some(Move::Normal { from: to, to: from, promotion: None })
            }
            _ => None,
        };
        let ends = |m: Option<Move>| match m {
            Some(Move::Normal { from, to, .. }) => Some((from, to)),
            Some(Move::Pass { at }) => Some((at, at)),
            _ => None,
        };
        let Some(Move::Normal { to, promotion: None, .. }) = mv(n) else { return false };
        if checked(n - 1) || checked(n - 3) {
            return false;
        }
        // Only a piece whose region meets the enemy king's (not an advisor, not the king).
        let (us, them) = (pos.side as usize, pos.side.opponent() as usize);
        let Some(piece) = pos.board[to as usize] else { return false };
        let king = rules.pieces.iter().position(|p| p.royal);
        let meets =
            match (&rules.mobility[them][piece.kind as usize], king.and_then(|k| rules.mobility[us][k].as_ref())) {
                (Some(a), Some(b)) => a.iter().zip(b).any(|(x, y)| *x && *y),
                (Some(a), None) | (None, Some(a)) => a.contains(&true),
                (None, None) => true,
            };
        if !meets {
            return false;
        }
        let mut count = match mv(n - 2) {
            m if m.is_some() && m == reverse(mv(n)) => 2,
            Some(Move::Pass { .. }) => 1,
            _ => return false,
        };
        let mut i = 4;
        while i <= end && count > 0 {
            if i < end && checked(n - i - 1) {
                return false;
            }
            if count < 4 {
                let back = if count == 1 { mv(n) } else { mv(n - i + 2) };
                count = if mv(n - i).is_some() && mv(n - i) == reverse(back) { count + 1 } else { 0 };
            } else {
                let (from, _) = ends(mv(n - i + 2)).unwrap_or((u16::MAX, u16::MAX));
                return n > i && !took(n - i) && ends(mv(n - i)).is_some_and(|(_, to)| to == from);
            }
            i += 2;
        }
        false
    }

    /// Shatar's mate: by knights alone it loses for the mating side; it
    /// counts only if a check in the unbroken series of checks before it
    /// came from a knight, rook or bers; else it is a draw.
    fn shatar_mate(&self) -> Status {
        let pos = &self.pos;
        let (side, them) = (pos.side, pos.side.opponent());
        let checkers = pos.royal_square(side).map(|k| pos.attackers(k, them)).unwrap_or_default();
        let kind = |sq: usize| pos.board[sq].map(|p| pos.rules.pieces[p.kind as usize].name.as_str());
        if checkers.iter().all(|&sq| kind(sq) == Some("knight")) {
            return Status::win(side.seat(), "mate by a knight");
        }
        // The checks of this series, the latest first: this one, then two plies back each.
        let mut shaks = std::iter::once(self.shak_now()).chain(self.shaks.iter().rev().skip(1).step_by(2).copied());
        let mate = shaks.by_ref().take_while(|s| s.is_some()).any(|s| s == Some(true));
        if mate {
            verdict_loss(side, "checkmate")
        } else {
            Status::draw("mate without shak")
        }
    }

    /// Whether the last move dropped a shogi pawn that alone gives the check.
    fn mated_by_pawn_drop(&self) -> bool {
        let pos = &self.pos;
        let shogi_pawn = |k: u8| pos.rules.pieces[k as usize].name == "shogiPawn";
        let Some(Move::Drop { kind, .. }) = self.last else { return false };
        let checkers = pos.royal_square(pos.side).map(|k| pos.attackers(k, pos.side.opponent())).unwrap_or_default();
        shogi_pawn(kind) && checkers.iter().all(|&sq| pos.board[sq].is_some_and(|p| shogi_pawn(p.kind)))
    }

    /// For shatar: whether the side to move is in check, and if so whether
    /// a knight, rook or bers gives it (a shak).
    fn shak_now(&self) -> Option<bool> {
        let pos = &self.pos;
        let king = pos.royal_square(pos.side)?;
        let checkers = pos.attackers(king, pos.side.opponent());
        let shak = |sq: &usize| {
            pos.board[*sq]
                .is_some_and(|p| matches!(pos.rules.pieces[p.kind as usize].name.as_str(), "knight" | "rook" | "bers"))
        };
        (!checkers.is_empty()).then(|| checkers.iter().any(shak))
    }

    /// The result material counting gives a drawn position, if the variant counts.
    fn counted(&self) -> Option<Status> {
        Some(match self.pos.rules.material_counting? {
            MaterialCounting::WhiteDrawOdds => Status::win(0, "draw odds"),
            MaterialCounting::BlackDrawOdds => Status::win(1, "draw odds"),
            MaterialCounting::Janggi => {
                let points = |name: &str| match name {
                    "rook" => 13,
                    "janggiCannon" => 7,
                    "horse" => 5,
                    "janggiElephant" | "wazir" => 3,
                    "soldier" => 2,
                    _ => 0,
                };
                let score: i32 = self
                    .pos
                    .board
                    .iter()
                    .flatten()
                    .filter(|p| p.color != Color::Wall)
                    .map(|p| {
                        let sign = if p.color == Color::White { 1 } else { -1 };
                        sign * points(&self.pos.rules.pieces[p.kind as usize].name)
                    })
                    .sum();
                // Black's komi of 1.5 points: White needs more than one point's lead.
                Status::win(if score > 1 { 0 } else { 1 }, "material count")
            }
            MaterialCounting::Unweighted => {
                let (white, black) = (self.on_board(Color::White), self.on_board(Color::Black));
                match white.cmp(&black) {
                    std::cmp::Ordering::Greater => Status::win(0, "material count"),
                    std::cmp::Ordering::Less => Status::win(1, "material count"),
                    std::cmp::Ordering::Equal => Status::draw("material count"),
                }
            }
        })
    }

    /// How many pieces `color` has on the board (material counting leaves the hand out).
    fn on_board(&self, color: Color) -> usize {
        self.pos.board.iter().flatten().filter(|p| p.color == color).count()
    }

    /// How many pieces `color` has of the kinds `counts` admits, on the board and in hand.
    fn count(&self, color: Color, counts: impl Fn(usize) -> bool) -> u32 {
        let on_board = self.pos.board.iter().flatten().filter(|p| p.color == color && counts(p.kind as usize)).count();
        let in_hand: u32 =
            self.pos.hands[color as usize].iter().enumerate().filter(|(k, _)| counts(*k)).map(|(_, &n)| n as u32).sum();
        on_board as u32 + in_hand
    }

    /// Whether `color` is extinct: with every kind counted (`*`), its pieces
    /// are down to `extinctionPieceCount` while the opponent keeps
    /// `extinctionOpponentPieceCount`; with kinds named, one of them is gone
    /// down to that count.
    fn extinct(&self, color: Color) -> bool {
        let rules = &self.pos.rules;
        let (most, least) = (rules.extinction_count, rules.extinction_opponent_count);
        if rules.extinction_kinds.is_empty() {
            return self.count(color, |_| true) <= most && self.count(color.opponent(), |_| true) >= least;
        }
        rules
            .extinction_kinds
            .iter()
            .any(|&k| self.count(color, |x| x == k) <= most && self.count(color.opponent(), |x| x == k) >= least)
    }

    /// Whether one of `moves` puts the mover's flag piece in its region.
    fn can_reach_flag(&self, moves: &[Move], kind: usize) -> bool {
        let region = &self.pos.rules.flag_regions[self.pos.side as usize];
        moves.iter().any(|&m| match m {
            Move::Normal { from, to, .. } => {
                self.pos.board[from as usize].is_some_and(|p| p.kind as usize == kind)
                    && region.contains(&(to as usize))
            }
            _ => false,
        })
    }

    /// The legal moves (none once the game has ended).
    pub fn legal(&self) -> &[Move] {
        &self.legal
    }

    /// A move's coordinates, as Fairy-Stockfish's UCI writes them (`e2e4`,
    /// `P@e4`, `h2b8+`): what engines read and write.
    pub fn uci(&self, mv: u64) -> String {
        Move::from_id(mv).map(|m| self.pos.uci(m)).unwrap_or_default()
    }

    /// Plays a legal move, keeping the counters the rules need.
    pub fn play_move(&mut self, m: Move) {
        self.texts = std::sync::OnceLock::new();
        self.ids = std::sync::OnceLock::new();
        let mover = self.pos.side;
        self.history.push(self.pos.key());
        let rules = &self.pos.rules;
        if rules.perpetual_check_illegal || rules.move_repetition_illegal || rules.chasing {
            self.checked.push(self.pos.in_check(mover));
        }
        if rules.move_repetition_illegal || rules.chasing {
            self.plies.push((m, self.pos.is_capture(m)));
        }
        self.last = Some(m);
        if self.pos.rules.shatar_mate {
            self.shaks.push(self.shak_now());
        }
        self.pos.apply(m);
        if self.pos.rules.check_counting && self.pos.in_check(mover.opponent()) {
            self.pos.checks_left[mover as usize] = self.pos.checks_left[mover as usize].saturating_sub(1);
        }
        self.refresh();
    }
}

/// What `end` for `player` makes of the game.
fn verdict(player: Color, end: End, reason: &'static str) -> Status {
    match end {
        End::Win => Status::win(player.seat(), reason),
        End::Loss => Status::win(player.opponent().seat(), reason),
        End::Draw => Status::draw(reason),
    }
}

/// A win for the opponent of `side`.
fn verdict_loss(side: Color, reason: &'static str) -> Status {
    Status::win(side.opponent().seat(), reason)
}

impl Game for FairyGame {
    fn to_move(&self) -> u32 {
        self.pos.side.seat()
    }

    fn status(&self) -> Status {
        self.status
    }

    fn legal_moves(&self, out: &mut Vec<u64>) {
        out.extend(self.legal.iter().map(|m| m.id()));
    }

    fn is_legal(&self, mv: u64) -> bool {
        self.legal.iter().any(|m| m.id() == mv)
    }

    fn play(&mut self, mv: u64) {
        if let Some(m) = Move::from_id(mv) {
            self.play_move(m);
        }
    }

    fn move_text(&self, mv: u64, _viewer: Viewer) -> String {
        Move::from_id(mv).map(|m| self.notation(m)).unwrap_or_default()
    }

    fn parse_move(&self, text: &str) -> Result<u64, arbiter_api::Error> {
        self.read_move(text).map(Move::id)
    }

    fn position_text(&self) -> String {
        self.pos.fen()
    }

    fn observe(&self, viewer: Viewer) -> Observation {
        let rules = &self.pos.rules;
        let pieces = self
            .pos
            .board
            .iter()
            .enumerate()
            .filter_map(|(sq, p)| {
                let p = p.filter(|p| p.color != Color::Wall)?;
                let label = rules.label(p.kind as usize, p.color == Color::White, p.base.map(usize::from));
                Some(PieceView {
                    cell: sq as u32,
                    owner: p.color.seat(),
                    kind: rules.pieces[p.kind as usize].name.clone(),
                    label,
                    stack: Vec::new(),
                })
            })
            .collect();
        let mut notes = Vec::new();
        // Pockets and hands, in the order FEN writes them (a free
        // hand, ataxx's, is no hand).
        let mut hands = Vec::new();
        if (rules.drops && !rules.free_drops) || rules.gating {
            let mut kinds: Vec<usize> = (0..rules.pieces.len()).collect();
            kinds.sort_by_key(|&k| std::cmp::Reverse(rules.pieces[k].order));
            for c in Color::SIDES {
                for &k in kinds.iter().filter(|&&k| self.pos.hands[c as usize][k] > 0) {
                    hands.push(HandView {
                        owner: c.seat(),
                        kind: rules.pieces[k].name.clone(),
                        label: rules.label(k, c == Color::White, None),
                        count: u32::from(self.pos.hands[c as usize][k]),
                    });
                }
            }
        }
        let wall = if rules.walling == Some(crate::rules::Walling::Duck) { "duck" } else { "wall" };
        let blocked = (0..rules.width as usize * rules.height as usize)
            .filter(|&sq| self.pos.board[sq].is_some_and(|p| p.color == Color::Wall))
            .map(|sq| BlockedView { cell: sq as u32, kind: wall.into() })
            .collect();
        if rules.check_counting {
            notes.push(format!("checks to give: White {}, Black {}", self.pos.checks_left[0], self.pos.checks_left[1]));
        }
        let highlights = if self.pos.in_check(self.pos.side) {
            self.pos.royal_square(self.pos.side).map(|k| vec![k as u32]).unwrap_or_default()
        } else {
            Vec::new()
        };
        Observation {
            text: self.pos.fen(),
            view: ObservationView {
                viewer: ObservationView::viewer_name(viewer),
                to_move: self.pos.side.seat(),
                pieces,
                highlights,
                notes,
                hands,
                blocked,
            },
        }
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if depth == 1 {
            return self.legal.len() as u64;
        }
        self.legal
            .iter()
            .map(|&m| {
                let mut child = self.clone();
                child.play_move(m);
                child.perft(depth - 1)
            })
            .sum()
    }

    fn move_cells(&self, mv: u64) -> Option<Vec<u32>> {
        Some(match Move::from_id(mv)? {
            // The move's cells, then the wall's.
            Move::Walled { base, wall } => {
                let mut cells = self.move_cells(base)?;
                cells.push(wall as u32);
                cells
            }
            Move::Normal { from, to, .. }
            | Move::EnPassant { from, to }
            | Move::Castle { from, to, .. }
            | Move::Demote { from, to }
            | Move::Gate { from, to, .. }
            | Move::GateCastle { from, to, .. } => vec![from as u32, to as u32],
            Move::Drop { to, .. } | Move::Pass { at: to } => vec![to as u32],
        })
    }

    /// Engines read and write coordinates.
    fn uci_move(&self, mv: u64) -> Option<String> {
        Move::from_id(mv).map(|m| self.pos.uci(m))
    }

    fn call_json(&mut self, method: &str, _args: &serde_json::Value) -> Result<serde_json::Value, arbiter_api::Error> {
        match method {
            // What Fairy-Stockfish calls the variant, and the file defining it
            // when it is not one of its built-ins (sent as VariantPath).
            // Chess960 castling: engines are told UCI_Chess960 as for the chess plugin.
            "chess960" => Ok(serde_json::Value::Bool(self.pos.rules.chess960)),
            "uci_variant" => Ok(serde_json::json!({
                "name": self.pos.rules.id,
                "path": self.pos.rules.source.clone(),
            })),
            // What a tournament pins besides the plugin's build.
            "definition" => Ok(serde_json::Value::String(self.pos.rules.definition.clone())),
            _ => Err(arbiter_api::Error::unsupported(format!(
                "unknown call '{method}' (ini variants offer uci_variant, chess960 and definition)"
            ))),
        }
    }
}
