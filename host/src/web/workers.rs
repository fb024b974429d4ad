//! The worker API's routes (`/api/worker/...`, see
//! [`crate::tournament::wire`]): each authenticates the bearer token, then
//! hands the request to the [`Coordinator`] on a blocking thread. They are
//! outside the browser pages' host and origin checks: a token, not the
//! page a request comes from, is what lets a worker in. Bodies are limited
//! and every request has [`REQUEST_TIME`] to finish, so a slow or stalled
//! client holds a connection of its own and nothing else.

use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use super::{ApiError, Shared};
use crate::tournament::coordinator::{Coordinator, RequestError};
use crate::tournament::wire::{ClaimRequest, Held, Upload, API};

/// The largest upload accepted (a batch of games with their engines' PVs).
pub const UPLOAD_LIMIT: usize = 32 << 20;

/// The largest body of any other request.
const BODY_LIMIT: usize = 64 << 10;

/// How long a request may take, body included.
pub const REQUEST_TIME: Duration = Duration::from_secs(60);

/// The worker API's routes.
pub(super) fn routes(app: Shared) -> Router {
    Router::new()
        .route(&format!("{API}/claim"), post(claim))
        .route(&format!("{API}/heartbeat"), post(heartbeat))
        .route(&format!("{API}/release"), post(release))
        .route(&format!("{API}/pins"), get(pins))
        .route(&format!("{API}/plugins/{{sha256}}"), get(plugin_file))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .merge(Router::new().route(&format!("{API}/upload"), post(upload)).layer(DefaultBodyLimit::max(UPLOAD_LIMIT)))
        .layer(axum::middleware::from_fn(in_time))
        .with_state(app)
}

/// Ends a request that takes longer than [`REQUEST_TIME`] (a client that
/// sends its body slowly, or not at all).
async fn in_time(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    match tokio::time::timeout(REQUEST_TIME, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError(StatusCode::REQUEST_TIMEOUT, "the request took too long".into()).into_response(),
    }
}

/// A refused request as its HTTP answer.
fn refused(e: RequestError) -> ApiError {
    {
        let status = match &e {
            RequestError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            RequestError::Forbidden(_) => StatusCode::FORBIDDEN,
            RequestError::BadRequest(_) => StatusCode::BAD_REQUEST,
            RequestError::NotFound(_) => StatusCode::NOT_FOUND,
            RequestError::Failed(e) => {
                tracing::error!("worker request failed: {e}");
                return ApiError(StatusCode::INTERNAL_SERVER_ERROR, "the coordinator failed (its log says why)".into());
            }
        };
        ApiError(status, e.to_string())
    }
}

/// The request's bearer token, if it has one.
fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
}

/// Runs `f` for the worker the request's token names, on a blocking thread.
async fn as_worker<T: Send + 'static>(
    app: Shared,
    headers: &HeaderMap,
    f: impl FnOnce(&Coordinator, &str) -> Result<T, RequestError> + Send + 'static,
) -> Result<T, ApiError> {
    let bearer = bearer(headers);
    let run = move || {
        let worker = app.coordinator.authenticate(bearer.as_deref())?;
        f(&app.coordinator, &worker)
    };
    tokio::task::spawn_blocking(run).await.map_err(|e| ApiError::from(format!("worker failed: {e}")))?.map_err(refused)
}

/// A JSON body, or a 400 naming what is wrong with it.
fn body<T>(parsed: Result<Json<T>, axum::extract::rejection::JsonRejection>) -> Result<T, ApiError> {
    parsed.map(|Json(t)| t).map_err(|e| ApiError(e.status(), e.body_text()))
}

/// `POST /api/worker/claim`.
async fn claim(
    State(app): State<Shared>,
    headers: HeaderMap,
    request: Result<Json<ClaimRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let request = body(request)?;
    Ok(Json(as_worker(app, &headers, move |c, w| c.claim(w, &request)).await?).into_response())
}

/// `POST /api/worker/heartbeat`.
async fn heartbeat(
    State(app): State<Shared>,
    headers: HeaderMap,
    held: Result<Json<Held>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let held = body(held)?;
    as_worker(app, &headers, move |c, w| c.heartbeat(w, &held)).await?;
    Ok(Json(serde_json::json!({})).into_response())
}

/// `POST /api/worker/release`.
async fn release(
    State(app): State<Shared>,
    headers: HeaderMap,
    held: Result<Json<Held>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let held = body(held)?;
    as_worker(app, &headers, move |c, w| c.release(w, &held)).await?;
    Ok(Json(serde_json::json!({})).into_response())
}

/// `POST /api/worker/upload`.
async fn upload(
    State(app): State<Shared>,
    headers: HeaderMap,
    upload: Result<Json<Upload>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let upload = body(upload)?;
    // Not `as_worker`: a revoked worker's games are held, then refused.
    let bearer = bearer(&headers);
    let run = move || app.coordinator.upload_with_token(bearer.as_deref(), &upload);
    let verdicts = tokio::task::spawn_blocking(run).await.map_err(|e| ApiError::from(format!("worker failed: {e}")))?;
    Ok(Json(verdicts.map_err(refused)?).into_response())
}

/// `GET /api/worker/pins`.
async fn pins(State(app): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    Ok(Json(as_worker(app, &headers, |c, _| c.pins()).await?).into_response())
}

/// `GET /api/worker/plugins/{sha256}`.
async fn plugin_file(
    State(app): State<Shared>,
    headers: HeaderMap,
    Path(sha256): Path<String>,
) -> Result<Response, ApiError> {
    let bytes = as_worker(app, &headers, move |c, _| c.plugin_file(&sha256)).await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}
