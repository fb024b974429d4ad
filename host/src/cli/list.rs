//! `arbiter list`: one row per installed variant.

use anyhow::Result;

use super::out::say;
use arbiter_core::plugin::Registry;

pub(super) fn run(registry: &Registry) -> Result<()> {
    let rows: Vec<[String; 6]> = registry
        .variants()
        .map(|v| {
            let info = v.info();
            let plugin = v.plugin();
            [
                info.id.clone(),
                info.name.clone(),
                plugin.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                format!("{} {}", plugin.name, plugin.version),
                info.players.len().to_string(),
                if info.capabilities.hidden_information { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    let header = ["VARIANT", "NAME", "FILE", "PLUGIN", "PLAYERS", "HIDDEN"].map(String::from);
    let mut widths = header.each_ref().map(String::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        say!("{}", line.join("  ").trim_end());
    }
    if rows.is_empty() {
        say!("(no variants installed: build the plugins with `cargo build` or use --plugin-dir)");
    }
    Ok(())
}
