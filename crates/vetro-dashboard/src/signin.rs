//! Signing in (an API token, or a user name and password when a password
//! backend is configured) and out. The sign-in form is protected against
//! cross-site posts by a one-time value in both a cookie and the form.

use crate::page::{self, PageError};
use crate::session::{cookie, random_token, same_secret, set_cookie, Credential, Fields, User};
use crate::Dashboard;
use axum::extract::{Form, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use std::time::Duration;

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
    let body = html! {
        @if let Some(e) = error { p.flash.error role="alert" { (e) } }
        form method="post" action="/signin" {
            input type="hidden" name="_signin" value=(nonce);
            label for="token" { "API token" }
            p.help #token-help { "Made with " code { "vetro token create" } "." }
            input #token type="password" name="token" autocomplete="off" aria-describedby="token-help" required;
            p { button type="submit" { "Sign in with the token" } }
        }
        @if dash.password.is_some() {
            h2 { "Or with your user name and password" }
            form method="post" action="/signin" {
                input type="hidden" name="_signin" value=(nonce);
                label for="username" { "User name" }
                input #username type="text" name="username" autocomplete="username" required;
                label for="password" { "Password" }
                input #password type="password" name="password" autocomplete="current-password" required;
                p { button type="submit" { "Sign in" } }
            }
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
        return match dash.app.store.authenticate(token).await {
            Ok(Some(_)) => Ok(Credential::Token(token.to_string())),
            Ok(None) => Err("This token is not valid.".into()),
            Err(e) => Err(format!("The token cannot be checked now: {e}")),
        };
    }
    let (user, password) = (f.text("username"), f.get("password").unwrap_or_default());
    match &dash.password {
        Some(backend) if !user.is_empty() => backend
            .sign_in(user, password)
            .await
            .map(Credential::Password),
        _ => Err("Enter an API token.".into()),
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
            let id = match dash.sessions.create(&dash.app.store, credential).await {
                Ok(id) => id,
                Err(e) => return PageError::from(e).into_response(),
            };
            let mut r = Redirect::to("/environments").into_response();
            let h = r.headers_mut();
            for c in [
                set_cookie(crate::SESSION_COOKIE, &id, dash.sessions.lifetime()),
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
