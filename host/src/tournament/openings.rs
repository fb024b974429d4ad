//! Opening files, read the same way by every command: one position a line
//! (blank lines and `#` comments skipped), EPD operations stripped for FEN
//! variants (`... bm e4; id "x";` keeps the four position fields), each line
//! checked by the plugin, in file order or shuffled with a seed. A `.pgn`
//! or `.pdn` file is a book of games instead: each game's moves (the first
//! `plies` of them, or all) are played through the plugin from its start
//! (its `FEN` tag, or the variant's start), and the position reached is the
//! opening. A `.bin` file is a Polyglot book for chess ([`super::polyglot`]).
//! Text files are read as streams, so memory follows the positions kept,
//! not the file's size.

use std::io::{BufRead, Read as _};
use std::path::Path;

use arbiter_api::host::VariantHandle;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::record::pgn::{GameReader, MOST_LINE_BYTES};

/// An opening file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// The file cannot be read.
    #[error("openings for {variant}: cannot read {file}: {reason}")]
    Unreadable {
        /// The variant id.
        variant: String,
        /// The file.
        file: String,
        /// What the OS said.
        reason: String,
    },
    /// A line is not a position of the variant.
    #[error("{file}:{line}: {reason}")]
    BadLine {
        /// The file.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// The plugin's error.
        reason: String,
    },
    /// A game of a PGN book that cannot be played through.
    #[error("{file}: game {game}: {reason}")]
    BadGame {
        /// The file.
        file: String,
        /// The 1-based game number.
        game: usize,
        /// What is wrong (a move the plugin refuses, another variant).
        reason: String,
    },
    /// No position at all.
    #[error("openings for {variant}: {file} holds no position")]
    Empty {
        /// The variant id.
        variant: String,
        /// The file.
        file: String,
    },
    /// The opening to start from is not in the file.
    #[error("openings for {variant}: {file}: start {start} is not an opening of its {count} (they count from 1)")]
    Start {
        /// The variant id.
        variant: String,
        /// The file.
        file: String,
        /// The opening asked for.
        start: u32,
        /// How many the file holds.
        count: usize,
    },
}

/// The positions of `file` for `variant`, checked, in file order or (with
/// `shuffle_seed`) shuffled; from a PGN book, the positions after `plies`
/// plies of each game (all of its moves if `None`); from a Polyglot book,
/// the ends of its lines to `plies` plies. With `start` (1-based, as
/// fastchess's `start=N`), play begins from that opening and wraps around
/// to those before it.
pub fn load(
    variant: &VariantHandle,
    file: &Path,
    options: &serde_json::Map<String, serde_json::Value>,
    shuffle_seed: Option<u64>,
    plies: Option<u32>,
    start: Option<u32>,
) -> Result<Vec<String>, OpeningsError> {
    let id = variant.info().id.clone();
    let name = file.display().to_string();
    let has_extension = |ext: &str| file.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext));
    let unreadable = |reason: String| OpeningsError::Unreadable { variant: id.clone(), file: name.clone(), reason };
    let mut positions = if has_extension("bin") {
        super::polyglot::book_lines(variant, file, options, plies)?
    } else {
        // Read as a stream: a book of any size costs the positions it gives.
        let input = std::fs::File::open(file).map_err(|e| unreadable(e.to_string()))?;
        let input = std::io::BufReader::new(input);
        if has_extension("pgn") || has_extension("pdn") {
            book_positions(variant, &name, input, options, plies, &unreadable)?
        } else {
            line_positions(variant, &name, input, options, &unreadable)?
        }
    };
    if positions.is_empty() {
        return Err(OpeningsError::Empty { variant: id, file: name });
    }
    if let Some(seed) = shuffle_seed {
        positions.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(seed));
    }
    match start {
        Some(k) if k == 0 || k as usize > positions.len() => {
            return Err(OpeningsError::Start { variant: id, file: name, start: k, count: positions.len() })
        }
        Some(k) => positions.rotate_left(k as usize - 1),
        None => {}
    }
    Ok(positions)
}

/// The positions of a file of one position a line, each checked.
fn line_positions(
    variant: &VariantHandle,
    file: &str,
    mut input: impl BufRead,
    options: &serde_json::Map<String, serde_json::Value>,
    unreadable: &dyn Fn(String) -> OpeningsError,
) -> Result<Vec<String>, OpeningsError> {
    let fen = variant.info().position_notation == "FEN";
    let mut positions = Vec::new();
    let mut buffer = Vec::new();
    for n in 1.. {
        buffer.clear();
        let read = (&mut input).take(MOST_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buffer);
        match read.map_err(|e| unreadable(format!("line {n}: {e}")))? {
            0 => break,
            long if long > MOST_LINE_BYTES => {
                return Err(unreadable(format!("line {n}: longer than {} MiB", MOST_LINE_BYTES >> 20)))
            }
            _ => {}
        }
        let text = String::from_utf8_lossy(&buffer);
        let line = text.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let position = if fen { strip_epd(line) } else { line.to_string() };
        variant.from_position(&position, options).map_err(|e| OpeningsError::BadLine {
            file: file.to_string(),
            line: n,
            reason: e.to_string(),
        })?;
        positions.push(position);
    }
    Ok(positions)
}

/// The position after the first `plies` moves of each game of a PGN book.
fn book_positions(
    variant: &VariantHandle,
    file: &str,
    input: impl BufRead,
    options: &serde_json::Map<String, serde_json::Value>,
    plies: Option<u32>,
    unreadable: &dyn Fn(String) -> OpeningsError,
) -> Result<Vec<String>, OpeningsError> {
    let id = &variant.info().id;
    let mut positions = Vec::new();
    for (i, g) in GameReader::new(input).enumerate() {
        let g = g.map_err(|e| unreadable(e.to_string()))?;
        let fail = |reason: String| OpeningsError::BadGame { file: file.to_string(), game: i + 1, reason };
        let tagged = crate::record::replay::variant_id(g.tag("Variant"));
        if g.tag("Variant").is_some() && &tagged != id {
            return Err(fail(format!("a game of {tagged}, not of {id}")));
        }
        let mut game = match g.tag("FEN") {
            Some(fen) => variant.from_position(fen, options),
            None => variant.new_game(options),
        }
        .map_err(|e| fail(e.to_string()))?;
        let take = plies.map_or(g.moves.len(), |p| (p as usize).min(g.moves.len()));
        for (ply, text) in g.moves.iter().take(take).enumerate() {
            let mv = game.parse_move(text).map_err(|e| fail(format!("ply {}: move '{text}': {e}", ply + 1)))?;
            game.apply(mv).map_err(|e| fail(format!("ply {}: move '{text}': {e}", ply + 1)))?;
        }
        positions.push(game.position_text());
    }
    Ok(positions)
}

/// An EPD line's position: its four fields when operations follow (`;` or
/// more than FEN's six fields), else the line as it is.
fn strip_epd(line: &str) -> String {
    if line.contains(';') || line.split_whitespace().count() > 6 {
        line.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::strip_epd;

    #[test]
    fn epd_operations_are_stripped_and_fen_is_kept() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
        assert_eq!(strip_epd(fen), fen);
        assert_eq!(
            strip_epd("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 bm e5; id \"open\";"),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3"
        );
        assert_eq!(
            strip_epd("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
        );
    }
}
