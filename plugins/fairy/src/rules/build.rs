//! Reading a section's keys into [`Rules`]: each key named once, where it
//! is read, with its default; a key no read asks for is refused. The keys
//! are read by family: the board and its pieces, then how pieces move,
//! promote and drop, then how the game ends and how moves are written.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use super::{
    reach_index, Counting, Enclosing, End, MaterialCounting, Notation, Palace, PieceDef, Points, Rules, Walling,
    MOST_KINDS, REACH_FILES,
};
use crate::betza::{self, Hop, Step};
use crate::ini::IniError;

/// The built-in pieces: name, letter, Betza, Fairy-Stockfish's order.
const BUILT_IN: &[(&str, char, &str, u32)] = &[
    ("pawn", 'p', "fmWfceF", 1),
    ("knight", 'n', "N", 2),
    ("bishop", 'b', "B", 3),
    ("rook", 'r', "R", 4),
    ("queen", 'q', "Q", 5),
    ("fers", 'f', "F", 6),
    ("alfil", 'e', "A", 7),
    ("fersAlfil", 'e', "FA", 8),
    ("silver", 's', "FfW", 9),
    ("aiwok", 'a', "RNF", 10),
    ("bers", 'c', "RF", 11),
    ("archbishop", 'a', "BN", 12),
    ("chancellor", 'c', "RN", 13),
    ("amazon", 'a', "QN", 14),
    ("knibis", 'h', "mNcB", 15),
    ("biskni", 'h', "mBcN", 16),
    ("kniroo", 'h', "mNcR", 17),
    ("rookni", 'h', "mRcN", 18),
    ("shogiPawn", 'p', "fW", 19),
    ("lance", 'l', "fR", 20),
    ("shogiKnight", 'n', "fN", 21),
    ("gold", 'g', "WfF", 22),
    ("dragonHorse", 'h', "BW", 23),
    ("clobber", 'p', "cW", 24),
    ("breakthrough", 'p', "fmWfF", 25),
    ("immobile", 'p', "", 26),
    ("cannon", 'c', "mRcpR", 27),
    // Hops as a cannon, but not over or onto another (see `Hop::JanggiCannon`).
    ("janggiCannon", 'c', "pR", 28),
    ("soldier", 's', "fsW", 29),
    ("horse", 'h', "nN", 30),
    ("elephant", 'e', "nA", 31),
    // One step straight, then two diagonally outward, each square open.
    ("janggiElephant", 'e', "nZ", 32),
    ("wazir", 'w', "W", 34),
    ("commoner", 'm', "K", 35),
    ("centaur", 'c', "KN", 36),
    ("king", 'k', "K", 100),
];

/// Builds the rules of `id` from its resolved keys (value, file, line).
pub fn build(id: &str, keys: &BTreeMap<String, (String, String, usize)>) -> Result<Rules, IniError> {
    let keys = Keys { keys, asked: RefCell::default() };
    let (width, height) = board_size(&keys)?;
    let pieces = read_pieces(&keys)?;
    let board = Board { keys: &keys, width, height, pieces: &pieces };
    let mut rules = defaults(id, &board);
    read_moves(&board, &mut rules)?;
    read_promotions(&board, &mut rules)?;
    read_drops(&board, &mut rules)?;
    read_ends(&board, &mut rules)?;
    // GUI hints Fairy-Stockfish reads and this plugin has no use for.
    for hint in ["pieceToCharTable", "pocketSize"] {
        keys.get(hint);
    }
    keys.refuse_unknown()?;
    Ok(rules)
}

/// A section's keys as [`build`] reads them: every read marks its key
/// known, and a key no read asked for stops the variant.
struct Keys<'a> {
    keys: &'a BTreeMap<String, (String, String, usize)>,
    asked: RefCell<BTreeSet<String>>,
}

