//! `arbiter new-variant`: writes a standalone plugin crate (a complete
//! tic-tac-toe with tests, the plugin contract among them) that depends on
//! this arbiter's arbiter-api by version and builds to a `.so` that `arbiter
//! list` shows as soon as it is on the plugin path.
//!
//! arbiter-api is on no registry an author can reach, so the binary carries
//! its own arbiter-api source (the very code it was built with, some 180
//! KiB) and writes it into the crate as `vendor/arbiter-api`, which a
//! `[patch.crates-io]` entry names: the dependency keeps its version, and
//! taking arbiter-api from a registry later is the patch's removal. With
//! `--api-path DIR` a local copy is named instead (a path relative to the
//! crate, beside the version).

use std::path::{Path, PathBuf};

/// Why the crate could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// The name is not a valid variant id.
    #[error("variant name '{0}' must start with a lowercase letter and hold only lowercase letters, digits and '-'")]
    BadName(String),
    /// The target directory exists already.
    #[error("{0} exists already; choose another name or --dir")]
    Exists(PathBuf),
    /// Writing failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

const FILES: [(&str, &str); 4] = [
    ("Cargo.toml", include_str!("../templates/new-variant/Cargo.toml.tmpl")),
    ("src/lib.rs", include_str!("../templates/new-variant/src/lib.rs.tmpl")),
    ("README.md", include_str!("../templates/new-variant/README.md.tmpl")),
    (".gitignore", include_str!("../templates/new-variant/gitignore.tmpl")),
];

/// This arbiter's own arbiter-api source, file by file (paths within the
/// crate): what a scaffolded crate builds against when no local copy is
/// named. A unit test keeps the list equal to the folder.
const API_SOURCE: [(&str, &str); 18] = [
    ("Cargo.toml", include_str!("../../plugin-api/Cargo.toml")),
    ("README.md", include_str!("../../plugin-api/README.md")),
    ("src/__private.rs", include_str!("../../plugin-api/src/__private.rs")),
    ("src/abi.rs", include_str!("../../plugin-api/src/abi.rs")),
    ("src/contract.rs", include_str!("../../plugin-api/src/contract.rs")),
    ("src/host/calls.rs", include_str!("../../plugin-api/src/host/calls.rs")),
    ("src/host/elf.rs", include_str!("../../plugin-api/src/host/elf.rs")),
    ("src/host/mod.rs", include_str!("../../plugin-api/src/host/mod.rs")),
    ("src/host/wasm.rs", include_str!("../../plugin-api/src/host/wasm.rs")),
    ("src/kit/adapter.rs", include_str!("../../plugin-api/src/kit/adapter.rs")),
    ("src/kit/mod.rs", include_str!("../../plugin-api/src/kit/mod.rs")),
    ("src/kit/native.rs", include_str!("../../plugin-api/src/kit/native.rs")),
    ("src/kit/wasm.rs", include_str!("../../plugin-api/src/kit/wasm.rs")),
    ("src/lib.rs", include_str!("../../plugin-api/src/lib.rs")),
    ("src/log.rs", include_str!("../../plugin-api/src/log.rs")),
    ("src/move_call.rs", include_str!("../../plugin-api/src/move_call.rs")),
    ("src/perft.rs", include_str!("../../plugin-api/src/perft.rs")),
    ("src/schema.rs", include_str!("../../plugin-api/src/schema.rs")),
];

/// Where the vendored arbiter-api goes, within the new crate.
const VENDORED: &str = "vendor/arbiter-api";

/// Where the new crate takes arbiter-api from: this arbiter's version (what
/// a registry serves), and with `api_path` a local copy too, written
/// relative to the crate (`root`) so that no path of this machine lands in
/// the crate: it moves with the tree that holds both. Without `api_path`,
/// the version alone (the vendored copy is patched in, see [`api_patch`]).
fn api_source(api_path: Option<&Path>, root: &Path) -> String {
    let version = format!("version = \"{}\"", arbiter_api::API_VERSION);
    match api_path {
        Some(p) => format!("{version}, path = \"{}\"", relative_to(p, root).display().to_string().replace('\\', "/")),
        None => version,
    }
}

