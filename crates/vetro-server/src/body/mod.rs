//! Request bodies with Murano's content types and error shape: [`JsonBody`]
//! reads a JSON body into the type its handler names (one of
//! [`crate::requests`]).

mod fit;
pub mod name;

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A JSON body as a `T`. The content type must be `application/json` or one
/// of the JSON-patch types Murano accepts; an empty body is `null` (so a
/// route that accepts none takes an `Option`). A body that is not JSON, or
/// whose JSON does not fit `T`, is a 400 that says where.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> JsonBody<T> {
    /// `value` as the body of a request, refused as a request's would be.
    pub fn from_value(value: Value) -> Result<JsonBody<T>, ApiError> {
        from_value(&value, "the request body").map(JsonBody)
    }
}

/// `value` as a `T`; `whole` names the value in a message about the value itself.
pub fn from_value<T: DeserializeOwned>(value: &Value, whole: &str) -> Result<T, ApiError> {
    fit::fit(value).map_err(|misfit| ApiError::bad_request(misfit.message(whole)))
}

const JSON_TYPES: &[&str] = &[
    "application/json",
    "application/murano-packages-json-patch",
    "application/env-model-json-patch",
];

fn media_type(req: &Request) -> Option<String> {
    req.headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
}

/// Reads the body bytes, mapping a too-large body to 413.
pub async fn read_bytes(req: Request) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, &()).await.map_err(|e| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large("the request body is too large")
        } else {
            ApiError::bad_request(format!("the request body could not be read: {e}"))
        }
    })
}

/// Parses JSON text, reporting the line and column of a syntax error.
pub fn parse_json(bytes: &[u8]) -> Result<Value, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(bytes).map_err(|e| {
        ApiError::bad_request(format!(
            "malformed JSON in request body at line {} column {}: {e}",
            e.line(),
            e.column()
        ))
    })
}

/// The body's JSON: `null` when empty, else text of a JSON content type.
async fn read_json(req: Request) -> Result<Value, ApiError> {
    let media = media_type(&req);
    let bytes = read_bytes(req).await?;
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    match media.as_deref() {
        Some(m) if JSON_TYPES.contains(&m) => parse_json(&bytes),
        Some(m) => Err(ApiError::unsupported_media(format!(
            "unsupported content type '{m}'; send application/json"
        ))),
        None => Err(ApiError::unsupported_media(
            "the request has a body but no Content-Type; send application/json",
        )),
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;
    async fn from_request(req: Request, _: &S) -> Result<JsonBody<T>, ApiError> {
        JsonBody::from_value(read_json(req).await?)
    }
}
