//! Syzygy WDL files checked before the prober maps them. The prober
//! (pyrrhic-rs, a translation of Fathom's C) trusts every offset in a file
//! it maps, so a truncated download, an empty file or garbage behind the
//! right magic read memory outside the mapping and kill the process. This
//! module walks a file's layout in safe Rust the way the prober will (the
//! header, each table's pairs data, index, size table and blocks) and
//! refuses the file, naming it and what is wrong, unless every read the
//! prober can make stays inside the file.
//!
//! The layout is Syzygy's as its generator writes it (a documented format:
//! magic, per-table piece orders, Huffman-like pair tables, 64-byte-aligned
//! blocks, a 16-byte checksum at the end); nothing here probes a position.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// A WDL file's first four bytes, little-endian.
const WDL_MAGIC: u32 = 0x5d23_e871;
/// The generator's checksum that ends every file.
const CHECKSUM_BYTES: u64 = 16;
/// The most pieces a table may hold (Syzygy goes to seven).
const MOST_PIECES: usize = 7;

/// What is wrong with one table file: `path: why`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadTable {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub why: String,
}

impl std::fmt::Display for BadTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.why)
    }
}

/// Every `.rtbw` file in the `:`-separated folders of `path` whose name is
/// a material the prober may open, each checked; how many there were.
/// A folder that cannot be read, or a bad file, is an error.
pub fn check_folders(path: &str) -> Result<usize, BadTable> {
    let mut checked = 0;
    for folder in path.split(':').filter(|f| !f.is_empty()) {
        let entries = std::fs::read_dir(folder)
            .map_err(|e| BadTable { path: PathBuf::from(folder), why: format!("cannot read the folder ({e})") })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "rtbw"))
            .collect();
        files.sort();
        for file in files {
            // A name that is no material is never opened by the prober.
            let Some(material) = file.file_stem().and_then(|s| s.to_str()).and_then(Material::parse) else {
                continue;
            };
            check_file(&file, &material).map_err(|why| BadTable { path: file.clone(), why })?;
            checked += 1;
        }
    }
    Ok(checked)
}

/// The pieces a table's name gives, as the prober codes them: 1 pawn to
/// 6 king for White, 9 to 14 for Black.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Material {
    /// How many of each piece code (index 0..16).
    counts: [u8; 16],
}

impl Material {
    /// The material of a name such as `KRPvKR`, if it is one.
    pub fn parse(name: &str) -> Option<Material> {
        let (white, black) = name.split_once('v')?;
        let mut counts = [0u8; 16];
        for (side, colour) in [(white, 0usize), (black, 8)] {
            for c in side.chars() {
                let kind = match c {
                    'P' => 1,
                    'N' => 2,
                    'B' => 3,
                    'R' => 4,
                    'Q' => 5,
                    'K' => 6,
                    _ => return None,
                };
                counts[kind + colour] += 1;
            }
        }
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        (counts[6] == 1 && counts[14] == 1 && total <= MOST_PIECES).then_some(Material { counts })
    }

    fn total(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }

    fn has_pawns(&self) -> bool {
        self.counts[1] + self.counts[9] > 0
    }

    /// The leading pawns' count and the other side's, as the prober orders
    /// them (the side with fewer pawns leads, White on a tie).
    fn pawns(&self) -> (u8, u8) {
        let (w, b) = (self.counts[1], self.counts[9]);
        if b != 0 && (w == 0 || w > b) {
            (b, w)
        } else {
            (w, b)
        }
    }

    /// Whether two kings alone are unique pieces (the 462-square king
    /// pair encoding): exactly two piece codes occur once.
    fn kings_alone_unique(&self) -> bool {
        self.counts.iter().filter(|&&c| c == 1).count() == 2
    }
}

/// A file read as far as the checks need it (never whole: tables run to
/// gigabytes and only their ends and tables are read).
struct Reader {
    file: File,
    len: u64,
    head: Vec<u8>,
}

