//! The page, its script and its style, embedded in the binary (no build step).

use axum::http::header;
use axum::response::{Html, IntoResponse};

/// The single page (routes are the URL fragment).
pub(super) async fn index() -> Html<&'static str> {
    Html(include_str!("assets/index.html"))
}

/// The script: pages, the board renderer, live updates and play.
pub(super) async fn script() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], include_str!("assets/app.js"))
}

/// The style sheet.
pub(super) async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], include_str!("assets/app.css"))
}
