//! Per-player exports of hidden-information games: replays the referee's
//! record through the plugin and rewrites every move text as one viewer saw
//! it, so that nothing the viewer could not see leaves in an export.

use arbiter_api::host::VariantHandle;
use arbiter_api::{Error, Viewer};

use crate::referee::{GameRecord, PlyRecord};

/// The record's plies with each move text as `viewer` saw it.
pub fn plies_as_seen_by(variant: &VariantHandle, record: &GameRecord, viewer: Viewer) -> Result<Vec<PlyRecord>, Error> {
    let mut game = variant.from_position(&record.start_position, &record.options)?;
    let mut plies = Vec::with_capacity(record.plies.len());
    for ply in &record.plies {
        let text = game.move_text(ply.mv, viewer)?;
        game.apply(ply.mv)?;
        plies.push(PlyRecord { text, ..ply.clone() });
    }
    Ok(plies)
}
