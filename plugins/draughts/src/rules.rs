//! The rule sets: what distinguishes international draughts, Brazilian,
//! Russian and English checkers, as flags the one move generator reads.

/// The flags of one rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// Men capture backwards too.
    pub men_capture_backwards: bool,
    /// Kings move and capture any distance along a diagonal.
    pub flying_kings: bool,
    /// The capture taking the most pieces is compulsory.
    pub majority_capture: bool,
    /// What happens to a man reaching the far row in the middle of a capture.
    pub crown_mid_capture: MidCaptureCrowning,
    /// Black (the side on squares 1..) moves first.
    pub black_first: bool,
    /// The draw rules.
    pub draws: DrawRules,
}

/// A man reaching the far row during a capture...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MidCaptureCrowning {
    /// ...stays a man and goes on capturing as a man (FMJD).
    StaysMan,
    /// ...is crowned at once and goes on capturing as a king (Russian).
    CrownedContinues,
    /// ...is crowned and the move ends (English checkers).
    CrownedStops,
}

/// Draw rules, each a number of moves per side (0 = off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// Moves by each side with only kings moving and no capture.
    pub kings_only_moves: u32,
    /// Moves by each side in a one-king-against-three-pieces (with a king) ending.
    pub three_v_one_moves: u32,
    /// Moves by each side in a one-king-against-at-most-two-pieces (with a king) ending.
    pub two_v_one_moves: u32,
    /// Moves by each side without a man move or a capture (checkers' 40-move rule).
    pub quiet_moves: u32,
}

/// FMJD international draughts (also the Brazilian rules on 8x8).
pub const FMJD: RuleSet = RuleSet {
    men_capture_backwards: true,
    flying_kings: true,
    majority_capture: true,
    crown_mid_capture: MidCaptureCrowning::StaysMan,
    black_first: false,
    draws: DrawRules { kings_only_moves: 25, three_v_one_moves: 16, two_v_one_moves: 5, quiet_moves: 0 },
};

/// Russian draughts (shashki).
pub const RUSSIAN: RuleSet = RuleSet {
    men_capture_backwards: true,
    flying_kings: true,
    majority_capture: false,
    crown_mid_capture: MidCaptureCrowning::CrownedContinues,
    black_first: false,
    draws: DrawRules { kings_only_moves: 15, three_v_one_moves: 15, two_v_one_moves: 5, quiet_moves: 0 },
};

/// English / American checkers.
pub const CHECKERS: RuleSet = RuleSet {
    men_capture_backwards: false,
    flying_kings: false,
    majority_capture: false,
    crown_mid_capture: MidCaptureCrowning::CrownedStops,
    black_first: true,
    draws: DrawRules { kings_only_moves: 0, three_v_one_moves: 0, two_v_one_moves: 0, quiet_moves: 40 },
};
