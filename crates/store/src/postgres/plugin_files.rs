//! Plugin files by sha256, in PostgreSQL.

use super::Postgres;
use crate::plugin_files::PluginFileBackend;
use crate::StoreFailure;

impl PluginFileBackend for Postgres {
    fn put_plugin_file(&self, sha256: &str, name: &str, bytes: &[u8]) -> Result<(), StoreFailure> {
        self.with(|client| {
            client
                .execute(
                    "INSERT INTO plugin_files (sha256, name, bytes) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING",
                    &[&sha256, &name, &bytes],
                )
                .map(drop)
        })
    }

    fn plugin_file(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreFailure> {
        let row =
            self.with(|client| client.query_opt("SELECT name, bytes FROM plugin_files WHERE sha256 = $1", &[&sha256]))?;
        Ok(row.map(|r| (r.get(0), r.get(1))))
    }

    fn plugin_file_hashes(&self) -> Result<Vec<String>, StoreFailure> {
        let rows = self.with(|client| client.query("SELECT sha256 FROM plugin_files ORDER BY sha256", &[]))?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}
