//! `/v1/schemas/{class_name}[/{method_names}]`: the JSON Schema of a class's
//! input properties and of its model builders' arguments
//! ([`vetro_dsl::schema`]), from the package the catalog resolves for the
//! class (`classVersion`, a version range, Murano's `==0` when absent;
//! `packageName` to name the package). The answer maps `""` to the class
//! and each model builder named (all of them without names) to its schema.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::state::AppState;
use crate::worker::resolver::CatalogResolver;
use axum::extract::State;
use axum::Json;
use serde_json::Value;
use vetro_deploy::resolve::{self, Wanted};
use vetro_deploy::{ArchiveLimits, PackageCache, PackageResolver};
use vetro_dsl::package::{Version, VersionSpec};

#[utoipa::path(get, path = "/v1/schemas/{class_name}", tag = "schemas",
    params(("class_name" = String, Path),
        ("classVersion" = Option<String>, Query, description = "A version range of the class's package (absent: `==0`)"),
        ("packageName" = Option<String>, Query, description = "The package that defines the class")),
    responses((status = 200, description = "`{\"\": class schema, BUILDER: schema...}`", body = crate::schemas::AnyObject),
        (status = 404, description = "No such class or package", body = crate::schemas::ErrorBody)))]
pub async fn class(
    State(st): State<AppState>,
    ctx: Ctx,
    P(class): P<String>,
    q: QueryPairs,
) -> ApiResult<Json<Value>> {
    schema(st, ctx, class, Vec::new(), q).await
}

#[utoipa::path(get, path = "/v1/schemas/{class_name}/{method_names}", tag = "schemas",
    params(("class_name" = String, Path),
        ("method_names" = String, Path, description = "Model builders, comma-separated"),
        ("classVersion" = Option<String>, Query), ("packageName" = Option<String>, Query)),
    responses((status = 200, description = "`{BUILDER: schema...}`", body = crate::schemas::AnyObject),
        (status = 404, description = "No such class or package", body = crate::schemas::ErrorBody)))]
pub async fn methods(
    State(st): State<AppState>,
    ctx: Ctx,
    P((class, methods)): P<(String, String)>,
    q: QueryPairs,
) -> ApiResult<Json<Value>> {
    let names = methods
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .collect();
    schema(st, ctx, class, names, q).await
}

async fn schema(
    st: AppState,
    ctx: Ctx,
    class: String,
    methods: Vec<String>,
    q: QueryPairs,
) -> ApiResult<Json<Value>> {
    let range = VersionSpec::parse(q.get("classVersion"))
        .map_err(|e| ApiError::bad_request(format!("classVersion: {e}")))?;
    let package = q.get("packageName").map(str::to_string);
    let resolver = CatalogResolver::new(
        st.store.clone(),
        tokio::runtime::Handle::current(),
        ctx.principal.project_id.clone(),
        None,
        &[],
    );
    let limits = ArchiveLimits {
        max_archive_bytes: st.limits.package_upload as u64,
        max_unpacked_bytes: st.limits.package_unpacked,
        max_entries: st.limits.package_files,
    };
    // The catalog lookups block on the runtime's handle.
    let job = move || {
        build(
            &resolver,
            &limits,
            &class,
            &methods,
            package.as_deref(),
            &range,
        )
    };
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| {
            ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                e.to_string(),
            )
        })?
        .map(Json)
}

fn build(
    resolver: &CatalogResolver,
    limits: &ArchiveLimits,
    class: &str,
    methods: &[String],
    package: Option<&str>,
    range: &VersionSpec,
) -> Result<Value, ApiError> {
    let internal = |e: String| {
        ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            e,
        )
    };
    let found = match package {
        Some(p) => resolver
            .by_name(p, range)
            .map_err(internal)?
            .ok_or_else(|| {
                ApiError::not_found(format!("Package with name {p} ({range}) is not found"))
                    .with_kind("NoPackageFound")
            })?,
        None => resolver
            .by_class(class, range)
            .map_err(internal)?
            .ok_or_else(|| {
                ApiError::not_found(format!("Package for class {class} ({range}) is not found"))
                    .with_kind("NoPackageForClassFound")
            })?,
    };
    let exact = Version::coerce(&found.version).map_err(internal)?;
    let wanted = Wanted {
        classes: Vec::new(),
        packages: vec![(found.fqn.clone(), VersionSpec::exactly(&exact))],
    };
    let cache = PackageCache::new(std::env::temp_dir().join("vetro-packages"));
    let resolved = resolve::resolve(resolver, &cache, limits, &wanted)
        .map_err(|e| ApiError::not_found(e).with_kind("NoPackageFound"))?;
    let library = vetro_dsl::host::Library::load(&resolved.roots);
    let defined_by_package = library
        .packages
        .iter()
        .any(|p| p.name == found.fqn && p.classes.contains_key(class));
    if !defined_by_package {
        return Err(ApiError::not_found(format!(
            "Class with name {class} is not found in package {}",
            found.fqn
        ))
        .with_kind("NoClassFound"));
    }
    let classes = vetro_dsl::schema::Classes::new(&library.source);
    vetro_dsl::schema::generate(&classes, class, methods)
        .map_err(|e| ApiError::not_found(e.to_string()).with_kind("NoClassFound"))
}
