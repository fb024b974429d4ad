//! What a tournament is pinned to: the sha256 of each variant's plugin build
//! and of each engine program named by a path, recorded when the tournament
//! is registered and checked by every machine that plays its games.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use arbiter_api::host::{PluginKind, VariantHandle};
use serde::{Deserialize, Serialize};

use super::error::{Result, TournamentError};
use super::games::Entrant;
use arbiter_core::plugin::Registry;
use arbiter_core::sync::LockExt;
use arbiter_store::Store;

/// A file a tournament was registered with: a variant's plugin build (with
/// its arbiter-api version), or an engine binary named by a path (no API
/// version).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct PluginPin {
    /// The file: a plugin's name (its folder differs from machine to
    /// machine), an engine's path as its command names it.
    pub file: String,
    /// Its sha256, hex.
    pub sha256: String,
    /// The arbiter-api version it was built against.
    pub api_version: String,
    /// For a variant a plugin builds from a definition the machine holds
    /// (an ini variant, from its `.ini` files): that definition's sha256,
    /// so that machines whose files define one name otherwise do not mix
    /// their results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
}

impl PluginPin {
    /// The pin of the plugin file at `path`, hashed once per process (a
    /// loaded plugin is never reloaded, so its file may not change under it)
    /// and remembered between runs while the file stays unchanged
    /// ([`super::file_hashes`]).
    pub fn of(path: &std::path::Path, api_version: &str) -> Result<PluginPin> {
        static HASHES: std::sync::Mutex<BTreeMap<PathBuf, String>> = std::sync::Mutex::new(BTreeMap::new());
        let known = HASHES.lock_or_recover().get(path).cloned();
        let sha256 = match known {
            Some(h) => h,
            None => {
                let h = super::file_hashes::sha256(path).map_err(|error| TournamentError::File {
                    what: format!("cannot read {} to pin it", path.display()),
                    error,
                })?;
                HASHES.lock_or_recover().insert(path.to_path_buf(), h.clone());
                h
            }
        };
        let file = if api_version.is_empty() {
            path.display().to_string()
        } else {
            path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
        };
        Ok(PluginPin { file, sha256, api_version: api_version.to_string(), definition: None })
    }

    /// The pin of `variant`: its plugin file's, and the sha256 of its
    /// definition if the plugin reports one (its `definition` call).
    pub fn of_variant(variant: &VariantHandle) -> Result<PluginPin> {
        use sha2::Digest;
        let plugin = variant.plugin();
        let mut pin = PluginPin::of(&plugin.path, &plugin.api_version)?;
        let defaults = serde_json::Map::new();
        let definition = variant
            .new_game(&defaults)
            .ok()
            .and_then(|mut g| g.call_json("definition", &serde_json::Value::Null).ok())
            .and_then(|d| d.as_str().map(str::to_string));
        pin.definition = definition.map(|d| format!("{:x}", sha2::Sha256::digest(d.as_bytes())));
        Ok(pin)
    }

    /// Whether `other` is the same build (and definition) as this pin.
    pub fn same_build(&self, other: &PluginPin) -> bool {
        self.sha256 == other.sha256 && self.definition == other.definition
    }

    /// How the pin reads in a refusal: its file, sha256 and definition.
    pub fn describe(&self) -> String {
        match &self.definition {
            Some(d) => format!("{} sha256 {}, definition sha256 {d}", self.file, self.sha256),
            None => format!("{} sha256 {}", self.file, self.sha256),
        }
    }
}

/// Keeps in `store`, under its pin, the file of each variant of `variants`
/// that is a WebAssembly plugin, for queue workers elsewhere to fetch
/// ([`fetch_sandboxed`]); native plugins stay on their machines.
pub fn keep_sandboxed(store: &Store, variants: &[VariantHandle], pins: &BTreeMap<String, PluginPin>) -> Result<()> {
    for v in variants.iter().filter(|v| v.plugin().kind == PluginKind::Wasm) {
        let Some(pin) = pins.get(&v.info().id) else { continue };
        let path = &v.plugin().path;
        let bytes = std::fs::read(path).map_err(|error| TournamentError::File {
            what: format!("cannot read {} to keep it", path.display()),
            error,
        })?;
        store.put_plugin_file(&pin.sha256, &pin.file, &bytes)?;
    }
    Ok(())
}

