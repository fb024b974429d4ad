//! Games in progress, in SQLite.

use rusqlite::params;

use super::Sqlite;
use crate::live::{LiveBackend, LiveGame};
use crate::{to_json, StoreFailure};
use arbiter_core::sync::LockExt;

impl LiveBackend for Sqlite {
    fn set_live(&self, tournament: i64, game: &LiveGame) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT OR REPLACE INTO live_games (tournament_id, game_index, variant, players, frame)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![tournament, game.index, game.variant, to_json(&game.players), to_json(&game.frame)],
        )?;
        Ok(())
    }

    fn clear_live(&self, tournament: i64) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute("DELETE FROM live_games WHERE tournament_id = ?1", params![tournament])?;
        Ok(())
    }

    fn live_rows(&self, tournament: i64) -> Result<Vec<(u32, String, String, String)>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare(
            "SELECT game_index, variant, players, frame FROM live_games
             WHERE tournament_id = ?1 ORDER BY game_index",
        )?;
        let rows = stmt.query_map(params![tournament], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
