//! `arbiter new-variant`: writes a standalone plugin crate (a complete
//! tic-tac-toe with tests, the plugin contract among them) that depends on
//! this arbiter's arbiter-api (by version, and by path when a local copy is
//! given or this arbiter was built from a checkout) and builds to a `.so`
//! that `arbiter list` shows as soon as it is on the plugin path.

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

/// Where the new crate takes arbiter-api from: `api_path` if given, else
/// the checkout this arbiter was built from if it is still there, always
/// with this arbiter's version (what crates.io serves once the path is gone).
fn api_source(api_path: Option<&Path>) -> String {
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugin-api");
    let path = api_path.map(Path::to_path_buf).or_else(|| built_from.is_dir().then_some(built_from));
    let version = format!("version = \"{}\"", arbiter_api::API_VERSION);
    match path {
        Some(p) => {
            let p = p.canonicalize().unwrap_or(p);
            format!("{version}, path = \"{}\"", p.display().to_string().replace('\\', "/"))
        }
        None => version,
    }
}

/// Writes the crate for variant `name` into `dir/name`, taking arbiter-api
/// from `api_path` if given (see [`api_source`]); returns the crate's path.
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
    let api = api_source(api_path);
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
