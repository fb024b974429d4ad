//! Ratings for a whole field by maximum likelihood, in the manner of Ordo:
//! the logistic (Bradley-Terry) model `E(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400))`,
//! a draw counting as half a win and half a loss. Every player also gets one
//! virtual draw against a fixed opponent rated 0, a weak prior that keeps
//! ratings finite for 100% and 0% scores (BayesElo uses a similar prior).
//! Ratings are then shifted so that the field's mean is 0. The 95% error bar
//! of each rating comes from the inverse Fisher information (Newton's Hessian).

use super::score::Z95;

/// One player's rating and its 95% error bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// Rating relative to the field's mean.
    pub elo: f64,
    /// Half-width of the 95% confidence interval.
    pub error: f64,
}

/// Results between players: `points[i][j]` is what i scored against j over
/// `games[i][j]` games.
#[derive(Clone, Debug, Default)]
pub struct ResultMatrix {
    /// Points scored by row against column.
    pub points: Vec<Vec<f64>>,
    /// Games played between row and column.
    pub games: Vec<Vec<f64>>,
}

impl ResultMatrix {
    /// An empty matrix for `n` players.
    pub fn new(n: usize) -> Self {
        ResultMatrix { points: vec![vec![0.0; n]; n], games: vec![vec![0.0; n]; n] }
    }

    /// Adds one game: `score` is what `a` scored against `b` (1, 0.5 or 0).
    pub fn add(&mut self, a: usize, b: usize, score: f64) {
        self.add_many(a, b, score, 1.0);
    }

    /// Adds `games` games in which `a` scored `score` each against `b`.
    pub fn add_many(&mut self, a: usize, b: usize, score: f64, games: f64) {
        self.points[a][b] += score * games;
        self.points[b][a] += (1.0 - score) * games;
        self.games[a][b] += games;
        self.games[b][a] += games;
    }

    fn n(&self) -> usize {
        self.points.len()
    }
}

const K: f64 = std::f64::consts::LN_10 / 400.0;

fn expected(ri: f64, rj: f64) -> f64 {
    1.0 / (1.0 + (K * (rj - ri)).exp())
}

/// Maximum-likelihood ratings with 95% error bars (see the module documentation).
pub fn ratings(m: &ResultMatrix) -> Vec<Rating> {
    let n = m.n();
    let mut r = vec![0.0; n];
    // Newton's method on the log-likelihood; the prior keeps the Hessian
    // negative definite, so this converges in a handful of steps.
    let mut hessian = vec![vec![0.0; n]; n];
    for _ in 0..100 {
        let mut grad = vec![0.0; n];
        for row in hessian.iter_mut() {
            row.iter_mut().for_each(|h| *h = 0.0);
        }
        for i in 0..n {
            // The virtual draw against the anchor at 0.
            let e = expected(r[i], 0.0);
            grad[i] += K * (0.5 - e);
            hessian[i][i] += K * K * e * (1.0 - e);
            for j in 0..n {
                if i == j || m.games[i][j] == 0.0 {
                    continue;
                }
                let e = expected(r[i], r[j]);
                grad[i] += K * (m.points[i][j] - m.games[i][j] * e);
                let w = K * K * m.games[i][j] * e * (1.0 - e);
                hessian[i][i] += w;
                hessian[i][j] -= w;
            }
        }
        let step = solve(&hessian, &grad);
        let mut biggest: f64 = 0.0;
        for i in 0..n {
            // Damped steps keep Newton stable far from the optimum.
            let s = step[i].clamp(-400.0, 400.0);
            r[i] += s;
            biggest = biggest.max(s.abs());
        }
        if biggest < 1e-9 {
            break;
        }
    }
    let covariance = invert(&hessian);
    let mean = r.iter().sum::<f64>() / n.max(1) as f64;
    (0..n)
        .map(|i| {
            // Variance of r_i minus the field's mean: v' C v with v = e_i - 1/n.
            let v = |k: usize| if k == i { 1.0 } else { 0.0 } - 1.0 / n as f64;
            let var: f64 = (0..n).map(|a| (0..n).map(|b| v(a) * covariance[a][b] * v(b)).sum::<f64>()).sum();
            Rating { elo: r[i] - mean, error: Z95 * var.max(0.0).sqrt() }
        })
        .collect()
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
pub(super) fn solve(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a.iter().zip(b).map(|(row, &bi)| row.iter().copied().chain([bi]).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs())).unwrap_or(col);
        m.swap(col, pivot);
        let p = m[col][col];
        if p.abs() < 1e-300 {
            continue;
        }
        let pivot_row = m[col].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / p;
                for (x, pv) in row.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * pv;
                }
            }
        }
    }
    (0..n).map(|i| if m[i][i].abs() < 1e-300 { 0.0 } else { m[i][n] / m[i][i] }).collect()
}

fn invert(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let columns: Vec<Vec<f64>> =
        (0..n).map(|c| solve(a, &(0..n).map(|r| if r == c { 1.0 } else { 0.0 }).collect::<Vec<_>>())).collect();
    (0..n).map(|r| (0..n).map(|c| columns[c][r]).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values from an independent Python implementation of the same
    // model (coordinate-wise golden-section ascent on the log-likelihood with the
    // same prior, errors from a finite-difference Hessian), run once and pinned.
    #[test]
    fn two_players_with_sixty_percent_score() {
        let mut m = ResultMatrix::new(2);
        for _ in 0..50 {
            m.add(0, 1, 1.0);
        }
        for _ in 0..30 {
            m.add(0, 1, 0.0);
        }
        for _ in 0..20 {
            m.add(0, 1, 0.5);
        }
        let r = ratings(&m);
        assert!((r[0].elo + r[1].elo).abs() < 1e-9, "mean is zero");
        assert!((r[0].elo - 35.039).abs() < 0.01, "{r:?}");
        assert!((r[0].error - 34.654).abs() < 0.01, "{r:?}");
    }

    #[test]
    fn a_perfect_score_stays_finite_and_ordering_follows_results() {
        let mut m = ResultMatrix::new(3);
        for _ in 0..10 {
            m.add(0, 1, 1.0);
            m.add(1, 2, 1.0);
            m.add(0, 2, 1.0);
        }
        let r = ratings(&m);
        assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo, "{r:?}");
        assert!(r.iter().all(|x| x.elo.is_finite() && x.error.is_finite()));
        assert!((r[0].elo - 536.579).abs() < 0.01 && r[1].elo.abs() < 0.01, "{r:?}");
        assert!((r[0].error - 361.059).abs() < 0.05 && (r[1].error - 239.803).abs() < 0.05, "{r:?}");
    }
}