impl Reader {
    /// The bytes `[at, at + n)`, which must lie inside the file.
    fn bytes(&mut self, at: u64, n: u64) -> Result<&[u8], String> {
        let end = at.checked_add(n).filter(|&e| e <= self.len).ok_or_else(|| {
            format!("cut short: {} bytes, but its layout needs {} (an interrupted download?)", self.len, at + n)
        })?;
        if end as usize > self.head.len() {
            // Read ahead in large steps: the tables come in order.
            let want = (end as usize).max(self.head.len() * 2).max(1 << 16).min(self.len as usize);
            let from = self.head.len();
            self.head.resize(want, 0);
            self.file.seek(SeekFrom::Start(from as u64)).map_err(|e| format!("cannot read ({e})"))?;
            self.file.read_exact(&mut self.head[from..]).map_err(|e| format!("cannot read ({e})"))?;
        }
        Ok(&self.head[at as usize..end as usize])
    }

    fn u8(&mut self, at: u64) -> Result<u8, String> {
        Ok(self.bytes(at, 1)?[0])
    }

    fn u16(&mut self, at: u64) -> Result<u16, String> {
        let b = self.bytes(at, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, at: u64) -> Result<u32, String> {
        let b = self.bytes(at, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Bytes read from `at` on, without keeping them (block tails).
    fn tail(&mut self, at: u64, n: u64) -> Result<Vec<u8>, String> {
        let n = n.min(self.len.saturating_sub(at));
        let mut buf = vec![0; n as usize];
        self.file.seek(SeekFrom::Start(at)).map_err(|e| format!("cannot read ({e})"))?;
        self.file.read_exact(&mut buf).map_err(|e| format!("cannot read ({e})"))?;
        Ok(buf)
    }
}

/// How a table's positions are indexed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// Pawnless tables.
    Pieces,
    /// Tables with pawns, one per file of the leading pawn (WDL's).
    Files,
}

/// One table's compressed data, as far as its bounds go.
struct Pairs {
    /// A table of one value, with no blocks.
    constant: bool,
    block_size: u8,
    index_bits: u8,
    real_blocks: u32,
    blocks: u32,
    min_len: u8,
    max_len: u8,
    /// `symbol_len[s]`: how many values symbol `s` stands for, less one.
    symbol_len: Vec<u8>,
    /// The first code of each length (the prober's `base`), by length.
    base: Vec<u64>,
    /// The first symbol of each length, by length.
    first_symbol: Vec<u16>,
    /// Positions the table indexes.
    positions: u64,
    index_at: u64,
    sizes_at: u64,
    data_at: u64,
}

impl Pairs {
    fn index_entries(&self) -> u64 {
        (self.positions + (1u64 << self.index_bits) - 1) >> self.index_bits
    }
}

/// Checks one file against `material`; `Err` says what is wrong.
fn check_file(path: &Path, material: &Material) -> Result<(), String> {
    let file = File::open(path).map_err(|e| format!("cannot open ({e})"))?;
    let len = file.metadata().map_err(|e| format!("cannot read ({e})"))?.len();
    if len == 0 {
        return Err("empty file (an interrupted download?)".into());
    }
    if len % 64 != CHECKSUM_BYTES {
        return Err(format!("{len} bytes is not a Syzygy table's size (an interrupted download?)"));
    }
    let mut r = Reader { file, len, head: Vec::new() };
    if r.u32(0)? != WDL_MAGIC {
        return Err("not a Syzygy WDL table (wrong magic number)".into());
    }
    let split = r.u8(4)? & 1 != 0;
    let (encoding, tables) = if material.has_pawns() { (Encoding::Files, 4) } else { (Encoding::Pieces, 1) };
    let num = material.total();
    let more_pawns = encoding == Encoding::Files && material.pawns().1 > 0;
    let sides = if split { 2 } else { 1 };

    // The piece orders: one header per table, each side's in a nibble.
    let mut at = 5u64;
    let mut positions = Vec::new();
    for t in 0..tables {
        let header = r.bytes(at, (num + 1 + more_pawns as usize) as u64)?.to_vec();
        for side in 0..sides {
            let size = index_size(&header, 4 * side as u32, t, encoding, material)
                .map_err(|why| format!("table {t}, side {side}: {why}"))?;
            positions.push(size);
        }
        at += header.len() as u64;
    }
    at += at & 1;

    // Each table's pairs data, in file order (table by table, side by side).
    let mut pairs = Vec::new();
    for (i, &size) in positions.iter().enumerate() {
        let p = read_pairs(&mut r, &mut at, size)
            .map_err(|why| format!("table {}, side {}: {why}", i / sides, i % sides))?;
        pairs.push(p);
    }
    // Index tables, then size tables, then the 64-byte-aligned blocks.
    for p in pairs.iter_mut() {
        p.index_at = at;
        at += if p.constant { 0 } else { 6 * p.index_entries() };
    }
    for p in pairs.iter_mut() {
        p.sizes_at = at;
        at += if p.constant { 0 } else { 2 * p.blocks as u64 };
    }
    for p in pairs.iter_mut() {
        at = (at + 63) & !63;
        p.data_at = at;
        at += if p.constant { 0 } else { (p.real_blocks as u64) << p.block_size };
    }
    // The generator pads the last block to 64 bytes, then writes its checksum.
    let needed = ((at + 63) & !63) + CHECKSUM_BYTES;
    if needed != len {
        return Err(format!("its layout needs {needed} bytes but it has {len} (a damaged or cut file)"));
    }
    for (i, p) in pairs.iter().enumerate() {
        check_blocks(&mut r, p).map_err(|why| format!("table {}, side {}: {why}", i / sides, i % sides))?;
    }
    Ok(())
}

fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1))
}

