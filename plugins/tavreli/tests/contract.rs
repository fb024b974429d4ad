//! The plugin contract (what `arbiter check` runs on the built plugin), run
//! in process at `arbiter check`'s defaults: its 20 seeded games in two
//! tests of ten (seeds 1 to 10 and 11 to 20), which run side by side.

use arbiter_api::contract::{assert_contract, CheckConfig};
use arbiter_api::host::VariantHandle;

/// The contract over `arbiter check`'s default games `first..first + 10`
/// (counted from 0).
fn contract_over_ten_games_from(first: u64) {
    let v = VariantHandle::in_process(arbiter_tavreli::Tavreli, env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    let defaults = CheckConfig::default();
    assert_eq!(defaults.games, 20, "two tests of ten are the default games");
    assert_contract(&v.unwrap(), &CheckConfig { games: 10, seed: defaults.seed + first, ..defaults });
}

#[test]
fn the_plugin_contract_holds_over_the_first_ten_games() {
    contract_over_ten_games_from(0);
}

#[test]
fn the_plugin_contract_holds_over_the_last_ten_games() {
    contract_over_ten_games_from(10);
}
