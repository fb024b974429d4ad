//! `arbiter check`: the plugin contract, as arbiter-api's
//! [`arbiter_api::contract`] checks it (plugins run the same checks in their
//! own tests), plus what only the host can judge (the default time control
//! parses), each variant in a child process ([`isolated`]) so that an abort
//! or a hang is a failed check; and an engine's protocol ([`engine`]).

pub mod engine;
pub mod isolated;

pub use arbiter_api::contract::{CallTimes, CheckConfig, CheckResult};
use arbiter_api::host::VariantHandle;

use arbiter_core::clock::TimeControl;

/// Runs every check on `variant`; `on_settled` hears of each check whose
/// outcome is final as soon as it is, so a caller can stream it before a
/// later call aborts the process.
pub fn check_variant(
    variant: &VariantHandle,
    cfg: &CheckConfig,
    on_settled: &mut dyn FnMut(&CheckResult),
) -> (Vec<CheckResult>, CallTimes) {
    let tc = CheckResult {
        name: "the default time control parses".into(),
        failure: TimeControl::parse(&variant.info().default_time_control).err().map(|e| e.to_string()),
    };
    on_settled(&tc);
    let (mut results, times) = arbiter_api::contract::check_variant(variant, cfg, on_settled);
    results.insert(0, tc);
    (results, times)
}

#[cfg(test)]
mod tests {
    use arbiter_fixture::{Fault, Race};

    use super::*;

    fn failures(fault: Fault) -> Vec<String> {
        let v = VariantHandle::in_process(Race { id: "race", fault }, "fixture-plugin", "0.1.0").unwrap();
        let cfg = CheckConfig { games: 5, ..CheckConfig::default() };
        let (results, _) = check_variant(&v, &cfg, &mut |_| {});
        results.into_iter().filter(|r| r.failure.is_some()).map(|r| r.name).collect()
    }

    #[test]
    fn the_contract_run_in_process_names_each_broken_rule() {
        assert_eq!(failures(Fault::None), Vec::<String>::new());
        assert_eq!(failures(Fault::UnsafeText), ["move texts are safe in records"]);
        assert_eq!(failures(Fault::BadRoundTrip), ["position text round-trips"]);
        assert_eq!(failures(Fault::AcceptsJunk), ["junk move ids and texts are refused"]);
        assert!(
            failures(Fault::NoMoves).contains(&"legal moves are non-empty exactly while the game is ongoing".into())
        );
        let v = VariantHandle::in_process(Race { id: "race", fault: Fault::Panic }, "fixture-plugin", "0.1.0").unwrap();
        let panicked = std::panic::catch_unwind(|| arbiter_api::contract::assert_contract(&v, &CheckConfig::default()));
        let message = *panicked.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("FAIL no call panics: legal_moves in '"), "{message}");
        assert!(message.contains("': panicked: plugin"), "{message}");
    }

    #[test]
    fn the_halves_of_a_run_play_exactly_its_games() {
        let parts =
            |games, seed| CheckConfig { games, seed, ply_cap: 7 }.halves().map(|h| (h.games, h.seed, h.ply_cap));
        assert_eq!(parts(20, 1), [(10, 1, 7), (10, 11, 7)]);
        assert_eq!(parts(5, 3), [(2, 3, 7), (3, 5, 7)]);
    }
}
