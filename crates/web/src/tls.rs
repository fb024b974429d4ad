//! HTTPS for `arbiter serve --tls-cert FILE --tls-key FILE`: the server's
//! rustls settings from PEM files (the handshakes are made per connection,
//! with a time limit, by [`super::connections`]).

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};

/// A certificate chain and key that cannot be used: the file and why.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {why}")]
pub struct TlsError {
    file: String,
    why: String,
}

/// The server's TLS settings from PEM files: a certificate chain and its
/// private key.
pub fn server_config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, TlsError> {
    let fail = |file: &Path, why: String| TlsError { file: file.display().to_string(), why };
    let certs = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| fail(cert, format!("no certificate chain in PEM: {e}")))?;
    if certs.is_empty() {
        return Err(fail(cert, "no certificate in it".into()));
    }
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| fail(key, format!("no private key in PEM: {e}")))?;
    let config = ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| fail(cert, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key_der)
        .map_err(|e| fail(key, format!("does not go with the certificate: {e}")))?;
    Ok(Arc::new(config))
}
