//! FEN in and out for standard chess. Parsing validates field by field and
//! returns an error naming the field and what is wrong with it; only a
//! well-formed, legal position becomes a [`Board`].

use arbiter_api::Error;
use cozy_chess::{get_pawn_attacks, Board, BoardBuilder, CastleRights, Color, File, Move, Piece, Rank, Square};

/// The standard start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A parsed FEN: the board and the halfmove clock (kept apart because the
/// board type caps its own clock at 100 plies and the 75-move rule needs 150).
pub struct ParsedFen {
    /// The position.
    pub board: Board,
    /// Plies since the last capture or pawn move.
    pub halfmove_clock: u16,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::bad_position(format!("FEN: {}", msg.into()))
}

/// The FEN letter of a piece.
pub fn piece_letter(piece: Piece, color: Color) -> char {
    let c = match piece {
        Piece::Pawn => 'p',
        Piece::Knight => 'n',
        Piece::Bishop => 'b',
        Piece::Rook => 'r',
        Piece::Queen => 'q',
        Piece::King => 'k',
    };
    if color == Color::White {
        c.to_ascii_uppercase()
    } else {
        c
    }
}

fn letter_piece(c: char) -> Option<(Piece, Color)> {
    let piece = match c.to_ascii_lowercase() {
        'p' => Piece::Pawn,
        'n' => Piece::Knight,
        'b' => Piece::Bishop,
        'r' => Piece::Rook,
        'q' => Piece::Queen,
        'k' => Piece::King,
        _ => return None,
    };
    Some((piece, if c.is_ascii_uppercase() { Color::White } else { Color::Black }))
}

fn color_name(color: Color) -> &'static str {
    if color == Color::White {
        "white"
    } else {
        "black"
    }
}

/// Parses a square name such as `e4`.
pub fn parse_square(s: &str) -> Option<Square> {
    let b = s.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    Some(Square::new(File::index((b[0] - b'a') as usize), Rank::index((b[1] - b'1') as usize)))
}

/// Parses a FEN. Four fields (EPD style) are accepted, with the clocks
/// defaulting to `0 1`.
pub fn parse_fen(text: &str) -> Result<ParsedFen, Error> {
    parse_fen_with(text, false)
}

/// Parses a FEN; for Chess960 (`chess960`) its castling field may be X-FEN
/// (`KQkq`: the outermost rook on that side of the king) or Shredder-FEN
/// (the rooks' files, `HAha`), with the king anywhere between its rooks.
pub fn parse_fen_with(text: &str, chess960: bool) -> Result<ParsedFen, Error> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 6 && fields.len() != 4 {
        return Err(bad(format!(
            "expected 6 fields (board, side, castling, en passant, halfmove, fullmove), found {} in '{}'",
            fields.len(),
            text.trim()
        )));
    }
    let mut builder = BoardBuilder::empty();
    parse_board(fields[0], &mut builder)?;

    builder.side_to_move = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        other => return Err(bad(format!("side to move '{other}' must be 'w' or 'b'"))),
    };
    check_kings_and_pawns(&builder)?;
    if chess960 {
        parse_castling_960(fields[2], &mut builder)?;
    } else {
        parse_castling(fields[2], &mut builder)?;
    }
    parse_en_passant(fields[3], &mut builder)?;

    let halfmove_clock: u16 = match fields.get(4) {
        None => 0,
        Some(s) => s.parse().map_err(|_| bad(format!("halfmove clock '{s}' is not a number from 0 to 65535")))?,
    };
    let fullmove: u16 = match fields.get(5) {
        None => 1,
        Some(s) => match s.parse::<u16>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(bad(format!("fullmove number '{s}' must be a whole number from 1 to 65535"))),
        },
    };
    builder.halfmove_clock = halfmove_clock.min(100) as u8;
    builder.fullmove_number = fullmove;

    let idle = !builder.side_to_move;
    if is_attacked(&builder, king_square(&builder, idle), builder.side_to_move) {
        return Err(bad(format!("the side not to move ({}) is in check", color_name(idle))));
    }
    let board = builder.build().map_err(|e| bad(format!("impossible position: {e}")))?;
    Ok(ParsedFen { board, halfmove_clock })
}

fn king_square(builder: &BoardBuilder, color: Color) -> Square {
    Square::ALL.into_iter().find(|&s| builder.square(s) == Some((Piece::King, color))).expect("kings checked before")
}

