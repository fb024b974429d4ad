//! `arbiter check`: every shipped plugin passes the conformance suite, and
//! each deliberately broken fixture variant fails the check for its fault.

use arbiter_e2e::{arbiter, fixture_plugin, profile_dir};

#[test]
fn every_shipped_plugin_passes() {
    for so in [
        "libarbiter_chess.so",
        "libarbiter_draughts.so",
        "libarbiter_bluffchess.so",
        "libarbiter_junqi.so",
        "libarbiter_tavreli.so",
    ] {
        let path = profile_dir().join(so);
        // The built file through the ABI: each plugin's own contract test
        // runs the same checks in process over the default 20 games.
        let run = arbiter(&["check", path.to_str().unwrap(), "--games", "5", "--timeout", "400"]);
        assert!(run.ok, "{so}:\n{}{}", run.stdout, run.stderr);
        assert!(run.stdout.contains(", 0 failed"), "{}", run.stdout);
        assert!(!run.stdout.contains("FAIL"), "{}", run.stdout);
    }
}

/// The ini variants of the fairy plugin, sampled: one or more of each rule
/// family (drops and hands, promotion zones, walls, gating, flags, check
/// counting, extinction and losing rules, counting, palaces, duck-free
/// shogi repetition rules). The whole list: `every_ini_variant_passes`.
const INI_SAMPLE: &[&str] = &[
    "crazyhouse",
    "shogi",
    "gorogoro",
    "torishogi",
    "okisakishogi",
    "xiangqi",
    "makruk",
    "seirawan",
    "giveaway",
    "codrus",
    "extinction",
    "kinglet",
    "armageddon",
    "racingkings",
    "3check",
    "atomic",
    "joust",
    "shatar",
    "horde",
    "chessgi",
];

/// A sample of the ini variants passes the whole contract (each in a child
/// process, as `arbiter check` runs them).
#[test]
fn a_sample_of_the_ini_variants_passes() {
    let so = profile_dir().join("libarbiter_fairy.so");
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = INI_SAMPLE
            .chunks(INI_SAMPLE.len().div_ceil(2))
            .map(|part| {
                let so = &so;
                scope.spawn(move || {
                    part.iter()
                        .filter_map(|v| {
                            let run = arbiter(&["check", so.to_str().unwrap(), "--only", v, "--games", "2"]);
                            let failed = !run.ok || run.stdout.contains("FAIL");
                            failed.then(|| format!("{v}:\n{}{}", run.stdout, run.stderr))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every ini variant passes the contract at its defaults (about half an
/// hour on two cores: `cargo test --test e2e every_ini_variant -- --ignored`).
#[test]
#[ignore]
fn every_ini_variant_passes() {
    let so = profile_dir().join("libarbiter_fairy.so");
    let run = arbiter(&["check", so.to_str().unwrap(), "--games", "5", "--timeout", "900"]);
    assert!(run.ok && run.stdout.contains(", 0 failed"), "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn each_broken_fixture_fails_the_check_for_its_fault() {
    let so = fixture_plugin("fixture", None);
    let run = arbiter(&["check", so.to_str().unwrap(), "--games", "3", "--timeout", "3"]);
    assert!(!run.ok);
    // The report, variant by variant.
    let mut sections = std::collections::HashMap::new();
    let mut current = String::new();
    for line in run.stdout.lines() {
        if let Some(v) = line.strip_prefix("variant ") {
            current = v.trim_end_matches(':').to_string();
        } else if line.contains("FAIL") {
            sections.entry(current.clone()).or_insert_with(Vec::new).push(line.trim().to_string());
        }
    }
    for (variant, check) in [
        ("fixture-panic", "no call panics"),
        ("fixture-abort", "no call aborts or hangs: the process was killed"),
        ("fixture-hang", "no call aborts or hangs: no call returns"),
        ("fixture-spin", "no call aborts or hangs: no call returns"),
        ("fixture-memory-bomb", "no call panics"),
        ("fixture-stuck", "legal moves are non-empty exactly while the game is ongoing"),
        ("broken-moves-after-end", "legal moves are non-empty exactly while the game is ongoing"),
        ("broken-duplicate-text", "move texts are unique and parse back"),
        ("broken-unsafe-text", "move texts are safe in records"),
        ("broken-sample-truth", "sampled worlds are not the true state where something is hidden"),
        ("broken-round-trip", "position text round-trips"),
        ("broken-accepts-junk", "junk move ids and texts are refused"),
        ("broken-shared-clone", "clones are independent"),
        ("broken-nondeterministic", "the same seed gives the same game"),
        ("broken-perft", "generic perft equals in-plugin perft"),
        ("broken-too-long", "games end within the declared maximum length"),
        ("broken-info", "info card is complete"),
        ("broken-sample-world", "sampled worlds agree with the viewer's observation"),
        ("broken-move-list-leak", "the mover's legal moves do not depend on what it cannot see"),
        ("broken-spectator-leak", "spectators see only public facts"),
        ("broken-text-leak", "move texts reveal nothing the viewer cannot see"),
        ("broken-hidden-text", "move texts are safe in records"),
        ("broken-status-leak", "sampled worlds have the true status"),
        ("broken-schema", "observations follow the schema"),
        ("broken-nondeterministic-text", "the same seed gives the same game"),
        ("broken-nondeterministic-start", "a new game is the same every time"),
        ("broken-silent-move", "a move changes something, or is a declared pass"),
        ("broken-shared-cache", "clones are independent"),
        ("broken-impure-observation", "asked twice, a call gives the same answer"),
        ("broken-parse-panics", "no call panics: parse_move of"),
        ("broken-observation-lost", "position text round-trips"),
        ("broken-order-leak", "the mover's legal moves do not depend on what it cannot see"),
        ("broken-claim-leak", "sampled worlds have the true status"),
    ] {
        let fails = sections.get(variant).cloned().unwrap_or_default();
        assert!(fails.iter().any(|l| l.contains(check)), "{variant} should fail '{check}', got {fails:?}");
    }
    for good in ["fixture-race", "fixture-secret", "fixture-no-sampling"] {
        assert!(!sections.contains_key(good), "{good}: {:?}", sections.get(good));
    }
    // The lines settled before an abort are kept.
    let abort = run.stdout.split("variant fixture-abort:").nth(1).unwrap().split("variant ").next().unwrap();
    assert!(abort.contains("PASS  info card is complete"), "{abort}");
    let last = run.stdout.lines().last().unwrap();
    assert!(last.starts_with("Verdict: ") && !last.ends_with(" 0 failed"), "{last}");
    assert!(run.stderr.trim().lines().last().unwrap().starts_with("error: "));
}

#[test]
fn a_file_that_is_not_a_plugin_fails_the_first_check() {
    let dir = arbiter_e2e::temp_dir("check-text");
    let f = dir.join("libnot.so");
    std::fs::write(&f, "text").unwrap();
    let run = arbiter(&["check", f.to_str().unwrap()]);
    assert!(!run.ok);
    assert!(run.stdout.starts_with("FAIL  loads as an arbiter plugin: "), "{}", run.stdout);
}
