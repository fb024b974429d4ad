//! Paired games and the SPRT. Games are played in pairs (one opening, colours
//! swapped); a pair scores 0, 1/2, 1, 3/2 or 2 points, and the five counts
//! ([`Pentanomial`]) capture the correlation inside a pair. The test is the
//! generalized SPRT on normalized Elo used by fishtest and fastchess: for each
//! hypothesis the maximum-likelihood distribution with that normalized Elo is
//! found (Van den Bergh, "Comments on normalized Elo"), and the log-likelihood
//! ratio is the empirical expectation of their log ratio, times the pairs.

/// Counts of game pairs by points scored: [0, 1/2, 1, 3/2, 2].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs with 0, 1/2, 1, 3/2 and 2 points, in that order.
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Adds a pair from the two game scores (1, 0.5 or 0 each).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round() as usize;
        self.counts[half_points.min(4)] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }
}

/// SPRT settings: hypotheses in normalized Elo and error rates (checked by
/// [`Sprt::new`]; a definition read from a file or the store is checked again).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sprt {
    /// H0: the normalized Elo difference is `elo0`.
    pub elo0: f64,
    /// H1: the normalized Elo difference is `elo1`.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// H1 accepted: the first player is stronger by `elo1`.
    AcceptH1,
    /// H0 accepted.
    AcceptH0,
    /// Keep playing.
    Continue,
}

/// Normalized Elo per unit of t-value (800 / ln 10).
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// SPRT settings that make no test.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("SPRT: {0}")]
pub struct SprtError(String);

/// The largest Elo bound an SPRT may test.
pub const MAX_ELO_BOUND: f64 = 1000.0;

impl Sprt {
    /// Checked settings: `elo0 < elo1`, both finite and within
    /// ±[`MAX_ELO_BOUND`], and each error rate strictly between 0 and 0.5.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        for (name, v) in [("elo0", elo0), ("elo1", elo1)] {
            if !v.is_finite() || v.abs() > MAX_ELO_BOUND {
                return Err(SprtError(format!(
                    "{name} is {v}: it must be a number from -{MAX_ELO_BOUND} to {MAX_ELO_BOUND}"
                )));
            }
        }
        if elo0 >= elo1 {
            return Err(SprtError(format!(
                "elo0 ({elo0}) must be below elo1 ({elo1}): H0 is the smaller gain, H1 the larger"
            )));
        }
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(SprtError(format!("{name} is {v}: an error rate must be above 0 and below 0.5")));
            }
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// Lower and upper LLR bounds: ln(beta / (1 - alpha)), ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 for pentanomial counts.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        let counts: Vec<f64> = p.counts.iter().map(|&c| c as f64).collect();
        llr(&counts, &[0.0, 0.25, 0.5, 0.75, 1.0], self.elo0, self.elo1, std::f64::consts::SQRT_2)
    }

    /// The log-likelihood ratio for plain (unpaired) counts of losses, draws, wins.
    pub fn llr_trinomial(&self, losses: u32, draws: u32, wins: u32) -> f64 {
        llr(&[losses as f64, draws as f64, wins as f64], &[0.0, 0.5, 1.0], self.elo0, self.elo1, 1.0)
    }

    /// The verdict for an LLR.
    pub fn verdict(&self, llr: f64) -> Verdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// `scale` converts a per-game t-value to the sample unit (sqrt 2 for pairs).
fn llr(counts: &[f64], scores: &[f64], elo0: f64, elo1: f64, scale: f64) -> f64 {
    let total: f64 = counts.iter().sum();
    if total == 0.0 {
        return 0.0;
    }
    // Empty cells get a tiny count, as fishtest does, so logs stay finite.
    let regular: Vec<f64> = counts.iter().map(|&c| if c > 0.0 { c } else { 1e-3 }).collect();
    let n: f64 = regular.iter().sum();
    let phat: Vec<f64> = regular.iter().map(|c| c / n).collect();
    let p0 = mle_with_t(&phat, scores, elo0 / NELO_PER_T * scale);
    let p1 = mle_with_t(&phat, scores, elo1 / NELO_PER_T * scale);
    total * phat.iter().zip(p0.iter().zip(&p1)).map(|(ph, (a, b))| ph * (b / a).ln()).sum::<f64>()
}

fn mean_sd(p: &[f64], scores: &[f64]) -> (f64, f64) {
    let mu: f64 = p.iter().zip(scores).map(|(p, s)| p * s).sum();
    let var: f64 = p.iter().zip(scores).map(|(p, s)| p * (s - mu).powi(2)).sum();
    (mu, var.sqrt())
}

