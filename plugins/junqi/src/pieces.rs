//! The pieces (RULES.md §2.3) and the combat table (§2.6, §7.1.11-12).

/// A piece kind, by index: the nine ranks 40..32, then mine, bomb, flag.
pub type Kind = usize;

/// Field marshal (40).
pub const MARSHAL: Kind = 0;
/// Engineer (32).
pub const ENGINEER: Kind = 8;
/// Landmine.
pub const MINE: Kind = 9;
/// Bomb.
pub const BOMB: Kind = 10;
/// Flag.
pub const FLAG: Kind = 11;
/// Number of kinds.
pub const KINDS: usize = 12;

/// Pieces of each kind per side (25 in all).
pub const COUNTS: [u32; KINDS] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1];

/// One-letter codes: 9..1 for ranks 40..32, L mine, B bomb, F flag.
pub const CODES: [char; KINDS] = ['9', '8', '7', '6', '5', '4', '3', '2', '1', 'L', 'B', 'F'];

/// Names for observations.
pub const NAMES: [&str; KINDS] = [
    "marshal",
    "general",
    "major-general",
    "brigadier",
    "colonel",
    "major",
    "captain",
    "lieutenant",
    "engineer",
    "mine",
    "bomb",
    "flag",
];

/// The characters printed on real pieces (司令 marshal ... 军旗 flag), one each.
pub const CHINESE: [&str; KINDS] = ["司", "军", "师", "旅", "团", "营", "连", "排", "工", "雷", "炸", "旗"];

/// Every kind.
pub const ALL: u16 = (1 << KINDS) - 1;

/// The kind of a code letter.
pub fn from_code(c: char) -> Option<Kind> {
    CODES.iter().position(|&k| k == c)
}

/// Whether a kind ever moves.
pub fn movable(k: Kind) -> bool {
    k != MINE && k != FLAG
}

/// The public outcome of an attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The attacker wins and stands on the square (an engineer clearing a mine included).
    AttackerWon,
    /// The attacker is removed (hitting a mine included).
    DefenderWon,
    /// Both are removed.
    BothRemoved,
    /// The flag is taken: the attacker's side wins.
    FlagCaptured,
}

impl Verdict {
    /// The verdict as written in move texts.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::AttackerWon => "attacker_won",
            Verdict::DefenderWon => "defender_won",
            Verdict::BothRemoved => "both_removed",
            Verdict::FlagCaptured => "flag_captured",
        }
    }
}

/// The combat table: `attacker` (a movable kind) attacks `defender`.
pub fn combat(attacker: Kind, defender: Kind) -> Verdict {
    if defender == FLAG {
        return Verdict::FlagCaptured;
    }
    if attacker == BOMB || defender == BOMB {
        return Verdict::BothRemoved;
    }
    if defender == MINE {
        return if attacker == ENGINEER { Verdict::AttackerWon } else { Verdict::DefenderWon };
    }
    // Ranks: a lower index is a higher rank.
    match attacker.cmp(&defender) {
        std::cmp::Ordering::Less => Verdict::AttackerWon,
        std::cmp::Ordering::Greater => Verdict::DefenderWon,
        std::cmp::Ordering::Equal => Verdict::BothRemoved,
    }
}

/// The kinds an opponent could be, given that `own` met it with `verdict`
/// (`own_attacked`: whether `own` was the attacker).
pub fn consistent(own: Kind, own_attacked: bool, verdict: Verdict) -> u16 {
    (0..KINDS)
        .filter(|&x| if own_attacked { combat(own, x) == verdict } else { movable(x) && combat(x, own) == verdict })
        .fold(0, |m, x| m | 1 << x)
}