impl Keys<'_> {
    /// An error about `key`, at its file and line.
    fn err(&self, key: &str, message: String) -> IniError {
        let (file, line) = self.keys.get(key).map(|(_, f, l)| (f.clone(), *l)).unwrap_or_default();
        IniError { file, line, message: format!("{key}: {message}") }
    }

    /// The value of `key`, if given.
    fn get(&self, key: &str) -> Option<&str> {
        self.asked.borrow_mut().insert(key.to_string());
        self.keys.get(key).map(|(v, ..)| v.as_str())
    }

    /// A yes or no.
    fn flag(&self, key: &str, default: bool) -> Result<bool, IniError> {
        match self.get(key) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(v) => Err(self.err(key, format!("'{v}' must be true or false (or 1 or 0)"))),
        }
    }

    /// A whole number.
    fn number(&self, key: &str, default: u32) -> Result<u32, IniError> {
        self.get(key)
            .map_or(Ok(default), |v| v.parse().map_err(|_| self.err(key, format!("'{v}' is not a whole number"))))
    }

    /// A result for the player it applies to (`none`: no end).
    fn end(&self, key: &str, default: Option<End>) -> Result<Option<End>, IniError> {
        match self.get(key) {
            None => Ok(default),
            Some("win") => Ok(Some(End::Win)),
            Some("loss") => Ok(Some(End::Loss)),
            Some("draw") => Ok(Some(End::Draw)),
            Some("none") => Ok(None),
            Some(v) => Err(self.err(key, format!("'{v}' must be win, loss, draw or none"))),
        }
    }

    /// A file as Fairy-Stockfish reads one: a number counted from 1, or a
    /// letter (`maxFile = j` is ten files, `castlingKingsideFile = g`).
    fn file_index(&self, key: &str, v: &str) -> Result<u32, IniError> {
        let bad = || self.err(key, format!("'{v}' is not a file (a letter, or a number from 1)"));
        match v.as_bytes() {
            [c, ..] if c.is_ascii_digit() => v.parse::<u32>().ok().filter(|&n| n >= 1).map(|n| n - 1).ok_or_else(bad),
            [c] if c.is_ascii_alphabetic() => Ok(u32::from(c.to_ascii_lowercase() - b'a')),
            _ => Err(bad()),
        }
    }

    /// Stops at a key no read asked for, other than a piece (built in or
    /// custom) or a piece's mobility region: a variant is played exactly
    /// or not at all.
    fn refuse_unknown(&self) -> Result<(), IniError> {
        let asked = self.asked.borrow();
        let known = |k: &String| asked.contains(k) || custom_index(k).is_some() || k.starts_with("mobilityRegion");
        match self.keys.keys().find(|k| !known(k)) {
            Some(k) => Err(self.err(k, "unknown key, or a rule this plugin does not implement".into())),
            None => Ok(()),
        }
    }
}

/// The board's files and ranks (`maxFile`, `maxRank`).
fn board_size(keys: &Keys) -> Result<(u32, u32), IniError> {
    let height = keys.number("maxRank", 8)?;
    let width = keys.get("maxFile").map_or(Ok(8), |v| keys.file_index("maxFile", v).map(|f| f + 1))?;
    if !(1..=10).contains(&height) || !(1..=12).contains(&width) {
        return Err(keys.err(
            if (1..=10).contains(&height) { "maxFile" } else { "maxRank" },
            format!("a board of {width}x{height}: boards go up to 12 files and 10 ranks"),
        ));
    }
    Ok((width, height))
}

/// The pieces: chess's by default; each built-in name may be given a
/// letter (and a Betza of its own) or removed with `-`, custom pieces are
/// `customPieceN = letter:betza`; then `pieceToCharSynonyms` and `pawnTypes`.
fn read_pieces(keys: &Keys) -> Result<Vec<PieceDef>, IniError> {
    let piece = |key: &str, letter: &str, betza_text: &str, order: u32| -> Result<PieceDef, IniError> {
        let letter = single_letter(letter).ok_or_else(|| keys.err(key, format!("'{letter}' is not one letter")))?;
        // No Betza at all: a piece that never moves (reversi's stones).
        let mut steps = match betza_text {
            "" => Vec::new(),
            text => betza::parse(text).map_err(|e| keys.err(key, e))?,
        };
        let janggi_cannon = key == "janggiCannon";
        if janggi_cannon {
            steps.iter_mut().filter(|st| st.hop == Hop::Cannon).for_each(|st| st.hop = Hop::JanggiCannon);
        }
        Ok(PieceDef {
            palace: palace_moves(key, &steps),
            janggi_cannon,
            name: key.to_string(),
            letter,
            move_letter: letter.to_ascii_uppercase(),
            royal: key == "king",
            pawn: key == "pawn",
            soldier: key == "soldier",
            initial_leaps: steps.iter().any(|st| st.initial),
            overlapping: overlapping(&steps),
            reach: reach_of(&steps),
            steps,
            order,
        })
    };
    let mut pieces: Vec<PieceDef> = Vec::new();
    for (name, _, betza_text, order) in BUILT_IN {
        match keys.get(name) {
            None | Some("-") => {}
            Some(v) => {
                let (letter, betza_text) = v.split_once(':').unwrap_or((v, betza_text));
                pieces.push(piece(name, letter, betza_text, *order)?);
            }
        }
    }
    for (k, (v, ..)) in keys.keys.iter() {
        let Some(n) = custom_index(k) else { continue };
        let (letter, betza_text) =
            v.split_once(':').ok_or_else(|| keys.err(k, format!("'{v}' is not letter:betza")))?;
        pieces.push(piece(k, letter, betza_text, 50 + n)?);
    }
    if pieces.len() > MOST_KINDS {
        return Err(keys.err("customPiece1", format!("{} piece kinds: at most {} fit", pieces.len(), MOST_KINDS)));
    }
    for (i, p) in pieces.iter().enumerate() {
        if let Some(q) = pieces[..i].iter().find(|q| q.letter == p.letter) {
            return Err(keys.err(&p.name, format!("letter '{}' is used by {} too", p.letter, q.name)));
        }
    }
    // `pieceToCharSynonyms = n:h b:e`: the letter a piece's moves are
    // written with (Fairy-Stockfish's built-in xiangqi and janggi have them;
    // its ini files cannot give them, so the key is arbiter's).
    for pair in keys.get("pieceToCharSynonyms").unwrap_or("").split_whitespace() {
        let bad = || keys.err("pieceToCharSynonyms", format!("'{pair}' is not letter:synonym (e.g. n:h)"));
        let (letter, synonym) = pair.split_once(':').ok_or_else(bad)?;
        let (letter, synonym) = (single_letter(letter).ok_or_else(bad)?, single_letter(synonym).ok_or_else(bad)?);
        if pieces.iter().any(|p| p.letter == synonym) {
            return Err(keys.err("pieceToCharSynonyms", format!("'{synonym}' is a piece's own letter")));
        }
        let piece = pieces
            .iter_mut()
            .find(|p| p.letter == letter)
            .ok_or_else(|| keys.err("pieceToCharSynonyms", format!("no piece has the letter '{letter}'")))?;
        piece.move_letter = synonym.to_ascii_uppercase();
    }
    // `pawnTypes`: custom pieces that move by their own Betza but promote,
    // double-step (where the variant allows it) and take en passant as the
    // pawn does; the built-in pawn is one unless removed (`pawn = -`).
    for c in keys.get("pawnTypes").unwrap_or("").chars().filter(|c| !c.is_whitespace() && *c != '-') {
        let piece = pieces
            .iter_mut()
            .find(|p| p.letter == c.to_ascii_lowercase())
            .ok_or_else(|| keys.err("pawnTypes", format!("no piece has the letter '{c}'")))?;
        piece.pawn = true;
    }
    Ok(pieces)
}

