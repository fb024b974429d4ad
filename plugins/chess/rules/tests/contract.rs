//! The plugin contract (what `arbiter check` runs on the built plugin), run
//! in process at `arbiter check`'s defaults: its 20 seeded games as two
//! tests of 10 (seeds 1..=10 and 11..=20), so that the halves run side by
//! side.

use arbiter_api::contract::{assert_contract, CheckConfig};
use arbiter_api::host::VariantHandle;

fn keeps_the_contract(half: usize) {
    let v = VariantHandle::in_process(chess_rules::Chess, env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    assert_contract(&v.unwrap(), &CheckConfig::default().halves()[half]);
}

#[test]
fn the_first_ten_games_keep_the_plugin_contract() {
    keeps_the_contract(0);
}

#[test]
fn the_last_ten_games_keep_the_plugin_contract() {
    keeps_the_contract(1);
}
