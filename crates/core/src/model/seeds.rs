//! The one rule for seeds: an event's seed gives each game its own
//! ([`game_seed`]), and a game's seed gives each seat its own
//! ([`seat_seed`]). Every way of playing (a tournament, a match, a queue
//! worker, `arbiter play`, the web view) derives them here, so a game
//! replays the same wherever it is played.

use super::Seat;

/// SplitMix64's finaliser: neighbouring inputs give unrelated outputs.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of game `index` (its place in the schedule, from 0) of an event seeded with `event`.
pub fn game_seed(event: u64, index: u64) -> u64 {
    mix(event ^ mix(index.wrapping_add(0x9e37_79b9_7f4a_7c15)))
}

/// The seed the player on `seat` (in turn order, from 0) is created with in a game seeded with `game`.
pub fn seat_seed(game: u64, seat: Seat) -> u64 {
    mix(game.wrapping_add((u64::from(seat.number()) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

#[cfg(test)]
mod tests {
    use super::{game_seed, seat_seed, Seat};

    #[test]
    fn seeds_differ_by_game_and_by_seat_and_repeat_exactly() {
        assert_eq!(game_seed(1, 5), game_seed(1, 5));
        assert_ne!(game_seed(1, 5), game_seed(1, 6));
        assert_ne!(game_seed(1, 5), game_seed(2, 5));
        assert_ne!(seat_seed(7, Seat::FIRST), seat_seed(7, Seat::SECOND));
        assert_ne!(seat_seed(game_seed(1, 0), Seat::SECOND), seat_seed(game_seed(1, 1), Seat::FIRST));
    }
}
