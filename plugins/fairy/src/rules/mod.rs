//! A variant's rules, read from its ini keys: the board, the pieces (built-in
//! names or `customPieceN = letter:betza`), the start position and every
//! rule the engine implements. A key this engine does not implement is an
//! error naming its file and line, never silently ignored: a variant is
//! played exactly or not at all.

use crate::betza::Step;

mod build;
pub use build::build;

/// One kind of piece.
#[derive(Clone, Debug)]
pub struct PieceDef {
    /// Its Fairy-Stockfish name (`knight`, `customPiece1`).
    pub name: String,
    /// Its letter, lowercase (Black's; White's is the uppercase).
    pub letter: char,
    /// The letter its moves are written with, uppercase: its own, or the
    /// synonym `pieceToCharSynonyms` gives it (xiangqi's horse is `n` in
    /// FEN and `H` in a move).
    pub move_letter: char,
    /// How it moves and captures (White's orientation; Black's is turned half round, as Fairy-Stockfish turns it).
    pub steps: Vec<Step>,
    /// A royal piece: its side must never leave it attacked.
    pub royal: bool,
    /// A pawn: double steps, en passant and promotion apply to it.
    pub pawn: bool,
    /// A soldier: it steps only forward until it reaches `soldierPromotionRank`.
    pub soldier: bool,
    /// It has initial leaps (Betza's `i`): a custom pawn's double step,
    /// which leaves squares to take it on en passant.
    pub initial_leaps: bool,
    /// For each offset (White's view, see [`reach_index`]), the capturing
    /// steps that could reach it on an empty board, as a bit mask: attack
    /// tests look there before walking any ray.
    pub reach: Vec<u64>,
    /// Two of its steps can reach one square (a tori shogi eagle's K and
    /// bR): its targets are then made unique.
    pub overlapping: bool,
    /// Its place in Fairy-Stockfish's order of piece types (pockets are written in it).
    pub order: u32,
    /// How it moves along the palace's diagonals when it stands on one
    /// (`diagonalLines`), if it does.
    pub palace: Option<Palace>,
    /// A Janggi cannon: no Janggi cannon hops over it or takes it.
    pub janggi_cannon: bool,
}

/// How a piece moves along the diagonal lines of Janggi's palaces
/// (`diagonalLines`), from one of their points to another, as
/// Fairy-Stockfish moves its built-in kinds there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Palace {
    /// One step along a line (the wazir, a king that moves as one).
    Step,
    /// One step forward along a line (the soldier).
    Forward,
    /// Along a line as far as it is open (the rook).
    Slide,
    /// Along a line over one piece that is not a Janggi cannon (the Janggi cannon).
    Hop,
}

/// The most piece kinds a variant has.
pub const MOST_KINDS: usize = 40;

/// How a game ends for the player it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// That player wins.
    Win,
    /// That player loses.
    Loss,
    /// Nobody wins.
    Draw,
}

/// What a drawn game becomes under `materialCounting`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaterialCounting {
    /// Whoever has more pieces wins (`unweighted`).
    Unweighted,
    /// White wins every draw (`whitedrawodds`).
    WhiteDrawOdds,
    /// Black wins every draw (`blackdrawodds`, armageddon).
    BlackDrawOdds,
    /// Janggi's points (`janggi`): rook 13, cannon 7, horse 5, elephant
    /// and advisor 3, soldier 2; Black (Han) wins a tie, its 1.5 points'
    /// komi made whole.
    Janggi,
}

impl End {
    /// The same end seen by the other player.
    pub fn reversed(self) -> End {
        match self {
            End::Win => End::Loss,
            End::Loss => End::Win,
            End::Draw => End::Draw,
        }
    }
}

/// A counting rule of the south-east Asian games (`countingRule`): once
/// one side is down to its king (or, on the board's honour, no pawn is
/// left), the other must mate within a count of moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// Makruk's board's and pieces' honour counts.
    Makruk,
    /// Ouk Chatrang's (cambodian) counts.
    Cambodian,
    /// ASEAN chess's counts.
    Asean,
}

/// How moves are written for players (engines read coordinates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// Standard algebraic notation, as Fairy-Stockfish writes it for
    /// every variant (`Nf3`, `exd5`, `P@e4`, `O-O/He1`, `e8=Q+`).
    San,
    /// Western shogi notation with numbers (`P-76`, `Bx33+`, `S*45`,
    /// `+R-28`), Fairy-Stockfish's for `variantTemplate = shogi`.
    Shogi,
}

