//! A rating list over many games, as Ordo and BayesElo make them: maximum
//! likelihood ratings of every player with the first mover's advantage and
//! the draw rate fitted beside them, and error bars by bootstrap over game
//! pairs (a pair's two games share an opening, so they are resampled
//! together rather than assumed independent).
//!
//! The model is BayesElo's: with `Δ = r_first - r_second + advantage`,
//! the first mover wins with probability `F(Δ - draw)`, loses with
//! `F(-Δ - draw)` and draws otherwise, where `F(x) = 1 / (1 + 10^(-x/400))`.
//! The prior is BayesElo's: two virtual draws between every two players
//! who met (with no first-mover advantage), and one of each player against
//! an opponent rated 0; it keeps ratings finite for 100% and 0% scores and
//! for small samples. The advantage and the draw parameter start from
//! BayesElo's defaults (32.8 and 97.3 Elo, what its `mm` keeps unless told
//! to fit them) under a normal prior worth about fifty games
//! ([`PARAMETER_PRIOR_SD`]): a handful of games leaves them near the
//! defaults, a long run fits them from its own games. Ratings are then
//! shifted so that the field's mean, or one anchor player, has the rating
//! asked for.
//!
//! Error bars are the larger of the bootstrap's spread and the posterior's
//! curvature (its inverse Hessian), so that a list of one pair, whose
//! resamples are all that pair, does not claim an error of zero.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::ratings::solve;
use super::score::Z95;

/// One game's result from the first mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The first mover won.
    Win,
    /// Drawn.
    Draw,
    /// The first mover lost.
    Loss,
}

/// One game between two players of the list (indices into it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Game {
    /// The player who moved first.
    pub first: usize,
    /// The other player.
    pub second: usize,
    /// What the first mover got.
    pub outcome: Outcome,
}

/// Where the list's scale is fixed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    /// The field's mean has this rating.
    Mean(f64),
    /// This player has this rating (and no error of its own).
    Player(usize, f64),
}

/// The fitted model.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Each player's rating, on the anchor's scale.
    pub ratings: Vec<f64>,
    /// The first mover's advantage, in Elo.
    pub advantage: f64,
    /// The draw parameter, in Elo (BayesElo's `drawelo`): the larger, the
    /// more draws between equal players.
    pub draw: f64,
}

/// A rating list: the fit on every game, and 95% error bars.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingList {
    /// The fit on the games as played.
    pub fit: Fit,
    /// Half-width of each rating's 95% interval (bootstrap).
    pub errors: Vec<f64>,
    /// Half-width of the advantage's 95% interval.
    pub advantage_error: f64,
}

const K: f64 = std::f64::consts::LN_10 / 400.0;
/// Virtual draws between every two players who met (BayesElo's default).
const PRIOR_DRAWS: f64 = 2.0;
/// BayesElo's default first-mover advantage, in Elo: the prior's centre.
pub const PRIOR_ADVANTAGE: f64 = 32.8;
/// BayesElo's default draw parameter (`drawelo`), in Elo: the prior's centre.
pub const PRIOR_DRAW: f64 = 97.3;
/// The standard deviation of the normal priors on the advantage and the
/// draw parameter, in Elo: about as much as fifty games tell of either.
pub const PARAMETER_PRIOR_SD: f64 = 50.0;
/// The largest draw parameter tried: the fit stops there when the games
/// leave it undetermined (every decisive game won by players who never
/// draw, say, or a field of nothing but draws).
pub const MAX_DRAW: f64 = 2000.0;

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-K * x).exp())
}

/// Counts of outcomes by pairing: `[first][second][outcome]`, the form
/// the likelihood is computed from.
#[derive(Clone, Debug)]
struct Counts {
    n: usize,
    cells: Vec<[f64; 3]>,
}

impl Counts {
    fn new(n: usize) -> Counts {
        Counts { n, cells: vec![[0.0; 3]; n * n] }
    }

    fn add(&mut self, g: &Game) {
        let o = match g.outcome {
            Outcome::Win => 0,
            Outcome::Draw => 1,
            Outcome::Loss => 2,
        };
        self.cells[g.first * self.n + g.second][o] += 1.0;
    }
}

