//! The schedule: which games a tournament plays, round by round, as a pure
//! function of its definition and (for Swiss and knockout) the results of the
//! rounds before. Replaying it after a kill therefore gives exactly the same
//! games with the same indices, which is what `--resume` relies on.
//!
//! - Round-robin: the circle method; each cycle flips colours.
//! - Gauntlet: the first player against each other player, every cycle.
//! - Swiss: players sorted by points, then seed; from the top, each unpaired
//!   player meets the highest-ranked player it has not met yet (backtracking if
//!   a later player would be left without a legal opponent). With an odd field,
//!   the lowest-ranked player who has not had a bye sits out and scores as if
//!   it had won every game of the round. No pairing repeats while avoidable.
//! - Knockout: seeds in player order, bracket 1 v N, 2 v N-1...; top seeds get
//!   byes when the field is not a power of two; the pairing's points decide,
//!   and on a tie the better seed goes through.
//!
//! Every pairing plays each variant `games_per_pairing` times; consecutive
//! games of a pairing form pairs with colours swapped and one opening.

use super::config::{Format, TournamentConfig};

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// Index in the tournament (unique, dense, in schedule order).
    pub index: u32,
    /// Round (1-based).
    pub round: u32,
    /// Index into the tournament's variant list.
    pub variant: usize,
    /// Entrant indices in turn order.
    pub seats: [usize; 2],
    /// Index into the variant's opening list, if it has one.
    pub opening: Option<usize>,
    /// Index of the first game of this game's colour-swapped pair.
    pub pair: Option<u32>,
    /// Seed for seeded players.
    pub seed: u64,
}

/// A finished game as the schedule needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finished {
    /// Entrant indices in turn order.
    pub seats: [usize; 2],
    /// Winner's seat, or `None` for a draw.
    pub winner: Option<usize>,
}

