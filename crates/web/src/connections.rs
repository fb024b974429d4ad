//! The server's connections: accepted, counted per address and in all,
//! shaken hands with (HTTPS) and served over HTTP/1.1 with time limits, so
//! that clients that connect and say nothing, or send their headers a byte
//! at a time, or keep a connection idle, hold nothing for long and lock no
//! one else out.
//!
//! - Past [`ConnectionLimits::per_address`] open connections from one
//!   address, or [`ConnectionLimits::total`] in all, a new connection is
//!   closed at once (before any handshake).
//! - A TLS handshake has [`ConnectionLimits::handshake`] to finish.
//! - A request's headers have [`ConnectionLimits::headers`] to arrive, and
//!   so does the next request's on a kept-alive connection: an idle
//!   connection is closed after that long.
//! - A request's body is read whole before its handler runs, within
//!   [`BODY_TIME`] (an upload's within its own time: the `workers` routes'),
//!   so a body dripped a byte at a time ends its request (`read_body`).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use arbiter_core::sync::LockExt;

/// What the server lets clients hold.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Open connections from one address.
    pub per_address: usize,
    /// Open connections in all.
    pub total: usize,
    /// How long a TLS handshake may take.
    pub handshake: Duration,
    /// How long a request's headers may take to arrive, and how long a
    /// kept-alive connection may wait idle for its next request.
    pub headers: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            per_address: 256,
            total: 8192,
            handshake: Duration::from_secs(10),
            headers: Duration::from_secs(10),
        }
    }
}

/// The open connections, by address.
struct Admission {
    limits: ConnectionLimits,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One admitted connection: counted until dropped.
struct Admitted {
    admission: Arc<Admission>,
    address: IpAddr,
}

impl Admission {
    /// Counts a connection from `address`, if it is within the limits.
    fn admit(self: &Arc<Self>, address: IpAddr) -> Option<Admitted> {
        let mut open = self.open.lock_or_recover();
        let from = open.1.get(&address).copied().unwrap_or(0);
        if from >= self.limits.per_address || open.0 >= self.limits.total {
            return None;
        }
        open.0 += 1;
        open.1.insert(address, from + 1);
        Some(Admitted { admission: self.clone(), address })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.admission.open.lock_or_recover();
        open.0 = open.0.saturating_sub(1);
        if let Some(n) = open.1.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                open.1.remove(&self.address);
            }
        }
    }
}

/// How long a request's body (but an upload's) may take to arrive.
pub const BODY_TIME: Duration = Duration::from_secs(10);

/// Reads a request's body whole, at most `limit` bytes within `time`,
/// before its handler runs: a body that is larger is refused (413), one
/// that comes too slowly ends the request (408).
pub(super) async fn read_body(
    request: axum::extract::Request,
    next: axum::middleware::Next,
    limit: usize,
    time: Duration,
) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(time, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            let why = format!("the body is larger than {} KiB, or broken off", limit >> 10);
            return super::ApiError(axum::http::StatusCode::PAYLOAD_TOO_LARGE, why).into_response();
        }
        Err(_) => {
            let why = format!("the body took longer than {} s to arrive", time.as_secs());
            return super::ApiError(axum::http::StatusCode::REQUEST_TIMEOUT, why).into_response();
        }
    };
    next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

/// Raises this process's limit of open files to the most it may have, so
/// that many workers' connections fit (the soft limit is often 1,024);
/// failing that, the limit stays as it is.
pub fn raise_open_file_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write `limit`.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Serves `app` on `listener` (over TLS with `tls`) until the process
/// ends.
pub async fn serve(listener: TcpListener, tls: Option<Arc<ServerConfig>>, app: Router, limits: ConnectionLimits) {
    let admission = Arc::new(Admission { limits, open: Mutex::default() });
    let acceptor = tls.map(TlsAcceptor::from);
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
        let Some(admitted) = admission.admit(peer.ip()) else {
            tracing::debug!("connection from {peer} refused: too many open");
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let (app, acceptor) = (app.clone(), acceptor.clone());
        tokio::spawn(async move {
            match acceptor {
                None => serve_connection(tcp, peer, app, limits).await,
                Some(acceptor) => match tokio::time::timeout(limits.handshake, acceptor.accept(tcp)).await {
                    Ok(Ok(tls)) => serve_connection(tls, peer, app, limits).await,
                    Ok(Err(e)) => tracing::debug!("TLS handshake with {peer}: {e}"),
                    Err(_) => tracing::debug!("TLS handshake with {peer}: timed out"),
                },
            }
            drop(admitted);
        });
    }
}

/// Serves HTTP/1.1 requests on one connection until either side closes it
/// or its headers come too slowly.
async fn serve_connection<I>(io: I, peer: SocketAddr, app: Router, limits: ConnectionLimits)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        app.clone().oneshot(request)
    });
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.headers)
        .serve_connection(TokioIo::new(io), service)
        .await;
    if let Err(e) = served {
        tracing::debug!("connection with {peer}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Admission, ConnectionLimits};

    #[test]
    fn connections_are_counted_per_address_and_in_all_until_dropped() {
        let limits = ConnectionLimits { per_address: 2, total: 3, ..ConnectionLimits::default() };
        let admission = Arc::new(Admission { limits, open: Default::default() });
        let (a, b) = ("127.0.0.2".parse().unwrap(), "127.0.0.3".parse().unwrap());
        let first = admission.admit(a).unwrap();
        let _second = admission.admit(a).unwrap();
        assert!(admission.admit(a).is_none(), "a third from one address");
        let _other = admission.admit(b).unwrap();
        assert!(admission.admit(b).is_none(), "a fourth in all");
        drop(first);
        assert!(admission.admit(a).is_some(), "a closed connection is no longer counted");
    }
}
