//! `arbiter check PLUGIN.so`: the conformance suite, one line per check and
//! a verdict; also accepts an installed variant id, or an engine
//! (`uci:CMD`, `hub:CMD`) to take through its protocol.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Result};
use arbiter_api::host::{Plugin, VariantHandle};
use clap::Args;

use super::out::{say, say_or_quit};
use arbiter_core::plugin::Registry;
use arbiter_play::check::engine::{check_hub, check_uci};
use arbiter_play::check::isolated::check_in_child;
use arbiter_play::check::{check_variant, CheckConfig, CheckResult};
use arbiter_play::players::PlayerSpec;

/// Arguments of `arbiter check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A plugin file, the id of an installed variant, or an engine
    /// (`uci:CMD`, `hub:CMD`) to take through its protocol.
    target: String,
    /// The variant an engine is checked on (default: chess for UCI,
    /// international for Hub).
    #[arg(long)]
    variant: Option<String>,
    /// Random games per variant.
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Seconds one variant's checks may take before its calls count as hung.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Check only this variant, in this process (what each isolated child runs).
    #[arg(long, hide = true)]
    only: Option<String>,
}

pub(super) fn run(registry: &Registry, args: &CheckArgs, plugin_dirs: &[PathBuf]) -> Result<()> {
    if let Ok(spec) = PlayerSpec::parse(&args.target) {
        if spec.is_engine() {
            return check_engine(registry, args, &spec);
        }
    }
    let quiet = args.only.is_some();
    let variants: Vec<VariantHandle> = if Path::new(&args.target).is_file() {
        let plugin = match Plugin::load(Path::new(&args.target)) {
            Ok(p) => p,
            Err(e) => {
                say!("FAIL  loads as an arbiter plugin: {e}");
                bail!("1 check failed");
            }
        };
        let meta = plugin.meta();
        if !quiet {
            say!("PASS  loads as an arbiter plugin: {} {} (arbiter-api {})", meta.name, meta.version, meta.api_version);
        }
        match plugin.variants() {
            Ok(v) => v,
            Err(e) => {
                say!("FAIL  lists its variants: {e}");
                bail!("1 check failed");
            }
        }
    } else if args.target.contains('/')
        || args.target.ends_with(std::env::consts::DLL_SUFFIX)
        || args.target.ends_with(".wasm")
    {
        bail!("{}: no such file (give a plugin file or an installed variant's id)", args.target);
    } else {
        vec![registry.get(&args.target)?.clone()]
    };
    let cfg = CheckConfig { games: args.games, seed: args.seed, ply_cap: 1000 };
    let (mut passed, mut failed) = (0, 0);
    if args.only.is_none() {
        // Each variant in a child process: an abort or a hang fails a check.
        for v in &variants {
            let id = &v.info().id;
            say!("variant {id}:");
            let child =
                check_in_child(plugin_dirs, &args.target, id, args.games, args.seed, Duration::from_secs(args.timeout));
            for line in child.output.lines() {
                passed += line.starts_with("  PASS") as u32;
                failed += line.starts_with("  FAIL") as u32;
                say!("{line}");
            }
            if let Some(why) = child.failure {
                failed += 1;
                say!("  FAIL  no call aborts or hangs: {why}");
            }
        }
        say!("Verdict: {passed} checks passed, {failed} failed");
        if failed > 0 {
            bail!("{failed} check(s) failed");
        }
        return Ok(());
    }
    for v in variants.iter().filter(|v| Some(&v.info().id) == args.only.as_ref()) {
        watch_for_hangs(&v.plugin().name);
        // A check is printed once its outcome is final: a later abort keeps it.
        let mut printed = std::collections::HashSet::new();
        let mut print = |r: &CheckResult| {
            if printed.insert(r.name.clone()) {
                match &r.failure {
                    None => say_or_quit!("  PASS  {}", r.name),
                    Some(why) => say_or_quit!("  FAIL  {}: {why}", r.name),
                }
            }
        };
        let (results, times) = check_variant(v, &cfg, &mut print);
        for r in &results {
            print(r);
        }
        let timing: Vec<String> = times
            .rows
            .iter()
            .map(|(name, calls, total, worst)| {
                format!(
                    "{name} {calls} calls, mean {:.2} us, max {:.0} us",
                    total.as_secs_f64() * 1e6 / *calls as f64,
                    worst.as_secs_f64() * 1e6
                )
            })
            .collect();
        say!("  time: {}", timing.join("; "));
    }
    Ok(())
}

/// `arbiter check uci:CMD|hub:CMD`: the engine's protocol, step by step.
fn check_engine(registry: &Registry, args: &CheckArgs, spec: &PlayerSpec) -> Result<()> {
    let results = match (spec.kind(), spec.settings()) {
        ("uci", Some(settings)) => check_uci(settings, registry.get(args.variant.as_deref().unwrap_or("chess"))?),
        ("hub", Some(settings)) => {
            check_hub(settings, registry.get(args.variant.as_deref().unwrap_or("international"))?)
        }
        _ => bail!("{}: only UCI and Hub engines have a protocol check (uci:CMD, hub:CMD)", args.target),
    };
    let failed = results.iter().filter(|r| r.failure.is_some()).count();
    for r in &results {
        match &r.failure {
            None => say!("PASS  {}", r.name),
            Some(why) => say!("FAIL  {}: {why}", r.name),
        }
    }
    say!("Verdict: {} checks passed, {failed} failed", results.len() - failed);
    if failed > 0 {
        bail!("{failed} check(s) failed");
    }
    Ok(())
}

/// Watches this thread's plugin calls from another: a call that runs past
/// the call limit of sandboxed plugins (`ARBITER_WASM_CALL_MS`, 10 s; for
/// perft its own, 600 s) is named as a `.wasm` plugin's is, with the
/// position the checks are at, and ends this (child) process, whose
/// parent reports the rest.
fn watch_for_hangs(plugin: &str) {
    let calls = arbiter_api::host::CallWatch::this_thread();
    let limits = arbiter_api::host::wasm::Limits::from_env();
    let plugin = plugin.to_string();
    std::thread::spawn(move || {
        let tick = Duration::from_millis(20);
        let (mut seen, mut since) = (calls.now(), std::time::Instant::now());
        loop {
            std::thread::sleep(tick);
            let now = calls.now();
            if now != seen {
                (seen, since) = (now, std::time::Instant::now());
                continue;
            }
            let Some(call) = now.call else { continue };
            let limit = if call == "perft" { limits.perft } else { limits.call };
            if since.elapsed() >= limit {
                let at = arbiter_api::contract::checking_at();
                say_or_quit!(
                    "  FAIL  no call aborts or hangs: plugin {plugin} ran past its time limit of {} ms in {call}, in '{at}'",
                    limit.as_millis()
                );
                std::process::exit(1);
            }
        }
    });
}
