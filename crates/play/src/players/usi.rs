//! `usi:CMD[,name=value...]`: a shogi engine speaking USI (Fairy-Stockfish,
//! YaneuraOu and the like). The conversation is UCI's ([`super::uci`]) in
//! USI's words: `usi`/`usiok`, `usinewgame`, positions as SFEN, moves in
//! USI's notation (files numbered from the right, ranks lettered from the
//! top: `7g7f`, `P*5e`, `8h2b+`), and `go btime/wtime` with the first
//! player's (sente's) clock as `btime`, and `byoyomi` when the time control
//! has one.

use super::uci::{BoardSize, Dialect, UciConfig};
use super::PlayerKind;

/// `usi:CMD[,name=value...]`.
pub const KIND: PlayerKind = PlayerKind {
    name: "usi",
    example: "usi:fairy-stockfish",
    runs_a_program: true,
    parse: |rest| Ok(Box::new(UciConfig::parse(rest, Dialect::Usi)?)),
};

/// The order SFEN lists pieces in hand, most valuable first.
const HAND_ORDER: &str = "RBGSNLP";

/// The SFEN of a position Fairy-Stockfish's FEN gives (`board[hand] side
/// castling ep halfmove fullmove`): the board as it is, the side as USI
/// names it (`b` for the first player, sente), the hand with counts
/// (`2Pb`, `-` when empty) and the ply number.
pub fn sfen(fen: &str) -> String {
    let mut fields = fen.split_whitespace();
    let placement = fields.next().unwrap_or("");
    let side = fields.next().unwrap_or("w");
    let fullmove: u32 = fen.split_whitespace().last().and_then(|n| n.parse().ok()).unwrap_or(1).max(1);
    let (board, hand) = match placement.split_once('[') {
        Some((board, rest)) => (board, rest.trim_end_matches(']')),
        None => (placement, ""),
    };
    let second_to_move = side == "b";
    let ply = (fullmove - 1) * 2 + if second_to_move { 2 } else { 1 };
    format!("{board} {} {} {ply}", if second_to_move { "w" } else { "b" }, sfen_hand(hand))
}

/// Pieces in hand as SFEN writes them: sente's (upper case) then gote's,
/// each most valuable first, a count before any piece held more than once.
fn sfen_hand(pocket: &str) -> String {
    let rank = |c: char| HAND_ORDER.find(c.to_ascii_uppercase()).unwrap_or(HAND_ORDER.len());
    let mut pieces: Vec<char> = pocket.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    pieces.sort_by_key(|&c| (c.is_ascii_lowercase(), rank(c), c));
    let mut out = String::new();
    let mut i = 0;
    while i < pieces.len() {
        let n = pieces[i..].iter().take_while(|&&c| c == pieces[i]).count();
        if n > 1 {
            out.push_str(&n.to_string());
        }
        out.push(pieces[i]);
        i += n;
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// A move in Fairy-Stockfish's coordinates (`c3c4+`, `P@e5`) in USI's
/// (`7g7f+`, `P*5e`) on a board of `size`.
pub fn to_usi(text: &str, size: BoardSize) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let digits = chars[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
        if c.is_ascii_lowercase() && digits > 0 {
            let rank: u32 = chars[i + 1..i + 1 + digits].iter().collect::<String>().parse().unwrap_or(0);
            let file = c as u32 - 'a' as u32;
            out.push_str(&(size.files.saturating_sub(file)).to_string());
            out.push(char::from_u32('a' as u32 + size.ranks.saturating_sub(rank)).unwrap_or('?'));
            i += 1 + digits;
        } else {
            out.push(if c == '@' { '*' } else { c });
            i += 1;
        }
    }
    out
}

/// A move in USI's notation in Fairy-Stockfish's coordinates, the
/// reverse of [`to_usi`].
pub fn from_usi(text: &str, size: BoardSize) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let digits = chars[i..].iter().take_while(|d| d.is_ascii_digit()).count();
        match chars.get(i + digits) {
            Some(&l) if digits > 0 && l.is_ascii_lowercase() => {
                let file: u32 = chars[i..i + digits].iter().collect::<String>().parse().unwrap_or(0);
                let rank = size.ranks.saturating_sub(l as u32 - 'a' as u32);
                out.push(char::from_u32('a' as u32 + size.files.saturating_sub(file)).unwrap_or('?'));
                out.push_str(&rank.to_string());
                i += digits + 1;
            }
            _ => {
                out.push(if c == '*' { '@' } else { c });
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOGI: BoardSize = BoardSize { files: 9, ranks: 9 };

    #[test]
    fn positions_are_written_as_sfen() {
        let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[] w - - 0 1";
        assert_eq!(sfen(start), "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        // Fairy-Stockfish's own `d` after 7g7f 3c3d 8h2b+.
        let after = "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL[B] b - - 0 2";
        assert_eq!(sfen(after), "lnsgkgsnl/1r5+B1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL w B 4");
        assert_eq!(sfen_hand("ppPbPPr"), "3Prb2p");
    }

    #[test]
    fn moves_cross_between_the_coordinates_and_usi_both_ways() {
        for (fairy, usi) in [("c3c4", "7g7f"), ("b2h8+", "8h2b+"), ("P@e5", "P*5e"), ("a1a9", "9i9a"), ("i9i8", "1a1b")]
        {
            assert_eq!(to_usi(fairy, SHOGI), usi);
            assert_eq!(from_usi(usi, SHOGI), fairy);
        }
        let mini = BoardSize { files: 5, ranks: 5 };
        assert_eq!(to_usi("a1a2", mini), "5e5d");
        assert_eq!(from_usi("5e5d", mini), "a1a2");
    }
}
