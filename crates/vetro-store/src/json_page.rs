//! Pages of a listing written as JSON by the database itself: one query
//! answers one row holding the page's items as a JSON array, whether more
//! items follow, and the id of the page's last item. The busiest answers of
//! the API are passed on as they come, without a row, a value or an
//! allocation per item on the way.
//!
//! Each item is JSON text the rows already hold (kept current by triggers,
//! see the migration `0010_list_items.sql`, or written once with the row)
//! or joins from a few such pieces: the page is the items joined with commas
//! (SQLite's `group_concat`, PostgreSQL's `string_agg`), so the database
//! neither builds nor parses JSON per item while it answers.
//!
//! A page is kept in memory ([`PageCache`]) with the versions of the lists
//! it was read at (the table `list_versions`, raised by triggers with every
//! write to what the lists show, in whichever process it happens; see the
//! migration `0011_list_versions.sql`). While they are unchanged, the page
//! is answered again after one small query that reads them; the page and
//! its versions are read by one statement, so a page is never kept with
//! versions newer than itself.

use crate::page::PageRequest;
use crate::{row, Backend, Result, Store};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A page as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonPage {
    /// The items, a JSON array.
    pub items: Arc<str>,
    /// The id of the page's last item, when more items follow it.
    pub next_marker: Option<String>,
}

/// What one listing reads: `SELECT {columns} FROM {from} t WHERE {filter}
/// ORDER BY {order}`, its bound values in `$1...` order, its id column, and
/// the SQL expression of one item's JSON text over such a row (named `p`).
/// `order` names bare columns of `from` (it also orders the page's items),
/// which `columns` must include.
pub(crate) struct Listing<'a> {
    pub from: &'a str,
    pub columns: &'a str,
    pub item: &'a str,
    pub filter: String,
    pub binds: Vec<String>,
    /// `created, id` or `created DESC, id DESC`: the page's order.
    pub order: std::borrow::Cow<'a, str>,
    pub id: &'a str,
    /// The project whose lists' version (with the shared one, `'*'`)
    /// changes whenever this page may: the page is then kept in the
    /// [`PageCache`]. `None`: read every time (listings across projects).
    pub scope: Option<String>,
}

/// The SQL of the versions that guard a page of `scope`: the project's
/// and the shared one, summed (both only grow, so the sum changes exactly
/// when one of them does).
const VERSION: &str = "COALESCE((SELECT v.version FROM list_versions v WHERE v.scope = $1), 0) \
     + COALESCE((SELECT v.version FROM list_versions v WHERE v.scope = '*'), 0)";

/// Pages recently read, each with the lists' version it was read at.
/// Bounded: pages over [`PageCache::MAX_PAGE`] bytes are not kept, and
/// past [`PageCache::MAX_BYTES`] in all the oldest go first.
#[derive(Debug, Default)]
pub struct PageCache {
    inner: Mutex<Pages>,
}

#[derive(Debug, Default)]
struct Pages {
    /// By the page's query and bound values.
    pages: HashMap<String, Kept>,
    bytes: usize,
    /// Counts insertions, to find the oldest pages.
    clock: u64,
}

#[derive(Debug)]
struct Kept {
    version: i64,
    page: JsonPage,
    born: u64,
}

impl PageCache {
    /// The largest page kept.
    pub const MAX_PAGE: usize = 1 << 20;
    /// The bytes of all pages kept.
    pub const MAX_BYTES: usize = 32 << 20;

    fn get(&self, key: &str) -> Option<(i64, JsonPage)> {
        let pages = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        pages.pages.get(key).map(|k| (k.version, k.page.clone()))
    }

