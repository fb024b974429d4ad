//! The index of installed variants: every plugin on the search path loaded
//! once, its variants keyed by id. Problems (a file that is not a plugin, a
//! plugin built against another arbiter-api, two plugins exporting one id) are
//! collected as one-line warnings rather than stopping the host.

use std::collections::BTreeMap;

use arbiter_api::host::{Plugin, VariantHandle};

use super::SearchPath;

/// Loaded variants by id, and what went wrong while loading.
#[derive(Default)]
pub struct Registry {
    variants: BTreeMap<String, VariantHandle>,
    warnings: Vec<String>,
}

/// A variant id nobody exports.
#[derive(Debug, thiserror::Error)]
#[error("unknown variant '{id}' (installed: {installed}); see `arbiter list`")]
pub struct UnknownVariant {
    id: String,
    installed: String,
}

impl Registry {
    /// Loads every plugin on `path`. The first plugin to export an id wins.
    pub fn load(path: &SearchPath) -> Registry {
        let mut reg = Registry::default();
        let files = path.plugin_files();
        tracing::debug!("plugin files on the search path: {files:?}");
        for file in files {
            match Plugin::load(&file).and_then(|p| p.variants()) {
                Ok(variants) => {
                    let ids: Vec<&str> = variants.iter().map(|v| v.info().id.as_str()).collect();
                    tracing::info!("loaded {} ({})", file.display(), ids.join(", "));
                    for v in variants {
                        reg.add(v);
                    }
                }
                Err(e) => reg.warnings.push(e.to_string()),
            }
        }
        reg
    }

    /// The given variants, already loaded (in process, for embedders and
    /// tests); the first of two with one id wins, as [`Registry::load`] does.
    pub fn of(variants: impl IntoIterator<Item = VariantHandle>) -> Registry {
        let mut reg = Registry::default();
        for v in variants {
            reg.add(v);
        }
        reg
    }

    fn add(&mut self, v: VariantHandle) {
        let id = v.info().id.clone();
        match self.variants.get(&id) {
            // One plugin built both ways: the first found (native, in one
            // folder) is kept without a word.
            Some(kept) if kept.plugin().name == v.plugin().name && kept.plugin().kind != v.plugin().kind => {
                tracing::debug!(
                    "variant '{id}': using {} over {}",
                    kept.plugin().path.display(),
                    v.plugin().path.display()
                );
            }
            Some(kept) => self.warnings.push(format!(
                "variant '{id}' is exported by both {} and {}; using {}",
                kept.plugin().path.display(),
                v.plugin().path.display(),
                kept.plugin().path.display()
            )),
            None => {
                self.variants.insert(id, v);
            }
        }
    }

    /// The variant with this id.
    pub fn get(&self, id: &str) -> Result<&VariantHandle, UnknownVariant> {
        self.variants.get(id).ok_or_else(|| UnknownVariant {
            id: id.to_string(),
            installed: if self.variants.is_empty() {
                "none".into()
            } else {
                self.variants.keys().cloned().collect::<Vec<_>>().join(", ")
            },
        })
    }

    /// All variants, by id.
    pub fn variants(&self) -> impl Iterator<Item = &VariantHandle> {
        self.variants.values()
    }

    /// One line per problem met while loading.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

#[cfg(test)]
mod tests {
    use arbiter_fixture::Fault;

    use super::Registry;
    use arbiter_testing::race;

    #[test]
    fn the_first_variant_of_an_id_is_kept_the_second_named_and_an_unknown_id_lists_the_installed() {
        let registry = Registry::of([race(Fault::None), race(Fault::Panic)]);
        assert_eq!(registry.variants().count(), 1);
        assert_eq!(registry.warnings().len(), 1);
        assert!(registry.warnings()[0].starts_with("variant 'race' is exported by both"), "{:?}", registry.warnings());
        assert!(registry.get("race").is_ok());
        let e = registry.get("nope").err().unwrap().to_string();
        assert_eq!(e, "unknown variant 'nope' (installed: race); see `arbiter list`");
        let none = Registry::of([]).get("chess").err().unwrap().to_string();
        assert_eq!(none, "unknown variant 'chess' (installed: none); see `arbiter list`");
    }
}
