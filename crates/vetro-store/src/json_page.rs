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

use crate::page::PageRequest;
use crate::{row, Backend, Result, Store};

/// A page as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonPage {
    /// The items, a JSON array.
    pub items: String,
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
        let mut q = sqlx::query(&sql);
        for b in &listing.binds {
            q = q.bind(b);
        }
        let r = q.fetch_one(self.reader()).await?;
        let more = row::opt_text(&r, "after_last")?.is_some();
        Ok(JsonPage {
            items: row::text(&r, "items")?,
            next_marker: if more {
                row::opt_text(&r, "last_id")?
            } else {
                None
            },
        })
    }
}