/// The board and its pieces, for the keys that name squares, files, ranks
/// and pieces.
struct Board<'a> {
    keys: &'a Keys<'a>,
    width: u32,
    height: u32,
    pieces: &'a [PieceDef],
}

impl Board<'_> {
    /// The kinds whose letters `text` lists (`-` and spaces ignored).
    fn kinds(&self, key: &str, text: &str) -> Result<Vec<usize>, IniError> {
        text.chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .map(|c| {
                self.pieces
                    .iter()
                    .position(|p| p.letter == c.to_ascii_lowercase())
                    .ok_or_else(|| self.keys.err(key, format!("no piece has the letter '{c}'")))
            })
            .collect()
    }

    /// The kinds `key` lists, or `default`'s.
    fn kinds_of(&self, key: &str, default: &str) -> Result<Vec<usize>, IniError> {
        self.kinds(key, self.keys.get(key).unwrap_or(default))
    }

    /// White's and Black's kinds, as masks, of `key` (both sides) and
    /// `key` + `White`/`Black`; `default`'s where none is given.
    fn kind_sets(&self, key: &str, default: &[Vec<bool>; 2]) -> Result<[Vec<bool>; 2], IniError> {
        let mask = |kinds: Vec<usize>| (0..self.pieces.len()).map(|k| kinds.contains(&k)).collect::<Vec<bool>>();
        let both = self.keys.get(key).map(|t| self.kinds(key, t)).transpose()?.map(mask);
        let mut out = [both.clone().unwrap_or(default[0].clone()), both.unwrap_or(default[1].clone())];
        for (side, colour) in ["White", "Black"].iter().enumerate() {
            let key = format!("{key}{colour}");
            if let Some(t) = self.keys.get(&key) {
                out[side] = mask(self.kinds(&key, t)?);
            }
        }
        Ok(out)
    }

    /// The first kind `key` names, if it names one (`-`: none).
    fn kind(&self, key: &str) -> Result<Option<usize>, IniError> {
        Ok(self.kinds_of(key, "")?.first().copied())
    }

    /// A file of the board (0-based).
    fn file(&self, key: &str, default: u8) -> Result<u8, IniError> {
        match self.keys.get(key) {
            None => Ok(default),
            Some(v) => match self.keys.file_index(key, v)? {
                f if f < self.width => Ok(f as u8),
                _ => Err(self.keys.err(key, format!("'{v}' is not a file of the board"))),
            },
        }
    }

    /// A rank of the board, counted from 1 in the key (0-based here).
    fn rank(&self, key: &str, default: u8) -> Result<u8, IniError> {
        let r = self.keys.number(key, default as u32 + 1)?;
        if r == 0 || r > self.height {
            return Err(self.keys.err(key, format!("rank {r} is not on the board")));
        }
        Ok(r as u8 - 1)
    }

    /// A region: squares, `*N` ranks and `a*` files, as a mask; `default`
    /// if the key is absent. Letters in either case, as Fairy-Stockfish reads them.
    fn region(&self, key: &str, default: &str) -> Result<Vec<bool>, IniError> {
        let (width, height) = (self.width as usize, self.height as usize);
        let mut mask = vec![false; width * height];
        let value = self.keys.get(key).unwrap_or(default).to_ascii_lowercase();
        for token in value.split_whitespace() {
            if token == "-" {
                break;
            }
            let bad = |what: &str| self.keys.err(key, format!("'{token}' is not a {what}"));
            if let Some(r) = token.strip_prefix('*') {
                let r: usize =
                    r.parse().ok().filter(|r| (1..=height).contains(r)).ok_or_else(|| bad("rank of the board"))?;
                (0..width).for_each(|f| mask[(r - 1) * width + f] = true);
            } else if let Some(f) = token.strip_suffix('*') {
                let f = f
                    .as_bytes()
                    .first()
                    .map(|c| c.wrapping_sub(b'a') as usize)
                    .filter(|&f| f < width && token.len() == 2)
                    .ok_or_else(|| bad("file of the board"))?;
                (0..height).for_each(|r| mask[r * width + f] = true);
            } else {
                let f = token.as_bytes()[0].wrapping_sub(b'a') as usize;
                let r = token.get(1..).and_then(|r| r.parse::<usize>().ok()).filter(|r| (1..=height).contains(r));
                match r {
                    Some(r) if f < width => mask[(r - 1) * width + f] = true,
                    _ => return Err(bad("square")),
                }
            }
        }
        Ok(mask)
    }

    /// White's and Black's regions of `key` + `White`/`Black`, each
    /// `default` (White's, Black's) when absent.
    fn regions(&self, key: &str, default: [&str; 2]) -> Result<[Vec<bool>; 2], IniError> {
        Ok([self.region(&format!("{key}White"), default[0])?, self.region(&format!("{key}Black"), default[1])?])
    }

    /// Every rank, as a region.
    fn every_rank(&self) -> String {
        (1..=self.height).map(|r| format!("*{r}")).collect::<Vec<_>>().join(" ")
    }

    /// The ranks `from..=to` of White's side and the same of Black's
    /// (counted from its own side), as two regions.
    fn own_ranks(&self, from: u32, to: u32) -> (String, String) {
        let white = (from..=to).map(|x| format!("*{x}")).collect::<Vec<_>>().join(" ");
        let black = (from..=to).map(|x| format!("*{}", self.height + 1 - x)).collect::<Vec<_>>().join(" ");
        (white, black)
    }
}

