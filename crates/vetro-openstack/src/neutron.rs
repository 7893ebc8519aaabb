//! Neutron as Murano's network explorer used it: listings, the project's
//! default router (found by name, created on the external network when
//! missing), the external network behind a router, and a free subnet CIDR for
//! a new environment network (the /24s of 10.0.0.0/16 not yet plugged into
//! the router, tried from where the network's id hashes to).

use crate::api::Api;
use ipnet::Ipv4Net;
use reqwest::Method;
use serde_json::{json, Value as Json};

/// What Murano's `[networking]` settings chose.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The router environment networks are uplinked to.
    pub router_name: String,
    /// The external network a missing router is created on (name or id);
    /// `None`: the first external network Neutron lists.
    pub external_network: Option<String>,
    /// Where environment subnets come from, and their size.
    pub env_range: Ipv4Net,
    pub subnet_prefix: u8,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            router_name: "murano-default-router".into(),
            external_network: None,
            env_range: Ipv4Net::new(std::net::Ipv4Addr::new(10, 0, 0, 0), 16)
                .expect("a valid prefix"),
            subnet_prefix: 24,
        }
    }
}

/// The collection path and the key of its listing, for what the engine asks.
fn collection(what: &str) -> Result<&'static str, String> {
    Ok(match what {
        "networks" => "networks",
        "subnets" => "subnets",
        "ports" => "ports",
        "routers" => "routers",
        "extensions" => "extensions",
        other => return Err(format!("Neutron has no {other} to list")),
    })
}

/// `?k=v&...`, encoded.
fn query(pairs: &[(&str, &str)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        q.append_pair(k, v);
    }
    format!("?{}", q.finish())
}

/// Neutron's API root under a catalog endpoint (with or without `/v2.0`).
pub fn api_root(endpoint: &str) -> String {
    let e = endpoint.trim_end_matches('/');
    if e.ends_with("/v2.0") {
        e.to_string()
    } else {
        format!("{e}/v2.0")
    }
}

/// `GET /v2.0/{what}` with filters: the listed items.
pub async fn list(api: &mut Api<'_>, what: &str, filters: &[(&str, &str)]) -> Result<Json, String> {
    let kind = collection(what)?;
    let path = if filters.is_empty() {
        format!("/{kind}")
    } else {
        format!("/{kind}{}", query(filters))
    };
    let body = api
        .call(Method::GET, &path, None)
        .await?
        .ok_or_else(|| format!("Neutron has no /{kind} collection"))?;
    Ok(body.get(kind).cloned().unwrap_or_else(|| json!([])))
}

/// The id of the project's router `settings.router_name`; created with a
/// gateway on the external network when the project has none.
pub async fn default_router(
    api: &mut Api<'_>,
    project: &str,
    settings: &Settings,
) -> Result<String, String> {
    let name = settings.router_name.as_str();
    let routers = list(api, "routers", &[("tenant_id", project), ("name", name)]).await?;
    if let Some(r) = routers.as_array().and_then(|a| a.first()) {
        if r.get("external_gateway_info").is_none_or(Json::is_null) {
            return Err(format!(
                "router {name} has no external gateway: set one for it"
            ));
        }
        return id_of(r, "router");
    }
    let ext = external_network(api, settings.external_network.as_deref()).await?;
    let body = json!({"router": {"name": name, "admin_state_up": true,
        "external_gateway_info": {"network_id": ext}}});
    let made = api
        .call(Method::POST, "/routers", Some(&body))
        .await?
        .unwrap_or_default();
    let id = id_of(&made["router"], "router")?;
    tracing::info!("created router {name} ({id}) on external network {ext}");
    Ok(id)
}

fn id_of(item: &Json, what: &str) -> Result<String, String> {
    item.get("id")
        .and_then(Json::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("Neutron answered a {what} without an id"))
}

/// The id of the external network `wanted` (name or id), or of the first one.
async fn external_network(api: &mut Api<'_>, wanted: Option<&str>) -> Result<String, String> {
    let nets = list(api, "networks", &[("router:external", "True")]).await?;
    let found = nets
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| wanted.is_none_or(|w| n["name"] == json!(w) || n["id"] == json!(w)));
    match found {
        Some(n) => id_of(n, "network"),
        None => Err(match wanted {
            Some(w) => format!("no external network {w} to create the default router on"),
            None => "no external network to create the default router on".into(),
        }),
    }
}

/// The CIDRs of the subnets plugged into `router` (none without a router).
pub async fn taken_cidrs(api: &mut Api<'_>, router: Option<&str>) -> Result<Vec<Ipv4Net>, String> {
    let Some(router) = router.filter(|r| !r.is_empty()) else {
        return Ok(Vec::new());
    };
    let ports = list(api, "ports", &[("device_id", router)]).await?;
    let subnet_ids: Vec<Json> = ports
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["fixed_ips"].as_array().cloned().unwrap_or_default())
        .map(|ip| ip["subnet_id"].clone())
        .collect();
    if subnet_ids.is_empty() {
        return Ok(Vec::new());
    }
    let subnets = list(api, "subnets", &[]).await?;
    Ok(subnets
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| subnet_ids.contains(&s["id"]))
        .filter_map(|s| s["cidr"].as_str()?.parse().ok())
        .collect())
}

/// FNV-1a: a hash that stays the same from run to run.
fn stable_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The first subnet of `settings.env_range`, from where `key` hashes to,
/// that overlaps none of `taken`.
pub fn pick_cidr(key: &str, settings: &Settings, taken: &[Ipv4Net]) -> Option<Ipv4Net> {
    let all: Vec<Ipv4Net> = settings
        .env_range
        .subnets(settings.subnet_prefix)
        .ok()?
        .collect();
    let start = (stable_hash(key) % all.len().max(1) as u64) as usize;
    (0..all.len())
        .map(|i| all[(start + i) % all.len()])
        .find(|c| !taken.iter().any(|t| t.contains(c) || c.contains(t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidrs_avoid_the_routers_subnets_and_stay_per_key() {
        let s = Settings::default();
        let first = pick_cidr("net-a", &s, &[]).unwrap();
        assert_eq!(first.prefix_len(), 24);
        assert!(s.env_range.contains(&first));
        assert_eq!(pick_cidr("net-a", &s, &[]), Some(first));
        // Taken (or overlapped by a wider subnet): the next one.
        let next = pick_cidr("net-a", &s, &[first]).unwrap();
        assert_ne!(next, first);
        let wide: Ipv4Net = format!("{}/23", first.network()).parse().unwrap();
        let past = pick_cidr("net-a", &s, &[wide.trunc()]).unwrap();
        assert!(!wide.trunc().contains(&past));
        // Everything taken: none.
        assert_eq!(pick_cidr("net-a", &s, &[s.env_range]), None);
    }

    #[test]
    fn endpoints_and_queries() {
        assert_eq!(api_root("http://n:9696/"), "http://n:9696/v2.0");
        assert_eq!(
            api_root("http://n/networking/v2.0"),
            "http://n/networking/v2.0"
        );
        assert_eq!(
            query(&[("router:external", "True"), ("name", "a b")]),
            "?router%3Aexternal=True&name=a+b"
        );
        assert!(collection("volumes").is_err());
    }
}
