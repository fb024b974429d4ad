//! The ply journal: a worker writes every ply of the game it plays into a
//! file its parent created and it maps into memory, so that when the worker
//! dies (a plugin aborts or segfaults) or is killed (a plugin hangs), the
//! parent still reads every ply played up to the fault. Writing a ply is a
//! copy into shared memory, no system call; the kernel keeps the pages when
//! the process dies.
//!
//! Layout: a header of two little-endian u64 (the game's number, then the
//! bytes of entries committed), then entries of a u32 length and a ply in
//! the binary form of [`encode`]. The committed length is written after its
//! entry, so a reader never sees half a ply.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::model::PlyRecord;

/// The journal file's size: room for hundreds of thousands of plies (the
/// file is sparse; pages are used as plies are written).
pub const CAPACITY: usize = 16 << 20;

const HEADER: usize = 16;

/// The parent's side: the file, made and removed by it.
pub struct JournalFile {
    path: PathBuf,
}

impl JournalFile {
    /// Creates an empty journal file in the temporary directory.
    pub fn create() -> std::io::Result<JournalFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("arbiter-plies-{}-{n}", std::process::id()));
        let file = File::create(&path)?;
        file.set_len(CAPACITY as u64)?;
        Ok(JournalFile { path })
    }

    /// Its path, for the worker.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The plies written for game `game` (none if the journal holds another game).
    pub fn read(&self, game: u64) -> Vec<PlyRecord> {
        let Ok(bytes) = std::fs::read(&self.path) else { return Vec::new() };
        let word = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        if word(0) != Some(game) {
            return Vec::new();
        }
        let committed = word(8).unwrap_or(0) as usize;
        let end = (HEADER + committed).min(bytes.len());
        let mut plies = Vec::new();
        let mut at = HEADER;
        while at + 4 <= end {
            let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
            let Some(entry) = bytes.get(at + 4..at + 4 + len).filter(|_| at + 4 + len <= end) else { break };
            match decode(entry) {
                Some(p) => plies.push(p),
                None => break,
            }
            at += 4 + len;
        }
        plies
    }
}

impl Drop for JournalFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The worker's side: the file mapped into memory.
pub struct Journal {
    path: PathBuf,
    base: *mut u8,
    used: usize,
}

// SAFETY: the mapping is owned by this value alone and only written through `&mut self`.
unsafe impl Send for Journal {}

impl Journal {
    /// Maps the journal file at `path`.
    #[cfg(unix)]
    pub fn open(path: &Path) -> std::io::Result<Journal> {
        use std::os::fd::AsRawFd;
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        if file.metadata()?.len() < CAPACITY as u64 {
            return Err(std::io::Error::other("the journal file is too small"));
        }
        // SAFETY: a fresh shared mapping of a file of at least CAPACITY bytes;
        // the pointer is checked against MAP_FAILED.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                CAPACITY,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Journal { path: path.to_path_buf(), base: base.cast(), used: 0 })
    }

    /// The file this journal maps.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts game `game`: no plies yet.
    pub fn start(&mut self, game: u64) {
        self.used = 0;
        self.write(0, &game.to_le_bytes());
        self.commit();
    }

    /// Appends one ply (silently dropped once the journal is full).
    pub fn push(&mut self, ply: &PlyRecord) {
        let entry = encode(ply);
        let at = HEADER + self.used;
        if at + 4 + entry.len() > CAPACITY {
            return;
        }
        self.write(at, &(entry.len() as u32).to_le_bytes());
        self.write(at + 4, &entry);
        self.used += 4 + entry.len();
        self.commit();
    }

    fn write(&mut self, at: usize, bytes: &[u8]) {
        debug_assert!(at + bytes.len() <= CAPACITY);
        // SAFETY: within the mapping (callers keep to CAPACITY), which this value owns.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(at), bytes.len()) }
    }

    /// Publishes the entries written so far (after them, never before).
    fn commit(&mut self) {
        std::sync::atomic::fence(Ordering::Release);
        self.write(8, &(self.used as u64).to_le_bytes());
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `open`, unmapped once.
        #[cfg(unix)]
        unsafe {
            libc::munmap(self.base.cast(), CAPACITY);
        }
    }
}

/// A ply as bytes: player, move id, used µs, which optional fields are
/// present, reported ms, clock ms, score, then the text's length and bytes.
fn encode(p: &PlyRecord) -> Vec<u8> {
    let mut b = Vec::with_capacity(45 + p.text.len());
    b.extend_from_slice(&p.player.to_le_bytes());
    b.extend_from_slice(&p.mv.to_le_bytes());
    b.extend_from_slice(&p.used_us.to_le_bytes());
    let flags = p.reported_ms.is_some() as u8 | (p.clock_ms.is_some() as u8) << 1 | (p.score.is_some() as u8) << 2;
    b.push(flags);
    b.extend_from_slice(&p.reported_ms.unwrap_or(0).to_le_bytes());
    b.extend_from_slice(&p.clock_ms.unwrap_or(0).to_le_bytes());
    b.extend_from_slice(&p.score.unwrap_or(0).to_le_bytes());
    b.extend_from_slice(&(p.text.len() as u32).to_le_bytes());
    b.extend_from_slice(p.text.as_bytes());
    b
}

fn decode(b: &[u8]) -> Option<PlyRecord> {
    let u32_at = |at: usize| Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?));
    let flags = *b.get(20)?;
    let text_len = u32_at(41)? as usize;
    Some(PlyRecord {
        player: u32_at(0)?,
        mv: u64_at(4)?,
        used_us: u64_at(12)?,
        reported_ms: (flags & 1 != 0).then_some(u64_at(21)?),
        clock_ms: (flags & 2 != 0).then_some(u64_at(29)?),
        score: (flags & 4 != 0).then_some(u32_at(37)? as i32),
        text: String::from_utf8(b.get(45..45 + text_len)?.to_vec()).ok()?,
        // Only a game cut short is read back from the journal: its plies
        // keep their scores, not the search's depth, nodes and pv.
        depth: None,
        nodes: None,
        seldepth: None,
        pv: None,
        ponder_hit: None,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn ply(i: u32) -> PlyRecord {
        PlyRecord {
            player: i % 2,
            mv: u64::from(i) << 40 | 7,
            text: format!("m{i}é"),
            used_us: u64::from(i) * 3,
            reported_ms: (i % 3 == 0).then_some(5),
            clock_ms: (i % 2 == 0).then_some(60_000 - u64::from(i)),
            score: (i % 4 == 0).then_some(-(i as i32)),
            depth: None,
            nodes: None,
            seldepth: None,
            pv: None,
            ponder_hit: None,
        }
    }

    #[test]
    fn plies_written_by_the_worker_are_read_back_by_the_parent() {
        let file = JournalFile::create().unwrap();
        let mut journal = Journal::open(file.path()).unwrap();
        journal.start(7);
        let plies: Vec<PlyRecord> = (0..100).map(ply).collect();
        for p in &plies {
            journal.push(p);
        }
        assert_eq!(file.read(7), plies);
        assert!(file.read(8).is_empty(), "another game's journal reads as empty");
        journal.start(8);
        journal.push(&plies[0]);
        assert_eq!(file.read(8), vec![plies[0].clone()]);
    }
}
