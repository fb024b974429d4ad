//! A look at a native plugin file before the dynamic loader maps it: a
//! shared library cut short (a copy broken off, a download stopped) maps
//! without complaint and then kills the process with SIGBUS when a page past
//! the file's end is touched. So every part the loader maps (the program
//! headers' segments) and the section table must lie within the file.

use std::io::Read;
use std::path::Path;

/// An ELF file's parts, as read from its header and program headers.
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
/// `e_ident[EI_CLASS]` of a 64-bit file.
const CLASS_64: u8 = 2;
/// `e_ident[EI_DATA]` of a little-endian file.
const LITTLE_ENDIAN: u8 = 1;
/// The size of a 64-bit ELF header.
const HEADER_SIZE: usize = 64;
/// The size of a 64-bit program header.
const PROGRAM_HEADER_SIZE: u64 = 56;

/// Why `path` cannot be a shared library this process may map, if it
/// cannot: one phrase naming what is wrong, or `None` for a file whose
/// header and mapped parts are whole. Files that are not ELF (another
/// system's libraries) are left to the dynamic loader.
pub(super) fn broken_library(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    let mut header = [0u8; HEADER_SIZE];
    let mut read = 0;
    while read < HEADER_SIZE {
        match file.read(&mut header[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) => return Some(format!("cannot be read: {e}")),
        }
    }
    if read < 4 || &header[..4] != ELF_MAGIC {
        return (read < 4).then(|| format!("{size} bytes, too short to be a shared library"));
    }
    if read < HEADER_SIZE {
        return Some(format!("an ELF file cut short: {size} bytes, not even its header"));
    }
    if header[4] != CLASS_64 || header[5] != LITTLE_ENDIAN {
        return Some("an ELF file of another kind (not 64-bit little-endian): not for this machine".into());
    }
    let u16_at = |at: usize| u64::from(u16::from_le_bytes([header[at], header[at + 1]]));
    let u64_at = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("eight bytes"));
    let (program_headers, program_count, program_size) = (u64_at(0x20), u16_at(0x38), u16_at(0x36));
    let (sections, section_count, section_size) = (u64_at(0x28), u16_at(0x3C), u16_at(0x3A));
    let cut_short = |needed: u64| format!("cut short: {size} bytes, but its own headers reach byte {needed}");
    let table_end = |at: u64, count: u64, each: u64| at.checked_add(count.checked_mul(each)?);
    let programs_end = table_end(program_headers, program_count, program_size).unwrap_or(u64::MAX);
    if program_count > 0 && (program_size < PROGRAM_HEADER_SIZE || programs_end > size) {
        return Some(cut_short(programs_end));
    }
    let sections_end = table_end(sections, section_count, section_size).unwrap_or(u64::MAX);
    if section_count > 0 && sections_end > size {
        return Some(cut_short(sections_end));
    }
    // Every segment's bytes in the file (p_offset + p_filesz).
    let mut table = vec![0u8; (programs_end - program_headers) as usize];
    use std::io::Seek;
    if file.seek(std::io::SeekFrom::Start(program_headers)).is_err() || file.read_exact(&mut table).is_err() {
        return Some(cut_short(programs_end));
    }
    for entry in table.chunks_exact(program_size as usize) {
        let at = |i: usize| u64::from_le_bytes(entry[i..i + 8].try_into().expect("eight bytes"));
        let (offset, file_size) = (at(8), at(32));
        let end = offset.saturating_add(file_size);
        if end > size {
            return Some(cut_short(end));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::broken_library;

    /// This test binary is itself a whole ELF file; cut short, it is named so.
    #[test]
    fn a_whole_library_passes_and_one_cut_short_is_named() {
        let me = std::env::current_exe().unwrap();
        assert_eq!(broken_library(&me), None, "{}", me.display());
        let bytes = std::fs::read(&me).unwrap();
        let dir = std::env::temp_dir().join(format!("arbiter-elf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cut = dir.join("cut.so");
        std::fs::write(&cut, &bytes[..65536.min(bytes.len() / 2)]).unwrap();
        let why = broken_library(&cut).unwrap();
        assert!(why.starts_with("cut short: 65536 bytes, but its own headers reach byte "), "{why}");
        std::fs::write(&cut, &bytes[..20]).unwrap();
        assert_eq!(broken_library(&cut).unwrap(), "an ELF file cut short: 20 bytes, not even its header");
        std::fs::write(&cut, b"not a library at all").unwrap();
        assert_eq!(broken_library(&cut), None, "not ELF: for the dynamic loader to refuse");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
