//! Reading a section's keys into [`Rules`]: each key named once, where it
//! is read, with its default; a key no read asks for is refused.

use std::collections::BTreeMap;

use super::{reach_index, Counting, End, MaterialCounting, PieceDef, Rules, MOST_KINDS, REACH_FILES};
use crate::betza::{self, Step};
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
    ("cannon", 'c', "mRcpR", 27),
    ("soldier", 's', "fsW", 29),
    ("horse", 'h', "nN", 30),
    ("elephant", 'e', "nA", 31),
    ("wazir", 'w', "W", 34),
    ("commoner", 'm', "K", 35),
    ("centaur", 'c', "KN", 36),
    ("king", 'k', "K", 100),
];

/// Builds the rules of `id` from its resolved keys (value, file, line).
pub fn build(id: &str, keys: &BTreeMap<String, (String, String, usize)>) -> Result<Rules, IniError> {
    let err = |key: &str, message: String| {
        let (file, line) = keys.get(key).map(|(_, f, l)| (f.clone(), *l)).unwrap_or_default();
        IniError { file, line, message: format!("{key}: {message}") }
    };
    // Each key is named once, where it is read: every read marks its key
    // known, and a key no read asked for stops this variant (see `unknown`).
    let asked: std::cell::RefCell<std::collections::BTreeSet<String>> = Default::default();
    let get = |k: &str| {
        asked.borrow_mut().insert(k.to_string());
        keys.get(k).map(|(v, ..)| v.as_str())
    };
    let flag = |k: &str, default: bool| -> Result<bool, IniError> {
        match get(k) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(v) => Err(err(k, format!("'{v}' must be true or false (or 1 or 0)"))),
        }
    };
    // A file as Fairy-Stockfish reads one: a number counted from 1, or a
    // letter (`maxFile = j` is ten files, `castlingKingsideFile = g`).
    let file_index = |k: &str, v: &str| -> Result<u32, IniError> {
        let bad = || err(k, format!("'{v}' is not a file (a letter, or a number from 1)"));
        match v.as_bytes() {
            [c, ..] if c.is_ascii_digit() => v.parse::<u32>().ok().filter(|&n| n >= 1).map(|n| n - 1).ok_or_else(bad),
            [c] if c.is_ascii_alphabetic() => Ok(u32::from(c.to_ascii_lowercase() - b'a')),
            _ => Err(bad()),
        }
    };
    let number = |k: &str, default: u32| -> Result<u32, IniError> {
        get(k).map_or(Ok(default), |v| v.parse().map_err(|_| err(k, format!("'{v}' is not a whole number"))))
    };
    let end = |k: &str, default: Option<End>| -> Result<Option<End>, IniError> {
        match get(k) {
            None => Ok(default),
            Some("win") => Ok(Some(End::Win)),
            Some("loss") => Ok(Some(End::Loss)),
            Some("draw") => Ok(Some(End::Draw)),
            Some("none") => Ok(None),
            Some(v) => Err(err(k, format!("'{v}' must be win, loss, draw or none"))),
        }
    };
    let height = number("maxRank", 8)?;
    let width = get("maxFile").map_or(Ok(8), |v| file_index("maxFile", v).map(|f| f + 1))?;
    if !(1..=10).contains(&height) || !(1..=12).contains(&width) {
        return Err(err(
            if (1..=10).contains(&height) { "maxFile" } else { "maxRank" },
            format!("a board of {width}x{height}: boards go up to 12 files and 10 ranks"),
        ));
    }
    // Pieces: chess's by default, each built-in name may be given a letter or removed with '-'.
    let mut pieces: Vec<PieceDef> = Vec::new();
    for (name, _, betza_text, order) in BUILT_IN {
        let (letter, betza_text) = match get(name) {
            None | Some("-") => continue,
            Some(v) => match v.split_once(':') {
                Some((l, b)) => (l, b),
                None => (v, *betza_text),
            },
        };
        let letter = single_letter(letter).ok_or_else(|| err(name, format!("'{letter}' is not one letter")))?;
        let steps = betza::parse(betza_text).map_err(|e| err(name, e))?;
        let (reach, overlapping) = (reach_of(&steps), overlapping(&steps));
        let initial_leaps = steps.iter().any(|st| st.initial);
        pieces.push(PieceDef {
            name: name.to_string(),
            letter,
            steps,
            royal: *name == "king",
            pawn: *name == "pawn",
            soldier: *name == "soldier",
            initial_leaps,
            overlapping,
            reach,
            order: *order,
        });
    }
    for (k, (v, ..)) in keys.iter() {
        let Some(n) = custom_index(k) else { continue };
        let (letter, betza_text) = v.split_once(':').ok_or_else(|| err(k, format!("'{v}' is not letter:betza")))?;
        let letter = single_letter(letter).ok_or_else(|| err(k, format!("'{letter}' is not one letter")))?;
        let steps = betza::parse(betza_text).map_err(|e| err(k, e))?;
        let (reach, overlapping) = (reach_of(&steps), overlapping(&steps));
        let initial_leaps = steps.iter().any(|st| st.initial);
        pieces.push(PieceDef {
            name: k.clone(),
            letter,
            steps,
            royal: false,
            pawn: false,
            soldier: false,
            initial_leaps,
            overlapping,
            reach,
            order: 50 + n,
        });
    }
    if pieces.len() > MOST_KINDS {
        return Err(err("customPiece1", format!("{} piece kinds: at most {} fit", pieces.len(), MOST_KINDS)));
    }
    for (i, p) in pieces.iter().enumerate() {
        if let Some(q) = pieces[..i].iter().find(|q| q.letter == p.letter) {
            return Err(err(&p.name, format!("letter '{}' is used by {} too", p.letter, q.name)));
        }
    }
    // `pawnTypes`: custom pieces that move by their own Betza but promote,
    // double-step (where the variant allows it) and take en passant as the
    // pawn does; the built-in pawn is one unless removed (`pawn = -`).
    if let Some(letters) = get("pawnTypes") {
        for c in letters.chars().filter(|c| !c.is_whitespace() && *c != '-') {
            let piece = pieces
                .iter_mut()
                .find(|p| p.letter == c.to_ascii_lowercase())
                .ok_or_else(|| err("pawnTypes", format!("no piece has the letter '{c}'")))?;
            piece.pawn = true;
        }
    }
    let kinds = |k: &str, text: &str| -> Result<Vec<usize>, IniError> {
        text.chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .map(|c| {
                pieces
                    .iter()
                    .position(|p| p.letter == c.to_ascii_lowercase())
                    .ok_or_else(|| err(k, format!("no piece has the letter '{c}'")))
            })
            .collect()
    };
    let rules_height = height as u8;
    let file = |k: &str, default: u8| -> Result<u8, IniError> {
        match get(k) {
            None => Ok(default),
            Some(v) => match file_index(k, v)? {
                f if f < width => Ok(f as u8),
                _ => Err(err(k, format!("'{v}' is not a file of the board"))),
            },
        }
    };
    let rank = |k: &str, default: u8| -> Result<u8, IniError> {
        let r = number(k, default as u32 + 1)?;
        if r == 0 || r > height {
            return Err(err(k, format!("rank {r} is not on the board")));
        }
        Ok(r as u8 - 1)
    };
    // By default a pawn promotes to whichever of queen, rook, bishop and knight the variant has.
    let present: String = "qrbn".chars().filter(|&c| pieces.iter().any(|p| p.letter == c && !p.pawn)).collect();
    let both_kinds = get("promotionPieceTypes").unwrap_or(&present).replace('-', "");
    let promotion_kinds = [
        kinds("promotionPieceTypesWhite", &get("promotionPieceTypesWhite").unwrap_or(&both_kinds).replace('-', ""))?,
        kinds("promotionPieceTypesBlack", &get("promotionPieceTypesBlack").unwrap_or(&both_kinds).replace('-', ""))?,
    ];
    let extinction_kinds = match get("extinctionPieceTypes") {
        None | Some("*") => Vec::new(),
        Some(t) => kinds("extinctionPieceTypes", t)?,
    };
    let flag_kind = get("flagPiece").map(|t| kinds("flagPiece", t)).transpose()?.and_then(|k| k.first().copied());
    let partial = Rules {
        id: id.to_string(),
        source: None,
        definition: keys.iter().map(|(k, (v, ..))| format!("{k} = {v}\n")).collect(),
        width: width as u8,
        height: rules_height,
        pieces: pieces.clone(),
        start_fen: String::new(),
        castling: false,
        chess960: false,
        gating: false,
        castle_king_file: 0,
        castle_queen_file: 0,
        castle_rank: 0,
        castle_king: None,
        castle_rook_kinds: Vec::new(),
        double_step_region: [Vec::new(), Vec::new()],
        en_passant: false,
        custom_pawns: false,
        promotion_region: [Vec::new(), Vec::new()],
        drop_region: [Vec::new(), Vec::new()],
        promotion_kinds: [Vec::new(), Vec::new()],
        mandatory_promotion: true,
        checking: true,
        has_royal: pieces.iter().any(|p| p.royal),
        ep_region: [Vec::new(), Vec::new()],
        makpong: false,
        walling_past: false,
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
        n_move_kinds: Vec::new(),
        mobility: [Vec::new(), Vec::new()],
        flying_general: false,
        soldier_rank: 0,
        lines_only: pieces.iter().flat_map(|p| &p.steps).all(|st| {
            let (dx, dy) = (st.dx as i32, st.dy as i32);
            let on_a_line = |x: i32, y: i32| x == 0 || y == 0 || x.abs() == y.abs();
            // The lame leap's blocking square, seen from the target.
            let leg = (dx.signum() * i32::from(dx.abs() >= dy.abs()), dy.signum() * i32::from(dy.abs() >= dx.abs()));
            match (st.range, st.hop) {
                (1, crate::betza::Hop::None) => !st.lame || on_a_line(leg.0 - dx, leg.1 - dy),
                _ => dx.abs() <= 1 && dy.abs() <= 1,
            }
        }),
        hoppers: pieces.iter().flat_map(|p| &p.steps).any(|st| st.hop != crate::betza::Hop::None),
        lame_leapers: pieces.iter().flat_map(|p| &p.steps).any(|st| st.lame),
        lame_reach: pieces
            .iter()
            .flat_map(|p| &p.steps)
            .filter(|st| st.lame)
            .map(|st| {
                let (dx, dy) = (st.dx as i32, st.dy as i32);
                let leg =
                    (dx.signum() * i32::from(dx.abs() >= dy.abs()), dy.signum() * i32::from(dy.abs() >= dx.abs()));
                (dx - leg.0).abs().max((dy - leg.1).abs()) as u8
            })
            .max()
            .unwrap_or(0),
    };
    let squares = (width * height) as usize;
    // A region: squares, `*N` ranks and `a*` files, as a mask; `default` if the key is absent.
    let region = |k: &str, default: &str| -> Result<Vec<bool>, IniError> {
        let mut mask = vec![false; squares];
        // Letters in either case, as Fairy-Stockfish reads them.
        let value = get(k).unwrap_or(default).to_ascii_lowercase();
        for token in value.split_whitespace() {
            if token == "-" {
                break;
            }
            if let Some(r) = token.strip_prefix('*') {
                let r: usize = r
                    .parse()
                    .ok()
                    .filter(|r| (1..=height as usize).contains(r))
                    .ok_or_else(|| err(k, format!("'{token}' is not a rank of the board")))?;
                (0..width as usize).for_each(|f| mask[(r - 1) * width as usize + f] = true);
            } else if let Some(f) = token.strip_suffix('*') {
                let f = f
                    .as_bytes()
                    .first()
                    .map(|c| c.wrapping_sub(b'a') as usize)
                    .filter(|&f| f < width as usize && token.len() == 2)
                    .ok_or_else(|| err(k, format!("'{token}' is not a file of the board")))?;
                (0..height as usize).for_each(|r| mask[r * width as usize + f] = true);
            } else {
                let sq = partial.parse_square(token).ok_or_else(|| err(k, format!("'{token}' is not a square")))?;
                mask[sq] = true;
            }
        }
        Ok(mask)
    };
    let last = format!("*{height}");
    let second_last = format!("*{}", height.saturating_sub(1).max(1));
    // The older `promotionRank` names the first rank of each side's promotion zone, from its own side.
    let own_rank = |k: &str| -> Result<Option<(String, String)>, IniError> {
        match get(k) {
            None => Ok(None),
            Some(v) => {
                let r: u32 = v
                    .parse()
                    .ok()
                    .filter(|r| (1..=height).contains(r))
                    .ok_or_else(|| err(k, format!("rank {v} is not on the board")))?;
                let white = (r..=height).map(|x| format!("*{x}")).collect::<Vec<_>>().join(" ");
                let black = (1..=height + 1 - r).map(|x| format!("*{x}")).collect::<Vec<_>>().join(" ");
                Ok(Some((white, black)))
            }
        }
    };
    let (promo_white, promo_black) = own_rank("promotionRank")?.unwrap_or((last.clone(), "*1".into()));
    let promotion_region =
        [region("promotionRegionWhite", &promo_white)?, region("promotionRegionBlack", &promo_black)?];
    // The older `doubleStepRank`: a pawn double-steps from its second rank
    // up to this one, counted from each side's own side, as Fairy-Stockfish
    // reads it (its `doubleStepRegion` keys, when given, win).
    let (double_white, double_black) = match get("doubleStepRank") {
        None => ("*2".to_string(), second_last.clone()),
        Some(v) => {
            let bad = || err("doubleStepRank", format!("rank {v} is not on the board"));
            let most: u32 = v.parse().ok().filter(|r| (1..=height).contains(r)).ok_or_else(bad)?;
            let white = (2..=most).map(|r| format!("*{r}")).collect::<Vec<_>>().join(" ");
            let black = (2..=most).map(|r| format!("*{}", height + 1 - r)).collect::<Vec<_>>().join(" ");
            (white, black)
        }
    };
    let mut double_step_region =
        [region("doubleStepRegionWhite", &double_white)?, region("doubleStepRegionBlack", &double_black)?];
    if !flag("doubleStep", true)? {
        double_step_region = [vec![false; squares], vec![false; squares]];
    }
    let all = "*1 ".to_string() + &(2..=height).map(|r| format!("*{r}")).collect::<Vec<_>>().join(" ");
    let drop_region = [region("whiteDropRegion", &all)?, region("blackDropRegion", &all)?];
    let both = get("flagRegion").unwrap_or("").to_string();
    let to_list = |mask: Vec<bool>| mask.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i).collect::<Vec<usize>>();
    let flag_regions = [to_list(region("flagRegionWhite", &both)?), to_list(region("flagRegionBlack", &both)?)];
    let default_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let start_fen = get("startFen").unwrap_or(default_fen).to_string();
    let mut promoted_kind = vec![None; pieces.len()];
    for pair in get("promotedPieceType").unwrap_or("").split_whitespace() {
        let bad = || err("promotedPieceType", format!("'{pair}' is not piece:promoted (e.g. p:g)"));
        let (from, to) = pair.split_once(':').ok_or_else(bad)?;
        let (from, to) = (kinds("promotedPieceType", from)?, kinds("promotedPieceType", to)?);
        match (from.as_slice(), to.as_slice()) {
            ([f], [t]) => promoted_kind[*f] = Some(*t),
            _ => return Err(bad()),
        }
    }
    let drop_no_doubled = match get("dropNoDoubled") {
        None | Some("-") => None,
        Some(t) => kinds("dropNoDoubled", t)?.first().copied(),
    };
    // By default the pawn type resets it (a shogi pawn does not).
    let n_move_default: String = pieces.iter().filter(|p| p.pawn).map(|p| p.letter).collect();
    let n_move_kinds = kinds("nMoveRuleTypes", get("nMoveRuleTypes").unwrap_or(&n_move_default))?;
    // mobilityRegionWhiteKing, mobilityRegionBlackElephant...: the piece's name, capitalised.
    let mut mobility = [vec![None; pieces.len()], vec![None; pieces.len()]];
    for (k, piece) in pieces.iter().enumerate() {
        let mut name = piece.name.clone();
        name[..1].make_ascii_uppercase();
        for (c, colour) in ["White", "Black"].iter().enumerate() {
            let key = format!("mobilityRegion{colour}{name}");
            if get(&key).is_some() {
                mobility[c][k] = Some(region(&key, "")?);
            }
        }
    }
    let ep_both = get("enPassantRegion").unwrap_or(&all).to_string();
    let ep_region = [region("enPassantRegionWhite", &ep_both)?, region("enPassantRegionBlack", &ep_both)?];
    let walling_past = match get("wallingRule") {
        None | Some("none") => false,
        Some("past") => true,
        Some(v) => {
            return Err(err(
                "wallingRule",
                format!("'{v}': only past walls are implemented (arrow, duck, edge and static are not)"),
            ))
        }
    };
    let mut promotion_limit = vec![None; pieces.len()];
    for pair in get("promotionLimit").unwrap_or("").split_whitespace() {
        let bad = || err("promotionLimit", format!("'{pair}' is not piece:count (e.g. q:1)"));
        let (kind, n) = pair.split_once(':').ok_or_else(bad)?;
        let kind = *kinds("promotionLimit", kind)?.first().ok_or_else(bad)?;
        promotion_limit[kind] = Some(n.parse().map_err(|_| bad())?);
    }
    let material_counting = match get("materialCounting") {
        None | Some("none") => None,
        Some("unweighted") => Some(MaterialCounting::Unweighted),
        Some("whitedrawodds") => Some(MaterialCounting::WhiteDrawOdds),
        Some("blackdrawodds") => Some(MaterialCounting::BlackDrawOdds),
        Some(v) => {
            return Err(err(
                "materialCounting",
                format!("'{v}' must be unweighted, whitedrawodds, blackdrawodds or none (janggi's is not implemented)"),
            ))
        }
    };
    let soldier_rank = number("soldierPromotionRank", 1)?;
    if soldier_rank == 0 || soldier_rank > height {
        return Err(err("soldierPromotionRank", format!("rank {soldier_rank} is not on the board")));
    }
    // GUI hints Fairy-Stockfish reads and this plugin has no use for.
    for hint in ["pieceToCharTable", "pocketSize", "variantTemplate"] {
        get(hint);
    }
    let rules = Rules {
        ep_region,
        makpong: flag("makpongRule", false)?,
        walling_past,
        promotion_limit,
        drop_no_doubled_count: number("dropNoDoubledCount", 1)?,
        stalemate_piece_count: flag("stalematePieceCount", false)?,
        material_counting,
        counting: match get("countingRule") {
            None | Some("none") => None,
            Some("makruk") => Some(Counting::Makruk),
            Some("cambodian") => Some(Counting::Cambodian),
            Some("asean") => Some(Counting::Asean),
            Some(v) => return Err(err("countingRule", format!("'{v}' must be makruk, cambodian, asean or none"))),
        },
        blast: flag("blastOnCapture", false)?,
        blast_immune: kinds("blastImmuneTypes", get("blastImmuneTypes").unwrap_or(""))?,
        mutually_immune: kinds("mutuallyImmuneTypes", get("mutuallyImmuneTypes").unwrap_or(""))?,
        pseudo_royal: flag("extinctionPseudoRoyal", false)?,
        mobility,
        flying_general: flag("flyingGeneral", false)?,
        soldier_rank: soldier_rank as u8 - 1,
        n_move_kinds,
        promoted_kind,
        mandatory_piece_promotion: flag("mandatoryPiecePromotion", false)?,
        piece_demotion: flag("pieceDemotion", false)?,
        drop_promoted: flag("dropPromoted", false)?,
        promotion_on_capture: flag("piecePromotionOnCapture", false)?,
        immobility_illegal: flag("immobilityIllegal", false)?,
        drop_no_doubled,
        pawn_drop_mate_illegal: flag("shogiPawnDropMateIllegal", false)?,
        castle_rook_kinds: kinds("castlingRookPieces", get("castlingRookPieces").unwrap_or("r")).or_else(|e| {
            if get("castlingRookPieces").is_none() {
                Ok(Vec::new())
            } else {
                Err(e)
            }
        })?,
        start_fen,
        castling: flag("castling", true)?,
        chess960: flag("chess960", false)?,
        gating: match (flag("gating", false)?, flag("seirawanGating", false)?) {
            (false, false) => false,
            (true, true) => true,
            _ => {
                return Err(err(
                    "gating",
                    "only S-chess gating (gating and seirawanGating both true) is implemented".into(),
                ))
            }
        },
        castle_king_file: file("castlingKingsideFile", 6)?,
        castle_queen_file: file("castlingQueensideFile", 2)?,
        castle_rank: rank("castlingRank", 0)?,
        castle_king: match get("castlingKingPiece") {
            Some(t) => kinds("castlingKingPiece", t)?.first().copied(),
            None => pieces.iter().position(|p| p.royal),
        },
        double_step_region,
        en_passant: flag("enPassant", true)?,
        custom_pawns: pieces.iter().any(|p| p.pawn && p.name != "pawn"),
        promotion_region,
        drop_region,
        promotion_kinds,
        mandatory_promotion: flag("mandatoryPawnPromotion", true)?,
        checking: flag("checking", true)?,
        drops: flag("pieceDrops", false)?,
        captures_to_hand: flag("capturesToHand", false)?,
        drop_loop: flag("dropLoop", false)?,
        first_rank_pawn_drops: flag("firstRankPawnDrops", false)?,
        promotion_zone_pawn_drops: flag("promotionZonePawnDrops", false)?,
        must_capture: flag("mustCapture", false)?,
        stalemate: end("stalemateValue", Some(End::Draw))?.unwrap_or(End::Draw),
        checkmate: end("checkmateValue", Some(End::Loss))?.unwrap_or(End::Loss),
        extinction: end("extinctionValue", None)?,
        extinction_kinds,
        petrify_kinds: kinds("petrifyOnCaptureTypes", get("petrifyOnCaptureTypes").unwrap_or(""))?,
        extinction_count: number("extinctionPieceCount", 0)?,
        extinction_opponent_count: number("extinctionOpponentPieceCount", 0)?,
        extinction_claim: flag("extinctionClaim", false)?,
        flag: flag_kind,
        flag_regions,
        flag_move: flag("flagMove", false)?,
        flag_piece_safe: flag("flagPieceSafe", false)?,
        shatar_mate: flag("shatarMateRule", false)?,
        check_counting: flag("checkCounting", false)?,
        n_move_plies: 2 * number("nMoveRule", 50)?,
        n_fold: number("nFoldRule", 3)?,
        n_fold_value: end("nFoldValue", Some(End::Draw))?.unwrap_or(End::Draw),
        n_fold_value_absolute: flag("nFoldValueAbsolute", false)?,
        perpetual_check_illegal: flag("perpetualCheckIllegal", false)?,
        ..partial
    };
    // Anything not understood stops this variant: a key no read asked for,
    // other than a piece (built in or custom) or a piece's mobility region.
    let asked = asked.into_inner();
    let known = |k: &String| asked.contains(k) || custom_index(k).is_some() || k.starts_with("mobilityRegion");
    if let Some(k) = keys.keys().find(|k| !known(k)) {
        return Err(err(k, "unknown key, or a rule this plugin does not implement".into()));
    }
    Ok(rules)
}

