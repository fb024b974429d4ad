//! Plugin files by sha256, in SQLite.

use rusqlite::{params, OptionalExtension};

use super::Sqlite;
use crate::plugin_files::PluginFileBackend;
use crate::StoreFailure;
use arbiter_core::sync::LockExt;

impl PluginFileBackend for Sqlite {
    fn put_plugin_file(&self, sha256: &str, name: &str, bytes: &[u8]) -> Result<(), StoreFailure> {
        let conn = self.conn.lock_or_recover();
        conn.execute(
            "INSERT OR IGNORE INTO plugin_files (sha256, name, bytes) VALUES (?1, ?2, ?3)",
            params![sha256, name, bytes],
        )?;
        Ok(())
    }

    fn plugin_file(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        Ok(conn
            .query_row("SELECT name, bytes FROM plugin_files WHERE sha256 = ?1", params![sha256], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?)
    }

    fn plugin_file_hashes(&self) -> Result<Vec<String>, StoreFailure> {
        let conn = self.conn.lock_or_recover();
        let mut stmt = conn.prepare("SELECT sha256 FROM plugin_files ORDER BY sha256")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
