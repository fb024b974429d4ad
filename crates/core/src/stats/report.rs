//! A head-to-head report in the shape fastchess prints every
//! `-ratinginterval` games and at the end, so that an engine developer reads
//! arbiter's output as they read fastchess's: Elo and normalized Elo with
//! their 95% errors (from the pentanomial counts when games go in pairs,
//! else from single games), LOS, draw and pairs ratios, the game counts, the
//! pentanomial counts and, for an SPRT, the LLR with its bounds and
//! hypotheses.

use super::score::{elo_from_score, Interval};
use super::sprt::Pentanomial;
use super::Score;

/// `800 / ln 10`: normalized Elo per standard deviation of score.
const NELO_SCALE: f64 = 347.435_585_522_101_34;

/// Where an SPRT stands, for its line of the report.
#[derive(Clone, Copy, Debug)]
pub struct SprtLine {
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Its lower and upper bounds.
    pub bounds: (f64, f64),
    /// The hypotheses' Elo.
    pub elo: (f64, f64),
}

/// The report for `first` against `second`; `about` names the conditions
/// (time control, variant). `pairs` are counted when games go in pairs.
pub fn head_to_head(
    first: &str,
    second: &str,
    about: &str,
    score: &Score,
    pairs: Option<&Pentanomial>,
    sprt: Option<SprtLine>,
) -> String {
    let rule = "-".repeat(50);
    let mut lines = vec![rule.clone(), format!("Results of {first} vs {second} ({about}):")];
    let estimate = match pairs.filter(|p| p.pairs() > 0) {
        Some(p) => Estimate::of_pairs(p),
        None => Estimate::of_games(score),
    };
    let (elo, nelo, los) = match &estimate {
        Some(e) => (
            format!("{:.2} +/- {:.2}", e.elo, e.elo_error),
            format!("{:.2} +/- {:.2}", e.nelo, e.nelo_error),
            format!("{:.2} %", e.los * 100.0),
        ),
        None => ("n/a".to_string(), "n/a".to_string(), "n/a".to_string()),
    };
    lines.push(format!("Elo: {elo}, nElo: {nelo}"));
    match pairs {
        Some(p) => {
            let c = p.counts;
            let draws = if p.pairs() == 0 { 0.0 } else { c[2] as f64 / p.pairs() as f64 * 100.0 };
            let ratio = match c[0] + c[1] {
                0 => "inf".to_string(),
                lost => format!("{:.2}", (c[3] + c[4]) as f64 / lost as f64),
            };
            lines.push(format!("LOS: {los}, DrawRatio: {draws:.2} %, PairsRatio: {ratio}"));
        }
        None => lines.push(format!("LOS: {los}, DrawRatio: {:.2} %", score.draw_ratio() * 100.0)),
    }
    lines.push(format!(
        "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)",
        score.games(),
        score.wins,
        score.losses,
        score.draws,
        score.points(),
        score.ratio() * 100.0
    ));
    if let Some(p) = pairs {
        let c = p.counts;
        lines.push(format!("Ptnml(0-2): [{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4]));
    }
    if let Some(s) = sprt {
        lines
            .push(format!("LLR: {:.2} ({:.2}, {:.2}) [{:.2}, {:.2}]", s.llr, s.bounds.0, s.bounds.1, s.elo.0, s.elo.1));
    }
    lines.push(rule);
    lines.join("\n")
}

/// Elo, normalized Elo and LOS with their 95% errors.
struct Estimate {
    elo: f64,
    elo_error: f64,
    nelo: f64,
    nelo_error: f64,
    los: f64,
}

impl Estimate {
    /// From outcomes worth `values` (points per game or per pair, scaled to
    /// [0, 1]) seen `counts` times; `pair_factor` is 2 for pairs (a pair's
    /// variance stands for two games' in normalized Elo), 1 for games.
    fn of(values: &[f64], counts: &[u32], pair_factor: f64) -> Option<Estimate> {
        let Interval { n, mean, variance, low, high } = Interval::of(values, counts)?;
        if variance <= 0.0 {
            return None;
        }
        let nelo = |s: f64| (s - 0.5) / (pair_factor * variance).sqrt() * NELO_SCALE;
        Some(Estimate {
            elo: elo_from_score(mean),
            elo_error: (elo_from_score(high) - elo_from_score(low)) / 2.0,
            nelo: nelo(mean),
            nelo_error: (nelo(high) - nelo(low)) / 2.0,
            los: 0.5 * (1.0 + libm::erf((mean - 0.5) / (2.0 * variance / n).sqrt())),
        })
    }

    /// From pairs: a pair scores 0, 1/4, 1/2, 3/4 or 1 of its two points.
    fn of_pairs(p: &Pentanomial) -> Option<Estimate> {
        Estimate::of(&[0.0, 0.25, 0.5, 0.75, 1.0], &p.counts, 2.0)
    }

    /// From single games.
    fn of_games(s: &Score) -> Option<Estimate> {
        Estimate::of(&[0.0, 0.5, 1.0], &[s.losses, s.draws, s.wins], 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pentanomial [10, 100, 250, 110, 30]: score 0.525, per-pair variance
    /// 0.045625; the reference figures below were computed by hand from
    /// fastchess's definitions (normalized Elo = (s - 0.5) / sqrt(2 var) *
    /// 800 / ln 10, errors from the 95% score interval).
    #[test]
    fn the_pentanomial_report_matches_fastchess_definitions() {
        let p = Pentanomial { counts: [10, 100, 250, 110, 30] };
        let e = Estimate::of_pairs(&p).unwrap();
        let s = 0.525f64;
        let var = (10.0 * s.powi(2)
            + 100.0 * (0.25 - s).powi(2)
            + 250.0 * (0.5 - s).powi(2)
            + 110.0 * (0.75 - s).powi(2)
            + 30.0 * (1.0 - s).powi(2))
            / 500.0;
        assert!((var - 0.045625).abs() < 1e-12, "{var}");
        assert!((e.elo - elo_from_score(s)).abs() < 1e-9);
        assert!((e.nelo - (s - 0.5) / (2.0 * var).sqrt() * 800.0 / 10f64.ln()).abs() < 1e-9, "{}", e.nelo);
        let half = crate::stats::score::Z95 * (var / 500.0).sqrt();
        assert!((e.elo_error - (elo_from_score(s + half) - elo_from_score(s - half)) / 2.0).abs() < 1e-9);
        assert!((e.los - 0.5 * (1.0 + libm::erf((s - 0.5) / (2.0 * var / 500.0).sqrt()))).abs() < 1e-12);
        let text = head_to_head(
            "a",
            "b",
            "10+0.1, chess",
            &Score { wins: 300, losses: 290, draws: 410 },
            Some(&p),
            Some(SprtLine { llr: 1.234, bounds: (-2.94, 2.94), elo: (0.0, 5.0) }),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "Results of a vs b (10+0.1, chess):");
        assert!(lines[2].starts_with("Elo: 17.39 +/- "), "{}", lines[2]);
        assert!(lines[3].ends_with("DrawRatio: 50.00 %, PairsRatio: 1.27"), "{}", lines[3]);
        assert_eq!(lines[4], "Games: 1000, Wins: 300, Losses: 290, Draws: 410, Points: 505.0 (50.50 %)");
        assert_eq!(lines[5], "Ptnml(0-2): [10, 100, 250, 110, 30]");
        assert_eq!(lines[6], "LLR: 1.23 (-2.94, 2.94) [0.00, 5.00]");
    }

    #[test]
    fn single_games_report_without_pairs_and_nothing_is_invented_before_a_result() {
        let text = head_to_head("a", "b", "x", &Score { wins: 3, losses: 1, draws: 2 }, None, None);
        assert!(text.contains("LOS: ") && !text.contains("Ptnml") && !text.contains("LLR"), "{text}");
        let empty = head_to_head("a", "b", "x", &Score::default(), Some(&Pentanomial::default()), None);
        assert!(empty.contains("Elo: n/a, nElo: n/a") && empty.contains("PairsRatio: inf"), "{empty}");
    }
}
