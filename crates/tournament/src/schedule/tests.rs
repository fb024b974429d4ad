use super::*;
use crate::config::PlayerConfig;
use crate::pairing::Format;
use arbiter_core::model::Seat;

fn cfg(format: Format, players: usize, rounds: u32, gpp: u32) -> TournamentConfig {
    let toml = format!("rounds = {rounds}\ngames_per_pairing = {gpp}\nplayers = []\n");
    let mut c: TournamentConfig = toml::from_str(&toml).unwrap();
    c.format = format;
    c.players = (0..players).map(|i| PlayerConfig { name: format!("p{i}"), spec: "random".into(), tc: None }).collect();
    c
}

fn everyone_won_by_lower_index(index: u32, rounds: &[Round]) -> Option<Finished> {
    let g = rounds.iter().flat_map(|r| &r.games).find(|g| g.index == index)?;
    Some(Finished { seats: g.seats, winner: Some(if g.seats[0] < g.seats[1] { Seat::FIRST } else { Seat::SECOND }) })
}

#[test]
fn round_robin_pairs_everyone_once_per_cycle_with_colours_balanced() {
    for n in [2, 3, 4, 5, 8] {
        let c = cfg(Format::named("round-robin").unwrap(), n, 2, 2);
        let rounds = plan(&c, &[0, 0], &|_| None);
        let games: Vec<&Planned> = rounds.iter().flat_map(|r| &r.games).collect();
        assert_eq!(games.len(), n * (n - 1) / 2 * 2 * 2 * 2, "n={n}");
        let mut whites = vec![0; n];
        for g in &games {
            whites[g.seats[0]] += 1;
        }
        assert!(whites.iter().all(|&w| w == whites[0]), "n={n}: {whites:?}");
        let indices: Vec<u32> = games.iter().map(|g| g.index).collect();
        assert_eq!(indices, (0..games.len() as u32).collect::<Vec<_>>());
        // Paired games share an opening slot and swap colours.
        for pair in games.chunks(2) {
            assert_eq!(pair[0].pair, Some(pair[0].index));
            assert_eq!(pair[1].pair, Some(pair[0].index));
            assert_eq!(pair[0].seats, [pair[1].seats[1], pair[1].seats[0]]);
        }
    }
}

#[test]
fn gauntlet_plays_the_first_player_against_each_other() {
    let c = cfg(Format::named("gauntlet").unwrap(), 4, 1, 2);
    let games: Vec<Planned> = plan(&c, &[0], &|_| None).into_iter().flat_map(|r| r.games).collect();
    assert_eq!(games.len(), 6);
    assert!(games.iter().all(|g| g.seats.contains(&0)));
}

#[test]
fn openings_cycle_per_pair() {
    let c = cfg(Format::named("round-robin").unwrap(), 3, 1, 2);
    let games: Vec<Planned> = plan(&c, &[2], &|_| None).into_iter().flat_map(|r| r.games).collect();
    let openings: Vec<Option<usize>> = games.iter().map(|g| g.opening).collect();
    assert_eq!(openings, vec![Some(0), Some(0), Some(1), Some(1), Some(0), Some(0)]);
}

#[test]
fn swiss_never_repeats_a_pairing_and_gives_at_most_one_bye_each() {
    for n in [4, 5, 7, 8] {
        let rounds_wanted = (n - 1) as u32;
        let c = cfg(Format::named("swiss").unwrap(), n, rounds_wanted, 1);
        // Results come from the plan itself: the lower index always wins.
        let mut rounds = plan(&c, &[0], &|_| None);
        for _ in 0..rounds_wanted {
            let snapshot = rounds.clone();
            rounds = plan(&c, &[0], &|i| everyone_won_by_lower_index(i, &snapshot));
        }
        assert_eq!(rounds.len() as u32, rounds_wanted, "n={n}");
        let mut seen = std::collections::HashSet::new();
        let mut byes = vec![0; n];
        for r in &rounds {
            for g in &r.games {
                let key = (g.seats[0].min(g.seats[1]), g.seats[0].max(g.seats[1]));
                assert!(seen.insert(key), "n={n}: pairing {key:?} repeated in round {}", r.number);
            }
            for &b in &r.byes {
                byes[b] += 1;
            }
            assert_eq!(r.games.len() * 2 + r.byes.len(), n);
        }
        assert!(byes.iter().all(|&b| b <= 1), "n={n}: {byes:?}");
    }
}

