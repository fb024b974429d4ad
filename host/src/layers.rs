//! The floors of the house, checked: every module of `host/src` sits on a
//! floor, and a file may name (`crate::x`) only modules on a floor below its
//! own, or its own module. `cargo test -p arbiter --lib layers` runs it;
//! docs/ARCHITECTURE.md draws the same table.

/// Each top-level module and its floor, the ground floor first.
pub const FLOORS: &[(&str, u32)] = &[
    ("model", 1),
    ("verdict", 1),
    ("clock", 1),
    ("sync", 1),
    ("stats", 1),
    ("scaffold", 1),
    ("plugin", 1),
    ("process", 1),
    ("seat", 2),
    ("referee", 3),
    ("players", 3),
    ("record", 4),
    ("check", 4),
    ("store", 5),
    ("tournament", 6),
    ("web", 7),
    ("cli", 8),
    ("testing", 9),
];

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::FLOORS;

    fn floor(module: &str) -> Option<u32> {
        FLOORS.iter().find(|(m, _)| *m == module).map(|&(_, f)| f)
    }

    /// The `crate::x` paths a source names, `x` only (comments included:
    /// a doc link to a higher floor is a dependency of the reader too).
    fn named(text: &str) -> Vec<String> {
        text.match_indices("crate::")
            .map(|(i, _)| text[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect())
            .filter(|m: &String| !m.is_empty())
            .collect()
    }

    #[test]
    fn no_module_names_one_on_a_higher_floor() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut wrong = Vec::new();
        let mut files = vec![src.clone()];
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&src).unwrap();
            let first = relative.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
            let module = first.trim_end_matches(".rs");
            let Some(mine) = floor(module) else { continue };
            // Tests may reach anywhere: a file's own test module and test files are left out.
            if path.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            for other in named(text) {
                match floor(&other) {
                    Some(f) if f > mine || (f == mine && other != module && mine > 1) => {
                        wrong.push(format!("{} (floor {mine}) names crate::{other} (floor {f})", relative.display()))
                    }
                    _ => {}
                }
            }
        }
        wrong.sort();
        wrong.dedup();
        assert!(wrong.is_empty(), "imports that run up or across:\n{}", wrong.join("\n"));
    }

    #[test]
    fn every_module_has_a_floor() {
        let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
        for line in lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ").or(l.trim().strip_prefix("mod "))) {
            let module = line.trim_end_matches(';');
            assert!(module == "layers" || floor(module).is_some(), "module {module} has no floor in layers.rs");
        }
    }
}
