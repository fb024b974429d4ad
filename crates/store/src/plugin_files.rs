//! Plugin files kept in the store by their sha256: the WebAssembly plugins a
//! tournament was registered with, so that a queue worker on another
//! machine fetches the pinned build instead of installing it (a `.wasm`
//! runs sandboxed, so a file from the store needs no trust).

use super::{Store, StoreError, StoreFailure};

/// What a store backend does with plugin files.
pub(super) trait PluginFileBackend {
    /// Keeps `bytes` under `sha256` (a file kept already is left as it is).
    fn put_plugin_file(&self, sha256: &str, name: &str, bytes: &[u8]) -> Result<(), StoreFailure>;
    /// The file kept under `sha256`: its name and bytes.
    fn plugin_file(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreFailure>;
    /// The sha256 of every file kept.
    fn plugin_file_hashes(&self) -> Result<Vec<String>, StoreFailure>;
}

impl Store {
    /// Keeps a plugin file under its sha256 (hex), named `name`.
    pub fn put_plugin_file(&self, sha256: &str, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        self.backend.put_plugin_file(sha256, name, bytes).map_err(|e| self.err(e))
    }

    /// The plugin file kept under `sha256`, with its name, if the store has it.
    pub fn plugin_file(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        self.backend.plugin_file(sha256).map_err(|e| self.err(e))
    }

    /// The sha256 of every plugin file the store keeps.
    pub fn plugin_file_hashes(&self) -> Result<Vec<String>, StoreError> {
        self.backend.plugin_file_hashes().map_err(|e| self.err(e))
    }
}
