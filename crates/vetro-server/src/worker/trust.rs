//! A task's Keystone trust (`--auth keystone`): the task acts through it on
//! OpenStack, and it is deleted once the task has finished, as Murano's
//! engine deleted each deployment's trust when the deployment ended.

use super::Worker;
use vetro_openstack::clouds::Credentials;
use vetro_store::queue::Task;

/// The cloud a task acts on: on OpenStack, a task submitted with a Keystone
/// trust (`--auth keystone`) acts through it, with the service's credentials
/// (the trust's trustee) scoped to the trust, so in the caller's project with
/// the caller's roles; otherwise with the service's credentials as they are.
pub(super) fn acting_for(
    backend: &vetro_deploy::Backend,
    trust: Option<&str>,
) -> vetro_deploy::Backend {
    match (backend, trust) {
        (vetro_deploy::Backend::OpenStack { cloud }, Some(trust)) => {
            let mut cloud = cloud.clone();
            cloud.credentials =
                vetro_openstack::keystone::trust_credentials(&cloud.credentials, trust);
            vetro_deploy::Backend::OpenStack { cloud }
        }
        _ => backend.clone(),
    }
}

/// The trustee's credentials this worker holds: the configured ones, else
/// the OpenStack backend's (the service user acts through every trust).
fn trustee(w: &Worker) -> Option<&Credentials> {
    w.config.trustee.as_ref().or(match &w.config.backend {
        vetro_deploy::Backend::OpenStack { cloud } => Some(&cloud.credentials),
        _ => None,
    })
}

/// Deletes the trust of `task`, which has finished: nothing acts through it
/// again. A worker without the trustee's credentials leaves it to expire.
pub(super) async fn end(w: &Worker, task: &Task) {
    let Some(trust) = &task.trust_id else { return };
    let Some(creds) = trustee(w) else {
        tracing::warn!(task = %task.id, "the task's trust stays until it expires: this process has no trustee credentials (vetro worker --keystone-cloud)");
        return;
    };
    let http = match vetro_openstack::http_client(std::time::Duration::from_secs(30)) {
        Ok(h) => h,
        Err(e) => {
            tracing::warn!(task = %task.id, "cannot delete the task's trust: {e}");
            return;
        }
    };
    match vetro_openstack::keystone::delete_trust(&http, creds, trust).await {
        Ok(()) => tracing::info!(task = %task.id, "the task's trust is deleted"),
        Err(e) => tracing::warn!(task = %task.id, "cannot delete the task's trust: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use vetro_deploy::Backend;

    #[test]
    fn a_trusted_task_acts_through_its_trust_on_openstack() {
        let creds = vetro_openstack::clouds::from_cloud_entry(
            &json!({"auth": {"auth_url": "http://k/v3", "username": "svc",
                "password": "pw", "project_name": "service"}}),
            "test".into(),
        )
        .unwrap();
        let cloud = vetro_openstack::CloudConfig {
            credentials: creds.clone(),
            options: Default::default(),
        };
        let os = Backend::OpenStack {
            cloud: Box::new(cloud),
        };
        let Backend::OpenStack { cloud } = acting_for(&os, Some("t1")) else {
            panic!("still OpenStack")
        };
        assert_eq!(cloud.credentials.trust_id.as_deref(), Some("t1"));
        assert_eq!(cloud.credentials.project, None);
        assert_eq!(cloud.credentials.method, creds.method);
        assert_eq!(acting_for(&os, None), os);
        assert_eq!(
            acting_for(&Backend::Simulated, Some("t1")),
            Backend::Simulated
        );
    }
}
