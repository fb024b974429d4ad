//! One player's score against another: Elo difference with its 95% error,
//! likelihood of superiority and draw ratio, computed as cutechess-cli does
//! (normal approximation of the per-game score distribution).

/// Wins, losses and draws from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games lost.
    pub losses: u32,
    /// Games drawn.
    pub draws: u32,
}

/// The 97.5% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo difference implied by an expected score `s` in (0, 1).
pub fn elo_from_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// A mean score with its 95% interval (normal approximation), from
/// outcomes worth `values` (in [0, 1]) seen `counts` times.
pub(crate) struct Interval {
    /// Outcomes counted.
    pub n: f64,
    /// The mean score.
    pub mean: f64,
    /// The variance of one outcome's score.
    pub variance: f64,
    /// The interval's ends, kept inside (0, 1).
    pub low: f64,
    /// See `low`.
    pub high: f64,
}

impl Interval {
    /// The interval; `None` before any outcome or while the mean is 0 or 1.
    pub(crate) fn of(values: &[f64], counts: &[u32]) -> Option<Interval> {
        let n: f64 = counts.iter().map(|&c| c as f64).sum();
        if n == 0.0 {
            return None;
        }
        let mean = values.iter().zip(counts).map(|(v, &c)| v * c as f64).sum::<f64>() / n;
        if mean <= 0.0 || mean >= 1.0 {
            return None;
        }
        let variance = values.iter().zip(counts).map(|(v, &c)| c as f64 * (v - mean).powi(2)).sum::<f64>() / n;
        let sd = (variance / n).sqrt();
        let (low, high) = ((mean - Z95 * sd).max(1e-9), (mean + Z95 * sd).min(1.0 - 1e-9));
        Some(Interval { n, mean, variance, low, high })
    }
}

impl Score {
    /// Counts one game in which this side scored `points` (1, ½ or 0).
    pub fn add(&mut self, points: f64) {
        if points >= 1.0 {
            self.wins += 1;
        } else if points <= 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Points scored (a draw is half a point).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Score ratio in [0, 1]; 0.5 before any game.
    pub fn ratio(&self) -> f64 {
        if self.games() == 0 {
            0.5
        } else {
            self.points() / self.games() as f64
        }
    }

    /// Elo difference and its 95% error margin; `None` while the score is 0 or 100%.
    pub fn elo(&self) -> Option<(f64, f64)> {
        let i = Interval::of(&[0.0, 0.5, 1.0], &[self.losses, self.draws, self.wins])?;
        Some((elo_from_score(i.mean), (elo_from_score(i.high) - elo_from_score(i.low)) / 2.0))
    }

    /// Likelihood of superiority: the probability that this player is the stronger.
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if self.wins == self.losses {
            return 0.5;
        }
        0.5 + 0.5 * libm::erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt())
    }

    /// Share of drawn games.
    pub fn draw_ratio(&self) -> f64 {
        if self.games() == 0 {
            0.0
        } else {
            self.draws as f64 / self.games() as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values computed independently with Python's math.erf and the
    // same formulas (cutechess-cli's): see docs in the module header.
    #[test]
    fn elo_error_and_los_match_reference_values() {
        let cases = [((50, 30, 20), 70.4365, 62.5877, 0.987326), ((3, 7, 10), -70.4365, 111.7333, 0.102952)];
        for ((w, l, d), elo, err, los) in cases {
            let s = Score { wins: w, losses: l, draws: d };
            let (e, m) = s.elo().unwrap();
            assert!((e - elo).abs() < 1e-3, "elo {e} vs {elo}");
            assert!((m - err).abs() < 1e-3, "error {m} vs {err}");
            assert!((s.los() - los).abs() < 1e-6, "los {} vs {los}", s.los());
        }
        let even = Score { wins: 10, losses: 10, draws: 80 };
        assert!(even.elo().unwrap().0.abs() < 1e-9);
        assert!((even.elo().unwrap().1 - 30.5319).abs() < 1e-3);
        assert_eq!(even.los(), 0.5);
        assert_eq!(Score { wins: 3, losses: 0, draws: 0 }.elo(), None);
    }

    #[test]
    fn los_matches_the_normal_approximation() {
        // 0.5 + 0.5 erf((W - L) / sqrt(2 (W + L))), computed with Python's math.erf.
        for (wins, losses, los) in [(10, 5, 0.901_647_198_8), (3, 7, 0.102_951_605_4), (100, 90, 0.765_920_045_1)] {
            let s = Score { wins, losses, draws: 7 };
            assert!((s.los() - los).abs() < 1e-9, "{wins}-{losses}: {}", s.los());
        }
    }
}
