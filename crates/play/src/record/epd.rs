//! Final positions, one per line, as cutechess-cli's `-epdout` writes them:
//! the position text of each game's last position (FEN for chess).

use super::{EventInfo, RecordFormat};
use arbiter_core::model::GameRecord;

/// The final-positions format.
pub struct Epd;

impl RecordFormat for Epd {
    fn name(&self) -> &'static str {
        "epd"
    }

    fn title(&self) -> &'static str {
        "final positions"
    }
    fn media_type(&self) -> &'static str {
        "text/plain; charset=utf-8"
    }
    fn extension(&self) -> &'static str {
        "epd"
    }

    fn write(&self, record: &GameRecord, _event: &EventInfo) -> String {
        format!("{}\n", record.final_position)
    }
}
