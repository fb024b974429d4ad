//! `arbiter serve`: a local web view over the SQLite store and the loaded
//! plugins. Tournaments with live standings, the game list, a game viewer,
//! and games against any built-in player in the browser. The pages are one
//! embedded script that draws every board from the plugin's observation
//! schema (grids and point graphs), so a new variant needs no change here.
//!
//! Hidden information: live games are shown to each viewer through that
//! viewer's observation only (a player's token selects its seat, everyone
//! else is a spectator); a stored game's full record is shown only when the
//! server's [`Reveal`] policy allows it.

pub mod answers;
mod api;
mod assets;
pub mod connections;
mod live;
mod play;
mod tls;
mod workers;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use arbiter_core::plugin::Registry;
use arbiter_fleet::coordinator::Coordinator;
use arbiter_store::Store;

/// When the referee's full record of a stored hidden-information game may be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Reveal {
    /// Once the game has ended (every stored game has).
    Finished,
    /// Never: viewers get the spectator's view and no full record.
    Never,
}

/// How `arbiter serve` runs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The SQLite store.
    pub db: PathBuf,
    /// Address to listen on.
    pub bind: SocketAddr,
    /// The full-record policy for hidden-information games.
    pub reveal: Reveal,
    /// Whether browser games may start engine processes (`uci:`, `engine:`, `hub:`).
    pub allow_engines: bool,
    /// Host names besides IP addresses and `localhost` that requests may
    /// name (`--allow-host`): any other `Host` is refused, so a page on a
    /// name rebound to this address cannot reach the server.
    pub allow_hosts: Vec<String>,
    /// The most browser games in progress at once; past it `POST /api/play`
    /// answers 503.
    pub max_games: usize,
    /// HTTPS: a PEM certificate chain and its private key (`None`: HTTP,
    /// for loopback or behind a TLS proxy).
    pub tls: Option<(PathBuf, PathBuf)>,
    /// How long a remote worker's claim lasts without a heartbeat.
    pub worker_lease: std::time::Duration,
    /// The fraction of stored games with deterministic players that a
    /// second remote worker plays again, to compare.
    pub double_check: f64,
    /// The fraction of uploaded reproducible games (every player sandboxed
    /// or built in) played again here before they count.
    pub reexecute: f64,
    /// What clients may hold open, and for how long.
    pub connections: connections::ConnectionLimits,
}

/// What every request handler shares.
struct App {
    registry: Arc<Registry>,
    store: Arc<Store>,
    config: ServeConfig,
    changes: live::StoreChanges,
    sessions: play::Sessions,
    /// What remote workers talk to (`/api/worker/...`).
    coordinator: Coordinator,
    /// The uploads being read, per worker.
    uploads: workers::UploadSlots,
}

type Shared = Arc<App>;

/// A failed request: its status and a one-line reason, sent as `{"error": ...}`.
#[derive(Debug)]
struct ApiError(StatusCode, String);

impl ApiError {
    fn not_found(what: impl Into<String>) -> ApiError {
        ApiError(StatusCode::NOT_FOUND, what.into())
    }
    fn bad_request(what: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, what.into())
    }
    fn forbidden(what: impl Into<String>) -> ApiError {
        ApiError(StatusCode::FORBIDDEN, what.into())
    }
}

/// A failure of the server itself (the store, a task): logged whole, and
/// answered without its text, which may name files, databases or queries.
impl<E: std::fmt::Display> From<E> for ApiError {
    fn from(e: E) -> ApiError {
        tracing::error!("web request failed: {e}");
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, "the server failed to answer (its log says why)".into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(answers::ErrorAnswer { error: self.1 })).into_response()
    }
}

/// Runs blocking work (SQLite, plugins) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::from(format!("worker failed: {e}")))?
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] arbiter_store::StoreError),
    /// The certificate or key cannot be used.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// A socket, thread or runtime failed: what was being done, and why.
    #[error("{what}: {error}")]
    System {
        /// What was being done.
        what: String,
        /// What the system said.
        error: std::io::Error,
    },
}

/// Serves until the process ends; `ready` is told the bound address and
/// the store's location as messages may show it (no password).
pub fn serve(registry: Registry, config: ServeConfig, ready: impl FnOnce(SocketAddr, &str)) -> Result<(), ServeError> {
    let system = |what: &str| {
        let what = what.to_string();
        move |error| ServeError::System { what, error }
    };
    // Opened before the runtime starts: PostgreSQL's synchronous client runs
    // a runtime of its own, which may not start inside another.
    let store = Arc::new(Store::open(&config.db)?);
    let watched = Store::open(&config.db)?;
    let tls = config.tls.as_ref().map(|(cert, key)| tls::server_config(cert, key)).transpose()?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(system("cannot start the server"))?;
    runtime.block_on(async move {
        let changes = live::StoreChanges::watch(watched).map_err(system("cannot watch the store"))?;
        let listening = format!("cannot listen on {}", config.bind);
        let listener = tokio::net::TcpListener::bind(config.bind).await.map_err(system(&listening))?;
        ready(listener.local_addr().map_err(system(&listening))?, store.location());
        let registry = Arc::new(registry);
        let coordinator = Coordinator::new(registry.clone(), store.clone(), config.worker_lease)
            .with_double_check(config.double_check)
            .with_reexecute(config.reexecute);
        let app = Arc::new(App {
            registry,
            store,
            config,
            changes,
            sessions: play::Sessions::default(),
            coordinator,
            uploads: Default::default(),
        });
        connections::raise_open_file_limit();
        let limits = app.config.connections;
        connections::serve(listener, tls, router(app), limits).await;
        Ok(())
    })
}

