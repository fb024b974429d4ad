//! How an engine process is started and kept, the same for every protocol:
//! `CMD[,dir=DIR][,arg=ARG...][,restart=on|off][,timeout=SECS][,ponder=on|off]`
//! after the player kind (`uci:./sf,dir=/opt/sf,restart=on`), as
//! cutechess-cli's `dir=`, `arg=`, `restart=` and `ponder` engine settings;
//! a program ending in `.wasm` runs in the sandbox on a virtual clock, with
//! `memory=MB`, `ips=N` (fuel a virtual second) and `files=DIR` (a folder
//! it may read, at its own path; repeatable) of its own.

use std::path::PathBuf;

use arbiter_core::engine::{is_sandboxed, EngineProcess};
use arbiter_core::process::{Limits, ProcessError};
use arbiter_core::sandbox::{SandboxSettings, DEFAULT_IPS, DEFAULT_MEMORY_MB};

/// The settings' names, for messages.
const NAMES: &str = "dir, arg, restart, timeout, ponder, memory, ips, files";

/// How long a sandboxed engine may take (in virtual time) to start and to
/// answer anything but a move, unless its `timeout=` says otherwise.
const SANDBOX_ANSWER_MS: u64 = 10_000;

/// Why the settings after a player kind's colon cannot be read, or an
/// engine refuses them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// A part that is not `name=value`.
    #[error("'{0}' is not name=value")]
    NotNameValue(String),
    /// A setting the kind does not take.
    #[error("unknown {what} '{name}' ({known})")]
    Unknown {
        /// What was looked for (`setting`, `engine setting`).
        what: &'static str,
        /// The name given.
        name: String,
        /// What the kind takes, for the message.
        known: &'static str,
    },
    /// A value its setting cannot take.
    #[error("{name} '{value}' {expected}")]
    BadValue {
        /// The setting.
        name: String,
        /// The value given.
        value: String,
        /// What it should be (`must be on or off`).
        expected: &'static str,
    },
    /// Settings given to a kind that takes none.
    #[error("{0} takes no settings")]
    NoneTaken(&'static str),
    /// A kind that runs a program, given none.
    #[error("{kind}: needs a command, e.g. {example}")]
    NoCommand {
        /// The player kind.
        kind: &'static str,
        /// A spec of it.
        example: &'static str,
    },
    /// An option value the engine's declared type refuses.
    #[error("option {name}: {reason}")]
    Option {
        /// The option.
        name: String,
        /// Why its type refuses the value.
        reason: OptionValueError,
    },
    /// The engine could not be started or asked for its options.
    #[error("{0}")]
    Engine(String),
}

/// Why a UCI option's declared type refuses a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionValueError {
    /// A spin value outside its range.
    #[error("{value} is outside {min}..{max}")]
    OutOfRange {
        /// The value.
        value: i64,
        /// The least it takes.
        min: i64,
        /// The most it takes.
        max: i64,
    },
    /// A spin value that is no whole number.
    #[error("'{value}' is not a whole number (a spin option, {min}..{max})")]
    NotWhole {
        /// The value.
        value: String,
        /// The least it takes.
        min: i64,
        /// The most it takes.
        max: i64,
    },
    /// A check value other than true and false.
    #[error("'{0}' must be true or false (a check option)")]
    NotBool(String),
    /// A combo value it does not list.
    #[error("'{value}' is none of {vars}")]
    NotListed {
        /// The value.
        value: String,
        /// The values it lists, comma-separated.
        vars: String,
    },
}

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
    /// Think on the opponent's time (`ponder=on`), where the protocol can.
    pub ponder: bool,
    /// A sandboxed engine's memory cap in MiB (`memory=`).
    pub memory_mb: Option<u64>,
    /// A sandboxed engine's fuel a virtual second (`ips=`).
    pub ips: Option<u64>,
    /// Folders a sandboxed engine may read (`files=DIR`, repeatable).
    pub files: Vec<PathBuf>,
    /// The seed a sandboxed engine's random bytes come from: the game's
    /// (set when its player is made, never written in a spec).
    pub seed: u64,
}

impl EngineSettings {
    /// Settings running `command` with every default.
    pub fn of(command: &str) -> EngineSettings {
        EngineSettings { command: command.trim().to_string(), ..EngineSettings::default() }
    }

