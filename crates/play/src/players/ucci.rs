//! `ucci:CMD[,name=value...]`: a xiangqi engine speaking UCCI (Fairy-Stockfish,
//! ElephantEye and the like). The conversation is UCI's ([`super::uci`]) in
//! UCCI's words: `ucci`/`ucciok`, options declared as `option NAME type
//! ...` and set as `setoption NAME VALUE`, no new-game command, positions
//! as FEN, moves in ICCS coordinates (a ten-rank board's ranks counted from
//! 0: `h2e2`), and
//! `go time T increment I opptime T oppincrement I` (a fixed time per move
//! as `time T movestogo 1`).

use super::uci::{BoardSize, Dialect, UciConfig};
use super::PlayerKind;

/// `ucci:CMD[,name=value...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "ucci",
    example: "ucci:fairy-stockfish",
    runs_a_program: true,
    parse: |rest| Ok(Box::new(UciConfig::parse(rest, Dialect::Ucci)?)),
};

/// A move in Fairy-Stockfish's coordinates (ranks from 1: `h3e3`,
/// `a10a9`) in ICCS's (ranks of a ten-rank board from 0: `h2e2`, `a9a8`;
/// a smaller board's, minixiangqi's, from 1 as Fairy-Stockfish writes them).
pub fn to_iccs(text: &str, size: BoardSize) -> String {
    super::shift_ranks(text, if size.ranks >= 10 { -1 } else { 0 })
}

/// A move in ICCS coordinates in Fairy-Stockfish's, the reverse of [`to_iccs`].
pub fn from_iccs(text: &str, size: BoardSize) -> String {
    super::shift_ranks(text, if size.ranks >= 10 { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_cross_between_the_coordinates_and_iccs_both_ways() {
        let xiangqi = BoardSize { files: 9, ranks: 10 };
        for (fairy, iccs) in [("h3e3", "h2e2"), ("a10a9", "a9a8"), ("b1c3", "b0c2"), ("e1e2", "e0e1")] {
            assert_eq!(to_iccs(fairy, xiangqi), iccs);
            assert_eq!(from_iccs(iccs, xiangqi), fairy);
        }
        let mini = BoardSize { files: 7, ranks: 7 };
        assert_eq!((to_iccs("b1b3", mini), from_iccs("b1b3", mini)), ("b1b3".into(), "b1b3".into()));
    }
}
