//! Native methods of the cloud-facing core classes, answered only while a
//! host is installed (see [`super::install`]).

use super::objects::{backend_error, cloud_error, describe, prop, this_object};
use super::{active, agent_plan, services, with_host, AgentCall, CloudBackend, EventKind};
use crate::runtime::natives::{NativeCall, NativeMethod};
use crate::runtime::types::*;
use crate::runtime::walk::Walk;
use crate::runtime::Rt;
use serde_json::{json, Value as Json};
use std::rc::Rc;
use vetro_yaql::Value;

fn set_prop(o: &Object, name: &str, v: Value) {
    o.props.borrow_mut().insert(name.to_string(), v);
}

/// Heat-style merge: maps merge key by key, lists gain the items they lack.
/// Merge `add` into `base` as Heat merges templates: objects key by key,
/// arrays gaining the items they lack. Each comparison counts in `walk`, so
/// merging two long arrays stops at the session's limits.
fn merge_json(base: &mut Json, add: &Json, walk: &mut Walk<'_>) -> Result<(), Exc> {
    match (base, add) {
        (Json::Object(b), Json::Object(a)) => {
            for (k, v) in a {
                match b.get_mut(k) {
                    Some(slot) => walk.nested(|walk| merge_json(slot, v, walk))?,
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Json::Array(b), Json::Array(a)) => {
            for v in a {
                let mut known = false;
                for x in b.iter() {
                    walk.tick()?;
                    if x == v {
                        known = true;
                        break;
                    }
                }
                if !known {
                    b.push(v.clone());
                }
            }
        }
        (b, a) => *b = a.clone(),
    }
    Ok(())
}

/// The package of `owner` (a class, an object or a class name) when given,
/// else that of the class whose method is running.
fn resource_package(rt: &Rt, owner: &Value) -> Option<String> {
    let pkg = if let Some(t) = as_type(owner) {
        t.pkg.name.clone()
    } else if let Some((o, _)) = as_object(owner) {
        o.class.pkg.name.clone()
    } else if let Value::Str(s) = owner {
        rt.class(s).ok()?.pkg.name.clone()
    } else {
        let class = rt.current_class()?;
        rt.class(&class).ok()?.pkg.name.clone()
    };
    Some(pkg)
}

/// `StatusReporter.report` and `report_error`: the message, after the
/// object's description when it is given one.
fn status_report(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let rt = c.rt;
    let obj = c.value(0, "obj");
    let msg = rt.py_str(&c.value(1, "msg"))?;
    let (id, who) = match as_object(&obj) {
        Some((o, _)) => (Some(o.id.clone()), describe(&o)),
        None => (None, String::new()),
    };
    let kind = if c.method == "report" {
        EventKind::Report
    } else {
        EventKind::ReportError
    };
    let text = if who.is_empty() {
        msg
    } else {
        format!("{who}: {msg}")
    };
    with_host(rt, |h| h.emit(kind, id, text));
    Ok(Value::Null)
}

/// The text of the resource `Resources.<kind>(name, owner)` names.
fn resource(c: &NativeCall<'_>) -> Result<String, Exc> {
    let name = c.rt.py_str(&c.value(0, "name"))?;
    read_resource(c.rt, &name, &c.value(1, "owner"))
}

pub(super) fn read_resource(rt: &Rt, name: &str, owner: &Value) -> Result<String, Exc> {
    let pkg = resource_package(rt, owner);
    // Only files inside the package's Resources folder.
    if name.split(['/', '\\']).any(|seg| seg == "..") || name.starts_with('/') {
        return Err(cloud_error(format!(
            "Resources: invalid resource name {name:?}"
        )));
    }
    let in_memory = pkg
        .as_ref()
        .and_then(|p| with_host(rt, |h| h.package_files.get(p).cloned()).flatten());
    if let Some(files) = in_memory {
        let key = format!("Resources/{}", name.replace('\\', "/"));
        return files
            .get(&key)
            .map(|b| vetro_yaml::decode_lenient(b))
            .ok_or_else(|| {
                cloud_error(format!(
                    "Resources: no resource {name:?} in package {}",
                    pkg.unwrap_or_default()
                ))
            });
    }
    let root = pkg
        .and_then(|p| with_host(rt, |h| h.package_roots.get(&p).cloned()).flatten())
        .ok_or_else(|| cloud_error("Resources: the calling class has no package directory"))?;
    let path = root.join("Resources").join(name);
    // A regular file within the input limit: opening a pipe would block the
    // run past its time limit, and a device such as /dev/zero never ends.
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => {
            return Err(cloud_error(format!(
                "Resources: cannot read {}: not a regular file",
                path.display()
            )))
        }
        Err(e) => {
            return Err(cloud_error(format!(
                "Resources: cannot read {}: {e}",
                path.display()
            )))
        }
    }
    vetro_yaml::read_bytes(&path, vetro_yaml::DEFAULT_MAX_INPUT)
        .map(|b| vetro_yaml::decode_lenient(&b))
        .map_err(|d| cloud_error(format!("Resources: cannot read {}", d.message)))
}

/// The cloud library's native methods: each class, its methods and the
/// function answering them (only while a host is attached).
pub(super) const NATIVES: &[NativeMethod] = &[
    NativeMethod {
        class: "io.murano.system.StatusReporter",
        methods: &["report", "report_error"],
        body: status_report,
    },
    NativeMethod {
        class: "io.murano.system.Logger",
        methods: crate::core::LOG_LEVELS,
        body: log,
    },
    NativeMethod {
        class: "io.murano.system.AgentListener",
        methods: &["queueName"],
        body: listener_queue,
    },
    NativeMethod {
        class: "io.murano.system.AgentListener",
        methods: &["agentSettings"],
        body: listener_settings,
    },
    NativeMethod {
        class: "io.murano.system.AgentListener",
        methods: &["subscribe", "unsubscribe"],
        body: |_| Ok(Value::Null),
    },
    NativeMethod {
        class: "io.murano.system.HeatStack",
        methods: &[
            "current",
            "parameters",
            "setTemplate",
            "updateTemplate",
            "setParameters",
            "updateParameters",
            "output",
            "push",
            "delete",
        ],
        body: |c| heat(c.rt, c.this, c.method, &|i, n| c.value(i, n)),
    },
    NativeMethod {
        class: "io.murano.system.NetworkExplorer",
        methods: &[
            "getDefaultRouter",
            "getAvailableCidr",
            "getDefaultDns",
            "getExternalNetworkIdForRouter",
            "getExternalNetworkIdForNetwork",
            "listNetworks",
            "listSubnetworks",
            "listPorts",
            "listNeutronExtensions",
        ],
        body: |c| services::network_explorer(c.rt, c.method, &|i, n| c.value(i, n)),
    },
    NativeMethod {
        class: "io.murano.system.InstanceNotifier",
        methods: &[
            "trackApplication",
            "untrackApplication",
            "trackCloudInstance",
            "untrackCloudInstance",
        ],
        body: |c| services::instance_notifier(c.rt, c.this, c.method, &|i, n| c.value(i, n)),
    },
    NativeMethod {
        class: "io.murano.Application",
        methods: &["reportDeployed", "reportDestroyed"],
        body: |c| services::report_application(c.rt, c.this, c.method, &|i, n| c.value(i, n)),
    },
    NativeMethod {
        class: "io.murano.system.MetadefBrowser",
        methods: &["getNamespaces", "getObjects"],
        body: |c| services::metadef_browser(c.rt, c.method, &|i, n| c.value(i, n)),
    },
    NativeMethod {
        class: "io.murano.system.MistralClient",
        methods: &["upload", "run"],
        body: |c| {
            Err(services::unavailable(
                c.rt,
                "MistralClient",
                c.method,
                "Mistral workflows are not available in the simulated backend",
            ))
        },
    },
    // `prepare` and `signingKey` have MuranoPL bodies.
    NativeMethod {
        class: "io.murano.system.Agent",
        methods: &["call", "send", "callRaw", "sendRaw", "isReady", "queueName"],
        body: |c| agent(c.rt, c.this, c.method, &|i, n| c.value(i, n)),
    },
    NativeMethod {
        class: "io.murano.system.Resources",
        methods: &["string", "bytes"],
        body: |c| resource(c).map(|s| Value::str(&s)),
    },
    NativeMethod {
        class: "io.murano.system.Resources",
        methods: &["json"],
        body: |c| {
            resource(c).and_then(|s| {
                serde_json::from_str::<Json>(&s)
                    .map(|j| c.rt.decode(&j))
                    .map_err(|e| cloud_error(format!("Resources.json: {e}")))
            })
        },
    },
    NativeMethod {
        class: "io.murano.system.Resources",
        methods: &["yaml"],
        body: |c| resource(c).and_then(|s| yaml_value(c.rt, &s)),
    },
];

/// Whether the cloud natives answer: only while a host is attached.
pub(super) fn answers(c: &NativeCall<'_>) -> bool {
    active(c.rt)
}

/// `Logger.<level>(message)`: a `log` event.
fn log(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let msg = c.rt.py_str(&c.value(0, "message"))?;
    let level = c.method;
    with_host(c.rt, |h| {
        h.emit(EventKind::Log, None, format!("{level}: {msg}"))
    });
    Ok(Value::Null)
}

/// `AgentListener.queueName()`: the environment's result queue.
fn listener_queue(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let env = as_object(c.this).and_then(|(o, _)| environment_of(&o));
    let env_id = env.map(|e| e.id.clone()).unwrap_or_default();
    Ok(Value::str(
        &with_host(c.rt, |h| h.backend.result_queue(&env_id)).unwrap_or_default(),
    ))
}

/// `AgentListener.agentSettings()`: how instances reach the agents' broker.
fn listener_settings(c: &NativeCall<'_>) -> Result<Value, Exc> {
    Ok(with_host(c.rt, |h| h.backend.agent_settings())
        .flatten()
        .map(|j| c.rt.decode(&j))
        .unwrap_or(Value::Null))
}

fn yaml_value(rt: &Rt, text: &str) -> Result<Value, Exc> {
    let mut sources = vetro_diag::SourceMap::new();
    let file = sources.add("<resource>", text);
    let docs =
        vetro_yaml::load_str(&sources, file, &vetro_yaml::LoadOptions::default()).map_err(|d| {
            cloud_error(format!(
                "Resources.yaml: {}",
                d.first().map(|x| x.message.clone()).unwrap_or_default()
            ))
        })?;
    Ok(docs
        .first()
        .map(|n| rt.decode(&vetro_yaml::to_json(n)))
        .unwrap_or(Value::Null))
}

fn stack_name(o: &Object) -> String {
    match &prop(o, "name") {
        Value::Str(s) => s.to_string(),
        _ => format!("stack-{}", o.id),
    }
}

fn heat(
    rt: &Rt,
    this: &Value,
    method: &str,
    a: &dyn Fn(usize, &str) -> Value,
) -> Result<Value, Exc> {
    let o = this_object(this)?;
    // The stack object's own copy; else what the cloud has (a stack pushed by
    // an earlier run on the same backend); else an empty template.
    let template = || -> Result<Json, Exc> {
        Ok(match rt.encode(&prop(&o, "heatTemplate"))? {
            Json::Null => with_host(rt, |h| h.backend.stack_template(&stack_name(&o)))
                .flatten()
                .unwrap_or_else(|| json!({"heat_template_version": "2013-05-23"})),
            t => t,
        })
    };
    match method {
        "current" => Ok(rt.decode(&template()?)),
        "parameters" => Ok(match prop(&o, "heatParameters") {
            Value::Null => Value::dict(Default::default()),
            p => p,
        }),
        "setTemplate" => {
            set_prop(&o, "heatTemplate", a(0, "template"));
            Ok(Value::Null)
        }
        "updateTemplate" => {
            let mut t = template()?;
            let add = rt.encode(&a(0, "template"))?;
            merge_json(&mut t, &add, &mut rt.writing_walk("template"))?;
            set_prop(&o, "heatTemplate", rt.decode(&t));
            Ok(Value::Null)
        }
        "setParameters" => {
            set_prop(&o, "heatParameters", a(0, "parameters"));
            Ok(Value::Null)
        }
        "updateParameters" => {
            let mut p = rt.encode(&prop(&o, "heatParameters"))?;
            if p.is_null() {
                p = json!({});
            }
            let add = rt.encode(&a(0, "parameters"))?;
            merge_json(&mut p, &add, &mut rt.writing_walk("parameters"))?;
            set_prop(&o, "heatParameters", rt.decode(&p));
            Ok(Value::Null)
        }
        // Like current(): the cloud's outputs when this run pushed nothing.
        "output" => Ok(match prop(&o, "heatOutputs") {
            Value::Null => with_host(rt, |h| h.backend.stack_outputs(&stack_name(&o)))
                .flatten()
                .map(|j| rt.decode(&j))
                .unwrap_or_else(|| Value::dict(Default::default())),
            v => v,
        }),
        "push" => {
            let name = stack_name(&o);
            let t = template()?;
            let params = match rt.encode(&prop(&o, "heatParameters"))? {
                Json::Null => json!({}),
                p => p,
            };
            let count = t
                .get("resources")
                .and_then(Json::as_object)
                .map_or(0, |m| m.len());
            let r = with_host(rt, |h| {
                let r = h.backend.push_stack(&name, &t, &params);
                let backend = h.backend.name().to_string();
                match &r {
                    Ok(_) => h.emit(
                        EventKind::StackPush,
                        Some(o.id.clone()),
                        format!("stack {name}: pushed {count} resource(s) to the {backend} cloud"),
                    ),
                    Err(e) => h.emit(
                        EventKind::StackPush,
                        Some(o.id.clone()),
                        format!("stack {name}: push failed: {e}"),
                    ),
                }
                r
            })
            .unwrap_or_else(|| Err("no cloud backend".into()));
            let outputs = r.map_err(|e| backend_error(rt, e))?;
            with_host(rt, |h| {
                if !h.pushed_stacks.contains(&name) {
                    h.pushed_stacks.push(name.clone());
                }
            });
            set_prop(&o, "heatOutputs", rt.decode(&outputs));
            Ok(rt.decode(&outputs))
        }
        "delete" => {
            let name = stack_name(&o);
            with_host(rt, |h| {
                let r = h.backend.delete_stack(&name);
                h.emit(
                    EventKind::StackDelete,
                    Some(o.id.clone()),
                    format!("stack {name}: deleted"),
                );
                r
            })
            .unwrap_or(Ok(()))
            .map_err(|e| backend_error(rt, e))?;
            set_prop(&o, "heatTemplate", Value::Null);
            set_prop(&o, "heatOutputs", Value::Null);
            Ok(Value::Null)
        }
        other => Err(Exc::engine(
            EngineExc::NoMethodFound,
            format!("Method \"{other}\" is not found in class io.murano.system.HeatStack"),
        )),
    }
}

/// The environment an object belongs to (its nearest `io.murano.Environment` owner).
fn environment_of(o: &Rc<Object>) -> Option<Rc<Object>> {
    let mut cur = o.owner.borrow().clone();
    while let Some(c) = cur {
        if c.class.is_a("io.murano.Environment") {
            return Some(c);
        }
        cur = c.owner.borrow().clone();
    }
    None
}

/// Seconds from a MuranoPL timeout argument (null: `default`).
fn seconds(v: &Value, default: f64) -> std::time::Duration {
    let s = match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => default,
    };
    std::time::Duration::from_secs_f64(s.clamp(0.0, 1e9))
}

