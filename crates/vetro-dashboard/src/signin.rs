//! Signing in (an API token; with Keystone, a user name, password and
//! project, each in its domain, or a Keystone token) and out. The sign-in form is protected
//! against cross-site posts by a one-time value in both a cookie and the form.

use crate::page::{self, PageError};
use crate::session::{cookie, random_token, same_secret, set_cookie, Credential, Fields, User};
use crate::Dashboard;
use axum::extract::{Form, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use std::time::Duration;
use vetro_server::keystone::{in_domain, Identity, DEFAULT_DOMAIN};

const SIGNIN_COOKIE: &str = "vetro_signin";
const SIGNIN_LIFETIME: Duration = Duration::from_secs(1800);

pub async fn home(State(dash): State<Dashboard>, headers: HeaderMap) -> Response {
    match User::lookup(&headers, &dash).await {
        Ok(Some(_)) => Redirect::to("/environments").into_response(),
        Ok(None) => Redirect::to("/signin").into_response(),
        Err(e) => e.into_response(),
    }
}

fn signin_page(dash: &Dashboard, nonce: &str, error: Option<&str>) -> Markup {
    let keystone = dash.app.keystone.is_some();
    let body = html! {
        @if let Some(e) = error { p.flash.error role="alert" { (e) } }
        @if keystone {
            form method="post" action="/signin" {
                input type="hidden" name="_signin" value=(nonce);
                label for="username" { "User name" }
                input #username type="text" name="username" autocomplete="username" required;
                label for="user_domain" { "User domain" }
                input #user_domain type="text" name="user_domain" value=(DEFAULT_DOMAIN) autocomplete="off";
                label for="password" { "Password" }
                input #password type="password" name="password" autocomplete="current-password" required;
                label for="project" { "Project" }
                input #project type="text" name="project" autocomplete="off" required;
                label for="project_domain" { "Project domain" }
                input #project_domain type="text" name="project_domain" value=(DEFAULT_DOMAIN) autocomplete="off";
                p { button type="submit" { "Sign in" } }
            }
            h2 { "Or with a Keystone token" }
        }
        form method="post" action="/signin" {
            input type="hidden" name="_signin" value=(nonce);
            @if keystone {
                label for="token" { "Keystone token" }
                p.help #token-help { "Made with " code { "openstack token issue" } "." }
            } @else {
                label for="token" { "API token" }
                p.help #token-help { "Made with " code { "vetro token create" } "." }
            }
            input #token type="password" name="token" autocomplete="off" aria-describedby="token-help" required;
            p { button type="submit" { "Sign in with the token" } }
        }
    };
    page::bare("Sign in", body)
}

fn with_nonce(status: StatusCode, dash: &Dashboard, error: Option<&str>) -> Response {
    let nonce = random_token();
    (
        status,
        [(
            header::SET_COOKIE,
            set_cookie(SIGNIN_COOKIE, &nonce, SIGNIN_LIFETIME),
        )],
        signin_page(dash, &nonce, error),
    )
        .into_response()
}

pub async fn form(State(dash): State<Dashboard>) -> Response {
    with_nonce(StatusCode::OK, &dash, None)
}

/// Who the posted credentials name, or a message for the person.
async fn check(dash: &Dashboard, f: &Fields) -> Result<Credential, String> {
    let token = f.text("token");
    if !token.is_empty() {
        return match vetro_server::auth::resolve(&dash.app, token).await {
            Ok(c) => Ok(match c.keystone {
                Some(k) => keystone_credential(token, c.principal, &k.identity),
                None => Credential::Token(token.to_string()),
            }),
            Err(e) if e.status == StatusCode::UNAUTHORIZED => {
                Err("This token is not valid.".into())
            }
            Err(e) => Err(format!("The token cannot be checked now: {}", e.message)),
        };
    }
    let Some(ks) = &dash.app.keystone else {
        return Err("Enter an API token.".into());
    };
    let (user, project) = (f.text("username"), f.text("project"));
    let password = f.get("password").unwrap_or_default();
    if user.is_empty() || project.is_empty() {
        return Err("Enter your user name, password and project.".into());
    }
    // Names in their domains, as OpenStack clients take them (Default unless given).
    let user = in_domain(user, f.text("user_domain"));
    let project = in_domain(project, f.text("project_domain"));
    match ks.validator.sign_in(&user, password, &project).await {
        Ok(Ok(s)) => {
            let principal = ks.principal(&s.identity);
            Ok(keystone_credential(&s.token, principal, &s.identity))
        }
        Ok(Err(message)) => Err(message),
        Err(e) => {
            tracing::warn!("Keystone sign-in: {e}");
            Err("The identity service cannot be reached now; try again.".into())
        }
    }
}

fn keystone_credential(
    token: &str,
    principal: vetro_store::tokens::Principal,
    id: &Identity,
) -> Credential {
    Credential::Keystone {
        token: token.to_string(),
        principal,
        expires_in: id.remaining(),
    }
}

pub async fn submit(
    State(dash): State<Dashboard>,
    headers: HeaderMap,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let f = Fields(pairs);
    let expected = cookie(&headers, SIGNIN_COOKIE).unwrap_or_default();
    if expected.is_empty() || !same_secret(f.text("_signin"), &expected) {
        return with_nonce(
            StatusCode::FORBIDDEN,
            &dash,
            Some("The sign-in form expired. Please try again."),
        );
    }
    match check(&dash, &f).await {
        Ok(credential) => {
            let (id, lifetime) = match dash.sessions.create(&dash.app.store, credential).await {
                Ok(created) => created,
                Err(e) => return PageError::from(e).into_response(),
            };
            let mut r = Redirect::to("/environments").into_response();
            let h = r.headers_mut();
            for c in [
                set_cookie(crate::SESSION_COOKIE, &id, lifetime),
                set_cookie(SIGNIN_COOKIE, "", Duration::ZERO),
            ] {
                if let Ok(v) = c.parse() {
                    h.append(header::SET_COOKIE, v);
                }
            }
            r
        }
        Err(message) => with_nonce(StatusCode::UNAUTHORIZED, &dash, Some(&message)),
    }
}

pub async fn sign_out(State(dash): State<Dashboard>, p: crate::session::Posted) -> Response {
    if let Err(e) = dash
        .sessions
        .remove(&dash.app.store, p.user.session_id())
        .await
    {
        return PageError::from(e).into_response();
    }
    (
        [(
            header::SET_COOKIE,
            set_cookie(crate::SESSION_COOKIE, "", Duration::ZERO),
        )],
        Redirect::to("/signin"),
    )
        .into_response()
}
