//! Record files that games are appended to the moment they finish, one
//! [`RecordFormat`] each, flushed after every game so that none is lost when
//! the run is killed.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{format, EventInfo, RecordFormat};
use arbiter_core::model::{GameRecord, UnknownName};

/// A record file that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum RecordFilesError {
    /// No record format of that name.
    #[error(transparent)]
    Format(#[from] UnknownName),
    /// The file cannot be opened.
    #[error("cannot open {path}: {reason}")]
    Open {
        /// The file.
        path: String,
        /// What the OS said.
        reason: std::io::Error,
    },
}

/// One open record file.
struct RecordFile {
    format: &'static dyn RecordFormat,
    path: PathBuf,
    file: File,
}

/// The record files of one run.
#[derive(Default)]
pub struct RecordFiles {
    files: Vec<RecordFile>,
}

impl RecordFiles {
    /// Opens each `(format name, path)`, for appending or (`append` false)
    /// emptied first; the error names the format or the file that failed.
    pub fn open<'a>(
        outputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
        append: bool,
    ) -> Result<RecordFiles, RecordFilesError> {
        let mut files = Vec::new();
        for (name, path) in outputs {
            let format = format(name)?;
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(append)
                .write(true)
                .truncate(!append)
                .open(path)
                .map_err(|reason| RecordFilesError::Open { path: path.display().to_string(), reason })?;
            files.push(RecordFile { format, path: path.to_path_buf(), file });
        }
        Ok(RecordFiles { files })
    }

    /// Appends one game to every file. A file that fails does not keep the
    /// game from the others; each failure is returned, naming its file.
    pub fn append(&mut self, record: &GameRecord, event: &EventInfo) -> Vec<String> {
        let mut failures = Vec::new();
        for f in &mut self.files {
            let text = f.format.write(record, event);
            if let Err(e) = f.file.write_all(text.as_bytes()).and_then(|_| f.file.flush()) {
                failures.push(format!("{} file {}: {e}", f.format.title(), f.path.display()));
            }
        }
        failures
    }

    /// The files, as `title path` for messages.
    pub fn describe(&self) -> Vec<String> {
        self.files.iter().map(|f| format!("{} file {}", f.format.title(), f.path.display())).collect()
    }

    /// Whether no file was asked for.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}
