//! Opening files, read the same way by every command: each format
//! ([`FORMATS`], one file each) reads the positions of a file, each checked
//! by the plugin; [`load`] keeps them in file order or shuffled with a seed,
//! starting from the one asked for, and only as many as the run can use (a
//! two-game match from a book of a million games reads one game). Files of
//! one position a line ([`lines`]), PGN and PDN books of games ([`book`]),
//! and Polyglot books for chess ([`polyglot`]).

pub mod book;
pub mod format;
pub mod lines;
pub mod polyglot;

use std::path::Path;

use arbiter_api::host::VariantHandle;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

pub use format::{OpeningFormat, OpeningsError, Picker, Source, Want};

/// Every opening format, chosen by the file's extension; the last reads
/// any other file.
pub const FORMATS: &[&dyn OpeningFormat] = &[&polyglot::Polyglot, &book::Book, &lines::Lines];

/// The format that reads `file`.
pub fn format_of(file: &Path) -> &'static dyn OpeningFormat {
    let ext = file.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    FORMATS.iter().copied().find(|f| f.extensions().contains(&ext.as_str())).unwrap_or(FORMATS[FORMATS.len() - 1])
}

/// How a run takes openings from a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// Shuffled with this seed (a uniform sample of the file when only some
    /// are kept), else in file order.
    pub shuffle_seed: Option<u64>,
    /// From a PGN book, the position after this many plies of each game
    /// (all of its moves if `None`); from a Polyglot book, the ends of its
    /// lines to this many plies.
    pub plies: Option<u32>,
    /// The opening play begins from (1-based, as fastchess's `start=N`);
    /// play wraps around to those before it.
    pub start: Option<u32>,
    /// The most openings the run can use (`None`: every one): no more are
    /// worked out or kept.
    pub most: Option<usize>,
}

/// The positions of `file` for `variant`, checked, chosen as `choice` says.
/// In file order they are the openings from `start` on, wrapping around to
/// the first ones, at most `most` of them; shuffled, a uniform sample of at
/// most `most` openings in a seeded order, rotated to `start`.
pub fn load(
    variant: &VariantHandle,
    file: &Path,
    options: &serde_json::Map<String, serde_json::Value>,
    choice: Choice,
) -> Result<Vec<String>, OpeningsError> {
    let id = variant.info().id.clone();
    let name = file.display().to_string();
    let source = Source { variant, file, options, plies: choice.plies };
    let skip = choice.start.map_or(0, |k| k.saturating_sub(1) as usize);
    let (positions, count) = match choice.shuffle_seed {
        None => {
            let mut picker = InOrder { from: skip, most: choice.most, head: Vec::new(), window: Vec::new(), count: 0 };
            format_of(file).positions(&source, &mut picker)?;
            let count = picker.count;
            (picker.into_positions(), count)
        }
        Some(seed) => {
            let size = choice.most.map(|m| m.saturating_add(skip));
            let rng = rand::rngs::SmallRng::seed_from_u64(seed);
            let mut picker = Sample { size, rng, kept: Vec::new(), pending: None, count: 0 };
            format_of(file).positions(&source, &mut picker)?;
            let count = picker.count;
            let mut positions = picker.kept;
            positions.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(seed));
            if skip < positions.len() {
                positions.rotate_left(skip);
            }
            positions.truncate(choice.most.unwrap_or(usize::MAX));
            (positions, count)
        }
    };
    if count == 0 {
        return Err(OpeningsError::Empty { variant: id, file: name });
    }
    if let Some(k) = choice.start.filter(|&k| k == 0 || k as usize > count) {
        return Err(OpeningsError::Start { variant: id, file: name, start: k, count });
    }
    Ok(positions)
}

/// Openings in file order from `from` on, wrapping to the first: at most
/// `most` of them (all if `None`), so reading stops once they are read.
struct InOrder {
    from: usize,
    most: Option<usize>,
    /// The first openings, for a wrap past the file's end.
    head: Vec<String>,
    /// The openings from `from` on.
    window: Vec<String>,
    /// How many openings the file holds (at least; exact unless reading stopped).
    count: usize,
}

impl Picker for InOrder {
    fn wants(&mut self, index: usize) -> Want {
        let most = self.most.unwrap_or(usize::MAX);
        if index >= self.from.saturating_add(most) {
            // Enough from `from` on: the file is at least this long.
            self.count = self.count.max(index);
            return Want::Stop;
        }
        self.count = index + 1;
        if index >= self.from || index < most.min(self.from) {
            Want::Keep
        } else {
            Want::Skip
        }
    }

