//! `vetro serve`'s authentication options: vetro's own API tokens (the
//! default) or Keystone (`--auth keystone`) with the service user's
//! credentials from clouds.yaml (`--keystone-cloud`) or the `OS_*` variables.

use std::sync::Arc;
use std::time::Duration;
use vetro_openstack::authtoken::{Settings, Validator};
use vetro_server::keystone::{Keystone, DEFAULT_TRUST_LIFETIME};

/// Who checks the callers' tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthKind {
    /// vetro's own API tokens (`vetro token create`).
    Tokens,
    /// Keystone v3 tokens, checked with Keystone as keystonemiddleware does.
    Keystone,
}

#[derive(clap::Args)]
pub struct AuthArgs {
    /// Who checks X-Auth-Token: vetro's own API tokens, or Keystone.
    #[arg(long, value_enum, default_value_t = AuthKind::Tokens)]
    auth: AuthKind,
    /// keystone: the cloud of clouds.yaml holding the service user's
    /// credentials (found where openstacksdk looks: OS_CLIENT_CONFIG_FILE,
    /// ./clouds.yaml, ~/.config/openstack/, /etc/openstack/); without it, the
    /// OS_* variables.
    #[arg(long, value_name = "NAME")]
    keystone_cloud: Option<String>,
    /// keystone: Keystone's URL (e.g. http://HOST:5000/v3), in place of the
    /// credentials' auth_url.
    #[arg(long, value_name = "URL")]
    keystone_url: Option<String>,
    /// keystone: seconds a checked token is trusted without asking Keystone
    /// again; a revoked token is refused at most this long after Keystone
    /// last vouched for it.
    #[arg(long, value_name = "SECONDS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(0..=86_400))]
    keystone_cache_ttl: u64,
    /// keystone: most checked tokens remembered at once.
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    keystone_cache_size: u64,
    /// keystone: the Keystone role that makes a caller the service's admin.
    #[arg(long, value_name = "ROLE", default_value = "admin")]
    keystone_admin_role: String,
    /// keystone: seconds the trust created for each deployment, deletion or
    /// action stays valid (the task must run within it).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TRUST_LIFETIME.as_secs(),
          value_parser = clap::value_parser!(u64).range(60..=31_536_000))]
    keystone_trust_lifetime: u64,
}

impl AuthArgs {
    /// Keystone as configured (authenticated once, so that wrong service
    /// credentials show at start), or `None` for API tokens.
    pub async fn keystone(&self) -> Result<Option<Arc<Keystone>>, String> {
        if self.auth == AuthKind::Tokens {
            return Ok(None);
        }
        let env = |k: &str| std::env::var(k).ok();
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut creds = match &self.keystone_cloud {
            Some(name) => vetro_openstack::clouds::from_clouds_yaml(name, &env, &cwd)
                .map_err(|e| format!("--keystone-cloud: {e}"))?,
            None => {
                let url = self.keystone_url.clone();
                let env_or_url = |k: &str| match (k, &url) {
                    ("OS_AUTH_URL", Some(u)) => Some(u.clone()),
                    _ => env(k),
                };
                vetro_openstack::clouds::from_env(&env_or_url)
                    .map_err(|e| format!("--auth keystone: the service's credentials: {e} (give --keystone-cloud or the OS_* variables)"))?
            }
        };
        if let Some(url) = &self.keystone_url {
            creds.auth_url = url.clone();
        }
        let settings = Settings {
            cache_ttl: Duration::from_secs(self.keystone_cache_ttl),
            cache_size: self.keystone_cache_size,
        };
        let validator = Validator::new(creds, &settings)?;
        validator
            .check_service()
            .await
            .map_err(|e| format!("--auth keystone: the service cannot authenticate: {e}"))?;
        let mut ks = Keystone::new(validator);
        ks.admin_role = self.keystone_admin_role.clone();
        ks.trust_lifetime = Duration::from_secs(self.keystone_trust_lifetime);
        Ok(Some(Arc::new(ks)))
    }
}

/// With `--backend openstack`, the workers act through each task's trust
/// with the backend's credentials: they must be the trustee's, the service
/// user Keystone checks tokens as. Both are authenticated once, now, so that
/// a mismatch shows at start and not as every task's failure.
pub async fn check_trustee(ks: &Keystone, backend: &vetro_deploy::Backend) -> Result<(), String> {
    let vetro_deploy::Backend::OpenStack { cloud } = backend else {
        return Ok(());
    };
    let service = ks.validator.check_service().await?;
    let http = vetro_openstack::http_client(Duration::from_secs(30))?;
    let mut session = vetro_openstack::keystone::Session::new(cloud.credentials.clone(), http);
    let acting = session
        .user_id()
        .await
        .map_err(|e| format!("--backend openstack: {e}"))?;
    if acting != service {
        return Err(format!(
            "--auth keystone with --backend openstack: the backend's credentials ({}) are user {acting}, \
             but every task's trust names the service user {service} (--keystone-cloud): \
             give the backend the service user's credentials",
            cloud.credentials.source
        ));
    }
    Ok(())
}
