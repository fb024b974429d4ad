//! The worker API's routes (`/api/worker/...`, see
//! [`arbiter_fleet::wire`]). The bearer token is checked before a
//! request's body is read: without a token in force (an unknown, expired or
//! missing one) the answer is 401 and the body is never read, so a client
//! without a token costs a connection and its headers, nothing more. A
//! revoked worker may still send its last upload (its games are held for its
//! admin, then refused). A worker's uploads are read at most
//! [`UPLOADS_PER_TOKEN`] at a time; every body has [`BODY_TIME`] to arrive
//! (and an upload [`UPLOAD_TIME`]), and every other request [`REQUEST_TIME`]
//! to finish, so a slow or stalled client holds a connection of its own and
//! nothing else (an upload's verification may play its reproducible games
//! again, as long as they took). The routes are outside the browser pages' host and origin
//! checks: a token, not the page a request comes from, is what lets a
//! worker in.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};

use super::connections::{read_body, BODY_TIME};
use super::{ApiError, Shared};
use arbiter_core::sync::LockExt;
use arbiter_fleet::coordinator::{Identity, RequestError};
use arbiter_fleet::wire::{ClaimRequest, Held, Upload, API};

/// The largest upload accepted (a batch of games with their engines' PVs).
pub const UPLOAD_LIMIT: usize = 32 << 20;

/// The largest body of any other request.
const BODY_LIMIT: usize = 64 << 10;

/// How long a request may take, body included.
pub const REQUEST_TIME: Duration = Duration::from_secs(60);

/// How long an upload's body may take to arrive.
pub const UPLOAD_TIME: Duration = Duration::from_secs(60);

/// How many uploads of one worker are read at once (a worker uploads a
/// batch per slot; more wait their turn, their bodies unread).
pub const UPLOADS_PER_TOKEN: usize = 4;

/// The uploads being read, per worker.
#[derive(Default)]
pub(super) struct UploadSlots(Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>);

impl UploadSlots {
    /// The semaphore of `worker`'s uploads.
    fn of(&self, worker: &str) -> Arc<tokio::sync::Semaphore> {
        let mut slots = self.0.lock_or_recover();
        // Forget workers with nothing in flight, so the map stays small.
        if slots.len() > 1024 {
            slots.retain(|_, s| s.available_permits() < UPLOADS_PER_TOKEN);
        }
        slots
            .entry(worker.to_string())
            .or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(UPLOADS_PER_TOKEN)))
            .clone()
    }
}

/// The worker API's routes.
pub(super) fn routes(app: Shared) -> Router {
    let small = Router::new()
        .route(&format!("{API}/claim"), post(claim))
        .route(&format!("{API}/heartbeat"), post(heartbeat))
        .route(&format!("{API}/release"), post(release))
        .route(&format!("{API}/pins"), get(pins))
        .route(&format!("{API}/plugins/{{sha256}}"), get(plugin_file))
        .layer(axum::middleware::from_fn(|r, n| read_body(r, n, BODY_LIMIT, BODY_TIME)))
        .layer(axum::middleware::from_fn_with_state(app.clone(), authenticated));
    let upload = Router::new()
        .route(&format!("{API}/upload"), post(upload))
        .layer(axum::middleware::from_fn(|r, n| read_body(r, n, UPLOAD_LIMIT, UPLOAD_TIME)))
        .layer(axum::middleware::from_fn_with_state(app.clone(), one_of_the_worker_s_uploads))
        .layer(axum::middleware::from_fn_with_state(app.clone(), authenticated));
    // An upload's body has its own time; verifying it may play its games
    // again, as long as they took to play.
    small.layer(axum::middleware::from_fn(in_time)).merge(upload).with_state(app)
}

/// Ends a request (other than an upload) that takes longer than [`REQUEST_TIME`].
async fn in_time(request: Request, next: Next) -> Response {
    match tokio::time::timeout(REQUEST_TIME, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError(StatusCode::REQUEST_TIMEOUT, "the request took too long".into()).into_response(),
    }
}