/// Whether `by` attacks `target` in the builder's position.
fn is_attacked(builder: &BoardBuilder, target: Square, by: Color) -> bool {
    use cozy_chess::{get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard};
    let occ =
        Square::ALL.into_iter().filter(|&s| builder.square(s).is_some()).fold(BitBoard::EMPTY, |b, s| b | s.bitboard());
    Square::ALL.into_iter().any(|sq| {
        let attacks = match builder.square(sq) {
            Some((piece, color)) if color == by => match piece {
                Piece::Pawn => get_pawn_attacks(sq, by),
                Piece::Knight => get_knight_moves(sq),
                Piece::Bishop => get_bishop_moves(sq, occ),
                Piece::Rook => get_rook_moves(sq, occ),
                Piece::Queen => get_bishop_moves(sq, occ) | get_rook_moves(sq, occ),
                Piece::King => get_king_moves(sq),
            },
            _ => BitBoard::EMPTY,
        };
        attacks.has(target)
    })
}

fn parse_board(field: &str, builder: &mut BoardBuilder) -> Result<(), Error> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(bad(format!("board '{field}' has {} ranks, expected 8", ranks.len())));
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - i;
        let mut file = 0usize;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10) {
                if d == 0 || d > 8 {
                    return Err(bad(format!(
                        "rank {} ('{rank_text}'): '{c}' is not a count of empty squares (1-8)",
                        rank + 1
                    )));
                }
                file += d as usize;
            } else if let Some(pc) = letter_piece(c) {
                if file < 8 {
                    *builder.square_mut(Square::new(File::index(file), Rank::index(rank))) = Some(pc);
                }
                file += 1;
            } else {
                return Err(bad(format!("rank {} ('{rank_text}'): bad piece letter '{c}'", rank + 1)));
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            return Err(bad(format!("rank {} ('{rank_text}') covers {file} squares, expected 8", rank + 1)));
        }
    }
    Ok(())
}

fn check_kings_and_pawns(builder: &BoardBuilder) -> Result<(), Error> {
    for color in Color::ALL {
        let count = |piece: Piece| Square::ALL.iter().filter(|&&s| builder.square(s) == Some((piece, color))).count();
        match count(Piece::King) {
            1 => {}
            0 => return Err(bad(format!("{} has no king", color_name(color)))),
            n => return Err(bad(format!("{} has {n} kings", color_name(color)))),
        }
        if count(Piece::Pawn) > 8 {
            return Err(bad(format!("{} has {} pawns, at most 8 are possible", color_name(color), count(Piece::Pawn))));
        }
        let total = Square::ALL.iter().filter(|&&s| matches!(builder.square(s), Some((_, c)) if c == color)).count();
        if total > 16 {
            return Err(bad(format!("{} has {total} pieces, at most 16 are possible", color_name(color))));
        }
    }
    for sq in Square::ALL {
        if matches!(builder.square(sq), Some((Piece::Pawn, _)))
            && (sq.rank() == Rank::First || sq.rank() == Rank::Eighth)
        {
            return Err(bad(format!("pawn on {sq}: pawns cannot stand on the first or last rank")));
        }
    }
    Ok(())
}

fn parse_castling(field: &str, builder: &mut BoardBuilder) -> Result<(), Error> {
    builder.castle_rights = [CastleRights::EMPTY; 2];
    if field == "-" {
        return Ok(());
    }
    for c in field.chars() {
        let (color, short) = match c {
            'K' => (Color::White, true),
            'Q' => (Color::White, false),
            'k' => (Color::Black, true),
            'q' => (Color::Black, false),
            _ => return Err(bad(format!("castling field '{field}': bad letter '{c}' (use K, Q, k, q or -)"))),
        };
        let back = Rank::First.relative_to(color);
        let rook_file = if short { File::H } else { File::A };
        let king_sq = Square::new(File::E, back);
        let rook_sq = Square::new(rook_file, back);
        if builder.square(king_sq) != Some((Piece::King, color))
            || builder.square(rook_sq) != Some((Piece::Rook, color))
        {
            return Err(bad(format!(
                "castling right '{c}' needs the {} king on {king_sq} and a rook on {rook_sq}",
                color_name(color)
            )));
        }
        let rights = &mut builder.castle_rights[color as usize];
        let slot = if short { &mut rights.short } else { &mut rights.long };
        if slot.is_some() {
            return Err(bad(format!("castling field '{field}': '{c}' appears twice")));
        }
        *slot = Some(rook_file);
    }
    Ok(())
}