/// The log-likelihood of one pairing's counts at rating difference `delta`
/// (advantage included) and draw parameter `draw`, with its first and
/// second derivatives in (delta, draw): `(value, [dΔ, dd], [dΔΔ, dΔd, ddd])`.
fn cell(counts: &[f64; 3], delta: f64, draw: f64) -> (f64, [f64; 2], [f64; 3]) {
    let (a, b) = (delta - draw, -delta - draw);
    let (fa, fb) = (logistic(a), logistic(b));
    let (da, db) = (K * fa * (1.0 - fa), K * fb * (1.0 - fb));
    let (dda, ddb) = (K * da * (1.0 - 2.0 * fa), K * db * (1.0 - 2.0 * fb));
    let (mut value, mut g, mut h) = (0.0, [0.0; 2], [0.0; 3]);
    let [wins, draws, losses] = *counts;
    if wins > 0.0 {
        // log F(a), a = Δ - d.
        let s = K * (1.0 - fa);
        let c = K * da;
        value += wins * fa.ln();
        g[0] += wins * s;
        g[1] -= wins * s;
        h[0] -= wins * c;
        h[1] += wins * c;
        h[2] -= wins * c;
    }
    if losses > 0.0 {
        // log F(b), b = -Δ - d.
        let s = K * (1.0 - fb);
        let c = K * db;
        value += losses * fb.ln();
        g[0] -= losses * s;
        g[1] -= losses * s;
        h[0] -= losses * c;
        h[1] -= losses * c;
        h[2] -= losses * c;
    }
    if draws > 0.0 {
        // log D, D = 1 - F(a) - F(b).
        let d = (1.0 - fa - fb).max(1e-300);
        let (d_delta, d_draw) = (-da + db, da + db);
        let (d_dd, d_dr, d_rr) = (-dda - ddb, dda - ddb, -dda - ddb);
        value += draws * d.ln();
        g[0] += draws * d_delta / d;
        g[1] += draws * d_draw / d;
        h[0] += draws * (d_dd / d - d_delta * d_delta / (d * d));
        h[1] += draws * (d_dr / d - d_delta * d_draw / (d * d));
        h[2] += draws * (d_rr / d - d_draw * d_draw / (d * d));
    }
    (value, g, h)
}

/// The log-likelihood (prior included) at `x = (ratings..., advantage,
/// draw)`, with its gradient and Hessian.
fn likelihood(c: &Counts, x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let n = c.n;
    let (adv, draw) = (n, n + 1);
    let mut value = 0.0;
    let mut grad = vec![0.0; n + 2];
    let mut hess = vec![vec![0.0; n + 2]; n + 2];
    // Adds `counts` at Δ = Σ s·x[p] over `terms` (parameter, sign).
    let mut add = |counts: &[f64; 3], terms: &[(usize, f64)]| {
        let delta: f64 = terms.iter().map(|&(p, s)| s * x[p]).sum();
        let (v, g, h) = cell(counts, delta, x[draw]);
        value += v;
        for &(p, s) in terms {
            grad[p] += s * g[0];
            hess[p][draw] += s * h[1];
            hess[draw][p] += s * h[1];
            for &(q, t) in terms {
                hess[p][q] += s * t * h[0];
            }
        }
        grad[draw] += g[1];
        hess[draw][draw] += h[2];
    };
    // One virtual draw of each player against a player rated 0, no advantage.
    for i in 0..n {
        add(&[0.0, 1.0, 0.0], &[(i, 1.0)]);
    }
    for i in 0..n {
        for j in 0..n {
            let counts = c.cells[i * n + j];
            if counts.iter().all(|&k| k == 0.0) {
                continue;
            }
            // The prior's virtual draws, once a pair, without the advantage.
            let met_before = c.cells[j * n + i].iter().any(|&k| k > 0.0);
            if !(met_before && j < i) {
                add(&[0.0, PRIOR_DRAWS, 0.0], &[(i, 1.0), (j, -1.0)]);
            }
            add(&counts, &[(i, 1.0), (j, -1.0), (adv, 1.0)]);
        }
    }
    // Normal priors on the advantage and the draw parameter.
    let precision = 1.0 / (PARAMETER_PRIOR_SD * PARAMETER_PRIOR_SD);
    for (p, centre) in [(adv, PRIOR_ADVANTAGE), (draw, PRIOR_DRAW)] {
        value -= 0.5 * precision * (x[p] - centre).powi(2);
        grad[p] -= precision * (x[p] - centre);
        hess[p][p] -= precision;
    }
    (value, grad, hess)
}

