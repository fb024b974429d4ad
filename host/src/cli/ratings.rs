//! `arbiter ratings`: a rating list over stored tournaments, one table per
//! variant: maximum-likelihood ratings with the first mover's advantage and
//! the draw rate fitted beside them, 95% error bars by bootstrap over game
//! pairs, on the scale of an anchor player or of the field's mean.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use clap::Args;

use super::out::say;
use arbiter_store::Store;
use arbiter_tournament::rating_list::{rated_games, scale, table, Table, GAMES_TO_RANK};

/// Arguments of `arbiter ratings`.
#[derive(Args, Debug)]
pub struct RatingsArgs {
    /// The store: an SQLite file or a postgres:// URL.
    #[arg(long, default_value = "arbiter.db")]
    db: PathBuf,
    /// Only these tournaments (repeatable; default: every stored one).
    #[arg(long = "tournament", value_name = "ID")]
    tournaments: Vec<i64>,
    /// Only this variant.
    #[arg(long)]
    variant: Option<String>,
    /// Fix one player's rating (`NAME=ELO`, as Ordo's anchor); without it
    /// the field's mean has the rating of --average.
    #[arg(long, value_name = "NAME=ELO")]
    anchor: Option<String>,
    /// The field's mean rating when no player is anchored.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    average: f64,
    /// Bootstrap resamples of the game pairs for the error bars.
    #[arg(long, default_value_t = 200)]
    bootstrap: u32,
    /// Seed of the bootstrap (the same seed gives the same error bars).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub(super) fn run(args: &RatingsArgs) -> Result<()> {
    let store = Store::open(&args.db)?;
    let anchor = args
        .anchor
        .as_deref()
        .map(|a| {
            let (name, elo) = a.split_once('=').ok_or_else(|| anyhow!("--anchor '{a}' must be NAME=ELO"))?;
            let elo: f64 = elo.trim().parse().map_err(|_| anyhow!("--anchor '{a}': '{elo}' is not a rating"))?;
            Ok::<_, anyhow::Error>((name.trim().to_string(), elo))
        })
        .transpose()?;
    let lists: Vec<_> = rated_games(&store, &args.tournaments)?
        .into_iter()
        .filter(|l| args.variant.as_ref().is_none_or(|v| &l.variant == v))
        .collect();
    if lists.is_empty() {
        bail!("no finished two-player games to rate in {}", args.db.display());
    }
    if let Some((name, _)) = &anchor {
        if !lists.iter().any(|l| l.players.contains(name)) {
            bail!("--anchor: no player '{name}' in the rated games");
        }
    }
    for (n, list) in lists.iter().enumerate() {
        if n > 0 {
            say!();
        }
        let anchor = scale(list, anchor.as_ref().map(|(name, elo)| (name.as_str(), *elo)), args.average);
        say!("{}", render(&table(list, anchor, args.bootstrap, args.seed)));
    }
    Ok(())
}

/// One variant's list as text.
fn render(t: &Table) -> String {
    let tournaments: Vec<String> = t.tournaments.iter().map(i64::to_string).collect();
    let mut out = format!(
        "{}: {} games in {} pairs or single games, from tournament(s) {}\n",
        t.variant,
        t.games,
        t.encounters,
        tournaments.join(", ")
    );
    let width = t.rows.iter().map(|r| r.name.len()).max().unwrap_or(6).max(6);
    let error = |e: Option<f64>| e.map_or_else(|| "-".to_string(), |e| format!("{e:.1}"));
    out += &format!(
        "{:>3}  {:<width$}  {:>8}  {:>6}  {:>5}  {:>6}  {:>6}\n",
        "#", "player", "rating", "±95%", "games", "score", "draws"
    );
    for (rank, r) in t.rows.iter().enumerate() {
        let share = |x: f64| 100.0 * x / f64::from(r.games.max(1));
        out += &format!(
            "{:>3}  {:<width$}  {:>8.1}  {:>6}  {:>5}  {:>5.1}%  {:>5.1}%\n",
            rank + 1,
            r.name,
            r.rating,
            error(r.error),
            r.games,
            share(r.points),
            share(f64::from(r.draws)),
        );
    }
    let adv_error = t.advantage_error.map(|e| format!(" ± {e:.1}")).unwrap_or_default();
    let bound = if t.draw_at_bound { " (its bound: these games do not fix it)" } else { "" };
    out +=
        &format!("first mover's advantage {:+.1}{adv_error} Elo; draw parameter {:.1} Elo{bound}", t.advantage, t.draw);
    if t.too_few_to_rank {
        let fewest = t.rows.iter().map(|r| r.games).min().unwrap_or(0);
        out += &format!(
            "\ntoo few games to rank: a player with {fewest} game(s) (a ranking needs {GAMES_TO_RANK} each); the \
             order above is no ranking, the error bars say how little is known"
        );
    }
    out
}
