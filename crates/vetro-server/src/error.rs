//! Murano's error body: `{"code", "title", "explanation", "error": {"message", "type"}}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use vetro_store::StoreError;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// The exception-like type name Murano puts in `error.type`.
    pub kind: &'static str,
    /// Structured details (package diagnostics, policy violations): a vetro addition.
    pub details: Option<Value>,
    /// Seconds for a `Retry-After` header (rate limits).
    pub retry_after: Option<u64>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            kind,
            details: None,
            retry_after: None,
        }
    }
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "HTTPBadRequest", message)
    }
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "HTTPUnauthorized", message)
    }
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "HTTPForbidden", message)
    }
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "HTTPNotFound", message)
    }
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "HTTPConflict", message)
    }
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "HTTPRequestEntityTooLarge",
            message,
        )
    }
    pub fn unsupported_media(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "HTTPUnsupportedMediaType",
            message,
        )
    }
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "HTTPServiceUnavailable",
            message,
        )
    }
    pub fn with_kind(mut self, kind: &'static str) -> ApiError {
        self.kind = kind;
        self
    }
    pub fn with_retry_after(mut self, secs: u64) -> ApiError {
        self.retry_after = Some(secs);
        self
    }
    pub fn with_details(mut self, details: Value) -> ApiError {
        self.details = Some(details);
        self
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::NotFound(what) => ApiError::not_found(format!("{what} not found")),
            StoreError::Conflict(m) => ApiError::conflict(m),
            StoreError::Forbidden(m) => ApiError::forbidden(m),
            StoreError::Invalid(m) => ApiError::bad_request(m),
            other => {
                tracing::error!(error = %other, "store error");
                ApiError::unavailable("the database is not available; try again")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let title = self.status.canonical_reason().unwrap_or("Error");
        let mut error = json!({"message": self.message, "type": self.kind});
        if let Some(d) = self.details {
            error["details"] = d;
        }
        let body = json!({
            "code": self.status.as_u16(),
            "title": title,
            "explanation": self.message,
            "error": error,
        });
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        response
    }
}
