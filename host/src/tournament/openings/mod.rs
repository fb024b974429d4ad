//! Opening files, read the same way by every command: each format
//! ([`FORMATS`], one file each) gives the positions of a file, each checked
//! by the plugin; [`load`] then keeps them in file order or shuffles them
//! with a seed, and starts from the one asked for. Files of one position a
//! line ([`lines`]), PGN and PDN books of games ([`book`]), and Polyglot
//! books for chess ([`polyglot`]).

pub mod book;
pub mod format;
pub mod lines;
pub mod polyglot;

use std::path::Path;

use arbiter_api::host::VariantHandle;
use rand::seq::SliceRandom;
use rand::SeedableRng;

pub use format::{OpeningFormat, OpeningsError, Source};

/// Every opening format, chosen by the file's extension; the last reads
/// any other file.
pub const FORMATS: &[&dyn OpeningFormat] = &[&polyglot::Polyglot, &book::Book, &lines::Lines];

/// The format that reads `file`.
pub fn format_of(file: &Path) -> &'static dyn OpeningFormat {
    let ext = file.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    FORMATS.iter().copied().find(|f| f.extensions().contains(&ext.as_str())).unwrap_or(FORMATS[FORMATS.len() - 1])
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
    let source = Source { variant, file, options, plies };
    let mut positions = format_of(file).positions(&source)?;
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
