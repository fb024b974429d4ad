//! Running many games: the definition ([`config`]), the schedule
//! ([`schedule`]), the runner with its worker processes ([`runner`],
//! [`worker`]), the tournament against the store with resume ([`driver`]),
//! reading a stored tournament ([`view`]), standings ([`standings`]), the
//! games of many stored tournaments gathered for a rating list
//! ([`rating_list`]), and what every machine of a tournament must agree on
//! ([`pins`], their files' hashes remembered by [`file_hashes`]). Workers
//! on other machines are `arbiter-fleet`'s.

pub mod audit;
pub mod config;
pub mod driver;
pub mod duel;
pub mod error;
pub mod file_hashes;
pub mod games;
pub mod journal;
pub mod lease;
pub mod openings;
pub mod pairing;
pub mod pins;
pub mod pulse;
pub mod rating_list;
pub mod runner;
pub mod schedule;
pub mod sprt_match;
pub mod standings;
pub mod tune;
pub mod view;
pub mod worker;

pub use games::{Entrant, Isolation, RunConfig, ScheduledGame};
pub use runner::{run_games, RunReport};

/// What this crate's unit tests share beside `arbiter-testing`.
#[cfg(test)]
mod testing {
    /// `arbiter_testing::definition`, carried over as JSON from the
    /// arbiter-tournament that crate was built against to this test build.
    pub fn definition(head: &str, players: &[(&str, &str)], variants: &[&str]) -> crate::view::StoredDefinition {
        let theirs = arbiter_testing::definition(head, players, variants);
        serde_json::from_value(serde_json::to_value(theirs).unwrap()).unwrap()
    }
}