/// Which game's board of lines a variant is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Points {
    /// Xiangqi's: a river across the middle; the sides are Red and Black.
    Xiangqi,
    /// Janggi's: no river; the sides are Cho (blue, moving first) and Han (red).
    Janggi,
}

/// Where a move puts its wall (`wallingRule`): after moving, the mover
/// puts a wall (`*` in FEN: no piece enters, passes or takes it) on an
/// empty square of its `wallingRegion`...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walling {
    /// ...the one it left (`past`: snailtrail, joust).
    Past,
    /// ...one the moved piece could move to from where it landed (`arrow`:
    /// the game of the Amazons).
    Arrow,
    /// ...any, the wall (the duck) leaving the square it stood on (`duck`).
    Duck,
    /// ...any (`static`: isolation).
    Static,
    /// ...one on the board's edge or beside a wall (`edge`).
    Edge,
}

/// Where a drop may go, and which pieces a move turns
/// (`enclosingDrop`, `flipEnclosedPieces`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enclosing {
    /// Reversi: a drop must close a line of the opponent's pieces
    /// between it and one of the mover's, and those pieces turn.
    Reversi,
    /// Ataxx: a drop goes beside one of the mover's pieces, and every
    /// opponent's piece beside where a piece lands turns.
    Ataxx,
    /// Snort: a drop never goes beside (orthogonally) an opponent's piece.
    Snort,
    /// Drops go on the first rank or onto a piece (Connect Four).
    Top,
}

