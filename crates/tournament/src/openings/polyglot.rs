//! Polyglot `.bin` opening books for chess: every line of the book from the
//! start position to `plies` plies (or to where the book ends), most
//! weighted moves first, each move played through the chess plugin, and the
//! position reached as an opening. Positions are looked up by their
//! Polyglot key (polyglot-book-rs computes it from a FEN), with the
//! en-passant file keyed only when a pawn of the side to move stands beside
//! the pawn that just moved, as the format specifies; castling, which the
//! format writes as the king taking its rook, is played as the king's move.

use std::path::Path;

use arbiter_api::host::{Game, VariantHandle};
use polyglot_book_rs::PolyglotBook;

use super::format::{OpeningFormat, OpeningsError, Picker, Source, Want};

/// A Polyglot book.
pub struct Polyglot;

impl OpeningFormat for Polyglot {
    fn extensions(&self) -> &'static [&'static str] {
        &["bin"]
    }

    fn positions(&self, source: &Source, picker: &mut dyn Picker) -> Result<(), OpeningsError> {
        // A Polyglot book's lines are found by walking it (at most
        // MAX_LINES of them): all are worked out, the wanted ones kept.
        for (i, position) in
            book_lines(source.variant, source.file, source.options, source.plies)?.into_iter().enumerate()
        {
            match picker.wants(i) {
                Want::Stop => break,
                Want::Skip => {}
                Want::Keep => picker.keep(i, position),
            }
        }
        Ok(())
    }
}

/// Plies a line runs to when no `--opening-plies` is given.
pub const DEFAULT_PLIES: u32 = 8;

/// At most this many openings are taken from one book.
pub const MAX_LINES: usize = 100_000;

/// The positions at the ends of the book's lines, in depth-first order with
/// the most weighted moves first.
pub fn book_lines(
    variant: &VariantHandle,
    file: &Path,
    options: &serde_json::Map<String, serde_json::Value>,
    plies: Option<u32>,
) -> Result<Vec<String>, OpeningsError> {
    let name = file.display().to_string();
    let id = variant.info().id.clone();
    let refuse = |reason: String| OpeningsError::BadGame { file: name.clone(), game: 1, reason };
    if id != "chess" || options.get("chess960").is_some_and(|v| v == &serde_json::Value::Bool(true)) {
        return Err(OpeningsError::Unreadable {
            variant: id,
            file: name.clone(),
            reason: "a Polyglot book holds standard chess positions only".into(),
        });
    }
    let path = file.to_str().ok_or_else(|| refuse("the file name is not UTF-8".into()))?;
    let book = PolyglotBook::load(path).map_err(|e| OpeningsError::Unreadable {
        variant: id.clone(),
        file: name.clone(),
        reason: e.to_string(),
    })?;
    let start = variant.new_game(options).map_err(|e| refuse(e.to_string()))?;
    let mut lines = Vec::new();
    let mut moves = Vec::new();
    walk(&book, &start, plies.unwrap_or(DEFAULT_PLIES), &mut moves, &mut lines).map_err(refuse)?;
    Ok(lines)
}

/// Follows every book move from `game`, `left` plies more, collecting the
/// positions where lines end; `moves` is the line so far, for messages.
fn walk(
    book: &PolyglotBook,
    game: &Game,
    left: u32,
    moves: &mut Vec<String>,
    lines: &mut Vec<String>,
) -> Result<(), String> {
    if lines.len() >= MAX_LINES {
        return Ok(());
    }
    let fen = game.position_text();
    let entries: Vec<_> = if left == 0 {
        Vec::new()
    } else {
        book.get_all_moves_from_fen(&keyed_fen(&fen)).into_iter().filter(|e| e.weight > 0).collect()
    };
    if entries.is_empty() {
        if !moves.is_empty() {
            lines.push(fen);
        }
        return Ok(());
    }
    for entry in entries {
        let text = castle_as_king_move(&fen, &entry.chess_move.to_algebraic());
        let mv = game.parse_move(&text).map_err(|e| format!("after '{}': book move '{text}': {e}", moves.join(" ")))?;
        let mut next = game.clone();
        next.apply(mv).map_err(|e| format!("after '{}': book move '{text}': {e}", moves.join(" ")))?;
        moves.push(text);
        walk(book, &next, left - 1, moves, lines)?;
        moves.pop();
    }
    Ok(())
}

/// The FEN as the Polyglot key reads it: the en-passant square kept only
/// when a pawn of the side to move stands beside the pawn that moved.
fn keyed_fen(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let (Some(board), Some(side), Some(ep)) = (fields.first(), fields.get(1), fields.get(3)) else {
        return fen.to_string();
    };
    let ep_bytes = ep.as_bytes();
    if ep_bytes.len() != 2 {
        return fen.to_string();
    }
    let file = (ep_bytes[0] as i32) - ('a' as i32);
    // The pawn that moved stands on rank 4 (white moved) or 5 (black moved).
    let (rank, pawn) = if *side == "w" { (5, 'P') } else { (4, 'p') };
    let beside = [file - 1, file + 1]
        .into_iter()
        .any(|f| (0..8).contains(&f) && piece_at(board, f as usize, rank) == Some(pawn));
    if beside {
        fen.to_string()
    } else {
        let mut out: Vec<&str> = fields.clone();
        out[3] = "-";
        out.join(" ")
    }
}

/// A Polyglot castling move (`e1h1`, the king onto its rook) as the king's
/// own move (`e1g1`) when the king stands on e1 or e8.
fn castle_as_king_move(fen: &str, mv: &str) -> String {
    let board = fen.split_whitespace().next().unwrap_or("");
    // The king starts on the e file (4).
    let king_on = |rank: usize| matches!(piece_at(board, 4, rank), Some('K' | 'k'));
    match mv {
        "e1h1" if king_on(1) => "e1g1".into(),
        "e1a1" if king_on(1) => "e1c1".into(),
        "e8h8" if king_on(8) => "e8g8".into(),
        "e8a8" if king_on(8) => "e8c8".into(),
        other => other.to_string(),
    }
}

/// The piece on `file` (0 for a) of `rank` (1 to 8) of a FEN board field.
fn piece_at(board: &str, file: usize, rank: usize) -> Option<char> {
    let row = board.split('/').nth(8usize.checked_sub(rank)?)?;
    let mut at = 0;
    for c in row.chars() {
        match c.to_digit(10) {
            Some(n) => at += n as usize,
            None if at == file => return Some(c),
            None => at += 1,
        }
        if at > file {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_en_passant_square_is_keyed_only_beside_a_capturing_pawn() {
        // 1. e4: no black pawn beside e4, so no en-passant key.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        assert_eq!(keyed_fen(after_e4), after_e4.replace(" e3 ", " - "));
        // A black pawn on d4 beside it: kept.
        let beside = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3";
        assert_eq!(keyed_fen(beside), beside);
        // White to move after ...d5 with a white pawn on e5: kept.
        let white = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
        assert_eq!(keyed_fen(white), white);
    }

    #[test]
    fn castling_is_the_kings_move_and_other_moves_are_kept() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(castle_as_king_move(fen, "e1h1"), "e1g1");
        assert_eq!(castle_as_king_move(fen, "e1a1"), "e1c1");
        assert_eq!(castle_as_king_move(&fen.replace(" w ", " b "), "e8h8"), "e8g8");
        // A rook on e1 moving to h1 is a rook's move.
        assert_eq!(castle_as_king_move("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "e1h1"), "e1h1");
    }
}
