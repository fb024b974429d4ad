//! The `variants.ini` file format: `[name]` or `[name:parent]` sections of
//! `key = value` lines (`#` and `;` start comments). A section inherits
//! every key of its parent (a built-in or an earlier section) and may
//! override any. Errors name the file, the line and the key.

use std::collections::BTreeMap;

/// One section as written, before inheritance.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// The variant's name.
    pub name: String,
    /// The section it inherits from, if any.
    pub parent: Option<String>,
    /// Keys in file order, each with its 1-based line.
    pub keys: Vec<(String, String, usize)>,
    /// Where it was written (a file path, or `built-in`).
    pub file: String,
    /// The line of its header.
    pub line: usize,
}

/// A line of an ini file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IniError {
    /// The file.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for IniError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// The sections of one file, in order.
pub fn parse(file: &str, text: &str) -> Result<Vec<Section>, IniError> {
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split(['#', ';']).next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |message: String| IniError { file: file.to_string(), line: line_no, message };
        if let Some(header) = line.strip_prefix('[') {
            let header = header.strip_suffix(']').ok_or_else(|| err(format!("'{line}' is not a [section] header")))?;
            let (name, parent) = match header.split_once(':') {
                Some((n, p)) => (n.trim(), Some(p.trim().to_string())),
                None => (header.trim(), None),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(err(format!("'{name}' is not a variant name (letters, digits, - and _)")));
            }
            sections.push(Section {
                name: name.to_ascii_lowercase(),
                parent: parent.map(|p| p.to_ascii_lowercase()),
                keys: Vec::new(),
                file: file.to_string(),
                line: line_no,
            });
            continue;
        }
        let (key, value) = line.split_once('=').ok_or_else(|| err(format!("'{line}' is not key = value")))?;
        let section = sections.last_mut().ok_or_else(|| err("a key before any [section]".into()))?;
        section.keys.push((key.trim().to_string(), value.trim().to_string(), line_no));
    }
    Ok(sections)
}

/// Every key of `name` after inheritance (the parent's first, its own
/// over them), each with the file and line that set it; errors on an
/// unknown parent or a cycle.
pub fn resolve(
    name: &str,
    sections: &BTreeMap<String, Section>,
) -> Result<BTreeMap<String, (String, String, usize)>, IniError> {
    let mut chain = Vec::new();
    let mut at = name.to_string();
    loop {
        let s = sections.get(&at).ok_or_else(|| {
            let child = chain.last().map(|c: &&Section| (c.file.clone(), c.line)).unwrap_or_default();
            IniError { file: child.0, line: child.1, message: format!("unknown parent variant '{at}'") }
        })?;
        if chain.iter().any(|c: &&Section| c.name == s.name) {
            return Err(IniError {
                file: s.file.clone(),
                line: s.line,
                message: format!("inheritance cycle through '{}'", s.name),
            });
        }
        chain.push(s);
        match &s.parent {
            Some(p) => at = p.clone(),
            None => break,
        }
    }
    let mut keys = BTreeMap::new();
    for s in chain.iter().rev() {
        for (k, v, line) in &s.keys {
            keys.insert(k.clone(), (v.clone(), s.file.clone(), *line));
        }
    }
    Ok(keys)
}
