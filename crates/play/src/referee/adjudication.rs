//! Score adjudication, as cutechess-cli and fastchess do it, from the scores
//! engines report with their moves (centipawns from the mover's side; mate
//! scores as ±30000 less the distance):
//!
//! - resign (`movecount=3,score=600[,twosided]`): a player whose own score is
//!   at most -score on each of its last `movecount` moves loses; with
//!   `twosided` its opponent's last `movecount` scores must agree (at least
//!   +score each).
//! - draw (`movenumber=40,movecount=8,score=10`): from full move `movenumber`
//!   on, the game is drawn when every player's last `movecount` scores lie
//!   within ±score.
//!
//! A move without a score (a player that reports none) breaks a streak.
//!
//! With `plugin`, the variant's own adjudication is asked too (an endgame
//! database, say): see [`crate::referee`] and docs/ABI.md's `adjudicate`.
//! With `tablebases`, the plugin is asked to probe them (chess: Syzygy, as
//! fastchess's `-tb`).

use serde::{Deserialize, Serialize};

use super::PlyRecord;
use arbiter_core::model::Seat;

/// The resign rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignRule {
    /// Consecutive own moves at or below -score.
    pub movecount: u32,
    /// The score, in centipawns (or the variant's unit).
    pub score: i32,
    /// Whether the opponent's scores must agree.
    pub twosided: bool,
}

/// The draw rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    /// The full move from which it applies.
    pub movenumber: u32,
    /// Consecutive moves of every player within ±score.
    pub movecount: u32,
    /// The score, in centipawns (or the variant's unit).
    pub score: i32,
}

/// Endgame tablebases the variant's plugin probes to end a game (its
/// `adjudicate` call, given them as `{"tablebases": {...}}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tablebases {
    /// Folders of table files, separated by `:`.
    pub path: String,
    /// Probe only positions with at most this many pieces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<u32>,
    /// Wins and losses the fifty-move rule would save are adjudicated as such.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore50: bool,
    /// Which verdicts end a game: `both` (the default), `win-loss` or `draw`.
    #[serde(default = "both")]
    pub results: String,
}

fn both() -> String {
    "both".into()
}

impl Tablebases {
    /// Checks the settings, and that every folder of `path` exists and
    /// holds table files (`.rtbw`), so that a mistyped path is named before
    /// any game rather than in each.
    pub fn validate(&self) -> Result<(), AdjudicationError> {
        if !["both", "win-loss", "draw"].contains(&self.results.as_str()) {
            return Err(AdjudicationError::TablebaseResults(self.results.clone()));
        }
        if self.pieces.is_some_and(|n| n < 3) {
            return Err(AdjudicationError::TablebasePieces);
        }
        for folder in self.path.split(':') {
            let entries = std::fs::read_dir(folder)
                .map_err(|reason| AdjudicationError::TablebaseFolder { folder: folder.into(), reason })?;
            let tables = entries.filter_map(Result::ok).any(|e| e.path().extension().is_some_and(|x| x == "rtbw"));
            if !tables {
                return Err(AdjudicationError::NoTables(folder.into()));
            }
        }
        Ok(())
    }

    /// Asks `variant`'s plugin to check its table files before any game is
    /// played (its `check_tablebases` call), so that a damaged file is one
    /// error naming it rather than a fault in every game. A plugin that
    /// probes no tables passes: its games play on.
    pub fn check_with(
        &self,
        variant: &arbiter_api::host::VariantHandle,
        options: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), arbiter_api::Error> {
        let mut game = variant.new_game(options)?;
        match game.call_json("check_tablebases", &serde_json::json!({ "tablebases": self })) {
            Err(e) if e.kind == arbiter_api::ErrorKind::Unsupported => Ok(()),
            Err(e) => Err(e),
            Ok(_) => Ok(()),
        }
    }
}

/// Score adjudication for a game: none by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// The resign rule, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignRule>,
    /// The draw rule, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawRule>,
    /// Whether the variant's plugin is asked after each ply whether it can
    /// adjudicate (its `adjudicate` call, see docs/ABI.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plugin: bool,
    /// Tablebases the plugin is asked to probe after each ply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tablebases: Option<Tablebases>,
}

/// What adjudication decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Adjudged {
    /// `loser` is lost by the resign rule; the text says why.
    Resign {
        /// The player who loses.
        loser: Seat,
        /// Why, for the record.
        reason: String,
    },
    /// Drawn by the draw rule; the text says why.
    Draw(String),
}

