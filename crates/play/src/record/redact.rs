//! Per-player exports of hidden-information games: replays the referee's
//! record through the plugin and rewrites every move text as one viewer saw
//! it, and drops the full positions, so that nothing the viewer could not see
//! leaves in an export.

use arbiter_api::host::VariantHandle;
use arbiter_api::{Error, Viewer};

use arbiter_core::model::{GameRecord, PlyRecord};

/// The record's plies with each move text as `viewer` saw it.
pub fn plies_as_seen_by(variant: &VariantHandle, record: &GameRecord, viewer: Viewer) -> Result<Vec<PlyRecord>, Error> {
    let mut game = variant.from_position(&record.start_position, &record.options)?;
    let hidden = variant.info().capabilities.hidden_information;
    let mut plies = Vec::with_capacity(record.plies.len());
    for ply in &record.plies {
        let text = game.move_text(ply.mv, viewer)?;
        game.apply(ply.mv)?;
        // Coordinates are only ever kept for perfect-information games.
        let coordinates = ply.coordinates.clone().filter(|_| !hidden);
        plies.push(PlyRecord { text, coordinates, ..ply.clone() });
    }
    Ok(plies)
}

/// The record as `viewer` saw it: move texts redacted, and for
/// hidden-information variants the (full) start and final positions removed.
pub fn record_as_seen_by(variant: &VariantHandle, record: &GameRecord, viewer: Viewer) -> Result<GameRecord, Error> {
    let plies = plies_as_seen_by(variant, record, viewer)?;
    let hidden = variant.info().capabilities.hidden_information;
    Ok(GameRecord {
        plies,
        viewer: Some(viewer),
        start_position: if hidden { String::new() } else { record.start_position.clone() },
        final_position: if hidden { String::new() } else { record.final_position.clone() },
        ..record.clone()
    })
}
