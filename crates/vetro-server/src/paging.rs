//! Murano's `limit` and `marker` query parameters on every listing that can
//! grow: each listing has a default page size and a largest one, and says
//! `next_marker` (the id of the page's last item) when more items follow.
//! A `limit` above the largest is lowered to it, as Murano's catalog did.

use crate::error::ApiError;
use crate::extract::QueryPairs;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde::ser::{Error as _, Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use vetro_store::json_page::JsonPage;
use vetro_store::page::{Page, PageRequest};

/// The page sizes of one listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paging {
    /// Items on a page when the request gives no `limit`.
    pub default: u64,
    /// Most items on a page.
    pub max: u64,
}

/// `GET /v1/catalog/packages` (Murano's `limit_param_default` and `api_limit_max`).
pub const PACKAGES: Paging = Paging {
    default: 20,
    max: 100,
};

/// `GET /v1/environments`.
pub const ENVIRONMENTS: Paging = Paging {
    default: 100,
    max: 1000,
};

/// `GET /v1/templates`.
pub const TEMPLATES: Paging = Paging {
    default: 100,
    max: 1000,
};

/// `GET /v1/deployments` and `GET /v1/environments/{id}/deployments`.
pub const DEPLOYMENTS: Paging = Paging {
    default: 100,
    max: 500,
};

/// `GET /v1/environments/{id}/deployments/{id}` (a deployment's reports):
/// the default `reports_per_task` quota, so a client that does not page
/// sees every report of a task held to the default quotas.
pub const REPORTS: Paging = Paging {
    default: 10_000,
    max: 10_000,
};

impl Paging {
    /// The page a request asks for.
    pub fn request(&self, q: &QueryPairs) -> Result<PageRequest, ApiError> {
        let limit = match q.get("limit") {
            None => self.default,
            Some(l) => l
                .parse::<u64>()
                .ok()
                .filter(|n| *n >= 1)
                .map(|n| n.min(self.max))
                .ok_or_else(|| {
                    ApiError::bad_request(format!("'limit' must be a positive integer, not '{l}'"))
                })?,
        };
        Ok(PageRequest {
            limit,
            marker: q.get("marker").map(str::to_string),
        })
    }
}

/// `{key: [items...], "next_marker"?}` for one page.
pub fn body<T>(
    key: &str,
    page: &Page<T>,
    view: impl Fn(&T) -> Value,
    id: impl Fn(&T) -> &str,
) -> Value {
    let mut body = json!({ key: page.items.iter().map(view).collect::<Vec<_>>() });
    if let Some(last) = page.items.last().filter(|_| page.more) {
        body["next_marker"] = json!(id(last));
    }
    body
}

/// `{key: [items...], "next_marker"?}` for a page the database wrote as
/// JSON: the items go out as the store wrote them (JSON text its triggers
/// and queries build), copied once into the body, never parsed again.
pub struct JsonList {
    key: &'static str,
    page: JsonPage,
}

impl JsonList {
    pub fn new(key: &'static str, page: JsonPage) -> JsonList {
        JsonList { key, page }
    }

    /// The body's bytes: what serde_json writes for such a map.
    pub fn to_bytes(&self) -> Vec<u8> {
        let marker = self
            .page
            .next_marker
            .as_ref()
            .map(|m| Value::from(m.as_str()).to_string());
        let extra = marker.as_ref().map_or(0, |m| m.len() + 16);
        let mut out = Vec::with_capacity(self.page.items.len() + self.key.len() + extra + 8);
        out.extend_from_slice(b"{\"");
        out.extend_from_slice(self.key.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(self.page.items.as_bytes());
        if let Some(m) = marker {
            out.extend_from_slice(b",\"next_marker\":");
            out.extend_from_slice(m.as_bytes());
        }
        out.push(b'}');
        out
    }
}

/// For embedders that read a listing as a value (the web dashboard).
impl Serialize for JsonList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let items = RawValue::from_string(self.page.items.to_string()).map_err(S::Error::custom)?;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(self.key, &items)?;
        if let Some(next) = &self.page.next_marker {
            m.serialize_entry("next_marker", next)?;
        }
        m.end()
    }
}

impl IntoResponse for JsonList {
    fn into_response(self) -> Response {
        (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            self.to_bytes(),
        )
            .into_response()
    }
}