/// The largest body a page may send (a browser game's start or move).
const PAGE_BODY_LIMIT: usize = 64 << 10;

fn router(app: Shared) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/app.css", get(assets::style))
        .route("/api/variants", get(api::variants))
        .route("/api/tournaments", get(api::tournaments))
        .route("/api/tournaments/{id}", get(api::tournament))
        .route("/api/tournaments/{id}/live", get(api::tournament_live))
        .route("/api/ratings", get(api::ratings))
        .route("/api/games", get(api::games))
        .route("/api/games/{id}", get(api::game))
        .route("/api/games/{id}/record", get(api::record))
        .route("/api/events", get(live::store_events))
        .route("/api/play", post(play::start).get(play::list))
        .route("/api/play/{id}", get(play::state))
        .route("/api/play/{id}/events", get(play::events))
        .route("/api/play/{id}/act", post(play::act))
        .layer(axum::middleware::from_fn(|r, n| connections::read_body(r, n, PAGE_BODY_LIMIT, connections::BODY_TIME)))
        .layer(axum::middleware::from_fn_with_state(app.clone(), trusted_requests))
        .with_state(app.clone())
        .merge(workers::routes(app))
}

/// Whether `host` (a `Host` header or an origin's authority, port optional)
/// names this server: an IP address (no DNS name can be rebound behind it),
/// `localhost`, or a name given with `--allow-host`.
fn trusted_host(host: &str, allowed: &[String]) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(ip, _)| ip)
    } else {
        host.rsplit_once(':').filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit())).map_or(host, |(n, _)| n)
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    !name.is_empty()
        && (name.parse::<std::net::IpAddr>().is_ok()
            || name == "localhost"
            || allowed.iter().any(|a| a.eq_ignore_ascii_case(&name)))
}

/// Refuses requests that do not name this server (DNS rebinding), and
/// state-changing requests sent by a page of another origin.
async fn trusted_requests(
    axum::extract::State(app): axum::extract::State<Shared>,
    headers: HeaderMap,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let allowed = &app.config.allow_hosts;
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !trusted_host(host, allowed) {
        let why =
            format!("host '{host}' refused: this server answers to IP addresses, localhost and --allow-host names");
        return ApiError::forbidden(why).into_response();
    }
    if request.method() != Method::GET {
        let origin = headers.get(header::ORIGIN).map(|h| h.to_str().unwrap_or("?"));
        // Behind a TLS proxy the page's scheme is the proxy's.
        let own = if app.config.tls.is_some() { "https" } else { "http" };
        let scheme = headers.get("x-forwarded-proto").and_then(|h| h.to_str().ok()).unwrap_or(own);
        if origin.is_some_and(|o| !same_origin(o, scheme, host)) {
            return ApiError::forbidden("cross-origin request refused: only this server's own pages may change state")
                .into_response();
        }
    }
    next.run(request).await
}

/// Whether a request's `Origin` is this server's own origin: the scheme it
/// was reached by and the host and port of its `Host` header, the default
/// port written or not. Any other origin (another port of the same host,
/// another address, `null`) is a page that is not ours.
fn same_origin(origin: &str, scheme: &str, host: &str) -> bool {
    let Some((their_scheme, authority)) = origin.split_once("://") else { return false };
    let default_port = match scheme {
        "http" => "80",
        "https" => "443",
        _ => return false,
    };
    // `name:port` with the default port made explicit; IPv6 in brackets.
    let normal = |a: &str| -> Option<String> {
        let a = a.to_ascii_lowercase();
        let (name, port) = match a.rfind(':') {
            Some(i) if !a[i..].contains(']') => (a[..i].to_string(), a[i + 1..].to_string()),
            _ => (a.clone(), default_port.to_string()),
        };
        let valid = !name.is_empty() && !port.is_empty() && port.chars().all(|c| c.is_ascii_digit());
        valid.then(|| format!("{}:{}", name.trim_end_matches('.'), port.trim_start_matches('0')))
    };
    their_scheme.eq_ignore_ascii_case(scheme)
        && !authority.contains(['/', '@', '?', '#'])
        && normal(authority).is_some_and(|theirs| normal(host) == Some(theirs))
}

#[cfg(test)]
mod tests;
