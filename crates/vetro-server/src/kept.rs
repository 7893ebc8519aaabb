//! Pages of the lists kept in memory between writes. A page's answer is
//! kept as the bytes sent, with the version of the lists it was read at
//! ([`vetro_store::Store::list_version`]: raised by the database with every
//! write that a list shows, whichever process makes it). While the version
//! stands, the page is answered again after the one small query that reads
//! it. The version is read before the page, so a page is never kept with a
//! version newer than itself: a write in between only costs one more read.
//!
//! Bounded: pages over [`PageCache::MAX_PAGE`] bytes are not kept, and past
//! [`PageCache::MAX_BYTES`] in all the oldest go first.

use crate::error::{ApiError, ApiResult};
use axum::body::Bytes;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde::ser::{Error as _, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Mutex;
use vetro_store::Store;

/// A `T` as the JSON bytes of an answer, written once.
pub struct Kept<T> {
    body: Bytes,
    shape: PhantomData<fn() -> T>,
}

impl<T: Serialize> Kept<T> {
    pub fn new(value: &T) -> ApiResult<Kept<T>> {
        let body = serde_json::to_vec(value)
            .map_err(|e| ApiError::unavailable(format!("the answer could not be written: {e}")))?;
        Ok(Kept::from_bytes(body.into()))
    }
}

impl<T> Kept<T> {
    fn from_bytes(body: Bytes) -> Kept<T> {
        Kept {
            body,
            shape: PhantomData,
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.body
    }
}

impl<T> IntoResponse for Kept<T> {
    fn into_response(self) -> Response {
        let json = HeaderValue::from_static("application/json");
        ([(header::CONTENT_TYPE, json)], self.body).into_response()
    }
}

/// For embedders that read an answer as a value (the web dashboard).
impl<T> Serialize for Kept<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = std::str::from_utf8(&self.body).map_err(S::Error::custom)?;
        let raw = RawValue::from_string(text.to_string()).map_err(S::Error::custom)?;
        raw.serialize(s)
    }
}

/// Pages recently read, each with the lists' version it was read at.
#[derive(Debug, Default)]
pub struct PageCache {
    inner: Mutex<Pages>,
}

#[derive(Debug, Default)]
struct Pages {
    /// By the listing, its project and its parameters.
    pages: HashMap<String, Entry>,
    bytes: usize,
    /// Counts insertions, to find the oldest pages.
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    version: i64,
    body: Bytes,
    born: u64,
}

impl PageCache {
    /// The largest page kept.
    pub const MAX_PAGE: usize = 1 << 20;
    /// The bytes of all pages kept.
    pub const MAX_BYTES: usize = 32 << 20;

    /// The page of `project`'s lists that `key` names (the listing's
    /// parameters): kept if its version stands, else read by `read` and
    /// kept.
    pub async fn page<T, F>(
        &self,
        store: &Store,
        project: &str,
        key: String,
        read: F,
    ) -> ApiResult<Kept<T>>
    where
        T: Serialize,
        F: Future<Output = ApiResult<T>>,
    {
        let key = format!("{}\0{project}\0{key}", std::any::type_name::<T>());
        let version = store.list_version(project).await?;
        if let Some(body) = self.get(&key, version) {
            return Ok(Kept::from_bytes(body));
        }
        let kept = Kept::new(&read.await?)?;
        self.put(key, version, kept.body.clone());
        Ok(kept)
    }

    fn get(&self, key: &str, version: i64) -> Option<Bytes> {
        let pages = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let entry = pages.pages.get(key)?;
        (entry.version == version).then(|| entry.body.clone())
    }

    fn put(&self, key: String, version: i64, body: Bytes) {
        let size = body.len() + key.len();
        if size > Self::MAX_PAGE {
            return;
        }
        let mut p = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        p.clock += 1;
        let born = p.clock;
        let entry = Entry {
            version,
            body,
            born,
        };
        if let Some(old) = p.pages.insert(key.clone(), entry) {
            p.bytes -= old.body.len() + key.len();
        }
        p.bytes += size;
        if p.bytes > Self::MAX_BYTES {
            // The oldest go until a quarter is free, so this runs seldom.
            let mut ages: Vec<(u64, String)> =
                p.pages.iter().map(|(k, v)| (v.born, k.clone())).collect();
            ages.sort_unstable();
            for (_, key) in ages {
                if p.bytes <= Self::MAX_BYTES / 4 * 3 {
                    break;
                }
                if let Some(e) = p.pages.remove(&key) {
                    p.bytes -= e.body.len() + key.len();
                }
            }
        }
    }

    /// The bytes of the pages kept, and how many.
    pub fn size(&self) -> (usize, usize) {
        let p = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        (p.bytes, p.pages.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(bytes: usize) -> Bytes {
        Bytes::from(vec![b'x'; bytes])
    }

    #[test]
    fn the_cache_keeps_its_bounds_and_drops_the_oldest_first() {
        let cache = PageCache::default();
        cache.put("huge".into(), 1, body(PageCache::MAX_PAGE));
        assert_eq!(cache.size(), (0, 0), "a page over the bound is not kept");
        let each = PageCache::MAX_PAGE / 2;
        let n = PageCache::MAX_BYTES / each + 4;
        for i in 0..n {
            cache.put(format!("k{i}"), i as i64, body(each));
            assert!(cache.size().0 <= PageCache::MAX_BYTES);
        }
        assert!(cache.get("k0", 0).is_none(), "the oldest went first");
        let last = format!("k{}", n - 1);
        assert!(cache.get(&last, n as i64 - 1).is_some());
        assert!(cache.get(&last, n as i64).is_none(), "another version");
        // A key written again replaces its page and its bytes.
        let (bytes, count) = cache.size();
        cache.put(last.clone(), 7, body(10));
        assert_eq!(cache.size(), (bytes - each + 10, count));
        assert!(cache.get(&last, 7).is_some());
    }
}
