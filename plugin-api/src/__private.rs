//! Support code for [`crate::export_plugin!`]: the plugin's identity, and the
//! native root module built inside the plugin. Not part of the public API;
//! only the macro expansion uses it.

use std::sync::OnceLock;

#[cfg(target_arch = "wasm32")]
pub use crate::kit::wasm::{self, factory, Factory};
#[cfg(not(target_arch = "wasm32"))]
pub use native::*;

/// The plugin's crate name and version, and its metadata JSON.
struct Identity {
    name: &'static str,
    version: &'static str,
    metadata: String,
}

static IDENTITY: OnceLock<Identity> = OnceLock::new();

/// What a plugin's Cargo.toml says of it, as `export_plugin!` reads it.
#[derive(Clone, Copy, Debug)]
pub struct CrateInfo {
    /// The crate's name.
    pub name: &'static str,
    /// Its version.
    pub version: &'static str,
    /// Its authors, `:`-separated as cargo gives them.
    pub authors: &'static str,
    /// Its licence.
    pub license: &'static str,
    /// Its repository's URL.
    pub repository: &'static str,
    /// Its description.
    pub description: &'static str,
}

/// The calling crate's [`CrateInfo`], from cargo's environment at build time.
#[doc(hidden)]
#[macro_export]
macro_rules! __crate_info {
    () => {
        $crate::__private::CrateInfo {
            name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
            authors: env!("CARGO_PKG_AUTHORS"),
            license: env!("CARGO_PKG_LICENSE"),
            repository: env!("CARGO_PKG_REPOSITORY"),
            description: env!("CARGO_PKG_DESCRIPTION"),
        }
    };
}

/// Keeps the plugin's identity (from its Cargo.toml) for errors and the host.
pub(crate) fn set_identity(info: CrateInfo) {
    let metadata = serde_json::json!({
        "name": info.name,
        "version": info.version,
        "authors": info.authors.split(':').filter(|a| !a.is_empty()).collect::<Vec<_>>(),
        "license": info.license,
        "repository": info.repository,
        "description": info.description,
        "arbiter_api": crate::API_VERSION,
    })
    .to_string();
    let _ = IDENTITY.set(Identity { name: info.name, version: info.version, metadata });
}

/// This plugin's crate name, for error messages.
pub(crate) fn plugin_name() -> &'static str {
    IDENTITY.get().map(|i| i.name).unwrap_or("(unnamed)")
}

/// This plugin's crate name and version.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn identity() -> (&'static str, &'static str) {
    IDENTITY.get().map(|i| (i.name, i.version)).unwrap_or(("(unnamed)", ""))
}

/// Authors, licence, URL... as a JSON object.
pub(crate) fn metadata_json() -> String {
    IDENTITY.get().map(|i| i.metadata.clone()).unwrap_or_else(|| "{}".into())
}

/// Unwraps each variant or panics with its error: used inside the call that
/// lists the variants, where the guard (or the trap) turns it into an error
/// for the host.
pub fn collect<F>(variants: Vec<Result<F, crate::Error>>) -> Vec<F> {
    variants.into_iter().map(|v| v.unwrap_or_else(|e| panic!("{}", e.message))).collect()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::OnceLock;

    use abi_stable::prefix_type::PrefixTypeTrait;
    use abi_stable::sabi_trait::TD_Opaque;
    use abi_stable::std_types::{RErr, RNone, ROk, ROption, RResult, RStr, RString, RVec};

    pub use abi_stable::library::{__call_root_module_loader, CheckTypeLayout, LibHeader, RootModuleResult};

    use crate::abi::{PluginModule, PluginModule_Ref, RawError, RawExtension, VariantFactoryBox, VariantFactory_TO};
    use crate::kit::adapter::VariantAdapter;
    use crate::kit::{guard, Variant};

    /// One exported variant, as `export_plugin!` lists them.
    pub type Factory = VariantFactoryBox;

    /// The arbiter-api version a plugin was built against, nul-padded: the
    /// plain `ARBITER_API_VERSION` symbol `export_plugin!` exports, which the
    /// host reads with a plain symbol lookup before abi_stable compares layouts,
    /// so that another version line is named as such, not as a layout report.
    pub type ApiVersionSymbol = [u8; 32];

    /// This arbiter-api's version as an [`ApiVersionSymbol`].
    pub const API_VERSION_SYMBOL: ApiVersionSymbol = {
        let v = crate::API_VERSION.as_bytes();
        let mut out = [0u8; 32];
        let mut i = 0;
        while i < v.len() && i < 31 {
            out[i] = v[i];
            i += 1;
        }
        out
    };

    static VARIANTS: OnceLock<fn() -> Vec<VariantFactoryBox>> = OnceLock::new();

    /// Wraps a variant into the ABI's factory object; a variant whose `info`
    /// panics is reported when the host asks for the variants.
    pub fn factory<V: Variant>(variant: V) -> Result<VariantFactoryBox, crate::Error> {
        VariantAdapter::new(variant).map(|a| VariantFactory_TO::from_value(a, TD_Opaque))
    }

    /// Builds the root module. Called once, by the loader, through the static
    /// header that `export_plugin!` emits.
    pub fn root_module(info: super::CrateInfo, variants: fn() -> Vec<VariantFactoryBox>) -> PluginModule_Ref {
        super::set_identity(info);
        let _ = VARIANTS.set(variants);
        crate::log::install_panic_hook();
        PluginModule {
            plugin_name: RStr::from_str(info.name),
            plugin_version: RStr::from_str(info.version),
            api_version: RStr::from_str(crate::API_VERSION),
            metadata_json,
            variants: all_variants,
            set_logger: crate::log::set_logger,
            get_extension,
        }
        .leak_into_prefix()
    }

    extern "C" fn metadata_json() -> RString {
        super::metadata_json().into()
    }

    extern "C" fn all_variants() -> RResult<RVec<VariantFactoryBox>, RawError> {
        let Some(make) = VARIANTS.get() else {
            return RErr(crate::Error::unsupported("plugin root module not initialised").to_raw());
        };
        match guard("variants", make) {
            Ok(v) => ROk(v.into()),
            Err(e) => RErr(e.to_raw()),
        }
    }

    extern "C" fn get_extension(_name: RStr<'_>) -> ROption<RawExtension> {
        // No extension is defined in arbiter-api 0.1 yet; the hook is in the root
        // module from the start so that later ones need no ABI break.
        RNone
    }
}
