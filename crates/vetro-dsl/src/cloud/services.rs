//! Native methods of the service clients of the cloud library: the network
//! explorer (answered by the backend), the instance notifier and application
//! reports (recorded by the host), the metadata-definition browser (an empty
//! catalogue in the simulator) and Mistral (not available). Every call is
//! reported as an event.

use super::objects::{cloud_error, describe, prop, this_object};
use super::{with_host, EventKind};
use crate::runtime::types::*;
use crate::runtime::Rt;
use serde_json::{json, Value as Json};
use vetro_yaql::Value;

/// The DNS servers new subnets get when a network names none.
const DEFAULT_DNS: &[&str] = &["8.8.8.8"];

/// The MuranoPL exception raised for a service the backend does not provide.
pub(super) fn unavailable(rt: &Rt, class: &str, method: &str, why: &str) -> Exc {
    with_host(rt, |h| {
        h.emit(
            EventKind::Service,
            None,
            format!("{class}.{method}: {why} ({} backend)", h.backend.name()),
        )
    });
    Exc::native(
        "vetro.cloud",
        "ServiceNotAvailable",
        format!("io.murano.system.{class}.{method}: {why}"),
    )
}

fn emit(rt: &Rt, kind: EventKind, object: Option<String>, message: String) {
    with_host(rt, |h| h.emit(kind, object, message));
}

fn backend_list(rt: &Rt, what: &str) -> Result<Json, Exc> {
    with_host(rt, |h| h.backend.list(what))
        .unwrap_or_else(|| Err("no cloud backend".into()))
        .map_err(cloud_error)
}

/// An argument's text (empty when it is null), within the session's memory.
fn str_arg(rt: &Rt, a: &dyn Fn(usize, &str) -> Value, i: usize, name: &str) -> Result<String, Exc> {
    match a(i, name) {
        Value::Null => Ok(String::new()),
        v => rt.py_str(&v),
    }
}

/// `io.murano.system.NetworkExplorer`.
pub(super) fn network_explorer(
    rt: &Rt,
    method: &str,
    a: &dyn Fn(usize, &str) -> Value,
) -> Result<Value, Exc> {
    let backend = with_host(rt, |h| h.backend.name()).unwrap_or("no");
    match method {
        "getDefaultRouter" => {
            let r = with_host(rt, |h| h.backend.default_router())
                .unwrap_or_else(|| Err("no cloud backend".into()))
                .map_err(cloud_error)?;
            emit(
                rt,
                EventKind::Network,
                None,
                format!("network explorer: default router {r} ({backend} cloud)"),
            );
            Ok(Value::str(&r))
        }
        "getAvailableCidr" => {
            let router = str_arg(rt, a, 0, "routerId")?;
            let router = Some(router.as_str()).filter(|r| !r.is_empty());
            let net = str_arg(rt, a, 1, "netId")?;
            let cidr = with_host(rt, |h| h.backend.allocate_cidr(router, &net))
                .unwrap_or_else(|| Err("no cloud backend".into()))
                .map_err(cloud_error)?;
            emit(
                rt,
                EventKind::Network,
                None,
                format!("network explorer: CIDR {cidr} for network {net} ({backend} cloud)"),
            );
            Ok(Value::str(&cidr))
        }
        "getDefaultDns" => Ok(rt.decode(&json!(DEFAULT_DNS))),
        "getExternalNetworkIdForRouter" => {
            let router = str_arg(rt, a, 0, "routerId")?;
            let routers = backend_list(rt, "routers")?;
            let id = routers
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["id"] == json!(router))
                .and_then(|r| r.pointer("/external_gateway_info/network_id").cloned())
                .unwrap_or(Json::Null);
            Ok(rt.decode(&id))
        }
        "getExternalNetworkIdForNetwork" => {
            let net = str_arg(rt, a, 0, "networkId")?;
            let nets = backend_list(rt, "networks")?;
            let external = nets
                .as_array()
                .into_iter()
                .flatten()
                .any(|n| n["id"] == json!(net) && n["router:external"] == json!(true));
            if external {
                return Ok(Value::str(&net));
            }
            // Through a router the network is plugged into.
            let ports = backend_list(rt, "ports")?;
            let routers = backend_list(rt, "routers")?;
            let id = ports
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| {
                    p["network_id"] == json!(net)
                        && p["device_owner"] == json!("network:router_interface")
                })
                .find_map(|p| {
                    routers
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|r| r["id"] == p["device_id"])
                        .and_then(|r| r.pointer("/external_gateway_info/network_id").cloned())
                })
                .unwrap_or(Json::Null);
            Ok(rt.decode(&id))
        }
        "listNetworks" | "listSubnetworks" | "listPorts" | "listNeutronExtensions" => {
            let what = match method {
                "listNetworks" => "networks",
                "listSubnetworks" => "subnets",
                "listPorts" => "ports",
                _ => "extensions",
            };
            // Read-only queries change nothing and are not reported; what
            // the explorer hands out (router, CIDRs) is.
            Ok(rt.decode(&backend_list(rt, what)?))
        }
        other => Err(Exc::engine(
            EngineExc::NoMethodFound,
            format!("Method \"{other}\" is not found in class io.murano.system.NetworkExplorer"),
        )),
    }
}