/// The rules with the board and pieces read and every other rule at its
/// default, with what the move generator derives from the pieces.
fn defaults(id: &str, board: &Board) -> Rules {
    let pieces = board.pieces;
    let steps = || pieces.iter().flat_map(|p| &p.steps);
    let no_region = || [Vec::new(), Vec::new()];
    Rules {
        id: id.to_string(),
        source: None,
        definition: board.keys.keys.iter().map(|(k, (v, ..))| format!("{k} = {v}\n")).collect(),
        width: board.width as u8,
        height: board.height as u8,
        pieces: pieces.to_vec(),
        notation: Notation::San,
        on_points: None,
        start_fen: String::new(),
        castling: false,
        chess960: false,
        gating: false,
        cambodian_moves: false,
        castle_king_file: 0,
        castle_queen_file: 0,
        castle_rank: 0,
        castle_king: None,
        castle_rook_kinds: Vec::new(),
        double_step_region: no_region(),
        en_passant: false,
        custom_pawns: pieces.iter().any(|p| p.pawn && p.name != "pawn"),
        promotion_pawns: [pieces.iter().map(|p| p.pawn).collect(), pieces.iter().map(|p| p.pawn).collect()],
        ep_takers: [pieces.iter().map(|p| p.pawn).collect(), pieces.iter().map(|p| p.pawn).collect()],
        duple_check: false,
        promotion_region: no_region(),
        drop_region: no_region(),
        sittuyin_rook_drop: false,
        sittuyin_promotion: false,
        must_drop: false,
        must_drop_kind: None,
        drop_opposite_colored_bishop: false,
        castling_dropped_piece: false,
        castle_king_home_file: 4,
        enclosing_drop: None,
        enclosing_drop_start: Vec::new(),
        flip_enclosed: None,
        free_drops: false,
        pass_on_stalemate: [false, false],
        adjudicate_full_board: false,
        pass: [false, false],
        diagonal_lines: Vec::new(),
        bikjang: false,
        move_repetition_illegal: false,
        chasing: false,
        promotion_kinds: [Vec::new(), Vec::new()],
        mandatory_promotion: true,
        checking: true,
        has_royal: pieces.iter().any(|p| p.royal),
        ep_region: no_region(),
        makpong: false,
        walling: None,
        walling_region: [Vec::new(), Vec::new()],
        promotion_limit: vec![None; pieces.len()],
        drop_no_doubled_count: 1,
        stalemate_piece_count: false,
        material_counting: None,
        counting: None,
        blast: false,
        blast_immune: Vec::new(),
        mutually_immune: Vec::new(),
        pseudo_royal: false,
        drops: false,
        captures_to_hand: false,
        drop_loop: false,
        first_rank_pawn_drops: false,
        promotion_zone_pawn_drops: false,
        must_capture: false,
        stalemate: End::Draw,
        checkmate: End::Loss,
        extinction: None,
        extinction_kinds: Vec::new(),
        petrify_kinds: Vec::new(),
        extinction_count: 0,
        extinction_opponent_count: 0,
        extinction_claim: false,
        flag: None,
        flag_regions: [Vec::new(), Vec::new()],
        flag_move: false,
        flag_piece_safe: false,
        shatar_mate: false,
        check_counting: false,
        n_move_plies: 0,
        n_fold: 0,
        n_fold_value: End::Draw,
        n_fold_value_absolute: false,
        perpetual_check_illegal: false,
        promoted_kind: vec![None; pieces.len()],
        mandatory_piece_promotion: false,
        piece_demotion: false,
        drop_promoted: false,
        promotion_on_capture: false,
        immobility_illegal: false,
        drop_no_doubled: None,
        pawn_drop_mate_illegal: false,
        n_move_kinds: [Vec::new(), Vec::new()],
        mobility: [Vec::new(), Vec::new()],
        flying_general: false,
        soldier_rank: 0,
        lines_only: steps().all(|st| {
            let (dx, dy) = (st.dx as i32, st.dy as i32);
            let on_a_line = |x: i32, y: i32| x == 0 || y == 0 || x.abs() == y.abs();
            match (st.range, st.hop) {
                (1, Hop::None) => !st.lame || betza::lame_path(dx, dy).all(|(x, y)| on_a_line(x - dx, y - dy)),
                _ => dx.abs() <= 1 && dy.abs() <= 1,
            }
        }),
        hoppers: steps().any(|st| st.hop != Hop::None),
        lame_leapers: steps().any(|st| st.lame),
        lame_reach: steps()
            .filter(|st| st.lame)
            .map(|st| {
                let (dx, dy) = (st.dx as i32, st.dy as i32);
                betza::lame_path(dx, dy).map(|(x, y)| (dx - x).abs().max((dy - y).abs()) as u8).max().unwrap_or(0)
            })
            .max()
            .unwrap_or(0),
    }
}

