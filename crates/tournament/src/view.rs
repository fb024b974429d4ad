//! Reading a tournament: its stored definition, schedule as far as it is
//! known, and results, from the store alone (no plugin loaded, no engine
//! looked for). The web API, `arbiter results` and the runner all read
//! through [`TournamentView`].

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::config::TournamentConfig;
use super::error::{Result, TournamentError};
use super::schedule::{plan, Finished, Round};
use super::sprt_match::SprtTally;
use arbiter_store::{SlotResult, Store, Tallies};

/// What the store keeps: the definition as given, plus what was resolved from
/// it at creation (the variant list and the opening positions), so that a
/// resumed tournament plays exactly the same schedule.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct StoredDefinition {
    /// The definition.
    pub config: TournamentConfig,
    /// Variant ids, `all` expanded.
    pub variants: Vec<String>,
    /// Opening positions per variant id, in the order they are used.
    pub openings: HashMap<String, Vec<String>>,
    /// The plugin build of each variant (file, sha256, arbiter-api version),
    /// which every queue worker must have (definitions stored before it: none).
    #[serde(default)]
    pub plugins: std::collections::BTreeMap<String, super::pins::PluginPin>,
    /// The engine binaries named by a path, per entrant, likewise pinned.
    #[serde(default)]
    pub engines: std::collections::BTreeMap<String, super::pins::PluginPin>,
}

/// A tournament as the store holds it: enough to read its schedule and
/// standings, with no plugin loaded and no engine looked for.
pub struct TournamentView {
    /// Id in the store.
    pub id: i64,
    /// The definition and what was resolved from it.
    pub definition: StoredDefinition,
}

impl TournamentView {
    /// Reads tournament `id` (the latest if `None`) from the store. A stored
    /// definition beyond today's limits is refused, never planned.
    pub fn load(store: &Store, id: Option<i64>) -> Result<TournamentView> {
        let stored = store.tournament(id)?.ok_or_else(|| match id {
            Some(id) => TournamentError::Refused(format!("no tournament {id} in the store")),
            None => TournamentError::Refused("no tournament in the store".into()),
        })?;
        let definition: StoredDefinition = serde_json::from_str(&stored.config).map_err(|e| {
            TournamentError::Unreadable(format!("tournament {}: unreadable definition in the store: {e}", stored.id))
        })?;
        definition.config.validate().map_err(|e| {
            TournamentError::Refused(format!("tournament {}: the stored definition is refused: {e}", stored.id))
        })?;
        Ok(TournamentView { id: stored.id, definition })
    }

    /// The entrants' names.
    pub fn names(&self) -> Vec<String> {
        self.definition.config.players.iter().map(|p| p.name.clone()).collect()
    }

    /// The schedule as far as it is known, and the finished games by index.
    pub fn rounds(&self, store: &Store) -> Result<(Vec<Round>, HashMap<u32, SlotResult>)> {
        let stored: HashMap<u32, SlotResult> =
            store.tournament_results(self.id)?.into_iter().map(|g| (g.index, g)).collect();
        let finished = |index: u32| {
            let g = stored.get(&index)?;
            Some(Finished { seats: [*g.seats.first()?, *g.seats.get(1)?], winner: g.winner })
        };
        let counts: Vec<usize> =
            self.definition.variants.iter().map(|v| self.definition.openings.get(v).map_or(0, Vec::len)).collect();
        let rounds = plan(&self.definition.config, &counts, &finished);
        Ok((rounds, stored))
    }

    /// The results so far, for standings: the games and pairs as the store
    /// counts them, and each entrant's bye points.
    pub fn results(&self, store: &Store) -> Result<(Tallies, Vec<f64>)> {
        let cfg = &self.definition.config;
        let mut byes = vec![0.0; cfg.players.len()];
        // Only systems that wait for results give byes; only they need the
        // schedule planned from every stored game.
        if cfg.format.pairing(cfg.players.len(), cfg.rounds).waits_for_results() {
            let per_pairing = (cfg.games_per_pairing as usize * self.definition.variants.len()) as f64;
            for r in &self.rounds(store)?.0 {
                for &b in &r.byes {
                    byes[b] += per_pairing;
                }
            }
        }
        Ok((store.tallies(self.id)?, byes))
    }