/// The WebAssembly plugins `pins` name that `registry` lacks or holds
/// another build of, fetched by `fetch` from `source` (the store, the
/// coordinator) into `folder` (a file each, under its sha256, checked
/// against it before it is written); the files, for the search path. A
/// pin `fetch` finds no file for is left to the refusal a worker gives for
/// a missing or different plugin.
pub fn fetch_sandboxed(
    registry: &Registry,
    pins: &BTreeMap<String, PluginPin>,
    folder: &Path,
    source: &str,
    fetch: impl Fn(&str) -> Result<Option<Vec<u8>>>,
) -> Result<Vec<PathBuf>> {
    use sha2::Digest;
    let mut files = Vec::new();
    for (variant, pin) in pins {
        let local =
            registry.get(variant).ok().and_then(|v| PluginPin::of(&v.plugin().path, &v.plugin().api_version).ok());
        if local.is_some_and(|mine| mine.sha256 == pin.sha256) || !pin.file.ends_with(".wasm") {
            continue;
        }
        let file = folder.join(&pin.sha256).join(Path::new(&pin.file).file_name().unwrap_or_default());
        if !file.is_file() {
            let Some(bytes) = fetch(&pin.sha256)? else { continue };
            let sha256 = format!("{:x}", sha2::Sha256::digest(&bytes));
            if sha256 != pin.sha256 {
                return Err(TournamentError::Refused(format!(
                    "variant {variant}: {source}'s copy of {} has sha256 {sha256}, not the pinned {}",
                    pin.file, pin.sha256
                )));
            }
            let write = |error| TournamentError::File { what: format!("cannot write {}", file.display()), error };
            let dir = file.parent().expect("a file under a folder");
            std::fs::create_dir_all(dir).map_err(write)?;
            let partial = dir.join(format!("partial-{}", std::process::id()));
            std::fs::write(&partial, &bytes).map_err(write)?;
            std::fs::rename(&partial, &file).map_err(write)?;
        }
        if !files.contains(&file) {
            files.push(file);
        }
    }
    Ok(files)
}

/// The engine programs named by a path in the entrants' player specs
/// (`uci:/opt/sf/stockfish`), pinned by their sha256, by entrant name; an
/// engine found on `PATH` differs from machine to machine and is not pinned.
pub fn engine_pins(entrants: &[Entrant]) -> Result<BTreeMap<String, PluginPin>> {
    let mut pins = BTreeMap::new();
    for e in entrants {
        if let Some(program) = e.spec.settings().and_then(|s| s.program_path()) {
            pins.insert(e.name.clone(), PluginPin::of(&program, "")?);
        }
    }
    Ok(pins)
}

#[cfg(test)]
mod tests {
    use super::{engine_pins, PluginPin};
    use crate::games::Entrant;
    use arbiter_play::players::PlayerSpec;

    #[test]
    fn a_plugin_is_pinned_by_name_and_hash_and_an_engine_by_its_path() {
        let dir = arbiter_testing::temp_folder("pins");
        let file = dir.join("libx.so");
        std::fs::write(&file, b"abc").unwrap();
        let pin = PluginPin::of(&file, "0.1.0").unwrap();
        let sha_of_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(
            (pin.file.as_str(), pin.sha256.as_str(), pin.api_version.as_str()),
            ("libx.so", sha_of_abc, "0.1.0")
        );
        let e = PluginPin::of(&dir.join("gone.so"), "0.1.0").err().unwrap().to_string();
        assert!(e.starts_with("cannot read ") && e.contains("gone.so to pin it: "), "{e}");
        let entrant = |name: &str, spec: &str| Entrant {
            name: name.into(),
            spec: PlayerSpec::parse(spec).unwrap(),
            spec_text: spec.into(),
            tc: None,
        };
        let by_path = format!("uci:{}", file.display());
        let pins =
            engine_pins(&[entrant("a", &by_path), entrant("b", "uci:stockfish"), entrant("c", "random")]).unwrap();
        assert_eq!(pins.keys().collect::<Vec<_>>(), ["a"], "only engines named by a path are pinned");
        assert_eq!((pins["a"].file.clone(), pins["a"].sha256.as_str()), (file.display().to_string(), sha_of_abc));
    }
}
