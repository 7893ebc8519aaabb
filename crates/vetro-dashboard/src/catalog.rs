//! The catalog: package cards with search and a category filter, a package
//! page, importing a package archive, and the administrators' controls
//! (publish, enable, delete, categories).

use crate::api::{ctx_for, query, state, text, ApiResult};
use crate::assets::PLACEHOLDER_LOGO;
use crate::page::{after, clip, csrf, layout, Nav, PageResult};
use crate::session::{Posted, User};
use crate::Dashboard;
use axum::body::Body;
use axum::extract::{FromRequest, Multipart, Path, Query, Request};
use axum::http::{header, Method};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use serde_json::{json, Value};
use std::collections::HashMap;
use vetro_server::body::JsonBody;
use vetro_server::error::ApiError;
use vetro_server::extract::P;
use vetro_server::routes::catalog as api_catalog;

/// Cards per page.
const PAGE: &str = "60";

fn chips(items: &Value) -> Markup {
    html! {
        @if let Some(list) = items.as_array().filter(|l| !l.is_empty()) {
            ul.chips { @for t in list { li { (t.as_str().unwrap_or_default()) } } }
        }
    }
}

fn card(p: &Value) -> Markup {
    let id = text(p, "id");
    html! {
        li.card {
            img src={"/catalog/" (id) "/logo"} alt="" loading="lazy" width="56" height="56";
            div {
                h2 { a href={"/catalog/" (id)} { (text(p, "name")) } }
                p.help { (text(p, "fully_qualified_name")) " " (text(p, "version")) }
                p { (clip(text(p, "description"), 200)) }
                (chips(&p["categories"]))
                (chips(&p["tags"]))
                @if p["is_public"].as_bool() == Some(true) { span.badge.plain { "public" } }
                @if p["enabled"].as_bool() == Some(false) { " " span.badge.warn { "disabled" } }
            }
        }
    }
}

async fn category_names(dash: &Dashboard, user: &User) -> ApiResult<Vec<String>> {
    let v = api_catalog::categories(state(dash), user.ctx.clone())
        .await?
        .0;
    Ok(v.categories.into_iter().map(|c| c.name).collect())
}

fn import_form(user: &User, categories: &[String]) -> Markup {
    html! {
        section aria-labelledby="import-title" {
            h2 #import-title { "Import a package" }
            form method="post" action="/catalog/import" enctype="multipart/form-data" {
                (csrf(user))
                label for="package" { "Package archive (.zip)" }
                input #package type="file" name="package" accept=".zip,application/zip" required;
                @if !categories.is_empty() {
                    label for="import-category" { "Categories" }
                    select #import-category name="category" multiple size="3" {
                        @for c in categories { option value=(c) { (c) } }
                    }
                }
                @if user.is_admin() {
                    label.inline { input type="checkbox" name="is_public" value="true"; "Public (every project sees it)" }
                }
                p { button type="submit" { "Import" } }
            }
        }
    }
}

pub async fn list(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    user: User,
    Query(q): Query<HashMap<String, String>>,
) -> PageResult {
    let words = q.get("q").map(String::as_str).unwrap_or_default();
    let category = q.get("category").map(String::as_str).unwrap_or_default();
    let marker = q.get("marker").map(String::as_str).unwrap_or_default();
    let found = api_catalog::search(
        state(&dash),
        user.ctx.clone(),
        query(&[
            ("search", words),
            ("category", category),
            ("marker", marker),
            ("limit", PAGE),
            (
                "include_disabled",
                if user.is_admin() { "true" } else { "" },
            ),
        ]),
    )
    .await?;
    let found = serde_json::to_value(found).unwrap_or(Value::Null);
    let categories = category_names(&dash, &user).await?;
    let packages = found["packages"].as_array().cloned().unwrap_or_default();
    let next = found["next_marker"].as_str().map(|m| {
        format!(
            "/catalog?q={}&category={}&marker={}",
            urlencode(words),
            urlencode(category),
            urlencode(m)
        )
    });
    let body = html! {
        form.filters method="get" action="/catalog" role="search" {
            div {
                label for="q" { "Search" }
                input #q type="search" name="q" value=(words) placeholder="name, tag, description…";
            }
            div {
                label for="category" { "Category" }
                select #category name="category" {
                    option value="" { "All categories" }
                    @for c in &categories { option value=(c) selected[c == category] { (c) } }
                }
            }
            button type="submit" { "Filter" }
            @if user.is_admin() { a.button.secondary href="/categories" { "Categories" } }
        }
        @if packages.is_empty() {
            p { "No packages match." }
        } @else {
            ul.cards { @for p in &packages { (card(p)) } }
        }
        @if let Some(n) = next { p { a.button.secondary href=(n) rel="next" { "More packages" } } }
        (import_form(&user, &categories))
    };
    Ok(layout("Catalog", &user, Nav::Catalog, body))
}