/// The prober's order of the leading pawn's squares on files a-d: square
/// `8 * rank + file` (ranks 1-6 of the 0-7 board, files 0-3) counts down
/// from 47 towards the centre and the seventh rank.
fn pawn_twist(rank: u64, file: u64) -> u64 {
    let near = file.min(7 - file);
    47 - 12 * near - 2 * (rank - 1) - u64::from(file >= 4)
}

/// Positions of `pawns` leading pawns with the leading one on file `t`
/// (a-d): the leading pawn's square, and the others' among the squares
/// its twist order puts before it.
fn leading_pawn_factor(pawns: u64, t: usize) -> u64 {
    (1..=6).map(|rank| binomial(pawn_twist(rank, t as u64), pawns - 1)).sum()
}

/// The number of positions one table indexes, from its header (the
/// prober's encoding), refusing a piece order the prober would misread:
/// pieces not those of the name, a kind split across groups, or group
/// orders it never reaches.
fn index_size(header: &[u8], shift: u32, t: usize, encoding: Encoding, m: &Material) -> Result<u64, String> {
    let num = m.total();
    let (lead, other) = m.pawns();
    let more_pawns = encoding == Encoding::Files && other > 0;
    let pieces: Vec<u8> = (0..num).map(|i| (header[i + 1 + more_pawns as usize] >> shift) & 0xf).collect();
    // The pieces are the name's, each kind in one run of all its pieces.
    let mut seen = [0u8; 16];
    for (i, &p) in pieces.iter().enumerate() {
        if m.counts[p as usize] == 0 {
            return Err(format!("piece code {p} is not in the table's material"));
        }
        if i > 0 && pieces[i - 1] != p && seen[p as usize] > 0 {
            return Err(format!("piece code {p} is listed apart from its own kind"));
        }
        seen[p as usize] += 1;
    }
    if seen != m.counts {
        return Err("its pieces are not the table's material".into());
    }
    let order = (header[0] >> shift) & 0xf;
    let order2 = if more_pawns { (header[1] >> shift) & 0xf } else { 0xf };
    let mut norm = [0u8; MOST_PIECES + 1];
    norm[0] = match encoding {
        Encoding::Files => lead,
        Encoding::Pieces if m.kings_alone_unique() => 2,
        Encoding::Pieces => 3,
    };
    if encoding == Encoding::Files && pieces[..lead as usize].iter().any(|&p| p & 7 != 1) {
        return Err("the leading pieces are not the leading pawns".into());
    }
    let mut k = norm[0] as usize;
    if more_pawns {
        norm[k] = other;
        k += other as usize;
    }
    let mut i = k;
    while i < num {
        let run = pieces[i..].iter().take_while(|&&p| p == pieces[i]).count();
        norm[i] = run as u8;
        i += run;
    }
    let mut free = 64 - k as u64;
    let mut f: u64 = 1;
    let (mut ordered, mut ordered2) = (false, !more_pawns);
    let mut g = 0u8;
    while k < num || g == order || g == order2 {
        let factor = if g == order {
            ordered = true;
            match encoding {
                Encoding::Files => leading_pawn_factor(norm[0] as u64, t),
                Encoding::Pieces if norm[0] == 2 => 462,
                Encoding::Pieces => 31332,
            }
        } else if g == order2 {
            ordered2 = true;
            binomial(48 - norm[0] as u64, norm[norm[0] as usize] as u64)
        } else {
            if k >= num {
                return Err(format!("group order {order} names a group that does not exist"));
            }
            let n = norm[k] as u64;
            let factor = binomial(free, n);
            free -= n;
            k += n as usize;
            factor
        };
        f = f.checked_mul(factor).ok_or("its index overflows")?;
        g += 1;
    }
    if !ordered || !ordered2 {
        return Err("a group order names a group that does not exist".into());
    }
    Ok(f)
}

