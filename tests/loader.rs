//! The loader's one-line errors: files that are not plugins, plugins built
//! against another arbiter-api, two plugins exporting one variant, a plugin
//! whose call panics, and plugin log events reaching the host.

use std::path::PathBuf;

use arbiter::plugin::{Registry, SearchPath};
use arbiter_e2e::{arbiter, fixture_plugin, profile_dir, temp_dir};
use serde_json::{json, Map};

fn warnings(dir: PathBuf) -> Vec<String> {
    Registry::load(&SearchPath::only(vec![dir])).warnings().to_vec()
}

#[test]
fn a_text_file_named_like_a_library_is_not_loadable() {
    let dir = temp_dir("text");
    std::fs::write(dir.join("libx.so"), "this is not a library\n").unwrap();
    let w = warnings(dir.clone());
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(&format!("{}: not a loadable shared library (", dir.join("libx.so").display())),
        "{}",
        w[0]
    );
    assert_eq!(w[0].lines().count(), 1);
}

/// A plugin cut short (a copy broken off) used to map and then kill every
/// command with SIGBUS: it is named in one line, and the rest load.
#[test]
fn a_plugin_cut_short_is_one_line_and_kills_nothing() {
    let dir = temp_dir("cut-short");
    let whole = std::fs::read(profile_dir().join("libarbiter_draughts.so")).unwrap();
    let cut = dir.join("libarbiter_draughts.so");
    std::fs::write(&cut, &whole[..65536]).unwrap();
    let w = warnings(dir.clone());
    assert_eq!(w.len(), 1, "{w:?}");
    let expected =
        format!("{}: not a loadable shared library (cut short: 65536 bytes, but its own headers", cut.display());
    assert!(w[0].starts_with(&expected), "{}", w[0]);
    let run = arbiter(&["check", cut.to_str().unwrap()]);
    assert!(!run.ok && run.stdout.contains("cut short: 65536 bytes"), "{}\n{}", run.stdout, run.stderr);
    let listed = arbiter(&["--plugin-dir", dir.to_str().unwrap(), "list"]);
    assert!(listed.ok && listed.stdout.contains("chess"), "the other plugins load: {}", listed.stderr);
    assert!(listed.stderr.contains("cut short"), "{}", listed.stderr);
}

