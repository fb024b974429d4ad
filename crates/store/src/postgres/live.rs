//! Games in progress, in PostgreSQL.

use super::Postgres;
use crate::live::{LiveBackend, LiveGame};
use crate::{to_json, StoreFailure};

impl LiveBackend for Postgres {
    fn set_live(&self, tournament: i64, game: &LiveGame) -> Result<(), StoreFailure> {
        let (players, frame) = (to_json(&game.players), to_json(&game.frame));
        self.with(|client| {
            let mut tx = client.transaction()?;
            tx.execute(
                "INSERT INTO live_games (tournament_id, game_index, variant, players, frame)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (tournament_id, game_index) DO UPDATE
                 SET variant = EXCLUDED.variant, players = EXCLUDED.players, frame = EXCLUDED.frame",
                &[&tournament, &(game.index as i32), &game.variant, &players, &frame],
            )?;
            tx.execute("SELECT nextval('store_changes')", &[])?;
            tx.commit()
        })
    }

    fn clear_live(&self, tournament: i64) -> Result<(), StoreFailure> {
        self.with(|client| client.execute("DELETE FROM live_games WHERE tournament_id = $1", &[&tournament]).map(drop))
    }

    fn live_rows(&self, tournament: i64) -> Result<Vec<(u32, String, String, String)>, StoreFailure> {
        let rows = self.with(|client| {
            client.query(
                "SELECT game_index, variant, players, frame FROM live_games
                 WHERE tournament_id = $1 ORDER BY game_index",
                &[&tournament],
            )
        })?;
        Ok(rows.iter().map(|r| (r.get::<_, i32>(0) as u32, r.get(1), r.get(2), r.get(3))).collect())
    }
}