/// Murano's default wait for an agent's answer (`[engine] agent_timeout`).
const AGENT_TIMEOUT_SECONDS: f64 = 3600.0;

fn agent(
    rt: &Rt,
    this: &Value,
    method: &str,
    a: &dyn Fn(usize, &str) -> Value,
) -> Result<Value, Exc> {
    let o = this_object(this)?;
    let host_obj = as_object(&prop(&o, "host")).map(|(h, _)| h);
    let (host, host_id) = match &host_obj {
        Some(h) => (describe(h), h.id.clone()),
        None => ("unknown host".to_string(), o.id.clone()),
    };
    let env_id = host_obj
        .as_ref()
        .and_then(environment_of)
        .map(|e| e.id.clone())
        .unwrap_or_default();
    let backend =
        |f: &dyn Fn(&dyn CloudBackend) -> String| with_host(rt, |h| f(h.backend.as_ref()));
    let queue = backend(&|b| b.agent_queue(&env_id, &host_id)).unwrap_or_default();
    let real = with_host(rt, |h| h.backend.agent_settings().is_some()).unwrap_or(false);
    match method {
        "queueName" => Ok(Value::str(&queue)),
        // A real agent answers an empty plan when it is up.
        "isReady" if real => {
            let plan = json!({"Body": "return", "FormatVersion": "2.0.0", "Scripts": {}, "Files": {}, "ID": agent_plan::new_id()});
            let result_queue = backend(&|b| b.result_queue(&env_id)).unwrap_or_default();
            let call = AgentCall {
                host: &host,
                queue: &queue,
                result_queue: &result_queue,
                timeout: Some(seconds(&a(0, "timeout"), 100.0)),
            };
            let ready = with_host(rt, |h| h.backend.agent_call(&call, &plan));
            match ready {
                Some(Err(_)) => match rt.limit_passed() {
                    Some(e) => Err(e),
                    None => Ok(Value::Bool(false)),
                },
                r => Ok(Value::Bool(matches!(r, Some(Ok(_))))),
            }
        }
        "isReady" => Ok(Value::Bool(true)),
        "call" | "send" | "callRaw" | "sendRaw" => {
            let raw = method.ends_with("Raw");
            let mut plan = rt.encode(&a(0, if raw { "plan" } else { "template" }))?;
            if real && !raw {
                let read =
                    |path: &str| read_resource(rt, path, &Value::Null).map_err(|e| e.message());
                plan = agent_plan::build(plan, &read).map_err(cloud_error)?;
            }
            let timeout = match method {
                "call" => Some(seconds(&a(2, "timeout"), AGENT_TIMEOUT_SECONDS)),
                "callRaw" => Some(seconds(&a(1, "timeout"), AGENT_TIMEOUT_SECONDS)),
                _ => None,
            };
            let result_queue = backend(&|b| b.result_queue(&env_id)).unwrap_or_default();
            let call = AgentCall {
                host: &host,
                queue: &queue,
                result_queue: &result_queue,
                timeout,
            };
            let r = with_host(rt, |h| {
                let r = h.backend.agent_call(&call, &plan);
                h.emit(
                    EventKind::AgentCall,
                    Some(o.id.clone()),
                    agent_event(&host, &plan, real, &r),
                );
                r
            })
            .unwrap_or(Ok(Json::Null))
            .map_err(|e| backend_error(rt, e))?;
            Ok(if timeout.is_none() {
                Value::Null
            } else {
                rt.decode(&r)
            })
        }
        other => Err(Exc::engine(
            EngineExc::NoMethodFound,
            format!("Method \"{other}\" is not found in class io.murano.system.Agent"),
        )),
    }
}