#[test]
fn knockout_halves_the_field_with_byes_for_top_seeds() {
    let c = cfg(Format::named("knockout").unwrap(), 6, 1, 2);
    let mut rounds = plan(&c, &[0], &|_| None);
    for _ in 0..4 {
        let snapshot = rounds.clone();
        rounds = plan(&c, &[0], &|i| everyone_won_by_lower_index(i, &snapshot));
    }
    let sizes: Vec<(usize, usize)> = rounds.iter().map(|r| (r.games.len() / 2, r.byes.len())).collect();
    assert_eq!(sizes, vec![(2, 2), (2, 0), (1, 0)]);
    assert_eq!(rounds[0].byes, vec![0, 1]);
    let last = &rounds[2].games[0];
    assert_eq!((last.seats[0].min(last.seats[1]), last.seats[0].max(last.seats[1])), (0, 1));
}

#[test]
fn noswap_and_reverse_set_who_moves_first_as_cutechess_does() {
    let seats_and_openings = |noswap: bool, reverse: bool| {
        let mut c = cfg(Format::named("gauntlet").unwrap(), 2, 1, 4);
        (c.noswap, c.reverse) = (noswap, reverse);
        let games: Vec<Planned> = plan(&c, &[10], &|_| None).into_iter().flat_map(|r| r.games).collect();
        games.iter().map(|g| (g.seats, g.opening.unwrap(), g.pair)).collect::<Vec<_>>()
    };
    // Pairs: one opening, colours swapped, the first-named first.
    assert_eq!(
        seats_and_openings(false, false),
        [([0, 1], 0, Some(0)), ([1, 0], 0, Some(0)), ([0, 1], 1, Some(2)), ([1, 0], 1, Some(2))]
    );
    assert_eq!(
        seats_and_openings(false, true),
        [([1, 0], 0, Some(0)), ([0, 1], 0, Some(0)), ([1, 0], 1, Some(2)), ([0, 1], 1, Some(2))]
    );
    // No swaps: no pairs, a new opening every game.
    assert_eq!(
        seats_and_openings(true, false),
        [([0, 1], 0, None), ([0, 1], 1, None), ([0, 1], 2, None), ([0, 1], 3, None)]
    );
    assert_eq!(
        seats_and_openings(true, true),
        [([1, 0], 0, None), ([1, 0], 1, None), ([1, 0], 2, None), ([1, 0], 3, None)]
    );
}

#[test]
fn with_fair_openings_every_gauntlet_opponent_meets_the_same_openings_in_order() {
    let mut c = cfg(Format::named("gauntlet").unwrap(), 4, 2, 4);
    let openings_of = |c: &TournamentConfig, opponent: usize| -> Vec<(Option<usize>, [usize; 2])> {
        let rounds = plan(c, &[5], &|_| None);
        rounds
            .iter()
            .flat_map(|r| &r.games)
            .filter(|g| g.seats.contains(&opponent))
            .map(|g| (g.opening, g.seats))
            .collect()
    };
    // By default each pair takes the next opening: opponents differ.
    assert_ne!(
        openings_of(&c, 1).iter().map(|o| o.0).collect::<Vec<_>>(),
        openings_of(&c, 2).iter().map(|o| o.0).collect::<Vec<_>>()
    );
    c.fair_openings = true;
    for opponent in 1..4 {
        let games = openings_of(&c, opponent);
        // Two cycles of two pairs each: openings 0, 1, then 2, 3, each with both colours.
        let openings: Vec<Option<usize>> = games.iter().map(|o| o.0).collect();
        assert_eq!(openings, [0, 0, 1, 1, 2, 2, 3, 3].map(Some), "opponent {opponent}");
        for pair in games.chunks(2) {
            assert_eq!(pair[0].1, [pair[1].1[1], pair[1].1[0]], "opponent {opponent}: colours swapped in a pair");
        }
    }
}
