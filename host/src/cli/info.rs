//! `arbiter info VARIANT`: the variant's card.

use anyhow::Result;

use super::out::say;
use arbiter_core::plugin::Registry;

pub(super) fn run(registry: &Registry, id: &str) -> Result<()> {
    let v = registry.get(id)?;
    let info = v.info();
    let plugin = v.plugin();
    say!("{} ({})", info.name, info.id);
    say!("plugin: {} {} ({}), arbiter-api {}", plugin.name, plugin.version, plugin.path.display(), plugin.api_version);
    say!("players: {}", info.players.join(", "));
    say!("hidden information: {}", if info.capabilities.hidden_information { "yes" } else { "no" });
    say!("moves: {}", info.notation);
    say!("positions: {}", info.position_notation);
    say!("start: {}", info.start_position);
    say!("default time control: {}", info.default_time_control);
    say!();
    say!("{}", info.summary);
    if !info.options.is_empty() {
        say!();
        say!("options (--option name=value):");
        for o in &info.options {
            let choices = if o.choices.is_empty() { String::new() } else { format!(" [{}]", o.choices.join("|")) };
            say!("  {} ({}{}, default {}): {}", o.name, o.kind, choices, o.default, o.description);
        }
    }
    Ok(())
}
