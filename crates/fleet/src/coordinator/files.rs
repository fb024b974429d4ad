//! What a worker fetches before it plays: the tournaments' pins and the
//! pinned WebAssembly plugin files.

use super::{Coordinator, RequestError};
use crate::wire::{PinsResponse, TournamentPins};
use arbiter_tournament::error::Result;
use arbiter_tournament::view::TournamentView;

impl Coordinator {
    /// The pins of every unfinished tournament.
    pub fn pins(&self) -> Result<PinsResponse, RequestError> {
        let mut response = PinsResponse::default();
        for (t, _) in self.store.tournament_list()?.into_iter().filter(|(t, _)| t.finished_at.is_none()) {
            let view = TournamentView::load(&self.store, Some(t.id))?;
            let pins = TournamentPins { plugins: view.definition.plugins, engines: view.definition.engines };
            response.tournaments.insert(t.id, pins);
        }
        Ok(response)
    }

    /// A plugin file kept under `sha256`.
    pub fn plugin_file(&self, sha256: &str) -> Result<Vec<u8>, RequestError> {
        if sha256.len() != 64 || !sha256.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(RequestError::BadRequest(format!("'{}' is not a sha256", sha256.escape_debug())));
        }
        let file = self.store.plugin_file(sha256)?;
        file.map(|(_, bytes)| bytes).ok_or_else(|| RequestError::NotFound(format!("no plugin file {sha256}")))
    }
}
