//! API tokens. Only a SHA-256 hash of a token is stored; the token itself is
//! shown once, when it is created.

use crate::{row, time, Result, Store, StoreError};
use sha2::{Digest, Sha256};

/// Who a token speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub project_id: String,
    pub user_id: String,
    pub is_admin: bool,
}

fn hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn random_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| StoreError::Invalid(format!("no randomness available: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Store {
    /// Creates a token for `who` and returns it (the only time it is visible).
    pub async fn create_token(&self, who: &Principal) -> Result<String> {
        for (what, v) in [("project", &who.project_id), ("user", &who.user_id)] {
            if v.is_empty() || v.len() > 64 {
                return Err(StoreError::Invalid(format!(
                    "the {what} id must have 1 to 64 characters"
                )));
            }
        }
        let token = random_token()?;
        sqlx::query(
            "INSERT INTO tokens (token_hash, project_id, user_id, is_admin, created) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(hash(&token))
        .bind(&who.project_id)
        .bind(&who.user_id)
        .bind(who.is_admin as i64)
        .bind(time::now())
        .execute(self.pool())
        .await?;
        Ok(token)
    }

    /// The principal of `token`, or `None` when the token is unknown.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Principal>> {
        let row =
            sqlx::query("SELECT project_id, user_id, is_admin FROM tokens WHERE token_hash = $1")
                .bind(hash(token))
                .fetch_optional(self.pool())
                .await?;
        row.map(|r| {
            Ok(Principal {
                project_id: row::text(&r, "project_id")?,
                user_id: row::text(&r, "user_id")?,
                is_admin: row::flag(&r, "is_admin")?,
            })
        })
        .transpose()
    }
}
