//! The FIDE chess plugin: exports the `chess` variant. The rules live in the
//! `chess-rules` crate so that other variants (Bluff chess) reuse them.

arbiter_api::export_plugin!(chess_rules::Chess);
