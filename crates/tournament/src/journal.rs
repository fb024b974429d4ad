//! The ply journal: a worker writes every ply of the game it plays into a
//! file its parent created and it maps into memory, so that when the worker
//! dies (a plugin aborts or segfaults) or is killed (a plugin hangs), the
//! parent still reads every ply played up to the fault. Writing a ply is a
//! copy into shared memory, no system call; the kernel keeps the pages when
//! the process dies.
//!
//! Layout: a header of two little-endian u64 (the game's number, then the
//! bytes of entries committed), then entries of a u32 length and a ply in
//! the binary form of `encode`. The committed length is written after its
//! entry, so a reader never sees half a ply.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use arbiter_core::model::{PlyRecord, Seat};

/// The journal file's size: room for hundreds of thousands of plies (the
/// file is sparse; pages are used as plies are written).
pub const CAPACITY: usize = 16 << 20;

const HEADER: usize = 16;

/// The parent's side: the file, made by it and gone with it. On Linux it
/// has no name once made (a worker opens it through the parent's open
/// descriptor, `/proc/PID/fd/N`), so nothing is left behind even when
/// arbiter is killed; elsewhere it is a temporary file removed on drop.
pub struct JournalFile {
    file: File,
    /// Where a worker opens it.
    path: PathBuf,
    /// The temporary file to remove on drop, while it still has its name.
    named: Option<PathBuf>,
}

impl JournalFile {
    /// Creates an empty journal file.
    pub fn create() -> std::io::Result<JournalFile> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let temp = std::env::temp_dir().join(format!("arbiter-plies-{}-{n}", std::process::id()));
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&temp)?;
        file.set_len(CAPACITY as u64)?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let by_descriptor = PathBuf::from(format!("/proc/{}/fd/{}", std::process::id(), file.as_raw_fd()));
            if by_descriptor.exists() && std::fs::remove_file(&temp).is_ok() {
                return Ok(JournalFile { file, path: by_descriptor, named: None });
            }
        }
        Ok(JournalFile { file, path: temp.clone(), named: Some(temp) })
    }

    /// Where a worker opens it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The plies written for game `game` (none if the journal holds another game).
    pub fn read(&self, game: u64) -> Vec<PlyRecord> {
        let mut file = &self.file;
        let mut header = [0u8; HEADER];
        if file.seek(SeekFrom::Start(0)).and_then(|_| file.read_exact(&mut header)).is_err() {
            return Vec::new();
        }
        let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
        if word(0) != game {
            return Vec::new();
        }
        // Only the committed entries are read, not the whole (sparse) file.
        let committed = word(8).min((CAPACITY - HEADER) as u64);
        let mut bytes = Vec::with_capacity(committed as usize);
        if file.take(committed).read_to_end(&mut bytes).is_err() {
            return Vec::new();
        }
        let mut plies = Vec::new();
        let mut at = 0;
        while let Some(len) = bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
        {
            let Some(p) = bytes.get(at + 4..at + 4 + len).and_then(decode) else { break };
            plies.push(p);
            at += 4 + len;
        }
        plies
    }
}

