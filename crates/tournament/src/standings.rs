//! Standings of a tournament, overall and per variant: points, wins, draws,
//! losses, byes, maximum-likelihood Elo with 95% error bars, a crosstable,
//! and for each pair of entrants the pentanomial counts of their paired games.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use arbiter_core::model::Seat;
use arbiter_core::stats::ratings::{ratings, ResultMatrix};
use arbiter_core::stats::sprt::Pentanomial;
use arbiter_store::{PairTally, Tallies, Tally};

/// One row of a table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// Entrant index.
    pub entrant: usize,
    /// Games with a result.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Points from byes.
    pub bye_points: f64,
    /// Elo (field mean 0) and its 95% error.
    pub elo: f64,
    /// Half-width of the 95% interval.
    pub error: f64,
}

impl Row {
    /// Points: wins, half the draws, and byes.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0 + self.bye_points
    }
}

/// A standings table over some games.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Rows, best first.
    pub rows: Vec<Row>,
    /// `cross[i][j]`: (points of i against j, games).
    pub cross: Vec<Vec<(f64, u32)>>,
    /// `pairs[i][j]`: i's wins, losses and draws against j.
    pub pairs: Vec<Vec<arbiter_core::stats::Score>>,
    /// Pentanomial counts from the first entrant's side, by entrant pair (i < j).
    pub pentanomial: BTreeMap<(usize, usize), Pentanomial>,
    /// Games without a result (crashed plugins, interrupted games).
    pub unfinished: u32,
}

/// Builds a table over counted games and pairs (see [`Tallies`]) for `n`
/// entrants; `byes[e]` is entrant e's bye points.
pub fn table(n: usize, games: &[&Tally], pairs: &[&PairTally], byes: &[f64]) -> Table {
    let mut rows: Vec<Row> =
        (0..n).map(|e| Row { entrant: e, bye_points: byes.get(e).copied().unwrap_or(0.0), ..Row::default() }).collect();
    let mut cross = vec![vec![(0.0, 0u32); n]; n];
    let mut pair_scores = vec![vec![arbiter_core::stats::Score::default(); n]; n];
    let mut matrix = ResultMatrix::new(n);
    let mut unfinished = 0;
    for g in games {
        let count = g.games as u32;
        let (a, b) = match g.seats[..] {
            [a, b] if g.decided && a < n && b < n => (a, b),
            _ => {
                unfinished += count;
                continue;
            }
        };
        let score_a = match g.winner {
            Some(Seat::FIRST) => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        for (e, s) in [(a, score_a), (b, 1.0 - score_a)] {
            rows[e].games += count;
            if s == 1.0 {
                rows[e].wins += count;
            } else if s == 0.0 {
                rows[e].losses += count;
            } else {
                rows[e].draws += count;
            }
        }
        for (x, y, s) in [(a, b, score_a), (b, a, 1.0 - score_a)] {
            let sc = &mut pair_scores[x][y];
            if s == 1.0 {
                sc.wins += count;
            } else if s == 0.0 {
                sc.losses += count;
            } else {
                sc.draws += count;
            }
        }
        cross[a][b].0 += score_a * count as f64;
        cross[a][b].1 += count;
        cross[b][a].0 += (1.0 - score_a) * count as f64;
        cross[b][a].1 += count;
        matrix.add_many(a, b, score_a, count as f64);
    }
    for (e, r) in ratings(&matrix).into_iter().enumerate() {
        rows[e].elo = r.elo;
        rows[e].error = r.error;
    }
    let mut pentanomial: BTreeMap<(usize, usize), Pentanomial> = BTreeMap::new();
    for p in pairs {
        pentanomial.entry(p.entrants).or_default().counts[usize::from(p.half_points.min(4))] += p.pairs as u32;
    }
    rows.sort_by(|x, y| {
        y.points().total_cmp(&x.points()).then(y.elo.total_cmp(&x.elo)).then(x.entrant.cmp(&y.entrant))
    });
    Table { rows, cross, pairs: pair_scores, pentanomial, unfinished }
}

/// The standings text: one table overall and one per variant when several.
pub fn render(names: &[String], variants: &[String], tallies: &Tallies, byes: &[f64]) -> String {
    let mut out = String::new();
    let (games, pairs) = of_variant(tallies, None);
    render_table(&mut out, "overall", names, &table(names.len(), &games, &pairs, byes));
    if variants.len() > 1 {
        for v in variants {
            let (games, pairs) = of_variant(tallies, Some(v));
            render_table(&mut out, v, names, &table(names.len(), &games, &pairs, &vec![0.0; names.len()]));
        }
    }
    out
}

/// The tallies of one variant (all of them for `None`).
pub fn of_variant<'a>(tallies: &'a Tallies, variant: Option<&str>) -> (Vec<&'a Tally>, Vec<&'a PairTally>) {
    let keep = |v: &str| variant.is_none_or(|only| only == v);
    (
        tallies.games.iter().filter(|g| keep(&g.variant)).collect(),
        tallies.pairs.iter().filter(|p| keep(&p.variant)).collect(),
    )
}