/// Query-string escaping for the few links built here.
fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn admin_controls(user: &User, p: &Value, categories: &[String]) -> Markup {
    let id = text(p, "id");
    let public = p["is_public"].as_bool() == Some(true);
    let enabled = p["enabled"].as_bool() != Some(false);
    let mine: Vec<&str> = p["categories"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    html! {
        section aria-labelledby="manage-title" {
            h2 #manage-title { "Manage" }
            div.actions {
                @if user.is_admin() {
                    form method="post" action={"/catalog/" (id) "/publish"} {
                        (csrf(user))
                        input type="hidden" name="public" value=(if public { "false" } else { "true" });
                        button.secondary type="submit" { (if public { "Unpublish" } else { "Publish" }) }
                    }
                }
                form method="post" action={"/catalog/" (id) "/enable"} {
                    (csrf(user))
                    input type="hidden" name="enabled" value=(if enabled { "false" } else { "true" });
                    button.secondary type="submit" { (if enabled { "Disable" } else { "Enable" }) }
                }
                form method="post" action={"/catalog/" (id) "/delete"} {
                    (csrf(user))
                    button.danger type="submit" data-confirm="Delete this package?" { "Delete" }
                }
            }
            @if !categories.is_empty() {
                form method="post" action={"/catalog/" (id) "/enable"} {
                    (csrf(user))
                    input type="hidden" name="set_categories" value="true";
                    label for="pkg-categories" { "Categories" }
                    select #pkg-categories name="category" multiple size="4" {
                        @for c in categories { option value=(c) selected[mine.contains(&c.as_str())] { (c) } }
                    }
                    p { button.secondary type="submit" { "Save categories" } }
                }
            }
        }
    }
}

pub async fn show(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    user: User,
    Path(id): Path<String>,
) -> PageResult {
    let p = crate::api::value(
        api_catalog::show(state(&dash), user.ctx.clone(), P(id.clone()))
            .await?
            .0,
    );
    let categories = category_names(&dash, &user).await?;
    let classes = p["class_definitions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // The manifest's `Require:`, read from the stored archive.
    let requires = crate::classes::parsed(&dash, &id)
        .await
        .map(|pkg| pkg.requires)
        .unwrap_or_default();
    let owner = text(&p, "owner_id") == user.ctx.project() || user.is_admin();
    let envs = vetro_server::routes::environments::list(
        state(&dash),
        user.ctx.clone(),
        query(&[("limit", "1000")]),
    )
    .await?;
    let envs = serde_json::to_value(envs).unwrap_or(Value::Null);
    let body = html! {
        div.card {
            img src={"/catalog/" (id) "/logo"} alt="" width="56" height="56";
            div {
                p { (text(&p, "description")) }
                (chips(&p["categories"]))
                (chips(&p["tags"]))
            }
        }
        dl.facts {
            dt { "Full name" } dd { (text(&p, "fully_qualified_name")) }
            dt { "Version" } dd { (text(&p, "version")) }
            dt { "Type" } dd { (text(&p, "type")) }
            dt { "Author" } dd { (text(&p, "author")) }
            dt { "Public" } dd { (if p["is_public"].as_bool() == Some(true) { "yes" } else { "no" }) }
            dt { "Classes" } dd { ul { @for c in &classes { li { code { (c.as_str().unwrap_or_default()) } } } } }
            dt { "Requires" } dd {
                @if requires.is_empty() { "No other packages" }
                ul {
                    @for (name, version) in &requires {
                        li {
                            a href={"/catalog?q=" (urlencode(name))} { code { (name) } }
                            @if let Some(v) = version { " " (v) }
                        }
                    }
                }
            }
        }
        @if text(&p, "type") == "Application" {
            section aria-labelledby="add-title" {
                h2 #add-title { "Add to an environment" }
                @let list = envs["environments"].as_array().cloned().unwrap_or_default();
                @if list.is_empty() {
                    p { a href="/environments" { "Create an environment" } " first." }
                } @else {
                    form method="get" action="/add-component" {
                        input type="hidden" name="package" value=(id);
                        label for="add-env" { "Environment" }
                        select #add-env name="env" {
                            @for e in &list { option value=(text(e, "id")) { (text(e, "name")) } }
                        }
                        p { button type="submit" { "Open its form" } }
                    }
                }
            }
        }
        @if owner { (admin_controls(&user, &p, &categories)) }
    };
    Ok(layout(text(&p, "name"), &user, Nav::Catalog, body))
}

