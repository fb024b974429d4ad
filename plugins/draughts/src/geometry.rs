//! Board geometries. Squares are numbered 1..N in PDN (Manoury) order, row by
//! row from Black's side; internally each square is a bit of a `u64` laid out
//! with one unused "ghost" bit after every two rows, so that the four diagonal
//! neighbours of every square are at the same bit distances (`L`, `L + 1`)
//! and stepping off the board lands on a ghost or outside the mask.

/// A board size: 10x10 (international) or 8x8.
pub trait Geometry: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// Squares per row (5 or 4).
    const PER_ROW: u32;
    /// Board width (10 or 8).
    const WIDTH: u32 = 2 * Self::PER_ROW;
    /// Playable squares (50 or 32).
    const SQUARES: u32 = Self::PER_ROW * Self::WIDTH;
    /// Every playable square's bit.
    const MASK: u64 = mask(Self::PER_ROW);
    /// The top row (White promotes there).
    const TOP_ROW: u64 = row_mask(Self::PER_ROW, 0);
    /// The bottom row (Black promotes there).
    const BOTTOM_ROW: u64 = row_mask(Self::PER_ROW, 2 * Self::PER_ROW - 1);

    /// The bit of 0-based square index `idx`.
    #[inline(always)]
    fn bit(idx: u32) -> u32 {
        idx + idx / Self::WIDTH
    }

    /// The 0-based square index of `bit`.
    #[inline(always)]
    fn idx(bit: u32) -> u32 {
        bit - bit / (Self::WIDTH + 1)
    }
}

const fn mask(per_row: u32) -> u64 {
    let mut m = 0u64;
    let mut idx = 0;
    while idx < 2 * per_row * per_row {
        m |= 1 << (idx + idx / (2 * per_row));
        idx += 1;
    }
    m
}

const fn row_mask(per_row: u32, row: u32) -> u64 {
    let mut m = 0u64;
    let mut p = 0;
    while p < per_row {
        let idx = row * per_row + p;
        m |= 1 << (idx + idx / (2 * per_row));
        p += 1;
    }
    m
}

/// The 10x10 board of international draughts.
#[derive(Clone, Copy, Debug)]
pub struct Ten;

impl Geometry for Ten {
    const PER_ROW: u32 = 5;
}

/// The 8x8 board of Brazilian, Russian and English draughts.
#[derive(Clone, Copy, Debug)]
pub struct Eight;

impl Geometry for Eight {
    const PER_ROW: u32 = 4;
}

/// The four diagonal directions as bit offsets: up-left, up-right, down-left,
/// down-right ("up" is towards square 1, White's forward direction).
#[inline(always)]
pub fn directions<G: Geometry>() -> [i32; 4] {
    let l = G::PER_ROW as i32;
    [-(l + 1), -l, l, l + 1]
}

/// The square one step from `bit` in direction `d`, if it is on the board.
#[inline(always)]
pub fn step<G: Geometry>(bit: i32, d: i32) -> Option<i32> {
    let next = bit + d;
    (0..64).contains(&next).then_some(next).filter(|&n| G::MASK & (1u64 << n) != 0)
}