/// One table's pairs header at `*at`, its symbols checked, `*at` moved past it.
fn read_pairs(r: &mut Reader, at: &mut u64, positions: u64) -> Result<Pairs, String> {
    let flags = r.u8(*at)?;
    if flags & 0x80 != 0 {
        let value = r.u8(*at + 1)?;
        if value > 4 {
            return Err(format!("constant value {value} is no WDL value"));
        }
        *at += 2;
        return Ok(Pairs {
            constant: true,
            block_size: 0,
            index_bits: 0,
            real_blocks: 0,
            blocks: 0,
            min_len: 0,
            max_len: 0,
            symbol_len: Vec::new(),
            base: Vec::new(),
            first_symbol: Vec::new(),
            positions,
            index_at: 0,
            sizes_at: 0,
            data_at: 0,
        });
    }
    let block_size = r.u8(*at + 1)?;
    let index_bits = r.u8(*at + 2)?;
    let real_blocks = r.u32(*at + 4)?;
    let blocks = real_blocks.checked_add(r.u8(*at + 3)? as u32).ok_or("block count overflows")?;
    let max_len = r.u8(*at + 8)?;
    let min_len = r.u8(*at + 9)?;
    if !(1..=32).contains(&block_size) || !(1..=32).contains(&index_bits) {
        return Err(format!("block size 2^{block_size} or index bits {index_bits} out of range"));
    }
    if min_len == 0 || max_len < min_len || max_len > 64 {
        return Err(format!("code lengths {min_len}..{max_len} out of range"));
    }
    let h = (max_len - min_len + 1) as u64;
    let first_symbol: Vec<u16> = (0..h).map(|i| r.u16(*at + 10 + 2 * i)).collect::<Result<_, _>>()?;
    let symbols = r.u16(*at + 10 + 2 * h)? as usize;
    if symbols == 0 || symbols >= 4096 {
        return Err(format!("{symbols} symbols out of range"));
    }
    let pats = r.bytes(*at + 12 + 2 * h, 3 * symbols as u64)?.to_vec();
    let symbol_len = symbol_lengths(&pats, symbols)?;
    // The first code of each length, as the prober computes it.
    let mut base = vec![0u64; h as usize];
    for i in (0..h as usize - 1).rev() {
        base[i] = base[i + 1].wrapping_add(first_symbol[i] as u64).wrapping_sub(first_symbol[i + 1] as u64) / 2;
    }
    for (i, b) in base.iter_mut().enumerate() {
        *b = b.checked_shl(64 - (min_len as u32 + i as u32)).unwrap_or(0);
    }
    // Every code the decoder can read names a symbol.
    for i in 0..h as usize {
        let l = min_len as u32 + i as u32;
        let top = if i == 0 { u64::MAX } else { base[i - 1].saturating_sub(1) };
        if i > 0 && base[i - 1] <= base[i] {
            continue; // no code has this length
        }
        let last = first_symbol[i] as u64 + (top.wrapping_sub(base[i]) >> (64 - l));
        if last >= symbols as u64 {
            return Err(format!("a code of length {l} names symbol {last} of {symbols}"));
        }
    }
    *at += 12 + 2 * h + 3 * symbols as u64 + (symbols as u64 & 1);
    Ok(Pairs {
        constant: false,
        block_size,
        index_bits,
        real_blocks,
        blocks,
        min_len,
        max_len,
        symbol_len,
        base,
        first_symbol,
        positions,
        index_at: 0,
        sizes_at: 0,
        data_at: 0,
    })
}

