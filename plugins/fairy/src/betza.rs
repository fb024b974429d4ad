//! Piece moves in Betza notation, as variants.ini writes them: atoms
//! (`W F D N A H C Z G`, and `R B Q K` as their shorthands), a doubled
//! atom or a range digit for riders (`NN`, `R4`), modifiers for moves
//! only (`m`), captures only (`c`), a lame leap (`n`, blocked on its first
//! square), a hop over one screen (`p`, cannon-like; `g`, landing just
//! beyond it), and directions (`f b l r v s`; for oblique leapers a pair
//! such as `ff` or `fs` names the narrow or wide forward pair).

/// One way a piece moves: a step, repeated up to `range` times (0: no limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Files to the right, for White (Black's steps are mirrored).
    pub dx: i8,
    /// Ranks forward, for White.
    pub dy: i8,
    /// 1 for a leap, 0 for a slide without limit, else the most steps.
    pub range: u8,
    /// The leap is blocked by a piece on its first orthogonal or diagonal square.
    pub lame: bool,
    /// How it hops, if it does.
    pub hop: Hop,
    /// It may move to an empty square.
    pub quiet: bool,
    /// It may capture.
    pub capture: bool,
    /// An initial move (`i`): made only from the double-step region, never
    /// a capture, as a pawn's double step.
    pub initial: bool,
}

/// How a piece passes over a screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// It does not: it stops at the first piece.
    None,
    /// Over exactly one piece, landing anywhere beyond it up to the next piece (a cannon).
    Cannon,
    /// Over one piece, landing on the square just beyond it (a grasshopper).
    Grasshopper,
    /// As a cannon, but never over or onto a piece that hops so (Janggi's
    /// cannon; set by the built-in piece `janggiCannon`, not by Betza).
    JanggiCannon,
}

/// Parses a Betza string into its steps; the error says what was not understood.
pub fn parse(text: &str) -> Result<Vec<Step>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        // Modifiers, then an atom.
        let mut dirs = String::new();
        let (mut quiet, mut capture, mut lame, mut hop) = (false, false, false, Hop::None);
        let mut initial = false;
        while i < chars.len() && chars[i].is_ascii_lowercase() {
            match chars[i] {
                'm' => quiet = true,
                'c' => capture = true,
                'n' => lame = true,
                'p' => hop = Hop::Cannon,
                'g' => hop = Hop::Grasshopper,
                'f' | 'b' | 'l' | 'r' | 'v' | 's' | 'h' => dirs.push(chars[i]),
                'i' => initial = true,
                // Jumping and en passant marks: a pawn takes en passant with
                // any of its captures (`pawnTypes`), as Fairy-Stockfish's do.
                'j' | 'e' => {}
                c => return Err(format!("'{text}': modifier '{c}' is not understood")),
            }
            i += 1;
        }
        let Some(&atom) = chars.get(i) else {
            return Err(format!("'{text}': modifiers with no atom at the end"));
        };
        i += 1;
        let (bases, mut range): (Vec<(i8, i8)>, u8) = match atom {
            'W' => (vec![(1, 0)], 1),
            'F' => (vec![(1, 1)], 1),
            'D' => (vec![(2, 0)], 1),
            'N' => (vec![(2, 1)], 1),
            'A' => (vec![(2, 2)], 1),
            'H' => (vec![(3, 0)], 1),
            'C' | 'L' => (vec![(3, 1)], 1),
            'Z' | 'J' => (vec![(3, 2)], 1),
            'G' => (vec![(3, 3)], 1),
            'R' => (vec![(1, 0)], 0),
            'B' => (vec![(1, 1)], 0),
            'Q' => (vec![(1, 0), (1, 1)], 0),
            'K' => (vec![(1, 0), (1, 1)], 1),
            c => return Err(format!("'{text}': '{c}' is not a Betza atom")),
        };
        // A doubled atom rides; digits limit the ride.
        if i < chars.len() && chars[i] == atom && range == 1 {
            range = 0;
            i += 1;
        }
        let digits: String = chars[i..].iter().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            i += digits.len();
            range = digits.parse::<u8>().map_err(|_| format!("'{text}': range {digits} is too large"))?;
        }
        if !quiet && !capture {
            quiet = true;
            capture = true;
        }
        // Initial captures are not a thing (nor are they in Fairy-Stockfish).
        if initial {
            (quiet, capture) = (true, false);
        }
        for (a, b) in bases {
            for (dx, dy) in symmetric(a, b) {
                if allowed(&dirs, dx, dy) {
                    steps.push(Step { dx, dy, range, lame, hop, quiet, capture, initial });
                }
            }
        }
    }
    if steps.is_empty() {
        return Err(format!("'{text}' gives no move"));
    }
    Ok(steps)
}