/// The notification payload fields of `instance` (`what` is for the message
/// and is not recorded).
fn instance_fields(v: &Value) -> (Option<String>, Json) {
    match as_object(v) {
        Some((o, _)) => (
            Some(o.id.clone()),
            json!({"instance": o.id, "type_name": o.class.name, "what": describe(&o)}),
        ),
        None => (None, json!({"instance": null})),
    }
}

fn record(rt: &Rt, object: Option<String>, mut payload: Json, event: &str, message: String) {
    if let Some(m) = payload.as_object_mut() {
        m.insert("event".into(), json!(event));
        m.remove("what");
    }
    with_host(rt, |h| {
        h.notifications.push(payload);
        h.emit(EventKind::Notify, object, message);
    });
}

/// `io.murano.system.InstanceNotifier`: what it is told is recorded.
pub(super) fn instance_notifier(
    rt: &Rt,
    this: &Value,
    method: &str,
    a: &dyn Fn(usize, &str) -> Value,
) -> Result<Value, Exc> {
    let me = this_object(this)?;
    let env = match as_object(&prop(&me, "environment")) {
        Some((e, _)) => json!(e.id),
        None => Json::Null,
    };
    let (id, mut payload) = instance_fields(&a(0, "instance"));
    let what = payload["what"].as_str().unwrap_or("object").to_string();
    payload["environment"] = env;
    let (event, kind, verb) = match method {
        "trackApplication" => ("track_instance", "application", "tracked"),
        "untrackApplication" => ("untrack_instance", "application", "untracked"),
        "trackCloudInstance" => ("track_instance", "cloud instance", "tracked"),
        "untrackCloudInstance" => ("untrack_instance", "cloud instance", "untracked"),
        other => {
            return Err(Exc::engine(
                EngineExc::NoMethodFound,
                format!(
                    "Method \"{other}\" is not found in class io.murano.system.InstanceNotifier"
                ),
            ))
        }
    };
    payload["instance_type"] = json!(if kind == "application" { 100 } else { 200 });
    if method == "trackApplication" {
        payload["type_title"] = rt.encode(&a(1, "title"))?;
        payload["unit_count"] = rt.encode(&a(2, "unitCount"))?;
    } else if method == "trackCloudInstance" {
        payload["unit_count"] = json!(1);
    }
    record(
        rt,
        id,
        payload,
        event,
        format!("instance notifier: {kind} {what} {verb} (recorded, not sent)"),
    );
    Ok(Value::Null)
}

/// `io.murano.Application.reportDeployed/reportDestroyed`.
pub(super) fn report_application(
    rt: &Rt,
    this: &Value,
    method: &str,
    a: &dyn Fn(usize, &str) -> Value,
) -> Result<Value, Exc> {
    let (id, mut payload) = instance_fields(this);
    let what = payload["what"]
        .as_str()
        .unwrap_or("application")
        .to_string();
    payload["instance_type"] = json!(100);
    if method == "reportDeployed" {
        payload["type_title"] = rt.encode(&a(0, "title"))?;
        payload["unit_count"] = rt.encode(&a(1, "unitCount"))?;
        record(
            rt,
            id,
            payload,
            "track_instance",
            format!("application {what} reported deployed (recorded, not sent)"),
        );
    } else {
        record(
            rt,
            id,
            payload,
            "untrack_instance",
            format!("application {what} reported destroyed (recorded, not sent)"),
        );
    }
    Ok(Value::Null)
}

/// `io.murano.system.MetadefBrowser`: the simulated Glance has no metadata
/// definitions.
pub(super) fn metadef_browser(
    rt: &Rt,
    method: &str,
    a: &dyn Fn(usize, &str) -> Value,
) -> Result<Value, Exc> {
    let of = rt.py_str(&if method == "getNamespaces" {
        a(0, "resourceType")
    } else {
        a(0, "namespace")
    })?;
    emit(
        rt,
        EventKind::Service,
        None,
        format!("metadef browser: {method}({of}) is empty in the simulated catalogue"),
    );
    Ok(rt.decode(&json!([])))
}
