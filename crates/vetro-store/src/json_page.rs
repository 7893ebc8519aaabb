//! Pages of a listing written as JSON by the database itself: one query
//! answers one row holding the page's items as a JSON array, whether more
//! items follow, and the id of the page's last item. The busiest answers of
//! the API are passed on as they come, without a row, a value or an
//! allocation per item on the way (SQLite's `json_object` /
//! `json_group_array`, PostgreSQL's `json_build_object` / `json_agg`).

use crate::page::PageRequest;
use crate::{row, Backend, Result, Store};

/// How a column becomes a JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text as a string, integers as numbers, `NULL` as `null`.
    Plain,
    /// Text holding JSON, inserted as that JSON.
    Json,
    /// An integer flag (0 or 1) as `false` or `true`.
    Flag,
}

/// One member of every item: its JSON key and the SQL expression of its
/// value, over the listing's row (named `p`, with every column of the
/// listing's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub key: &'static str,
    pub expr: &'static str,
    pub kind: Kind,
}

impl Field {
    pub const fn plain(key: &'static str, expr: &'static str) -> Field {
        Field {
            key,
            expr,
            kind: Kind::Plain,
        }
    }
    pub const fn json(key: &'static str, expr: &'static str) -> Field {
        Field {
            key,
            expr,
            kind: Kind::Json,
        }
    }
    pub const fn flag(key: &'static str, expr: &'static str) -> Field {
        Field {
            key,
            expr,
            kind: Kind::Flag,
        }
    }
}

/// A page as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonPage {
    /// The items, a JSON array.
    pub items: String,
    /// The id of the page's last item, when more items follow it.
    pub next_marker: Option<String>,
}

/// What one listing reads: `SELECT ... FROM {from} t WHERE {filter} ORDER BY
/// {order}`, its bound values in `$1...` order, and its id column. `order`
/// names bare columns of `from` (it also orders the page's items).
pub(crate) struct Listing<'a> {
    pub from: &'a str,
    pub filter: String,
    pub binds: Vec<String>,
    /// `created, id` or `created DESC, id DESC`: the page's order.
    pub order: std::borrow::Cow<'a, str>,
    pub id: &'a str,
}

impl Store {
    /// The page `page` of `listing`, each item an object of `fields`.
    pub(crate) async fn json_page(
        &self,
        listing: &Listing<'_>,
        fields: &[Field],
        page: &PageRequest,
    ) -> Result<JsonPage> {
        let limit = page.fetch() - 1;
        let object = self.json_object(fields);
        let order = &listing.order;
        let rows = |what: &str, tail: &str| {
            format!(
                "SELECT {what} FROM {} t WHERE {} ORDER BY {order} {tail}",
                listing.from, listing.filter
            )
        };
        let items = match self.backend() {
            Backend::Sqlite => format!("json_group_array({object} ORDER BY {order})"),
            Backend::Postgres => {
                format!("COALESCE(json_agg({object} ORDER BY {order}), '[]'::json)::text")
            }
        };
        // Three index walks: the page, its last id, and whether one more follows.
        let sql = format!(
            "SELECT (SELECT {items} FROM ({}) p) AS items, ({}) AS last_id, ({}) AS after_last",
            rows("*", &format!("LIMIT {limit}")),
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

    /// The JSON object of one item.
    fn json_object(&self, fields: &[Field]) -> String {
        let members: Vec<String> = fields
            .iter()
            .map(|f| {
                let v = f.expr;
                let value = match (self.backend(), f.kind) {
                    (_, Kind::Plain) => v.to_string(),
                    (Backend::Sqlite, Kind::Json) => format!("json({v})"),
                    (Backend::Postgres, Kind::Json) => format!("({v})::json"),
                    (Backend::Sqlite, Kind::Flag) => {
                        format!("CASE WHEN {v} <> 0 THEN json('true') ELSE json('false') END")
                    }
                    (Backend::Postgres, Kind::Flag) => format!("({v} <> 0)"),
                };
                format!("'{}', {value}", f.key)
            })
            .collect();
        let function = match self.backend() {
            Backend::Sqlite => "json_object",
            Backend::Postgres => "json_build_object",
        };
        format!("{function}({})", members.join(", "))
    }
}
