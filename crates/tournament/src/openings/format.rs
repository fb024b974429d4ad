//! What every opening format shares: the [`OpeningFormat`] trait, the file
//! it reads ([`Source`]) and the [`OpeningsError`] it may give.

use std::path::Path;

use arbiter_api::host::VariantHandle;

/// An opening file being read for one variant.
pub struct Source<'a> {
    /// The variant the positions are for.
    pub variant: &'a VariantHandle,
    /// The file.
    pub file: &'a Path,
    /// The variant options every position is checked with.
    pub options: &'a serde_json::Map<String, serde_json::Value>,
    /// For books: how many plies of each line to play (all if `None`).
    pub plies: Option<u32>,
}

impl Source<'_> {
    /// The file's name, for messages.
    pub fn name(&self) -> String {
        self.file.display().to_string()
    }

    /// The error for a file that cannot be read.
    pub fn unreadable(&self, reason: String) -> OpeningsError {
        OpeningsError::Unreadable { variant: self.variant.info().id.clone(), file: self.name(), reason }
    }
}

/// A kind of opening file: its file extensions and how to read positions
/// from it. Adding a format is a file implementing this and one line in
/// [`super::FORMATS`].
pub trait OpeningFormat: Sync {
    /// The file extensions it reads, lowercase (`pgn`); the last format
    /// of [`super::FORMATS`] reads every other file.
    fn extensions(&self) -> &'static [&'static str];
    /// Reads the file's openings in file order, numbered from 0: each one
    /// `picker` wants is worked out (a book's game played through), checked
    /// by the plugin and handed to it; the others are only counted, and
    /// reading stops when the picker wants no more.
    fn positions(&self, source: &Source, picker: &mut dyn Picker) -> Result<(), OpeningsError>;
}

/// What a reader is to do with the opening it has come to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// Work it out and hand it over.
    Keep,
    /// Pass it by.
    Skip,
    /// Stop reading: no later opening is wanted.
    Stop,
}

/// Chooses which openings of a file a run keeps, so that memory and time
/// follow the openings kept, not the file's size.
pub trait Picker {
    /// Whether opening `index` (0-based, in file order) is wanted.
    fn wants(&mut self, index: usize) -> Want;
    /// Opening `index`, wanted and checked.
    fn keep(&mut self, index: usize, position: String);
}

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
