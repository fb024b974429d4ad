//! The games of stored tournaments gathered for a rating list: players
//! known by their entrant names across tournaments, one list per variant,
//! each tournament's game pairs kept together (the bootstrap's unit), and
//! the list's table as `arbiter ratings` prints it and the web view shows
//! it. Reads the store alone, through [`TournamentView`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::Result;
use super::view::TournamentView;
use arbiter_core::model::Seat;
use arbiter_core::stats::rating_list::{rating_list, Anchor, Game, Outcome, MAX_DRAW};
use arbiter_store::Store;

/// The rated games of one variant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VariantGames {
    /// The variant id.
    pub variant: String,
    /// The players, by entrant name, in order of first appearance.
    pub players: Vec<String>,
    /// The games, a pair (or a lone game) each.
    pub encounters: Vec<Vec<Game>>,
    /// The tournaments the games come from.
    pub tournaments: Vec<i64>,
}

impl VariantGames {
    /// How many games.
    pub fn games(&self) -> usize {
        self.encounters.iter().map(Vec::len).sum()
    }

    fn player(&mut self, name: &str) -> usize {
        match self.players.iter().position(|p| p == name) {
            Some(i) => i,
            None => {
                self.players.push(name.to_string());
                self.players.len() - 1
            }
        }
    }
}

/// The finished two-player games of `tournaments` (every stored tournament
/// if empty), by variant id in order. Unfinished and voided games count
/// for nothing.
pub fn rated_games(store: &Store, tournaments: &[i64]) -> Result<Vec<VariantGames>> {
    let mut ids: Vec<i64> = if tournaments.is_empty() {
        store.tournament_list()?.into_iter().map(|(t, _)| t.id).collect()
    } else {
        tournaments.to_vec()
    };
    // Oldest first: players are listed in order of first appearance.
    ids.sort_unstable();
    ids.dedup();
    let mut lists: BTreeMap<String, VariantGames> = BTreeMap::new();
    for id in ids {
        let view = TournamentView::load(store, Some(id))?;
        let names = view.names();
        // Pairs by (variant, pair id); a game without a pair stands alone.
        let mut pairs: BTreeMap<(String, Option<u32>, u32), Vec<Game>> = BTreeMap::new();
        for g in store.tournament_results(id)? {
            let outcome = match (g.result.as_str(), g.winner) {
                ("1/2-1/2", _) => Outcome::Draw,
                (_, Some(Seat::FIRST)) => Outcome::Win,
                (_, Some(Seat::SECOND)) => Outcome::Loss,
                _ => continue,
            };
            let [first, second] = g.seats[..] else { continue };
            let (Some(first), Some(second)) = (names.get(first), names.get(second)) else { continue };
            let list = lists
                .entry(g.variant.clone())
                .or_insert_with(|| VariantGames { variant: g.variant.clone(), ..VariantGames::default() });
            let game = Game { first: list.player(first), second: list.player(second), outcome };
            if !list.tournaments.contains(&id) {
                list.tournaments.push(id);
            }
            let key = (g.variant.clone(), g.pair, if g.pair.is_some() { 0 } else { g.index });
            pairs.entry(key).or_default().push(game);
        }
        for ((variant, _, _), games) in pairs {
            lists.get_mut(&variant).expect("made with its first game").encounters.push(games);
        }
    }
    Ok(lists.into_values().collect())
}

/// One player's row of a rating list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The entrant name.
    pub name: String,
    /// The rating, on the list's scale.
    pub rating: f64,
    /// Half-width of its 95% interval (none for an anchor, or without resamples).
    pub error: Option<f64>,
    /// Games played.
    pub games: u32,
    /// Points scored (a draw is half a point).
    pub points: f64,
    /// Games drawn.
    pub draws: u32,
}

/// One variant's rating list, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// The variant id.
    pub variant: String,
    /// Games rated.
    pub games: usize,
    /// Pairs and lone games (the bootstrap resamples these).
    pub encounters: usize,
    /// The tournaments the games come from.
    pub tournaments: Vec<i64>,
    /// The players, best first.
    pub rows: Vec<Row>,
    /// The first mover's advantage, in Elo.
    pub advantage: f64,
    /// Half-width of its 95% interval.
    pub advantage_error: Option<f64>,
    /// The draw parameter, in Elo.
    pub draw: f64,
    /// Whether the draw parameter stopped at its bound: the games leave it
    /// undetermined.
    pub draw_at_bound: bool,
    /// Whether some player has fewer than [`GAMES_TO_RANK`] games: the
    /// order is then no ranking (the error bars say how little is known).
    pub too_few_to_rank: bool,
}

/// The fewest games of every player before a list ranks them.
pub const GAMES_TO_RANK: u32 = 20;

