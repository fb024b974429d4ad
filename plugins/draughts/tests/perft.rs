//! Perft from the initial position against the published tables (RULES.md
//! §3.3: Aart Bik's and dctl's counts, duplicate captures removed).

use arbiter_draughts::geometry::{Eight, Geometry, Ten};
use arbiter_draughts::position::{perft, Position};
use arbiter_draughts::rules::{RuleSet, CHECKERS, FMJD, RUSSIAN};

fn check<G: Geometry>(rules: &RuleSet, expected: &[u64]) {
    let start = Position::<G>::start(rules);
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(perft(&start, rules, d as u32 + 1), n, "depth {}", d + 1);
    }
}

#[test]
fn international_to_depth_8() {
    check::<Ten>(&FMJD, &[9, 81, 658, 4_265, 27_117, 167_140, 1_049_442, 6_483_961]);
}

#[test]
fn brazilian_to_depth_9() {
    check::<Eight>(&FMJD, &[7, 49, 302, 1_469, 7_473, 37_628, 187_302, 907_830, 4_431_766]);
}

#[test]
fn russian_to_depth_9() {
    check::<Eight>(&RUSSIAN, &[7, 49, 302, 1_469, 7_482, 37_986, 190_146, 929_899, 4_570_586]);
}

#[test]
fn checkers_to_depth_9() {
    check::<Eight>(&CHECKERS, &[7, 49, 302, 1_469, 7_361, 36_768, 179_740, 845_931, 3_963_680]);
}