impl Finished {
    /// Points scored by entrant `e` in this game.
    pub fn points_of(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(seat) if self.seats[seat] == e => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// One round of the schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// Round number (1-based).
    pub number: u32,
    /// Its games.
    pub games: Vec<Planned>,
    /// An entrant sitting out with a bye (Swiss, knockout), credited a full win
    /// for every game the round would have given it.
    pub byes: Vec<usize>,
}

/// Plans the whole tournament given the finished games by index; stops at the
/// first round that needs results not yet known. `openings[v]` is the number
/// of openings of variant `v` (0 for none).
pub fn plan(
    cfg: &TournamentConfig,
    n_variants: usize,
    openings: &[usize],
    results: &dyn Fn(u32) -> Option<Finished>,
) -> Vec<Round> {
    let n = cfg.players.len();
    let mut rounds = Vec::new();
    let mut next_index = 0u32;
    let mut pairs_used = vec![0usize; n_variants];
    let mut history: Vec<Finished> = Vec::new();
    let mut byes_had = vec![0u32; n];
    let mut alive: Vec<usize> = (0..n).collect();
    let mut round_no = 1;
    loop {
        let (pairings, byes): (Vec<(usize, usize)>, Vec<usize>) = match cfg.format {
            Format::RoundRobin | Format::Gauntlet => {
                let per_cycle = static_rounds(cfg.format, n);
                let total = per_cycle.len() as u32 * cfg.rounds;
                if round_no > total {
                    break;
                }
                let cycle = (round_no - 1) / per_cycle.len() as u32;
                let pairs = per_cycle[((round_no - 1) % per_cycle.len() as u32) as usize].clone();
                (pairs.into_iter().map(|(a, b)| if cycle % 2 == 1 { (b, a) } else { (a, b) }).collect(), Vec::new())
            }
            Format::Swiss => {
                if round_no > cfg.rounds {
                    break;
                }
                swiss_round(n, &history, &mut byes_had)
            }
            Format::Knockout => {
                if alive.len() < 2 {
                    break;
                }
                knockout_round(&alive)
            }
        };
        let mut games = Vec::new();
        for (a, b) in &pairings {
            for v in 0..n_variants {
                for k in 0..cfg.games_per_pairing {
                    let index = next_index;
                    next_index += 1;
                    let paired = cfg.games_per_pairing >= 2
                        && !(cfg.games_per_pairing % 2 == 1 && k == cfg.games_per_pairing - 1);
                    let first_of_pair = k % 2 == 0;
                    if first_of_pair {
                        pairs_used[v] += 1;
                    }
                    let opening = (openings[v] > 0).then(|| (pairs_used[v] - 1) % openings[v]);
                    games.push(Planned {
                        index,
                        round: round_no,
                        variant: v,
                        seats: if k % 2 == 0 { [*a, *b] } else { [*b, *a] },
                        opening,
                        pair: paired.then(|| if first_of_pair { index } else { index - 1 }),
                        seed: cfg.seed.wrapping_mul(1_000_003).wrapping_add(index as u64),
                    });
                }
            }
        }
        // Later rounds of Swiss and knockout need this round's results.
        let finished: Option<Vec<Finished>> = games.iter().map(|g| results(g.index)).collect();
        rounds.push(Round { number: round_no, games: games.clone(), byes: byes.clone() });
        let dynamic = matches!(cfg.format, Format::Swiss | Format::Knockout);
        match finished {
            Some(f) => {
                if cfg.format == Format::Knockout {
                    alive = advance(&pairings, &byes, &f, &alive);
                }
                history.extend(f);
            }
            None if dynamic => break,
            None => {}
        }
        round_no += 1;
    }
    rounds
}

/// The rounds of one round-robin or gauntlet cycle.
fn static_rounds(format: Format, n: usize) -> Vec<Vec<(usize, usize)>> {
    if format == Format::Gauntlet {
        return (1..n).map(|o| vec![(0, o)]).collect();
    }
    // Circle method: fix the first seat, rotate the rest; a dummy makes n even.
    let m = if n.is_multiple_of(2) { n } else { n + 1 };
    let mut ring: Vec<usize> = (0..m).collect();
    let mut rounds = Vec::new();
    for r in 0..m - 1 {
        let mut pairs = Vec::new();
        for i in 0..m / 2 {
            let (a, b) = (ring[i], ring[m - 1 - i]);
            if a < n && b < n {
                // Alternate who is first so colours even out over the cycle.
                pairs.push(if (r + i) % 2 == 0 { (a, b) } else { (b, a) });
            }
        }
        rounds.push(pairs);
        let last = ring.pop().expect("m >= 2");
        ring.insert(1, last);
    }
    rounds
}

fn swiss_round(n: usize, history: &[Finished], byes_had: &mut [u32]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let mut points = vec![0.0; n];
    let mut met = vec![vec![false; n]; n];
    for f in history {
        for &e in &f.seats {
            points[e] += f.points_of(e);
        }
        met[f.seats[0]][f.seats[1]] = true;
        met[f.seats[1]][f.seats[0]] = true;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| points[b].total_cmp(&points[a]).then(a.cmp(&b)));
    let mut byes = Vec::new();
    if n % 2 == 1 {
        let fewest = *byes_had.iter().min().unwrap_or(&0);
        let bye = *order.iter().rev().find(|&&e| byes_had[e] == fewest).expect("someone has the fewest byes");
        byes_had[bye] += 1;
        order.retain(|&e| e != bye);
        byes.push(bye);
    }
    let pairs = pair_greedy(&order, &met, true).or_else(|| pair_greedy(&order, &met, false)).unwrap_or_default();
    (pairs, byes)
}

/// Pairs `order` top-down, each with the best-ranked legal opponent,
/// backtracking; `strict` forbids repeat pairings.
fn pair_greedy(order: &[usize], met: &[Vec<bool>], strict: bool) -> Option<Vec<(usize, usize)>> {
    if order.is_empty() {
        return Some(Vec::new());
    }
    let first = order[0];
    for k in 1..order.len() {
        let other = order[k];
        if strict && met[first][other] {
            continue;
        }
        let rest: Vec<usize> = order[1..].iter().copied().filter(|&e| e != other).collect();
        if let Some(mut pairs) = pair_greedy(&rest, met, strict) {
            pairs.insert(0, (first, other));
            return Some(pairs);
        }
    }
    None
}

fn knockout_round(alive: &[usize]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let size = alive.len().next_power_of_two();
    let mut pairs = Vec::new();
    let mut byes = Vec::new();
    for i in 0..size / 2 {
        let a = alive[i];
        match alive.get(size - 1 - i) {
            Some(&b) => pairs.push((a, b)),
            None => byes.push(a),
        }
    }
    (pairs, byes)
}

/// Who goes through: byes, then each pairing's winner on points (the better
/// seed, that is the lower index, on a tie), kept in seed order.
fn advance(pairs: &[(usize, usize)], byes: &[usize], games: &[Finished], alive: &[usize]) -> Vec<usize> {
    let mut through: Vec<usize> = byes.to_vec();
    for &(a, b) in pairs {
        let (pa, pb) = games
            .iter()
            .filter(|g| g.seats.contains(&a) && g.seats.contains(&b))
            .fold((0.0, 0.0), |(x, y), g| (x + g.points_of(a), y + g.points_of(b)));
        through.push(if pa > pb || (pa == pb && a < b) { a } else { b });
    }
    let rank = |e: &usize| alive.iter().position(|x| x == e).unwrap_or(usize::MAX);
    through.sort_by_key(rank);
    through
}

#[cfg(test)]
mod tests;
