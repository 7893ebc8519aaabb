//! `/v1/catalog/packages`: upload, search, show, update, delete, files.

use crate::access::Privilege;
use crate::auth::Ctx;
use crate::body::{from_value, parse_json, JsonBody};
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::kept::Kept;
use crate::package;
use crate::requests::{CategoryCreate, PackagePatchOp, PackageUpload, PatchKind};
use crate::scope;
use crate::state::AppState;
use crate::views::{
    CategoryDetail, CategoryList, CategoryView, Done, PackageList, PackageName, PackageView,
};
use axum::extract::{Multipart, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use vetro_store::catalog::{NewPackage, Package, PackageFile};
use vetro_store::search::{PackageOrder, PackageQuery};

/// Values of a repeatable filter; `in:a,b` lists several in one.
fn multi(q: &QueryPairs, key: &str) -> Vec<String> {
    q.all(key)
        .into_iter()
        .flat_map(|v| match v.strip_prefix("in:") {
            Some(list) => list.split(',').map(str::to_string).collect::<Vec<_>>(),
            None => vec![v.to_string()],
        })
        .collect()
}

#[utoipa::path(get, path = "/v1/catalog/packages", tag = "catalog",
    params(
        ("search" = Option<String>, Query, description = "Words (comma-separated) matched in name, FQN, description, categories, tags, classes, author"),
        ("category" = Option<Vec<String>>, Query), ("tag" = Option<Vec<String>>, Query), ("id" = Option<Vec<String>>, Query),
        ("type" = Option<String>, Query, description = "Application or Library"),
        ("fqn" = Option<String>, Query), ("name" = Option<String>, Query), ("class_name" = Option<String>, Query),
        ("owned" = Option<bool>, Query), ("include_disabled" = Option<bool>, Query),
        ("catalog" = Option<bool>, Query, description = "Only packages the caller can deploy"),
        ("order_by" = Option<String>, Query, description = "fqn, name or created"),
        ("sort_dir" = Option<String>, Query, description = "asc or desc"),
        ("marker" = Option<String>, Query), ("limit" = Option<u32>, Query, description = "1..100, default 20")),
    responses((status = 200, description = "`{\"packages\": [...], \"next_marker\"?}`", body = PackageList)))]
pub async fn search(
    State(st): State<AppState>,
    ctx: Ctx,
    q: QueryPairs,
) -> ApiResult<Kept<PackageList>> {
    // Every caller sees its own and public packages, which is all that
    // `catalog=true` (what the caller can deploy) asks for; the flag is checked only.
    q.flag("catalog")?;
    let page = crate::paging::PACKAGES.request(&q)?;
    let query = package_query(&q, ctx.project())?;
    let key = format!("{query:?}\0{page:?}");
    let read = async {
        let found = st.store.search_packages(&query, &page).await?;
        Ok(PackageList::from(found))
    };
    st.pages.page(&st.store, ctx.project(), key, read).await
}

