//! The stylesheet, the script and the placeholder logo, embedded in the binary.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("../assets/app.css");
const JS: &str = include_str!("../assets/app.js");
pub const PLACEHOLDER_LOGO: &str = include_str!("../assets/package.svg");

/// Asset URLs carry the crate version, so a new release is fetched anew.
pub const CSS_URL: &str = concat!("/static/app.css?v=", env!("CARGO_PKG_VERSION"));
pub const JS_URL: &str = concat!("/static/app.js?v=", env!("CARGO_PKG_VERSION"));

pub async fn serve(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "app.css" => (CSS, "text/css; charset=utf-8"),
        "app.js" => (JS, "text/javascript; charset=utf-8"),
        "package.svg" => (PLACEHOLDER_LOGO, "image/svg+xml"),
        _ => return (StatusCode::NOT_FOUND, "no such file").into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}