/// The maximum-likelihood parameters `(ratings..., advantage, draw)` by
/// Newton's method with a backtracking line search (the log-likelihood is
/// concave in them; the draw parameter is kept at 0 or more).
fn maximise(c: &Counts) -> Vec<f64> {
    let n = c.n;
    let mut x = vec![0.0; n + 2];
    (x[n], x[n + 1]) = (PRIOR_ADVANTAGE, PRIOR_DRAW);
    let (mut value, mut grad, mut hess) = likelihood(c, &x);
    for _ in 0..200 {
        let minus: Vec<Vec<f64>> = hess.iter().map(|row| row.iter().map(|h| -h).collect()).collect();
        let mut step = solve(&minus, &grad);
        // Far from the optimum a Newton step can overshoot: at most 400 Elo.
        let longest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        if longest > 400.0 {
            step.iter_mut().for_each(|s| *s *= 400.0 / longest);
        }
        let mut scale = 1.0;
        let mut moved = false;
        while scale > 1e-6 {
            let mut next: Vec<f64> = x.iter().zip(&step).map(|(a, s)| a + scale * s).collect();
            next[n + 1] = next[n + 1].clamp(0.0, MAX_DRAW);
            let (v, g, h) = likelihood(c, &next);
            if v.is_finite() && v >= value - 1e-12 {
                let change = x.iter().zip(&next).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                (x, value, grad, hess) = (next, v, g, h);
                moved = change > 1e-9;
                break;
            }
            scale /= 2.0;
        }
        if !moved {
            break;
        }
    }
    x
}

/// Shifts fitted ratings so that `anchor` holds.
fn anchored(mut ratings: Vec<f64>, anchor: Anchor) -> Vec<f64> {
    let shift = match anchor {
        Anchor::Mean(at) => at - ratings.iter().sum::<f64>() / ratings.len().max(1) as f64,
        Anchor::Player(p, at) => at - ratings[p],
    };
    ratings.iter_mut().for_each(|r| *r += shift);
    ratings
}

/// The maximum-likelihood fit of `games` between `n` players.
pub fn fit(n: usize, games: &[Game], anchor: Anchor) -> Fit {
    fitted(n, games, anchor).0
}

/// The fit, and the 95% half-widths the posterior's curvature gives each
/// rating (on the anchor's scale: none for the anchor) and the advantage.
fn fitted(n: usize, games: &[Game], anchor: Anchor) -> (Fit, Vec<f64>, f64) {
    let mut counts = Counts::new(n);
    games.iter().for_each(|g| counts.add(g));
    let x = maximise(&counts);
    let (_, _, hess) = likelihood(&counts, &x);
    let information: Vec<Vec<f64>> = hess.iter().map(|row| row.iter().map(|h| -h).collect()).collect();
    // The variance of c·x under the posterior's normal approximation.
    let half_width = |c: &[f64]| {
        let y = solve(&information, c);
        Z95 * c.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>().max(0.0).sqrt()
    };
    let errors = (0..n)
        .map(|i| {
            let mut c = vec![0.0; n + 2];
            match anchor {
                Anchor::Mean(_) => {
                    c[..n].iter_mut().for_each(|v| *v = -1.0 / n as f64);
                    c[i] += 1.0;
                }
                Anchor::Player(p, _) => {
                    c[i] += 1.0;
                    c[p] -= 1.0;
                }
            }
            half_width(&c)
        })
        .collect();
    let mut c = vec![0.0; n + 2];
    c[n] = 1.0;
    let advantage_error = half_width(&c);
    (Fit { ratings: anchored(x[..n].to_vec(), anchor), advantage: x[n], draw: x[n + 1] }, errors, advantage_error)
}

