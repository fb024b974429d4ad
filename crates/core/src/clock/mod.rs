//! Time controls and chess clocks. [`TimeControl`] parses the syntax users
//! know from cutechess-cli and fastchess, plus delays, hourglass, node and
//! depth limits and a game-time cap; [`Clock`] keeps one player's time during
//! a game. All arithmetic is in milliseconds on the host's monotonic clock.
//!
//! Syntax (`arbiter match --help` repeats it):
//! - `inf`: no limit. `st=1.5`: a fixed 1.5 s per move.
//! - `40/60+0.6`: 40 moves in 60 s, 0.6 s added per move, repeating.
//! - `60+0.6`: 60 s for the game, 0.6 s increment. `300`: 5 minutes, no increment.
//! - `40/5400+30:1800+30`: periods separated by `:`; the last one repeats.
//! - `60+d2`: simple delay (the first 2 s of each move are free);
//!   `60+b2`: Bronstein delay (time used is given back, up to 2 s).
//! - `600+byo30`: byoyomi, as shogi plays it: once the main time is spent,
//!   each move may take up to 30 s, and what a move leaves of it is lost.
//! - `hg=60`: hourglass: time one side uses is added to the other.
//! - modifiers after commas: `nodes=N`, `depth=N` (passed to engines that
//!   support them), `cap=SECONDS` (the whole game ends as a draw when both
//!   sides together have used that much time), `hang=SECONDS` (the longest an
//!   engine may think on one move when no clock limits it; default 60).
//! - every number of seconds is at most [`MAX_SECONDS`].

use std::fmt;

/// A malformed time-control string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("time control '{text}': {reason}")]
pub struct TimeControlError {
    text: String,
    reason: String,
}

/// How the time added after each move is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bonus {
    /// Nothing added.
    None,
    /// Fischer increment, added after every move.
    Increment(u64),
    /// Simple (US) delay: the first N ms of each move are not charged.
    Delay(u64),
    /// Bronstein delay: the time used is given back, up to N ms.
    Bronstein(u64),
    /// Byoyomi: past the main time, each move may take up to N ms, and
    /// what it leaves of them is lost.
    Byoyomi(u64),
}

/// One period: `moves` moves (all remaining ones if `None`) in `base_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Period {
    /// Moves to make in this period; `None` for the rest of the game.
    pub moves: Option<u32>,
    /// Time given at the start of the period.
    pub base_ms: u64,
    /// What each move earns.
    pub bonus: Bonus,
}

/// The shape of the time limit.
#[derive(Clone, Debug, PartialEq)]
pub enum Limit {
    /// No limit.
    Infinite,
    /// A fixed time for every move.
    PerMove(u64),
    /// Periods; the last one repeats.
    Periods(Vec<Period>),
    /// One pool per side; time used by one side is added to the other's.
    Hourglass(u64),
}

/// A parsed time control. Records write it as its text (`"40/60+0.5"`).
#[derive(Clone, Debug, PartialEq)]
pub struct TimeControl {
    /// The time limit proper.
    pub limit: Limit,
    /// Node limit per move, for engines that support it.
    pub nodes: Option<u64>,
    /// Depth limit per move, for engines that support it.
    pub depth: Option<u32>,
    /// Total game time (both sides) after which the game is drawn.
    pub cap_ms: Option<u64>,
    /// The longest an engine may think on one move when no clock limits it
    /// (`None`: [`DEFAULT_HANG_MS`]); UCI and Hub engines are told to stop
    /// then, others lose as hung.
    pub hang_ms: Option<u64>,
    text: String,
}

/// The largest number of seconds any value of a time control may hold
/// (about 115 days); larger values are refused rather than overflowing the
/// clock's millisecond arithmetic.
pub const MAX_SECONDS: f64 = 10_000_000.0;

/// How long an engine may think on one move when no clock limits it (`inf`,
/// or a node or depth limit alone), unless the `hang=` modifier says otherwise.
pub const DEFAULT_HANG_MS: u64 = 60_000;

fn seconds(s: &str) -> Option<u64> {
    let v: f64 = s.parse().ok()?;
    (v.is_finite() && (0.0..=MAX_SECONDS).contains(&v)).then(|| (v * 1000.0).round() as u64)
}

