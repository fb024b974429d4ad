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
    // By version (what a registry serves) and by the local copy's path,
    // relative to the crate: no absolute path of this machine in the crate.
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    let source = format!("arbiter-api = {{ version = \"{}\", path = \"../", arbiter_api::API_VERSION);
    assert!(manifest.contains(&source), "{manifest}");
    assert!(!manifest.contains("path = \"/"), "{manifest}");
    // Its own tests run the plugin contract in process.
    assert!(std::fs::read_to_string(krate.join("src/lib.rs")).unwrap().contains("assert_contract"));
    // A target dir of its own (kept between runs) so the build does not touch
    // the workspace's (see `cargo` below for how it builds).
    let target = workspace().join("target").join("scaffold");
    for args in [["test", "--quiet"], ["build", "--quiet"]] {
        let (ok, err) = cargo(&krate, &target, &args);
        assert!(ok, "cargo {args:?} in the scaffolded crate failed: {err}");
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
    // The same source, unchanged, builds as a WebAssembly plugin that passes check.
    let (ok, err) = cargo(&krate, &target, &["build", "--quiet", "--target", "wasm32-unknown-unknown"]);
    assert!(ok, "cargo build --target wasm32-unknown-unknown in the scaffolded crate failed: {err}");
    let wasm = target.join("wasm32-unknown-unknown/debug/arbiter_mygame.wasm");
    let (ok, check, err) = run(&["check", wasm.to_str().unwrap(), "--games", "10"]);
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

/// Runs cargo with `args` in `dir` against `target`, offline (every crate
/// the builds need is in cargo's cache once the workspace is built);
/// without debug info, which nothing here reads, and not incremental, which
/// nothing here rebuilds (the scaffolded crates' builds are a good part of
/// the tests' time).
fn cargo(dir: &std::path::Path, target: &std::path::Path, args: &[&str]) -> (bool, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .arg("--offline")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), said)
}

#[test]
fn a_stranger_builds_a_variant_from_the_packaged_api_alone() {
    // The release route: arbiter-api packaged as a registry would serve it,
    // unpacked in a folder outside the checkout, with nothing of arbiter's
    // workspace around it.
    let target = workspace().join("target").join("scaffold");
    let (ok, err) = cargo(&workspace(), &target, &["package", "-p", "arbiter-api", "--allow-dirty", "--no-verify"]);
    assert!(ok, "cargo package -p arbiter-api: {err}");
    let version = arbiter_api::API_VERSION;
    let packaged = target.join("package").join(format!("arbiter-api-{version}.crate"));
    let outside = temp_dir("stranger");
    let tar = Command::new("tar").arg("xzf").arg(&packaged).current_dir(&outside).status().unwrap();
    assert!(tar.success(), "cannot unpack {}", packaged.display());
    let api = outside.join(format!("arbiter-api-{version}"));
    // Its docs build on their own.
    let (ok, err) = cargo(&api, &target, &["doc", "--no-deps", "--quiet"]);
    assert!(ok, "cargo doc of the packaged arbiter-api: {err}");
    // A variant scaffolded against that copy (named relative to the crate) builds and passes check.
    let out = Command::new(arbiter_bin())
        .args(["new-variant", "stranger", "--dir"])
        .arg(&outside)
        .arg("--api-path")
        .arg(&api)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let krate = outside.join("stranger");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(&format!("path = \"../arbiter-api-{version}\"")), "{manifest}");
    let (ok, err) = cargo(&krate, &target, &["build", "--quiet"]);
    assert!(ok, "cargo build of the scaffolded variant: {err}");
    let so = target.join("debug").join("libarbiter_stranger.so");
    let out = Command::new(arbiter_bin()).args(["check"]).arg(&so).args(["--games", "5"]).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && report.contains(", 0 failed"), "{report}");
    // The variant packages too: its arbiter-api dependency is by version
    // (the path is a local override that packaging leaves out).
    // (No lockfile: resolving one would need the registry, which this
    // offline machine has not got.)
    let (ok, err) = cargo(&krate, &target, &["package", "--allow-dirty", "--no-verify", "--exclude-lockfile"]);
    assert!(ok, "cargo package of the scaffolded variant: {err}");
    let packaged = target.join("package").join("stranger-plugin-0.1.0.crate");
    let listing =
        Command::new("tar").arg("xzOf").arg(&packaged).arg("stranger-plugin-0.1.0/Cargo.toml").output().unwrap();
    let normalized = String::from_utf8_lossy(&listing.stdout);
    let dependency = normalized.split("[dependencies.arbiter-api]").nth(1).unwrap_or_default();
    let dependency = dependency.split("\n\n").next().unwrap_or_default();
    assert!(dependency.contains("version = ") && !dependency.contains("path"), "{normalized}");
}
