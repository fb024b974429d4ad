//! Move notation: SAN out (with disambiguation, capture, promotion and
//! check/mate marks, `O-O`), SAN and UCI long algebraic in, UCI out.
//! Castling is held internally as "king takes own rook"; UCI uses `e1g1`.

use arbiter_api::Error;
use cozy_chess::{BitBoard, Board, Color, File, Move, Piece, Square};

use crate::fen::{parse_square, write_fen};

/// Whether `mv` is a castling move (the king moves onto its own rook).
pub fn is_castle(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::King) && board.colors(board.side_to_move()).has(mv.to)
}

/// Whether `mv` captures (en passant included).
pub fn is_capture(board: &Board, mv: Move) -> bool {
    board.colors(!board.side_to_move()).has(mv.to)
        || (board.piece_on(mv.from) == Some(Piece::Pawn) && mv.from.file() != mv.to.file())
}

fn piece_char(piece: Piece) -> char {
    match piece {
        Piece::Pawn => 'P',
        Piece::Knight => 'N',
        Piece::Bishop => 'B',
        Piece::Rook => 'R',
        Piece::Queen => 'Q',
        Piece::King => 'K',
    }
}

fn char_piece(c: char) -> Option<Piece> {
    Some(match c {
        'N' => Piece::Knight,
        'B' => Piece::Bishop,
        'R' => Piece::Rook,
        'Q' => Piece::Queen,
        'K' => Piece::King,
        _ => return None,
    })
}

/// All legal moves of `board`.
pub fn legal_moves(board: &Board) -> Vec<Move> {
    let mut out = Vec::with_capacity(48);
    board.generate_moves(|pm| {
        out.extend(pm);
        false
    });
    out
}

/// SAN of a legal move, e.g. `Nbd7`, `exd6`, `e8=Q+`, `O-O-O#`.
pub fn to_san(board: &Board, mv: Move) -> String {
    let mut san = String::with_capacity(8);
    let piece = board.piece_on(mv.from).expect("legal move has a piece");
    if is_castle(board, mv) {
        san.push_str(if mv.to.file() > mv.from.file() { "O-O" } else { "O-O-O" });
    } else {
        let capture = is_capture(board, mv);
        if piece == Piece::Pawn {
            if capture {
                san.push(file_char(mv.from.file()));
            }
        } else {
            san.push(piece_char(piece));
            // The other pieces of its kind that may go there too: only
            // their moves are generated.
            let others = board.colored_pieces(board.side_to_move(), piece) & !mv.from.bitboard();
            let mut rivals = BitBoard::EMPTY;
            board.generate_moves_for(others, |moves| {
                if moves.to.has(mv.to) {
                    rivals |= moves.from.bitboard();
                }
                false
            });
            if !rivals.is_empty() {
                if (rivals & mv.from.file().bitboard()).is_empty() {
                    san.push(file_char(mv.from.file()));
                } else if (rivals & mv.from.rank().bitboard()).is_empty() {
                    san.push(rank_char(mv.from));
                } else {
                    san.push(file_char(mv.from.file()));
                    san.push(rank_char(mv.from));
                }
            }
        }
        if capture {
            san.push('x');
        }
        san.push(file_char(mv.to.file()));
        san.push(rank_char(mv.to));
        if let Some(promo) = mv.promotion {
            san.push('=');
            san.push(piece_char(promo));
        }
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    if !after.checkers().is_empty() {
        san.push(if after.generate_moves(|_| true) { '+' } else { '#' });
    }
    san
}

fn file_char(file: File) -> char {
    char::from(b'a' + file as u8)
}

fn rank_char(sq: Square) -> char {
    char::from(b'1' + sq.rank() as u8)
}

/// UCI long algebraic of a legal move (`e2e4`, `e7e8q`, castling `e1g1`).
pub fn to_uci(board: &Board, mv: Move) -> String {
    to_uci_with(board, mv, false)
}

/// [`to_uci`]; for Chess960 (`UCI_Chess960`), castling is the king taking
/// its own rook (`e1h1`).
pub fn to_uci_with(board: &Board, mv: Move, chess960: bool) -> String {
    let to = if is_castle(board, mv) && !chess960 {
        let file = if mv.to.file() > mv.from.file() { File::G } else { File::C };
        Square::new(file, mv.from.rank())
    } else {
        mv.to
    };
    let mut s = String::with_capacity(5);
    for square in [mv.from, to] {
        s.push(file_char(square.file()));
        s.push(rank_char(square));
    }
    if let Some(p) = mv.promotion {
        s.push(piece_char(p).to_ascii_lowercase());
    }
    s
}

fn side(board: &Board) -> &'static str {
    if board.side_to_move() == Color::White {
        "white"
    } else {
        "black"
    }
}

