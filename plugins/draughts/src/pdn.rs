//! PDN notation: positions (`W:W31-50:B1-20`, kings prefixed `K`) with an
//! error naming each malformed field, and moves (`32-28`, `28x19`, with the
//! intermediate landing squares only when two captures share origin and
//! destination). The Hub protocol's captures (`28x19x23`: origin,
//! destination, then the captured squares) are read and written too.

use arbiter_api::Error;

use crate::geometry::Geometry;
use crate::position::{Move, Position, Side};

fn bad(msg: impl Into<String>) -> Error {
    Error::bad_position(format!("PDN FEN: {}", msg.into()))
}

/// Parses a PDN FEN such as `W:W31-50:B1-20` or `B:WK4,30:B12,K40`.
pub fn parse_fen<G: Geometry>(text: &str) -> Result<Position<G>, Error> {
    let t = text.trim().trim_start_matches("[FEN \"").trim_end_matches("\"]").trim().trim_end_matches('.');
    let mut fields = t.split(':');
    let side = match fields.next().map(str::trim) {
        Some("W") => Side::White,
        Some("B") => Side::Black,
        Some(other) => return Err(bad(format!("side to move '{other}' must be W or B (in '{t}')"))),
        None => return Err(bad("empty position")),
    };
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    let mut seen_colour = [false; 2];
    for field in fields {
        let field = field.trim();
        let (colour, list) = match field.chars().next() {
            Some('W') => (Side::White, &field[1..]),
            Some('B') => (Side::Black, &field[1..]),
            _ => return Err(bad(format!("piece list '{field}' must start with W or B"))),
        };
        let slot = &mut seen_colour[(colour == Side::Black) as usize];
        if *slot {
            return Err(bad(format!("two piece lists for {}", if colour == Side::White { "White" } else { "Black" })));
        }
        *slot = true;
        for token in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (king, squares) = match token.strip_prefix('K') {
                Some(rest) => (true, rest),
                None => (false, token),
            };
            let number = |s: &str| -> Result<u32, Error> {
                match s.parse::<u32>() {
                    Ok(n) if (1..=G::SQUARES).contains(&n) => Ok(n),
                    _ => Err(bad(format!("'{s}' in '{token}' is not a square from 1 to {}", G::SQUARES))),
                }
            };
            let (lo, hi) = match squares.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => {
                    let n = number(squares)?;
                    (n, n)
                }
            };
            if lo > hi {
                return Err(bad(format!("range '{token}' runs backwards")));
            }
            for n in lo..=hi {
                let bit = 1u64 << G::bit(n - 1);
                if (white | black) & bit != 0 {
                    return Err(bad(format!("square {n} is given twice")));
                }
                let promo = Position::<G>::promotion_row(colour);
                if !king && promo & bit != 0 {
                    return Err(bad(format!(
                        "a {} man cannot stand on square {n}, its crowning row",
                        if colour == Side::White { "white" } else { "black" }
                    )));
                }
                match colour {
                    Side::White => white |= bit,
                    Side::Black => black |= bit,
                }
                if king {
                    kings |= bit;
                }
            }
        }
    }
    if !seen_colour[0] || !seen_colour[1] {
        return Err(bad(format!("'{t}' needs a piece list for each side (W... and B...)")));
    }
    // A side starts with PER_ROW * (WIDTH / 2 - 1) men and never gains one.
    let most = G::PER_ROW * (G::WIDTH / 2 - 1);
    for (name, bits) in [("White", white), ("Black", black)] {
        if bits.count_ones() > most {
            return Err(bad(format!("{name} has {} pieces in '{t}': a side has at most {most}", bits.count_ones())));
        }
    }
    if white | black == 0 {
        return Err(bad(format!("'{t}' has no piece at all")));
    }
    Ok(Position::new(white, black, kings, side))
}

/// Writes a position as PDN FEN.
pub fn write_fen<G: Geometry>(pos: &Position<G>) -> String {
    let list = |bits: u64| {
        let mut squares: Vec<String> = Vec::new();
        for idx in 0..G::SQUARES {
            let b = 1u64 << G::bit(idx);
            if bits & b != 0 {
                squares.push(format!("{}{}", if pos.kings & b != 0 { "K" } else { "" }, idx + 1));
            }
        }
        squares.join(",")
    };
    format!("{}:W{}:B{}", if pos.side == Side::White { "W" } else { "B" }, list(pos.white), list(pos.black))
}

/// 1-based square number of a bit.
pub fn square<G: Geometry>(bit: u8) -> u32 {
    G::idx(bit as u32) + 1
}

/// The move in PDN: `32-28`, `28x19`, or `28x19x10` (landing squares) when
/// another legal capture has the same origin and destination.
pub fn move_text<G: Geometry>(mv: &Move, path: &[u8], ambiguous: bool) -> String {
    if mv.captured == 0 {
        return format!("{}-{}", square::<G>(mv.from), square::<G>(mv.to));
    }
    if !ambiguous {
        return format!("{}x{}", square::<G>(mv.from), square::<G>(mv.to));
    }
    let mut s = square::<G>(mv.from).to_string();
    for &p in path {
        s.push_str(&format!("x{}", square::<G>(p)));
    }
    s
}

/// The captured squares of a move (1-based), in increasing order.
pub fn captured_squares<G: Geometry>(mv: &Move) -> Vec<u32> {
    let mut caps = Vec::new();
    let mut c = mv.captured;
    while c != 0 {
        caps.push(square::<G>(c.trailing_zeros() as u8));
        c &= c - 1;
    }
    caps.sort_unstable();
    caps
}

/// The move as the Hub protocol writes it: `32-28`, or `28x19x23`: origin,
/// destination, then every captured square in increasing order.
pub fn hub_text<G: Geometry>(mv: &Move) -> String {
    if mv.captured == 0 {
        return format!("{}-{}", square::<G>(mv.from), square::<G>(mv.to));
    }
    let mut s = format!("{}x{}", square::<G>(mv.from), square::<G>(mv.to));
    for n in captured_squares::<G>(mv) {
        s.push_str(&format!("x{n}"));
    }
    s
}

/// The Hub protocol's position string: side, then one of `wWbBe` per square.
pub fn hub_position<G: Geometry>(pos: &Position<G>) -> String {
    let mut s = String::from(if pos.side == Side::White { "W" } else { "B" });
    for idx in 0..G::SQUARES {
        let b = 1u64 << G::bit(idx);
        let king = pos.kings & b != 0;
        s.push(match (pos.white & b != 0, pos.black & b != 0, king) {
            (true, _, false) => 'w',
            (true, _, true) => 'W',
            (_, true, false) => 'b',
            (_, true, true) => 'B',
            _ => 'e',
        });
    }
    s
}
