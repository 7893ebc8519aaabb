//! Package uploads: the archive is inspected by [`vetro_deploy::inspect_package`]
//! (safe unpacking within the service's limits, the manifest's catalog
//! fields, the same checks `vetro check` runs); a refusal becomes Murano's
//! error shape, with the checker's problems (file:line:column) as details.

use crate::error::ApiError;
use crate::state::Limits;
use serde_json::{json, Value};
use vetro_deploy::{ArchiveLimits, PackageInfo, Rejection};

/// Unpacks and checks an archive within `limits`.
pub fn inspect(bytes: &[u8], limits: &Limits) -> Result<PackageInfo, ApiError> {
    let archive_limits = ArchiveLimits {
        max_archive_bytes: limits.package_upload as u64,
        max_unpacked_bytes: limits.package_unpacked,
        max_entries: limits.package_files,
    };
    vetro_deploy::inspect_package(bytes, &archive_limits).map_err(|r| refused(&r))
}

/// 413 for an archive over a size limit, 503 when it could not be unpacked
/// here, else 400 with the problems.
fn refused(r: &Rejection) -> ApiError {
    let first = r
        .first()
        .map(ToString::to_string)
        .unwrap_or_else(|| "the package was refused".into());
    if r.is_local_failure() {
        tracing::error!(problem = %first, "cannot unpack a package");
        return ApiError::unavailable("the package could not be unpacked on the server");
    }
    let diagnostics: Vec<Value> = r
        .problems
        .iter()
        .filter(|p| p.severity == "error")
        .map(|p| {
            let mut v = serde_json::to_value(p).unwrap_or_else(|_| json!({}));
            v["text"] = json!(p.to_string());
            v
        })
        .collect();
    let details = json!({"diagnostics": diagnostics, "rendered": r.rendered});
    if r.is_too_large() {
        ApiError::too_large(format!("the package is too large: {first}"))
            .with_kind("PackageSizeError")
            .with_details(details)
    } else {
        ApiError::bad_request(format!("the package does not load: {first}"))
            .with_kind("PackageLoadError")
            .with_details(details)
    }
}