/// Each symbol's length (values it stands for, less one), refusing a pair
/// that names a symbol out of range or one that contains itself.
fn symbol_lengths(pats: &[u8], symbols: usize) -> Result<Vec<u8>, String> {
    let pair = |s: usize| {
        let w = &pats[3 * s..3 * s + 3];
        let left = ((w[1] as usize & 0xf) << 8) | w[0] as usize;
        let right = ((w[2] as usize) << 4) | (w[1] as usize >> 4);
        (left, right)
    };
    // 0 unvisited, 1 in progress, 2 done.
    let mut state = vec![0u8; symbols];
    let mut len = vec![0u8; symbols];
    for start in 0..symbols {
        let mut stack = vec![start];
        while let Some(&s) = stack.last() {
            if state[s] == 2 {
                stack.pop();
                continue;
            }
            let (left, right) = pair(s);
            if right == 0xfff {
                len[s] = 0;
                state[s] = 2;
                stack.pop();
                continue;
            }
            if left >= symbols || right >= symbols {
                return Err(format!("symbol {s} names symbol {} of {symbols}", left.max(right)));
            }
            if state[s] == 1 {
                // Both halves are done by now.
                len[s] = len[left].wrapping_add(len[right]).wrapping_add(1);
                state[s] = 2;
                stack.pop();
                continue;
            }
            state[s] = 1;
            for half in [left, right] {
                match state[half] {
                    1 => return Err(format!("symbol {s} contains itself")),
                    0 => stack.push(half),
                    _ => {}
                }
            }
        }
    }
    Ok(len)
}

/// Every index entry leads to a block of the table, and every block whose
/// decoding could read up to the file's end stops inside it.
fn check_blocks(r: &mut Reader, p: &Pairs) -> Result<(), String> {
    if p.constant {
        return Ok(());
    }
    let sizes: Vec<u16> = {
        let raw = r.bytes(p.sizes_at, 2 * p.blocks as u64)?;
        raw.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect()
    };
    if p.positions == 0 {
        return Err("it indexes no positions".into());
    }
    let half = 1i64 << (p.index_bits - 1);
    let entries = p.index_entries();
    for main in 0..entries {
        let e = r.bytes(p.index_at + 6 * main, 6)?;
        let block = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let offset = u16::from_le_bytes([e[4], e[5]]) as i64;
        // The lowest and highest literal index this entry serves.
        let last = ((p.positions - 1 - (main << p.index_bits)).min((1 << p.index_bits) - 1)) as i64;
        for lit in [offset - half, offset - half + last] {
            let (b, _) =
                walk(&sizes, block, lit).ok_or_else(|| format!("index entry {main} leads outside the blocks"))?;
            if b >= p.real_blocks {
                return Err(format!("index entry {main} leads to block {b} of {}", p.real_blocks));
            }
        }
    }
    // A block's decoding reads at most this far from its start.
    let most_symbols = 65_536u64;
    let reach = 8 + 4 * (most_symbols * p.max_len as u64).div_ceil(32);
    for b in 0..p.real_blocks {
        let start = p.data_at + ((b as u64) << p.block_size);
        if start + reach <= r.len {
            continue;
        }
        let bytes = r.tail(start, reach)?;
        let available = bytes.len() as u64;
        decode_reach(p, &bytes, sizes[b as usize] as i64).and_then(|read| {
            (read <= available).then_some(()).ok_or_else(|| format!("block {b} decodes past the end of the file"))
        })?;
    }
    Ok(())
}