/// Every rule of one variant.
#[derive(Clone, Debug)]
pub struct Rules {
    /// The variant's id (its section name).
    pub id: String,
    /// The user's ini file that defined it; `None` for the built-in definitions.
    pub source: Option<String>,
    /// Its definition: every key it resolves to (inherited ones included),
    /// `key = value` a line in key order. Two machines whose files define
    /// one name otherwise have different definitions.
    pub definition: String,
    /// Files.
    pub width: u8,
    /// Ranks.
    pub height: u8,
    /// The piece kinds; a piece's kind is its index here.
    pub pieces: Vec<PieceDef>,
    /// How moves are written for players.
    pub notation: Notation,
    /// Pieces stand on the points where lines cross, with palaces
    /// (`variantTemplate = xiangqi` or `janggi`), not in squares.
    pub on_points: Option<Points>,
    /// The start position (FEN).
    pub start_fen: String,
    /// Castling is allowed.
    pub castling: bool,
    /// Chess960 castling (`chess960`): written king takes rook, rights as files.
    pub chess960: bool,
    /// S-chess gating (`gating` with `seirawanGating`): a piece leaving a
    /// square of its side's gates may bring a piece from hand onto it.
    pub gating: bool,
    /// Cambodian chess's first moves (`cambodianMoves`, with `gating`):
    /// from its gate (a file letter in FEN's castling field) the king may
    /// leap as a knight one rank forward, the met (fers) step twice forward.
    pub cambodian_moves: bool,
    /// The file a king castles to on the kingside (0-based).
    pub castle_king_file: u8,
    /// The file a king castles to on the queenside.
    pub castle_queen_file: u8,
    /// The rank castling happens on, from each side's own side (0-based).
    pub castle_rank: u8,
    /// The kind that castles (the king by default).
    pub castle_king: Option<usize>,
    /// The kinds a king castles with (rooks by default).
    pub castle_rook_kinds: Vec<usize>,
    /// Squares a pawn may step twice from, White's then Black's.
    pub double_step_region: [Vec<bool>; 2],
    /// En passant captures exist.
    pub en_passant: bool,
    /// A piece other than the built-in pawn is a pawn (`pawnTypes`): as
    /// Fairy-Stockfish does for such pawns, a double step always leaves
    /// its en passant squares, written as the passed square and the one
    /// the pawn stands on (`e3e4`).
    pub custom_pawns: bool,
    /// For each side, by kind: the kinds that promote as pawns do on
    /// reaching the promotion region (`promotionPawnTypes(White/Black)`;
    /// the pawns by default).
    pub promotion_pawns: [Vec<bool>; 2],
    /// For each side, by kind: the kinds that may take en passant
    /// (`enPassantTypes(White/Black)`; the pawns by default).
    pub ep_takers: [Vec<bool>; 2],
    /// Squares a pawn promotes on, White's then Black's.
    pub promotion_region: [Vec<bool>; 2],
    /// The kinds a pawn may promote to, White's then Black's.
    pub promotion_kinds: [Vec<usize>; 2],
    /// A pawn reaching the promotion zone must promote.
    pub mandatory_promotion: bool,
    /// A move may give check (`checking = false`: no move may, as in racing kings).
    pub checking: bool,
    /// Some kind is royal (a king): moves are tried for its safety.
    pub has_royal: bool,
    /// The squares each side may take en passant on (`enPassantRegion`), White's then Black's.
    pub ep_region: [Vec<bool>; 2],
    /// A king in check may move only to take the checker (`makpongRule`).
    pub makpong: bool,
    /// Where every move puts a wall (`wallingRule`), if it puts one.
    pub walling: Option<Walling>,
    /// The squares each side may put a wall on, White's then Black's (`wallingRegion`).
    pub walling_region: [Vec<bool>; 2],
    /// How many of a kind a side may hold before no pawn may promote to it (`promotionLimit`).
    pub promotion_limit: Vec<Option<u32>>,
    /// How many unpromoted pieces of the `dropNoDoubled` kind a file may hold before none is dropped there.
    pub drop_no_doubled_count: u32,
    /// Stalemate is won by whoever has fewer pieces (`stalematePieceCount`).
    pub stalemate_piece_count: bool,
    /// The counting rule (`countingRule`).
    pub counting: Option<Counting>,
    /// What a draw becomes (`materialCounting`).
    pub material_counting: Option<MaterialCounting>,
    /// A capture explodes: the capturer and every piece but pawns next to
    /// the square go too (`blastOnCapture`, atomic).
    pub blast: bool,
    /// The kinds no blast removes (`blastImmuneTypes`).
    pub blast_immune: Vec<usize>,
    /// The kinds that may not take a piece of their own kind (`mutuallyImmuneTypes`).
    pub mutually_immune: Vec<usize>,
    /// The extinction kinds are pseudo-royal while a side has at most one
    /// more than `extinctionPieceCount` of them: no move may leave one
    /// attacked (`extinctionPseudoRoyal`).
    pub pseudo_royal: bool,
    /// Spartan's duple check (`dupleCheck`): no move may leave every one
    /// of the mover's extinction pieces attacked (one of two kings may be
    /// left in check).
    pub duple_check: bool,
    /// Pieces in hand may be dropped.
    pub drops: bool,
    /// Captured pieces go to the capturer's hand.
    pub captures_to_hand: bool,
    /// A captured promoted pawn goes to hand as what it became (`dropLoop`).
    pub drop_loop: bool,
    /// Squares each side may drop on.
    pub drop_region: [Vec<bool>; 2],
    /// While a side holds a piece (of `must_drop_kind`, if given), it must
    /// drop one if it can (`mustDrop`: placement's and sittuyin's setup).
    pub must_drop: bool,
    /// The kind `must_drop` is about (`mustDropType`; `None`: any).
    pub must_drop_kind: Option<usize>,
    /// Bishops must be dropped onto squares of both colours
    /// (`dropOppositeColoredBishop`).
    pub drop_opposite_colored_bishop: bool,
    /// A king dropped on its castling square, or a rook dropped in a
    /// corner beside such a king, gets castling rights (`castlingDroppedPiece`).
    pub castling_dropped_piece: bool,
    /// The file a castling king starts on (`castlingKingFile`, for dropped kings).
    pub castle_king_home_file: u8,
    /// Rooks are dropped on the first rank only (`sittuyinRookDrop`).
    pub sittuyin_rook_drop: bool,
    /// Sittuyin's promotion (`sittuyinPromotion`): a pawn in the promotion
    /// zone (anywhere, if it is the side's last) may, as its move, turn
    /// into a promotion piece where it stands or one step of that piece
    /// away, onto an empty square, attacking no enemy piece and giving no check.
    pub sittuyin_promotion: bool,
    /// Where a drop may go beside its region (`enclosingDrop`).
    pub enclosing_drop: Option<Enclosing>,
    /// While one of these squares is empty, drops go only there
    /// (`enclosingDropStart`: reversi's four centre squares).
    pub enclosing_drop_start: Vec<usize>,
    /// Which pieces a move turns to the mover's (`flipEnclosedPieces`).
    pub flip_enclosed: Option<Enclosing>,
    /// Drops take nothing from the hand, which FEN does not write (ataxx's
    /// clones; arbiter's key `freeDrops`, built in at Fairy-Stockfish).
    pub free_drops: bool,
    /// A side with no legal move passes instead, White's then Black's
    /// (`passOnStalemate`); two passes in a row end the game.
    pub pass_on_stalemate: [bool; 2],
    /// A full board ends the game (`adjudicateFullBoard`): a draw, or the
    /// material count's result.
    pub adjudicate_full_board: bool,
    /// A side may pass instead of moving, unless in check, White's then
    /// Black's (`pass`, `passWhite`, `passBlack`: Janggi); written as its
    /// king (else its first piece) staying where it is. Two passes in a
    /// row end the game.
    pub pass: [bool; 2],
    /// The points of the palaces' diagonal lines (`diagonalLines`; empty:
    /// none): see [`Palace`].
    pub diagonal_lines: Vec<bool>,
    /// Janggi's bikjang (`bikjangRule`): kings that face each other on an
    /// open line must be parted by the player to move, unless it passes;
    /// facing after two moves in a row ends the game (a draw, or the
    /// material count's result).
    pub bikjang: bool,
    /// Janggi's move repetition (`moveRepetitionIllegal`, Kakao Janggi's):
    /// a piece that could enter the enemy palace moved back and forth
    /// twice, out of check, loses for its side.
    pub move_repetition_illegal: bool,
    /// Pawns may be dropped on the first rank.
    pub first_rank_pawn_drops: bool,
    /// Pawns may be dropped in the promotion zone.
    pub promotion_zone_pawn_drops: bool,
    /// Any capture, if one exists, must be made.
    pub must_capture: bool,
    /// For the player to move with no legal move, not in check.
    pub stalemate: End,
    /// For the player to move with no legal move, in check.
    pub checkmate: End,
    /// For a player with no piece of `extinction_kinds` left.
    pub extinction: Option<End>,
    /// The kinds that must not all be lost (empty: every kind).
    pub extinction_kinds: Vec<usize>,
    /// The kinds that turn to stone (a wall) where they capture
    /// (`petrifyOnCaptureTypes`).
    pub petrify_kinds: Vec<usize>,
    /// A side with at most this many of those kinds is extinct...
    pub extinction_count: u32,
    /// ...while the other side has at least this many.
    pub extinction_opponent_count: u32,
    /// Only the side to move wins by its opponent's extinction (a bare king may bare back).
    pub extinction_claim: bool,
    /// A kind that wins by reaching its side's flag region.
    pub flag: Option<usize>,
    /// The flag squares, White's then Black's.
    pub flag_regions: [Vec<usize>; 2],
    /// After the first side reaches its flag, the other may still reach its own for a draw.
    pub flag_move: bool,
    /// A flag counts only for a piece the opponent cannot take there (`flagPieceSafe`, dobutsu's lion).
    pub flag_piece_safe: bool,
    /// Shatar's mate: not by a knight alone, and only after a check by a
    /// knight, rook or bers in the series of checks that ends in it (else a draw).
    pub shatar_mate: bool,
    /// Giving check counts: the FEN holds the checks left to give.
    pub check_counting: bool,
    /// Plies without a capture or pawn move after which a draw may be claimed (0: off).
    pub n_move_plies: u32,
    /// Occurrences of a position after which the game ends (0: off): a
    /// draw that may be claimed, unless [`Rules::n_fold_value`] or perpetual
    /// check decide otherwise.
    pub n_fold: u32,
    /// What the n-th occurrence gives the player to move (`nFoldValue`).
    pub n_fold_value: End,
    /// [`Rules::n_fold_value`] is White's (the first player's) whoever is
    /// to move, Black getting the reverse (`nFoldValueAbsolute`).
    pub n_fold_value_absolute: bool,
    /// A repetition reached by checking in every move of it loses for the
    /// side giving the checks (`perpetualCheckIllegal`).
    pub perpetual_check_illegal: bool,
    /// Xiangqi's chasing rule (`chasingRule = axf`): a repetition in which
    /// one side chased the same piece with every move loses for it; the
    /// n-move rule's count allows for long runs of checks.
    pub chasing: bool,
    /// The kind each kind promotes to, shogi-style (`promotedPieceType`).
    pub promoted_kind: Vec<Option<usize>>,
    /// A piece in the promotion zone must promote.
    pub mandatory_piece_promotion: bool,
    /// A promoted piece turns back on its next move in the zone (`pieceDemotion`, kyoto shogi).
    pub piece_demotion: bool,
    /// Pieces in hand may be dropped promoted (`dropPromoted`).
    pub drop_promoted: bool,
    /// Pieces promote and demote only by taking (`piecePromotionOnCapture`, micro shogi).
    pub promotion_on_capture: bool,
    /// No move or drop may leave a piece where it could never move again.
    pub immobility_illegal: bool,
    /// The kind no side may drop on a file it already holds unpromoted.
    pub drop_no_doubled: Option<usize>,
    /// A mate by dropping a shogi pawn loses for the dropper (Fairy-Stockfish
    /// lets the drop be played and scores it so; shogi calls it a foul).
    pub pawn_drop_mate_illegal: bool,
    /// The kinds whose moves reset the n-move count, White's then Black's
    /// (`nMoveRuleTypes(White/Black)`; the pawns by default).
    pub n_move_kinds: [Vec<usize>; 2],
    /// Where each kind may stand, White's then Black's (`mobilityRegionWhiteKing`...; `None`: anywhere).
    pub mobility: [Vec<Option<Vec<bool>>>; 2],
    /// Kings may not face each other on an open file (`flyingGeneral`).
    pub flying_general: bool,
    /// A soldier steps only forward until it reaches this rank of its own (0-based; `soldierPromotionRank`).
    pub soldier_rank: u8,
    /// Every long-range move slides or hops along a rank, file or diagonal,
    /// and every lame leap's blocking square lies on one from its target: a
    /// move that leaves no such line through the king (and, with hoppers,
    /// lands on none) cannot expose it.
    pub lines_only: bool,
    /// Some piece hops (a cannon, a grasshopper): a piece landing on a line
    /// through the king may make a screen.
    pub hoppers: bool,
    /// Some piece leaps lamely (a xiangqi horse): a piece leaving a leap's
    /// blocking square may unblock it, though no line runs from the leaper
    /// through that square to the king.
    pub lame_leapers: bool,
    /// The farthest a lame leap's blocking square lies from the leap's
    /// target (on a line from it, as `lines_only` requires), in king steps.
    pub lame_reach: u8,
}