/// How pieces move: the start, castling, double steps and en passant,
/// gating, walls, where each kind may stand, xiangqi's generals and soldiers.
fn read_moves(board: &Board, rules: &mut Rules) -> Result<(), IniError> {
    let keys = board.keys;
    let default_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    rules.start_fen = keys.get("startFen").unwrap_or(default_fen).to_string();
    rules.castling = keys.flag("castling", true)?;
    rules.chess960 = keys.flag("chess960", false)?;
    rules.castle_king_file = board.file("castlingKingsideFile", 6)?;
    rules.castle_queen_file = board.file("castlingQueensideFile", 2)?;
    rules.castle_rank = board.rank("castlingRank", 0)?;
    rules.castle_king = match keys.get("castlingKingPiece") {
        Some(_) => board.kind("castlingKingPiece")?,
        None => board.pieces.iter().position(|p| p.royal),
    };
    // Rooks by default, if the variant has them.
    rules.castle_rook_kinds = match keys.get("castlingRookPieces") {
        Some(t) => board.kinds("castlingRookPieces", t)?,
        None => board.kinds("castlingRookPieces", "r").unwrap_or_default(),
    };
    let gating =
        (keys.flag("gating", false)?, keys.flag("seirawanGating", false)?, keys.flag("cambodianMoves", false)?);
    (rules.gating, rules.cambodian_moves) = match gating {
        (false, false, false) => (false, false),
        (true, true, false) => (true, false),
        (true, false, true) => (false, true),
        _ => {
            return Err(keys.err(
                "gating",
                "gating is S-chess's (with seirawanGating) or cambodian chess's (with cambodianMoves)".into(),
            ))
        }
    };
    // The older `doubleStepRank`: a pawn double-steps from its second rank
    // up to this one, counted from each side's own side, as Fairy-Stockfish
    // reads it (its `doubleStepRegion` keys, when given, win).
    let (double_white, double_black) = match keys.get("doubleStepRank") {
        None => ("*2".to_string(), format!("*{}", board.height.saturating_sub(1).max(1))),
        Some(v) => {
            let bad = || keys.err("doubleStepRank", format!("rank {v} is not on the board"));
            let most: u32 = v.parse().ok().filter(|r| (1..=board.height).contains(r)).ok_or_else(bad)?;
            board.own_ranks(2, most)
        }
    };
    rules.double_step_region = board.regions("doubleStepRegion", [&double_white, &double_black])?;
    if !keys.flag("doubleStep", true)? {
        let none = vec![false; (board.width * board.height) as usize];
        rules.double_step_region = [none.clone(), none];
    }
    rules.en_passant = keys.flag("enPassant", true)?;
    rules.ep_takers = board.kind_sets("enPassantTypes", &rules.ep_takers)?;
    let ep_both = keys.get("enPassantRegion").map_or_else(|| board.every_rank(), str::to_string);
    rules.ep_region = board.regions("enPassantRegion", [&ep_both, &ep_both])?;
    rules.walling = match keys.get("wallingRule") {
        None | Some("none") => None,
        Some("past") => Some(Walling::Past),
        Some("arrow") => Some(Walling::Arrow),
        Some("duck") => Some(Walling::Duck),
        Some("static") => Some(Walling::Static),
        Some("edge") => Some(Walling::Edge),
        Some(v) => {
            return Err(keys.err("wallingRule", format!("'{v}' must be past, arrow, duck, static, edge or none")))
        }
    };
    let anywhere = board.every_rank();
    let both = keys.get("wallingRegion").map_or(anywhere, str::to_string);
    rules.walling_region = board.regions("wallingRegion", [&both, &both])?;
    // mobilityRegionWhiteKing, mobilityRegionBlackElephant...: the piece's name, capitalised.
    let mut mobility = [vec![None; board.pieces.len()], vec![None; board.pieces.len()]];
    for (k, piece) in board.pieces.iter().enumerate() {
        let mut name = piece.name.clone();
        name[..1].make_ascii_uppercase();
        for (c, colour) in ["White", "Black"].iter().enumerate() {
            let key = format!("mobilityRegion{colour}{name}");
            if keys.get(&key).is_some() {
                mobility[c][k] = Some(board.region(&key, "")?);
            }
        }
    }
    rules.mobility = mobility;
    rules.flying_general = keys.flag("flyingGeneral", false)?;
    let lines = board.region("diagonalLines", "")?;
    rules.diagonal_lines = if lines.contains(&true) { lines } else { Vec::new() };
    let pass = keys.flag("pass", false)?;
    rules.pass = [keys.flag("passWhite", pass)?, keys.flag("passBlack", pass)?];
    let soldier_rank = keys.number("soldierPromotionRank", 1)?;
    if soldier_rank == 0 || soldier_rank > board.height {
        return Err(keys.err("soldierPromotionRank", format!("rank {soldier_rank} is not on the board")));
    }
    rules.soldier_rank = soldier_rank as u8 - 1;
    rules.makpong = keys.flag("makpongRule", false)?;
    rules.must_capture = keys.flag("mustCapture", false)?;
    rules.checking = keys.flag("checking", true)?;
    rules.blast = keys.flag("blastOnCapture", false)?;
    rules.blast_immune = board.kinds_of("blastImmuneTypes", "")?;
    rules.mutually_immune = board.kinds_of("mutuallyImmuneTypes", "")?;
    rules.petrify_kinds = board.kinds_of("petrifyOnCaptureTypes", "")?;
    Ok(())
}

