//! Column decoding helpers over `AnyRow`.

use crate::Result;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::Row;

pub fn text(r: &AnyRow, col: &str) -> Result<String> {
    Ok(r.try_get::<String, _>(col)?)
}

pub fn opt_text(r: &AnyRow, col: &str) -> Result<Option<String>> {
    Ok(r.try_get::<Option<String>, _>(col)?)
}

pub fn int(r: &AnyRow, col: &str) -> Result<i64> {
    Ok(r.try_get::<i64, _>(col)?)
}

pub fn flag(r: &AnyRow, col: &str) -> Result<bool> {
    Ok(int(r, col)? != 0)
}

pub fn json(r: &AnyRow, col: &str) -> Result<Value> {
    Ok(serde_json::from_str(&text(r, col)?)?)
}

pub fn opt_json(r: &AnyRow, col: &str) -> Result<Option<Value>> {
    match opt_text(r, col)? {
        Some(t) => Ok(Some(serde_json::from_str(&t)?)),
        None => Ok(None),
    }
}

pub fn opt_bytes(r: &AnyRow, col: &str) -> Result<Option<Vec<u8>>> {
    Ok(r.try_get::<Option<Vec<u8>>, _>(col)?)
}