    /// The number of games the whole tournament plays (at most, for
    /// systems that wait for results, or until its stopping rule holds).
    pub fn expected_games(&self) -> usize {
        let cfg = &self.definition.config;
        let per_pairing = cfg.games_per_pairing as usize * self.definition.variants.len();
        cfg.format.pairing(cfg.players.len(), cfg.rounds).expected_pairings() * per_pairing
    }

    /// Each pondering entrant's ponder hits and ponders over the stored
    /// games, by name (empty, without reading a game, when no entrant
    /// ponders).
    pub fn ponder_hits(&self, store: &Store) -> Result<Vec<(String, u64, u64)>> {
        let ponders = |spec: &str| arbiter_play::players::PlayerSpec::parse(spec).is_ok_and(|s| s.ponders());
        let names: Vec<&str> =
            self.definition.config.players.iter().filter(|p| ponders(&p.spec)).map(|p| p.name.as_str()).collect();
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut counts: Vec<(String, u64, u64)> = names.iter().map(|n| (n.to_string(), 0, 0)).collect();
        for game in store.games(Some(self.id))? {
            for ply in &game.record.plies {
                let (Some(hit), Some(name)) = (ply.ponder_hit, game.record.players.get(ply.player.index())) else {
                    continue;
                };
                if let Some(c) = counts.iter_mut().find(|c| &c.0 == name) {
                    c.1 += hit as u64;
                    c.2 += 1;
                }
            }
        }
        Ok(counts)
    }

    /// Whether games become known only as results come in (the next Swiss
    /// or knockout round, a tune's next pairs): plan again after storing.
    pub fn plans_as_results_come(&self) -> bool {
        let cfg = &self.definition.config;
        cfg.tune.is_some() || cfg.format.pairing(cfg.players.len(), cfg.rounds).waits_for_results()
    }

    /// A tune's state over its games as stored (`None` for other tournaments).
    pub fn tune_state(&self, store: &Store) -> Result<Option<super::tune::TuneState>> {
        if self.definition.config.tune.is_none() {
            return Ok(None);
        }
        Ok(super::tune::TuneState::over(self, &store.tournament_results(self.id)?))
    }

