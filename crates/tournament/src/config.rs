//! A tournament's definition: the TOML file `arbiter tournament --config`
//! reads, equivalent to its flags, and what the store keeps (as JSON) so that
//! `--resume` plays exactly the same schedule.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::pairing::Format;

/// Order in which openings are used.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum OpeningOrder {
    /// In file order, wrapping around.
    #[default]
    Sequential,
    /// Shuffled once with the tournament's seed.
    Random,
}

/// A start-position file for one variant.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OpeningConfig {
    /// One position per line in the variant's notation (FEN/EPD for chess,
    /// PDN FEN for draughts); `#` starts a comment line.
    pub file: String,
    /// Sequential or random.
    #[serde(default)]
    pub order: OpeningOrder,
    /// From a PGN/PDN book, the plies of each game played to reach its
    /// opening (default: all of them).
    #[serde(default)]
    pub plies: Option<u32>,
    /// The opening to begin with, counted from 1 (fastchess's `start=N`);
    /// those before it follow the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u32>,
}

/// One participant.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlayerConfig {
    /// Name in standings and records.
    pub name: String,
    /// Player spec (`random`, `mcts:iterations=200`, `uci:stockfish`...).
    pub spec: String,
    /// Its own time control, overriding the tournament's.
    #[serde(default)]
    pub tc: Option<String>,
}

fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}
fn yes() -> bool {
    true
}
/// The overrun tolerated before a flag falls, in ms, unless configured.
pub const DEFAULT_MARGIN_MS: u64 = 50;
/// The silence tolerated beyond a player's time budget before a game is
/// recorded as "plugin hung", in seconds, unless configured.
pub const DEFAULT_WATCHDOG_SECS: u64 = 30;

/// The most rounds (cycles, Swiss rounds) a tournament may have.
pub const MAX_ROUNDS: u64 = 10_000;
/// The most games one pairing may play per variant and round.
pub const MAX_GAMES_PER_PAIRING: u64 = 100_000;
/// The most players one tournament may have.
pub const MAX_PLAYERS: u64 = 1_000;
/// The most games played at once.
pub const MAX_CONCURRENCY: u64 = 1_024;
/// The longest watchdog, in seconds (a day).
pub const MAX_WATCHDOG_SECS: u64 = 86_400;
/// The largest overrun margin, in ms (an hour).
pub const MAX_MARGIN_MS: u64 = 3_600_000;
/// The most games a tournament may plan per variant.
pub const MAX_GAMES: u64 = 10_000_000;

fn margin() -> u64 {
    DEFAULT_MARGIN_MS
}
fn watchdog() -> u64 {
    DEFAULT_WATCHDOG_SECS
}
fn all() -> Vec<String> {
    vec!["all".into()]
}
fn default_name() -> String {
    "tournament".into()
}