/// Chess960 castling rights: `K`/`Q` (the outermost rook on the king's
/// side), or a rook's file letter, upper case for White.
fn parse_castling_960(field: &str, builder: &mut BoardBuilder) -> Result<(), Error> {
    builder.castle_rights = [CastleRights::EMPTY; 2];
    if field == "-" {
        return Ok(());
    }
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back = Rank::First.relative_to(color);
        let king = File::ALL
            .into_iter()
            .find(|&f| builder.square(Square::new(f, back)) == Some((Piece::King, color)))
            .ok_or_else(|| bad(format!("castling right '{c}': no {} king on its back rank", color_name(color))))?;
        let rook_on = |f: File| builder.square(Square::new(f, back)) == Some((Piece::Rook, color));
        let rook = match c.to_ascii_lowercase() {
            'k' => File::ALL.into_iter().rev().find(|&f| f > king && rook_on(f)),
            'q' => File::ALL.into_iter().find(|&f| f < king && rook_on(f)),
            l @ 'a'..='h' => Some(File::index((l as u8 - b'a') as usize)).filter(|&f| f != king && rook_on(f)),
            _ => {
                return Err(bad(format!("castling field '{field}': bad letter '{c}' (use K, Q, k, q, A-H, a-h or -)")))
            }
        }
        .ok_or_else(|| bad(format!("castling right '{c}': no {} rook for it on its back rank", color_name(color))))?;
        let rights = &mut builder.castle_rights[color as usize];
        let slot = if rook > king { &mut rights.short } else { &mut rights.long };
        if slot.is_some() {
            return Err(bad(format!(
                "castling field '{field}': two rights on one side of the {} king",
                color_name(color)
            )));
        }
        *slot = Some(rook);
    }
    Ok(())
}

fn parse_en_passant(field: &str, builder: &mut BoardBuilder) -> Result<(), Error> {
    if field == "-" {
        builder.en_passant = None;
        return Ok(());
    }
    let sq = parse_square(field).ok_or_else(|| bad(format!("en passant square '{field}' is not a square")))?;
    let mover = builder.side_to_move;
    let expected = Rank::Sixth.relative_to(mover);
    if sq.rank() != expected {
        return Err(bad(format!(
            "en passant square {sq} must be on rank {} when {} is to move",
            expected as usize + 1,
            color_name(mover)
        )));
    }
    let pawn_sq = Square::new(sq.file(), Rank::Fifth.relative_to(mover));
    let from_sq = Square::new(sq.file(), Rank::Seventh.relative_to(mover));
    if builder.square(pawn_sq) != Some((Piece::Pawn, !mover))
        || builder.square(sq).is_some()
        || builder.square(from_sq).is_some()
    {
        return Err(bad(format!(
            "en passant square {sq}: no {} pawn on {pawn_sq} can just have moved two squares",
            color_name(!mover)
        )));
    }
    builder.en_passant = Some(sq);
    Ok(())
}

/// Writes `board` as FEN with `halfmove_clock`. The en passant square is
/// written only when an en passant capture is legal (as python-chess does).
pub fn write_fen(board: &Board, halfmove_clock: u16) -> String {
    write_fen_with(board, halfmove_clock, false)
}

/// [`write_fen`]; for Chess960, castling rights as X-FEN: `K`/`Q` for the
/// outermost rook on that side, the rook's file letter otherwise.
pub fn write_fen_with(board: &Board, halfmove_clock: u16, chess960: bool) -> String {
    let mut out = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let sq = Square::new(File::index(file), Rank::index(rank));
            match (board.piece_on(sq), board.color_on(sq)) {
                (Some(p), Some(c)) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    out.push(piece_letter(p, c));
                }
                _ => empty += 1,
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out.push_str(if board.side_to_move() == Color::White { " w " } else { " b " });
    let mut castling = String::new();
    for (color, short, c) in
        [(Color::White, true, 'K'), (Color::White, false, 'Q'), (Color::Black, true, 'k'), (Color::Black, false, 'q')]
    {
        let r = board.castle_rights(color);
        let Some(rook) = (if short { r.short } else { r.long }) else { continue };
        let back = Rank::First.relative_to(color);
        let king = board.king(color).file();
        let outer = |f: File| (if short { f > rook } else { f < rook }) && f != king;
        let hidden = File::ALL.into_iter().any(|f| {
            outer(f)
                && board.piece_on(Square::new(f, back)) == Some(Piece::Rook)
                && board.color_on(Square::new(f, back)) == Some(color)
        });
        if chess960 && hidden {
            let letter = char::from(b'a' + rook as u8);
            castling.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
        } else {
            castling.push(c);
        }
    }
    out.push_str(if castling.is_empty() { "-" } else { &castling });
    out.push(' ');
    match legal_en_passant(board) {
        Some(sq) => out.push_str(&sq.to_string()),
        None => out.push('-'),
    }
    out.push_str(&format!(" {} {}", halfmove_clock, board.fullmove_number()));
    out
}

/// The en passant target square if an en passant capture is legal now.
pub fn legal_en_passant(board: &Board) -> Option<Square> {
    let file = board.en_passant()?;
    let us = board.side_to_move();
    let target = Square::new(file, Rank::Sixth.relative_to(us));
    let ours = board.colored_pieces(us, Piece::Pawn);
    (get_pawn_attacks(target, !us) & ours)
        .into_iter()
        .any(|from| board.is_legal(Move { from, to: target, promotion: None }))
        .then_some(target)
}
