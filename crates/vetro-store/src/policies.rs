//! Per-project deployment policies (Congress syntax text).

use crate::{row, time, Result, Store};

impl Store {
    /// The project's policy text, if one was set.
    pub async fn policy(&self, project_id: &str) -> Result<Option<String>> {
        let r = sqlx::query("SELECT text FROM policies WHERE project_id = $1")
            .bind(project_id)
            .fetch_optional(self.pool())
            .await?;
        r.map(|r| row::text(&r, "text")).transpose()
    }

    /// Sets (or with `None`, removes) the project's policy.
    pub async fn set_policy(&self, project_id: &str, text: Option<&str>) -> Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM policies WHERE project_id = $1")
            .bind(project_id)
            .execute(&mut *tx)
            .await?;
        if let Some(text) = text {
            sqlx::query("INSERT INTO policies (project_id, text, updated) VALUES ($1, $2, $3)")
                .bind(project_id)
                .bind(text)
                .bind(time::now())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
