//! Files of one position a line (FEN, EPD, or any variant's position
//! notation): blank lines and `#` comments skipped, EPD operations stripped
//! for FEN variants (`... bm e4; id "x";` keeps the four position fields).
//! Read as a stream, so memory follows the positions kept; a line that is
//! not kept is not checked.

use std::io::{BufRead, Read as _};

use super::format::{OpeningFormat, OpeningsError, Picker, Source, Want};
use arbiter_play::record::pgn::MOST_LINE_BYTES;

/// One position a line.
pub struct Lines;

impl OpeningFormat for Lines {
    fn extensions(&self) -> &'static [&'static str] {
        &["epd", "fen", "txt"]
    }

    fn positions(&self, source: &Source, picker: &mut dyn Picker) -> Result<(), OpeningsError> {
        let input = std::fs::File::open(source.file).map_err(|e| source.unreadable(e.to_string()))?;
        line_positions(source, std::io::BufReader::new(input), picker)
    }
}

/// The positions of a file of one position a line that `picker` wants,
/// each checked.
fn line_positions(source: &Source, mut input: impl BufRead, picker: &mut dyn Picker) -> Result<(), OpeningsError> {
    let (variant, file, options) = (source.variant, source.name(), source.options);
    let unreadable = |reason: String| source.unreadable(reason);
    let fen = variant.info().position_notation == "FEN";
    let mut index = 0;
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
        index += 1;
        match picker.wants(index - 1) {
            Want::Stop => break,
            Want::Skip => continue,
            Want::Keep => {}
        }
        let position = if fen { strip_epd(line) } else { line.to_string() };
        variant.from_position(&position, options).map_err(|e| OpeningsError::BadLine {
            file: file.to_string(),
            line: n,
            reason: e.to_string(),
        })?;
        picker.keep(index - 1, position);
    }
    Ok(())
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
