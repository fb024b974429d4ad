//! SPSA (simultaneous perturbation stochastic approximation) as fishtest
//! and OpenBench tune engine parameters. Each iteration is a game pair
//! between the same player at two points: every parameter is moved by
//! `c_k` up for one side and down for the other (the direction a coin flip
//! a parameter), the two play a colour-swapped pair, and each parameter
//! steps towards the side that scored more:
//! `theta += R_k * c_k * (wins - losses) * flip`.
//!
//! The schedule is the one both services share: with `N` iterations,
//! `A = a_ratio * N` (10%), `c = c_end * N^gamma`, `a = r_end * c_end^2 *
//! (A + N)^alpha`, and at iteration `k` (from 1) `c_k = c / k^gamma`,
//! `a_k = a / (A + k)^alpha`, `R_k = a_k / c_k^2` (alpha 0.602, gamma
//! 0.101), so that the last iteration perturbs by `c_end` and steps by
//! `r_end * c_end` a point of result. Values stay within each parameter's
//! bounds; an integer parameter is played at a value rounded
//! stochastically (12.3 is 12 seven times in ten, 13 three).
//!
//! An update depends on its iteration's step and result only, never on the
//! values the pair was played at, so replaying the stored pairs in the
//! order they were stored gives the run's state exactly, whatever order
//! concurrent pairs finished in.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::model::seeds::game_seed;

/// Whether a parameter takes whole numbers or any.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// Played at whole numbers (rounded stochastically); tuned as a real.
    Int,
    /// Played as it is.
    Float,
}

/// One tuned parameter, in fishtest's terms.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// The option's name, as the player takes it (a UCI option, an mcts setting).
    pub name: String,
    /// Int or float.
    #[serde(rename = "type")]
    pub kind: ParamKind,
    /// The value tuning starts from.
    pub start: f64,
    /// The lowest value played.
    pub min: f64,
    /// The highest value played.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The learning rate at the last iteration (`a_end / c_end^2`).
    pub r_end: f64,
}

fn a_ratio() -> f64 {
    0.1
}
fn alpha() -> f64 {
    0.602
}
fn gamma() -> f64 {
    0.101
}

/// A tuning run's parameters and schedule constants.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Spsa {
    /// The parameters, in the order they are reported.
    pub params: Vec<Param>,
    /// `A` as a fraction of the iterations.
    #[serde(default = "a_ratio")]
    pub a_ratio: f64,
    /// The learning rate's decay exponent.
    #[serde(default = "alpha")]
    pub alpha: f64,
    /// The perturbation's decay exponent.
    #[serde(default = "gamma")]
    pub gamma: f64,
    /// Iterations played at once: iteration `k` is played around the
    /// estimate after the first `k - in_flight` iterations to finish (1:
    /// each after the one before, as sequential SPSA).
    #[serde(default = "one")]
    pub in_flight: u32,
}

fn one() -> u32 {
    1
}

/// Why a parameter list cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpsaError {
    /// A line of the one-line-per-parameter format that does not read.
    #[error("line {line}: {why} (expected: name, int|float, start, min, max, c_end, r_end)")]
    Line {
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A parameter whose numbers do not make a run.
    #[error("parameter {name}: {why}")]
    Param {
        /// The parameter.
        name: String,
        /// What is wrong.
        why: String,
    },
    /// Schedule constants or the parameter list as a whole.
    #[error("{0}")]
    Schedule(String),
}

/// What one iteration does to each parameter, a function of the iteration
/// and the run's seed alone: the perturbation `c`, the learning rate `r`
/// and the direction `flip` (+1 or -1) of the first side.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The iteration, from 1.
    pub k: u32,
    /// `c_k` per parameter.
    pub c: Vec<f64>,
    /// `R_k` per parameter.
    pub r: Vec<f64>,
    /// +1 or -1 per parameter: the first side plays `theta + c * flip`.
    pub flip: Vec<f64>,
}