    /// An SPRT tournament's tally over its games as stored (`None` for
    /// other tournaments).
    pub fn sprt_tally(&self, store: &Store) -> Result<Option<SprtTally>> {
        let Some(sprt) = self.definition.config.sprt else { return Ok(None) };
        Ok(Some(SprtTally::over(sprt, &store.tournament_results(self.id)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::{StoredDefinition, TournamentView};

    /// A definition of `format` between `players` random players, two rounds.
    fn definition(format: &str, players: usize, variants: &[&str]) -> StoredDefinition {
        let names: Vec<String> = (0..players).map(|p| format!("p{p}")).collect();
        let seats: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "random")).collect();
        crate::testing::definition(&format!("format = \"{format}\"\nrounds = 2"), &seats, variants)
    }

    #[test]
    fn a_stored_tournament_reads_back_with_its_names_and_expected_games() {
        let store = arbiter_testing::temp_store();
        let d = definition("round-robin", 3, &["chess", "xiangqi"]);
        let id = store.add_tournament("t", &serde_json::to_string(&d).unwrap()).unwrap();
        let view = TournamentView::load(&store, None).unwrap();
        assert_eq!((view.id, view.names()), (id, vec!["p0".to_string(), "p1".into(), "p2".into()]));
        // Three pairings, two cycles, two games each, two variants.
        assert_eq!(view.expected_games(), 3 * 2 * 2 * 2);
        let (rounds, stored) = view.rounds(&store).unwrap();
        assert_eq!(rounds.iter().map(|r| r.games.len()).sum::<usize>(), 24);
        assert!(stored.is_empty());
        let knockout = TournamentView { id, definition: definition("knockout", 4, &["chess"]) };
        assert_eq!(knockout.expected_games(), 3 * 2, "three matches of a pair each");
    }

    #[test]
    fn systems_that_plan_as_results_come_are_swiss_knockout_and_tunes() {
        let store = arbiter_testing::temp_store();
        let plans = |format: &str| TournamentView { id: 1, definition: definition(format, 4, &["chess"]) };
        let waits: Vec<bool> =
            ["round-robin", "gauntlet", "swiss", "knockout"].iter().map(|f| plans(f).plans_as_results_come()).collect();
        assert_eq!(waits, [false, false, true, true]);
        assert!(plans("round-robin").tune_state(&store).unwrap().is_none(), "not a tune");
        let tune = crate::testing::definition(
            "variants = [\"race\"]\n[tune]\nparams = [{ name = \"c\", type = \"float\", start = 1.0, min = 0.0, max = 4.0, \
             c_end = 0.2, r_end = 0.05 }]",
            &[("a", "mcts"), ("b", "mcts")],
            &["race"],
        );
        let id = store.add_tournament("t", &serde_json::to_string(&tune).unwrap()).unwrap();
        let view = TournamentView::load(&store, Some(id)).unwrap();
        assert!(view.plans_as_results_come(), "a tune plans its next pairs from results");
        assert_eq!(view.tune_state(&store).unwrap().unwrap().theta(), [1.0]);
    }

    #[test]
    fn a_missing_or_damaged_definition_is_an_error_naming_the_tournament() {
        let store = arbiter_testing::temp_store();
        let e = TournamentView::load(&store, Some(7)).err().unwrap().to_string();
        assert_eq!(e, "no tournament 7 in the store");
        let id = store.add_tournament("t", "{\"config\": 3}").unwrap();
        let e = TournamentView::load(&store, Some(id)).err().unwrap().to_string();
        assert!(e.starts_with(&format!("tournament {id}")), "{e}");
        let mut huge = definition("round-robin", 2, &["chess"]);
        huge.config.rounds = 1_000_000;
        let id = store.add_tournament("t", &serde_json::to_string(&huge).unwrap()).unwrap();
        let e = TournamentView::load(&store, Some(id)).err().unwrap().to_string();
        assert!(e.starts_with(&format!("tournament {id}: the stored definition is refused: ")), "{e}");
    }

    #[test]
    fn a_swiss_field_of_odd_size_gives_a_bye_worth_each_game_of_the_round() {
        let store = arbiter_testing::temp_store();
        let d = definition("swiss", 3, &["chess"]);
        let id = store.add_tournament("t", &serde_json::to_string(&d).unwrap()).unwrap();
        let view = TournamentView::load(&store, Some(id)).unwrap();
        let (tallies, byes) = view.results(&store).unwrap();
        assert_eq!(tallies.games(), 0);
        assert_eq!(byes.iter().sum::<f64>(), 2.0, "one bye in round one, worth its two games: {byes:?}");
    }

    #[test]
    fn ponder_hits_are_counted_per_pondering_entrant_in_either_seat_and_not_read_without_one() {
        use arbiter_play::record::{EventInfo, TournamentSlot};
        let store = arbiter_testing::temp_store();
        let d = crate::testing::definition("", &[("sf", "uci:stockfish,ponder=on"), ("r", "random")], &["race"]);
        let id = store.add_tournament("t", &serde_json::to_string(&d).unwrap()).unwrap();
        // Game 0: sf first, pondered twice, one hit; game 1: sf second, one miss.
        for (index, names, hits) in [
            (0, ["sf", "r"], [None, None, Some(true), None, Some(false)]),
            (1, ["r", "sf"], [None, Some(false), None, None, None]),
        ] {
            let mut r = arbiter_testing::record(&[0, 1, 0, 1, 0]);
            r.players = names.map(String::from).to_vec();
            r.plies.iter_mut().zip(hits).for_each(|(p, h)| p.ponder_hit = h);
            let seats = if index == 0 { vec![0, 1] } else { vec![1, 0] };
            let slot = TournamentSlot { id, index, pair: Some(0), seats };
            store.add_game(&r, &EventInfo { event: "t".into(), round: 1, tournament: Some(slot) }).unwrap();
        }
        let view = TournamentView::load(&store, Some(id)).unwrap();
        assert_eq!(view.ponder_hits(&store).unwrap(), [("sf".to_string(), 1, 3)]);
        let quiet = crate::testing::definition("", &[("a", "uci:stockfish"), ("r", "random")], &["race"]);
        let id = store.add_tournament("q", &serde_json::to_string(&quiet).unwrap()).unwrap();
        assert!(TournamentView::load(&store, Some(id)).unwrap().ponder_hits(&store).unwrap().is_empty());
    }
}
