//! `/v1/schemas/{class_name}[/{method_names}]`: the JSON Schema of a class's
//! input properties and of its model builders' arguments
//! ([`vetro_dsl::schema`]), from the package the catalog resolves for the
//! class (`classVersion`, a version range, Murano's `==0` when absent;
//! `packageName` to name the package). The answer maps `""` to the class
//! and each model builder named (all of them without names) to its schema.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult, ErrorKind};
use crate::extract::{QueryPairs, P};
use crate::state::AppState;
use crate::worker::resolver::CatalogResolver;
use axum::extract::State;
use axum::Json;
use serde_json::Value;
use vetro_deploy::resolve::{self, Wanted};
use vetro_deploy::TaskError;
use vetro_deploy::{ArchiveLimits, PackageCache, PackageResolver};
use vetro_dsl::package::{Version, VersionSpec};

#[utoipa::path(get, path = "/v1/schemas/{class_name}", tag = "schemas",
    params(("class_name" = String, Path),
        ("classVersion" = Option<String>, Query, description = "A version range of the class's package (absent: `==0`)"),
        ("packageName" = Option<String>, Query, description = "The package that defines the class")),
    responses((status = 200, description = "`{\"\": class schema, BUILDER: schema...}`", body = Object),
        (status = 404, description = "No such class or package", body = crate::views::ErrorBody)))]
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
    responses((status = 200, description = "`{BUILDER: schema...}`", body = Object),
        (status = 404, description = "No such class or package", body = crate::views::ErrorBody)))]
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
    let limits = st.limits.archive();
    // The catalog lookups block on the runtime's handle.
    let job = move || {
        let found = find(&resolver, &class, package.as_deref(), &range)?;
        build(
            &resolver,
            &limits,
            &std::env::temp_dir(),
            &found,
            &class,
            &methods,
        )
    };
    tokio::task::spawn_blocking(job)
        .await
        .map_err(internal)?
        .map(Json)
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        ErrorKind::InternalError,
        e.to_string(),
    )
}

/// The package that answers for `class`: the one named `package`, or the
/// one defining the class, in `range`.
fn find(
    resolver: &dyn PackageResolver,
    class: &str,
    package: Option<&str>,
    range: &VersionSpec,
) -> Result<vetro_deploy::PackageArchive, ApiError> {
    match package {
        Some(p) => resolver
            .by_name(p, range)
            .map_err(internal)?
            .ok_or_else(|| {
                ApiError::not_found(format!("Package with name {p} ({range}) is not found"))
                    .with_kind(ErrorKind::NoPackageFound)
            }),
        None => resolver
            .by_class(class, range)
            .map_err(internal)?
            .ok_or_else(|| {
                ApiError::not_found(format!("Package for class {class} ({range}) is not found"))
                    .with_kind(ErrorKind::NoPackageForClassFound)
            }),
    }
}

/// The schemas of `class` (and of `methods`) from the package `found` and
/// what it requires, unpacked into a new folder under `scratch` that is
/// removed before this returns.
fn build(
    resolver: &dyn PackageResolver,
    limits: &ArchiveLimits,
    scratch: &std::path::Path,
    found: &vetro_deploy::PackageArchive,
    class: &str,
    methods: &[String],
) -> Result<Value, ApiError> {
    let exact = Version::coerce(&found.version).map_err(internal)?;
    let wanted = Wanted {
        classes: Vec::new(),
        packages: vec![(found.fqn.clone(), VersionSpec::exactly(&exact))],
    };
    let dir = tempfile::Builder::new()
        .prefix("vetro-schema-")
        .tempdir_in(scratch)
        .map_err(|e| internal(format!("a folder for the packages: {e}")))?;
    let cache = PackageCache::new(dir.path());
    let resolved = resolve::resolve(resolver, &cache, limits, &wanted).map_err(|e| match e {
        TaskError::Unresolved(m) => ApiError::not_found(m).with_kind(ErrorKind::NoPackageFound),
        TaskError::Catalog(m) => {
            tracing::error!(error = %m, "the catalog failed to answer for a class schema");
            ApiError::unavailable("the database is not available; try again")
        }
        TaskError::Unpack(_) => internal(e),
    })?;
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
        .with_kind(ErrorKind::NoClassFound));
    }
    let classes = vetro_dsl::schema::Classes::new(&library.source);
    vetro_dsl::schema::generate(&classes, class, methods)
        .map_err(|e| ApiError::not_found(e.to_string()).with_kind(ErrorKind::NoClassFound))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vetro_deploy::resolve::MemoryResolver;

    /// A package archive of one class `t.Shop` with one property.
    fn shop() -> Vec<u8> {
        let files = [
            (
                "manifest.yaml",
                "Format: 1.4\nType: Application\nFullName: t.Shop\nVersion: 0.1\n\
                 Classes:\n  t.Shop: Shop.yaml\n",
            ),
            (
                "Classes/Shop.yaml",
                "Namespaces:\n  =: t\nName: Shop\nProperties:\n  size:\n    Contract: $.int()\n",
            ),
        ];
        vetro_dsl::package::write_zip(files).unwrap()
    }

    #[test]
    fn concurrent_schemas_unpack_apart_and_leave_nothing() {
        let mut resolver = MemoryResolver::default();
        resolver.add(shop()).unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let limits = ArchiveLimits::default();
        let range = VersionSpec::parse(None).unwrap();
        let found = find(&resolver, "t.Shop", None, &range).unwrap();
        let start = std::sync::Barrier::new(2);
        let answers: Vec<Value> = std::thread::scope(|s| {
            let one = || {
                start.wait();
                build(&resolver, &limits, scratch.path(), &found, "t.Shop", &[]).unwrap()
            };
            let a = s.spawn(one);
            let b = s.spawn(one);
            vec![a.join().unwrap(), b.join().unwrap()]
        });
        for a in &answers {
            assert_eq!(
                a[""]["properties"]["size"]["type"],
                serde_json::json!(["integer", "null"]),
                "{a}"
            );
        }
        let left: Vec<_> = std::fs::read_dir(scratch.path()).unwrap().collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    #[test]
    fn a_missing_package_is_named() {
        let resolver = MemoryResolver::default();
        let range = VersionSpec::parse(None).unwrap();
        let e = find(&resolver, "t.Nothing", Some("t.Pkg"), &range).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::NOT_FOUND);
        assert!(e.message.contains("t.Pkg"), "{}", e.message);
    }
}
