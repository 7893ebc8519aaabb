//! Catalog search, as Murano's `package_search` did it, in one query: the
//! visibility rule, the filters, the search words ranked by the first field
//! they match, the sort keys and the page, all in SQL, so a page reads only
//! its own packages whatever the size of the catalog.

use crate::catalog::{meta_from_row, Package};
use crate::page::{Page, PageRequest};
use crate::{row, Backend, Result, Store, StoreError};
use std::collections::HashMap;

/// What a catalog search asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackageQuery {
    /// The caller's project: its own packages and public ones are visible.
    pub project_id: String,
    /// Disabled packages too.
    pub include_disabled: bool,
    /// Only the project's own packages.
    pub owned: bool,
    /// `Application` or `Library`.
    pub kind: Option<String>,
    /// Any of these ids (none: any id).
    pub ids: Vec<String>,
    /// In any of these categories (none: any).
    pub categories: Vec<String>,
    /// With any of these tags (none: any).
    pub tags: Vec<String>,
    /// Defining this class.
    pub class_name: Option<String>,
    pub fqn: Option<String>,
    pub name: Option<String>,
    /// Search words, matched case-insensitively as substrings of the
    /// [`SEARCHED`] fields; a package matches when any word matches any
    /// field, and ranks by the first field matched. Empty: no search.
    pub words: Vec<String>,
    /// Sort keys after the rank (none: by name); the id ends every order.
    pub order_by: Vec<PackageOrder>,
    /// Keys and id in descending order (the rank stays ascending).
    pub descending: bool,
}

/// A sort key of the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackageOrder {
    Fqn,
    Name,
    Created,
}

impl PackageOrder {
    /// The key named as the API names it (`fqn`, `name`, `created`).
    pub fn parse(text: &str) -> Option<PackageOrder> {
        match text {
            "fqn" => Some(PackageOrder::Fqn),
            "name" => Some(PackageOrder::Name),
            "created" => Some(PackageOrder::Created),
            _ => None,
        }
    }

    fn column(self) -> &'static str {
        match self {
            PackageOrder::Fqn => "fully_qualified_name",
            PackageOrder::Name => "name",
            PackageOrder::Created => "created",
        }
    }
}

/// The fields search words are matched in, in rank order.
pub const SEARCHED: [&str; 7] = [
    "name",
    "fully_qualified_name",
    "description",
    "categories",
    "tags",
    "class_definitions",
    "author",
];

/// A query's text and its bound values (all text), numbered as they are added.
#[derive(Default)]
struct Sql {
    text: String,
    binds: Vec<String>,
}

impl Sql {
    /// Binds `value`; returns its placeholder.
    fn bind(&mut self, value: impl Into<String>) -> String {
        self.binds.push(value.into());
        format!("${}", self.binds.len())
    }

    /// `(p1, p2, ...)` for `values`.
    fn list(&mut self, values: &[String]) -> String {
        let ps: Vec<String> = values.iter().map(|v| self.bind(v.clone())).collect();
        format!("({})", ps.join(", "))
    }

    fn query(&self) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
        let mut q = sqlx::query(&self.text);
        for b in &self.binds {
            q = q.bind(b);
        }
        q
    }
}

