//! A third-party author's path, end to end with the already-built binary:
//! scaffold a variant outside the workspace, run its tests, build it, find it
//! through ARBITER_PLUGIN_PATH, pass `arbiter check`, and play a tournament.

use std::process::Command;

use arbiter_e2e::{arbiter_bin, temp_dir, workspace};

#[test]
fn a_scaffolded_variant_builds_passes_check_and_plays_a_tournament() {
    let dir = temp_dir("scaffold");
    let api = workspace().join("plugin-api");
    let out = Command::new(arbiter_bin())
        .args(["new-variant", "mygame", "--dir", dir.to_str().unwrap(), "--api-path", api.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let krate = dir.join("mygame");
    // By version (what crates.io serves) and by the local copy's path.
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    let api = api.canonicalize().unwrap();
    let source =
        format!("arbiter-api = {{ version = \"{}\", path = \"{}\" }}", arbiter_api::API_VERSION, api.display());
    assert!(manifest.contains(&source), "{manifest}");
    // Its own tests run the plugin contract in process.
    assert!(std::fs::read_to_string(krate.join("src/lib.rs")).unwrap().contains("assert_contract"));
    // A target dir of its own (kept between runs) so the build does not touch the workspace's.
    let target = workspace().join("target").join("scaffold");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for args in [["test", "--quiet"], ["build", "--quiet"]] {
        let status =
            Command::new(&cargo).args(args).current_dir(&krate).env("CARGO_TARGET_DIR", &target).status().unwrap();
        assert!(status.success(), "cargo {args:?} in the scaffolded crate failed");
    }
    let plugin_dir = target.join("debug");
    let run = |args: &[&str]| {
        let out = Command::new(arbiter_bin()).args(args).env("ARBITER_PLUGIN_PATH", &plugin_dir).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, list, err) = run(&["list"]);
    assert!(ok && list.lines().any(|l| l.starts_with("mygame ") && l.contains("libarbiter_mygame.so")), "{list}{err}");
    let so = plugin_dir.join("libarbiter_mygame.so");
    let (ok, check, err) = run(&["check", so.to_str().unwrap(), "--games", "10"]);
    assert!(ok && check.contains(", 0 failed"), "{check}{err}");
    let db = dir.join("t.db");
    let (ok, out, err) = run(&[
        "tournament",
        "--player",
        "m=mcts:iterations=50",
        "--player",
        "r=random",
        "--variant",
        "mygame",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("Standings (overall, 2 games)"), "{out}{err}");
    // Refuses a bad name and an existing directory.
    let (ok, _, err) = run(&["new-variant", "My Game", "--dir", dir.to_str().unwrap()]);
    assert!(!ok && err.contains("must start with a lowercase letter"), "{err}");
    let (ok, _, err) = run(&["new-variant", "mygame", "--dir", dir.to_str().unwrap()]);
    assert!(!ok && err.contains("exists already"), "{err}");
}
