//! The shipped plugins' position and move parsers under property tests
//! (proptest): any text, and valid texts with random edits, get a value or
//! a clear error, never a panic; a position that parses writes a text that
//! parses back to the same position.

use arbiter::plugin::{Registry, SearchPath};
use arbiter_api::host::{Game, VariantHandle};
use arbiter_api::ErrorKind;
use arbiter_e2e::profile_dir;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn registry() -> Registry {
    Registry::load(&SearchPath::only(vec![profile_dir()]))
}

/// Position texts met in a seeded random game from the start (every tenth ply).
fn positions(variant: &VariantHandle) -> Vec<String> {
    let mut game = variant.new_game(&Default::default()).unwrap();
    let mut out = vec![game.position_text()];
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for ply in 0..120 {
        let moves = game.legal_move_list().unwrap();
        if moves.is_empty() {
            break;
        }
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        game.apply(moves[(rng >> 33) as usize % moves.len()]).unwrap();
        if ply % 10 == 9 {
            out.push(game.position_text());
        }
    }
    out
}

/// A text with random edits: characters replaced, inserted or removed.
fn mutated(base: Vec<String>) -> impl Strategy<Value = String> {
    let n = base.len();
    (0..n, proptest::collection::vec((any::<prop::sample::Index>(), any::<char>(), 0..3u8), 1..6)).prop_map(
        move |(i, edits)| {
            let mut chars: Vec<char> = base[i].chars().collect();
            for (at, c, kind) in edits {
                let at = at.index(chars.len() + 1);
                match kind {
                    0 if at < chars.len() => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        },
    )
}

/// A parse that panicked inside the plugin comes back as a `Panic` error.
fn no_panic<T>(what: &str, text: &str, r: &Result<T, arbiter_api::Error>) -> Result<(), TestCaseError> {
    if let Err(e) = r {
        prop_assert!(e.kind != ErrorKind::Panic, "{what} panicked on {text:?}: {e}");
        prop_assert!(!e.message.is_empty() && !e.message.contains('\n'), "{what}: {text:?}: unclear error {e:?}");
    }
    Ok(())
}

fn check_position(variant: &VariantHandle, text: &str) -> Result<(), TestCaseError> {
    let parsed = variant.from_position(text, &Default::default());
    no_panic("from_position", text, &parsed)?;
    if let Ok(game) = parsed {
        let written = game.position_text();
        let again = variant.from_position(&written, &Default::default());
        prop_assert!(again.is_ok(), "{text:?} parsed, but its text {written:?} does not: {:?}", again.err());
        prop_assert_eq!(again.unwrap().position_text(), written);
    }
    Ok(())
}

fn check_move(game: &Game, text: &str) -> Result<(), TestCaseError> {
    no_panic("parse_move", text, &game.parse_move(text))
}

#[test]
fn position_and_move_parsers_never_panic_and_parsed_positions_round_trip() {
    let registry = registry();
    let variants: Vec<VariantHandle> = registry.variants().cloned().collect();
    assert!(variants.len() >= 8, "all shipped variants are loaded");
    for variant in &variants {
        let id = variant.info().id.clone();
        let texts = positions(variant);
        let start = variant.new_game(&Default::default()).unwrap();
        let move_texts: Vec<String> = start
            .legal_move_list()
            .unwrap()
            .iter()
            .map(|&m| start.move_text(m, arbiter::Viewer::Referee).unwrap())
            .collect();
        let mut runner = TestRunner::new(Config { cases: 200, failure_persistence: None, ..Config::default() });
        let run = |r: Result<(), proptest::test_runner::TestError<String>>, what: &str| {
            if let Err(e) = r {
                panic!("{id}, {what}: {e}");
            }
        };
        run(runner.run(&mutated(texts.clone()), |t| check_position(variant, &t)), "edited positions");
        run(runner.run(&".{0,80}", |t| check_position(variant, &t)), "any text as a position");
        run(runner.run(&mutated(move_texts.clone()), |t| check_move(&start, &t)), "edited moves");
        run(runner.run(&".{0,24}", |t| check_move(&start, &t)), "any text as a move");
    }
}
