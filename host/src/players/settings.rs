//! How an engine process is started and kept, the same for every protocol:
//! `CMD[,dir=DIR][,arg=ARG...][,restart=on|off][,timeout=SECS]` after the
//! player kind (`uci:./sf,dir=/opt/sf,restart=on`), as cutechess-cli's
//! `dir=`, `arg=` and `restart=` engine settings.

use std::path::PathBuf;

use crate::process::{ChildProcess, Limits, ProcessError};

/// The settings' names, for messages.
const NAMES: &str = "dir, arg, restart, timeout";

/// Where and how an engine runs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EngineSettings {
    /// The command line (split on whitespace; the first word is the program).
    pub command: String,
    /// Extra arguments, each passed whole (spaces kept), after the command's words.
    pub args: Vec<String>,
    /// The working directory; a relative program path is found from it.
    pub dir: Option<PathBuf>,
    /// A fresh process for every game (`restart=on`) rather than one kept
    /// between games and restarted only after a failure.
    pub restart: bool,
    /// How long the engine may take to start and to answer a readiness
    /// check (`timeout=SECS`); the protocol's default otherwise.
    pub timeout_ms: Option<u64>,
}

impl EngineSettings {
    /// Settings running `command` with every default.
    pub fn of(command: &str) -> EngineSettings {
        EngineSettings { command: command.trim().to_string(), ..EngineSettings::default() }
    }

    /// Reads one `name=value` if it is a setting; `Ok(false)` if `name` is
    /// none of them.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name {
            "dir" => self.dir = Some(PathBuf::from(value)),
            "arg" => self.args.push(value.to_string()),
            "restart" => {
                self.restart = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(format!("restart '{value}' must be on or off")),
                }
            }
            "timeout" => {
                let secs = value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                    .ok_or_else(|| format!("timeout '{value}' must be seconds, more than 0"))?;
                self.timeout_ms = Some((secs * 1000.0).round().max(1.0) as u64);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Parses `CMD[,setting=value...]` for a protocol whose engines take no
    /// options: a command whose comma-separated tail is not all `name=value`
    /// is taken whole (a comma may belong to the command), but a tail of
    /// `name=value`s must name settings.
    pub fn parse(rest: &str) -> Result<EngineSettings, String> {
        let mut parts = rest.split(',');
        let command = parts.next().unwrap_or("").trim();
        let tail: Vec<&str> = parts.collect();
        let pairs: Option<Vec<(&str, &str)>> = tail
            .iter()
            .map(|kv| kv.split_once('=').map(|(k, v)| (k.trim(), v.trim())).filter(|(k, _)| is_name(k)))
            .collect();
        let Some(pairs) = pairs.filter(|p| !p.is_empty()) else {
            return Ok(EngineSettings::of(rest));
        };
        let mut settings = EngineSettings::of(command);
        for (k, v) in pairs {
            if !settings.set(k, v)? {
                return Err(format!("unknown engine setting '{k}' ({NAMES})"));
            }
        }
        Ok(settings)
    }

    /// The handshake time: `timeout=` or the protocol's `default_ms`.
    pub fn handshake_ms(&self, default_ms: u64) -> u64 {
        self.timeout_ms.unwrap_or(default_ms)
    }

    /// The name an engine goes by until it says its own: its program's file name.
    pub fn program_name(&self) -> String {
        let program = self.command.split_whitespace().next().unwrap_or(&self.command);
        program.rsplit('/').next().unwrap_or(program).to_string()
    }

    /// The program's path when the command names one (`./sf`,
    /// `/opt/sf/sf`; a relative one from `dir=`), not a name found on `PATH`.
    pub fn program_path(&self) -> Option<PathBuf> {
        let program = self.command.split_whitespace().next().filter(|p| p.contains('/'))?;
        Some(match &self.dir {
            Some(d) => d.join(program),
            None => PathBuf::from(program),
        })
    }

    /// Starts the engine in its directory with its arguments.
    pub fn start(&self) -> Result<ChildProcess, ProcessError> {
        ChildProcess::start_in(&self.command, &self.args, self.dir.as_deref(), Limits::ENGINE)
    }
}

/// Whether `s` can be a setting's name (letters, digits, `_`, `-`, `.`).
fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_follow_the_command() {
        let s = EngineSettings::parse("./sf --flag,dir=/opt/sf,arg=a b,arg=c,restart=on,timeout=2.5").unwrap();
        assert_eq!(s.command, "./sf --flag");
        assert_eq!(s.dir, Some(PathBuf::from("/opt/sf")));
        assert_eq!(s.args, ["a b", "c"]);
        assert!(s.restart);
        assert_eq!(s.timeout_ms, Some(2500));
        assert_eq!(s.program_name(), "sf");
    }

    #[test]
    fn a_comma_inside_the_command_is_kept() {
        let s = EngineSettings::parse("python3 -c 'print(1, 2)'").unwrap();
        assert_eq!(s.command, "python3 -c 'print(1, 2)'");
        assert_eq!(s, EngineSettings::of("python3 -c 'print(1, 2)'"));
    }

    #[test]
    fn bad_settings_are_named() {
        assert!(EngineSettings::parse("e,Hash=16").unwrap_err().contains("unknown engine setting 'Hash'"));
        assert!(EngineSettings::parse("e,restart=maybe").unwrap_err().contains("restart 'maybe'"));
        assert!(EngineSettings::parse("e,timeout=0").unwrap_err().contains("timeout '0'"));
        assert!(EngineSettings::parse("e,timeout=soon").unwrap_err().contains("timeout 'soon'"));
    }
}