/// `%word%` for LIKE with `\` as the escape character.
fn like_pattern(word: &str) -> String {
    let mut out = String::from("%");
    for c in word.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

impl Store {
    /// Text ordered by code point on both backends (PostgreSQL would
    /// otherwise use the database's locale).
    fn binary(&self, expr: &str) -> String {
        match self.backend() {
            Backend::Sqlite => expr.to_string(),
            Backend::Postgres => format!("{expr} COLLATE \"C\""),
        }
    }

    /// The items of a JSON array column as rows with one text column `value`.
    fn json_items(&self, column: &str) -> String {
        match self.backend() {
            Backend::Sqlite => format!("json_each({column}) AS j"),
            Backend::Postgres => format!("jsonb_array_elements_text({column}::jsonb) AS j(value)"),
        }
    }

    /// `SELECT id, <rank>, <sort keys> FROM packages p WHERE <filters>`: the
    /// packages the query matches, each with its rank (`NULL` when search
    /// words match none of its fields).
    fn matching(&self, q: &PackageQuery, sql: &mut Sql) -> String {
        let mut keys: Vec<&str> = q.order_by.iter().map(|k| k.column()).collect();
        keys.push("id");
        let cols: Vec<String> = keys.iter().map(|c| format!("p.{c}")).collect();
        let rank = self.rank(q, sql);
        let project = sql.bind(q.project_id.clone());
        let mut text = format!(
            "SELECT {}, {rank} AS search_rank FROM packages p \
             WHERE (p.owner_id = {project} OR p.is_public = 1)",
            cols.join(", ")
        );
        if !q.include_disabled {
            text.push_str(" AND p.enabled = 1");
        }
        if q.owned {
            text.push_str(&format!(" AND p.owner_id = {project}"));
        }
        let equal = [
            ("type", &q.kind),
            ("fully_qualified_name", &q.fqn),
            ("name", &q.name),
        ];
        for (col, value) in equal {
            if let Some(v) = value {
                text.push_str(&format!(" AND p.{col} = {}", sql.bind(v.clone())));
            }
        }
        if !q.ids.is_empty() {
            text.push_str(&format!(" AND p.id IN {}", sql.list(&q.ids)));
        }
        if !q.categories.is_empty() {
            let names = sql.list(&q.categories);
            text.push_str(&format!(
                " AND {}",
                self.in_category(&format!("c.name IN {names}"))
            ));
        }
        if !q.tags.is_empty() {
            let tags = sql.list(&q.tags);
            text.push_str(&format!(
                " AND {}",
                self.in_json("p.tags", &format!("j.value IN {tags}"))
            ));
        }
        if let Some(c) = &q.class_name {
            let c = sql.bind(c.clone());
            let cond = format!("j.value = {c}");
            text.push_str(&format!(
                " AND {}",
                self.in_json("p.class_definitions", &cond)
            ));
        }
        text
    }

    /// `EXISTS` a category of `p` where `cond` holds of it (as `c`).
    fn in_category(&self, cond: &str) -> String {
        format!(
            "EXISTS (SELECT 1 FROM package_categories pc JOIN categories c ON c.id = pc.category_id \
             WHERE pc.package_id = p.id AND {cond})"
        )
    }

    /// `EXISTS` an item of the JSON array `column` where `cond` holds of it (as `j.value`).
    fn in_json(&self, column: &str, cond: &str) -> String {
        format!(
            "EXISTS (SELECT 1 FROM {} WHERE {cond})",
            self.json_items(column)
        )
    }

    /// The rank expression: the position in [`SEARCHED`] of the first field
    /// a word matches; 0 for every package when there are no words.
    fn rank(&self, q: &PackageQuery, sql: &mut Sql) -> String {
        if q.words.is_empty() {
            return "CAST(0 AS BIGINT)".into();
        }
        let patterns: Vec<String> = q.words.iter().map(|w| sql.bind(like_pattern(w))).collect();
        let any_word = |expr: &str| {
            let likes: Vec<String> = patterns
                .iter()
                .map(|p| format!("lower({expr}) LIKE {p} ESCAPE '\\'"))
                .collect();
            format!("({})", likes.join(" OR "))
        };
        let whens: Vec<String> = SEARCHED
            .iter()
            .enumerate()
            .map(|(i, field)| {
                let cond = match *field {
                    "categories" => self.in_category(&any_word("c.name")),
                    "tags" | "class_definitions" => {
                        self.in_json(&format!("p.{field}"), &any_word("j.value"))
                    }
                    column => any_word(&format!("p.{column}")),
                };
                format!("WHEN {cond} THEN {i}")
            })
            .collect();
        format!("CAST((CASE {} END) AS BIGINT)", whens.join(" "))
    }

    /// One page of the catalog as `q` asks for it, with the packages'
    /// categories. A `marker` that is not a package of this search is
    /// [`StoreError::Invalid`].
    pub async fn search_packages(
        &self,
        q: &PackageQuery,
        page: &PageRequest,
    ) -> Result<Page<Package>> {
        let (mut sql, order) = self.search_rows(q, page).await?;
        sql.text = format!(
            "SELECT m.id FROM ({}) m ORDER BY {order} LIMIT {}",
            sql.text,
            page.fetch()
        );
        let ids: Vec<String> = sql
            .query()
            .fetch_all(self.reader())
            .await?
            .iter()
            .map(|r| row::text(r, "id"))
            .collect::<Result<_>>()?;
        let items = self.packages_by_ids(&ids).await?;
        Ok(Page::from_fetched(items, page))
    }

    /// The rows of a search after its marker (`id`, `search_rank` and the
    /// sort keys), and their order over those bare columns.
    async fn search_rows(&self, q: &PackageQuery, page: &PageRequest) -> Result<(Sql, String)> {
        let mut q = q.clone();
        if q.order_by.is_empty() {
            q.order_by.push(PackageOrder::Name);
        }
        let mut sql = Sql::default();
        let matching = self.matching(&q, &mut sql);
        let mut text = format!("SELECT * FROM ({matching}) m WHERE m.search_rank IS NOT NULL");
        if let Some(marker) = &page.marker {
            let after = self.after_marker(&q, marker, &mut sql).await?;
            text.push_str(&format!(" AND {after}"));
        }
        let dir = if q.descending { "DESC" } else { "ASC" };
        // Without search words every rank is 0: the page is then an index
        // walk in key order (the indexes of `0010_list_items.sql`).
        let mut order = Vec::new();
        if !q.words.is_empty() {
            order.push("search_rank ASC".to_string());
        }
        for k in q.order_by.iter().map(|k| k.column()).chain(["id"]) {
            order.push(format!("{} {dir}", self.binary(k)));
        }
        sql.text = text;
        Ok((sql, order.join(", ")))
    }

    /// The condition "after the package `marker`" in the search's order,
    /// from the marker's own rank and keys.
    async fn after_marker(&self, q: &PackageQuery, marker: &str, sql: &mut Sql) -> Result<String> {
        let mut probe = Sql::default();
        let matching = self.matching(q, &mut probe);
        let id = probe.bind(marker);
        probe.text =
            format!("SELECT * FROM ({matching}) m WHERE m.search_rank IS NOT NULL AND m.id = {id}");
        let found = probe.query().fetch_optional(self.reader()).await?;
        let Some(r) = found else {
            return Err(StoreError::Invalid(format!(
                "marker '{marker}' is not a package of this listing"
            )));
        };
        let rank = row::int(&r, "search_rank")?;
        let cmp = if q.descending { "<" } else { ">" };
        // (k1, k2, ..., id) after the marker's, as nested "greater, or equal and then".
        let mut after = String::new();
        let keys: Vec<&str> = q
            .order_by
            .iter()
            .map(|k| k.column())
            .chain(["id"])
            .collect();
        for (i, k) in keys.iter().enumerate().rev() {
            let col = self.binary(&format!("m.{k}"));
            let v = sql.bind(row::text(&r, k)?);
            after = if i == keys.len() - 1 {
                format!("{col} {cmp} {v}")
            } else {
                format!("({col} {cmp} {v} OR ({col} = {v} AND {after}))")
            };
        }
        Ok(format!(
            "(m.search_rank > {rank} OR (m.search_rank = {rank} AND {after}))"
        ))
    }

    /// The packages `ids`, in that order, with their categories.
    async fn packages_by_ids(&self, ids: &[String]) -> Result<Vec<Package>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut sql = Sql::default();
        let list = sql.list(ids);
        sql.text = format!(
            "SELECT {} FROM packages WHERE id IN {list}",
            crate::catalog::META_COLUMNS
        );
        let mut by_id: HashMap<String, Package> = HashMap::new();
        for r in sql.query().fetch_all(self.reader()).await? {
            let p = meta_from_row(&r)?;
            by_id.insert(p.id.clone(), p);
        }
        sql.text = format!(
            "SELECT pc.package_id, c.name FROM package_categories pc \
             JOIN categories c ON c.id = pc.category_id WHERE pc.package_id IN {list} \
             ORDER BY {}",
            self.binary("c.name")
        );
        for r in sql.query().fetch_all(self.reader()).await? {
            if let Some(p) = by_id.get_mut(&row::text(&r, "package_id")?) {
                p.categories.push(row::text(&r, "name")?);
            }
        }
        // A package deleted between the two reads is left out.
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::like_pattern;

    #[test]
    fn like_patterns_escape_their_wildcards() {
        assert_eq!(like_pattern("web"), "%web%");
        assert_eq!(like_pattern("50%_a\\b"), "%50\\%\\_a\\\\b%");
    }
}
