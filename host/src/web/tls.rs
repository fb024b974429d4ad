//! HTTPS for `arbiter serve --tls-cert FILE --tls-key FILE`: rustls over
//! the TCP listener, each handshake on a task of its own with
//! [`HANDSHAKE_TIME`] to finish, so a client that connects and says nothing
//! holds no other connection back.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How long a TLS handshake may take.
pub const HANDSHAKE_TIME: Duration = Duration::from_secs(10);

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

/// A listener whose connections are TLS sessions, for `axum::serve`.
pub struct TlsListener {
    local: SocketAddr,
    accepted: tokio::sync::mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
}

impl TlsListener {
    /// Accepts TCP connections on `listener` and shakes hands on each.
    pub fn new(listener: TcpListener, config: Arc<ServerConfig>) -> std::io::Result<TlsListener> {
        let local = listener.local_addr()?;
        let (send, accepted) = tokio::sync::mpsc::channel(64);
        let acceptor = TlsAcceptor::from(config);
        tokio::spawn(async move {
            loop {
                let (tcp, peer) = match listener.accept().await {
                    Ok(c) => c,
                    Err(e) => {
                        // Out of file descriptors, say: wait rather than spin.
                        tracing::warn!("accepting a connection: {e}");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let (acceptor, send) = (acceptor.clone(), send.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIME, acceptor.accept(tcp)).await {
                        Ok(Ok(tls)) => {
                            let _ = send.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => tracing::debug!("TLS handshake with {peer}: {e}"),
                        Err(_) => tracing::debug!("TLS handshake with {peer}: timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { local, accepted })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.accepted.recv().await {
            Some(connection) => connection,
            // The accepting task never ends while the listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}
