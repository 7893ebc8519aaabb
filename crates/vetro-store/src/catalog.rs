//! The package catalog and its categories. Archives are stored in the
//! database; metadata rows are read without them.

use crate::{new_id, row, time, Result, Store, StoreError, Tx};
use serde_json::Value;
use sqlx::any::AnyRow;
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    pub id: String,
    pub owner_id: String,
    pub fully_qualified_name: String,
    pub name: String,
    /// `Application` or `Library`.
    pub kind: String,
    pub version: String,
    pub author: String,
    pub supplier: Value,
    pub description: String,
    pub enabled: bool,
    pub is_public: bool,
    pub tags: Vec<String>,
    /// Category names.
    pub categories: Vec<String>,
    pub class_definitions: Vec<String>,
    pub created: String,
    pub updated: String,
}

/// A package to insert: metadata plus files.
#[derive(Clone, Debug)]
pub struct NewPackage {
    pub meta: Package,
    pub archive: Vec<u8>,
    pub logo: Option<Vec<u8>>,
    pub supplier_logo: Option<Vec<u8>>,
    pub ui_definition: Option<String>,
}

/// Which stored file of a package to read.
#[derive(Clone, Copy, Debug)]
pub enum PackageFile {
    Archive,
    Logo,
    SupplierLogo,
    Ui,
}

#[derive(Clone, Debug)]
pub struct Category {
    pub id: String,
    pub name: String,
    pub package_count: i64,
    pub created: String,
    pub updated: String,
}

pub(crate) const META_COLUMNS: &str =
    "id, owner_id, fully_qualified_name, name, type, version, author, \
    supplier, description, enabled, is_public, tags, class_definitions, created, updated";

