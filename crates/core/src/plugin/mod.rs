//! Plugins: where to look for them ([`search`]) and the index of loaded
//! variants by id ([`registry`]). Loading itself is arbiter-api's `host` module.

pub mod registry;
pub mod search;

pub use registry::Registry;
pub use search::SearchPath;
