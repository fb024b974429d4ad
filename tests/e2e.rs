//! Every end-to-end test: the built `arbiter` binary and plugin files,
//! real engines, PostgreSQL, a browser. One module a file, one binary in
//! all (see Cargo.toml); `cargo test --test e2e MODULE::` runs one file's.

mod authoring;
mod check;
mod chess960;
mod chess_through_abi;
mod cli;
mod cluster;
mod draughts;
mod durability;
mod faults;
mod first_hour;
mod fuzz;
mod ini_variants;
mod loader;
mod referee;
mod remote;
mod sandbox;
mod tour;
mod tournament;
mod tune;
mod wasm;
mod web;
