//! Keystone as the service's identity (`vetro serve --auth keystone`):
//! incoming tokens are checked with Keystone ([`vetro_openstack::authtoken`],
//! cached for a bounded time), the token's project, user and roles become
//! the caller's [`Principal`] (the admin role makes an admin), and every
//! task a caller submits acts through a Keystone trust from that caller to
//! the service user, created when the task is requested.
//!
//! Without Keystone, callers present vetro's own API tokens
//! ([`crate::auth::resolve`] chooses).

use crate::error::ApiError;
use std::sync::Arc;
use std::time::Duration;
pub use vetro_openstack::authtoken::{in_domain, Identity, Validator, Verdict, DEFAULT_DOMAIN};
use vetro_store::tokens::Principal;

/// The Keystone configuration of a service.
pub struct Keystone {
    pub validator: Validator,
    /// The Keystone role that makes a caller the service's admin (`admin`).
    pub admin_role: String,
    /// How long the trust of each submitted task stays valid.
    pub trust_lifetime: Duration,
}

/// A trust lasts this long unless configured otherwise: a task waits in the
/// queue and runs well within it.
pub const DEFAULT_TRUST_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

impl Keystone {
    pub fn new(validator: Validator) -> Keystone {
        Keystone {
            validator,
            admin_role: "admin".into(),
            trust_lifetime: DEFAULT_TRUST_LIFETIME,
        }
    }

    /// The principal `id` acts as in this service.
    pub fn principal(&self, id: &Identity) -> Principal {
        Principal {
            project_id: id.project_id.clone(),
            user_id: id.user_id.clone(),
            is_admin: id.has_role(&self.admin_role),
        }
    }
}

/// A caller Keystone vouched for, with their token: the trust of each task
/// they submit is created with it.
#[derive(Clone)]
pub struct KeystoneCaller {
    token: String,
    pub identity: Arc<Identity>,
}

impl std::fmt::Debug for KeystoneCaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("KeystoneCaller")
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

impl Keystone {
    /// Who `token` speaks for: 401 when Keystone refuses it, 503 when
    /// Keystone cannot be asked.
    pub async fn caller(&self, token: &str) -> Result<(Principal, KeystoneCaller), ApiError> {
        match self.validator.validate(token).await {
            Ok(Verdict::Valid(identity)) => Ok((
                self.principal(&identity),
                KeystoneCaller {
                    token: token.to_string(),
                    identity,
                },
            )),
            Ok(Verdict::Refused(why)) => Err(ApiError::unauthorized(why)),
            Err(e) => {
                tracing::warn!("cannot check a token with Keystone: {e}");
                Err(ApiError::unavailable(
                    "the identity service cannot be reached; try again",
                ))
            }
        }
    }

    /// A new trust from `caller` to the service user, for a task they submit.
    pub async fn delegate(&self, caller: &KeystoneCaller) -> Result<String, ApiError> {
        self.validator
            .create_trust(&caller.token, &caller.identity, self.trust_lifetime)
            .await
            .map_err(|e| {
                tracing::warn!("{e}");
                ApiError::unavailable(format!("cannot delegate the task to the service: {e}"))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vetro_openstack::authtoken::Settings;

    fn keystone() -> Keystone {
        let creds = vetro_openstack::clouds::from_cloud_entry(
            &serde_json::json!({"auth": {"auth_url": "http://127.0.0.1:9/v3",
                "username": "svc", "password": "pw", "project_name": "service"}}),
            "test".into(),
        )
        .unwrap();
        Keystone::new(Validator::new(creds, &Settings::default()).unwrap())
    }

    fn identity(roles: &[&str]) -> Identity {
        Identity {
            user_id: "u1".into(),
            user_name: "demo".into(),
            project_id: "p1".into(),
            project_name: "demo".into(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
            expires_at: None,
        }
    }

    #[test]
    fn the_token_names_project_and_user_and_the_admin_role_makes_an_admin() {
        let mut ks = keystone();
        let p = ks.principal(&identity(&["member", "reader"]));
        assert_eq!((p.project_id.as_str(), p.user_id.as_str()), ("p1", "u1"));
        assert!(!p.is_admin);
        assert!(ks.principal(&identity(&["admin", "member"])).is_admin);
        ks.admin_role = "cloud_admin".into();
        assert!(!ks.principal(&identity(&["admin"])).is_admin);
        assert!(ks.principal(&identity(&["cloud_admin"])).is_admin);
    }

    #[test]
    fn the_callers_token_never_shows_in_debug_output() {
        let c = KeystoneCaller {
            token: "secret-token-value".into(),
            identity: Arc::new(identity(&["member"])),
        };
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("secret-token-value") && shown.contains("u1"),
            "{shown}"
        );
    }
}
