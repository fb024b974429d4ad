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

/// The Elo model the hypotheses are stated in, as fastchess names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Normalized Elo (fishtest's and fastchess's default): the score's
    /// distance from 1/2 in standard deviations, so that a bound means the
    /// same whatever the draw rate.
    #[default]
    Normalized,
    /// Logistic Elo: the expected score 1 / (1 + 10^(-elo/400)).
    Logistic,
    /// BayesElo (cutechess-cli's and OpenBench's old model): Elo with the
    /// draw Elo estimated from the sample; trinomial counts only.
    Bayesian,
}

impl Model {
    /// Every model, in the order the command line lists them.
    pub const ALL: [Model; 3] = [Model::Normalized, Model::Logistic, Model::Bayesian];

    /// The model's name, as fastchess (and the stored JSON) spell it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Normalized => "normalized",
            Model::Logistic => "logistic",
            Model::Bayesian => "bayesian",
        }
    }

    /// The model named `name`, if any.
    pub fn named(name: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// SPRT settings: hypotheses in the model's Elo and error rates (checked by
/// [`Sprt::new`]; a definition read from a file or the store is checked again).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sprt {
    /// H0: the Elo difference is `elo0`.
    pub elo0: f64,
    /// H1: the Elo difference is `elo1`.
    pub elo1: f64,
    /// False-positive rate.
    pub alpha: f64,
    /// False-negative rate.
    pub beta: f64,
    /// The Elo model of `elo0` and `elo1`.
    #[serde(default)]
    pub model: Model,
    /// Whether the test counts pairs of games (pentanomial, the default) or
    /// single games (trinomial).
    #[serde(default = "yes")]
    pub pentanomial: bool,
}