/// The search a request's parameters ask for, as Murano's catalog read them.
fn package_query(q: &QueryPairs, project: &str) -> ApiResult<PackageQuery> {
    let order_by = multi(q, "order_by")
        .iter()
        .map(|o| {
            PackageOrder::parse(o).ok_or_else(|| {
                ApiError::bad_request(format!("cannot order by '{o}': use fqn, name or created"))
            })
        })
        .collect::<ApiResult<Vec<_>>>()?;
    let descending = match q.get("sort_dir") {
        None | Some("asc") => false,
        Some("desc") => true,
        Some(o) => {
            return Err(ApiError::bad_request(format!(
                "'sort_dir' must be asc or desc, not '{o}'"
            )))
        }
    };
    // Murano's `type.title()`: `application` and `APPLICATION` mean `Application`.
    let kind = q.get("type").map(|t| {
        let mut c = t.to_lowercase();
        if let Some(f) = c.get_mut(0..1) {
            f.make_ascii_uppercase();
        }
        c
    });
    let words = q
        .get("search")
        .map(|s| {
            s.split([',', ';'])
                .map(|w| w.trim().to_lowercase())
                .filter(|w| !w.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let text = |key: &str| q.get(key).map(str::to_string);
    Ok(PackageQuery {
        project_id: project.to_string(),
        include_disabled: q.flag("include_disabled")?,
        owned: q.flag("owned")?,
        kind,
        ids: multi(q, "id"),
        categories: multi(q, "category"),
        tags: multi(q, "tag"),
        class_name: text("class_name"),
        fqn: text("fqn"),
        name: text("name"),
        words,
        order_by,
        descending,
    })
}

/// The upload's parts: the archive and the optional `__metadata__` JSON.
async fn read_upload(mut mp: Multipart) -> ApiResult<PackageUpload> {
    let mut archive = None;
    let mut metadata = None;
    let bad = |e: axum::extract::multipart::MultipartError| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large("the package upload is too large")
        } else {
            ApiError::bad_request(format!("malformed multipart body: {}", e.body_text()))
        }
    };
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let is_file = field.file_name().is_some();
        let name = field.name().unwrap_or_default().to_string();
        let data = field.bytes().await.map_err(bad)?;
        if is_file {
            if archive.is_some() {
                return Err(ApiError::bad_request(
                    "upload exactly one package archive per request",
                ));
            }
            archive = Some(data.to_vec());
        } else if name == "__metadata__" {
            metadata = from_value(&parse_json(&data)?, "__metadata__")?;
        }
    }
    let file =
        archive.ok_or_else(|| ApiError::bad_request("the upload has no package file part"))?;
    Ok(PackageUpload { file, metadata })
}

#[utoipa::path(post, path = "/v1/catalog/packages", tag = "catalog",
    request_body(content = PackageUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "The new package", body = PackageView)))]
pub async fn upload(
    State(st): State<AppState>,
    ctx: Ctx,
    mp: Multipart,
) -> ApiResult<Json<PackageView>> {
    let PackageUpload {
        file: archive,
        metadata,
    } = read_upload(mp).await?;
    let meta = metadata.unwrap_or_default();
    let is_public = meta.is_public.unwrap_or(false);
    if is_public {
        ctx.require(Privilege::Publish)?;
    }
    crate::quota::package(&st, &ctx).await?;
    let limits = st.limits.clone();
    let inspected = tokio::task::spawn_blocking(move || {
        package::inspect(&archive, &limits).map(|i| (i, archive))
    })
    .await
    .map_err(|_| ApiError::unavailable("the package check did not finish"))??;
    let (i, archive) = inspected;
    let visible = st.store.list_packages(Some(ctx.project())).await?;
    package::missing_requirements(&i.fqn, &i.requires, &visible)?;
    let new = NewPackage {
        meta: Package {
            id: String::new(),
            owner_id: ctx.project().to_string(),
            fully_qualified_name: i.fqn,
            name: meta.name.unwrap_or(i.name),
            kind: i.package_type,
            version: i.version,
            author: i.author,
            supplier: i
                .supplier
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({})),
            description: meta.description.unwrap_or(i.description),
            enabled: meta.enabled.unwrap_or(true),
            is_public,
            tags: meta.tags.unwrap_or(i.tags),
            categories: meta.categories.unwrap_or_default(),
            class_definitions: i.class_names,
            created: String::new(),
            updated: String::new(),
        },
        archive,
        logo: i.logo,
        supplier_logo: i.supplier_logo,
        ui_definition: i.ui,
    };
    let p = st.store.insert_package(&new).await?;
    Ok(Json(PackageView::from(p)))
}

#[utoipa::path(get, path = "/v1/catalog/packages/{package_id}", tag = "catalog",
    params(("package_id" = String, Path)),
    responses((status = 200, description = "The package", body = PackageView)))]
