//! The representation of error answers, chosen from the request's `Accept`
//! header as Murano's web framework does.
//!
//! Murano's HTTP errors come out of WebOb, which renders them as an HTML page
//! unless the client asks for JSON. `python-muranoclient` depends on that: it
//! sends `Accept: */*` and only understands an HTML error page (its JSON
//! branch expects every top-level value of the body to be an object, so
//! Murano's `{"code", "title", ...}` body crashes it, and then a 404 is not
//! recognised as "not found"). So an error is sent as Murano's JSON body when
//! the client names `application/json` (or `application/*`), or cannot take
//! HTML, and as a WebOb-style HTML page otherwise.

use crate::error::ErrorMessage;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// The quality the `Accept` header gives `media` (`type/subtype`): the most
/// specific matching range wins; no header accepts everything.
fn quality(accept: &str, media: &str) -> (f32, bool) {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|v| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let specificity = if name == media {
            3
        } else if name.strip_suffix("/*") == Some(kind) {
            2
        } else if name == "*/*" {
            1
        } else {
            continue;
        };
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    match best {
        Some((s, q)) => (q, s > 1),
        None => (0.0, false),
    }
}

/// Whether an error should be sent as HTML for these request headers.
pub fn wants_html(headers: &HeaderMap) -> bool {
    let accept = match headers.get(header::ACCEPT).map(HeaderValue::to_str) {
        None => "*/*",
        Some(Ok(a)) if !a.trim().is_empty() => a,
        Some(_) => "*/*",
    };
    let (json, json_named) = quality(accept, "application/json");
    let (html, _) = quality(accept, "text/html");
    if html <= 0.0 {
        return false;
    }
    !(json > html || (json == html && json_named))
}

/// Escapes text for an element's content (quotes need no escaping there, and
/// the murano client shows the text with its entities).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// The HTML page of an error, laid out as WebOb's (a title, a heading,
/// then the message on its own line).
pub fn html_page(status: StatusCode, message: &str) -> String {
    let title = status.canonical_reason().unwrap_or("Error");
    let heading = escape(&format!("{} {title}", status.as_u16()));
    let lines: Vec<String> = message.lines().map(escape).collect();
    format!(
        "<html>\n <head>\n  <title>{heading}</title>\n </head>\n <body>\n  <h1>{heading}</h1>\n  {}<br /><br />\n\n\n\n </body>\n</html>",
        lines.join("<br />\n  ")
    )
}

/// Middleware: rewrites [`crate::error::ApiError`] answers as HTML for clients that prefer it.
pub async fn errors_as_requested(req: Request, next: Next) -> Response {
    let html = wants_html(req.headers());
    let response = next.run(req).await;
    if !html {
        return response;
    }
    let Some(ErrorMessage(message)) = response.extensions().get::<ErrorMessage>().cloned() else {
        return response;
    };
    let (mut parts, _json) = response.into_parts();
    let page = html_page(parts.status, &message);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=UTF-8"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(page))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html_for(accept: Option<&str>) -> bool {
        let mut h = HeaderMap::new();
        if let Some(a) = accept {
            h.insert(header::ACCEPT, HeaderValue::from_str(a).unwrap());
        }
        wants_html(&h)
    }

    #[test]
    fn accept_header_chooses_the_error_representation() {
        assert!(html_for(None));
        assert!(html_for(Some("*/*")));
        assert!(html_for(Some("text/html")));
        assert!(!html_for(Some("application/json")));
        assert!(!html_for(Some("application/json, */*")));
        assert!(!html_for(Some("application/*")));
        assert!(!html_for(Some("text/plain")));
        assert!(!html_for(Some("text/html;q=0.5, application/json")));
        assert!(html_for(Some("text/html, application/json;q=0.9")));
    }

    #[test]
    fn the_page_escapes_the_message() {
        let page = html_page(StatusCode::NOT_FOUND, "no <env> & 'co'");
        assert!(page.contains("<title>404 Not Found</title>"));
        assert!(page.contains("no &lt;env&gt; &amp; 'co'<br />"));
    }
}
