//! The files the pages load, compiled into the binary: no network, no files beside it.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Name, content type and bytes of each file under `/assets/`.
const FILES: [(&str, &str, &[u8]); 4] = [
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("assets/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/app.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_bytes!("assets/favicon.svg"),
    ),
    // The diagrams' font, so that boards look alike in every browser and in the PNG pictures.
    ("board-font.ttf", "font/ttf", kabir_diagram::FONT),
];

/// A version for the files' URLs, so that a new binary's files are not taken from a cache.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The URL of an asset.
pub(crate) fn href(name: &str) -> String {
    format!("/assets/{name}?v={VERSION}")
}

fn file(name: &str) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, bytes)) => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, *kind),
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            *bytes,
        )
            .into_response(),
        None => super::api::error_response(&super::app::AppError::NotFound(format!(
            "no file /assets/{name}"
        ))),
    }
}

pub(crate) async fn asset(Path(name): Path<String>) -> Response {
    file(&name)
}

pub(crate) async fn favicon() -> Response {
    file("favicon.svg")
}