impl TimeControl {
    /// Parses a time-control string (see the module documentation).
    pub fn parse(text: &str) -> Result<TimeControl, TimeControlError> {
        let err = |reason: &str| TimeControlError { text: text.to_string(), reason: reason.to_string() };
        let mut parts = text.trim().split(',');
        let main = parts.next().unwrap_or("").trim();
        let limit = if main.is_empty() {
            return Err(err("empty"));
        } else if main == "inf" || main == "infinite" {
            Limit::Infinite
        } else if let Some(v) = main.strip_prefix("st=") {
            Limit::PerMove(
                seconds(v).filter(|&ms| ms > 0).ok_or_else(|| err("st= needs a positive number of seconds"))?,
            )
        } else if let Some(v) = main.strip_prefix("hg=") {
            Limit::Hourglass(
                seconds(v).filter(|&ms| ms > 0).ok_or_else(|| err("hg= needs a positive number of seconds"))?,
            )
        } else {
            let periods =
                main.split(':').map(|p| parse_period(p).map_err(|r| err(&r))).collect::<Result<Vec<_>, _>>()?;
            if periods[..periods.len() - 1].iter().any(|p| p.moves.is_none()) {
                return Err(err("only the last period may cover the rest of the game"));
            }
            Limit::Periods(periods)
        };
        let mut tc =
            TimeControl { limit, nodes: None, depth: None, cap_ms: None, hang_ms: None, text: text.trim().to_string() };
        for modifier in parts {
            let (key, value) =
                modifier.trim().split_once('=').ok_or_else(|| err("modifiers have the form key=value"))?;
            match key.trim() {
                "nodes" => tc.nodes = Some(value.parse().map_err(|_| err("nodes= needs a whole number"))?),
                "depth" => tc.depth = Some(value.parse().map_err(|_| err("depth= needs a whole number"))?),
                "cap" => tc.cap_ms = Some(seconds(value).ok_or_else(|| err("cap= needs a number of seconds"))?),
                "hang" => {
                    tc.hang_ms = Some(
                        seconds(value)
                            .filter(|&ms| ms > 0)
                            .ok_or_else(|| err("hang= needs a positive number of seconds"))?,
                    )
                }
                other => return Err(err(&format!("unknown modifier '{other}' (known: nodes, depth, cap, hang)"))),
            }
        }
        Ok(tc)
    }

    /// The PGN `TimeControl` tag value (`40/5400+30:1800+30`, `-` for none).
    pub fn pgn_tag(&self) -> String {
        match &self.limit {
            Limit::Infinite => "-".into(),
            Limit::PerMove(ms) => format!("*{}", fmt_secs(*ms)),
            Limit::Hourglass(ms) => fmt_secs(*ms),
            Limit::Periods(ps) => ps
                .iter()
                .map(|p| {
                    let moves = p.moves.map(|m| format!("{m}/")).unwrap_or_default();
                    let bonus = match p.bonus {
                        Bonus::None => String::new(),
                        Bonus::Increment(ms) | Bonus::Delay(ms) | Bonus::Bronstein(ms) => format!("+{}", fmt_secs(ms)),
                        Bonus::Byoyomi(ms) => format!("+byo{}", fmt_secs(ms)),
                    };
                    format!("{moves}{}{bonus}", fmt_secs(p.base_ms))
                })
                .collect::<Vec<_>>()
                .join(":"),
        }
    }
}

impl serde::Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let text = String::deserialize(d)?;
        TimeControl::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Seconds as PGN writes them: integral when whole.
pub fn fmt_secs(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

fn parse_period(p: &str) -> Result<Period, String> {
    let (moves, rest) = match p.split_once('/') {
        Some((m, rest)) => {
            (Some(m.parse::<u32>().ok().filter(|&m| m > 0).ok_or(format!("'{m}' is not a move count"))?), rest)
        }
        None => (None, p),
    };
    let (base, bonus) = match rest.split_once('+') {
        Some((b, inc)) => (b, Some(inc)),
        None => (rest, None),
    };
    if base.is_empty() {
        return Err("missing the base time before '+'".into());
    }
    let base_ms = seconds(base).ok_or(format!("'{base}' is not a number of seconds (0 to {MAX_SECONDS})"))?;
    let bonus = match bonus {
        None => Bonus::None,
        Some(b) => {
            let (make, v): (fn(u64) -> Bonus, &str) = if let Some(v) = b.strip_prefix("byo") {
                (Bonus::Byoyomi, v)
            } else if let Some(v) = b.strip_prefix('d') {
                (Bonus::Delay, v)
            } else if let Some(v) = b.strip_prefix('b') {
                (Bonus::Bronstein, v)
            } else {
                (Bonus::Increment, b)
            };
            make(seconds(v).ok_or(format!(
                "'{b}' is not an increment, delay (d2, b2) or byoyomi (byo30) in seconds (0 to {MAX_SECONDS})"
            ))?)
        }
    };
    if base_ms == 0
        && matches!(
            bonus,
            Bonus::None | Bonus::Increment(0) | Bonus::Delay(0) | Bonus::Bronstein(0) | Bonus::Byoyomi(0)
        )
    {
        return Err("a period needs some time".into());
    }
    Ok(Period { moves, base_ms, bonus })
}

/// What a player is told about time when asked to move.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TurnTime {
    /// Time left on this player's clock (`None`: unlimited).
    pub remaining_ms: Option<u64>,
    /// What the move will earn (increment; delays reported as increment 0).
    pub increment_ms: u64,
    /// Moves to make before the next time control, if any.
    pub moves_to_go: Option<u32>,
    /// A fixed time for this move (`st=`).
    pub movetime_ms: Option<u64>,
    /// The byoyomi: what a move may take past the remaining time (0: none).
    pub byoyomi_ms: u64,
}

