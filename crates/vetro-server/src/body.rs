//! Request bodies with Murano's content types and error shape.

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde_json::Value;

/// A JSON body. The content type must be `application/json` or one of the
/// JSON-patch types Murano accepts; an empty body is `null`.
pub struct JsonBody(pub Value);

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

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;
    async fn from_request(req: Request, _: &S) -> Result<JsonBody, ApiError> {
        let media = media_type(&req);
        let bytes = read_bytes(req).await?;
        if bytes.is_empty() {
            return Ok(JsonBody(Value::Null));
        }
        match media.as_deref() {
            Some(m) if JSON_TYPES.contains(&m) => {}
            Some(m) => {
                return Err(ApiError::unsupported_media(format!(
                    "unsupported content type '{m}'; send application/json"
                )))
            }
            None => {
                return Err(ApiError::unsupported_media(
                    "the request has a body but no Content-Type; send application/json",
                ))
            }
        }
        parse_json(&bytes).map(JsonBody)
    }
}

/// The media type of a request, for handlers that accept several.
pub fn content_type(req: &Request) -> Option<String> {
    media_type(req)
}

/// A required object body.
pub fn object(v: &Value) -> Result<&serde_json::Map<String, Value>, ApiError> {
    v.as_object()
        .ok_or_else(|| ApiError::bad_request("the request body must be a JSON object"))
}

/// A required non-empty string field of at most 255 characters.
pub fn name_field(v: &Value, field: &str) -> Result<String, ApiError> {
    match object(v)?.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= 255 => Ok(s.clone()),
        Some(Value::String(_)) => Err(ApiError::bad_request(format!(
            "'{field}' must have 1 to 255 characters and not be blank"
        ))),
        Some(_) => Err(ApiError::bad_request(format!("'{field}' must be a string"))),
        None => Err(ApiError::bad_request(format!("'{field}' is required"))),
    }
}
