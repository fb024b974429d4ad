//! The fleet: a tournament's games played by workers on other machines. In
//! the store's queue ([`queue`]: `arbiter worker --db ...` on any machine
//! with store credentials), or over HTTPS through a coordinator
//! ([`coordinator`], `arbiter serve`; the messages in [`wire`]; the client
//! and its worker slots in [`remote`], `arbiter worker --server ...`), which
//! counts a remote worker's result only as far as its record proves it
//! ([`outcomes`]).

pub mod coordinator;
pub mod outcomes;
pub mod queue;
pub mod remote;
pub mod wire;