impl Rules {
    /// Whether a piece of `kind` promoting to `to` for `side` (0 White, 1
    /// Black) is a pawn's promotion (`e8=Q`, marked `~` in a drop variant)
    /// rather than a shogi-style one (`+`, turned back when taken).
    pub fn pawn_promotion(&self, side: usize, kind: usize, to: usize) -> bool {
        self.promotion_pawns[side][kind] && self.promotion_kinds[side].contains(&to)
    }

    /// The kind written with `letter` (either case), or with its synonym
    /// (`pieceToCharSynonyms`).
    pub fn kind_of(&self, letter: char) -> Option<usize> {
        let l = letter.to_ascii_lowercase();
        self.pieces.iter().position(|p| p.letter == l).or_else(|| {
            let u = letter.to_ascii_uppercase();
            self.pieces.iter().position(|p| p.move_letter == u)
        })
    }

    /// How a piece of `kind` is labelled on a board, by the letter its
    /// moves name it with (xiangqi's horse H, not FEN's N), upper case for
    /// the first player; promoted shogi-style from `base`, as FEN writes
    /// it (`+P`).
    pub fn label(&self, kind: usize, first_player: bool, base: Option<usize>) -> String {
        let letter = |k: usize| {
            let l = self.pieces[k].move_letter;
            if first_player {
                l.to_ascii_uppercase()
            } else {
                l.to_ascii_lowercase()
            }
        };
        match base {
            Some(b) => format!("+{}", letter(b)),
            None => letter(kind).to_string(),
        }
    }