/// Lets a request on only with a token in force (or, to upload, a revoked
/// one): the worker's [`Identity`] goes with it; otherwise 401, its body
/// unread.
async fn authenticated(State(app): State<Shared>, mut request: Request, next: Next) -> Response {
    let bearer = bearer(request.headers());
    let uploading = request.uri().path() == format!("{API}/upload");
    let who = tokio::task::spawn_blocking(move || app.coordinator.identify(bearer.as_deref())).await;
    let identity = match who {
        Ok(Ok(identity)) => identity,
        Ok(Err(e)) => return refused(e).into_response(),
        Err(e) => return ApiError::from(format!("worker failed: {e}")).into_response(),
    };
    if let Identity::Revoked { why, .. } = &identity {
        if !uploading {
            return refused(RequestError::Unauthorized(why.clone())).into_response();
        }
    }
    request.extensions_mut().insert(identity);
    next.run(request).await
}

/// Reads an upload only while its worker has fewer than
/// [`UPLOADS_PER_TOKEN`] others being read and verified.
async fn one_of_the_worker_s_uploads(State(app): State<Shared>, request: Request, next: Next) -> Response {
    let Some(identity) = request.extensions().get::<Identity>() else {
        return refused(RequestError::Unauthorized("no worker token".into())).into_response();
    };
    let slots = app.uploads.of(identity.name());
    let Ok(_permit) = slots.acquire_owned().await else {
        return ApiError::from("the upload slots closed").into_response();
    };
    next.run(request).await
}

/// A refused request as its HTTP answer.
fn refused(e: RequestError) -> ApiError {
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

/// The request's bearer token, if it has one.
fn bearer(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
}

/// Runs `f` for the authenticated worker, on a blocking thread.
async fn as_worker<T: Send + 'static>(
    app: Shared,
    identity: Identity,
    f: impl FnOnce(&arbiter_fleet::coordinator::Coordinator, &str) -> Result<T, RequestError> + Send + 'static,
) -> Result<T, ApiError> {
    let run = move || f(&app.coordinator, identity.name());
    tokio::task::spawn_blocking(run).await.map_err(|e| ApiError::from(format!("worker failed: {e}")))?.map_err(refused)
}

/// A JSON body, or a 400 naming what is wrong with it.
fn body<T>(parsed: Result<Json<T>, axum::extract::rejection::JsonRejection>) -> Result<T, ApiError> {
    parsed.map(|Json(t)| t).map_err(|e| ApiError(e.status(), e.body_text()))
}

/// `POST /api/worker/claim`.
async fn claim(
    State(app): State<Shared>,
    Extension(identity): Extension<Identity>,
    request: Result<Json<ClaimRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let request = body(request)?;
    Ok(Json(as_worker(app, identity, move |c, w| c.claim(w, &request)).await?).into_response())
}

/// `POST /api/worker/heartbeat`.
async fn heartbeat(
    State(app): State<Shared>,
    Extension(identity): Extension<Identity>,
    held: Result<Json<Held>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let held = body(held)?;
    as_worker(app, identity, move |c, w| c.heartbeat(w, &held)).await?;
    Ok(Json(super::answers::Empty {}).into_response())
}

/// `POST /api/worker/release`.
async fn release(
    State(app): State<Shared>,
    Extension(identity): Extension<Identity>,
    held: Result<Json<Held>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let held = body(held)?;
    as_worker(app, identity, move |c, w| c.release(w, &held)).await?;
    Ok(Json(super::answers::Empty {}).into_response())
}

/// `POST /api/worker/upload`.
async fn upload(
    State(app): State<Shared>,
    Extension(identity): Extension<Identity>,
    upload: Result<Json<Upload>, axum::extract::rejection::JsonRejection>,
) -> Result<Response, ApiError> {
    let upload = body(upload)?;
    // A revoked worker's games are held, then refused.
    let run = move || app.coordinator.upload_as_identity(&identity, &upload);
    let verdicts = tokio::task::spawn_blocking(run).await.map_err(|e| ApiError::from(format!("worker failed: {e}")))?;
    Ok(Json(verdicts.map_err(refused)?).into_response())
}

/// `GET /api/worker/pins`.
async fn pins(State(app): State<Shared>, Extension(identity): Extension<Identity>) -> Result<Response, ApiError> {
    Ok(Json(as_worker(app, identity, |c, _| c.pins()).await?).into_response())
}

/// `GET /api/worker/plugins/{sha256}`.
async fn plugin_file(
    State(app): State<Shared>,
    Extension(identity): Extension<Identity>,
    Path(sha256): Path<String>,
) -> Result<Response, ApiError> {
    let bytes = as_worker(app, identity, move |c, _| c.plugin_file(&sha256)).await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}
