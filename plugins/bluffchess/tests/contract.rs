//! The plugin contract (what `arbiter check` runs on the built plugin), run
//! in process on every variant of this crate at `arbiter check`'s defaults.

use arbiter_api::contract::{assert_contract, CheckConfig};
use arbiter_api::host::VariantHandle;

#[test]
fn every_variant_keeps_the_plugin_contract() {
    let variants =
        [VariantHandle::in_process(arbiter_bluffchess::BluffChess, env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))];
    for v in variants {
        assert_contract(&v.unwrap(), &CheckConfig::default());
    }
}
