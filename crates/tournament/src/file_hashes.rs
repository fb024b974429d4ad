//! The sha256 of a file, remembered from one run to the next while the file
//! is the same one, unchanged: the same device and inode, the same size, and
//! the same modification and status-change times (what git's index trusts
//! to skip rehashing; the status-change time moves on any write and cannot
//! be set back). A file changed less than [`SETTLED`] before it was hashed
//! is not remembered: a write within the file system's timestamp tick
//! could leave its times as they were. Hashing an engine binary of tens of
//! megabytes took a tenth of a short match's CPU.
//!
//! The memory is one small text file, `file-hashes`, in the cache folder
//! (`$ARBITER_CACHE_DIR`, else `$XDG_CACHE_HOME/arbiter`, else
//! `~/.cache/arbiter`), rewritten whole and renamed into place; it keeps the
//! [`KEPT`] files hashed last. Without a folder, or where it cannot be
//! read or written, every file is hashed every time.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long before hashing a file must have last changed to be remembered.
pub const SETTLED: Duration = Duration::from_secs(2);

/// How many files the memory keeps (those hashed last).
const KEPT: usize = 256;

/// The cache file's name in its folder.
const FILE: &str = "file-hashes";

/// The sha256 of `path` in hex: remembered, or read and remembered.
pub fn sha256(path: &Path) -> std::io::Result<String> {
    sha256_in(path, cache_folder().as_deref(), SETTLED)
}

/// The folder the memory lives in, if the environment names one.
fn cache_folder() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("ARBITER_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("arbiter")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("arbiter")))
}

/// [`sha256`] with the memory in `folder` (none: hash every time), trusting
/// files that last changed `settled` before they were hashed.
fn sha256_in(path: &Path, folder: Option<&Path>, settled: Duration) -> std::io::Result<String> {
    let identity = Identity::of(path);
    let memory = folder.map(|f| f.join(FILE));
    let mut entries = match (&memory, &identity) {
        (Some(file), Some(_)) => read_entries(file),
        _ => Vec::new(),
    };
    if let Some(id) = &identity {
        if let Some(e) = entries.iter().find(|e| e.identity == *id) {
            return Ok(e.sha256.clone());
        }
    }
    let started = SystemTime::now();
    let sha256 = hash_file(path)?;
    // Remembered only if the file did not change while it was read, and
    // had settled before.
    let (Some(file), Some(id)) = (memory, identity) else { return Ok(sha256) };
    if Identity::of(path).as_ref() != Some(&id) || !id.settled_before(started, settled) {
        return Ok(sha256);
    }
    entries.retain(|e| e.identity.file != id.file);
    entries.push(Entry { identity: id, sha256: sha256.clone(), path: path.display().to_string() });
    let skip = entries.len().saturating_sub(KEPT);
    write_entries(&file, &entries[skip..]);
    Ok(sha256)
}

/// The sha256 of the file's bytes, read a megabyte at a time.
fn hash_file(path: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    let file = std::fs::File::open(path)?;
    std::io::copy(&mut std::io::BufReader::with_capacity(1 << 20, file), &mut hasher)?;
    Ok(format!("{:x}", hasher.finalize()))
}

/// Which file, and the state it was in: what a remembered hash is trusted by.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Identity {
    /// Device and inode.
    file: (u64, u64),
    size: u64,
    /// Modification time, in nanoseconds since 1970.
    modified: i128,
    /// Status-change time, in nanoseconds since 1970.
    changed: i128,
}

impl Identity {
    /// The identity of the file at `path` (none where the system gives no
    /// inode and status-change time, or the path is not a readable file).
    #[cfg(unix)]
    fn of(path: &Path) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some(Identity {
            file: (m.dev(), m.ino()),
            size: m.size(),
            modified: ns(m.mtime(), m.mtime_nsec()),
            changed: ns(m.ctime(), m.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    fn of(_path: &Path) -> Option<Identity> {
        None
    }

    /// Whether the file last changed at least `settled` before `time`.
    fn settled_before(&self, time: SystemTime, settled: Duration) -> bool {
        let Ok(since) = time.duration_since(SystemTime::UNIX_EPOCH) else { return false };
        let limit = since.as_nanos() as i128 - settled.as_nanos() as i128;
        self.modified <= limit && self.changed <= limit
    }
}

/// One remembered file.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    identity: Identity,
    sha256: String,
    /// Where it was, for a reader of the file (the identity decides).
    path: String,
}

impl Entry {
    /// `sha256 dev inode size modified changed path`, tab-separated.
    fn line(&self) -> String {
        let i = &self.identity;
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            self.sha256, i.file.0, i.file.1, i.size, i.modified, i.changed, self.path
        )
    }

    /// An entry from its [`Entry::line`]; `None` for anything else.
    fn parse(line: &str) -> Option<Entry> {
        let mut f = line.splitn(7, '\t');
        let sha256 = f.next().filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))?;
        let identity = Identity {
            file: (f.next()?.parse().ok()?, f.next()?.parse().ok()?),
            size: f.next()?.parse().ok()?,
            modified: f.next()?.parse().ok()?,
            changed: f.next()?.parse().ok()?,
        };
        Some(Entry { identity, sha256: sha256.to_string(), path: f.next()?.to_string() })
    }
}