/// The squares a lame leap of `dx` files and `dy` ranks passes, from its
/// start: straight steps along its longer side, then diagonal steps (a
/// knight's one square, an alfil's one, a Janggi elephant's two); any of
/// them taken blocks it.
pub fn lame_path(dx: i32, dy: i32) -> impl Iterator<Item = (i32, i32)> {
    let (long, short) = (dx.abs().max(dy.abs()), dx.abs().min(dy.abs()));
    let straight = long - short;
    let (ox, oy) = if dx.abs() >= dy.abs() { (dx.signum(), 0) } else { (0, dy.signum()) };
    (1..long).map(move |k| {
        let d = (k - straight).max(0);
        (ox * (k - d) + dx.signum() * d, oy * (k - d) + dy.signum() * d)
    })
}

/// The distinct images of the step `(a, b)` under the board's eight symmetries.
fn symmetric(a: i8, b: i8) -> Vec<(i8, i8)> {
    let mut out: Vec<(i8, i8)> = Vec::new();
    for (x, y) in [(a, b), (b, a)] {
        for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let v = (x * sx, y * sy);
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Whether a step is among the directions `dirs` names (all, if none).
fn allowed(dirs: &str, dx: i8, dy: i8) -> bool {
    if dirs.is_empty() {
        return true;
    }
    let oblique = dx != 0 && dy != 0 && dx.abs() != dy.abs();
    let orthogonal = dx == 0 || dy == 0;
    let one = |c: char| match c {
        'f' => dy > 0,
        'b' => dy < 0,
        'l' => dx < 0,
        'r' => dx > 0,
        'v' => dy.abs() > dx.abs(),
        's' => dx.abs() > dy.abs(),
        'h' => true,
        _ => false,
    };
    let chars: Vec<char> = dirs.chars().collect();
    // On an oblique leaper one letter names the pair most in its direction.
    let single = |c: char| match c {
        'f' | 'b' if oblique => one(c) && dy.abs() > dx.abs(),
        'l' | 'r' if oblique => one(c) && dx.abs() > dy.abs(),
        _ => one(c),
    };
    if orthogonal {
        // Letters add up: `fs` is forward and sideways.
        return chars.iter().any(|&c| one(c));
    }
    // Diagonal and oblique steps: a pair of letters narrows to one direction.
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let pair = chars.get(i + 1).copied().filter(|&d| {
            let vertical = |x: char| matches!(x, 'f' | 'b');
            let horizontal = |x: char| matches!(x, 'l' | 'r');
            (vertical(c) && (horizontal(d) || (oblique && matches!(d, 'f' | 'b' | 's' | 'v' | 'h'))))
                || (horizontal(c) && (vertical(d) || (oblique && matches!(d, 'l' | 'r' | 's' | 'v'))))
        });
        let hit = match pair {
            Some(d) => {
                i += 2;
                let narrow = |x: char| match x {
                    // A doubled letter, or v/s after one, picks the narrow or wide pair.
                    'f' | 'b' if c == x => dy.abs() > dx.abs(),
                    'l' | 'r' if c == x => dx.abs() > dy.abs(),
                    'v' => dy.abs() > dx.abs(),
                    's' => dx.abs() > dy.abs(),
                    'h' => true,
                    x => one(x),
                };
                one(c) && narrow(d)
            }
            None => {
                i += 1;
                single(c)
            }
        };
        if hit {
            return true;
        }
    }
    false
}