/// The manifest's `[patch]` section: the vendored copy, unless a local copy
/// is named.
fn api_patch(api_path: Option<&Path>) -> String {
    match api_path {
        Some(_) => String::new(),
        None => format!(
            "# arbiter-api as the arbiter that made this crate was built with (it is on\n\
             # no public registry yet). To take it from a registry instead, delete\n\
             # these two lines and {VENDORED}.\n\
             [patch.crates-io]\n\
             arbiter-api = {{ path = \"{VENDORED}\" }}\n"
        ),
    }
}

/// `target` as a path from `base` (both made absolute first; `target`
/// as given if they share no root, as on two Windows drives).
fn relative_to(target: &Path, base: &Path) -> PathBuf {
    let absolute = |p: &Path| {
        let p = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
        p.canonicalize().unwrap_or(p)
    };
    let (target, base) = (absolute(target), absolute(base));
    let (t, b): (Vec<_>, Vec<_>) = (target.components().collect(), base.components().collect());
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return target;
    }
    let mut out: PathBuf = b[common..].iter().map(|_| "..").collect();
    out.extend(&t[common..]);
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Writes the crate for variant `name` into `dir/name`, taking arbiter-api
/// by version, and from `api_path` too if given (see `api_source`);
/// returns the crate's path.
pub fn new_variant(name: &str, dir: &Path, api_path: Option<&Path>) -> Result<PathBuf, ScaffoldError> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        return Err(ScaffoldError::BadName(name.to_string()));
    }
    let root = dir.join(name);
    if root.exists() {
        return Err(ScaffoldError::Exists(root));
    }
    std::fs::create_dir_all(&root).map_err(|source| ScaffoldError::Io { path: root.clone(), source })?;
    let api = api_source(api_path, &root);
    let patch = api_patch(api_path);
    let lib = format!("arbiter_{}", name.replace('-', "_"));
    let scaffold = FILES.into_iter().map(|(file, template)| {
        let text = template
            .replace("{{name}}", name)
            .replace("{{crate}}", &format!("{name}-plugin"))
            .replace("{{lib}}", &lib)
            .replace("{{api_source}}", &api)
            .replace("{{api_patch}}", &patch);
        (file.to_string(), text)
    });
    let vendored = api_path
        .is_none()
        .then(|| API_SOURCE.into_iter().map(|(file, text)| (format!("{VENDORED}/{file}"), text.to_string())));
    for (file, text) in scaffold.chain(vendored.into_iter().flatten()) {
        let path = root.join(&file);
        let io = |source| ScaffoldError::Io { path: path.clone(), source };
        std::fs::create_dir_all(path.parent().expect("files are in the crate")).map_err(io)?;
        std::fs::write(&path, text).map_err(io)?;
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::relative_to;

    /// The embedded arbiter-api is the whole folder, file for file.
    #[test]
    fn the_embedded_api_source_is_the_plugin_api_folder() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugin-api");
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if path.file_name().is_some_and(|n| n != "target") {
                        dirs.push(path);
                    }
                } else {
                    files.push(path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"));
                }
            }
        }
        files.sort();
        let embedded: Vec<String> = super::API_SOURCE.iter().map(|(f, _)| f.to_string()).collect();
        assert_eq!(embedded, files, "list every file of plugin-api in API_SOURCE");
        for (file, text) in super::API_SOURCE {
            assert_eq!(std::fs::read_to_string(root.join(file)).unwrap(), text, "{file}");
        }
    }

    #[test]
    fn local_copies_are_named_from_the_crate() {
        let tmp = std::env::temp_dir().join(format!("arbiter-scaffold-rel-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("src/mygame")).unwrap();
        std::fs::create_dir_all(tmp.join("deps/arbiter-api")).unwrap();
        assert_eq!(
            relative_to(&tmp.join("deps/arbiter-api"), &tmp.join("src/mygame")),
            Path::new("../../deps/arbiter-api")
        );
        assert_eq!(relative_to(&tmp.join("src/mygame"), &tmp.join("src/mygame")), Path::new("."));
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
