//! The page layout, the security headers every answer carries, and error pages.

use crate::assets;
use crate::session::User;
use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup, DOCTYPE};
use vetro_server::error::ApiError;

/// Scripts and styles from this origin only, no inline code, no framing.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
    base-uri 'none'";

/// Middleware: the Content-Security-Policy and related headers; pages are not cached.
pub async fn security_headers(req: Request, next: Next) -> Response {
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(CSP));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    r
}

/// Which part of the site a page belongs to (the highlighted menu entry).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Catalog,
    Environments,
    Templates,
    Policy,
}

const MENU: [(Nav, &str, &str); 4] = [
    (Nav::Environments, "/environments", "Environments"),
    (Nav::Catalog, "/catalog", "Catalog"),
    (Nav::Templates, "/templates", "Templates"),
    (Nav::Policy, "/policy", "Policy"),
];

fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) " · vetro" }
            link rel="stylesheet" href=(assets::CSS_URL);
            script src=(assets::JS_URL) defer {}
        }
    }
}

/// The hidden CSRF field every form carries.
pub fn csrf(user: &User) -> Markup {
    html! { input type="hidden" name="_csrf" value=(user.csrf()); }
}

/// A page of the signed-in site.
pub fn layout(title: &str, user: &User, nav: Nav, body: Markup) -> Markup {
    let flash = user.take_flash();
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                a.skip href="#main" { "Skip to content" }
                header.top {
                    a.brand href="/" { "vetro" }
                    nav aria-label="Main" {
                        ul {
                            @for (n, href, label) in MENU {
                                li { a href=(href) aria-current=[(n == nav).then_some("page")] { (label) } }
                            }
                        }
                    }
                    form.signout method="post" action="/signout" {
                        (csrf(user))
                        span.who { (user.display_name()) @if user.is_admin() { " · admin" } }
                        button type="submit" { "Sign out" }
                    }
                }
                main #main {
                    @if let Some(f) = flash {
                        p.flash.ok[f.ok].error[!f.ok] role=(if f.ok { "status" } else { "alert" }) { (f.text) }
                    }
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// A page outside the signed-in site (sign-in, errors).
pub fn bare(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body.bare {
                main #main { h1 { (title) } (body) }
            }
        }
    }
}

pub use crate::error::{PageError, PageResult};

/// After a form: a message on the next page and a redirect to `to`.
pub fn after<T>(user: &User, to: &str, r: Result<T, ApiError>, done: &str) -> Response {
    match r {
        Ok(_) => {
            if !done.is_empty() {
                user.flash(true, done);
            }
        }
        Err(e) => user.flash(false, e.message),
    }
    Redirect::to(to).into_response()
}

/// A status as a coloured badge (the text says it; the colour only helps).
pub fn badge(status: &str) -> Markup {
    let tone = match status {
        "ready" | "success" | "succeeded" => "good",
        s if s.contains("fail") || s.contains("error") => "bad",
        s if s.contains("warning") => "warn",
        "deploying" | "deleting" | "running" | "queued" | "pending" => "busy",
        _ => "plain",
    };
    html! { span class={"badge " (tone)} { (status) } }
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