fn render_table(out: &mut String, title: &str, names: &[String], t: &Table) {
    let games: u32 = t.rows.iter().map(|r| r.games).sum::<u32>() / 2;
    let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(6).max(6);
    let _ = writeln!(
        out,
        "Standings ({title}, {games} games{}):",
        if t.unfinished > 0 { format!(", {} without result", t.unfinished) } else { String::new() }
    );
    // Byes score points without a game: a column says how many, when any did.
    let byes = t.rows.iter().any(|r| r.bye_points > 0.0);
    let bye_head = if byes { format!("  {:>4}", "Bye") } else { String::new() };
    let _ = writeln!(
        out,
        "{:>3}  {:<w$}  {:>5}  {:>6}  {:>4}  {:>4}  {:>4}{bye_head}  {:>7}  {:>6}  {:>5}",
        "#", "Player", "Games", "Points", "W", "D", "L", "Elo", "+/-", "Draw%"
    );
    for (rank, r) in t.rows.iter().enumerate() {
        let draw_pct = if r.games == 0 { 0.0 } else { 100.0 * r.draws as f64 / r.games as f64 };
        let bye = if byes { format!("  {:>4.1}", r.bye_points) } else { String::new() };
        let _ = writeln!(
            out,
            "{:>3}  {:<w$}  {:>5}  {:>6.1}  {:>4}  {:>4}  {:>4}{bye}  {:>7.1}  {:>6.1}  {:>5.1}",
            rank + 1,
            names[r.entrant],
            r.games,
            r.points(),
            r.wins,
            r.draws,
            r.losses,
            r.elo + 0.0,
            r.error,
            draw_pct
        );
    }
    // Rows and columns in this table's order, numbered by its ranks.
    let _ = writeln!(out, "Crosstable (points/games, row against column; numbers are the ranks above):");
    let cw = 9;
    let _ = write!(out, "{:>3}  {:<w$}", "", "");
    for rank in 0..t.rows.len() {
        let _ = write!(out, "  {:>cw$}", format!("#{}", rank + 1));
    }
    out.push('\n');
    for (rank, r) in t.rows.iter().enumerate() {
        let _ = write!(out, "{:>3}  {:<w$}", format!("#{}", rank + 1), names[r.entrant]);
        for c in t.rows.iter().map(|col| col.entrant) {
            let (p, g) = t.cross[r.entrant][c];
            let cell = if c == r.entrant {
                "-".to_string()
            } else if g == 0 {
                ".".to_string()
            } else {
                format!("{p}/{g}")
            };
            let _ = write!(out, "  {cell:>cw$}");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "Head to head (W-L-D for the first, likelihood of superiority; pentanomial 0..2 points per pair):"
    );
    for a in 0..names.len() {
        for b in a + 1..names.len() {
            let s = t.pairs[a][b];
            if s.games() == 0 {
                continue;
            }
            let penta = match t.pentanomial.get(&(a, b)) {
                Some(p) => {
                    let c = p.counts;
                    format!("  pairs [{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4])
                }
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "  {} vs {}: {}-{}-{}  LOS {:.1} %{penta}",
                names[a],
                names[b],
                s.wins,
                s.losses,
                s.draws,
                s.los() * 100.0
            );
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::{render, table};
    use arbiter_core::model::Seat;
    use arbiter_store::{PairTally, Tallies, Tally};

    fn tally(seats: [usize; 2], winner: Option<u32>, games: u64) -> Tally {
        Tally { variant: "chess".into(), seats: seats.to_vec(), winner: winner.map(Seat::new), decided: true, games }
    }

    #[test]
    fn a_table_counts_points_by_entrant_whichever_seat_it_had_and_ranks_by_points() {
        let games = [
            tally([0, 1], Some(0), 3),
            tally([1, 0], Some(1), 1),
            tally([1, 0], None, 2),
            tally([2, 0], Some(0), 1),
            Tally { decided: false, ..tally([0, 2], None, 4) },
        ];
        let refs: Vec<&Tally> = games.iter().collect();
        let t = table(3, &refs, &[], &[0.0, 0.0, 1.0]);
        let order: Vec<usize> = t.rows.iter().map(|r| r.entrant).collect();
        assert_eq!(order, [0, 2, 1], "{:?}", t.rows);
        // The winner is a seat: entrant 0 won from the second seat too.
        let zero = &t.rows[0];
        assert_eq!((zero.games, zero.wins, zero.draws, zero.losses, zero.points()), (7, 4, 2, 1, 5.0));
        assert_eq!(t.rows[1].points(), 2.0, "entrant 2's win and its bye");
        let one = &t.rows[2];
        assert_eq!((one.games, one.wins, one.draws, one.losses, one.points()), (6, 0, 2, 4, 1.0));
        assert_eq!(t.cross[0][1], (5.0, 6));
        assert_eq!(t.cross[1][0], (1.0, 6));
        assert_eq!(t.unfinished, 4, "games without a result count for nobody");
        assert!(t.rows[0].elo > t.rows[2].elo);
    }

    #[test]
    fn pairs_are_counted_pentanomially_and_rendered_per_variant() {
        let pairs = [
            PairTally { variant: "chess".into(), entrants: (0, 1), half_points: 4, pairs: 2 },
            PairTally { variant: "chess".into(), entrants: (0, 1), half_points: 2, pairs: 1 },
        ];
        let refs: Vec<&PairTally> = pairs.iter().collect();
        let t = table(2, &[], &refs, &[]);
        assert_eq!(t.pentanomial[&(0, 1)].counts, [0, 0, 1, 0, 2]);
        let games = vec![tally([0, 1], Some(0), 1), Tally { variant: "xiangqi".into(), ..tally([1, 0], None, 1) }];
        let tallies = Tallies { games, pairs: vec![] };
        let names = vec!["alpha".to_string(), "beta".to_string()];
        let text = render(&names, &["chess".into(), "xiangqi".into()], &tallies, &[]);
        for needed in ["alpha", "beta", "chess", "xiangqi"] {
            assert!(text.contains(needed), "{needed} in:\n{text}");
        }
    }
}
