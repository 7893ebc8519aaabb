//! Who may call a route. Every route is declared once, in
//! [`crate::routes::table`], with the [`Access`] it requires; this module
//! says what each kind of access means and enforces the token part of it
//! before the handler runs.
//!
//! The rule, as Murano's policy had it: every token acts inside its own
//! project. An admin token reaches nothing of another project (no
//! environment, session, template, action, deployment or private package);
//! it only gains the few [`Privilege`]s a route names: listing every
//! project's environments, publishing packages, managing categories.

use axum::http::Method;

/// What a route requires of its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No token: health, readiness, the API description.
    Anonymous,
    /// Any token; the route reaches the token's own project only (plus, for
    /// reads, public packages and templates).
    Project,
    /// As [`Access::Project`], and an admin token may also use the
    /// privilege (the handler asks for it when the request needs it).
    ProjectOr(Privilege),
    /// Admin tokens only.
    Admin(Privilege),
}

/// What only admin tokens may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Privilege {
    /// List the environments of every project (`all_tenants`) or of a named one (`tenant`).
    AllTenants,
    /// Make a package of one's own project public, change or delete a public one.
    Publish,
    /// Create and delete categories.
    ManageCategories,
}

impl Privilege {
    /// What the privilege allows, as the sentence "only administrators may ..." ends.
    pub fn describe(self) -> &'static str {
        match self {
            Privilege::AllTenants => "list other projects' environments",
            Privilege::Publish => "publish packages or change public ones",
            Privilege::ManageCategories => "manage categories",
        }
    }
}

impl Access {
    /// Whether a token is needed at all.
    pub fn needs_token(self) -> bool {
        self != Access::Anonymous
    }

    /// The privilege this access grants to admins, if any.
    pub fn privilege(self) -> Option<Privilege> {
        match self {
            Access::ProjectOr(p) | Access::Admin(p) => Some(p),
            Access::Anonymous | Access::Project => None,
        }
    }

    /// One line for people: the API description and the README table use it.
    pub fn describe(self) -> String {
        match self {
            Access::Anonymous => "no token".into(),
            Access::Project => "any token, own project only".into(),
            Access::ProjectOr(p) => format!(
                "any token, own project only; admin tokens may also {}",
                p.describe()
            ),
            Access::Admin(p) => format!("admin token (to {})", p.describe()),
        }
    }

    /// A short machine-readable name (the `x-vetro-access` field of the API description).
    pub fn name(self) -> &'static str {
        match self {
            Access::Anonymous => "anonymous",
            Access::Project => "project",
            Access::ProjectOr(Privilege::AllTenants) => "project; admin: all_tenants",
            Access::ProjectOr(Privilege::Publish) => "project; admin: publish",
            Access::ProjectOr(Privilege::ManageCategories) => "project; admin: categories",
            Access::Admin(_) => "admin",
        }
    }
}

/// One row of the route table, without its handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteRule {
    pub method: Method,
    /// The path as axum matches it (`{name}` parameters, `{*rest}` tails).
    pub path: String,
    pub access: Access,
}

impl RouteRule {
    /// The path as the OpenAPI description spells it (`{*rest}` becomes `{rest}`).
    pub fn openapi_path(&self) -> String {
        self.path.replace("{*", "{")
    }
}

/// The rules as the Markdown table of the crate README ("Who may call
/// what"): one row per path and method.
pub fn markdown_table(rules: &[RouteRule]) -> String {
    let mut out = String::from("| method | path | access |\n|---|---|---|\n");
    for r in rules {
        out.push_str(&format!(
            "| {} | `{}` | {} |\n",
            r.method,
            r.openapi_path(),
            r.access.describe()
        ));
    }
    out
}