    /// The square index of `file` and `rank`.
    pub fn square(&self, file: u8, rank: u8) -> usize {
        rank as usize * self.width as usize + file as usize
    }

    /// A square's name (`a1`, `j10`).
    pub fn square_name(&self, sq: usize) -> String {
        let (f, r) = (sq % self.width as usize, sq / self.width as usize);
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    /// The squares a run of square names gives (`e3e4`), if each is one.
    pub fn parse_squares(&self, text: &str) -> Option<Vec<usize>> {
        if !text.is_ascii() {
            return None;
        }
        let mut out = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let digits = rest.bytes().skip(1).take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            out.push(self.parse_square(&rest[..1 + digits])?);
            rest = &rest[1 + digits..];
        }
        Some(out)
    }

    /// The square a name such as `e4` or `a10` names, if it is on the board.
    pub fn parse_square(&self, text: &str) -> Option<usize> {
        let mut chars = text.chars();
        let f = chars.next()?;
        if !f.is_ascii_lowercase() {
            return None;
        }
        let rank: usize = chars.as_str().parse().ok()?;
        let file = (f as u8 - b'a') as usize;
        (file < self.width as usize && (1..=self.height as usize).contains(&rank))
            .then(|| (rank - 1) * self.width as usize + file)
    }
}

/// The offsets a board of up to 12x10 allows: files -11..=11, ranks -9..=9.
const REACH_FILES: i32 = 23;

/// The index of the offset (`dx` files, `dy` ranks) in a [`PieceDef::reach`] table.
pub fn reach_index(dx: i32, dy: i32) -> usize {
    ((dy + 9) * REACH_FILES + dx + 11) as usize
}