impl Spsa {
    /// The default schedule over `params`.
    pub fn new(params: Vec<Param>) -> Spsa {
        Spsa { params, a_ratio: a_ratio(), alpha: alpha(), gamma: gamma(), in_flight: 1 }
    }

    /// Reads fishtest's and OpenBench's format: one parameter a line,
    /// `name, int|float, start, min, max, c_end, r_end` (commas between
    /// fields, a name keeping its inner spaces as UCI option names do:
    /// `Skill Level, int, ...`; or, on a line without commas, white space;
    /// blank lines and `#` comments skipped).
    pub fn parse_lines(text: &str) -> Result<Vec<Param>, SpsaError> {
        let mut params = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |why: String| SpsaError::Line { line: i + 1, why };
            let fields: Vec<&str> = if line.contains(',') {
                line.split(',').map(str::trim).collect()
            } else {
                line.split_whitespace().collect()
            };
            let [name, kind, numbers @ ..] = fields.as_slice() else {
                return Err(bad(format!("'{line}' has too few fields")));
            };
            if fields.iter().any(|f| f.is_empty()) {
                return Err(bad(format!("'{line}' has an empty field")));
            }
            if numbers.len() != 5 {
                return Err(bad(format!("'{line}' has {} fields, not 7", fields.len())));
            }
            let kind = match kind.to_ascii_lowercase().as_str() {
                "int" => ParamKind::Int,
                "float" => ParamKind::Float,
                other => return Err(bad(format!("type '{other}' is neither int nor float"))),
            };
            let mut n = [0.0; 5];
            for (slot, text) in n.iter_mut().zip(numbers) {
                *slot = text
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| bad(format!("'{text}' is not a number")))?;
            }
            let [start, min, max, c_end, r_end] = n;
            params.push(Param { name: name.to_string(), kind, start, min, max, c_end, r_end });
        }
        Ok(params)
    }

    /// Checks that the run can be made: parameters with distinct names,
    /// `min <= start <= max`, positive `c_end` and `r_end`, sane constants.
    pub fn validate(&self) -> Result<(), SpsaError> {
        if self.params.is_empty() {
            return Err(SpsaError::Schedule("no parameters to tune".into()));
        }
        for (i, p) in self.params.iter().enumerate() {
            let bad = |why: &str| SpsaError::Param { name: p.name.clone(), why: why.into() };
            let name_ok = !p.name.is_empty()
                && p.name.chars().all(|c| c.is_alphanumeric() || "_-. ".contains(c))
                && !p.name.starts_with(' ')
                && !p.name.ends_with(' ');
            if !name_ok {
                return Err(bad("a name is letters, digits, '_', '-', '.' and inner spaces"));
            }
            if self.params[..i].iter().any(|q| q.name == p.name) {
                return Err(bad("named twice"));
            }
            if ![p.start, p.min, p.max, p.c_end, p.r_end].iter().all(|v| v.is_finite()) {
                return Err(bad("every number must be finite"));
            }
            if !(p.min <= p.start && p.start <= p.max) || p.min == p.max {
                return Err(bad(&format!("start {} must lie within min {} < max {}", p.start, p.min, p.max)));
            }
            if p.c_end <= 0.0 || p.r_end <= 0.0 {
                return Err(bad("c_end and r_end must be positive"));
            }
        }
        let constants = [("a_ratio", self.a_ratio), ("alpha", self.alpha), ("gamma", self.gamma)];
        if let Some((name, v)) = constants.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0 && *v <= 10.0)) {
            return Err(SpsaError::Schedule(format!("{name} {v} must be between 0 and 10")));
        }
        if !(1..=1024).contains(&self.in_flight) {
            return Err(SpsaError::Schedule(format!("in_flight {} must be from 1 to 1024", self.in_flight)));
        }
        Ok(())
    }

    /// The starting point.
    pub fn start(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.start).collect()
    }

    /// Iteration `k`'s (from 1) step in a run of `iterations` seeded with `seed`.
    pub fn step(&self, k: u32, iterations: u32, seed: u64) -> Step {
        let n = iterations.max(1) as f64;
        let big_a = self.a_ratio * n;
        let kf = k.max(1) as f64;
        let mut rng = SmallRng::seed_from_u64(game_seed(seed, u64::from(k)) ^ 0x5350_5341);
        let mut step = Step { k, c: Vec::new(), r: Vec::new(), flip: Vec::new() };
        for p in &self.params {
            let c = p.c_end * n.powf(self.gamma);
            let a = p.r_end * p.c_end * p.c_end * (big_a + n).powf(self.alpha);
            let c_k = c / kf.powf(self.gamma);
            let a_k = a / (big_a + kf).powf(self.alpha);
            step.c.push(c_k);
            step.r.push(a_k / (c_k * c_k));
            step.flip.push(if rng.random::<bool>() { 1.0 } else { -1.0 });
        }
        step
    }

    /// The values the first side (`sign` +1) or the second (-1) plays at
    /// in `step` from `theta`: within bounds, integers rounded stochastically
    /// (by a draw that is the step's own, so a pair replayed after a kill
    /// plays the same values).
    pub fn values(&self, theta: &[f64], step: &Step, sign: f64, seed: u64) -> Vec<f64> {
        let salt = if sign > 0.0 { 0x2b } else { 0x2d };
        let mut rng = SmallRng::seed_from_u64(game_seed(seed, u64::from(step.k)) ^ salt);
        self.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let x = (theta[i] + sign * step.c[i] * step.flip[i]).clamp(p.min, p.max);
                match p.kind {
                    ParamKind::Float => x,
                    ParamKind::Int => {
                        let floor = x.floor();
                        let up = rng.random::<f64>() < x - floor;
                        (floor + if up { 1.0 } else { 0.0 }).clamp(p.min.ceil(), p.max.floor())
                    }
                }
            })
            .collect()
    }

    /// `theta` after `step`'s pair scored `result` (the first side's wins
    /// minus its losses, -2 to 2), within bounds.
    pub fn update(&self, theta: &mut [f64], step: &Step, result: f64) {
        for (i, p) in self.params.iter().enumerate() {
            theta[i] = (theta[i] + step.r[i] * step.c[i] * result * step.flip[i]).clamp(p.min, p.max);
        }
    }
}

