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

mod api;
mod assets;
mod live;
mod play;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::plugin::Registry;
use crate::record::store::Store;

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
}

/// What every request handler shares.
struct App {
    registry: Registry,
    store: Arc<Store>,
    config: ServeConfig,
    changes: live::StoreChanges,
    sessions: play::Sessions,
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

impl<E: std::fmt::Display> From<E> for ApiError {
    fn from(e: E) -> ApiError {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

/// Runs blocking work (SQLite, plugins) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::from(format!("worker failed: {e}")))?
}

/// Serves until the process ends; `ready` is told the bound address.
pub fn serve(registry: Registry, config: ServeConfig, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let store = Arc::new(Store::open(&config.db)?);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let changes = live::StoreChanges::watch(Store::open(&config.db)?)?;
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", config.bind))?;
        let app = Arc::new(App { registry, store, config, changes, sessions: play::Sessions::default() });
        ready(listener.local_addr()?);
        axum::serve(listener, router(app)).await?;
        Ok(())
    })
}

fn router(app: Shared) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/app.css", get(assets::style))
        .route("/api/variants", get(api::variants))
        .route("/api/tournaments", get(api::tournaments))
        .route("/api/tournaments/{id}", get(api::tournament))
        .route("/api/tournaments/{id}/live", get(api::tournament_live))
        .route("/api/games", get(api::games))
        .route("/api/games/{id}", get(api::game))
        .route("/api/games/{id}/record", get(api::record))
        .route("/api/events", get(live::store_events))
        .route("/api/play", post(play::start).get(play::list))
        .route("/api/play/{id}", get(play::state))
        .route("/api/play/{id}/events", get(play::events))
        .route("/api/play/{id}/act", post(play::act))
        .layer(axum::middleware::from_fn(same_origin_writes))
        .with_state(app)
}

/// Refuses a state-changing request sent by another site's page (the server
/// listens on loopback, where any page the user opens could reach it).
async fn same_origin_writes(
    headers: HeaderMap,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if request.method() != Method::GET {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
        let origin = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
        let same = origin.is_none_or(|o| o.split_once("://").is_some_and(|(_, rest)| rest == host));
        if !same {
            return ApiError::forbidden("cross-origin request refused").into_response();
        }
    }
    next.run(request).await
}