    fn put(&self, key: String, version: i64, page: &JsonPage) {
        let size = page.items.len() + key.len();
        if size > Self::MAX_PAGE {
            return;
        }
        let mut p = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        p.clock += 1;
        let born = p.clock;
        let kept = Kept {
            version,
            page: page.clone(),
            born,
        };
        if let Some(old) = p.pages.insert(key.clone(), kept) {
            p.bytes -= old.page.items.len() + key.len();
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
                if let Some(k) = p.pages.remove(&key) {
                    p.bytes -= k.page.items.len() + key.len();
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

impl Store {
    /// The page `page` of `listing`.
    pub(crate) async fn json_page(
        &self,
        listing: &Listing<'_>,
        page: &PageRequest,
    ) -> Result<JsonPage> {
        let limit = page.fetch() - 1;
        let order = &listing.order;
        let rows = |what: &str, tail: &str| {
            format!(
                "SELECT {what} FROM {} t WHERE {} ORDER BY {order} {tail}",
                listing.from, listing.filter
            )
        };
        let join = match self.backend() {
            Backend::Sqlite => "group_concat",
            Backend::Postgres => "string_agg",
        };
        let items = format!(
            "'[' || COALESCE({join}({}, ',' ORDER BY {order}), '') || ']'",
            listing.item
        );
        // Three index walks: the page, its last id, and whether one more follows.
        let sql = format!(
            "SELECT (SELECT {items} FROM ({}) p) AS items, ({}) AS last_id, ({}) AS after_last",
            rows(listing.columns, &format!("LIMIT {limit}")),
            rows(listing.id, &format!("LIMIT 1 OFFSET {}", limit - 1)),
            rows(listing.id, &format!("LIMIT 1 OFFSET {limit}")),
        );
        let Some(scope) = &listing.scope else {
            return self
                .read_page(&sql, &listing.binds, None)
                .await
                .map(|(p, _)| p);
        };
        let key = format!("{sql}\u{0}{}", listing.binds.join("\u{0}"));
        if let Some((version, page)) = self.pages.get(&key) {
            let r = sqlx::query(&format!("SELECT {VERSION} AS version"))
                .bind(scope)
                .fetch_one(self.reader())
                .await?;
            if row::int(&r, "version")? == version {
                return Ok(page);
            }
        }
        let (page, version) = self.read_page(&sql, &listing.binds, Some(scope)).await?;
        if let Some(v) = version {
            self.pages.put(key, v, &page);
        }
        Ok(page)
    }

    /// Runs a page's query `sql` over `binds`; with `scope`, reads the
    /// lists' version in the same statement.
    async fn read_page(
        &self,
        sql: &str,
        binds: &[String],
        scope: Option<&str>,
    ) -> Result<(JsonPage, Option<i64>)> {
        let sql = match scope {
            // The scope is bound after the listing's own values.
            Some(_) => format!(
                "SELECT *, {} AS version FROM ({sql}) page",
                VERSION.replace("$1", &format!("${}", binds.len() + 1))
            ),
            None => sql.to_string(),
        };
        let mut q = sqlx::query(&sql);
        for b in binds.iter().map(String::as_str).chain(scope) {
            q = q.bind(b);
        }
        let r = q.fetch_one(self.reader()).await?;
        let more = row::opt_text(&r, "after_last")?.is_some();
        let page = JsonPage {
            items: row::text(&r, "items")?.into(),
            next_marker: if more {
                row::opt_text(&r, "last_id")?
            } else {
                None
            },
        };
        let version = match scope {
            Some(_) => Some(row::int(&r, "version")?),
            None => None,
        };
        Ok((page, version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(bytes: usize) -> JsonPage {
        JsonPage {
            items: "x".repeat(bytes).into(),
            next_marker: None,
        }
    }

    #[test]
    fn the_cache_keeps_its_bounds_and_drops_the_oldest_first() {
        let cache = PageCache::default();
        cache.put("huge".into(), 1, &page(PageCache::MAX_PAGE));
        assert_eq!(cache.size(), (0, 0), "a page over the bound is not kept");
        let each = PageCache::MAX_PAGE / 2;
        let n = PageCache::MAX_BYTES / each + 4;
        for i in 0..n {
            cache.put(format!("k{i}"), i as i64, &page(each));
            assert!(cache.size().0 <= PageCache::MAX_BYTES);
        }
        assert!(cache.get("k0").is_none(), "the oldest went first");
        let last = format!("k{}", n - 1);
        assert_eq!(cache.get(&last).map(|(v, _)| v), Some(n as i64 - 1));
        // A key written again replaces its page and its bytes.
        let (bytes, count) = cache.size();
        cache.put(last.clone(), 7, &page(10));
        assert_eq!(cache.size(), (bytes - each + 10, count));
        assert_eq!(cache.get(&last).map(|(v, _)| v), Some(7));
    }
}
