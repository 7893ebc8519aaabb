//! Path and query extractors whose rejections use Murano's error shape.

use crate::error::ApiError;
use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

pub struct P<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for P<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, s: &S) -> Result<P<T>, ApiError> {
        Path::<T>::from_request_parts(parts, s)
            .await
            .map(|Path(t)| P(t))
            .map_err(|e| ApiError::bad_request(format!("invalid path: {e}")))
    }
}

/// The query string as ordered pairs (filters may repeat).
pub struct QueryPairs(pub Vec<(String, String)>);

impl QueryPairs {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    pub fn all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }
    /// A boolean flag: `true`/`false` (any case); absent is `false`.
    pub fn flag(&self, key: &str) -> Result<bool, ApiError> {
        match self.get(key).map(str::to_ascii_lowercase).as_deref() {
            None | Some("false") | Some("0") | Some("no") => Ok(false),
            Some("true") | Some("1") | Some("yes") => Ok(true),
            Some(other) => Err(ApiError::bad_request(format!(
                "'{key}' must be true or false, not '{other}'"
            ))),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for QueryPairs {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, s: &S) -> Result<QueryPairs, ApiError> {
        Query::<Vec<(String, String)>>::from_request_parts(parts, s)
            .await
            .map(|Query(q)| QueryPairs(q))
            .map_err(|e| ApiError::bad_request(format!("invalid query string: {e}")))
    }
}