/// A malformed adjudication rule or tablebase setting.
#[derive(Debug, thiserror::Error)]
pub enum AdjudicationError {
    /// A rule names a setting it does not have.
    #[error("--{rule} '{text}': unknown setting '{name}' (known: {known})")]
    UnknownSetting {
        /// `resign` or `draw`.
        rule: &'static str,
        /// The rule as given.
        text: String,
        /// The setting.
        name: String,
        /// The rule's settings.
        known: String,
    },
    /// A setting's value is no whole number in range.
    #[error("--{rule} '{text}': {name} must be a whole number from 0 to 1000000")]
    NotANumber {
        /// `resign` or `draw`.
        rule: &'static str,
        /// The rule as given.
        text: String,
        /// The setting.
        name: String,
    },
    /// A setting without the value it needs, or with one it cannot take.
    #[error("--{rule} '{text}': {name} needs a value (movecount at least 1)")]
    NeedsValue {
        /// `resign` or `draw`.
        rule: &'static str,
        /// The rule as given.
        text: String,
        /// The setting.
        name: String,
    },
    /// Tablebase results other than the three kinds.
    #[error("tablebases: results '{0}' must be both, win-loss or draw")]
    TablebaseResults(String),
    /// Tablebases of fewer than three pieces.
    #[error("tablebases: pieces must be 3 or more")]
    TablebasePieces,
    /// A tablebase folder that cannot be read.
    #[error("tablebases: {folder}: {reason}")]
    TablebaseFolder {
        /// The folder.
        folder: String,
        /// What the OS said.
        reason: std::io::Error,
    },
    /// A tablebase folder without WDL tables.
    #[error("tablebases: {0} holds no Syzygy WDL tables (.rtbw files)")]
    NoTables(String),
}

/// `name=value` pairs of a rule, each name known and each value a number
/// (flags without a value are `None`).
fn pairs<'a>(
    rule: &'static str,
    text: &'a str,
    known: &[&str],
) -> Result<Vec<(&'a str, Option<i64>)>, AdjudicationError> {
    text.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (name, value) = match p.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v.trim())),
                None => (p.trim(), None),
            };
            if !known.contains(&name) {
                let known = known.join(", ");
                return Err(AdjudicationError::UnknownSetting { rule, text: text.into(), name: name.into(), known });
            }
            let value = value
                .map(|v| v.parse::<i64>().ok().filter(|n| (0..=1_000_000).contains(n)))
                .map(|v| v.ok_or_else(|| AdjudicationError::NotANumber { rule, text: text.into(), name: name.into() }))
                .transpose()?;
            Ok((name, value))
        })
        .collect()
}

impl ResignRule {
    /// Parses `movecount=N,score=CP[,twosided]`.
    pub fn parse(text: &str) -> Result<ResignRule, AdjudicationError> {
        let mut rule = ResignRule { movecount: 3, score: 600, twosided: false };
        for (name, value) in pairs("resign", text, &["movecount", "score", "twosided"])? {
            match (name, value) {
                ("movecount", Some(v)) if v >= 1 => rule.movecount = v as u32,
                ("score", Some(v)) => rule.score = v as i32,
                ("twosided", None) => rule.twosided = true,
                _ => {
                    return Err(AdjudicationError::NeedsValue { rule: "resign", text: text.into(), name: name.into() })
                }
            }
        }
        Ok(rule)
    }
}

impl DrawRule {
    /// Parses `movenumber=N,movecount=N,score=CP`.
    pub fn parse(text: &str) -> Result<DrawRule, AdjudicationError> {
        let mut rule = DrawRule { movenumber: 40, movecount: 8, score: 10 };
        for (name, value) in pairs("draw", text, &["movenumber", "movecount", "score"])? {
            match (name, value) {
                ("movenumber", Some(v)) => rule.movenumber = v as u32,
                ("movecount", Some(v)) if v >= 1 => rule.movecount = v as u32,
                ("score", Some(v)) => rule.score = v as i32,
                _ => return Err(AdjudicationError::NeedsValue { rule: "draw", text: text.into(), name: name.into() }),
            }
        }
        Ok(rule)
    }
}

/// The last `n` scores `player` reported, newest first; `None` if it made
/// fewer than `n` moves or one of them carried no score.
fn last_scores(plies: &[PlyRecord], player: Seat, n: u32) -> Option<Vec<i32>> {
    let scores: Vec<Option<i32>> =
        plies.iter().rev().filter(|p| p.player == player).take(n as usize).map(|p| p.score).collect();
    (scores.len() == n as usize).then(|| scores.into_iter().collect::<Option<Vec<i32>>>()).flatten()
}

impl Adjudication {
    /// Whether either rule ends the game after `plies` (two players).
    pub fn judge(&self, plies: &[PlyRecord]) -> Option<Adjudged> {
        let last = plies.last()?;
        if let Some(rule) = self.resign {
            let (mover, other) = (last.player, last.player.opponent());
            let lost = last_scores(plies, mover, rule.movecount).is_some_and(|s| s.iter().all(|&v| v <= -rule.score));
            let agreed = !rule.twosided
                || last_scores(plies, other, rule.movecount).is_some_and(|s| s.iter().all(|&v| v >= rule.score));
            if lost && agreed {
                return Some(Adjudged::Resign {
                    loser: mover,
                    reason: format!("resign rule: score -{} or worse for {} moves", rule.score, rule.movecount),
                });
            }
        }
        if let Some(rule) = self.draw {
            let full_moves = plies.len() as u32 / 2;
            let quiet = |p: Seat| {
                last_scores(plies, p, rule.movecount).is_some_and(|s| s.iter().all(|v| v.abs() <= rule.score))
            };
            if full_moves >= rule.movenumber && quiet(Seat::FIRST) && quiet(Seat::SECOND) {
                return Some(Adjudged::Draw(format!(
                    "draw rule: scores within {} for {} moves from move {}",
                    rule.score, rule.movecount, rule.movenumber
                )));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plies(scores: &[(u32, Option<i32>)]) -> Vec<PlyRecord> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &(player, score))| PlyRecord {
                player: Seat::new(player),
                mv: i as u64,
                text: String::new(),
                coordinates: None,
                used_us: 0,
                reported_ms: None,
                clock_ms: None,
                score,
                depth: None,
                nodes: None,
                seldepth: None,
                pv: None,
                ponder_hit: None,
            })
            .collect()
    }