/// A value as a player's setting is written: an integer without a point,
/// a real with up to six decimals.
pub fn setting_text(kind: ParamKind, value: f64) -> String {
    match kind {
        ParamKind::Int => format!("{}", value.round() as i64),
        ParamKind::Float => {
            let text = format!("{value:.6}");
            let text = text.trim_end_matches('0').trim_end_matches('.');
            if text == "-0" {
                "0".into()
            } else {
                text.to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{setting_text, Param, ParamKind, Spsa, SpsaError};

    fn param(name: &str, kind: ParamKind, start: f64, min: f64, max: f64, c_end: f64, r_end: f64) -> Param {
        Param { name: name.into(), kind, start, min, max, c_end, r_end }
    }

    #[test]
    fn fishtest_lines_are_read_with_commas_or_spaces_and_comments() {
        let text =
            "# tuned\nKnightValue, int, 300, 200, 400, 10, 0.0020\n\nAspiration float 12.5 5 30 1.5 0.002 # deg\n";
        let params = Spsa::parse_lines(text).unwrap();
        assert_eq!(
            params,
            [
                param("KnightValue", ParamKind::Int, 300.0, 200.0, 400.0, 10.0, 0.002),
                param("Aspiration", ParamKind::Float, 12.5, 5.0, 30.0, 1.5, 0.002)
            ]
        );
        // UCI option names hold spaces: with commas, a name keeps them.
        let skill = Spsa::parse_lines("Skill Level, int, 5, 0, 20, 2, 0.02").unwrap();
        assert_eq!(skill, [param("Skill Level", ParamKind::Int, 5.0, 0.0, 20.0, 2.0, 0.02)]);
        for (text, says) in [
            ("A, int, 1, 0, 2, 1", "line 1: 'A, int, 1, 0, 2, 1' has 6 fields, not 7"),
            ("A, int, 1, 0, 2, 1, 0.1,", "line 1: 'A, int, 1, 0, 2, 1, 0.1,' has an empty field"),
            ("\nA, bool, 1, 0, 2, 1, 0.1", "line 2: type 'bool' is neither int nor float"),
            ("A, int, 1, 0, x, 1, 0.1", "line 1: 'x' is not a number"),
            ("A, int, 1, 0, inf, 1, 0.1", "line 1: 'inf' is not a number"),
            ("A", "line 1: 'A' has too few fields"),
        ] {
            let e = Spsa::parse_lines(text).unwrap_err().to_string();
            assert!(e.starts_with(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_run_that_cannot_be_made_is_refused_naming_the_parameter() {
        let ok = param("A", ParamKind::Int, 5.0, 0.0, 10.0, 1.0, 0.01);
        assert!(Spsa::new(vec![ok.clone()]).validate().is_ok());
        for (p, says) in [
            (Param { start: 11.0, ..ok.clone() }, "parameter A: start 11 must lie within min 0 < max 10"),
            (Param { c_end: 0.0, ..ok.clone() }, "parameter A: c_end and r_end must be positive"),
            (Param { name: "A\nquit".into(), ..ok.clone() }, "parameter A\nquit: a name is"),
            (Param { name: "".into(), ..ok.clone() }, "parameter : a name is"),
        ] {
            let e = Spsa::new(vec![p]).validate().unwrap_err().to_string();
            assert!(e.starts_with(says), "{e}");
        }
        let twice = Spsa::new(vec![ok.clone(), ok.clone()]).validate().unwrap_err();
        assert_eq!(twice, SpsaError::Param { name: "A".into(), why: "named twice".into() });
        assert_eq!(Spsa::new(vec![]).validate().unwrap_err().to_string(), "no parameters to tune");
        let bad = Spsa { alpha: -1.0, ..Spsa::new(vec![ok]) }.validate().unwrap_err().to_string();
        assert_eq!(bad, "alpha -1 must be between 0 and 10");
    }

    #[test]
    fn the_schedule_is_fishtests_ending_at_c_end_and_r_end() {
        let spsa = Spsa::new(vec![param("A", ParamKind::Float, 0.0, -100.0, 100.0, 2.0, 0.05)]);
        let n = 1000;
        let last = spsa.step(n, n, 1);
        assert!((last.c[0] - 2.0).abs() < 1e-9, "c_N = c_end: {}", last.c[0]);
        assert!((last.r[0] - 0.05).abs() < 1e-9, "R_N = r_end: {}", last.r[0]);
        let first = spsa.step(1, n, 1);
        // c_1 = c_end * N^gamma; a_1 = a_end * ((A + N) / (A + 1))^alpha.
        assert!((first.c[0] - 2.0 * 1000f64.powf(0.101)).abs() < 1e-9);
        let a1 = 0.05 * 4.0 * (1100f64 / 101.0).powf(0.602);
        assert!((first.r[0] - a1 / (first.c[0] * first.c[0])).abs() < 1e-12);
        assert_eq!(spsa.step(7, n, 1), spsa.step(7, n, 1), "a step is a function of k and the seed");
        let flips: Vec<f64> = (1..=200).map(|k| spsa.step(k, n, 1).flip[0]).collect();
        let ups = flips.iter().filter(|&&f| f > 0.0).count();
        assert!((70..=130).contains(&ups), "flips are a fair coin: {ups} of 200");
    }

    #[test]
    fn sides_play_either_side_of_theta_within_bounds_and_the_update_follows_the_winner() {
        let spsa = Spsa::new(vec![
            param("F", ParamKind::Float, 5.0, 0.0, 10.0, 1.0, 0.1),
            param("E", ParamKind::Float, 9.9, 0.0, 10.0, 1.0, 0.1),
        ]);
        let theta = spsa.start();
        let step = spsa.step(100, 100, 3);
        let plus = spsa.values(&theta, &step, 1.0, 3);
        let minus = spsa.values(&theta, &step, -1.0, 3);
        assert!((plus[0] - (5.0 + step.c[0] * step.flip[0])).abs() < 1e-12);
        assert!((minus[0] - (5.0 - step.c[0] * step.flip[0])).abs() < 1e-12);
        assert!(plus[1] <= 10.0 && minus[1] <= 10.0, "clamped to max");
        let mut won = theta.clone();
        spsa.update(&mut won, &step, 2.0);
        assert!(((won[0] - 5.0) - 2.0 * step.r[0] * step.c[0] * step.flip[0]).abs() < 1e-12);
        assert_eq!((won[0] - 5.0).signum(), (plus[0] - 5.0).signum(), "theta moves towards the side that won");
        let mut drawn = theta.clone();
        spsa.update(&mut drawn, &step, 0.0);
        assert_eq!(drawn, theta, "a drawn pair moves nothing");
    }

    #[test]
    fn integers_are_rounded_stochastically_to_their_expected_value() {
        let spsa = Spsa::new(vec![param("I", ParamKind::Int, 10.3, 0.0, 20.0, 1e-9, 0.1)]);
        let mut sum = 0.0;
        for k in 1..=2000 {
            let step = spsa.step(k, 2000, 9);
            let v = spsa.values(&[10.3], &step, 1.0, 9)[0];
            assert!(v == 10.0 || v == 11.0, "{v}");
            assert_eq!(v, spsa.values(&[10.3], &step, 1.0, 9)[0], "the same draw when replayed");
            sum += v;
        }
        let mean = sum / 2000.0;
        assert!((mean - 10.3).abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn settings_are_written_as_players_read_them() {
        assert_eq!(setting_text(ParamKind::Int, 12.0), "12");
        assert_eq!(setting_text(ParamKind::Int, -3.0), "-3");
        assert_eq!(setting_text(ParamKind::Float, 0.7), "0.7");
        assert_eq!(setting_text(ParamKind::Float, 2.0), "2");
        assert_eq!(setting_text(ParamKind::Float, -0.0000001), "0");
        assert_eq!(setting_text(ParamKind::Float, 1.0 / 3.0), "0.333333");
    }

    #[test]
    fn against_an_oracle_where_the_closer_side_wins_the_estimate_reaches_the_optimum() {
        // Both parameters 50 units from their optimum; the side closer to
        // it wins both games of the pair, a tie draws.
        let spsa = Spsa::new(vec![
            param("I", ParamKind::Int, 10.0, 0.0, 100.0, 4.0, 0.1),
            param("F", ParamKind::Float, 0.9, 0.0, 1.0, 0.04, 0.1),
        ]);
        let optimum = [60.0, 0.4];
        let distance = |v: &[f64]| ((v[0] - optimum[0]) / 100.0).powi(2) + (v[1] - optimum[1]).powi(2);
        let n = 300;
        let mut theta = spsa.start();
        for k in 1..=n {
            let step = spsa.step(k, n, 5);
            let (plus, minus) = (spsa.values(&theta, &step, 1.0, 5), spsa.values(&theta, &step, -1.0, 5));
            let result = match distance(&plus).partial_cmp(&distance(&minus)).unwrap() {
                std::cmp::Ordering::Less => 2.0,
                std::cmp::Ordering::Greater => -2.0,
                std::cmp::Ordering::Equal => 0.0,
            };
            spsa.update(&mut theta, &step, result);
        }
        assert!((theta[0] - 60.0).abs() < 6.0 && (theta[1] - 0.4).abs() < 0.06, "ended at {theta:?}");
    }
}
