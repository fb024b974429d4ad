//! The 12x5 board (RULES.md §2.2, §7.1): cell kinds, roads, and the rail
//! lines. Cells are `row * 5 + col`, row 0 the top (Blue's) back row; a cell
//! is written as its row letter A..L and column digit 0..4 (`L1`).

/// What kind of point a cell is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// A plain post (road only).
    Post,
    /// A railway station.
    Station,
    /// A camp: its piece cannot be attacked.
    Camp,
    /// A headquarters: its piece never moves again.
    Headquarters,
}

/// Number of cells.
pub const CELLS: usize = 60;

/// The kind of `cell`.
pub fn kind(cell: usize) -> CellKind {
    let (r, c) = (cell / 5, cell % 5);
    if (r == 0 || r == 11) && (c == 1 || c == 3) {
        return CellKind::Headquarters;
    }
    let side_row = if r <= 5 { r } else { 11 - r };
    if matches!((side_row, c), (2, 1) | (2, 3) | (3, 2) | (4, 1) | (4, 3)) {
        return CellKind::Camp;
    }
    if matches!(side_row, 1 | 5) || ((c == 0 || c == 4) && (1..=10).contains(&r)) {
        return CellKind::Station;
    }
    CellKind::Post
}

/// The name of a cell (`A0`..`L4`).
pub fn name(cell: usize) -> String {
    format!("{}{}", (b'A' + (cell / 5) as u8) as char, cell % 5)
}

/// Parses a cell name.
pub fn parse(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let r = b[0].to_ascii_uppercase().checked_sub(b'A')? as usize;
    let c = b[1].checked_sub(b'0')? as usize;
    (r < 12 && c < 5).then_some(r * 5 + c)
}

/// Road neighbours of every cell.
pub fn roads() -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); CELLS];
    let link = |adj: &mut Vec<Vec<usize>>, a: usize, b: usize| {
        if !adj[a].contains(&b) {
            adj[a].push(b);
            adj[b].push(a);
        }
    };
    for cell in 0..CELLS {
        let (r, c) = (cell / 5, cell % 5);
        if c < 4 {
            link(&mut adj, cell, cell + 1);
        }
        // Vertical links stay within a side, except the three front crossings.
        if r < 11 && (r != 5 || matches!(c, 0 | 2 | 4)) {
            link(&mut adj, cell, cell + 5);
        }
        if kind(cell) == CellKind::Camp {
            for (dr, dc) in [(-1i32, -1i32), (-1, 1), (1, -1), (1, 1)] {
                let (nr, nc) = (r as i32 + dr, c as i32 + dc);
                if (0..12).contains(&nr) && (0..5).contains(&nc) {
                    link(&mut adj, cell, (nr * 5 + nc) as usize);
                }
            }
        }
    }
    adj
}

/// The straight rail lines, each an ordered list of stations. With
/// `middle_railway`, the middle crossing (5,2)-(6,2) is a one-segment line.
pub fn rail_lines(middle_railway: bool) -> Vec<Vec<usize>> {
    let mut lines: Vec<Vec<usize>> = [1, 5, 6, 10].iter().map(|&r| (0..5).map(|c| r * 5 + c).collect()).collect();
    for c in [0, 4] {
        lines.push((1..=10).map(|r| r * 5 + c).collect());
    }
    if middle_railway {
        lines.push(vec![5 * 5 + 2, 6 * 5 + 2]);
    }
    lines
}

/// Rail neighbours of every station (the union of all lines' segments).
pub fn rail_graph(lines: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); CELLS];
    for line in lines {
        for w in line.windows(2) {
            adj[w[0]].push(w[1]);
            adj[w[1]].push(w[0]);
        }
    }
    adj
}
