//! Package uploads: the archive is inspected by [`vetro_deploy::inspect_package`]
//! (safe unpacking within the service's limits, the manifest's catalog
//! fields, the same checks `vetro check` runs); a refusal becomes Murano's
//! error shape, with the checker's problems (file:line:column) as details.

use crate::error::{ApiError, ErrorKind};
use crate::state::Limits;
use serde_json::{json, Value};
use vetro_deploy::{PackageInfo, Refusal, Rejection};

/// Unpacks and checks an archive within `limits`.
pub fn inspect(bytes: &[u8], limits: &Limits) -> Result<PackageInfo, ApiError> {
    let info = vetro_deploy::inspect_package(bytes, &limits.archive()).map_err(|r| refused(&r))?;
    check_full_name(&info.fqn)?;
    Ok(info)
}

/// Murano's rule for a package's FullName: Unicode letters, digits,
/// underscores and dots, neither starting nor ending with a dot, with no
/// two dots in a row. (Murano's pattern also let a trailing newline
/// through; vetro does not.)
pub fn check_full_name(name: &str) -> Result<(), ApiError> {
    let word_or_dot = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let ok = !name.is_empty()
        && name.chars().all(word_or_dot)
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..");
    if ok {
        return Ok(());
    }
    let shown: String = name
        .chars()
        .flat_map(char::escape_debug)
        .take(200)
        .collect();
    Err(ApiError::bad_request(format!(
        "Invalid FullName \"{shown}\": a FullName is made of letters, digits, '_' and '.', \
         does not start or end with '.' and has no '..'"
    ))
    .with_kind(ErrorKind::PackageFormatError))
}

/// 413 for an archive over a size limit, 503 when it could not be unpacked
/// here, else 400 with the problems.
fn refused(r: &Rejection) -> ApiError {
    let first = r
        .first()
        .map(ToString::to_string)
        .unwrap_or_else(|| "the package was refused".into());
    if r.cause == Refusal::Local {
        tracing::error!(problem = %first, "cannot unpack a package");
        return ApiError::unavailable("the package could not be unpacked on the server");
    }
    let diagnostics: Vec<Value> = r
        .problems
        .iter()
        .filter(|p| p.is_error())
        .map(|p| {
            let mut v = serde_json::to_value(p).unwrap_or_else(|_| json!({}));
            v["text"] = json!(p.to_string());
            v
        })
        .collect();
    let details = json!({"diagnostics": diagnostics, "rendered": r.rendered});
    if r.cause == Refusal::TooLarge {
        ApiError::too_large(format!("the package is too large: {first}"))
            .with_kind(ErrorKind::PackageSizeError)
            .with_details(details)
    } else {
        ApiError::bad_request(format!("the package does not load: {first}"))
            .with_kind(ErrorKind::PackageLoadError)
            .with_details(details)
    }
}

/// Every `Require:` entry of an uploaded package must name a package the
/// project can see (its own or a public one) in a version in range, as the
/// engine will resolve them: a 400 names each one missing.
pub fn missing_requirements(
    fqn: &str,
    requires: &[(String, Option<String>)],
    visible: &[vetro_store::catalog::Package],
) -> Result<(), ApiError> {
    use vetro_dsl::package::{Version, VersionSpec, BUNDLED_PACKAGE};
    let mut missing = Vec::new();
    for (name, spec) in requires {
        if name == BUNDLED_PACKAGE || name == fqn {
            continue;
        }
        let range = VersionSpec::parse(spec.as_deref()).map_err(|e| {
            ApiError::bad_request(format!("package {fqn}: Require: {name}: {e}"))
                .with_kind(ErrorKind::PackageFormatError)
        })?;
        let found = visible.iter().any(|p| {
            p.fully_qualified_name == *name
                && Version::coerce(&p.version).is_ok_and(|v| range.matches(&v))
        });
        if !found {
            missing.push(format!("{name} ({range})"));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "package {fqn} requires {}, which the catalog does not have; import {} first",
        missing.join(", "),
        if missing.len() == 1 { "it" } else { "them" }
    ))
    .with_kind(ErrorKind::PackageDependencyError))
}

#[cfg(test)]
mod tests {
    use super::check_full_name;

    #[test]
    fn full_names_follow_murano_rule() {
        for good in [
            "io.murano.apps.Nginx",
            "a",
            "my_app.v2",
            "Приложение.Web",
            "x1.2y",
        ] {
            assert!(check_full_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "../../x",
            ".a",
            "a.",
            "a..b",
            "a/b",
            "a\0b",
            "a\u{202e}b",
            "<img onerror=alert(1)>",
            "a b",
            "a-b",
            "a.b\n",
        ] {
            let e = check_full_name(bad).unwrap_err();
            assert_eq!(e.status, 400, "{bad}");
            assert!(e.message.contains("Invalid FullName"), "{}", e.message);
        }
    }
}
