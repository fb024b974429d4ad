//! The plugin contract (what `arbiter check` runs on the built plugin), run
//! in process on every variant of this crate at `arbiter check`'s defaults:
//! a test a variant, so that they run side by side.

use arbiter_api::contract::{assert_contract, CheckConfig};
use arbiter_api::host::VariantHandle;
use arbiter_api::kit::Variant;

fn keeps_the_contract(variant: impl Variant) {
    let v = VariantHandle::in_process(variant, env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
    assert_contract(&v.unwrap(), &CheckConfig::default());
}

#[test]
fn international_draughts_keeps_the_plugin_contract() {
    keeps_the_contract(arbiter_draughts::INTERNATIONAL);
}

#[test]
fn brazilian_draughts_keeps_the_plugin_contract() {
    keeps_the_contract(arbiter_draughts::BRAZILIAN);
}

#[test]
fn russian_draughts_keeps_the_plugin_contract() {
    keeps_the_contract(arbiter_draughts::RUSSIAN);
}

#[test]
fn checkers_keeps_the_plugin_contract() {
    keeps_the_contract(arbiter_draughts::CHECKERS);
}