    #[test]
    fn rules_parse_as_cutechess_writes_them_and_bad_ones_are_named() {
        assert_eq!(
            ResignRule::parse("movecount=5,score=900,twosided").unwrap(),
            ResignRule { movecount: 5, score: 900, twosided: true }
        );
        assert_eq!(
            DrawRule::parse("movenumber=34,movecount=6,score=5").unwrap(),
            DrawRule { movenumber: 34, movecount: 6, score: 5 }
        );
        assert!(ResignRule::parse("moves=3").unwrap_err().to_string().contains("unknown setting 'moves'"));
        assert!(DrawRule::parse("score=x").unwrap_err().to_string().contains("score must be a whole number"));
        assert!(ResignRule::parse("movecount=0").unwrap_err().to_string().contains("movecount at least 1"));
    }

    #[test]
    fn a_player_losing_by_the_margin_for_its_last_moves_resigns() {
        let rule = Adjudication {
            resign: Some(ResignRule { movecount: 3, score: 600, twosided: false }),
            draw: None,
            ..Adjudication::default()
        };
        let mut game = vec![(0, Some(-700)), (1, Some(650)), (0, Some(-650)), (1, Some(700))];
        assert_eq!(rule.judge(&plies(&game)), None, "two bad scores are not three");
        game.push((0, Some(-600)));
        assert!(matches!(rule.judge(&plies(&game)), Some(Adjudged::Resign { loser: Seat::FIRST, .. })));
        game.pop();
        game.push((0, None));
        assert_eq!(rule.judge(&plies(&game)), None, "a move without a score breaks the streak");
        let twosided = Adjudication {
            resign: Some(ResignRule { movecount: 2, score: 600, twosided: true }),
            draw: None,
            ..Adjudication::default()
        };
        assert_eq!(twosided.judge(&plies(&[(0, Some(-700)), (1, Some(100)), (0, Some(-700))])), None);
        let agreed = plies(&[(0, Some(-700)), (1, Some(700)), (0, Some(-700)), (1, Some(700))]);
        assert_eq!(twosided.judge(&agreed), None, "the mover, not its opponent, is judged");
        let agreed = plies(&[(1, Some(700)), (0, Some(-700)), (1, Some(700)), (0, Some(-700))]);
        assert!(matches!(twosided.judge(&agreed), Some(Adjudged::Resign { loser: Seat::FIRST, .. })));
    }

    #[test]
    fn quiet_scores_from_the_move_number_on_are_a_draw() {
        let rule = Adjudication {
            resign: None,
            draw: Some(DrawRule { movenumber: 2, movecount: 2, score: 10 }),
            ..Adjudication::default()
        };
        let quiet = [(0, Some(5)), (1, Some(-3)), (0, Some(0)), (1, Some(10))];
        assert!(matches!(rule.judge(&plies(&quiet)), Some(Adjudged::Draw(_))));
        assert_eq!(rule.judge(&plies(&quiet[..3])), None, "before move 2 is complete");
        let loud = [(0, Some(5)), (1, Some(-3)), (0, Some(40)), (1, Some(10))];
        assert_eq!(rule.judge(&plies(&loud)), None);
    }
    #[test]
    fn tablebase_settings_are_checked_before_any_game() {
        let dir = arbiter_testing::temp_folder("tb-check");
        let tb = |results: &str, pieces| Tablebases {
            path: dir.display().to_string(),
            pieces,
            ignore50: false,
            results: results.into(),
        };
        assert!(tb("both", None).validate().unwrap_err().to_string().contains("holds no Syzygy WDL tables"));
        std::fs::write(dir.join("KQvK.rtbw"), b"").unwrap();
        assert!(tb("both", Some(5)).validate().is_ok());
        assert!(tb("sometimes", None).validate().unwrap_err().to_string().contains("must be both, win-loss or draw"));
        assert!(tb("draw", Some(2)).validate().unwrap_err().to_string().contains("pieces must be 3 or more"));
        let missing = Tablebases { path: format!("{}:/no/such/folder", dir.display()), ..tb("both", None) };
        assert!(missing.validate().unwrap_err().to_string().starts_with("tablebases: /no/such/folder: "));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
