//! The folders a sandboxed engine is granted (`files=DIR`), read-only: each
//! is open to it at its own path (an engine built to read
//! `/usr/share/games/fairymax/fmax.ini` finds it there), and nothing outside
//! them is. No file can be created, written or removed.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

/// WASI errnos the folder calls answer.
pub(super) const ACCES: i32 = 2;
pub(super) const BADF: i32 = 8;
pub(super) const INVAL: i32 = 28;
pub(super) const IO: i32 = 29;
pub(super) const NOENT: i32 = 44;
pub(super) const NOTDIR: i32 = 54;
pub(super) const NOTCAPABLE: i32 = 76;

/// The first descriptor after the standard streams.
const FIRST: u32 = 3;

/// What a descriptor past the standard streams holds.
enum Open {
    /// A granted folder, or one inside it: its real path, and (granted) the
    /// path the engine sees it at.
    Folder { real: PathBuf, granted: Option<String> },
    /// A file opened for reading.
    File(File),
}

/// The engine's open folders and files.
#[derive(Default)]
pub(super) struct Files {
    open: HashMap<u32, Open>,
    next: u32,
}

/// What `fd_filestat_get` and `path_filestat_get` tell: the kind (3 a
/// folder, 4 a file) and the size.
pub(super) struct Stat {
    pub(super) kind: u8,
    pub(super) size: u64,
}

impl Files {
    /// The granted folders, opened at descriptors 3, 4, ... in order
    /// (where wasi-libc looks for them); one that is not a folder is an
    /// error naming it.
    pub(super) fn granted(folders: &[PathBuf]) -> Result<Files, String> {
        let mut files = Files { open: HashMap::new(), next: FIRST };
        for folder in folders {
            let real = folder
                .canonicalize()
                .ok()
                .filter(|r| r.is_dir())
                .ok_or_else(|| format!("files={}: no such folder", folder.display()))?;
            let granted = Some(folder.to_string_lossy().into_owned());
            files.add(Open::Folder { real, granted });
        }
        Ok(files)
    }

    fn add(&mut self, open: Open) -> u32 {
        let fd = self.next;
        self.next += 1;
        self.open.insert(fd, open);
        fd
    }

    /// The path a granted folder at `fd` is seen at.
    pub(super) fn granted_path(&self, fd: u32) -> Option<&str> {
        match self.open.get(&fd) {
            Some(Open::Folder { granted: Some(path), .. }) => Some(path),
            _ => None,
        }
    }

    /// Opens `path` (relative to the folder at `fd`) for reading, or as a
    /// folder: the new descriptor. A path that leaves the folder (`..`, a
    /// link out of it) is refused.
    pub(super) fn open(&mut self, fd: u32, path: &str, create_or_truncate: bool, folder: bool) -> Result<u32, i32> {
        let real = self.resolve(fd, path)?;
        if create_or_truncate {
            return Err(ACCES);
        }
        if real.is_dir() {
            return Ok(self.add(Open::Folder { real, granted: None }));
        }
        if folder {
            return Err(NOTDIR);
        }
        let file = File::open(&real).map_err(|_| ACCES)?;
        Ok(self.add(Open::File(file)))
    }

    /// The real path `path` names inside the folder at `fd`.
    fn resolve(&self, fd: u32, path: &str) -> Result<PathBuf, i32> {
        let Some(Open::Folder { real: root, .. }) = self.open.get(&fd) else { return Err(BADF) };
        let relative = Path::new(path);
        if relative.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
            return Err(NOTCAPABLE);
        }
        let joined = root.join(relative);
        let real = joined.canonicalize().map_err(|_| NOENT)?;
        // A link that leads out of the granted folder is not followed.
        let top =
            self.open.values().any(|o| matches!(o, Open::Folder { real: r, granted: Some(_) } if real.starts_with(r)));
        if !top {
            return Err(NOTCAPABLE);
        }
        Ok(real)
    }

    /// What `path` inside the folder at `fd` is.
    pub(super) fn stat_path(&self, fd: u32, path: &str) -> Result<Stat, i32> {
        let meta = std::fs::metadata(self.resolve(fd, path)?).map_err(|_| NOENT)?;
        Ok(Stat { kind: if meta.is_dir() { 3 } else { 4 }, size: meta.len() })
    }

    /// What the descriptor `fd` holds.
    pub(super) fn stat(&self, fd: u32) -> Result<Stat, i32> {
        match self.open.get(&fd) {
            Some(Open::Folder { .. }) => Ok(Stat { kind: 3, size: 0 }),
            Some(Open::File(f)) => Ok(Stat { kind: 4, size: f.metadata().map_err(|_| IO)?.len() }),
            None => Err(BADF),
        }
    }

    /// Reads into `buf` from the file at `fd`: the bytes read.
    pub(super) fn read(&mut self, fd: u32, buf: &mut [u8]) -> Result<usize, i32> {
        match self.open.get_mut(&fd) {
            Some(Open::File(f)) => f.read(buf).map_err(|_| IO),
            Some(Open::Folder { .. }) => Err(BADF),
            None => Err(BADF),
        }
    }

    /// Moves the file at `fd` to `offset` from `whence` (0 the start, 1 here,
    /// 2 the end): the new offset.
    pub(super) fn seek(&mut self, fd: u32, offset: i64, whence: i32) -> Result<u64, i32> {
        let Some(Open::File(f)) = self.open.get_mut(&fd) else { return Err(BADF) };
        let to = match whence {
            0 => SeekFrom::Start(u64::try_from(offset).map_err(|_| INVAL)?),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            _ => return Err(INVAL),
        };
        f.seek(to).map_err(|_| INVAL)
    }

    /// Closes `fd`.
    pub(super) fn close(&mut self, fd: u32) -> Result<(), i32> {
        self.open.remove(&fd).map(|_| ()).ok_or(BADF)
    }

    /// Whether `fd` is open.
    pub(super) fn is_open(&self, fd: u32) -> bool {
        self.open.contains_key(&fd)
    }
}
