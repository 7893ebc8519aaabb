//! Packages for a running task, from the catalog (only the packages that
//! have the name or define the class, found by index): the highest version in
//! range, the project's own package first, then a public one (Murano's
//! lookup, [`vetro_deploy::resolve::choose`]), each pinned to the task on
//! first use so that a retry or a takeover runs the same versions. Without
//! a task (class schemas), nothing is pinned.

use std::collections::HashMap;
use std::sync::Mutex;
use tokio::runtime::Handle;
use vetro_deploy::{PackageArchive, PackageResolver};
use vetro_dsl::package::VersionSpec;
use vetro_store::catalog::PackageFile;
use vetro_store::lookup::PackageKey;
use vetro_store::queue::PinnedPackage;
use vetro_store::Store;

/// A [`PackageResolver`] over the store. The engine calls it synchronously
/// from a blocking thread; each lookup runs on the async runtime's handle.
pub struct CatalogResolver {
    store: Store,
    handle: Handle,
    project_id: String,
    task_id: Option<String>,
    /// Fully qualified name → package id, as pinned so far.
    pins: Mutex<HashMap<String, String>>,
}

impl CatalogResolver {
    pub fn new(
        store: Store,
        handle: Handle,
        project_id: String,
        task_id: Option<String>,
        pinned: &[PinnedPackage],
    ) -> CatalogResolver {
        let pins = pinned
            .iter()
            .map(|p| (p.fully_qualified_name.clone(), p.package_id.clone()))
            .collect();
        CatalogResolver {
            store,
            handle,
            project_id,
            task_id,
            pins: Mutex::new(pins),
        }
    }

    fn find(&self, want: PackageKey, spec: &VersionSpec) -> Result<Option<PackageArchive>, String> {
        self.handle
            .block_on(self.find_async(want, spec))
            .map_err(|e| e.to_string())
    }

    async fn find_async(
        &self,
        want: PackageKey<'_>,
        spec: &VersionSpec,
    ) -> vetro_store::Result<Option<PackageArchive>> {
        let matching = self
            .store
            .visible_packages_with(&self.project_id, want)
            .await?;
        let own = |p: &vetro_store::catalog::Package| p.owner_id == self.project_id;
        let Some(found) = vetro_deploy::resolve::choose(matching, |p| &p.version, own, spec) else {
            return Ok(None);
        };
        let pinned = self
            .pins
            .lock()
            .map_err(|_| vetro_store::StoreError::Invalid("package pins poisoned".into()))?
            .get(&found.fully_qualified_name)
            .cloned();
        let package = match pinned {
            Some(id) if id != found.id => self.store.get_package(&id).await.map_err(|_| {
                vetro_store::StoreError::Invalid(format!(
                    "package {} (id {id}), which this deployment started with, is no longer in \
                     the catalog",
                    found.fully_qualified_name
                ))
            })?,
            _ => found,
        };
        let bytes = self
            .store
            .package_file(&package.id, PackageFile::Archive)
            .await?
            .ok_or_else(|| {
                vetro_store::StoreError::Invalid(format!(
                    "package {} has no archive",
                    package.fully_qualified_name
                ))
            })?;
        let pin = PinnedPackage {
            fully_qualified_name: package.fully_qualified_name.clone(),
            package_id: package.id.clone(),
            version: package.version.clone(),
        };
        if let Some(task_id) = &self.task_id {
            self.store.pin_packages(task_id, &[pin]).await?;
        }
        if let Ok(mut pins) = self.pins.lock() {
            pins.insert(package.fully_qualified_name.clone(), package.id.clone());
        }
        Ok(Some(PackageArchive {
            // Archives never change in place (an update patches metadata
            // only), so the id names the bytes.
            key: package.id,
            fqn: package.fully_qualified_name,
            version: package.version,
            bytes: bytes.into(),
        }))
    }
}

impl PackageResolver for CatalogResolver {
    fn by_class(&self, class: &str, spec: &VersionSpec) -> Result<Option<PackageArchive>, String> {
        self.find(PackageKey::Class(class), spec)
    }

    fn by_name(&self, fqn: &str, spec: &VersionSpec) -> Result<Option<PackageArchive>, String> {
        self.find(PackageKey::Name(fqn), spec)
    }
}