    /// Reads one `name=value` if it is a setting; `Ok(false)` if `name` is
    /// none of them.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, SettingError> {
        let bad = |expected| SettingError::BadValue { name: name.into(), value: value.into(), expected };
        match name {
            "dir" => self.dir = Some(PathBuf::from(value)),
            "arg" => self.args.push(value.to_string()),
            "files" => self.files.push(PathBuf::from(value)),
            "restart" | "ponder" => {
                let on = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err(bad("must be on or off")),
                };
                *if name == "restart" { &mut self.restart } else { &mut self.ponder } = on;
            }
            "memory" | "ips" => {
                let (least, expected) = match name {
                    "memory" => (1, "must be a whole number of MiB, at least 1"),
                    _ => (1_000, "must be a whole number of instructions a virtual second, at least 1000"),
                };
                let n = value.parse::<u64>().ok().filter(|&n| n >= least).ok_or_else(|| bad(expected))?;
                *if name == "memory" { &mut self.memory_mb } else { &mut self.ips } = Some(n);
            }
            "timeout" => {
                let secs = value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                    .ok_or_else(|| bad("must be seconds, more than 0"))?;
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
    pub fn parse(rest: &str) -> Result<EngineSettings, SettingError> {
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
                return Err(SettingError::Unknown { what: "engine setting", name: k.into(), known: NAMES });
            }
        }
        settings.check_sandbox()?;
        Ok(settings)
    }

    /// Whether the engine runs in the sandbox (its program ends in `.wasm`).
    pub fn is_sandboxed(&self) -> bool {
        is_sandboxed(&self.command)
    }

    /// The settings only a sandboxed engine takes, and what it cannot do:
    /// it works only on its own time, so it never ponders.
    fn check_sandbox(&self) -> Result<(), SettingError> {
        let bad =
            |name: &str, value: String, expected| Err(SettingError::BadValue { name: name.into(), value, expected });
        match (self.is_sandboxed(), self.memory_mb, self.ips) {
            (true, _, _) if self.ponder => {
                bad("ponder", "on".into(), "is not for a sandboxed engine: it works only on its own virtual time")
            }
            (false, _, _) if !self.files.is_empty() => {
                bad("files", self.files[0].display().to_string(), "is for sandboxed (.wasm) engines only")
            }
            (false, Some(mb), _) => bad("memory", mb.to_string(), "is for sandboxed (.wasm) engines only"),
            (false, _, Some(ips)) => bad("ips", ips.to_string(), "is for sandboxed (.wasm) engines only"),
            _ => Ok(()),
        }
    }

    /// The handshake time: `timeout=` or the protocol's `default_ms`.
    pub fn handshake_ms(&self, default_ms: u64) -> u64 {
        self.timeout_ms.unwrap_or(default_ms)
    }

    /// The name an engine goes by until it says its own: its program's file name.
    pub fn program_name(&self) -> String {
        arbiter_core::process::program_name(&self.command)
    }

    /// The program's path when the command names one (`./sf`,
    /// `/opt/sf/sf`; a relative one from `dir=`), not a name found on `PATH`.
    pub fn program_path(&self) -> Option<PathBuf> {
        let program =
            arbiter_core::process::command_words(&self.command).into_iter().next().filter(|p| p.contains('/'))?;
        Some(match &self.dir {
            Some(d) => d.join(program),
            None => PathBuf::from(program),
        })
    }

    /// Starts the engine in its directory with its arguments (a `.wasm`
    /// program in the sandbox).
    pub fn start(&self) -> Result<EngineProcess, ProcessError> {
        let sandbox = SandboxSettings {
            ips: self.ips.unwrap_or(DEFAULT_IPS),
            memory_mb: self.memory_mb.unwrap_or(DEFAULT_MEMORY_MB),
            seed: self.seed,
            answer_ms: self.timeout_ms.unwrap_or(SANDBOX_ANSWER_MS),
            max_line: Limits::ENGINE.max_line,
            files: self.files.clone(),
        };
        EngineProcess::start(&self.command, &self.args, self.dir.as_deref(), &sandbox)
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
        assert!(EngineSettings::parse("e,Hash=16").unwrap_err().to_string().contains("unknown engine setting 'Hash'"));
        assert!(EngineSettings::parse("e,restart=maybe").unwrap_err().to_string().contains("restart 'maybe'"));
        assert!(EngineSettings::parse("e,timeout=0").unwrap_err().to_string().contains("timeout '0'"));
        assert!(EngineSettings::parse("e,timeout=soon").unwrap_err().to_string().contains("timeout 'soon'"));
    }
}
