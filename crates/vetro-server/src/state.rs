//! What every handler shares.

use crate::rate::Rate;
use std::sync::Arc;
use std::time::Duration;
use vetro_store::quotas::Quotas;
use vetro_store::Store;

/// Service-wide limits.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest JSON request body, in bytes.
    pub json_body: usize,
    /// Largest package upload (the whole multipart request), in bytes.
    pub package_upload: usize,
    /// Largest total uncompressed size of a package archive, in bytes.
    pub package_unpacked: u64,
    /// Most files in a package archive.
    pub package_files: usize,
    /// How long a static action may wait for a worker.
    pub static_action_wait: Duration,
    /// Time allowed for a request's head, counted from when the server
    /// waits for it: also how long an idle keep-alive connection is kept.
    pub header_timeout: Duration,
    /// Time allowed between two frames of a request body.
    pub body_timeout: Duration,
    /// Time allowed for a whole request, from its head to its answer.
    pub request_timeout: Duration,
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Requests per second each token may make (`None`: unlimited).
    pub rate: Option<Rate>,
    /// What each project may store.
    pub quotas: Quotas,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            json_body: 1024 * 1024,
            package_upload: 5 * 1024 * 1024,
            package_unpacked: 50 * 1024 * 1024,
            package_files: 2000,
            static_action_wait: Duration::from_secs(15),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            max_connections: 16_384,
            rate: Some(Rate::default()),
            quotas: Quotas::default(),
        }
    }
}

impl Limits {
    /// The bounds on one package archive these limits set.
    pub fn archive(&self) -> vetro_deploy::ArchiveLimits {
        vetro_deploy::ArchiveLimits {
            max_archive_bytes: self.package_upload as u64,
            max_unpacked_bytes: self.package_unpacked,
            max_entries: self.package_files,
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub limits: Arc<Limits>,
    /// Default policy text for projects that have not set one.
    pub default_policy: Option<Arc<str>>,
    /// Keystone, when callers authenticate with it instead of API tokens.
    pub keystone: Option<Arc<crate::keystone::Keystone>>,
    /// Pages of the lists kept between writes.
    pub pages: Arc<crate::kept::PageCache>,
}