/// Where a list's scale is fixed: `anchor`'s player at its rating if it
/// played this variant, else the field's mean at `average`.
pub fn scale(list: &VariantGames, anchor: Option<(&str, f64)>, average: f64) -> Anchor {
    match anchor.and_then(|(name, elo)| Some((list.players.iter().position(|p| p == name)?, elo))) {
        Some((player, elo)) => Anchor::Player(player, elo),
        None => Anchor::Mean(average),
    }
}

/// The rating list of `list` on `anchor`'s scale, error bars from
/// `resamples` bootstrap resamples of its pairs (seeded by `seed`).
pub fn table(list: &VariantGames, anchor: Anchor, resamples: u32, seed: u64) -> Table {
    let rated = rating_list(list.players.len(), &list.encounters, anchor, resamples, seed);
    let finite = |e: f64| e.is_finite().then_some(e);
    let mut rows: Vec<Row> = list
        .players
        .iter()
        .enumerate()
        .map(|(i, name)| Row {
            name: name.clone(),
            rating: rated.fit.ratings[i],
            error: finite(rated.errors[i]),
            games: 0,
            points: 0.0,
            draws: 0,
        })
        .collect();
    for g in list.encounters.iter().flatten() {
        let (first, second) = match g.outcome {
            Outcome::Win => (1.0, 0.0),
            Outcome::Draw => (0.5, 0.5),
            Outcome::Loss => (0.0, 1.0),
        };
        for (p, points) in [(g.first, first), (g.second, second)] {
            rows[p].games += 1;
            rows[p].points += points;
            rows[p].draws += u32::from(g.outcome == Outcome::Draw);
        }
    }
    rows.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    Table {
        variant: list.variant.clone(),
        games: list.games(),
        encounters: list.encounters.len(),
        tournaments: list.tournaments.clone(),
        advantage: rated.fit.advantage,
        advantage_error: finite(rated.advantage_error),
        draw: rated.fit.draw,
        draw_at_bound: rated.fit.draw >= MAX_DRAW,
        too_few_to_rank: rows.iter().any(|r| r.games < GAMES_TO_RANK),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use arbiter_api::Outcome as Ended;

    use super::{rated_games, VariantGames};
    use crate::testing::definition;
    use arbiter_core::stats::rating_list::{Game, Outcome};
    use arbiter_play::record::{EventInfo, TournamentSlot};
    use arbiter_play::referee::Termination;
    use arbiter_testing::record;
    use arbiter_testing::temp_store;

    /// Stores game `index` of tournament `t` (paired with its neighbour)
    /// between entrants `seats`, ended `outcome` (`None`: unfinished).
    fn store_game(store: &arbiter_store::Store, t: i64, index: u32, seats: [usize; 2], outcome: Option<Ended>) {
        let mut r = record(&[0, 1, 0]);
        r.variant = "race".into();
        match outcome {
            Some(o) => {
                r.result.outcome = o;
                r.result.termination =
                    if matches!(o, Ended::Win(_)) { Termination::Resignation } else { Termination::DrawAgreed };
            }
            None => r.result.outcome = Ended::Ongoing,
        }
        let slot = TournamentSlot { id: t, index, pair: Some(index - index % 2), seats: seats.to_vec() };
        store.add_game(&r, &EventInfo { event: "t".into(), round: 1, tournament: Some(slot) }).unwrap();
    }

    #[test]
    fn players_are_known_by_name_across_tournaments_and_pairs_stay_together() {
        let store = temp_store();
        let add = |players: &[(&str, &str)]| {
            let d = definition("name = \"t\"\nformat = \"round-robin\"", players, &["race"]);
            store.add_tournament("t", &serde_json::to_string(&d).unwrap()).unwrap()
        };
        let first = add(&[("a", "random"), ("b", "random")]);
        let second = add(&[("c", "random"), ("a", "random:seed=2")]);
        // a-b: a wins with white, draws with black.
        store_game(&store, first, 0, [0, 1], Some(Ended::Win(0)));
        store_game(&store, first, 1, [1, 0], Some(Ended::Draw));
        // c-a: one game finished (c loses with white), its pair unfinished.
        store_game(&store, second, 0, [0, 1], Some(Ended::Win(1)));
        store_game(&store, second, 1, [1, 0], None);
        let lists = rated_games(&store, &[]).unwrap();
        assert_eq!(lists.len(), 1);
        let VariantGames { variant, players, encounters, tournaments } = &lists[0];
        assert_eq!(variant, "race");
        assert_eq!(players, &["a", "b", "c"], "a is one player in both tournaments");
        assert_eq!(tournaments, &[first, second]);
        assert_eq!(
            encounters,
            &[
                vec![
                    Game { first: 0, second: 1, outcome: Outcome::Win },
                    Game { first: 1, second: 0, outcome: Outcome::Draw }
                ],
                vec![Game { first: 2, second: 0, outcome: Outcome::Loss }],
            ]
        );
        // One tournament only.
        assert_eq!(rated_games(&store, &[second]).unwrap()[0].games(), 1);
    }
}
