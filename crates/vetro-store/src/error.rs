use thiserror::Error;

/// What can go wrong in the store. `NotFound` and `Conflict` are the caller's
/// doing; `Db` is the database's.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("{0} not found")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    Invalid(String),
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored document is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl StoreError {
    /// True when the database rejected a write on a unique constraint.
    pub fn is_unique_violation(&self) -> bool {
        matches!(self, StoreError::Db(sqlx::Error::Database(e)) if e.is_unique_violation())
    }
}
