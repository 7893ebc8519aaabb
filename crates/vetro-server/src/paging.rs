//! Murano's `limit` and `marker` query parameters on every listing that can
//! grow: each listing has a default page size and a largest one, and says
//! `next_marker` (the id of the page's last item) when more items follow.
//! A `limit` above the largest is lowered to it, as Murano's catalog did.

use crate::error::ApiError;
use crate::extract::QueryPairs;
use vetro_store::page::PageRequest;

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