impl TurnTime {
    /// What a protocol without byoyomi is told a move earns: the
    /// increment, or the byoyomi (each move may take that much more than
    /// the clock shows, as an increment lets it).
    pub fn earned_ms(&self) -> u64 {
        self.increment_ms.max(self.byoyomi_ms)
    }
}

/// One player's clock during a game.
#[derive(Clone, Debug)]
pub struct Clock {
    limit: Limit,
    remaining_ms: u64,
    period: usize,
    moves_in_period: u32,
}

/// A clock ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged;

impl Clock {
    /// A clock at the start of a game under `tc`.
    pub fn new(tc: &TimeControl) -> Clock {
        let remaining_ms = match &tc.limit {
            Limit::Infinite => 0,
            Limit::PerMove(ms) | Limit::Hourglass(ms) => *ms,
            Limit::Periods(ps) => ps[0].base_ms,
        };
        Clock { limit: tc.limit.clone(), remaining_ms, period: 0, moves_in_period: 0 }
    }

    fn current(&self) -> Option<&Period> {
        match &self.limit {
            Limit::Periods(ps) => Some(&ps[self.period.min(ps.len() - 1)]),
            _ => None,
        }
    }

    /// The time this player may use on the next move before flagging (plus
    /// any delay, which is free); `None` when unlimited.
    pub fn budget_ms(&self) -> Option<u64> {
        match (&self.limit, self.current()) {
            (Limit::Infinite, _) => None,
            (_, Some(Period { bonus: Bonus::Delay(d) | Bonus::Byoyomi(d), .. })) => Some(self.remaining_ms + d),
            _ => Some(self.remaining_ms),
        }
    }

    /// What to tell the player about time for its next move.
    pub fn turn_time(&self) -> TurnTime {
        match &self.limit {
            Limit::Infinite => TurnTime::default(),
            Limit::PerMove(ms) => TurnTime { movetime_ms: Some(*ms), ..TurnTime::default() },
            Limit::Hourglass(_) => TurnTime { remaining_ms: Some(self.remaining_ms), ..TurnTime::default() },
            Limit::Periods(_) => {
                let p = self.current().expect("periods");
                TurnTime {
                    remaining_ms: Some(self.remaining_ms),
                    increment_ms: if let Bonus::Increment(i) = p.bonus { i } else { 0 },
                    moves_to_go: p.moves.map(|m| m - self.moves_in_period),
                    movetime_ms: None,
                    byoyomi_ms: if let Bonus::Byoyomi(b) = p.bonus { b } else { 0 },
                }
            }
        }
    }

    /// Charges `used_ms` for a move; `margin_ms` of overrun is tolerated.
    /// Returns the time to add to the opponent (hourglass), or `Flagged`.
    pub fn charge(&mut self, used_ms: u64, margin_ms: u64) -> Result<u64, Flagged> {
        match self.limit.clone() {
            Limit::Infinite => Ok(0),
            Limit::PerMove(ms) => {
                if used_ms > ms + margin_ms {
                    Err(Flagged)
                } else {
                    Ok(0)
                }
            }
            Limit::Hourglass(_) => {
                if used_ms > self.remaining_ms + margin_ms {
                    return Err(Flagged);
                }
                self.remaining_ms = self.remaining_ms.saturating_sub(used_ms);
                Ok(used_ms)
            }
            Limit::Periods(ps) => {
                let p = ps[self.period.min(ps.len() - 1)];
                let charged = match p.bonus {
                    Bonus::Delay(d) => used_ms.saturating_sub(d),
                    // Past the main time, the byoyomi is spent, never kept.
                    Bonus::Byoyomi(b) if used_ms > self.remaining_ms => {
                        if used_ms - self.remaining_ms > b + margin_ms {
                            return Err(Flagged);
                        }
                        self.remaining_ms
                    }
                    _ => used_ms,
                };
                if charged > self.remaining_ms + margin_ms {
                    return Err(Flagged);
                }
                self.remaining_ms = self.remaining_ms.saturating_sub(charged);
                self.remaining_ms += match p.bonus {
                    Bonus::Increment(i) => i,
                    Bonus::Bronstein(b) => used_ms.min(b),
                    _ => 0,
                };
                self.moves_in_period += 1;
                if p.moves == Some(self.moves_in_period) {
                    self.period += 1;
                    self.moves_in_period = 0;
                    self.remaining_ms += ps[self.period.min(ps.len() - 1)].base_ms;
                }
                Ok(0)
            }
        }
    }

    /// Adds time (the opponent's use, under hourglass).
    pub fn credit(&mut self, ms: u64) {
        self.remaining_ms += ms;
    }

    /// Time left, for records (`[%clk]`); `None` when unlimited.
    pub fn remaining_ms(&self) -> Option<u64> {
        match self.limit {
            Limit::Infinite => None,
            _ => Some(self.remaining_ms),
        }
    }
}

#[cfg(test)]
mod tests;
