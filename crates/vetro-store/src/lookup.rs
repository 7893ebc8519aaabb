//! Finding a project's packages by package name or by class name through
//! indexes (`packages_fully_qualified_name`, `package_classes`): a lookup
//! reads the few packages that match, whatever the size of the catalog.
//! The engine asks for the package of every class it meets, so this is the
//! catalog's hot path during a deployment.

use crate::catalog::{meta_from_row, Package, META_COLUMNS};
use crate::{row, Result, Store};
use std::collections::HashMap;

/// What a lookup matches packages by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackageKey<'a> {
    /// The package's fully qualified name.
    Name(&'a str),
    /// A class the package defines.
    Class(&'a str),
}

impl Store {
    /// Metadata (with categories) of the packages `project_id` may use, its
    /// own and public ones, that match `key`, oldest first.
    pub async fn visible_packages_with(
        &self,
        project_id: &str,
        key: PackageKey<'_>,
    ) -> Result<Vec<Package>> {
        let columns = META_COLUMNS
            .split(", ")
            .map(|c| format!("p.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = match key {
            PackageKey::Name(_) => format!(
                "SELECT {columns} FROM packages p WHERE p.fully_qualified_name = $1 \
                 AND (p.owner_id = $2 OR p.is_public = 1) ORDER BY p.created, p.id"
            ),
            PackageKey::Class(_) => format!(
                "SELECT {columns} FROM package_classes c JOIN packages p ON p.id = c.package_id \
                 WHERE c.class_name = $1 AND (p.owner_id = $2 OR p.is_public = 1) \
                 ORDER BY p.created, p.id"
            ),
        };
        let (PackageKey::Name(k) | PackageKey::Class(k)) = key;
        let rows = sqlx::query(&sql)
            .bind(k)
            .bind(project_id)
            .fetch_all(self.reader())
            .await?;
        let mut out: Vec<Package> = rows.iter().map(meta_from_row).collect::<Result<_>>()?;
        self.fill_categories(&mut out).await?;
        Ok(out)
    }

    /// Sets the category names of each package in `packages`.
    async fn fill_categories(&self, packages: &mut [Package]) -> Result<()> {
        if packages.is_empty() {
            return Ok(());
        }
        let marks = (1..=packages.len())
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT pc.package_id, c.name FROM package_categories pc \
             JOIN categories c ON c.id = pc.category_id WHERE pc.package_id IN ({marks}) \
             ORDER BY c.name"
        );
        let mut q = sqlx::query(&sql);
        for p in packages.iter() {
            q = q.bind(&p.id);
        }
        let mut names: HashMap<String, Vec<String>> = HashMap::new();
        for r in &q.fetch_all(self.reader()).await? {
            names
                .entry(row::text(r, "package_id")?)
                .or_default()
                .push(row::text(r, "name")?);
        }
        for p in packages {
            p.categories = names.remove(&p.id).unwrap_or_default();
        }
        Ok(())
    }

    /// The package a project deploys for a class or package name, as Murano's
    /// loader picks it: enabled or not, own packages first, then public ones,
    /// the oldest of each.
    pub async fn resolve_package(&self, project_id: &str, name: &str) -> Result<Option<Package>> {
        let mut found = self
            .visible_packages_with(project_id, PackageKey::Name(name))
            .await?;
        found.extend(
            self.visible_packages_with(project_id, PackageKey::Class(name))
                .await?,
        );
        found.sort_by(|a, b| (&a.created, &a.id).cmp(&(&b.created, &b.id)));
        let own = found.iter().position(|p| p.owner_id == project_id);
        Ok(match own {
            Some(i) => Some(found.swap_remove(i)),
            None => found.into_iter().next(),
        })
    }
}
