//! A third-party author's path, end to end with the already-built binary:
//! scaffold a variant outside the workspace, run its tests, build it, find it
//! through ARBITER_PLUGIN_PATH, pass `arbiter check`, and play a tournament.

use std::process::Command;

use arbiter_e2e::{arbiter_bin, temp_dir, workspace};

/// `--api-path`: the crate takes arbiter-api by version and from the local
/// copy by a path relative to itself; bad names and existing folders are
/// refused. (The crate's build, check, WebAssembly build and tournament:
/// `a_stranger_builds_a_variant_with_the_commands_the_scaffold_prints`,
/// against the same source vendored.)
#[test]
fn a_scaffolded_variant_names_its_api_copy_relative_to_itself() {
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
    // Refuses a bad name and an existing directory.
    let refused = |name: &str| {
        let out = Command::new(arbiter_bin()).args(["new-variant", name, "--dir", dir.to_str().unwrap()]).output();
        let out = out.unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (ok, err) = refused("My Game");
    assert!(!ok && err.contains("must start with a lowercase letter"), "{err}");
    let (ok, err) = refused("mygame");
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

/// The release route: arbiter-api packaged as a registry would serve it,
/// unpacked in a folder outside the checkout, builds its docs on its own;
/// and a variant scaffolded against that copy (`--api-path`, named relative
/// to the crate) builds and passes check.
#[test]
fn the_packaged_api_builds_on_its_own_outside_the_checkout() {
    let target = workspace().join("target").join("scaffold");
    let (ok, err) = cargo(&workspace(), &target, &["package", "-p", "arbiter-api", "--allow-dirty", "--no-verify"]);
    assert!(ok, "cargo package -p arbiter-api: {err}");
    let version = arbiter_api::API_VERSION;
    let packaged = target.join("package").join(format!("arbiter-api-{version}.crate"));
    let outside = temp_dir("packaged-api");
    let tar = Command::new("tar").arg("xzf").arg(&packaged).current_dir(&outside).status().unwrap();
    assert!(tar.success(), "cannot unpack {}", packaged.display());
    let api = outside.join(format!("arbiter-api-{version}"));
    let (ok, err) = cargo(&api, &target, &["doc", "--no-deps", "--quiet"]);
    assert!(ok, "cargo doc of the packaged arbiter-api: {err}");
    let out = Command::new(arbiter_bin())
        .args(["new-variant", "packaged", "--dir"])
        .arg(&outside)
        .arg("--api-path")
        .arg(&api)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest = std::fs::read_to_string(outside.join("packaged/Cargo.toml")).unwrap();
    assert!(manifest.contains(&format!("path = \"../arbiter-api-{version}\"")), "{manifest}");
    assert!(!manifest.contains("[patch"), "a local copy named: nothing vendored: {manifest}");
    assert!(!outside.join("packaged/vendor").exists());
}

/// What `arbiter new-variant NAME` prints, run as printed in a folder
/// outside the checkout (`cd NAME && cargo test && cargo build --release`,
/// then `arbiter check`): the crate builds against the arbiter-api source
/// the binary carries (arbiter-api is on no registry, and cargo runs
/// offline here: nothing of it is fetched), no path of this machine lands
/// in it, and it packages by version alone.
///
/// The crate built so is found through ARBITER_PLUGIN_PATH, passes check
/// built as a WebAssembly plugin from the same source, and plays a
/// tournament.
#[test]
fn a_stranger_builds_a_variant_with_the_commands_the_scaffold_prints() {
    let outside = temp_dir("stranger");
    let made = scaffold_as_printed(&outside, "stranger", &[("CARGO_NET_OFFLINE", "true")]);
    assert!(std::fs::read_to_string(made.join("src/lib.rs")).unwrap().contains("assert_contract"));
    let plugin_dir = made.join("target").join("release");
    let run = |args: &[&str]| {
        let out = Command::new(arbiter_bin()).args(args).env("ARBITER_PLUGIN_PATH", &plugin_dir).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, list, err) = run(&["list"]);
    assert!(
        ok && list.lines().any(|l| l.starts_with("stranger ") && l.contains("libarbiter_stranger.so")),
        "{list}{err}"
    );
    // The same source, unchanged, builds as a WebAssembly plugin that passes check.
    let (ok, err) = cargo(&made, &made.join("target"), &["build", "--quiet", "--target", "wasm32-unknown-unknown"]);
    assert!(ok, "cargo build --target wasm32-unknown-unknown in the scaffolded crate failed: {err}");
    let wasm = made.join("target/wasm32-unknown-unknown/debug/arbiter_stranger.wasm");
    let (ok, check, err) = run(&["check", wasm.to_str().unwrap(), "--games", "10"]);
    assert!(ok && check.contains(", 0 failed"), "{check}{err}");
    let db = outside.join("t.db");
    let (ok, out, err) = run(&[
        "tournament",
        "--player",
        "m=mcts:iterations=50",
        "--player",
        "r=random",
        "--variant",
        "stranger",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("Standings (overall, 2 games)"), "{out}{err}");
    let manifest = std::fs::read_to_string(made.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(&format!("arbiter-api = {{ version = \"{}\" }}", arbiter_api::API_VERSION)));
    assert!(manifest.contains("[patch.crates-io]\narbiter-api = { path = \"vendor/arbiter-api\" }"), "{manifest}");
    let written = std::fs::read_dir(made.join("vendor/arbiter-api/src")).unwrap().count();
    assert!(written >= 8, "the vendored source");
    for file in ["Cargo.toml", "README.md", "src/lib.rs"] {
        let text = std::fs::read_to_string(made.join(file)).unwrap();
        assert!(!text.contains(outside.to_str().unwrap()) && !text.contains("/work/"), "{file} names a path");
    }
    // It packages with its dependency by version, the vendored copy left out.
    let target = made.join("target");
    let (ok, err) = cargo(&made, &target, &["package", "--allow-dirty", "--no-verify", "--exclude-lockfile"]);
    assert!(ok, "cargo package of the scaffolded variant: {err}");
    let packaged = target.join("package").join("stranger-plugin-0.1.0.crate");
    let listing = Command::new("tar").arg("tzf").arg(&packaged).output().unwrap();
    let files = String::from_utf8_lossy(&listing.stdout);
    assert!(!files.contains("vendor/"), "{files}");
    let normalized =
        Command::new("tar").arg("xzOf").arg(&packaged).arg("stranger-plugin-0.1.0/Cargo.toml").output().unwrap();
    let normalized = String::from_utf8_lossy(&normalized.stdout);
    let dependency = normalized.split("[dependencies.arbiter-api]").nth(1).unwrap_or_default();
    let dependency = dependency.split("\n\n").next().unwrap_or_default();
    assert!(dependency.contains("version = ") && !dependency.contains("path"), "{normalized}");
}

/// As a new author's machine has it: cargo's home an empty folder that
/// reaches only the package registries (so it needs the network; run with
/// `--ignored`).
#[test]
#[ignore]
fn a_stranger_with_an_empty_cargo_home_builds_a_variant_as_printed() {
    let outside = temp_dir("empty-cargo-home");
    let home = outside.join("cargo-home");
    std::fs::create_dir_all(&home).unwrap();
    scaffold_as_printed(&outside, "fresh", &[("CARGO_HOME", home.to_str().unwrap())]);
}

/// Runs `arbiter new-variant NAME --dir DIR`, then the commands it prints
/// (cargo's in a shell, as printed, with `env` added; `arbiter` as this
/// build's binary); returns the crate's folder.
fn scaffold_as_printed(dir: &std::path::Path, name: &str, env: &[(&str, &str)]) -> std::path::PathBuf {
    let out = Command::new(arbiter_bin()).args(["new-variant", name]).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    let steps: Vec<&str> = printed.lines().skip_while(|l| !l.ends_with("Next:")).skip(1).map(str::trim).collect();
    assert_eq!(steps.len(), 2, "{printed}");
    assert_eq!(steps[0], format!("cd ./{name} && cargo test && cargo build --release"), "{printed}");
    let bin_dir = arbiter_bin().parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_dir = std::path::Path::new(&cargo).parent().map(|p| p.display().to_string()).unwrap_or_default();
    // Both lines in one shell: the second runs in the crate, as a user's would.
    let script = format!("set -e\n{}\n{}\n", steps[0], steps[1]);
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(&script).current_dir(dir).env("PATH", format!("{cargo_dir}:{path}"));
    // The release build unoptimised and without debug info: that it builds
    // is what is tested, and optimising its dependencies was the test's
    // longest step. The test build without debug info either, and not
    // incremental, which nothing here rebuilds (38 -> 33 s of CPU).
    shell
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("ARBITER_PLUGIN_PATH")
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16");
    for (k, v) in env {
        shell.env(k, v);
    }
    let ran = shell.output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success(), "the printed commands failed:\n{script}\n{said}");
    assert!(said.contains(", 0 failed"), "{said}");
    dir.join(name)
}
