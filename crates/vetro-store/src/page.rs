//! Pages of a listing, as Murano paged its catalog: at most `limit` items
//! after the item whose id is `marker`, in the listing's fixed order (keyset
//! pagination, so a page costs the same wherever it starts). The API says
//! there is more with `next_marker`, the id of the page's last item.

/// Which page to read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageRequest {
    /// Most items on the page (at least 1).
    pub limit: u64,
    /// The id of the last item of the previous page; `None` for the first page.
    pub marker: Option<String>,
}

impl PageRequest {
    /// The first page of at most `limit` items.
    pub fn first(limit: u64) -> PageRequest {
        PageRequest {
            limit,
            marker: None,
        }
    }

    /// The rows to fetch: one more than the page, to learn whether more follow.
    pub(crate) fn fetch(&self) -> i64 {
        i64::try_from(self.limit.max(1))
            .unwrap_or(i64::MAX - 1)
            .saturating_add(1)
    }
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// More items follow the last one.
    pub more: bool,
}

impl<T> Page<T> {
    /// The page from rows fetched with [`PageRequest::fetch`].
    pub(crate) fn from_fetched(mut items: Vec<T>, req: &PageRequest) -> Page<T> {
        let limit = usize::try_from(req.limit.max(1)).unwrap_or(usize::MAX);
        let more = items.len() > limit;
        items.truncate(limit);
        Page { items, more }
    }
}

impl crate::Store {
    /// The version of what the lists of `project_id` show: it changes with
    /// every write to the project's environments and deployments (and the
    /// errors and warnings of its deployments), and to templates, packages
    /// and their categories, which every project may see. Triggers raise
    /// it in the writing transaction, whichever process writes (on
    /// PostgreSQL at commit), so a page read after this version was read
    /// is at least as new as it: a caller may keep the page and answer it
    /// again while the version stands.
    pub async fn list_version(&self, project_id: &str) -> crate::Result<i64> {
        // Two counters, the project's and the shared one (`'*'`), summed:
        // both only grow, so the sum changes exactly when one of them does.
        let r = sqlx::query(
            "SELECT COALESCE((SELECT v.version FROM list_versions v WHERE v.scope = $1), 0) \
             + COALESCE((SELECT v.version FROM list_versions v WHERE v.scope = '*'), 0) AS version",
        )
        .bind(project_id)
        .fetch_one(self.reader())
        .await?;
        crate::row::int(&r, "version")
    }
}
