//! The floors of the house, checked: every module of `host/src` sits on a
//! floor, and a file may name (`crate::x`, or `crate::{x, ...}`) only
//! modules on a floor below its own, or its own module; the ground floor's
//! modules may name each other, in no circle. Only `#[cfg(test)]` items are
//! left out. `cargo test -p arbiter --lib layers` runs it;
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
    /// a doc link to a higher floor is a dependency of the reader too),
    /// grouped ones too (`crate::{x::A, y}` names `x` and `y`).
    fn named(text: &str) -> Vec<String> {
        let ident = |t: &str| -> String { t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
        let mut names = Vec::new();
        for (i, _) in text.match_indices("crate::") {
            let rest = text[i + 7..].trim_start();
            if let Some(group) = rest.strip_prefix('{') {
                // The group's top-level items, up to its closing brace.
                let (mut depth, mut item_start) = (0, true);
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        c if item_start && !c.is_whitespace() => {
                            item_start = false;
                            names.push(ident(&group[j..]));
                        }
                        _ => {}
                    }
                }
            } else {
                names.push(ident(rest));
            }
        }
        names.retain(|m| !m.is_empty());
        names
    }

    /// `text` without its `#[cfg(test)]` items (a test module, inline or
    /// in a file of its own, or any other item under the attribute):
    /// tests may reach anywhere, the code around them may not.
    fn without_tests(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("#[cfg(test)]") {
            out.push_str(&rest[..at]);
            let item = &rest[at + "#[cfg(test)]".len()..];
            // The item ends at its first `;` outside braces, or at the brace
            // that closes its first block.
            let mut depth = 0;
            let mut end = item.len();
            for (i, c) in item.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i + 1;
                            break;
                        }
                    }
                    ';' if depth == 0 => {
                        end = i + 1;
                        break;
                    }
                    _ => {}
                }
            }
            rest = &item[end..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn no_module_names_one_on_a_higher_floor() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut wrong = Vec::new();
        // The ground floor's modules, each with those it names.
        let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
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
            let text = without_tests(&std::fs::read_to_string(&path).unwrap());
            for other in named(&text) {
                if floor(&other) == Some(mine) && other != module {
                    edges.entry(module.to_string()).or_default().insert(other.clone());
                }
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
        // The ground floor's modules may name each other, but in no circle.
        let mut seen = std::collections::BTreeSet::new();
        for start in edges.keys() {
            let mut path = vec![start.clone()];
            assert!(no_circle(&edges, &mut path, &mut seen), "a circle on the ground floor: {}", path.join(" -> "));
        }
    }

    /// Whether no circle runs through the end of `path` (which is left
    /// holding the circle if one does).
    fn no_circle(
        edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> bool {
        let here = path.last().expect("a path has a start").clone();
        if done.contains(&here) {
            return true;
        }
        for next in edges.get(&here).into_iter().flatten() {
            if path.contains(next) {
                path.push(next.clone());
                return false;
            }
            path.push(next.clone());
            if !no_circle(edges, path, done) {
                return false;
            }
            path.pop();
        }
        done.insert(here);
        true
    }

    #[test]
    fn grouped_imports_and_code_around_tests_are_read() {
        let text = "use crate::{web::A, store::{B, C}};\n#[cfg(test)]\nmod tests {\n use crate::cli;\n}\nuse crate::tournament::D;\n";
        let read = named(&without_tests(text));
        assert_eq!(read, ["web", "store", "tournament"], "the test module left out, the code after it read");
        assert_eq!(named("#[cfg(test)]\nmod tests;\ncrate::x"), ["x"]);
        assert_eq!(named(&without_tests("#[cfg(test)]\nmod tests;\ncrate::x")), ["x"]);
        // A circle is found and named.
        let mut edges: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
        for (a, b) in [("clock", "model"), ("model", "sync"), ("sync", "clock")] {
            edges.entry(a.into()).or_default().insert(b.into());
        }
        let mut path = vec!["clock".to_string()];
        assert!(!no_circle(&edges, &mut path, &mut Default::default()));
        assert_eq!(path, ["clock", "model", "sync", "clock"]);
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