/// The distribution closest to `phat` (maximum likelihood) whose t-value
/// `(mu - 1/2) / sigma` equals `t`: a fixed point of p_i = phat_i / (1 + x phi_i),
/// with phi the constraint's gradient and x normalising the distribution.
fn mle_with_t(phat: &[f64], scores: &[f64], t: f64) -> Vec<f64> {
    let mut p = vec![1.0 / phat.len() as f64; phat.len()];
    for _ in 0..100 {
        let (mu, sigma) = mean_sd(&p, scores);
        let phi: Vec<f64> =
            scores.iter().map(|&a| a - 0.5 - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0).collect();
        let x = secular(phat, &phi);
        let next: Vec<f64> = phat.iter().zip(&phi).map(|(ph, f)| ph / (1.0 + x * f)).collect();
        let change = next.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        p = next;
        if change < 1e-12 {
            break;
        }
    }
    p
}

/// Solves `sum w_i a_i / (1 + x a_i) = 0` for x where every 1 + x a_i > 0
/// (the function decreases in x there), by bisection.
fn secular(w: &[f64], a: &[f64]) -> f64 {
    let max = a.iter().copied().fold(f64::MIN, f64::max);
    let min = a.iter().copied().fold(f64::MAX, f64::min);
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let f = |x: f64| w.iter().zip(a).map(|(w, a)| w * a / (1.0 + x * a)).sum::<f64>();
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_that_make_no_test_are_refused() {
        for (e0, e1, a, b, says) in [
            (50.0, 0.0, 0.05, 0.05, "must be below elo1"),
            (5.0, 5.0, 0.05, 0.05, "must be below elo1"),
            (0.0, 5.0, 2.0, 0.05, "alpha is 2"),
            (0.0, 5.0, 0.05, 0.0, "beta is 0"),
            (f64::NAN, 5.0, 0.05, 0.05, "elo0 is NaN"),
            (0.0, 1e9, 0.05, 0.05, "elo1 is 1000000000"),
        ] {
            let e = Sprt::new(e0, e1, a, b).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        assert!(Sprt::new(0.0, 5.0, 0.05, 0.05).is_ok());
    }

    fn sprt(elo0: f64, elo1: f64) -> Sprt {
        Sprt::new(elo0, elo1, 0.05, 0.05).unwrap()
    }

    // Reference values: the SPRT test suite of fastchess (its "normalized"
    // model cases, themselves checked against fishtest), to their 1% tolerance.
    #[test]
    fn trinomial_llr_matches_fastchess() {
        for ((w, l, d), e0, e1, expected) in [
            ((36433, 36027, 68692), 0.0, 2.0, 0.92),
            ((10871, 10650, 20431), -1.75, 0.25, 2.30),
            ((4250, 0, 0), 0.0, 10.0, 120.56),
        ] {
            let llr = sprt(e0, e1).llr_trinomial(l, d, w);
            assert!((llr - expected).abs() <= expected.abs() * 0.01, "{llr} vs {expected}");
        }
    }

    #[test]
    fn pentanomial_llr_matches_fastchess() {
        // fastchess lists pairs as LL, LD, WL, DD, WD, WW; WL and DD both score 1.
        for ((ll, ld, wl, dd, wd, ww), e0, e1, expected) in [
            ((365, 16618, 36029, 200, 16974, 390), 0.0, 2.0, 2.25),
            ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, 3.01),
            ((0, 0, 0, 0, 0, 5550), 0.0, 5.0, 111.82),
        ] {
            let p = Pentanomial { counts: [ll, ld, wl + dd, wd, ww] };
            let llr = sprt(e0, e1).llr_pentanomial(&p);
            assert!((llr - expected).abs() <= expected.abs() * 0.01, "{llr} vs {expected}");
        }
    }

    #[test]
    fn bounds_and_verdicts() {
        let s = sprt(0.0, 5.0);
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944_438_979).abs() < 1e-6 && (hi - 2.944_438_979).abs() < 1e-6);
        assert_eq!(s.verdict(3.0), Verdict::AcceptH1);
        assert_eq!(s.verdict(-3.0), Verdict::AcceptH0);
        assert_eq!(s.verdict(0.0), Verdict::Continue);
        assert_eq!(s.llr_pentanomial(&Pentanomial::default()), 0.0);
    }

    #[test]
    fn pairs_are_counted_by_points() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 1.0);
        p.add_pair(1.0, 0.0);
        p.add_pair(0.5, 0.5);
        p.add_pair(0.0, 0.5);
        assert_eq!(p.counts, [0, 1, 2, 0, 1]);
    }
}
