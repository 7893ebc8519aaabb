//! Murano's error body: `{"code", "title", "explanation", "error": {"message", "type"}}`.

use crate::views::{ErrorBody, ErrorDetail};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use vetro_store::StoreError;

/// The exception-like type name Murano puts in `error.type`: WebOb's
/// exception for the status, or the name of Murano's own exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    BadRequest,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    RequestEntityTooLarge,
    UnsupportedMediaType,
    TooManyRequests,
    InternalServerError,
    ServiceUnavailable,
    /// Past a project quota (403 for counts, 413 for sizes).
    QuotaExceeded,
    PackageFormatError,
    PackageSizeError,
    PackageLoadError,
    PackageDependencyError,
    NoPackageFound,
    NoPackageForClassFound,
    NoClassFound,
    /// A failure of the server itself while answering (class schemas).
    InternalError,
}

impl ErrorKind {
    /// The name as Murano's error body spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::BadRequest => "HTTPBadRequest",
            ErrorKind::Unauthorized => "HTTPUnauthorized",
            ErrorKind::Forbidden => "HTTPForbidden",
            ErrorKind::NotFound => "HTTPNotFound",
            ErrorKind::MethodNotAllowed => "HTTPMethodNotAllowed",
            ErrorKind::Conflict => "HTTPConflict",
            ErrorKind::RequestEntityTooLarge => "HTTPRequestEntityTooLarge",
            ErrorKind::UnsupportedMediaType => "HTTPUnsupportedMediaType",
            ErrorKind::TooManyRequests => "HTTPTooManyRequests",
            ErrorKind::InternalServerError => "HTTPInternalServerError",
            ErrorKind::ServiceUnavailable => "HTTPServiceUnavailable",
            ErrorKind::QuotaExceeded => "QuotaExceeded",
            ErrorKind::PackageFormatError => "PackageFormatError",
            ErrorKind::PackageSizeError => "PackageSizeError",
            ErrorKind::PackageLoadError => "PackageLoadError",
            ErrorKind::PackageDependencyError => "PackageDependencyError",
            ErrorKind::NoPackageFound => "NoPackageFound",
            ErrorKind::NoPackageForClassFound => "NoPackageForClassFound",
            ErrorKind::NoClassFound => "NoClassFound",
            ErrorKind::InternalError => "InternalError",
        }
    }
}

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub kind: ErrorKind,
    /// Structured details (package diagnostics, policy violations): a vetro addition.
    pub details: Option<Value>,
    /// Seconds for a `Retry-After` header (rate limits).
    pub retry_after: Option<u64>,
}

pub type ApiResult<T> = Result<T, ApiError>;

/// The message of an [`ApiError`] answer, kept with the response so that
/// [`crate::negotiate`] can render it as HTML without reading the body.
#[derive(Clone, Debug)]
pub struct ErrorMessage(pub String);

impl ApiError {
    pub fn new(status: StatusCode, kind: ErrorKind, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            kind,
            details: None,
            retry_after: None,
        }
    }
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, ErrorKind::BadRequest, message)
    }
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, ErrorKind::Unauthorized, message)
    }
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, ErrorKind::Forbidden, message)
    }
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, ErrorKind::NotFound, message)
    }
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, ErrorKind::Conflict, message)
    }
    pub fn too_large(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::RequestEntityTooLarge,
            message,
        )
    }
    pub fn unsupported_media(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorKind::UnsupportedMediaType,
            message,
        )
    }
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::ServiceUnavailable,
            message,
        )
    }
    pub fn with_kind(mut self, kind: ErrorKind) -> ApiError {
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
        let body = ErrorBody {
            code: self.status.as_u16(),
            title: self.status.canonical_reason().unwrap_or("Error"),
            explanation: self.message.clone(),
            error: ErrorDetail {
                message: self.message.clone(),
                kind: self.kind.as_str(),
                details: self.details,
            },
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        response.extensions_mut().insert(ErrorMessage(self.message));
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        response
    }
}