pub async fn show(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<PackageView>> {
    Ok(Json(PackageView::from(
        scope::package(&st, &ctx, &id).await?,
    )))
}

/// Applies one Murano package patch operation.
fn apply_op(p: &mut Package, op: PackagePatchOp) -> ApiResult<()> {
    let PackagePatchOp {
        op: kind,
        path,
        value,
    } = op;
    let field = path.strip_prefix('/').unwrap_or(&path);
    if field.contains('/') || field.is_empty() {
        return Err(ApiError::forbidden(format!(
            "the path '{path}' cannot be changed: nested and empty paths are not allowed"
        )));
    }
    use PatchKind::{Add, Remove, Replace};
    match (field, kind) {
        ("categories" | "tags", Add | Replace | Remove) => {
            let items: Vec<String> = match value {
                Value::Null => Vec::new(),
                v => serde_json::from_value(v).map_err(|_| {
                    ApiError::bad_request(format!("'{field}' must be a list of strings"))
                })?,
            };
            let target = if field == "tags" { &mut p.tags } else { &mut p.categories };
            match kind {
                Add => items.into_iter().for_each(|i| if !target.contains(&i) { target.push(i) }),
                Replace => *target = items,
                _ => target.retain(|t| !items.contains(t)),
            }
        }
        ("is_public" | "enabled", Replace) => {
            let b = value.as_bool().ok_or_else(|| ApiError::bad_request(format!("'{field}' must be true or false")))?;
            if field == "is_public" { p.is_public = b } else { p.enabled = b }
        }
        ("name" | "description", Replace) => {
            let s = value.as_str().ok_or_else(|| ApiError::bad_request(format!("'{field}' must be a string")))?;
            if field == "name" {
                if s.trim().is_empty() || s.chars().count() > 80 {
                    return Err(ApiError::bad_request("'name' must have 1 to 80 characters"));
                }
                p.name = s.to_string();
            } else {
                p.description = s.to_string();
            }
        }
        _ => {
            return Err(ApiError::forbidden(format!(
                "operation '{}' on '{path}' is not allowed: change categories and tags (add, replace, remove) or is_public, enabled, name, description (replace)",
                kind.as_str()
            )))
        }
    }
    Ok(())
}

#[utoipa::path(patch, path = "/v1/catalog/packages/{package_id}", tag = "catalog",
    params(("package_id" = String, Path)),
    request_body(content = Vec<PackagePatchOp>, content_type = "application/murano-packages-json-patch"),
    responses((status = 200, description = "The updated package", body = PackageView)))]
pub async fn update(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(ops): JsonBody<Vec<PackagePatchOp>>,
) -> ApiResult<Json<PackageView>> {
    let mut p = scope::own_package(&st, &ctx, &id).await?;
    let was_public = p.is_public;
    for op in ops {
        apply_op(&mut p, op)?;
    }
    if p.is_public || was_public {
        ctx.require(Privilege::Publish)?;
    }
    Ok(Json(PackageView::from(st.store.update_package(&p).await?)))
}

#[utoipa::path(delete, path = "/v1/catalog/packages/{package_id}", tag = "catalog",
    params(("package_id" = String, Path)), responses((status = 200, description = "Deleted", body = Done)))]
pub async fn delete(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<Done>> {
    let p = scope::own_package(&st, &ctx, &id).await?;
    if p.is_public {
        ctx.require(Privilege::Publish)?;
    }
    st.store.delete_package(&p.id).await?;
    Ok(Json(Done))
}

async fn file(
    st: &AppState,
    ctx: &Ctx,
    id: &str,
    which: PackageFile,
    what: &str,
) -> ApiResult<Vec<u8>> {
    let p = scope::package(st, ctx, id).await?;
    st.store
        .package_file(&p.id, which)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("package {id} has no {what}")))
}