    fn keep(&mut self, index: usize, position: String) {
        if index >= self.from {
            self.window.push(position);
        } else {
            self.head.push(position);
        }
    }
}

impl InOrder {
    /// The openings from `from` on, then (past the file's end) the first ones.
    fn into_positions(self) -> Vec<String> {
        let most = self.most.unwrap_or(usize::MAX);
        let mut positions = self.window;
        let room = most.saturating_sub(positions.len());
        positions.extend(self.head.into_iter().take(room));
        positions
    }
}

/// A uniform sample of at most `size` openings (every one if `None`), by
/// reservoir sampling: an opening is worked out only when the draw keeps it.
struct Sample {
    size: Option<usize>,
    rng: rand::rngs::SmallRng,
    /// The openings kept, in file order until the sample is full.
    kept: Vec<String>,
    /// The slot the opening being worked out replaces, once the sample is full.
    pending: Option<usize>,
    /// How many openings the file holds.
    count: usize,
}

impl Picker for Sample {
    fn wants(&mut self, index: usize) -> Want {
        self.count = index + 1;
        self.pending = None;
        match self.size {
            Some(size) if index >= size => {
                let slot = self.rng.random_range(0..=index);
                if slot < size {
                    self.pending = Some(slot);
                    Want::Keep
                } else {
                    Want::Skip
                }
            }
            _ => Want::Keep,
        }
    }

    fn keep(&mut self, _index: usize, position: String) {
        match self.pending.take() {
            Some(slot) => self.kept[slot] = position,
            None => self.kept.push(position),
        }
    }
}

#[cfg(test)]
mod tests {
    use arbiter_fixture::Fault;

    use super::{load, Choice};
    use arbiter_core::plugin::Registry;
    use arbiter_testing::{race, temp_folder};

    /// A file of `n` race positions (`total ply` a line: `0 0`, `1 0`...
    /// totals to 9), the line after the last one not a position at all.
    fn file(n: usize) -> std::path::PathBuf {
        let path = temp_folder("openings-pick").join(format!("{n}.txt"));
        let mut text: String = (0..n).map(|i| format!("{} 0\n", i % 9)).collect();
        text.push_str("not a position\n");
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Only the openings a run can use are read: in file order from the
    /// start asked for, wrapping to the first; shuffled, a seeded sample.
    #[test]
    fn a_run_reads_only_the_openings_it_can_use() {
        let registry = Registry::of([race(Fault::None)]);
        let v = registry.get("race").unwrap();
        let options = arbiter_testing::options(v, serde_json::json!({}));
        let big = file(20);
        let pick = |choice: Choice| load(v, &big, &options, choice);
        // The last line is no position: reading all of them fails on it.
        assert!(pick(Choice::default()).is_err());
        let first = pick(Choice { most: Some(3), ..Choice::default() }).unwrap();
        assert_eq!(first, ["0 0", "1 0", "2 0"], "three openings, the bad line never read");
        let from = pick(Choice { most: Some(2), start: Some(5), ..Choice::default() }).unwrap();
        assert_eq!(from, ["4 0", "5 0"]);
        // A small file wraps around from the start, as a whole read did.
        let small = file(4);
        let std::result::Result::Err(_) = load(v, &small, &options, Choice { most: Some(8), ..Choice::default() })
        else {
            panic!("the bad fifth line is read when eight openings are wanted");
        };
        let shuffled = |seed| pick(Choice { most: Some(4), shuffle_seed: Some(seed), ..Choice::default() });
        assert!(shuffled(1).is_err(), "a sample draws from the whole file, the bad line included");
        let good = file(30);
        std::fs::write(&good, (0..30).map(|i| format!("{} 0\n", i % 9)).collect::<String>()).unwrap();
        let sample =
            |seed| load(v, &good, &options, Choice { most: Some(4), shuffle_seed: Some(seed), ..Choice::default() });
        assert_eq!(sample(7).unwrap().len(), 4);
        assert_eq!(sample(7).unwrap(), sample(7).unwrap(), "a seed gives one sample");
        let all = load(v, &good, &options, Choice { shuffle_seed: Some(7), ..Choice::default() }).unwrap();
        assert_eq!(all.len(), 30, "without a bound, every opening, shuffled");
        let start = load(v, &good, &options, Choice { most: Some(2), start: Some(31), ..Choice::default() });
        assert!(start.unwrap_err().to_string().contains("start 31 is not an opening of its 30"));
    }
}