#[test]
fn a_shared_library_without_a_root_module_is_not_a_plugin() {
    let dir = temp_dir("foreign");
    // Any real shared object that is not an arbiter plugin will do.
    let foreign = std::fs::read_dir(profile_dir().join("deps"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        // By file name only: the checkout's folder may be called anything, `arbiter` too.
        .find(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(".so") && !name.starts_with("libarbiter_")
        })
        .expect("a proc-macro .so in target/debug/deps");
    std::fs::copy(&foreign, dir.join("libforeign.so")).unwrap();
    let w = warnings(dir.clone());
    assert_eq!(
        w,
        vec![format!(
            "{}: not an arbiter plugin (it exports no arbiter root module)",
            dir.join("libforeign.so").display()
        )]
    );
}

#[test]
fn a_plugin_built_against_another_api_version_is_refused_with_the_fix() {
    // arbiter-api 0.2.0, whose boundary type has another size (as a new
    // version's may): the version line is read before abi_stable compares
    // layouts.
    let so = arbiter_e2e::fixture_plugin_with_another_layout("fixture-next-layout", Some("0.2.0"));
    let w = warnings(so.clone());
    assert_eq!(
        w,
        vec![format!(
            "{}: plugin built against arbiter-api 0.2.0, this arbiter expects arbiter-api 0.1.0; rebuild the plugin against arbiter-api 0.1.0",
            so.display()
        )]
    );
    // An older plugin is refused by abi_stable's own check, with the same line.
    let old = fixture_plugin("fixture-old-abi", Some("0.0.9"));
    assert_eq!(
        warnings(old.clone()),
        vec![format!(
            "{}: plugin built against arbiter-api 0.0.9, this arbiter expects arbiter-api 0.1.0; rebuild the plugin against arbiter-api 0.1.0",
            old.display()
        )]
    );
    // The command line reports it and carries on with the other plugins.
    let run = arbiter(&["--plugin-dir", so.to_str().unwrap(), "list"]);
    assert!(run.ok);
    assert!(run.stderr.contains("rebuild the plugin against arbiter-api 0.1.0"), "{}", run.stderr);
    assert!(run.stdout.lines().any(|l| l.starts_with("chess ")));
}

#[test]
fn two_plugins_exporting_one_variant_say_which_is_used() {
    let (a, b) = (temp_dir("dup-a"), temp_dir("dup-b"));
    let so = profile_dir().join("libarbiter_chess.so");
    std::fs::copy(&so, a.join("libarbiter_chess.so")).unwrap();
    std::fs::copy(&so, b.join("libarbiter_chess.so")).unwrap();
    let reg = Registry::load(&SearchPath::only(vec![a.clone(), b.clone()]));
    let first = a.join("libarbiter_chess.so");
    assert_eq!(
        reg.warnings(),
        [format!(
            "variant 'chess' is exported by both {} and {}; using {}",
            first.display(),
            b.join("libarbiter_chess.so").display(),
            first.display()
        )]
    );
    assert_eq!(reg.get("chess").unwrap().plugin().path, first);
}

#[test]
fn a_panicking_call_becomes_an_error_naming_plugin_and_call() {
    let so = fixture_plugin("fixture", None);
    let reg = Registry::load(&SearchPath::only(vec![so.clone()]));
    let race = reg.get("fixture-race").unwrap();
    let opts = |call: &str, ply: u64| json!({"panic_in": call, "panic_at_ply": ply}).as_object().unwrap().clone();

    let e = race.new_game(&opts("new_game", 0)).err().unwrap();
    assert_eq!(e.kind, arbiter_api::ErrorKind::Panic);
    assert_eq!(e.message, "plugin fixture-plugin panicked in new_game: fixture: deliberate panic in new_game at ply 0");

    let mut game = race.new_game(&opts("apply", 2)).unwrap();
    game.apply(1).unwrap();
    game.apply(2).unwrap();
    let e = game.apply(1).unwrap_err();
    assert_eq!(e.message, "plugin fixture-plugin panicked in apply: fixture: deliberate panic in apply at ply 2");
    // The state is faulted from then on; the host process lives on.
    assert_eq!(game.status().outcome, arbiter_api::Outcome::Faulted);
    assert_eq!(game.legal_move_list().unwrap_err().kind, arbiter_api::ErrorKind::Faulted);
    assert!(race.new_game(&Map::new()).unwrap().legal_move_list().unwrap().len() == 2);

    let run = arbiter(&[
        "--plugin-dir",
        so.to_str().unwrap(),
        "perft",
        "fixture-race",
        "--depth",
        "2",
        "--option",
        "panic_in=legal_moves",
    ]);
    assert!(!run.ok);
    assert_eq!(
        run.stderr.trim(),
        "error: plugin fixture-plugin panicked in perft: fixture: deliberate panic in legal_moves at ply 0"
    );
}

#[test]
fn plugin_log_events_reach_the_host_subscriber() {
    let so = fixture_plugin("fixture", None);
    let run = arbiter(&["-v", "--plugin-dir", so.to_str().unwrap(), "perft", "fixture-race", "--depth", "1"]);
    assert!(run.ok, "{}", run.stderr);
    let line = run.stderr.lines().find(|l| l.contains("fixture: new game")).expect(&run.stderr);
    assert!(
        line.contains("INFO") && line.contains("plugin=\"fixture-plugin\"") || line.contains("plugin=fixture-plugin"),
        "{line}"
    );
}

#[test]
fn a_layout_break_at_the_same_version_is_named_by_its_first_difference() {
    // The same version with another layout: the first real difference.
    let broken = arbiter_e2e::fixture_plugin_with_another_layout("fixture-same-version-layout", None);
    assert_eq!(
        warnings(broken.clone()),
        vec![format!(
            "{}: plugin's ABI layout does not match arbiter-api 0.1.0 (incompatible type size in PluginModule > \
             AFunctionPointer > RResult: this arbiter has 48, the plugin 56); rebuild the plugin against arbiter-api 0.1.0",
            broken.display()
        )]
    );
}

#[test]
fn a_copied_binary_with_its_plugins_beside_it_warns_of_nothing() {
    let dir = temp_dir("copied-binary");
    std::fs::copy(arbiter_e2e::arbiter_bin(), dir.join("arbiter")).unwrap();
    let mut copied = 0;
    for entry in std::fs::read_dir(profile_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("libarbiter_"))
            && path.extension().is_some_and(|e| e == "so")
        {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
            copied += 1;
        }
    }
    assert!(copied >= 5);
    let out =
        std::process::Command::new(dir.join("arbiter")).env_remove("ARBITER_PLUGIN_PATH").arg("list").output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("exported by both"), "{stderr}");
    assert!(stdout.lines().any(|l| l.starts_with("chess ") && l.contains("libarbiter_chess.so")), "{stdout}");
}