/// How pieces promote: pawns (where, to what, how many), and shogi-style
/// promotion and demotion of pieces.
fn read_promotions(board: &Board, rules: &mut Rules) -> Result<(), IniError> {
    let keys = board.keys;
    // The older `promotionRank` names the first rank of each side's promotion zone, from its own side.
    let (white, black) = match keys.get("promotionRank") {
        None => (format!("*{}", board.height), "*1".to_string()),
        Some(v) => {
            let r: u32 = v
                .parse()
                .ok()
                .filter(|r| (1..=board.height).contains(r))
                .ok_or_else(|| keys.err("promotionRank", format!("rank {v} is not on the board")))?;
            board.own_ranks(r, board.height)
        }
    };
    rules.promotion_region = board.regions("promotionRegion", [&white, &black])?;
    // By default a pawn promotes to whichever of queen, rook, bishop and knight the variant has.
    let present: String = "qrbn".chars().filter(|&c| board.pieces.iter().any(|p| p.letter == c && !p.pawn)).collect();
    let both = keys.get("promotionPieceTypes").unwrap_or(&present).replace('-', "");
    rules.promotion_kinds =
        [board.kinds_of("promotionPieceTypesWhite", &both)?, board.kinds_of("promotionPieceTypesBlack", &both)?];
    rules.mandatory_promotion = keys.flag("mandatoryPawnPromotion", true)?;
    rules.promotion_pawns = board.kind_sets("promotionPawnTypes", &rules.promotion_pawns)?;
    for pair in keys.get("promotionLimit").unwrap_or("").split_whitespace() {
        let bad = || keys.err("promotionLimit", format!("'{pair}' is not piece:count (e.g. q:1)"));
        let (kind, n) = pair.split_once(':').ok_or_else(bad)?;
        let kind = *board.kinds("promotionLimit", kind)?.first().ok_or_else(bad)?;
        rules.promotion_limit[kind] = Some(n.parse().map_err(|_| bad())?);
    }
    for pair in keys.get("promotedPieceType").unwrap_or("").split_whitespace() {
        let bad = || keys.err("promotedPieceType", format!("'{pair}' is not piece:promoted (e.g. p:g)"));
        let (from, to) = pair.split_once(':').ok_or_else(bad)?;
        let (from, to) = (board.kinds("promotedPieceType", from)?, board.kinds("promotedPieceType", to)?);
        match (from.as_slice(), to.as_slice()) {
            ([f], [t]) => rules.promoted_kind[*f] = Some(*t),
            _ => return Err(bad()),
        }
    }
    rules.mandatory_piece_promotion = keys.flag("mandatoryPiecePromotion", false)?;
    rules.piece_demotion = keys.flag("pieceDemotion", false)?;
    rules.promotion_on_capture = keys.flag("piecePromotionOnCapture", false)?;
    rules.immobility_illegal = keys.flag("immobilityIllegal", false)?;
    Ok(())
}