#[utoipa::path(get, path = "/v1/catalog/packages/{package_id}/download", tag = "catalog",
    params(("package_id" = String, Path)),
    responses((status = 200, description = "The zip archive", content_type = "application/octet-stream", body = Vec<u8>)))]
pub async fn download(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Response> {
    let bytes = file(&st, &ctx, &id, PackageFile::Archive, "archive").await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}

#[utoipa::path(get, path = "/v1/catalog/packages/{package_id}/ui", tag = "catalog",
    params(("package_id" = String, Path)),
    responses((status = 200, description = "The UI definition (YAML)", content_type = "text/plain", body = String)))]
pub async fn ui(State(st): State<AppState>, ctx: Ctx, P(id): P<String>) -> ApiResult<Response> {
    let bytes = file(&st, &ctx, &id, PackageFile::Ui, "UI definition").await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], bytes).into_response())
}

#[utoipa::path(get, path = "/v1/catalog/packages/{package_id}/logo", tag = "catalog",
    params(("package_id" = String, Path)),
    responses((status = 200, description = "The logo", content_type = "application/octet-stream", body = Vec<u8>)))]
pub async fn logo(State(st): State<AppState>, ctx: Ctx, P(id): P<String>) -> ApiResult<Response> {
    let bytes = file(&st, &ctx, &id, PackageFile::Logo, "logo").await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}

#[utoipa::path(get, path = "/v1/catalog/packages/{package_id}/supplier_logo", tag = "catalog",
    params(("package_id" = String, Path)),
    responses((status = 200, description = "The supplier's logo", content_type = "application/octet-stream", body = Vec<u8>)))]
pub async fn supplier_logo(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Response> {
    let bytes = file(&st, &ctx, &id, PackageFile::SupplierLogo, "supplier logo").await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}

#[utoipa::path(get, path = "/v1/catalog/categories", tag = "catalog",
    responses((status = 200, description = "`{\"categories\": [...]}`", body = CategoryList)))]
pub async fn categories(State(st): State<AppState>, _ctx: Ctx) -> ApiResult<Json<CategoryList>> {
    let categories = st.store.list_categories().await?;
    Ok(Json(CategoryList {
        categories: categories.into_iter().map(Into::into).collect(),
    }))
}

#[utoipa::path(post, path = "/v1/catalog/categories", tag = "catalog",
    request_body(content = CategoryCreate, content_type = "application/json"),
    responses((status = 200, description = "The new category (admin only)", body = CategoryView)))]
pub async fn add_category(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody<CategoryCreate>,
) -> ApiResult<Json<CategoryView>> {
    ctx.require(Privilege::ManageCategories)?;
    Ok(Json(CategoryView::from(
        st.store.add_category(body.name.as_str()).await?,
    )))
}

#[utoipa::path(get, path = "/v1/catalog/categories/{category_id}", tag = "catalog",
    params(("category_id" = String, Path)),
    responses((status = 200, description = "The category with the packages the caller can see", body = CategoryDetail)))]
pub async fn category(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<CategoryDetail>> {
    let c = st.store.get_category(&id).await?;
    let ids = st.store.category_package_ids(&c.id).await?;
    let visible = st.store.list_packages(Some(ctx.project())).await?;
    let packages = visible
        .into_iter()
        .filter(|p| ids.contains(&p.id))
        .map(|p| PackageName {
            id: p.id,
            name: p.name,
            fully_qualified_name: p.fully_qualified_name,
        })
        .collect();
    Ok(Json(CategoryDetail {
        category: c.into(),
        packages,
    }))
}

#[utoipa::path(delete, path = "/v1/catalog/categories/{category_id}", tag = "catalog",
    params(("category_id" = String, Path)), responses((status = 200, description = "Deleted (admin only)", body = Done)))]
pub async fn delete_category(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<Done>> {
    ctx.require(Privilege::ManageCategories)?;
    st.store.delete_category(&id).await?;
    Ok(Json(Done))
}