/// A whole tournament definition.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TournamentConfig {
    /// Event name in records.
    #[serde(default = "default_name")]
    pub name: String,
    /// Pairing system.
    #[serde(default)]
    pub format: Format,
    /// Round-robin and gauntlet cycles, or Swiss rounds.
    #[serde(default = "one")]
    pub rounds: u32,
    /// Games each pairing plays per variant; with 2 or more, games go in pairs
    /// (one opening, colours swapped).
    #[serde(default = "two")]
    pub games_per_pairing: u32,
    /// Ask each variant's plugin after every ply whether it can adjudicate
    /// the game (its `adjudicate` call).
    #[serde(default)]
    pub plugin_adjudication: bool,
    /// Endgame tablebases each variant's plugin probes to end games
    /// (`[tablebases] path = "..."`; chess: Syzygy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tablebases: Option<arbiter_play::referee::adjudication::Tablebases>,
    /// Pin each game slot (its games and their engines) to a CPU of its
    /// own, as fastchess's `-use-affinity` (Linux).
    #[serde(default)]
    pub affinity: bool,
    /// No colour-swapped pairs: every game of a pairing with its first-named
    /// entrant first, each on the next opening (cutechess-cli's `-noswap`).
    #[serde(default)]
    pub noswap: bool,
    /// The second-named entrant first in each pair's first game (with
    /// `noswap`, in every game), as cutechess-cli's `-reverse`.
    #[serde(default)]
    pub reverse: bool,
    /// Each pairing plays the openings from the first, in order (each on a
    /// colour-swapped pair), so that in a gauntlet every opponent meets the
    /// entrant under test on the same openings; by default each pair takes
    /// the variant's next opening, whoever plays it.
    #[serde(default)]
    pub fair_openings: bool,
    /// Variant ids, or `["all"]` for every installed variant.
    #[serde(default = "all")]
    pub variants: Vec<String>,
    /// The participants, in seeding order.
    pub players: Vec<PlayerConfig>,
    /// Time control for everyone (default: each variant's own).
    #[serde(default)]
    pub tc: Option<String>,
    /// Games played at once.
    #[serde(default = "one_usize")]
    pub concurrency: usize,
    /// Seed of the schedule, the openings' order and seeded players.
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Adjudicate a draw after this many plies.
    #[serde(default)]
    pub max_plies: Option<u32>,
    /// Claim claimable draws at once.
    #[serde(default = "yes")]
    pub claim_draws: bool,
    /// Overrun tolerated before a flag falls, in ms.
    #[serde(default = "margin")]
    pub margin_ms: u64,
    /// Resign adjudication, as cutechess-cli writes it (`movecount=3,score=600[,twosided]`).
    #[serde(default)]
    pub resign: Option<String>,
    /// Draw adjudication (`movenumber=40,movecount=8,score=10`).
    #[serde(default)]
    pub draw: Option<String>,
    /// Play games on threads of this process instead of worker processes
    /// (faster, but a crashing plugin takes the tournament down).
    #[serde(default)]
    pub in_process: bool,
    /// Seconds a worker may stay silent beyond a move's time budget before
    /// the game is declared hung.
    #[serde(default = "watchdog")]
    pub watchdog_secs: u64,
    /// Opening files by variant id.
    #[serde(default)]
    pub openings: BTreeMap<String, OpeningConfig>,
    /// One start position by variant id, for every game of a variant
    /// without an opening file (`arbiter match --position`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub start: BTreeMap<String, String>,
    /// Variant options by variant id.
    #[serde(default)]
    pub options: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// A stopping rule: the games of two players, in colour-swapped pairs,
    /// stop when this SPRT decides (`arbiter sprt` is such a tournament).
    #[serde(default)]
    pub sprt: Option<arbiter_core::stats::sprt::Sprt>,
    /// SPSA tuning (`arbiter tune`): the two players are one player at two
    /// points, each round a colour-swapped pair played at values perturbed
    /// around the parameters' current estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<arbiter_core::stats::spsa::Spsa>,
}

fn one_usize() -> usize {
    1
}
fn one_u64() -> u64 {
    1
}

/// A definition that cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The TOML does not parse or has unknown fields.
    #[error("tournament config {path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The parser's message, first line.
        message: String,
    },
    /// A value that makes no tournament.
    #[error("tournament config: {0}")]
    Invalid(String),
    /// A malformed adjudication rule or tablebase setting.
    #[error("tournament config: {0}")]
    Adjudication(#[from] arbiter_play::referee::adjudication::AdjudicationError),
}

impl TournamentConfig {
    /// The most games a variant can have: each round plays at most every
    /// pairing (a round-robin's rounds are the largest).
    pub fn most_games_per_variant(&self) -> u64 {
        let n = self.players.len() as u64;
        self.rounds as u64 * self.games_per_pairing as u64 * n * n.saturating_sub(1) / 2
    }