/// The reach table of `steps`.
fn reach_of(steps: &[Step]) -> Vec<u64> {
    let mut reach = vec![0u64; (REACH_FILES * 19) as usize];
    for (i, st) in steps.iter().enumerate().filter(|(_, st)| st.capture) {
        // Steps past the 63rd share the last bit.
        let bit = 1u64 << i.min(63);
        let most = if st.range == 0 || st.hop != crate::betza::Hop::None { 11 } else { st.range as i32 };
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
        let most = if st.range == 0 || st.hop != crate::betza::Hop::None { 11 } else { st.range as i32 };
        let mine: std::collections::HashSet<(i32, i32)> =
            (1..=most).map(|k| (k * st.dx as i32, k * st.dy as i32)).collect();
        if mine.iter().any(|o| seen.contains(o)) {
            return true;
        }
        seen.extend(mine);
    }
    false
}

fn custom_index(key: &str) -> Option<u32> {
    key.strip_prefix("customPiece").and_then(|n| n.parse().ok()).filter(|n| (1..=25).contains(n))
}

fn single_letter(v: &str) -> Option<char> {
    let mut c = v.chars();
    let l = c.next()?;
    (c.next().is_none() && l.is_ascii_alphabetic()).then_some(l.to_ascii_lowercase())
}