/// Parses a move in SAN or UCI long algebraic notation against `board`.
/// Unparsable text is a notation error; a well-formed but illegal move is an
/// illegal-move error naming the side and the position.
pub fn parse_move(board: &Board, text: &str) -> Result<Move, Error> {
    let t = text.trim();
    if looks_like_uci(t) {
        parse_uci(board, t)
    } else {
        parse_san(board, t)
    }
}

fn looks_like_uci(t: &str) -> bool {
    let b = t.as_bytes();
    (b.len() == 4 || b.len() == 5)
        && parse_square(&t[0..2]).is_some()
        && parse_square(&t[2..4]).is_some()
        && (b.len() == 4 || matches!(b[4], b'q' | b'r' | b'b' | b'n'))
}

fn illegal(board: &Board, text: &str) -> Error {
    Error::illegal_move(format!(
        "'{text}' is not a legal move for {} in {}",
        side(board),
        write_fen(board, board.halfmove_clock() as u16)
    ))
}

fn parse_uci(board: &Board, t: &str) -> Result<Move, Error> {
    let from = parse_square(&t[0..2]).expect("checked");
    let mut to = parse_square(&t[2..4]).expect("checked");
    let promotion = t.as_bytes().get(4).map(|&c| char_piece((c as char).to_ascii_uppercase()).expect("checked"));
    // Standard castling notation (e1g1) becomes king-takes-rook.
    if board.piece_on(from) == Some(Piece::King) && from.file() == File::E && from.rank() == to.rank() {
        let rights = board.castle_rights(board.side_to_move());
        let rook = match to.file() {
            File::G => rights.short,
            File::C => rights.long,
            _ => None,
        };
        if let Some(rook_file) = rook {
            to = Square::new(rook_file, from.rank());
        }
    }
    let mv = Move { from, to, promotion };
    if board.is_legal(mv) {
        Ok(mv)
    } else {
        Err(illegal(board, t))
    }
}

fn parse_san(board: &Board, text: &str) -> Result<Move, Error> {
    let unparsable = || Error::bad_notation(format!("'{text}' is not a move in SAN or UCI notation"));
    let t = text.trim_end_matches(['+', '#', '!', '?']);
    let t = t.strip_suffix("e.p.").map(str::trim_end).unwrap_or(t);
    if matches!(t, "O-O" | "0-0" | "O-O-O" | "0-0-0") {
        let long = t.len() == 5;
        return legal_moves(board)
            .into_iter()
            .find(|&m| is_castle(board, m) && (m.to.file() < m.from.file()) == long)
            .ok_or_else(|| illegal(board, text));
    }
    let mut chars: Vec<char> = t.chars().collect();
    // Promotion suffix: "=Q" or a bare "Q" after the destination.
    let mut promotion = None;
    if let Some(&last) = chars.last() {
        if let Some(p) = char_piece(last.to_ascii_uppercase()).filter(|p| *p != Piece::King) {
            if chars.len() >= 3 && (chars[chars.len() - 2] == '=' || chars[chars.len() - 2].is_ascii_digit()) {
                promotion = Some(p);
                chars.pop();
                if chars.last() == Some(&'=') {
                    chars.pop();
                }
            }
        }
    }
    if chars.len() < 2 {
        return Err(unparsable());
    }
    let dest: String = chars[chars.len() - 2..].iter().collect();
    let to = parse_square(&dest).ok_or_else(unparsable)?;
    let mut head = &chars[..chars.len() - 2];
    let piece = match head.first().copied().and_then(char_piece) {
        Some(p) => {
            head = &head[1..];
            p
        }
        None => Piece::Pawn,
    };
    if head.last() == Some(&'x') || head.last() == Some(&':') {
        head = &head[..head.len() - 1];
    }
    let (mut from_file, mut from_rank) = (None, None);
    for &c in head {
        match c {
            'a'..='h' if from_file.is_none() => from_file = Some(c as u8 - b'a'),
            '1'..='8' if from_rank.is_none() => from_rank = Some(c as u8 - b'1'),
            '-' => {}
            _ => return Err(unparsable()),
        }
    }
    let candidates: Vec<Move> = legal_moves(board)
        .into_iter()
        .filter(|m| {
            m.to == to
                && !is_castle(board, *m)
                && board.piece_on(m.from) == Some(piece)
                && m.promotion == promotion
                && from_file.is_none_or(|f| m.from.file() as u8 == f)
                && from_rank.is_none_or(|r| m.from.rank() as u8 == r)
        })
        .collect();
    match candidates.as_slice() {
        [mv] => Ok(*mv),
        [] => Err(illegal(board, text)),
        _ => Err(Error::illegal_move(format!(
            "'{text}' is ambiguous for {}: {} moves match",
            side(board),
            candidates.iter().map(|&m| to_san(board, m)).collect::<Vec<_>>().join(", ")
        ))),
    }
}
