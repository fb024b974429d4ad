//! Pairing systems: which entrants meet in each round. Each format is a
//! file below implementing [`Pairing`] with its [`PairingFormat`] row (its
//! name in definitions and `--format`), listed once in [`FORMATS`];
//! `tournament::schedule` turns pairings into games.

mod gauntlet;
mod knockout;
mod round_robin;
mod swiss;

use arbiter_core::model::{Seat, UnknownName};

/// One tournament format: its name and how its pairing system is made.
pub struct PairingFormat {
    /// The name definitions and `--format` use (`round-robin`).
    pub name: &'static str,
    /// The pairing system for `players` entrants and a definition's `rounds`.
    pub pairing: fn(players: usize, rounds: u32) -> Box<dyn Pairing>,
}

/// Every tournament format; the first is the default.
pub const FORMATS: &[PairingFormat] = &[round_robin::FORMAT, gauntlet::FORMAT, swiss::FORMAT, knockout::FORMAT];

/// A tournament's format, one of [`FORMATS`], written as its name.
#[derive(Clone, Copy)]
pub struct Format(&'static PairingFormat);

impl Format {
    /// The format called `name`, or an error listing the known ones.
    pub fn named(name: &str) -> Result<Format, UnknownName> {
        FORMATS
            .iter()
            .find(|f| f.name == name)
            .map(Format)
            .ok_or_else(|| UnknownName::new("format", name, FORMATS.iter().map(|f| f.name)))
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The pairing system of this format for `players` entrants and the
    /// definition's `rounds`.
    pub fn pairing(self, players: usize, rounds: u32) -> Box<dyn Pairing> {
        (self.0.pairing)(players, rounds)
    }

    /// How the command line reads `--format` (its help lists the names).
    pub fn parser() -> impl clap::builder::TypedValueParser<Value = Format> {
        use clap::builder::TypedValueParser;
        clap::builder::PossibleValuesParser::new(FORMATS.iter().map(|f| f.name))
            .map(|name| Format::named(&name).expect("one of the listed names"))
    }
}

impl Default for Format {
    fn default() -> Format {
        Format(&FORMATS[0])
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = UnknownName;
    fn from_str(name: &str) -> Result<Format, UnknownName> {
        Format::named(name)
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
        let name = String::deserialize(d)?;
        Format::named(&name).map_err(serde::de::Error::custom)
    }
}

/// What a pairing system decides for one round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Paired {
    /// Pairings, the first-named entrant moving first in the pair's first game.
    pub pairs: Vec<(usize, usize)>,
    /// Entrants sitting out, credited a full win for every game the round
    /// would have given them.
    pub byes: Vec<usize>,
}

/// A pairing system (round-robin, Swiss...), as fastchess's schedulers are.
pub trait Pairing {
    /// Round `number`'s (1-based) pairings given every game of the finished
    /// rounds before it, or `None` when the tournament has no more rounds.
    fn pair(&mut self, number: u32, history: &[Finished]) -> Option<Paired>;
    /// Told the games of round `paired` once all are finished.
    fn finished(&mut self, _paired: &Paired, _games: &[Finished]) {}
    /// Whether a round can be paired only once the round before is finished.
    fn waits_for_results(&self) -> bool;
    /// How many pairings the whole tournament plays, for progress.
    fn expected_pairings(&self) -> usize;
}

/// A finished game as the schedule needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finished {
    /// Entrant indices in turn order.
    pub seats: [usize; 2],
    /// Winner's seat, or `None` for a draw.
    pub winner: Option<Seat>,
}

impl Finished {
    /// Points scored by entrant `e` in this game.
    pub fn points_of(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(seat) if self.seats.get(seat.index()) == Some(&e) => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// Round `number` of a fixed cycle of rounds played `cycles` times, colours
/// flipped every other cycle (round-robin, gauntlet).
fn repeat_cycle(cycle: &[Vec<(usize, usize)>], cycles: u32, number: u32) -> Option<Paired> {
    let per_cycle = cycle.len() as u32;
    if per_cycle == 0 || number > per_cycle * cycles {
        return None;
    }
    let flip = (number - 1) / per_cycle % 2 == 1;
    let pairs = cycle[((number - 1) % per_cycle) as usize].iter().map(|&(a, b)| if flip { (b, a) } else { (a, b) });
    Some(Paired { pairs: pairs.collect(), byes: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn a_format_is_written_as_its_name_and_an_unknown_one_is_refused_with_the_known_ones() {
        let swiss: Format = serde_json::from_str("\"swiss\"").unwrap();
        assert_eq!(serde_json::to_string(&swiss).unwrap(), "\"swiss\"");
        assert_eq!(Format::default().name(), "round-robin");
        let e = serde_json::from_str::<Format>("\"ladder\"").unwrap_err().to_string();
        assert!(e.starts_with("unknown format 'ladder' (known: round-robin, gauntlet, swiss, knockout)"), "{e}");
    }
}