/// The entries of the memory at `file`, oldest first; a line that does not
/// read is skipped, a missing file is an empty memory.
fn read_entries(file: &Path) -> Vec<Entry> {
    std::fs::read_to_string(file).map(|text| text.lines().filter_map(Entry::parse).collect()).unwrap_or_default()
}

/// Writes `entries` to `file` whole, through a file of this write's own
/// renamed into place (two writers at once: the last one's stays). A
/// memory that cannot be written is only a memory lost.
fn write_entries(file: &Path, entries: &[Entry]) {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let Some(folder) = file.parent() else { return };
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = folder.join(format!("{FILE}.{}.{n}", std::process::id()));
    let text: String = entries.iter().map(Entry::line).collect();
    let written = std::fs::create_dir_all(folder)
        .and_then(|_| std::fs::write(&partial, text))
        .and_then(|_| std::fs::rename(&partial, file));
    if let Err(e) = written {
        tracing::debug!("cannot remember file hashes in {}: {e}", file.display());
        let _ = std::fs::remove_file(&partial);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::{read_entries, sha256_in, Entry, FILE};
    use std::time::Duration;

    const SHA_OF_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn a_settled_file_is_remembered_until_it_changes() {
        let dir = arbiter_testing::temp_folder("file-hashes");
        let (file, cache) = (dir.join("engine"), dir.join("cache"));
        std::fs::write(&file, b"abc").unwrap();
        assert_eq!(sha256_in(&file, Some(&cache), Duration::ZERO).unwrap(), SHA_OF_ABC);
        let kept = read_entries(&cache.join(FILE));
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].sha256.as_str(), kept[0].path.as_str()), (SHA_OF_ABC, file.to_str().unwrap()));
        // What is remembered is what is answered: a forged memory shows it.
        let forged = Entry { sha256: "f".repeat(64), ..kept.into_iter().next().unwrap() };
        std::fs::write(cache.join(FILE), forged.line()).unwrap();
        assert_eq!(sha256_in(&file, Some(&cache), Duration::ZERO).unwrap(), "f".repeat(64));
        // Any write moves the status-change time (and here the size).
        std::fs::write(&file, b"abcd").unwrap();
        let hashed = sha256_in(&file, Some(&cache), Duration::ZERO).unwrap();
        assert_eq!(hashed, "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589");
        assert_eq!(read_entries(&cache.join(FILE)).len(), 1, "one entry a file");
    }

    #[test]
    fn a_file_changed_just_before_it_was_hashed_is_not_remembered() {
        let dir = arbiter_testing::temp_folder("file-hashes-fresh");
        let (file, cache) = (dir.join("engine"), dir.join("cache"));
        std::fs::write(&file, b"abc").unwrap();
        assert_eq!(sha256_in(&file, Some(&cache), Duration::from_secs(60)).unwrap(), SHA_OF_ABC);
        assert!(read_entries(&cache.join(FILE)).is_empty());
    }

    #[test]
    fn a_damaged_memory_is_read_past_and_no_memory_hashes_every_time() {
        let dir = arbiter_testing::temp_folder("file-hashes-damaged");
        let (file, cache) = (dir.join("engine"), dir.join("cache"));
        std::fs::write(&file, b"abc").unwrap();
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(cache.join(FILE), "not\ta memory\n\u{0}\n").unwrap();
        assert_eq!(sha256_in(&file, Some(&cache), Duration::ZERO).unwrap(), SHA_OF_ABC);
        assert_eq!(read_entries(&cache.join(FILE)).len(), 1);
        assert_eq!(sha256_in(&file, None, Duration::ZERO).unwrap(), SHA_OF_ABC);
        let missing = sha256_in(&dir.join("gone"), Some(&cache), Duration::ZERO);
        assert_eq!(missing.unwrap_err().kind(), std::io::ErrorKind::NotFound);
    }
}