/// Pieces in hand: captures that go there, where and what may be dropped.
fn read_drops(board: &Board, rules: &mut Rules) -> Result<(), IniError> {
    let keys = board.keys;
    rules.drops = keys.flag("pieceDrops", false)?;
    rules.captures_to_hand = keys.flag("capturesToHand", false)?;
    rules.drop_loop = keys.flag("dropLoop", false)?;
    rules.drop_promoted = keys.flag("dropPromoted", false)?;
    let all = board.every_rank();
    rules.drop_region = [board.region("whiteDropRegion", &all)?, board.region("blackDropRegion", &all)?];
    rules.first_rank_pawn_drops = keys.flag("firstRankPawnDrops", false)?;
    rules.promotion_zone_pawn_drops = keys.flag("promotionZonePawnDrops", false)?;
    rules.drop_no_doubled = match keys.get("dropNoDoubled") {
        None | Some("-") => None,
        Some(_) => board.kind("dropNoDoubled")?,
    };
    rules.drop_no_doubled_count = keys.number("dropNoDoubledCount", 1)?;
    rules.pawn_drop_mate_illegal = keys.flag("shogiPawnDropMateIllegal", false)?;
    rules.must_drop = keys.flag("mustDrop", false)?;
    rules.sittuyin_rook_drop = keys.flag("sittuyinRookDrop", false)?;
    rules.sittuyin_promotion = keys.flag("sittuyinPromotion", false)?;
    rules.must_drop_kind = match keys.get("mustDropType") {
        None | Some("*") => None,
        Some(_) => board.kind("mustDropType")?,
    };
    rules.drop_opposite_colored_bishop = keys.flag("dropOppositeColoredBishop", false)?;
    rules.castling_dropped_piece = keys.flag("castlingDroppedPiece", false)?;
    rules.castle_king_home_file = board.file("castlingKingFile", 4)?;
    let enclosing = |key: &str, allowed: &[&str]| -> Result<Option<Enclosing>, IniError> {
        let rule = match keys.get(key) {
            None | Some("none") => return Ok(None),
            Some(v) if !allowed.contains(&v) => {
                return Err(keys.err(key, format!("'{v}' must be {} or none", allowed.join(", "))))
            }
            Some("reversi") => Enclosing::Reversi,
            Some("ataxx") => Enclosing::Ataxx,
            Some("snort") => Enclosing::Snort,
            Some(_) => Enclosing::Top,
        };
        Ok(Some(rule))
    };
    rules.enclosing_drop = enclosing("enclosingDrop", &["reversi", "ataxx", "snort", "top"])?;
    let start = board.region("enclosingDropStart", "")?;
    rules.enclosing_drop_start = (0..start.len()).filter(|&sq| start[sq]).collect();
    rules.flip_enclosed = enclosing("flipEnclosedPieces", &["reversi", "ataxx"])?;
    rules.free_drops = keys.flag("freeDrops", false)?;
    let pass = keys.flag("passOnStalemate", false)?;
    rules.pass_on_stalemate = [keys.flag("passOnStalemateWhite", pass)?, keys.flag("passOnStalemateBlack", pass)?];
    rules.adjudicate_full_board = keys.flag("adjudicateFullBoard", false)?;
    Ok(())
}