/// `text`, or its first 120 characters and an ellipsis.
fn short(text: &str) -> String {
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The progress line of an agent call.
fn agent_event(host: &str, plan: &Json, real: bool, r: &Result<Json, String>) -> String {
    // Format 2 plans name their scripts, format 1 plans their commands.
    let (label, names): (&str, Vec<String>) = match plan.get("Scripts") {
        Some(Json::Object(m)) => ("scripts", m.keys().cloned().collect()),
        _ => (
            "commands",
            plan.get("Commands")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| Some(c.get("Name")?.as_str()?.to_string()))
                .collect(),
        ),
    };
    let title = plan
        .get("Name")
        .and_then(Json::as_str)
        .map(|n| format!(" {n:?}"))
        .unwrap_or_default();
    let what = if names.is_empty() {
        String::new()
    } else {
        format!(" ({label}: {})", names.join(", "))
    };
    match (real, r) {
        (false, Ok(Json::Null)) => {
            format!("agent on {host}: execution plan{title}{what} not executed (simulated)")
        }
        (false, Ok(v)) => format!(
            "agent on {host}: execution plan{title}{what} not executed (simulated), answered {}",
            short(&v.to_string())
        ),
        (false, Err(e)) => format!(
            "agent on {host}: execution plan{title}{what} not executed (simulated), failed: {e}"
        ),
        (true, Ok(_)) => format!("agent on {host}: execution plan{title}{what} done"),
        (true, Err(e)) => format!("agent on {host}: execution plan{title}{what} failed: {e}"),
    }
}