fn yes() -> bool {
    true
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
        Ok(Sprt { elo0, elo1, alpha, beta, model: Model::Normalized, pentanomial: true })
    }

    /// The same test in another Elo model, on pairs or on single games.
    /// BayesElo is defined on single games only.
    pub fn counting(self, model: Model, pentanomial: bool) -> Result<Sprt, SprtError> {
        if model == Model::Bayesian && pentanomial {
            return Err(SprtError(
                "the bayesian model counts single games: ask for trinomial counts (--trinomial)".into(),
            ));
        }
        Ok(Sprt { model, pentanomial, ..self })
    }

    /// The log-likelihood ratio of H1 against H0, over pairs or single games
    /// as the test counts them.
    pub fn llr(&self, games: &crate::stats::Score, pairs: &Pentanomial) -> f64 {
        if self.pentanomial {
            self.llr_pentanomial(pairs)
        } else {
            self.llr_trinomial(games.losses, games.draws, games.wins)
        }
    }

    /// Lower and upper LLR bounds: ln(beta / (1 - alpha)), ln((1 - beta) / alpha).
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 for pentanomial counts.
    pub fn llr_pentanomial(&self, p: &Pentanomial) -> f64 {
        let counts: Vec<f64> = p.counts.iter().map(|&c| c as f64).collect();
        let scores = [0.0, 0.25, 0.5, 0.75, 1.0];
        match self.model {
            Model::Normalized => llr(&counts, &scores, self.elo0, self.elo1, std::f64::consts::SQRT_2),
            // BayesElo is refused on pairs (see `counting`).
            Model::Logistic | Model::Bayesian => {
                llr_score(&counts, &scores, logistic_score(self.elo0), logistic_score(self.elo1))
            }
        }
    }

    /// The log-likelihood ratio for plain (unpaired) counts of losses, draws, wins.
    pub fn llr_trinomial(&self, losses: u32, draws: u32, wins: u32) -> f64 {
        let counts = [losses as f64, draws as f64, wins as f64];
        let scores = [0.0, 0.5, 1.0];
        match self.model {
            Model::Normalized => llr(&counts, &scores, self.elo0, self.elo1, 1.0),
            Model::Logistic => llr_score(&counts, &scores, logistic_score(self.elo0), logistic_score(self.elo1)),
            Model::Bayesian => {
                // The draw Elo is estimated from the sample, which needs a
                // win and a loss.
                if wins == 0 || losses == 0 {
                    return 0.0;
                }
                let total = regular(losses as f64) + regular(draws as f64) + regular(wins as f64);
                let (l, w) = (losses as f64 / total, wins as f64 / total);
                let draw_elo = 200.0 * ((1.0 - l) / l * (1.0 - w) / w).log10();
                llr_score(&counts, &scores, bayes_score(self.elo0, draw_elo), bayes_score(self.elo1, draw_elo))
            }
        }
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

/// A count as the likelihoods use it: an empty cell gets a tiny count, as
/// fishtest and fastchess do, so that logs stay finite.
fn regular(count: f64) -> f64 {
    if count > 0.0 {
        count
    } else {
        1e-3
    }
}

/// The expected score of a logistic Elo difference.
fn logistic_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The expected score of a BayesElo difference at a draw Elo.
fn bayes_score(elo: f64, draw_elo: f64) -> f64 {
    let win = 1.0 / (1.0 + 10f64.powf((draw_elo - elo) / 400.0));
    let loss = 1.0 / (1.0 + 10f64.powf((draw_elo + elo) / 400.0));
    win + (1.0 - win - loss) / 2.0
}

/// The generalized LLR of expected score `s1` against `s0`: for each, the
/// distribution closest to the sample (maximum likelihood) with that
/// expectation (Van den Bergh, "Comments on normalized Elo", 1.1), and the
/// sample's mean log ratio of the two, times its size.
fn llr_score(counts: &[f64], scores: &[f64], s0: f64, s1: f64) -> f64 {
    let total: f64 = counts.iter().sum();
    if total == 0.0 {
        return 0.0;
    }
    let regular: Vec<f64> = counts.iter().map(|&c| regular(c)).collect();
    let n: f64 = regular.iter().sum();
    let phat: Vec<f64> = regular.iter().map(|c| c / n).collect();
    let closest = |s: f64| -> Vec<f64> {
        let phi: Vec<f64> = scores.iter().map(|a| a - s).collect();
        let x = secular(&phat, &phi);
        phat.iter().zip(&phi).map(|(p, f)| p / (1.0 + x * f)).collect()
    };
    let (p0, p1) = (closest(s0), closest(s1));
    n * phat.iter().zip(p0.iter().zip(&p1)).map(|(ph, (a, b))| ph * (b / a).ln()).sum::<f64>()
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
///
/// The iteration starts from the uniform distribution, as fishtest's and
/// fastchess's. Where that has no solution (every `phi` of one sign, which
/// a lopsided sample such as an engine against a random mover gives for a
/// wide test), the solution is followed instead from the sample itself (at
/// its own t-value) to `t` in small steps, each starting from the last.
fn mle_with_t(phat: &[f64], scores: &[f64], t: f64) -> Vec<f64> {
    let uniform = vec![1.0 / phat.len() as f64; phat.len()];
    if let Some(p) = fixed_point(phat, scores, t, uniform) {
        return p;
    }
    let (mu, sigma) = mean_sd(phat, scores);
    let own = (mu - 0.5) / sigma;
    const STEPS: u32 = 256;
    let mut p = phat.to_vec();
    for k in 1..=STEPS {
        let at = own + (t - own) * k as f64 / STEPS as f64;
        match fixed_point(phat, scores, at, p.clone()) {
            Some(next) => p = next,
            None => break,
        }
    }
    p
}

/// Iterates the fixed point of [`mle_with_t`] from `p`; `None` if a step
/// has no solution.
fn fixed_point(phat: &[f64], scores: &[f64], t: f64, mut p: Vec<f64>) -> Option<Vec<f64>> {
    for _ in 0..100 {
        let (mu, sigma) = mean_sd(&p, scores);
        let phi: Vec<f64> =
            scores.iter().map(|&a| a - 0.5 - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0).collect();
        if !(phi.iter().any(|&f| f > 0.0) && phi.iter().any(|&f| f < 0.0)) {
            return None;
        }
        let x = secular(phat, &phi);
        let next: Vec<f64> = phat.iter().zip(&phi).map(|(ph, f)| ph / (1.0 + x * f)).collect();
        let change = next.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        p = next;
        if change < 1e-12 {
            break;
        }
    }
    p.iter().all(|v| v.is_finite() && *v > 0.0).then_some(p)
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

    /// An engine against a random mover: pairs of 3/2 and 2 points only.
    /// The MLE's usual start has no solution there for a wide test; the LLR
    /// must still be finite and decide (it was NaN, and the test ran on).
    #[test]
    fn a_lopsided_sample_decides_instead_of_giving_nan() {
        for counts in [[0, 0, 0, 150, 5050], [0, 0, 0, 1, 20], [0, 0, 0, 0, 20], [0, 0, 1, 2, 30]] {
            let llr = sprt(0.0, 300.0).llr_pentanomial(&Pentanomial { counts });
            assert!(llr.is_finite() && llr > 2.95, "{counts:?}: {llr}");
        }
        let trinomial = sprt(0.0, 300.0).counting(Model::Normalized, false).unwrap();
        assert!(trinomial.llr_trinomial(0, 150, 10251) > 2.95);
        // A sample far below H0 is rejected just as firmly.
        let llr = sprt(0.0, 300.0).llr_pentanomial(&Pentanomial { counts: [40, 2, 0, 0, 0] });
        assert!(llr.is_finite() && llr < -2.95, "{llr}");
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

    /// The LLR of two expected scores over single games, by a deliberately
    /// plain search: with the mean fixed, a trinomial has one free
    /// probability, scanned for the largest likelihood.
    fn brute_llr(losses: f64, draws: f64, wins: f64, s0: f64, s1: f64) -> f64 {
        let n = losses + draws + wins;
        let (ql, qd, qw) = (losses / n, draws / n, wins / n);
        let best = |s: f64| {
            let log_likelihood = |w: f64| {
                let d = 2.0 * (s - w);
                let l = 1.0 - d - w;
                ql * l.ln() + qd * d.ln() + qw * w.ln()
            };
            // w from max(0, 2s - 1) to s keeps every probability positive.
            let (mut lo, mut hi) = ((2.0 * s - 1.0).max(0.0) + 1e-12, s - 1e-12);
            for _ in 0..200 {
                let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
                if log_likelihood(a) < log_likelihood(b) {
                    lo = a;
                } else {
                    hi = b;
                }
            }
            log_likelihood((lo + hi) / 2.0)
        };
        n * (best(s1) - best(s0))
    }

    #[test]
    fn logistic_trinomial_llr_is_the_likelihood_ratio_a_plain_search_finds() {
        let test = |e0: f64, e1: f64| sprt(e0, e1).counting(Model::Logistic, false).unwrap();
        for ((w, l, d), e0, e1) in
            [((36433, 36027, 68692), 0.0, 2.0), ((10871, 10650, 20431), -1.75, 0.25), ((120, 80, 300), 0.0, 10.0)]
        {
            let llr = test(e0, e1).llr_trinomial(l, d, w);
            let oracle = brute_llr(l as f64, d as f64, w as f64, logistic_score(e0), logistic_score(e1));
            assert!((llr - oracle).abs() < 1e-6 * oracle.abs().max(1.0), "{llr} vs {oracle}");
        }
    }

    #[test]
    fn bayes_elo_uses_the_sample_s_draw_elo_and_needs_a_win_and_a_loss() {
        let test = sprt(0.0, 10.0).counting(Model::Bayesian, false).unwrap();
        assert_eq!(test.llr_trinomial(0, 50, 20), 0.0);
        let (w, l, d): (f64, f64, f64) = (3000.0, 2800.0, 4200.0);
        let total = w + l + d;
        let draw_elo = 200.0 * ((1.0 - l / total) / (l / total) * (1.0 - w / total) / (w / total)).log10();
        let oracle = brute_llr(l, d, w, bayes_score(0.0, draw_elo), bayes_score(10.0, draw_elo));
        let llr = test.llr_trinomial(2800, 4200, 3000);
        assert!((llr - oracle).abs() < 1e-6 * oracle.abs(), "{llr} vs {oracle}");
        // A BayesElo of 0 is a score of one half, whatever the draw Elo.
        assert!((bayes_score(0.0, draw_elo) - 0.5).abs() < 1e-12);
        assert!(sprt(0.0, 10.0).counting(Model::Bayesian, true).unwrap_err().to_string().contains("--trinomial"));
    }

    #[test]
    fn logistic_pentanomial_llr_is_the_plain_search_s_on_pairs_of_whole_points() {
        let test = |e0: f64, e1: f64| sprt(e0, e1).counting(Model::Logistic, true).unwrap();
        // Pairs scoring 0, 1 or 2 points only: the trinomial search on the
        // pair's mean (the empty cells' tiny counts aside).
        let p = Pentanomial { counts: [900, 0, 2500, 0, 1100] };
        let llr = test(0.0, 20.0).llr_pentanomial(&p);
        let oracle = brute_llr(900.0, 2500.0, 1100.0, logistic_score(0.0), logistic_score(20.0));
        assert!((llr - oracle).abs() < 1e-3 * oracle.abs(), "{llr} vs {oracle}");
        // A sample halfway between the hypotheses leaves the test undecided.
        let p = Pentanomial { counts: [365, 16618, 36229, 16974, 390] };
        let mean = (0.25 * 16618.0 + 0.5 * 36229.0 + 0.75 * 16974.0 + 390.0) / p.pairs() as f64;
        let elo = -400.0 * (1.0 / mean - 1.0).log10();
        assert!(test(elo - 1.0, elo + 1.0).llr_pentanomial(&p).abs() < 0.01);
        assert!(test(elo - 3.0, elo - 1.0).llr_pentanomial(&p) > 0.0);
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
