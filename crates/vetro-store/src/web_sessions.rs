//! The web dashboard's sign-in sessions, kept in the database so they
//! survive a restart of the service and are shared by every process on it.
//!
//! A session is named by the SHA-256 of its cookie's value. A token sign-in
//! keeps the token's hash and is checked against the tokens table on every
//! look-up, so revoking or expiring the token ends the session; a password
//! sign-in keeps the principal the identity service vouched for. Besides, a
//! session holds named JSON values (what the dashboard remembers between
//! pages). Expired sessions are deleted when new ones are made.

use crate::tokens::{hash, Principal};
use crate::{row, time, Result, Store};
use serde_json::Value;

/// Who a new session signs in as.
pub enum WebCredential<'a> {
    /// An API token (only its hash is kept).
    Token(&'a str),
    /// A principal an identity service vouched for.
    Principal(&'a Principal),
}

/// A session found by [`Store::web_session`].
#[derive(Clone, Debug, PartialEq)]
pub struct WebSession {
    pub principal: Principal,
    pub csrf: String,
}

impl Store {
    /// Stores a session named `id` for `lifetime`, deleting expired ones.
    pub async fn create_web_session(
        &self,
        id: &str,
        csrf: &str,
        credential: WebCredential<'_>,
        lifetime: std::time::Duration,
    ) -> Result<()> {
        let lifetime =
            jiff::SignedDuration::try_from(lifetime).unwrap_or(jiff::SignedDuration::MAX);
        let (token_hash, who) = match credential {
            WebCredential::Token(t) => (
                Some(hash(t)),
                self.authenticate(t).await?.unwrap_or(Principal {
                    project_id: String::new(),
                    user_id: String::new(),
                    is_admin: false,
                }),
            ),
            WebCredential::Principal(p) => (None, p.clone()),
        };
        let now = time::now();
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM web_session_values WHERE id_hash IN (SELECT id_hash FROM web_sessions WHERE expires <= $1)")
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM web_sessions WHERE expires <= $1")
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO web_sessions (id_hash, token_hash, project_id, user_id, is_admin, csrf, created, expires) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(hash(id))
        .bind(token_hash)
        .bind(&who.project_id)
        .bind(&who.user_id)
        .bind(i64::from(who.is_admin))
        .bind(csrf)
        .bind(&now)
        .bind(time::after(lifetime))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The live session named `id`: `None` when it is unknown, expired, or
    /// its token was revoked or expired since.
    pub async fn web_session(&self, id: &str) -> Result<Option<WebSession>> {
        let now = time::now();
        let r = sqlx::query(
            "SELECT s.csrf, s.token_hash, s.project_id, s.user_id, s.is_admin, \
                    t.project_id AS t_project, t.user_id AS t_user, t.is_admin AS t_admin, t.expires AS t_expires \
             FROM web_sessions s LEFT JOIN tokens t ON t.token_hash = s.token_hash \
             WHERE s.id_hash = $1 AND s.expires > $2",
        )
        .bind(hash(id))
        .bind(&now)
        .fetch_optional(self.reader())
        .await?;
        let Some(r) = r else { return Ok(None) };
        let principal = if row::opt_text(&r, "token_hash")?.is_some() {
            let Some(project_id) = row::opt_text(&r, "t_project")? else {
                return Ok(None); // the token was revoked
            };
            if row::opt_text(&r, "t_expires")?.is_some_and(|e| e <= now) {
                return Ok(None);
            }
            Principal {
                project_id,
                user_id: row::text(&r, "t_user")?,
                is_admin: row::flag(&r, "t_admin")?,
            }
        } else {
            Principal {
                project_id: row::text(&r, "project_id")?,
                user_id: row::text(&r, "user_id")?,
                is_admin: row::flag(&r, "is_admin")?,
            }
        };
        Ok(Some(WebSession {
            principal,
            csrf: row::text(&r, "csrf")?,
        }))
    }

    /// Ends the session named `id` (signing out).
    pub async fn delete_web_session(&self, id: &str) -> Result<()> {
        let key = hash(id);
        let mut tx = self.begin().await?;
        for table in ["web_session_values", "web_sessions"] {
            sqlx::query(&format!("DELETE FROM {table} WHERE id_hash = $1"))
                .bind(&key)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The value `name` of session `id`.
    pub async fn web_session_value(&self, id: &str, name: &str) -> Result<Option<Value>> {
        let r =
            sqlx::query("SELECT value FROM web_session_values WHERE id_hash = $1 AND name = $2")
                .bind(hash(id))
                .bind(name)
                .fetch_optional(self.reader())
                .await?;
        r.map(|r| row::json(&r, "value")).transpose()
    }

    /// Sets (or with `None` removes) the value `name` of session `id`.
    pub async fn set_web_session_value(
        &self,
        id: &str,
        name: &str,
        value: Option<&Value>,
    ) -> Result<()> {
        let q = match value {
            Some(_) => {
                "INSERT INTO web_session_values (id_hash, name, value) VALUES ($1, $2, $3) \
                        ON CONFLICT (id_hash, name) DO UPDATE SET value = excluded.value"
            }
            None => "DELETE FROM web_session_values WHERE id_hash = $1 AND name = $2",
        };
        let mut query = sqlx::query(q).bind(hash(id)).bind(name);
        if let Some(v) = value {
            query = query.bind(v.to_string());
        }
        query.execute(self.pool()).await?;
        Ok(())
    }

    /// Takes (reads and removes) the value `name` of session `id`.
    pub async fn take_web_session_value(&self, id: &str, name: &str) -> Result<Option<Value>> {
        let v = self.web_session_value(id, name).await?;
        if v.is_some() {
            self.set_web_session_value(id, name, None).await?;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    async fn store() -> Store {
        let s = Store::connect("sqlite::memory:").await.unwrap();
        s.migrate().await.unwrap();
        s
    }

    fn alice() -> Principal {
        Principal {
            project_id: "demo".into(),
            user_id: "alice".into(),
            is_admin: false,
        }
    }

    fn later(secs: u64) -> std::time::Duration {
        std::time::Duration::from_secs(secs)
    }

    #[tokio::test]
    async fn a_token_session_lasts_while_its_token_does() {
        let s = store().await;
        let token = s.create_token(&alice()).await.unwrap();
        s.create_web_session("cookie", "csrf", WebCredential::Token(&token), later(60))
            .await
            .unwrap();
        let got = s.web_session("cookie").await.unwrap().unwrap();
        assert_eq!((got.principal, got.csrf.as_str()), (alice(), "csrf"));
        assert_eq!(s.web_session("other").await.unwrap(), None);
        s.revoke_token(&token).await.unwrap();
        assert_eq!(s.web_session("cookie").await.unwrap(), None);
    }

    #[tokio::test]
    async fn sessions_expire_and_end() {
        let s = store().await;
        let p = alice();
        s.create_web_session("old", "c", WebCredential::Principal(&p), later(0))
            .await
            .unwrap();
        assert_eq!(s.web_session("old").await.unwrap(), None);
        s.create_web_session("new", "c", WebCredential::Principal(&p), later(60))
            .await
            .unwrap();
        assert_eq!(s.web_session("new").await.unwrap().unwrap().principal, p);
        s.set_web_session_value("new", "draft", Some(&json!({"a": 1})))
            .await
            .unwrap();
        s.set_web_session_value("new", "draft", Some(&json!({"a": 2})))
            .await
            .unwrap();
        assert_eq!(
            s.take_web_session_value("new", "draft").await.unwrap(),
            Some(json!({"a": 2}))
        );
        assert_eq!(s.web_session_value("new", "draft").await.unwrap(), None);
        s.delete_web_session("new").await.unwrap();
        assert_eq!(s.web_session("new").await.unwrap(), None);
    }
}