/// The package's logo with its sniffed type; the placeholder when it has none.
pub async fn logo(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    user: User,
    Path(id): Path<String>,
) -> Response {
    let found = match vetro_server::scope::package(&dash.app, &user.ctx, &id).await {
        Ok(p) => dash
            .app
            .store
            .package_file(&p.id, vetro_store::catalog::PackageFile::Logo)
            .await
            .ok()
            .flatten(),
        Err(_) => None,
    };
    let (kind, body) = match found.as_deref().and_then(image_type) {
        Some(kind) => (kind, Body::from(found.unwrap_or_default())),
        None => ("image/svg+xml", Body::from(PLACEHOLDER_LOGO)),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "private, max-age=300"),
            // An SVG logo opened on its own runs nothing and loads nothing.
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            ),
        ],
        body,
    )
        .into_response()
}

/// The image type of a logo's bytes, or `None` for anything else.
fn image_type(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if b.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF8") {
        Some("image/gif")
    } else {
        let head = String::from_utf8_lossy(&b[..b.len().min(512)]).to_ascii_lowercase();
        head.contains("<svg").then_some("image/svg+xml")
    }
}

/// The import form's parts.
struct Upload {
    csrf: String,
    archive: Option<(String, Vec<u8>)>,
    categories: Vec<String>,
    public: bool,
}

async fn read_upload(mut mp: Multipart) -> Result<Upload, ApiError> {
    let mut u = Upload {
        csrf: String::new(),
        archive: None,
        categories: Vec::new(),
        public: false,
    };
    let bad = |e: axum::extract::multipart::MultipartError| ApiError::bad_request(e.body_text());
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or_default().to_string();
        let file = field.file_name().map(str::to_string);
        let data = field.bytes().await.map_err(bad)?;
        match (name.as_str(), file) {
            ("package", Some(f)) if !data.is_empty() => u.archive = Some((f, data.to_vec())),
            ("_csrf", _) => u.csrf = String::from_utf8_lossy(&data).into_owned(),
            ("category", _) => u
                .categories
                .push(String::from_utf8_lossy(&data).into_owned()),
            ("is_public", _) => u.public = data.as_ref() == b"true",
            _ => {}
        }
    }
    Ok(u)
}