/// The rating list of `n` players from `encounters` (each a game pair, or
/// a single game): the fit on every game, and each rating's 95% error from
/// `resamples` bootstrap resamples of the encounters (seeded by `seed`).
pub fn rating_list(n: usize, encounters: &[Vec<Game>], anchor: Anchor, resamples: u32, seed: u64) -> RatingList {
    let all: Vec<Game> = encounters.iter().flatten().copied().collect();
    let (fitted, curvature, advantage_curvature) = fitted(n, &all, anchor);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut samples: Vec<Fit> = Vec::new();
    for _ in 0..resamples {
        let resample: Vec<Game> = (0..encounters.len())
            .flat_map(|_| encounters[rng.random_range(0..encounters.len())].iter().copied())
            .collect();
        samples.push(fit(n, &resample, anchor));
    }
    let spread = |value: &dyn Fn(&Fit) -> f64| {
        if samples.len() < 2 {
            return f64::NAN;
        }
        let mean = samples.iter().map(value).sum::<f64>() / samples.len() as f64;
        let var = samples.iter().map(|s| (value(s) - mean).powi(2)).sum::<f64>() / (samples.len() - 1) as f64;
        Z95 * var.sqrt()
    };
    // The larger of the two: a bootstrap over few encounters varies little
    // (over one, not at all) though the ratings are barely known.
    let larger =
        |bootstrap: f64, curvature: f64| if bootstrap.is_finite() { bootstrap.max(curvature) } else { curvature };
    let errors = (0..n).map(|i| larger(spread(&|f: &Fit| f.ratings[i]), curvature[i])).collect();
    let advantage_error = larger(spread(&|f: &Fit| f.advantage), advantage_curvature);
    RatingList { fit: fitted, errors, advantage_error }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log-likelihood written out plainly, apart from the fast one: the
    /// reference the fit is checked against.
    fn plain_likelihood(n: usize, games: &[Game], r: &[f64], adv: f64, draw: f64) -> f64 {
        let f = |x: f64| 1.0 / (1.0 + 10f64.powf(-x / 400.0));
        let p = |delta: f64, o: Outcome| match o {
            Outcome::Win => f(delta - draw),
            Outcome::Loss => f(-delta - draw),
            Outcome::Draw => 1.0 - f(delta - draw) - f(-delta - draw),
        };
        let mut prior: f64 = (0..n).map(|i| p(r[i], Outcome::Draw).ln()).sum();
        for i in 0..n {
            for j in i + 1..n {
                if games.iter().any(|g| (g.first, g.second) == (i, j) || (g.first, g.second) == (j, i)) {
                    prior += 2.0 * p(r[i] - r[j], Outcome::Draw).ln();
                }
            }
        }
        let normal = |v: f64, centre: f64| -0.5 * ((v - centre) / PARAMETER_PRIOR_SD).powi(2);
        prior += normal(adv, PRIOR_ADVANTAGE) + normal(draw, PRIOR_DRAW);
        prior + games.iter().map(|g| p(r[g.first] - r[g.second] + adv, g.outcome).ln()).sum::<f64>()
    }

    fn crafted() -> Vec<Game> {
        use Outcome::*;
        let mut games = Vec::new();
        let mut add = |first, second, outcome, times| {
            for _ in 0..times {
                games.push(Game { first, second, outcome });
            }
        };
        // Player 0 is strongest, 2 weakest; the first mover does better.
        add(0, 1, Win, 5);
        add(0, 1, Draw, 4);
        add(0, 1, Loss, 1);
        add(1, 0, Win, 2);
        add(1, 0, Draw, 5);
        add(1, 0, Loss, 3);
        add(1, 2, Win, 6);
        add(1, 2, Draw, 3);
        add(1, 2, Loss, 1);
        add(2, 1, Win, 3);
        add(2, 1, Draw, 3);
        add(2, 1, Loss, 4);
        add(0, 2, Win, 4);
        add(2, 0, Loss, 3);
        add(2, 0, Draw, 1);
        games
    }

    #[test]
    fn the_fit_is_the_maximum_a_brute_force_search_finds() {
        let games = crafted();
        // The fit before any shift: the prior fixes the scale itself.
        let mut counts = Counts::new(3);
        games.iter().for_each(|g| counts.add(g));
        let x = maximise(&counts);
        let best = plain_likelihood(3, &games, &x[..3], x[3], x[4]);
        // A brute-force search: coordinate-wise over a grid around the best
        // point so far, sweeping until no coordinate improves, then a finer
        // grid, from 0.
        let mut y = [0.0, 0.0, 0.0, 0.0, 100.0];
        let mut width = 400.0;
        while width > 0.001 {
            for _ in 0..500 {
                let before = plain_likelihood(3, &games, &y[..3], y[3], y[4]);
                for p in 0..5 {
                    let mut best_here = (plain_likelihood(3, &games, &y[..3], y[3], y[4]), y[p]);
                    for k in -20..=20 {
                        let mut z = y;
                        z[p] = y[p] + width * k as f64 / 20.0;
                        if p == 4 && z[p] < 0.0 {
                            continue;
                        }
                        let v = plain_likelihood(3, &games, &z[..3], z[3], z[4]);
                        if v > best_here.0 {
                            best_here = (v, z[p]);
                        }
                    }
                    y[p] = best_here.1;
                }
                if plain_likelihood(3, &games, &y[..3], y[3], y[4]) <= before + 1e-12 {
                    break;
                }
            }
            width /= 4.0;
        }
        let brute = plain_likelihood(3, &games, &y[..3], y[3], y[4]);
        assert!(best >= brute - 1e-9, "Newton {best} below brute force {brute}");
        for p in 0..5 {
            assert!((x[p] - y[p]).abs() < 0.5, "parameter {p}: Newton {} brute force {}", x[p], y[p]);
        }
        // The crafted field: 0 above 1 above 2, the first mover ahead, draws common.
        assert!(x[0] > x[1] && x[1] > x[2], "{x:?}");
        assert!(x[3] > 0.0 && x[4] > 0.0, "{x:?}");
    }

    #[test]
    fn the_anchor_fixes_the_scale_and_keeps_the_differences() {
        let games = crafted();
        let mean = fit(3, &games, Anchor::Mean(1500.0));
        assert!((mean.ratings.iter().sum::<f64>() / 3.0 - 1500.0).abs() < 1e-9);
        let anchored = fit(3, &games, Anchor::Player(2, 2000.0));
        assert!((anchored.ratings[2] - 2000.0).abs() < 1e-9);
        let gap = |f: &Fit| f.ratings[0] - f.ratings[1];
        assert!((gap(&mean) - gap(&anchored)).abs() < 1e-6);
        assert!((mean.advantage - anchored.advantage).abs() < 1e-9);
    }

    #[test]
    fn a_perfect_score_gives_a_finite_rating_and_no_draws_a_zero_draw_parameter() {
        let games: Vec<Game> = (0..10)
            .map(|i| Game { first: i % 2, second: 1 - i % 2, outcome: [Outcome::Win, Outcome::Loss][i % 2] })
            .collect();
        // Player 0 wins every game, with either colour.
        let f = fit(2, &games, Anchor::Mean(0.0));
        assert!(f.ratings[0].is_finite() && f.ratings[0] > 100.0, "{f:?}");
        assert!(f.draw >= 0.0);
    }

    #[test]
    fn error_bars_shrink_with_more_pairs_and_the_anchor_has_none() {
        let pairs = |times: usize| -> Vec<Vec<Game>> {
            let games = crafted();
            (0..times).flat_map(|_| games.chunks(2).map(<[Game]>::to_vec).collect::<Vec<_>>()).collect()
        };
        let few = rating_list(3, &pairs(1), Anchor::Mean(0.0), 200, 7);
        let many = rating_list(3, &pairs(8), Anchor::Mean(0.0), 200, 7);
        for i in 0..3 {
            assert!(many.errors[i] < few.errors[i], "{:?} vs {:?}", many.errors, few.errors);
        }
        // The same seed gives the same list.
        assert_eq!(
            rating_list(3, &pairs(1), Anchor::Mean(0.0), 50, 3),
            rating_list(3, &pairs(1), Anchor::Mean(0.0), 50, 3)
        );
        let anchored = rating_list(3, &pairs(2), Anchor::Player(0, 0.0), 100, 7);
        assert!(anchored.errors[0] < 1e-9, "{:?}", anchored.errors);
    }

    /// One tournament of two games used to give `1002.8 ± 0.0`, an
    /// advantage of -2052.4 ± 0.0 and a draw parameter at its bound: the
    /// priors keep the advantage and the draw parameter near BayesElo's
    /// defaults, and no error bar is zero.
    #[test]
    fn two_games_give_modest_figures_with_honest_error_bars() {
        let pair = vec![vec![
            Game { first: 0, second: 1, outcome: Outcome::Loss },
            Game { first: 1, second: 0, outcome: Outcome::Loss },
        ]];
        let list = rating_list(2, &pair, Anchor::Mean(1000.0), 200, 1);
        assert!((list.fit.advantage - PRIOR_ADVANTAGE).abs() < 50.0, "{:?}", list.fit);
        assert!(list.fit.draw < MAX_DRAW && (list.fit.draw - PRIOR_DRAW).abs() < 100.0, "{:?}", list.fit);
        for e in list.errors.iter().chain([&list.advantage_error]) {
            assert!(e.is_finite() && *e > 50.0, "an error bar of {e} from two games: {list:?}");
        }
        let unresampled = rating_list(2, &pair, Anchor::Mean(1000.0), 0, 1);
        assert!(unresampled.errors.iter().all(|e| e.is_finite() && *e > 50.0), "{unresampled:?}");
    }

    /// Thousands of games fit the advantage and the draw parameter from
    /// the games themselves, far from the prior's centre when they say so.
    #[test]
    fn many_games_fit_the_advantage_and_the_draw_rate_from_the_games() {
        use Outcome::*;
        // Equal players; the first mover scores 70% with 20% draws.
        let pattern = [Win, Win, Win, Win, Win, Win, Draw, Draw, Loss, Loss];
        let games: Vec<Game> =
            (0..4000).map(|i| Game { first: i % 2, second: 1 - i % 2, outcome: pattern[(i / 2) % 10] }).collect();
        let f = fit(2, &games, Anchor::Mean(0.0));
        assert!(f.advantage > 150.0, "{f:?}");
        assert!((f.ratings[0] - f.ratings[1]).abs() < 10.0, "{f:?}");
    }
}
