//! `arbiter info VARIANT`: the variant's card.

use anyhow::Result;

use crate::plugin::Registry;

pub(super) fn run(registry: &Registry, id: &str) -> Result<()> {
    let v = registry.get(id)?;
    let info = v.info();
    let plugin = v.plugin();
    println!("{} ({})", info.name, info.id);
    println!(
        "plugin: {} {} ({}), arbiter-api {}",
        plugin.name,
        plugin.version,
        plugin.path.display(),
        plugin.api_version
    );
    println!("players: {}", info.players.join(", "));
    println!("hidden information: {}", if info.capabilities.hidden_information { "yes" } else { "no" });
    println!("moves: {}", info.notation);
    println!("positions: {}", info.position_notation);
    println!("start: {}", info.start_position);
    println!("default time control: {}", info.default_time_control);
    println!();
    println!("{}", info.summary);
    if !info.options.is_empty() {
        println!();
        println!("options (--option name=value):");
        for o in &info.options {
            let choices = if o.choices.is_empty() { String::new() } else { format!(" [{}]", o.choices.join("|")) };
            println!("  {} ({}{}, default {}): {}", o.name, o.kind, choices, o.default, o.description);
        }
    }
    Ok(())
}