/// The API's upload request for an archive and its metadata.
fn upload_request(file: &str, archive: Vec<u8>, meta: &Value) -> Request {
    let boundary = crate::session::random_token();
    let mut body = Vec::with_capacity(archive.len() + 512);
    let safe_name: String = file
        .chars()
        .filter(|c| c.is_ascii_graphic() && *c != '"')
        .collect();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"__metadata__\"\r\n\
             Content-Type: application/json\r\n\r\n{meta}\r\n--{boundary}\r\n\
             Content-Disposition: form-data; name=\"file\"; filename=\"{safe_name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(&archive);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let mut req = Request::new(Body::from(body));
    if let Ok(v) = format!("multipart/form-data; boundary={boundary}").parse() {
        req.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    req
}

pub async fn import(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    user: User,
    mp: Multipart,
) -> Response {
    let u = match read_upload(mp).await {
        Ok(u) => u,
        Err(e) => return after(&user, "/catalog", Err::<(), _>(e), ""),
    };
    if let Err(e) = user.check_csrf(Some(&u.csrf)) {
        return e.into_response();
    }
    let Some((file, archive)) = u.archive else {
        return after(
            &user,
            "/catalog",
            Err::<(), _>(ApiError::bad_request("Choose a package archive to import.")),
            "",
        );
    };
    let meta = json!({"categories": u.categories, "is_public": u.public});
    let r = async {
        let mp = Multipart::from_request(upload_request(&file, archive, &meta), &())
            .await
            .map_err(|e| ApiError::bad_request(e.body_text()))?;
        api_catalog::upload(
            state(&dash),
            ctx_for(&user, Method::POST, "/v1/catalog/packages")?,
            mp,
        )
        .await
    }
    .await;
    match r {
        Ok(p) => {
            user.flash(true, format!("Imported {}.", p.0.name));
            Redirect::to(&format!("/catalog/{}", p.0.id)).into_response()
        }
        Err(e) => {
            let details = e
                .details
                .as_ref()
                .map(|d| format!("\n{}", serde_json::to_string_pretty(d).unwrap_or_default()))
                .unwrap_or_default();
            user.flash(false, format!("{}{details}", e.message));
            Redirect::to("/catalog").into_response()
        }
    }
}

async fn patch(dash: &Dashboard, user: &User, id: &str, ops: Value) -> ApiResult {
    let ctx = ctx_for(user, Method::PATCH, "/v1/catalog/packages/{package_id}")?;
    Ok(crate::api::value(
        api_catalog::update(
            state(dash),
            ctx,
            P(id.to_string()),
            JsonBody::from_value(ops)?,
        )
        .await?
        .0,
    ))
}

pub async fn publish(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    Path(id): Path<String>,
    p: Posted,
) -> Response {
    let public = p.fields.text("public") == "true";
    let r = patch(
        &dash,
        &p.user,
        &id,
        json!([{"op": "replace", "path": "/is_public", "value": public}]),
    )
    .await;
    let done = if public { "Published." } else { "Unpublished." };
    after(&p.user, &format!("/catalog/{id}"), r, done)
}

/// Enables or disables a package, or sets its categories.
pub async fn enable(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    Path(id): Path<String>,
    p: Posted,
) -> Response {
    let (ops, done) = if p.fields.text("set_categories") == "true" {
        let cats = p.fields.all("category");
        (
            json!([{"op": "replace", "path": "/categories", "value": cats}]),
            "Categories saved.",
        )
    } else {
        let on = p.fields.text("enabled") == "true";
        (
            json!([{"op": "replace", "path": "/enabled", "value": on}]),
            if on { "Enabled." } else { "Disabled." },
        )
    };
    let r = patch(&dash, &p.user, &id, ops).await;
    after(&p.user, &format!("/catalog/{id}"), r, done)
}

pub async fn delete(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    Path(id): Path<String>,
    p: Posted,
) -> Response {
    let r = match ctx_for(&p.user, Method::DELETE, "/v1/catalog/packages/{package_id}") {
        Ok(ctx) => api_catalog::delete(state(&dash), ctx, P(id.clone())).await,
        Err(e) => Err(e),
    };
    match r {
        Ok(_) => after(
            &p.user,
            "/catalog",
            Ok::<(), ApiError>(()),
            "Package deleted.",
        ),
        Err(e) => after(&p.user, &format!("/catalog/{id}"), Err::<(), _>(e), ""),
    }
}

pub async fn categories(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    user: User,
) -> PageResult {
    let v = api_catalog::categories(state(&dash), user.ctx.clone())
        .await?
        .0;
    let list = crate::api::value(v)["categories"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let body = html! {
        div.table-wrap { table {
            thead { tr { th scope="col" { "Category" } th scope="col" { "Packages" } @if user.is_admin() { th scope="col" { span.skip { "Actions" } } } } }
            tbody {
                @for c in &list {
                    tr {
                        td { a href={"/catalog?category=" (urlencode(text(c, "name")))} { (text(c, "name")) } }
                        td { (c["package_count"].as_i64().unwrap_or(0)) }
                        @if user.is_admin() {
                            td { form method="post" action={"/categories/" (text(c, "id")) "/delete"} {
                                (csrf(&user))
                                button.danger type="submit" aria-label={"Delete category " (text(c, "name"))} { "Delete" }
                            } }
                        }
                    }
                }
            }
        } }
        @if user.is_admin() {
            section {
                h2 { "Add a category" }
                form method="post" action="/categories" {
                    (csrf(&user))
                    label for="cat-name" { "Name" }
                    input #cat-name type="text" name="name" required maxlength="80";
                    p { button type="submit" { "Add" } }
                }
            }
        }
    };
    Ok(layout("Categories", &user, Nav::Catalog, body))
}

pub async fn add_category(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    p: Posted,
) -> Response {
    let body = JsonBody::from_value(json!({"name": p.fields.text("name")}));
    let r = match (
        ctx_for(&p.user, Method::POST, "/v1/catalog/categories"),
        body,
    ) {
        (Ok(ctx), Ok(body)) => api_catalog::add_category(state(&dash), ctx, body).await,
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    after(&p.user, "/categories", r, "Category added.")
}

pub async fn delete_category(
    axum::extract::State(dash): axum::extract::State<Dashboard>,
    Path(id): Path<String>,
    p: Posted,
) -> Response {
    let r = match ctx_for(
        &p.user,
        Method::DELETE,
        "/v1/catalog/categories/{category_id}",
    ) {
        Ok(ctx) => api_catalog::delete_category(state(&dash), ctx, P(id)).await,
        Err(e) => Err(e),
    };
    after(&p.user, "/categories", r, "Category deleted.")
}
