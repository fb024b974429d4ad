//! PGN and PDN books: each game's moves (the first `plies` of them, or
//! all) are played through the plugin from its start (its `FEN` tag, or the
//! variant's start), and the position reached is an opening. Read as a
//! stream of games, so memory follows the positions kept; a game that is
//! not kept is not played through.

use std::io::BufRead;

use super::format::{OpeningFormat, OpeningsError, Picker, Source, Want};
use arbiter_play::record::pgn::GameReader;

/// A book of games.
pub struct Book;

impl OpeningFormat for Book {
    fn extensions(&self) -> &'static [&'static str] {
        &["pgn", "pdn"]
    }

    fn positions(&self, source: &Source, picker: &mut dyn Picker) -> Result<(), OpeningsError> {
        let input = std::fs::File::open(source.file).map_err(|e| source.unreadable(e.to_string()))?;
        book_positions(source, std::io::BufReader::new(input), picker)
    }
}

/// The position after the first `plies` moves of each game of a PGN book
/// that `picker` wants.
fn book_positions(source: &Source, input: impl BufRead, picker: &mut dyn Picker) -> Result<(), OpeningsError> {
    let (variant, file, options, plies) = (source.variant, source.name(), source.options, source.plies);
    let unreadable = |reason: String| source.unreadable(reason);
    let id = &variant.info().id;
    for (i, g) in GameReader::new(input).enumerate() {
        let g = g.map_err(|e| unreadable(e.to_string()))?;
        match picker.wants(i) {
            Want::Stop => break,
            Want::Skip => continue,
            Want::Keep => {}
        }
        let fail = |reason: String| OpeningsError::BadGame { file: file.to_string(), game: i + 1, reason };
        let tagged = arbiter_play::record::replay::variant_id(g.tag("Variant"));
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
        picker.keep(i, game.position_text());
    }
    Ok(())
}
