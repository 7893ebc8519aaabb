//! An error shown as a page (the lowest layer: pages and sessions use it).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};
use vetro_server::error::ApiError;

/// An error shown as a page.
#[derive(Debug)]
pub struct PageError {
    pub status: StatusCode,
    pub message: String,
}

impl PageError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> PageError {
        PageError {
            status,
            message: message.into(),
        }
    }
}

impl From<ApiError> for PageError {
    fn from(e: ApiError) -> PageError {
        PageError::new(e.status, e.message)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let title = self.status.canonical_reason().unwrap_or("Error");
        let body = html! {
            (maud::DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { (title) " · vetro" }
                    link rel="stylesheet" href=(crate::assets::CSS_URL);
                }
                body.bare { main #main {
                    h1 { (title) }
                    p.flash.error role="alert" { (self.message) }
                    p { a href="/" { "Back to the dashboard" } }
                } }
            }
        };
        (self.status, body).into_response()
    }
}

pub type PageResult<T = Markup> = Result<T, PageError>;