/// The block and literal index the prober's walk from `block` ends at, or
/// `None` if it leaves the size table.
fn walk(sizes: &[u16], mut block: u32, mut lit: i64) -> Option<(u32, i64)> {
    while lit < 0 {
        block = block.checked_sub(1)?;
        lit += *sizes.get(block as usize)? as i64 + 1;
    }
    while lit > *sizes.get(block as usize)? as i64 {
        lit -= sizes[block as usize] as i64 + 1;
        block += 1;
    }
    Some((block, lit))
}

/// How many bytes from a block's start decoding literal `lit` reads (the
/// prober's loop, which reads furthest for the last literal), or an error
/// if it runs past `bytes`.
fn decode_reach(p: &Pairs, bytes: &[u8], mut lit: i64) -> Result<u64, String> {
    let word = |at: usize| -> Result<u64, String> {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as u64)
            .ok_or_else(|| "a block decodes past the end of the file".to_string())
    };
    let mut code = (word(0)? << 32) | word(4)?;
    let mut read = 8usize;
    let mut bits = 0u32;
    loop {
        let mut i = 0usize;
        while code < p.base[i] {
            i += 1;
        }
        let l = p.min_len as u32 + i as u32;
        let sym = p.first_symbol[i] as u64 + (code.wrapping_sub(p.base[i]) >> (64 - l));
        let len = *p.symbol_len.get(sym as usize).ok_or("a code names no symbol")? as i64;
        if lit < len + 1 {
            return Ok(read as u64);
        }
        lit -= len + 1;
        code = code.checked_shl(l).unwrap_or(0);
        bits += l;
        if bits >= 32 {
            bits -= 32;
            code |= word(read)? << bits;
            read += 4;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_materials_with_one_king_a_side() {
        assert!(Material::parse("KQvK").is_some());
        assert!(Material::parse("KRPvKR").unwrap().has_pawns());
        assert_eq!(Material::parse("KPvKPP").unwrap().pawns(), (1, 2));
        assert_eq!(Material::parse("KPPvKP").unwrap().pawns(), (1, 2));
        assert!(Material::parse("KQvQ").is_none());
        assert!(Material::parse("README").is_none());
        assert!(Material::parse("KQQQQvKRRR").is_none());
    }

    #[test]
    fn the_leading_pawn_factors_are_the_prober_s() {
        // Every leading-pawn square of files a-d, once: 24 squares.
        assert_eq!((0..4).map(|t| leading_pawn_factor(1, t)).sum::<u64>(), 24);
        assert_eq!(leading_pawn_factor(1, 0), 6);
        // Twist values are 0..47, each once, over the 48 pawn squares.
        let mut seen: Vec<u64> = (1..=6).flat_map(|r| (0..8).map(move |f| pawn_twist(r, f))).collect();
        seen.sort();
        assert_eq!(seen, (0..48).collect::<Vec<_>>());
    }

    #[test]
    fn a_pair_that_contains_itself_is_refused() {
        // Symbol 0 a leaf, symbol 1 = (1, 0).
        let pats = [0, 0xf0, 0xff, 1, 0, 0];
        assert!(symbol_lengths(&pats, 2).unwrap_err().contains("contains itself"));
        let pats = [0, 0xf0, 0xff, 0, 0, 0];
        assert_eq!(symbol_lengths(&pats, 2).unwrap(), vec![0, 1]);
        let pats = [0, 0xf0, 0xff, 9, 0, 0];
        assert!(symbol_lengths(&pats, 2).unwrap_err().contains("names symbol 9"));
    }
}
