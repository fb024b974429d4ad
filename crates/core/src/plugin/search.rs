//! The plugin search path: `--plugin-dir` entries first, then the directories
//! in `ARBITER_PLUGIN_PATH`, then the defaults (the binary's own directory, its
//! `plugins/` subdirectory, and, when those hold none, the workspace's
//! target directory). A directory's plugins are its native libraries, then
//! its `.wasm` modules.

use std::path::{Path, PathBuf};

use arbiter_api::host::is_wasm_file;

/// Environment variable holding extra plugin directories, `:`-separated.
pub const PLUGIN_PATH_ENV: &str = "ARBITER_PLUGIN_PATH";

/// Environment variable the ini plugin reads `.ini` files (or folders of
/// them) from, `:`-separated.
pub const VARIANTS_INI_ENV: &str = "ARBITER_VARIANTS_INI";

/// Hands the `.ini` files and folders among `explicit` (`--plugin-dir`
/// entries) to the ini plugin, which reads variant definitions from the
/// places [`VARIANTS_INI_ENV`] names: put first there, for this process and
/// the worker processes it starts. Returns a line for each entry that does
/// not exist.
pub fn hand_ini_places_to_plugins(explicit: &[PathBuf]) -> Vec<String> {
    let mut missing = Vec::new();
    let mut places: Vec<PathBuf> = Vec::new();
    for entry in explicit {
        if !entry.exists() {
            missing.push(format!("--plugin-dir {}: no such file or folder", entry.display()));
        } else if entry.is_dir() || is_ini_file(entry) {
            places.push(std::path::absolute(entry).unwrap_or_else(|_| entry.clone()));
        }
    }
    if !places.is_empty() {
        if let Some(env) = std::env::var_os(VARIANTS_INI_ENV) {
            places.extend(std::env::split_paths(&env));
        }
        if let Ok(joined) = std::env::join_paths(&places) {
            std::env::set_var(VARIANTS_INI_ENV, joined);
        }
    }
    missing
}

/// Whether `path` names a variant definition file (`.ini`), which the ini
/// plugin reads: no plugin library.
pub fn is_ini_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ini"))
}

/// An ordered list of plugin directories (or single plugin files).
#[derive(Clone, Debug, Default)]
pub struct SearchPath {
    entries: Vec<PathBuf>,
}

impl SearchPath {
    /// Explicit entries, then `ARBITER_PLUGIN_PATH`, then the defaults.
    pub fn resolve(explicit: &[PathBuf]) -> SearchPath {
        let mut entries: Vec<PathBuf> = explicit.to_vec();
        if let Some(env) = std::env::var_os(PLUGIN_PATH_ENV) {
            entries.extend(std::env::split_paths(&env).filter(|p| !p.as_os_str().is_empty()));
        }
        entries.extend(default_dirs());
        SearchPath { entries }
    }

    /// Only the given entries: no environment, no defaults.
    pub fn only(entries: Vec<PathBuf>) -> SearchPath {
        SearchPath { entries }
    }

    /// The plugin files to try, in search order, each listed once.
    pub fn plugin_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for entry in &self.entries {
            let mut found = match entry {
                e if is_ini_file(e) => Vec::new(),
                e if e.is_file() => vec![e.clone()],
                e => libraries_in(e),
            };
            // Native builds first: of one plugin built both ways, the native
            // one is kept (see `Registry::load`).
            found.sort_by_key(|f| (is_wasm_file(f), f.clone()));
            for f in found {
                let key = f.canonicalize().unwrap_or_else(|_| f.clone());
                if seen.insert(key) {
                    files.push(f);
                }
            }
        }
        files
    }
}

/// The plugin files of `dir`: native libraries and `.wasm` modules.
fn libraries_in(dir: &Path) -> Vec<PathBuf> {
    let suffix = std::env::consts::DLL_SUFFIX;
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && (p.to_string_lossy().ends_with(suffix) || is_wasm_file(p)))
                .collect()
        })
        .unwrap_or_default()
}

fn default_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    if let Some(exe_dir) = &exe_dir {
        dirs.push(exe_dir.join("plugins"));
        dirs.push(exe_dir.clone());
    }
    // An arbiter installed outside the workspace with no plugins beside it
    // still finds the plugins built in it: the release build if there is
    // one, else the debug build (never both, and never besides plugins of
    // its own, which would only report every variant twice).
    let own = dirs.iter().any(|d| !libraries_in(d).is_empty());
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
    let inside_target = exe_dir.as_ref().and_then(|d| d.canonicalize().ok()).zip(target.canonicalize().ok());
    if !own && !inside_target.is_some_and(|(exe, target)| exe.starts_with(target)) {
        if let Some(dir) =
            ["release", "debug"].map(|p| target.join(p)).into_iter().find(|d| !libraries_in(d).is_empty())
        {
            dirs.push(dir);
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::SearchPath;

    #[test]
    fn plugin_files_are_the_libraries_of_each_entry_in_order_each_once() {
        let root = arbiter_testing::temp_folder("search");
        let (first, second) = (root.join("first"), root.join("second"));
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(second.join("nested")).unwrap();
        let suffix = std::env::consts::DLL_SUFFIX;
        for (dir, name) in [(&first, "libb"), (&first, "liba"), (&second, "libc")] {
            std::fs::write(dir.join(format!("{name}{suffix}")), b"").unwrap();
        }
        std::fs::write(first.join("aa.wasm"), b"").unwrap();
        std::fs::write(first.join("notes.txt"), b"").unwrap();
        std::fs::write(second.join("nested").join(format!("libdeep{suffix}")), b"").unwrap();
        let single = second.join(format!("libc{suffix}"));
        let path = SearchPath::only(vec![first.clone(), single.clone(), second.clone(), root.join("missing")]);
        let names: Vec<String> =
            path.plugin_files().iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
        let mut expected: Vec<String> = ["liba", "libb"].iter().map(|n| format!("{n}{suffix}")).collect();
        expected.push("aa.wasm".into());
        expected.push(format!("libc{suffix}"));
        assert_eq!(
            names, expected,
            "native before wasm and sorted within a folder, a file named twice listed once, no subfolders"
        );
    }
}