fn strings(v: Value) -> Vec<String> {
    match v {
        Value::Array(a) => a
            .into_iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn meta_from_row(r: &AnyRow) -> Result<Package> {
    Ok(Package {
        id: row::text(r, "id")?,
        owner_id: row::text(r, "owner_id")?,
        fully_qualified_name: row::text(r, "fully_qualified_name")?,
        name: row::text(r, "name")?,
        kind: row::text(r, "type")?,
        version: row::text(r, "version")?,
        author: row::text(r, "author")?,
        supplier: row::json(r, "supplier")?,
        description: row::text(r, "description")?,
        enabled: row::flag(r, "enabled")?,
        is_public: row::flag(r, "is_public")?,
        tags: strings(row::json(r, "tags")?),
        categories: Vec::new(),
        class_definitions: strings(row::json(r, "class_definitions")?),
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
    })
}

/// Takes the catalog's named lock for the rest of `tx`: conflict checks and
/// the writes they guard run one transaction at a time.
async fn lock_catalog(tx: &mut Tx<'_>) -> Result<()> {
    sqlx::query("UPDATE locks SET ts = $1 WHERE name = 'catalog'")
        .bind(time::now())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn category_ids(tx: &mut Tx<'_>, names: &[String]) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    for n in names {
        let r = sqlx::query("SELECT id FROM categories WHERE name = $1")
            .bind(n)
            .fetch_optional(&mut **tx)
            .await?
            .ok_or_else(|| StoreError::Invalid(format!("category '{n}' does not exist")))?;
        ids.push(row::text(&r, "id")?);
    }
    Ok(ids)
}

async fn set_categories(tx: &mut Tx<'_>, package_id: &str, names: &[String]) -> Result<()> {
    let ids = category_ids(tx, names).await?;
    sqlx::query("DELETE FROM package_categories WHERE package_id = $1")
        .bind(package_id)
        .execute(&mut **tx)
        .await?;
    for id in ids {
        sqlx::query("INSERT INTO package_categories (package_id, category_id) VALUES ($1, $2)")
            .bind(package_id)
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Murano's upload conflicts, checked under the catalog lock: the same FQN
/// for the owner, a public package with the same FQN, a class already defined
/// by a package in the owner's scope (own or public).
async fn check_conflicts(tx: &mut Tx<'_>, p: &Package, except_id: Option<&str>) -> Result<()> {
    // A public package shares its scope with every project.
    let rows = sqlx::query(&format!(
        "SELECT {META_COLUMNS} FROM packages WHERE owner_id = $1 OR is_public = 1 OR $2 = 1"
    ))
    .bind(&p.owner_id)
    .bind(p.is_public as i64)
    .fetch_all(&mut **tx)
    .await?;
    for r in &rows {
        let other = meta_from_row(r)?;
        if Some(other.id.as_str()) == except_id {
            continue;
        }
        let same_scope = other.owner_id == p.owner_id || other.is_public || p.is_public;
        if other.fully_qualified_name == p.fully_qualified_name && same_scope {
            return Err(StoreError::Conflict(format!(
                "package {} is already registered (package {})",
                p.fully_qualified_name, other.id
            )));
        }
        if same_scope {
            if let Some(c) = p
                .class_definitions
                .iter()
                .find(|c| other.class_definitions.contains(c))
            {
                return Err(StoreError::Conflict(format!(
                    "class {c} is already defined by package {} ({})",
                    other.fully_qualified_name, other.id
                )));
            }
        }
    }
    Ok(())
}

impl Store {
    /// Inserts a package after Murano's conflict checks; returns its metadata.
    pub async fn insert_package(&self, p: &NewPackage) -> Result<Package> {
        let mut tx = self.begin().await?;
        lock_catalog(&mut tx).await?;
        let mut meta = p.meta.clone();
        meta.id = new_id();
        meta.created = time::now();
        meta.updated = meta.created.clone();
        check_conflicts(&mut tx, &meta, None).await?;
        let res = sqlx::query(
            "INSERT INTO packages (id, owner_id, fully_qualified_name, name, type, version, author, \
             supplier, description, enabled, is_public, tags, class_definitions, archive, logo, \
             supplier_logo, ui_definition, created, updated) VALUES \
             ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)",
        )
        .bind(&meta.id)
        .bind(&meta.owner_id)
        .bind(&meta.fully_qualified_name)
        .bind(&meta.name)
        .bind(&meta.kind)
        .bind(&meta.version)
        .bind(&meta.author)
        .bind(meta.supplier.to_string())
        .bind(&meta.description)
        .bind(meta.enabled as i64)
        .bind(meta.is_public as i64)
        .bind(Value::from(meta.tags.clone()).to_string())
        .bind(Value::from(meta.class_definitions.clone()).to_string())
        .bind(p.archive.clone())
        .bind(p.logo.clone())
        .bind(p.supplier_logo.clone())
        .bind(p.ui_definition.clone())
        .bind(&meta.created)
        .execute(&mut *tx)
        .await
        .map_err(StoreError::from);
        if let Err(e) = res {
            return Err(if e.is_unique_violation() {
                StoreError::Conflict(format!(
                    "package {} is already registered",
                    meta.fully_qualified_name
                ))
            } else {
                e
            });
        }
        set_categories(&mut tx, &meta.id, &meta.categories).await?;
        index_classes(&mut tx, &meta.id, &meta.class_definitions).await?;
        tx.commit().await?;
        Ok(meta)
    }

    /// Metadata of every package owned by `project_id` or public (every
    /// package when `project_id` is `None`), oldest first.
    pub async fn list_packages(&self, project_id: Option<&str>) -> Result<Vec<Package>> {
        let rows = match project_id {
            Some(p) => {
                sqlx::query(&format!(
                    "SELECT {META_COLUMNS} FROM packages WHERE owner_id = $1 OR is_public = 1 \
                     ORDER BY created, id"
                ))
                .bind(p)
                .fetch_all(self.pool())
                .await?
            }
            None => {
                sqlx::query(&format!(
                    "SELECT {META_COLUMNS} FROM packages ORDER BY created, id"
                ))
                .fetch_all(self.pool())
                .await?
            }
        };
        let mut out: Vec<Package> = rows.iter().map(meta_from_row).collect::<Result<_>>()?;
        let cats = self.package_category_names().await?;
        for p in &mut out {
            p.categories = cats.get(&p.id).cloned().unwrap_or_default();
        }
        Ok(out)
    }

    async fn package_category_names(&self) -> Result<HashMap<String, Vec<String>>> {
        let rows = sqlx::query(
            "SELECT pc.package_id, c.name FROM package_categories pc \
             JOIN categories c ON c.id = pc.category_id ORDER BY c.name",
        )
        .fetch_all(self.pool())
        .await?;
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for r in &rows {
            out.entry(row::text(r, "package_id")?)
                .or_default()
                .push(row::text(r, "name")?);
        }
        Ok(out)
    }

    pub async fn get_package(&self, id: &str) -> Result<Package> {
        let r = sqlx::query(&format!(
            "SELECT {META_COLUMNS} FROM packages WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("package {id}")))?;
        let mut p = meta_from_row(&r)?;
        let rows = sqlx::query(
            "SELECT c.name FROM package_categories pc JOIN categories c ON c.id = pc.category_id \
             WHERE pc.package_id = $1 ORDER BY c.name",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        p.categories = rows
            .iter()
            .map(|r| row::text(r, "name"))
            .collect::<Result<_>>()?;
        Ok(p)
    }

    /// One stored file of a package (`None` when the package has none).
    pub async fn package_file(&self, id: &str, which: PackageFile) -> Result<Option<Vec<u8>>> {
        let col = match which {
            PackageFile::Archive => "archive",
            PackageFile::Logo => "logo",
            PackageFile::SupplierLogo => "supplier_logo",
            PackageFile::Ui => "ui_definition",
        };
        let r = sqlx::query(&format!("SELECT {col} FROM packages WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("package {id}")))?;
        match which {
            PackageFile::Ui => Ok(row::opt_text(&r, col)?.map(String::into_bytes)),
            _ => row::opt_bytes(&r, col),
        }
    }

    /// Writes changed metadata (name, description, tags, categories,
    /// is_public, enabled) after the conflict checks.
    pub async fn update_package(&self, p: &Package) -> Result<Package> {
        let mut tx = self.begin().await?;
        lock_catalog(&mut tx).await?;
        check_conflicts(&mut tx, p, Some(&p.id)).await?;
        let res = sqlx::query(
            "UPDATE packages SET name = $1, description = $2, tags = $3, is_public = $4, \
             enabled = $5, updated = $6 WHERE id = $7",
        )
        .bind(&p.name)
        .bind(&p.description)
        .bind(Value::from(p.tags.clone()).to_string())
        .bind(p.is_public as i64)
        .bind(p.enabled as i64)
        .bind(time::now())
        .bind(&p.id)
        .execute(&mut *tx)
        .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("package {}", p.id)));
        }
        set_categories(&mut tx, &p.id, &p.categories).await?;
        tx.commit().await?;
        self.get_package(&p.id).await
    }

    pub async fn delete_package(&self, id: &str) -> Result<()> {
        let mut tx = self.begin().await?;
        for table in ["package_categories", "package_classes"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE package_id = $1"))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        let res = sqlx::query("DELETE FROM packages WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("package {id}")));
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn list_categories(&self) -> Result<Vec<Category>> {
        let rows = sqlx::query(
            "SELECT c.id, c.name, c.created, c.updated, \
             (SELECT COUNT(*) FROM package_categories pc WHERE pc.category_id = c.id) AS package_count \
             FROM categories c ORDER BY c.name",
        )
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(category_from_row).collect()
    }

    pub async fn get_category(&self, id: &str) -> Result<Category> {
        let r = sqlx::query(
            "SELECT c.id, c.name, c.created, c.updated, \
             (SELECT COUNT(*) FROM package_categories pc WHERE pc.category_id = c.id) AS package_count \
             FROM categories c WHERE c.id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("category {id}")))?;
        category_from_row(&r)
    }

    /// Ids of the packages in a category.
    pub async fn category_package_ids(&self, id: &str) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT package_id FROM package_categories WHERE category_id = $1 ORDER BY package_id",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(|r| row::text(r, "package_id")).collect()
    }

    pub async fn add_category(&self, name: &str) -> Result<Category> {
        let id = new_id();
        let now = time::now();
        let res = sqlx::query(
            "INSERT INTO categories (id, name, created, updated) VALUES ($1, $2, $3, $3)",
        )
        .bind(&id)
        .bind(name)
        .bind(&now)
        .execute(self.pool())
        .await
        .map_err(StoreError::from);
        match res {
            Err(e) if e.is_unique_violation() => Err(StoreError::Conflict(format!(
                "category '{name}' already exists"
            ))),
            Err(e) => Err(e),
            Ok(_) => Ok(Category {
                id,
                name: name.into(),
                package_count: 0,
                created: now.clone(),
                updated: now,
            }),
        }
    }

    /// Deletes a category that no package uses.
    pub async fn delete_category(&self, id: &str) -> Result<()> {
        let mut tx = self.begin().await?;
        let used = sqlx::query("SELECT 1 AS one FROM package_categories WHERE category_id = $1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        if used.is_some() {
            return Err(StoreError::Forbidden(
                "the category has packages assigned and cannot be deleted".into(),
            ));
        }
        let res = sqlx::query("DELETE FROM categories WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("category {id}")));
        }
        tx.commit().await?;
        Ok(())
    }
}

fn category_from_row(r: &AnyRow) -> Result<Category> {
    Ok(Category {
        id: row::text(r, "id")?,
        name: row::text(r, "name")?,
        package_count: row::int(r, "package_count")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
    })
}

/// Writes the class rows of a new package (its `class_definitions`, each once).
pub(crate) async fn index_classes(
    tx: &mut Tx<'_>,
    package_id: &str,
    classes: &[String],
) -> Result<()> {
    let classes: BTreeSet<&str> = classes.iter().map(String::as_str).collect();
    for class in classes {
        sqlx::query("INSERT INTO package_classes (class_name, package_id) VALUES ($1, $2)")
            .bind(class)
            .bind(package_id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
