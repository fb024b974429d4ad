//! A place at a game in turn order: the [`Seat`] every record, frame,
//! referee call and player question names, apart from the other numbers
//! that travel beside it (an entrant's index, a game's index, a ply).

use std::fmt;

use arbiter_api::{Outcome, Viewer};
use serde::{Deserialize, Serialize};

/// A seat at a game: its place in turn order, 0 moving first. Records write
/// it as the bare number; the plugin interface passes it as a `u32`, so it
/// becomes one only where the host calls a plugin ([`Seat::number`],
/// [`Seat::viewer`], [`Seat::wins`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seat(u32);

impl Seat {
    /// The seat that moves first (White in chess, Red in Junqi).
    pub const FIRST: Seat = Seat(0);
    /// The seat that moves second.
    pub const SECOND: Seat = Seat(1);

    /// The seat with this place in turn order, as plugins number it.
    pub const fn new(number: u32) -> Seat {
        Seat(number)
    }

    /// The seat at `index` of a per-seat list (players, clocks, names).
    /// Panics past `u32::MAX`, which no list of seats reaches.
    pub fn at(index: usize) -> Seat {
        Seat(u32::try_from(index).expect("a seat's index fits in a u32"))
    }

    /// The first `count` seats, in turn order.
    pub fn all(count: usize) -> impl Iterator<Item = Seat> {
        (0..count).map(Seat::at)
    }

    /// The seat's number as plugins take it.
    pub const fn number(self) -> u32 {
        self.0
    }

    /// The seat's place in a per-seat list.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The other seat of a two-seat game; every seat past the first counts
    /// as the second, so its opponent is the first.
    pub const fn opponent(self) -> Seat {
        if self.0 == 0 {
            Seat::SECOND
        } else {
            Seat::FIRST
        }
    }

    /// The player on this seat as a plugin's viewer.
    pub const fn viewer(self) -> Viewer {
        Viewer::Player(self.0)
    }

    /// The outcome in which this seat has won.
    pub const fn wins(self) -> Outcome {
        Outcome::Win(self.0)
    }

    /// The seat that won `outcome`, if someone did.
    pub const fn winner(outcome: Outcome) -> Option<Seat> {
        match outcome {
            Outcome::Win(p) => Some(Seat(p)),
            _ => None,
        }
    }
}

impl fmt::Display for Seat {
    /// The seat's number, as records and messages write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Seat;
    use arbiter_api::{Outcome, Viewer};

    #[test]
    fn a_seat_is_its_number_on_the_wire_and_at_the_plugin() {
        let s = Seat::new(1);
        assert_eq!(serde_json::to_string(&s).unwrap(), "1");
        assert_eq!(serde_json::from_str::<Seat>("1").unwrap(), s);
        assert_eq!((s.number(), s.index(), s.to_string()), (1, 1, "1".to_string()));
        assert_eq!(s.viewer(), Viewer::Player(1));
        assert_eq!(s.wins(), Outcome::Win(1));
        assert_eq!(Seat::winner(Outcome::Win(1)), Some(s));
        assert_eq!(Seat::winner(Outcome::Draw), None);
        assert_eq!(Seat::all(2).collect::<Vec<_>>(), [Seat::FIRST, Seat::SECOND]);
    }

    #[test]
    fn the_opponent_of_either_seat_is_the_other_and_later_seats_face_the_first() {
        assert_eq!(Seat::FIRST.opponent(), Seat::SECOND);
        assert_eq!(Seat::SECOND.opponent(), Seat::FIRST);
        assert_eq!(Seat::new(3).opponent(), Seat::FIRST);
    }
}