    /// Reads a TOML definition.
    pub fn from_toml(path: &str, text: &str) -> Result<TournamentConfig, ConfigError> {
        let cfg: TournamentConfig = toml::from_str(text)
            .map_err(|e| ConfigError::Parse { path: path.to_string(), message: e.message().to_string() })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks what the types cannot.
    /// The score adjudication its `resign` and `draw` rules give.
    pub fn adjudication(&self) -> Result<arbiter_play::referee::Adjudication, ConfigError> {
        use arbiter_play::referee::adjudication::{DrawRule, ResignRule};
        Ok(arbiter_play::referee::Adjudication {
            resign: self.resign.as_deref().map(ResignRule::parse).transpose()?,
            draw: self.draw.as_deref().map(DrawRule::parse).transpose()?,
            plugin: self.plugin_adjudication,
            tablebases: match &self.tablebases {
                Some(tb) => {
                    tb.validate()?;
                    Some(tb.clone())
                }
                None => None,
            },
        })
    }

    /// Refuses a definition that makes no tournament, or one beyond the
    /// limits, naming what is wrong.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        self.adjudication()?;
        if self.players.len() < 2 {
            return bad(format!("needs at least 2 players, has {}", self.players.len()));
        }
        let mut names = std::collections::HashSet::new();
        for p in &self.players {
            if !names.insert(&p.name) {
                return bad(format!("two players are named '{}'", p.name));
            }
        }
        let within = |name: &str, value: u64, max: u64| -> Result<(), ConfigError> {
            if value == 0 || value > max {
                return Err(ConfigError::Invalid(format!("{name} is {value}: it must be from 1 to {max}")));
            }
            Ok(())
        };
        within("rounds", self.rounds.into(), MAX_ROUNDS)?;
        within("games_per_pairing", self.games_per_pairing.into(), MAX_GAMES_PER_PAIRING)?;
        within("the number of players", self.players.len() as u64, MAX_PLAYERS)?;
        within("concurrency", self.concurrency as u64, MAX_CONCURRENCY)?;
        within("watchdog_secs", self.watchdog_secs, MAX_WATCHDOG_SECS)?;
        if self.margin_ms > MAX_MARGIN_MS {
            return bad(format!("margin_ms is {}: it must be at most {MAX_MARGIN_MS}", self.margin_ms));
        }
        let (n, games) = (self.players.len(), self.most_games_per_variant());
        if games > MAX_GAMES {
            return bad(format!(
                "{games} games per variant ({} rounds of {n} players, {} games per pairing): at most {MAX_GAMES}",
                self.rounds, self.games_per_pairing
            ));
        }
        if let Some(id) = self.start.keys().find(|id| self.openings.contains_key(*id)) {
            return bad(format!("variant '{id}' has both a start position and an opening file: give one"));
        }
        if self.variants.is_empty() {
            return bad("no variants listed (use [\"all\"] for every installed one)".into());
        }
        if let Some(s) = &self.sprt {
            arbiter_core::stats::sprt::Sprt::new(s.elo0, s.elo1, s.alpha, s.beta)
                .and_then(|t| t.counting(s.model, s.pentanomial))
                .map_err(|e| ConfigError::Invalid(e.to_string()))?;
            if self.noswap && s.pentanomial {
                return bad("an SPRT without colour-swapped pairs (noswap) counts single games: use --trinomial".into());
            }
            if self.players.len() != 2
                || self.format != Format::default()
                || self.games_per_pairing != 2
                || self.variants.len() != 1
                || self.variants[0] == "all"
            {
                return bad(
                    "an SPRT is a round-robin of 2 players in one variant, 2 games per pairing (a colour-swapped pair)"
                        .into(),
                );
            }
        }
        if let Some(tune) = &self.tune {
            tune.validate().map_err(|e| ConfigError::Invalid(format!("tune: {e}")))?;
            if self.players.len() != 2
                || self.players[0].spec != self.players[1].spec
                || self.format != Format::default()
                || self.games_per_pairing != 2
                || self.noswap
                || self.sprt.is_some()
                || self.variants.len() != 1
                || self.variants[0] == "all"
            {
                return bad(
                    "a tune is one player seated twice (2 players of one spec) in one variant, a round-robin of \
                     colour-swapped pairs (2 games per pairing), without an SPRT"
                        .into(),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{ConfigError, Format, TournamentConfig};

    const TWO: &str = "[[players]]\nname = \"a\"\nspec = \"random\"\n[[players]]\nname = \"b\"\nspec = \"mcts\"\n";

    fn parsed(text: &str) -> Result<TournamentConfig, ConfigError> {
        TournamentConfig::from_toml("t.toml", text)
    }

    fn refusal(text: &str) -> String {
        parsed(text).err().map(|e| e.to_string()).unwrap_or_else(|| panic!("accepted:\n{text}"))
    }

    #[test]
    fn a_definition_of_players_alone_is_a_round_robin_of_every_variant_with_colour_swapped_pairs() {
        let c = parsed(TWO).unwrap();
        assert_eq!(
            (c.format, c.rounds, c.games_per_pairing, c.variants.clone()),
            (Format::default(), 1, 2, vec!["all".into()])
        );
        assert_eq!((c.concurrency, c.seed, c.claim_draws, c.noswap, c.reverse), (1, 1, true, false, false));
        assert_eq!(c.players.iter().map(|p| p.spec.as_str()).collect::<Vec<_>>(), ["random", "mcts"]);
    }

    #[test]
    fn a_key_it_does_not_know_or_a_value_of_the_wrong_kind_is_named_with_the_file() {
        let e = refusal(&format!("rouns = 2\n{TWO}"));
        assert!(e.starts_with("tournament config t.toml: unknown field `rouns`"), "{e}");
        let e = refusal(&format!("rounds = \"two\"\n{TWO}"));
        assert!(e.starts_with("tournament config t.toml: invalid type"), "{e}");
        let e = refusal(&format!("format = \"ladder\"\n{TWO}"));
        assert!(e.contains("unknown format 'ladder'"), "{e}");
    }

    #[test]
    fn a_definition_that_makes_no_tournament_is_refused_saying_why() {
        for (text, says) in [
            ("[[players]]\nname = \"a\"\nspec = \"random\"\n".to_string(), "needs at least 2 players, has 1"),
            (TWO.replace("\"b\"", "\"a\""), "two players are named 'a'"),
            (format!("rounds = 0\n{TWO}"), "rounds is 0: it must be from 1 to"),
            (format!("games_per_pairing = 100001\n{TWO}"), "games_per_pairing is 100001"),
            (format!("rounds = 10000\ngames_per_pairing = 10000\n{TWO}"), "games per variant"),
            (format!("concurrency = 0\n{TWO}"), "concurrency is 0"),
            (format!("margin_ms = 99999999\n{TWO}"), "margin_ms is 99999999: it must be at most"),
            (format!("variants = []\n{TWO}"), "no variants listed"),
            (format!("resign = \"movecount=0\"\n{TWO}"), "resign"),
            (format!("draw = \"nonsense=3\"\n{TWO}"), "draw"),
            (
                format!("[start]\nchess = \"x\"\n[openings.chess]\nfile = \"o.epd\"\n{TWO}"),
                "variant 'chess' has both a start position and an opening file",
            ),
        ] {
            let e = refusal(&text);
            assert!(e.starts_with("tournament config: ") && e.contains(says), "{says}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }

    #[test]
    fn an_sprt_is_two_players_in_one_variant_playing_colour_swapped_pairs() {
        let sprt = "[sprt]\nelo0 = 0.0\nelo1 = 5.0\nalpha = 0.05\nbeta = 0.05\n";
        assert!(parsed(&format!("variants = [\"chess\"]\n{TWO}{sprt}")).is_ok());
        for (head, says) in [
            ("variants = [\"chess\", \"xiangqi\"]", "an SPRT is a round-robin of 2 players in one variant"),
            ("variants = [\"all\"]", "an SPRT is a round-robin"),
            ("variants = [\"chess\"]\nformat = \"swiss\"", "an SPRT is a round-robin"),
            ("variants = [\"chess\"]\nnoswap = true", "without colour-swapped pairs (noswap) counts single games"),
        ] {
            let e = refusal(&format!("{head}\n{TWO}{sprt}"));
            assert!(e.contains(says), "{head}: {e}");
        }
        let e = refusal(&format!(
            "variants = [\"chess\"]\n{TWO}[sprt]\nelo0 = 5.0\nelo1 = 0.0\nalpha = 0.05\nbeta = 0.05\n"
        ));
        assert!(e.starts_with("tournament config: "), "{e}");
    }

    #[test]
    fn a_tune_is_one_spec_seated_twice_in_one_variant_playing_pairs() {
        let tune =
            "[tune]\nparams = [{ name = \"c\", type = \"float\", start = 1.0, min = 0.0, max = 4.0, c_end = 0.2, \
                    r_end = 0.05 }]\n";
        let same = "[[players]]\nname = \"a\"\nspec = \"mcts\"\n[[players]]\nname = \"b\"\nspec = \"mcts\"\n";
        let c = parsed(&format!("variants = [\"chess\"]\n{same}{tune}")).unwrap();
        let spsa = c.tune.unwrap();
        assert_eq!((spsa.in_flight, spsa.a_ratio, spsa.params.len()), (1, 0.1, 1), "the defaults");
        for (head, players, says) in [
            ("variants = [\"chess\"]", TWO, "a tune is one player seated twice"),
            ("variants = [\"all\"]", same, "a tune is one player seated twice"),
            ("variants = [\"chess\"]\ngames_per_pairing = 4", same, "a tune is one player seated twice"),
            ("variants = [\"chess\"]\nnoswap = true", same, "a tune is one player seated twice"),
        ] {
            let e = refusal(&format!("{head}\n{players}{tune}"));
            assert!(e.contains(says), "{head}: {e}");
        }
        let e = refusal(&format!("variants = [\"chess\"]\n{same}{}", tune.replace("start = 1.0", "start = 5.0")));
        assert!(e.starts_with("tournament config: tune: parameter c: start 5 must lie within"), "{e}");
        let e =
            refusal(&format!("variants = [\"chess\"]\n{same}{}", tune.replace("[tune]\n", "[tune]\nin_flight = 0\n")));
        assert!(e.contains("in_flight 0 must be from 1 to 1024"), "{e}");
    }
}