/// How the game ends (mate, stalemate, extinction, flags, check counts,
/// repetitions, the n-move and counting rules) and how moves are written.
fn read_ends(board: &Board, rules: &mut Rules) -> Result<(), IniError> {
    let keys = board.keys;
    rules.stalemate = keys.end("stalemateValue", Some(End::Draw))?.unwrap_or(End::Draw);
    rules.checkmate = keys.end("checkmateValue", Some(End::Loss))?.unwrap_or(End::Loss);
    rules.stalemate_piece_count = keys.flag("stalematePieceCount", false)?;
    rules.shatar_mate = keys.flag("shatarMateRule", false)?;
    rules.extinction = keys.end("extinctionValue", None)?;
    rules.extinction_kinds = match keys.get("extinctionPieceTypes") {
        None | Some("*") => Vec::new(),
        Some(t) => board.kinds("extinctionPieceTypes", t)?,
    };
    rules.extinction_count = keys.number("extinctionPieceCount", 0)?;
    rules.extinction_opponent_count = keys.number("extinctionOpponentPieceCount", 0)?;
    rules.extinction_claim = keys.flag("extinctionClaim", false)?;
    rules.pseudo_royal = keys.flag("extinctionPseudoRoyal", false)?;
    rules.duple_check = keys.flag("dupleCheck", false)?;
    rules.flag = board.kind("flagPiece")?;
    let both = keys.get("flagRegion").unwrap_or("").to_string();
    let to_list = |mask: Vec<bool>| mask.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i).collect::<Vec<usize>>();
    let [white, black] = board.regions("flagRegion", [&both, &both])?;
    rules.flag_regions = [to_list(white), to_list(black)];
    rules.flag_move = keys.flag("flagMove", false)?;
    rules.flag_piece_safe = keys.flag("flagPieceSafe", false)?;
    rules.check_counting = keys.flag("checkCounting", false)?;
    rules.n_move_plies = 2 * keys.number("nMoveRule", 50)?;
    // By default the pawn type resets it (a shogi pawn does not).
    let pawns: String = board.pieces.iter().filter(|p| p.pawn).map(|p| p.letter).collect();
    let both = keys.get("nMoveRuleTypes").unwrap_or(&pawns).to_string();
    rules.n_move_kinds = [board.kinds_of("nMoveRuleTypesWhite", &both)?, board.kinds_of("nMoveRuleTypesBlack", &both)?];
    rules.n_fold = keys.number("nFoldRule", 3)?;
    rules.n_fold_value = keys.end("nFoldValue", Some(End::Draw))?.unwrap_or(End::Draw);
    rules.n_fold_value_absolute = keys.flag("nFoldValueAbsolute", false)?;
    rules.perpetual_check_illegal = keys.flag("perpetualCheckIllegal", false)?;
    rules.move_repetition_illegal = keys.flag("moveRepetitionIllegal", false)?;
    rules.chasing = match keys.get("chasingRule") {
        None | Some("none") => false,
        Some("axf") => true,
        Some(v) => return Err(keys.err("chasingRule", format!("'{v}' must be axf or none"))),
    };
    rules.bikjang = keys.flag("bikjangRule", false)?;
    rules.counting = match keys.get("countingRule") {
        None | Some("none") => None,
        Some("makruk") => Some(Counting::Makruk),
        Some("cambodian") => Some(Counting::Cambodian),
        Some("asean") => Some(Counting::Asean),
        Some(v) => return Err(keys.err("countingRule", format!("'{v}' must be makruk, cambodian, asean or none"))),
    };
    rules.material_counting = match keys.get("materialCounting") {
        None | Some("none") => None,
        Some("unweighted") => Some(MaterialCounting::Unweighted),
        Some("whitedrawodds") => Some(MaterialCounting::WhiteDrawOdds),
        Some("blackdrawodds") => Some(MaterialCounting::BlackDrawOdds),
        Some("janggi") => Some(MaterialCounting::Janggi),
        Some(v) => {
            return Err(keys.err(
                "materialCounting",
                format!("'{v}' must be janggi, unweighted, whitedrawodds, blackdrawodds or none"),
            ))
        }
    };
    // Fairy-Stockfish writes moves of shogi's family in shogi's notation,
    // every other variant's in SAN; xiangqi's and janggi's templates put
    // the pieces on points; other templates only guide its GUIs.
    let template = keys.get("variantTemplate");
    rules.notation = if template == Some("shogi") { Notation::Shogi } else { Notation::San };
    rules.on_points = match template {
        Some("xiangqi") => Some(Points::Xiangqi),
        Some("janggi") => Some(Points::Janggi),
        _ => None,
    };
    Ok(())
}

/// The reach table of `steps`.
fn reach_of(steps: &[Step]) -> Vec<u64> {
    let mut reach = vec![0u64; (REACH_FILES * 19) as usize];
    for (i, st) in steps.iter().enumerate().filter(|(_, st)| st.capture) {
        // Steps past the 63rd share the last bit.
        let bit = 1u64 << i.min(63);
        let most = if st.range == 0 || st.hop != Hop::None { 11 } else { st.range as i32 };
        for k in 1..=most {
            let (x, y) = (k * st.dx as i32, k * st.dy as i32);
            if x.abs() > 11 || y.abs() > 9 {
                break;
            }
            reach[reach_index(x, y)] |= bit;
        }
    }
    reach
}

/// Whether two of `steps` reach a common offset (on a board of up to 12x10).
fn overlapping(steps: &[Step]) -> bool {
    let mut seen = std::collections::HashSet::new();
    for st in steps {
        let most = if st.range == 0 || st.hop != Hop::None { 11 } else { st.range as i32 };
        let mine: std::collections::HashSet<(i32, i32)> =
            (1..=most).map(|k| (k * st.dx as i32, k * st.dy as i32)).collect();
        if mine.iter().any(|o| seen.contains(o)) {
            return true;
        }
        seen.extend(mine);
    }
    false
}

/// How a built-in kind moves on the palace's diagonal lines, as
/// Fairy-Stockfish moves it there (a king only if it moves as a wazir).
fn palace_moves(name: &str, steps: &[Step]) -> Option<Palace> {
    let wazir = steps.len() == 4 && steps.iter().all(|st| st.dx.abs() + st.dy.abs() == 1 && st.range == 1);
    match name {
        "wazir" => Some(Palace::Step),
        "king" if wazir => Some(Palace::Step),
        "soldier" => Some(Palace::Forward),
        "rook" => Some(Palace::Slide),
        "janggiCannon" => Some(Palace::Hop),
        _ => None,
    }
}

fn custom_index(key: &str) -> Option<u32> {
    key.strip_prefix("customPiece").and_then(|n| n.parse().ok()).filter(|n| (1..=25).contains(n))
}

fn single_letter(v: &str) -> Option<char> {
    let mut c = v.chars();
    let l = c.next()?;
    (c.next().is_none() && l.is_ascii_alphabetic()).then_some(l.to_ascii_lowercase())
}
