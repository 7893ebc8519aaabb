//! An environment's components as a picture: applications on the left, the
//! instances they run on in the middle, the networks on the right, with a
//! line for each "uses" relation. Names are text nodes (escaped by maud).

use crate::api::{object_name, short_type};
use crate::page::clip;
use maud::{html, Markup};
use serde_json::Value;

/// One box of the picture.
struct Node {
    id: String,
    label: String,
    kind: String,
}

/// What the picture shows, gathered from the model.
#[derive(Default)]
struct Graph {
    apps: Vec<Node>,
    instances: Vec<Node>,
    networks: Vec<Node>,
    edges: Vec<(String, String)>,
}

fn node(o: &Value) -> Node {
    Node {
        id: o
            .pointer("/?/id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        label: object_name(o),
        kind: short_type(o.pointer("/?/type").and_then(Value::as_str).unwrap_or("")).to_string(),
    }
}

fn type_of(o: &Value) -> &str {
    o.pointer("/?/type")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn is_instance(o: &Value) -> bool {
    type_of(o).contains("Instance") || (o.get("flavor").is_some() && o.get("image").is_some())
}

fn is_network(o: &Value) -> bool {
    type_of(o).contains("Network")
}

/// Walks `v` (inside the object `owner`) for instances and networks.
fn walk(v: &Value, owner: &str, g: &mut Graph, in_instance: bool) {
    match v {
        Value::Object(m) => {
            let mut owner = owner.to_string();
            let mut in_instance = in_instance;
            if m.get("?").is_some() {
                let n = node(v);
                if is_instance(v) {
                    g.edges.push((owner.clone(), n.id.clone()));
                    owner = n.id.clone();
                    in_instance = true;
                    push_unique(&mut g.instances, n);
                } else if is_network(v) {
                    g.edges.push((owner.clone(), n.id.clone()));
                    push_unique(&mut g.networks, n);
                    return;
                }
            }
            for (k, x) in m {
                if k != "?" {
                    walk(x, &owner, g, in_instance);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, owner, g, in_instance)),
        _ => {}
    }
}

fn push_unique(list: &mut Vec<Node>, n: Node) {
    if !list.iter().any(|x| x.id == n.id) {
        list.push(n);
    }
}

fn graph(services: &[Value], default_network: Option<&Value>) -> Graph {
    let mut g = Graph::default();
    let env_net = default_network.filter(|n| n.is_object()).map(node);
    for app in services {
        let n = node(app);
        let id = n.id.clone();
        g.apps.push(n);
        walk_children(app, &id, &mut g);
    }
    if let Some(net) = env_net {
        // Instances without a network of their own join the environment's.
        let lonely: Vec<String> = g
            .instances
            .iter()
            .filter(|i| {
                !g.edges
                    .iter()
                    .any(|(a, b)| a == &i.id && g.networks.iter().any(|n| &n.id == b))
            })
            .map(|i| i.id.clone())
            .collect();
        for i in lonely {
            g.edges.push((i, net.id.clone()));
        }
        push_unique(&mut g.networks, net);
    }
    g
}

fn walk_children(app: &Value, id: &str, g: &mut Graph) {
    if let Value::Object(m) = app {
        for (k, x) in m {
            if k != "?" {
                walk(x, id, g, false);
            }
        }
    }
}

const BOX_W: i32 = 220;
const BOX_H: i32 = 48;
const ROW: i32 = 64;
const COLS: [i32; 3] = [10, 320, 630];

fn position(g: &Graph, id: &str) -> Option<(i32, i32)> {
    for (col, list) in [&g.apps, &g.instances, &g.networks].into_iter().enumerate() {
        if let Some(i) = list.iter().position(|n| n.id == id) {
            return Some((COLS[col], 30 + i as i32 * ROW));
        }
    }
    None
}

/// The picture of `services` and the environment's default network.
pub fn topology(services: &[Value], default_network: Option<&Value>) -> Markup {
    let g = graph(services, default_network);
    let rows = g
        .apps
        .len()
        .max(g.instances.len())
        .max(g.networks.len())
        .max(1) as i32;
    let height = 40 + rows * ROW;
    let width = COLS[2] + BOX_W + 10;
    let columns = [
        ("Applications", &g.apps),
        ("Instances", &g.instances),
        ("Networks", &g.networks),
    ];
    html! {
        svg.topology xmlns="http://www.w3.org/2000/svg" role="img" viewBox={"0 0 " (width) " " (height)}
            aria-labelledby="topology-title" {
            title #topology-title {
                (g.apps.len()) " applications, " (g.instances.len()) " instances, " (g.networks.len()) " networks"
            }
            @for (a, b) in &g.edges {
                @if let (Some((x1, y1)), Some((x2, y2))) = (position(&g, a), position(&g, b)) {
                    line x1=(x1 + BOX_W) y1=(y1 + BOX_H / 2) x2=(x2) y2=(y2 + BOX_H / 2)
                        stroke="#7d8ea6" stroke-width="2" {}
                }
            }
            @for (col, (heading, list)) in columns.iter().enumerate() {
                text x=(COLS[col]) y="18" font-weight="700" { (heading) }
                @for (i, n) in list.iter().enumerate() {
                    g {
                        rect x=(COLS[col]) y=(30 + i as i32 * ROW) width=(BOX_W) height=(BOX_H) rx="8"
                            fill=(["#e6efff", "#eaf6ee", "#fff4e0"][col]) stroke="#7d8ea6" {}
                        text x=(COLS[col] + 10) y=(30 + i as i32 * ROW + 20) { (clip(&n.label, 26)) }
                        text x=(COLS[col] + 10) y=(30 + i as i32 * ROW + 38) fill="#5b6b82" font-size="11" { (clip(&n.kind, 30)) }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn apps_instances_and_networks_are_linked() {
        let app = json!({"?": {"id": "a", "type": "x.WebServer"}, "name": "web",
            "instance": {"?": {"id": "i", "type": "io.murano.resources.LinuxMuranoInstance"}, "name": "vm", "flavor": "f", "image": "u"}});
        let net =
            json!({"?": {"id": "n", "type": "io.murano.resources.NeutronNetwork"}, "name": "net"});
        let g = graph(&[app], Some(&net));
        assert_eq!(g.apps.len(), 1);
        assert_eq!(g.instances.len(), 1);
        assert_eq!(g.networks.len(), 1);
        assert!(g.edges.contains(&("a".into(), "i".into())));
        assert!(g.edges.contains(&("i".into(), "n".into())));
    }

    #[test]
    fn names_are_escaped_in_the_picture() {
        let app = json!({"?": {"id": "a", "type": "t"}, "name": "<script>alert(1)</script>"});
        let svg = topology(&[app], None).into_string();
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
    }
}
