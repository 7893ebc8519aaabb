//! Calls into the service: the API's handlers called as Rust functions, so
//! a page sees and changes exactly what the API would let the same person.

use crate::session::User;
use crate::Dashboard;
use axum::extract::State;
use serde_json::Value;
use std::sync::OnceLock;
use vetro_server::access::{Access, RouteRule};
use vetro_server::auth::Ctx;
use vetro_server::error::ApiError;
use vetro_server::extract::{QueryPairs, P};
use vetro_server::routes::sessions;
use vetro_server::scope;

pub type ApiResult<T = Value> = Result<T, ApiError>;

/// The API's route rules, read once.
fn rules() -> &'static [RouteRule] {
    static RULES: OnceLock<Vec<RouteRule>> = OnceLock::new();
    RULES.get_or_init(vetro_server::routes::rules)
}

/// The caller as API route `method path` (as the route table spells it)
/// sees them: with that route's access rule, and refused as the API would
/// refuse an admin-only route to a project token.
pub fn ctx_for(user: &User, method: axum::http::Method, path: &str) -> ApiResult<Ctx> {
    let access = rules()
        .iter()
        .find(|r| r.method == method && r.path == path)
        .map(|r| r.access)
        .unwrap_or(Access::Project);
    let ctx = Ctx {
        principal: user.ctx.principal.clone(),
        access,
        keystone: user.ctx.keystone.clone(),
    };
    if let Access::Admin(p) = access {
        ctx.require(p)?;
    }
    Ok(ctx)
}

/// A query string as the handlers take it.
pub fn query(pairs: &[(&str, &str)]) -> QueryPairs {
    QueryPairs(
        pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

pub fn state(dash: &Dashboard) -> State<vetro_server::AppState> {
    State(dash.app.clone())
}

/// The configuration session this person has open on `env_id`, while it
/// can still be edited.
pub async fn open_session(dash: &Dashboard, user: &User, env_id: &str) -> Option<String> {
    let sid = user.env_session(env_id).await?;
    let usable = match scope::session(&dash.app, &user.ctx, env_id, &sid).await {
        Ok(s) if s.state == vetro_store::sessions::OPENED => {
            matches!(dash.app.store.session_invalid_reason(&s).await, Ok(None))
        }
        _ => false,
    };
    if usable {
        Some(sid)
    } else {
        user.forget_env_session(env_id).await;
        None
    }
}

/// The environment `env_id` as this person sees it: with the changes of
/// their open configuration session, if any.
pub async fn draft_environment(dash: &Dashboard, user: &User, env_id: &str) -> ApiResult<Value> {
    let sid = open_session(dash, user, env_id).await;
    let env = vetro_server::routes::environments::show(
        state(dash),
        user.ctx.clone(),
        P(env_id.to_string()),
        vetro_server::auth::SessionHeader(sid),
    )
    .await?;
    Ok(value(env.0))
}

/// An answer of the API as a JSON value, as the pages read it.
pub fn value(answer: impl serde::Serialize) -> Value {
    serde_json::to_value(answer).unwrap_or(Value::Null)
}

/// The session to edit `env_id` in, opened when this person has none.
pub async fn edit_session(dash: &Dashboard, user: &User, env_id: &str) -> ApiResult<String> {
    if let Some(sid) = open_session(dash, user, env_id).await {
        return Ok(sid);
    }
    let sid = sessions::configure(state(dash), user.ctx.clone(), P(env_id.to_string()))
        .await?
        .0
        .id;
    user.set_env_session(env_id, &sid).await;
    Ok(sid)
}

/// A string field of a JSON object, empty when absent.
pub fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The display name of a model object: its `name`, else its `?.name`, else its type's last part.
pub fn object_name(o: &Value) -> String {
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .or_else(|| o.pointer("/?/name").and_then(Value::as_str));
    match name {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => short_type(
            o.pointer("/?/type")
                .and_then(Value::as_str)
                .unwrap_or("object"),
        )
        .to_string(),
    }
}

/// `io.murano.apps.Apache` -> `Apache`.
pub fn short_type(t: &str) -> &str {
    let t = t.split('/').next().unwrap_or(t);
    t.rsplit('.').next().unwrap_or(t)
}
