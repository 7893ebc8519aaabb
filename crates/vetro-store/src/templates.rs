//! Environment templates: a project's reusable list of application
//! components, optionally public.

use crate::page::{Page, PageRequest};
use crate::{new_id, row, time, Result, Store, StoreError};
use serde_json::Value;
use sqlx::any::AnyRow;

#[derive(Clone, Debug)]
pub struct Template {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub description_text: String,
    pub version: i64,
    /// `{"name": ..., "services": [...], ...}`, Murano's template description.
    pub model: Value,
    pub is_public: bool,
    pub created: String,
    pub updated: String,
}

const COLUMNS: &str =
    "id, project_id, name, description_text, version, model, is_public, created, updated";

fn from_row(r: &AnyRow) -> Result<Template> {
    Ok(Template {
        id: row::text(r, "id")?,
        project_id: row::text(r, "project_id")?,
        name: row::text(r, "name")?,
        description_text: row::text(r, "description_text")?,
        version: row::int(r, "version")?,
        model: row::json(r, "model")?,
        is_public: row::flag(r, "is_public")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
    })
}

fn conflict(e: StoreError, name: &str) -> StoreError {
    if e.is_unique_violation() {
        StoreError::Conflict(format!(
            "a template named '{name}' already exists in this project"
        ))
    } else {
        e
    }
}

impl Store {
    pub async fn create_template(
        &self,
        project_id: &str,
        name: &str,
        description_text: &str,
        model: &Value,
        is_public: bool,
    ) -> Result<Template> {
        let id = new_id();
        let now = time::now();
        sqlx::query(
            "INSERT INTO templates (id, project_id, name, description_text, version, model, \
             is_public, created, updated) VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $7)",
        )
        .bind(&id)
        .bind(project_id)
        .bind(name)
        .bind(description_text)
        .bind(model.to_string())
        .bind(is_public as i64)
        .bind(&now)
        .execute(self.pool())
        .await
        .map_err(|e| conflict(e.into(), name))?;
        self.get_template(&id).await
    }

    /// Templates owned by `project_id` or public (all when `None`).
    pub async fn list_templates(&self, project_id: Option<&str>) -> Result<Vec<Template>> {
        let rows = match project_id {
            Some(p) => {
                sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM templates WHERE project_id = $1 OR is_public = 1 \
                     ORDER BY created, id"
                ))
                .bind(p)
                .fetch_all(self.pool())
                .await?
            }
            None => {
                sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM templates ORDER BY created, id"
                ))
                .fetch_all(self.pool())
                .await?
            }
        };
        rows.iter().map(from_row).collect()
    }

    /// One page of the templates `project_id` sees (its own and public
    /// ones; only public ones with `public = Some(true)`, only its own
    /// private ones with `Some(false)`), oldest first.
    pub async fn template_page(
        &self,
        project_id: &str,
        public: Option<bool>,
        page: &PageRequest,
    ) -> Result<Page<Template>> {
        let mut binds: Vec<String> = Vec::new();
        let mut filter = match public {
            None => {
                binds.push(project_id.to_string());
                "(t.project_id = $1 OR t.is_public = 1)".to_string()
            }
            Some(true) => "t.is_public = 1".to_string(),
            Some(false) => {
                binds.push(project_id.to_string());
                "t.project_id = $1 AND t.is_public = 0".to_string()
            }
        };
        if let Some(m) = &page.marker {
            let id = binds.len() + 1;
            let sql = format!("SELECT t.created FROM templates t WHERE {filter} AND t.id = ${id}");
            let mut q = sqlx::query(&sql);
            for b in binds.iter().chain([m]) {
                q = q.bind(b);
            }
            let r = q.fetch_optional(self.reader()).await?.ok_or_else(|| {
                StoreError::Invalid(format!("marker '{m}' is not a template of this listing"))
            })?;
            binds.push(row::text(&r, "created")?);
            binds.push(m.clone());
            let (c, i) = (binds.len() - 1, binds.len());
            filter.push_str(&format!(
                " AND (t.created > ${c} OR (t.created = ${c} AND t.id > ${i}))"
            ));
        }
        let sql = format!(
            "SELECT {COLUMNS} FROM templates t WHERE {filter} ORDER BY t.created, t.id LIMIT {}",
            page.fetch()
        );
        let mut q = sqlx::query(&sql);
        for b in &binds {
            q = q.bind(b);
        }
        let rows = q.fetch_all(self.reader()).await?;
        let items = rows.iter().map(from_row).collect::<Result<_>>()?;
        Ok(Page::from_fetched(items, page))
    }

    pub async fn get_template(&self, id: &str) -> Result<Template> {
        let r = sqlx::query(&format!("SELECT {COLUMNS} FROM templates WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("template {id}")))?;
        from_row(&r)
    }

    /// Writes a template's name, description, model and visibility.
    pub async fn update_template(&self, t: &Template) -> Result<Template> {
        let res = sqlx::query(
            "UPDATE templates SET name = $1, description_text = $2, model = $3, is_public = $4, \
             version = version + 1, updated = $5 WHERE id = $6",
        )
        .bind(&t.name)
        .bind(&t.description_text)
        .bind(t.model.to_string())
        .bind(t.is_public as i64)
        .bind(time::now())
        .bind(&t.id)
        .execute(self.pool())
        .await
        .map_err(|e| conflict(e.into(), &t.name))?;
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("template {}", t.id)));
        }
        self.get_template(&t.id).await
    }

    pub async fn delete_template(&self, id: &str) -> Result<()> {
        let res = sqlx::query("DELETE FROM templates WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("template {id}")));
        }
        Ok(())
    }

    /// Creates an environment from a template together with an opened
    /// session holding `model`, in one transaction.
    pub async fn create_environment_with_session(
        &self,
        project_id: &str,
        user_id: &str,
        name: &str,
        env_model: &Value,
        session_model: &Value,
        env_id: String,
    ) -> Result<(crate::environments::Environment, crate::sessions::Session)> {
        let mut tx = self.begin().await?;
        let env = crate::environments::insert_environment(
            &mut tx,
            project_id,
            name,
            env_model,
            Some(env_id),
        )
        .await?;
        let session =
            crate::sessions::open_session_in(&mut tx, &env.id, user_id, Some(session_model))
                .await?;
        tx.commit().await?;
        Ok((env, session))
    }
}