impl Drop for JournalFile {
    fn drop(&mut self) {
        if let Some(path) = &self.named {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The worker's side: the file mapped into memory.
pub struct Journal {
    path: PathBuf,
    base: *mut u8,
    used: usize,
    plies: usize,
    whole: bool,
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
        Ok(Journal { path: path.to_path_buf(), base: base.cast(), used: 0, plies: 0, whole: true })
    }

    /// The file this journal maps.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts game `game`: no plies yet.
    pub fn start(&mut self, game: u64) {
        self.used = 0;
        self.plies = 0;
        self.whole = true;
        self.write(0, &game.to_le_bytes());
        self.commit();
    }

    /// How many plies the current game has here, if it has every ply
    /// pushed since [`Journal::start`] (none was dropped for want of room).
    pub fn plies(&self) -> Option<usize> {
        self.whole.then_some(self.plies)
    }

    /// Appends one ply (dropped once the journal is full: the game's record
    /// then carries its plies itself).
    pub fn push(&mut self, ply: &PlyRecord) {
        let entry = encode(ply);
        let at = HEADER + self.used;
        if !self.whole || at + 4 + entry.len() > CAPACITY {
            self.whole = false;
            return;
        }
        self.write(at, &(entry.len() as u32).to_le_bytes());
        self.write(at + 4, &entry);
        self.used += 4 + entry.len();
        self.plies += 1;
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

/// A ply as bytes: player, move id, used µs, a byte of flags saying which
/// optional fields follow, those fields, then the text, the pv (if any) and
/// the coordinates (if any, last: older entries end before them), each as a
/// u32 length and its bytes. Every field of [`PlyRecord`] is kept.
fn encode(p: &PlyRecord) -> Vec<u8> {
    let mut b = Vec::with_capacity(64 + p.text.len() + p.pv.as_ref().map_or(0, String::len));
    b.extend_from_slice(&p.player.number().to_le_bytes());
    b.extend_from_slice(&p.mv.to_le_bytes());
    b.extend_from_slice(&p.used_us.to_le_bytes());
    let present = [
        p.reported_ms.is_some(),
        p.clock_ms.is_some(),
        p.score.is_some(),
        p.depth.is_some(),
        p.nodes.is_some(),
        p.seldepth.is_some(),
        p.pv.is_some(),
        p.ponder_hit.is_some(),
    ];
    b.push(present.iter().enumerate().fold(0u8, |f, (i, &on)| f | (on as u8) << i));
    if let Some(v) = p.reported_ms {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(v) = p.clock_ms {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(v) = p.score {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(v) = p.depth {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(v) = p.nodes {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(v) = p.seldepth {
        b.extend_from_slice(&v.to_le_bytes());
    }
    if let Some(v) = p.ponder_hit {
        b.push(v as u8);
    }
    for text in [Some(&p.text), p.pv.as_ref(), p.coordinates.as_ref()].into_iter().flatten() {
        b.extend_from_slice(&(text.len() as u32).to_le_bytes());
        b.extend_from_slice(text.as_bytes());
    }
    b
}

/// Reads [`encode`]'s bytes in order.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_at_checked(N)?;
        self.0 = rest;
        head.try_into().ok()
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn text(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        let (text, rest) = self.0.split_at_checked(len)?;
        self.0 = rest;
        String::from_utf8(text.to_vec()).ok()
    }
}

fn decode(b: &[u8]) -> Option<PlyRecord> {
    let mut b = Bytes(b);
    let (player, mv, used_us) = (Seat::new(b.u32()?), b.u64()?, b.u64()?);
    let [flags] = b.take()?;
    let on = |i: u8| flags & 1 << i != 0;
    let reported_ms = if on(0) { Some(b.u64()?) } else { None };
    let clock_ms = if on(1) { Some(b.u64()?) } else { None };
    let score = if on(2) { Some(b.take().map(i32::from_le_bytes)?) } else { None };
    let depth = if on(3) { Some(b.u32()?) } else { None };
    let nodes = if on(4) { Some(b.u64()?) } else { None };
    let seldepth = if on(5) { Some(b.u32()?) } else { None };
    let ponder_hit = if on(7) { Some(b.take::<1>()?[0] != 0) } else { None };
    let text = b.text()?;
    let pv = if on(6) { Some(b.text()?) } else { None };
    let coordinates = if b.0.is_empty() { None } else { Some(b.text()?) };
    Some(PlyRecord {
        player,
        mv,
        text,
        coordinates,
        used_us,
        reported_ms,
        clock_ms,
        score,
        depth,
        nodes,
        seldepth,
        pv,
        ponder_hit,
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn ply(i: u32) -> PlyRecord {
        PlyRecord {
            player: Seat::new(i % 2),
            mv: u64::from(i) << 40 | 7,
            text: format!("m{i}é"),
            coordinates: (i % 4 == 1).then(|| format!("a{i}b{i}")),
            used_us: u64::from(i) * 3,
            reported_ms: i.is_multiple_of(3).then_some(5),
            clock_ms: i.is_multiple_of(2).then_some(60_000 - u64::from(i)),
            score: i.is_multiple_of(4).then_some(-(i as i32)),
            depth: i.is_multiple_of(5).then_some(i),
            nodes: i.is_multiple_of(5).then_some(u64::from(i) << 33),
            seldepth: i.is_multiple_of(7).then_some(i + 3),
            pv: (i % 3 == 1).then(|| format!("e2e4 m{i}")),
            ponder_hit: (i % 4 == 1).then_some(i % 8 == 1),
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
        assert_eq!(file.read(7), plies, "every field of every ply comes back");
        assert_eq!(journal.plies(), Some(100));
        assert!(file.read(8).is_empty(), "another game's journal reads as empty");
        journal.start(8);
        journal.push(&plies[0]);
        assert_eq!(file.read(8), vec![plies[0].clone()]);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_journal_file_has_no_name_left_to_outlive_a_killed_arbiter() {
        let file = JournalFile::create().unwrap();
        assert!(file.path().starts_with("/proc"), "{}", file.path().display());
        let target = std::fs::read_link(file.path()).unwrap();
        assert!(target.to_string_lossy().ends_with(" (deleted)"), "the file keeps its name: {}", target.display());
        let mut journal = Journal::open(file.path()).unwrap();
        journal.start(3);
        journal.push(&ply(1));
        assert_eq!(file.read(3), vec![ply(1)]);
    }

    #[test]
    fn a_full_journal_says_it_is_not_whole_and_keeps_no_gap() {
        let file = JournalFile::create().unwrap();
        let mut journal = Journal::open(file.path()).unwrap();
        journal.start(1);
        let big = PlyRecord { text: "x".repeat(CAPACITY / 2), ..ply(0) };
        journal.push(&big);
        assert_eq!(journal.plies(), Some(1));
        journal.push(&big);
        journal.push(&ply(2));
        assert_eq!(journal.plies(), None, "a ply was dropped");
        assert_eq!(file.read(1), vec![big], "no ply after the one dropped");
        journal.start(2);
        assert_eq!(journal.plies(), Some(0), "the next game starts whole");
    }
}
