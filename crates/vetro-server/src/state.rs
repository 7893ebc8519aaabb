//! What every handler shares.

use std::sync::Arc;
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
    pub static_action_wait: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            json_body: 1024 * 1024,
            package_upload: 5 * 1024 * 1024,
            package_unpacked: 50 * 1024 * 1024,
            package_files: 2000,
            static_action_wait: std::time::Duration::from_secs(15),
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub limits: Arc<Limits>,
    /// Default policy text for projects that have not set one.
    pub default_policy: Option<Arc<str>>,
}
