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
