//! The MuranoPL inside a catalog package, read from its stored archive: the
//! packages it requires and the arguments of a class's methods (along the
//! class's parents, each found in the package the project would deploy it
//! from).

use crate::session::User;
use crate::Dashboard;
use vetro_diag::SourceMap;
use vetro_dsl::package::Package;
use vetro_dsl::syntax::class::ArgDef;
use vetro_store::catalog::PackageFile;

/// Parents followed at most when looking for a method (a guard against
/// cycles and very deep hierarchies).
const MAX_CLASSES: usize = 32;

/// The package `id` of the catalog, parsed from its archive (`None` when it
/// has none or it cannot be read: pages show what the catalog row says).
pub async fn parsed(dash: &Dashboard, id: &str) -> Option<Package> {
    let bytes = dash
        .app
        .store
        .package_file(id, PackageFile::Archive)
        .await
        .ok()??;
    // The archive passed the import's checks; the service's bounds still hold.
    let limits = dash.app.limits.archive();
    let pkg = Package::load_zip(id, &bytes, &limits, &mut SourceMap::new());
    (!pkg.name.is_empty()).then_some(pkg)
}

/// The arguments of `method` of `class` as the person's project would run
/// it, or `None` when the class or method cannot be found in the catalog.
pub async fn method_args(
    dash: &Dashboard,
    user: &User,
    class: &str,
    method: &str,
) -> Option<Vec<ArgDef>> {
    let project = &user.ctx.principal.project_id;
    let mut todo = vec![class.to_string()];
    let mut seen = Vec::new();
    while let Some(name) = todo.pop() {
        if seen.contains(&name) || seen.len() >= MAX_CLASSES {
            continue;
        }
        seen.push(name.clone());
        let Ok(Some(row)) = dash.app.store.resolve_package(project, &name).await else {
            continue;
        };
        let Some(pkg) = parsed(dash, &row.id).await else {
            continue;
        };
        let Some(def) = pkg.classes.get(&name) else {
            continue;
        };
        if let Some(m) = def.methods.get(method) {
            return Some(m.args.clone());
        }
        todo.extend(def.extends.iter().rev().cloned());
    }
    None
}
