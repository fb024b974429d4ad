//! `arbiter new-variant`: writes a standalone plugin crate (a complete
//! tic-tac-toe with tests, the plugin contract among them) that depends on
//! this arbiter's arbiter-api by version (and by a relative path when a
//! local copy is given) and builds to a `.so` that `arbiter list` shows as
//! soon as it is on the plugin path.

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

/// Where the new crate takes arbiter-api from: this arbiter's version (what
/// a registry serves), and with `api_path` a local copy too, written
/// relative to the crate (`root`) so that no path of this machine lands in
/// the crate: it moves with the tree that holds both.
fn api_source(api_path: Option<&Path>, root: &Path) -> String {
    let version = format!("version = \"{}\"", arbiter_api::API_VERSION);
    match api_path {
        Some(p) => format!("{version}, path = \"{}\"", relative_to(p, root).display().to_string().replace('\\', "/")),
        None => version,
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
    let lib = format!("arbiter_{}", name.replace('-', "_"));
    for (file, template) in FILES {
        let text = template
            .replace("{{name}}", name)
            .replace("{{crate}}", &format!("{name}-plugin"))
            .replace("{{lib}}", &lib)
            .replace("{{api_source}}", &api);
        let path = root.join(file);
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
