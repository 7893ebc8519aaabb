//! The local cloud simulator: the default backend. Nothing leaves the machine.
//! Stack pushes keep the merged HOT template and give every resource a
//! simulated physical id and attributes (ports and servers get addresses from
//! per-subnet pools, floating IPs from a public pool); outputs are resolved
//! from those attributes. Agent calls execute nothing: the result is what the
//! execution plan declares under `Result` (null otherwise).

use super::CloudBackend;
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;

/// Default pool when a port or server names no subnet with a CIDR.
const DEFAULT_CIDR: &str = "10.0.0.0/24";
/// Pool of floating (public) addresses.
const FLOATING_CIDR: &str = "172.24.4.0/24";

#[derive(Default, Clone, Debug)]
struct Stack {
    template: Json,
    /// resource name -> (type, physical id, attributes)
    resources: HashMap<String, (String, String, Json)>,
}

/// An IPv4 pool over a CIDR; hands out .4, .5, ... like a fresh Neutron subnet.
#[derive(Clone, Debug)]
struct Pool {
    base: u32,
    size: u32,
    next: u32,
}

fn parse_cidr(cidr: &str) -> Option<(u32, u32)> {
    let (addr, bits) = cidr.split_once('/')?;
    let bits: u32 = bits.trim().parse().ok().filter(|b| *b <= 30)?;
    let mut base = 0u32;
    let parts: Vec<&str> = addr.trim().split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    for p in parts {
        base = (base << 8) | p.parse::<u8>().ok()? as u32;
    }
    let mask = if bits == 0 {
        0
    } else {
        u32::MAX << (32 - bits)
    };
    Some((base & mask, 1u32 << (32 - bits)))
}

fn ip_text(n: u32) -> String {
    format!(
        "{}.{}.{}.{}",
        n >> 24,
        (n >> 16) & 255,
        (n >> 8) & 255,
        n & 255
    )
}

/// The simulated cloud.
#[derive(Default)]
pub struct SimulatedCloud {
    stacks: HashMap<String, Stack>,
    pools: HashMap<String, Pool>,
}

fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

/// `{get_resource: name}` -> name.
fn resource_ref(v: &Json) -> Option<&str> {
    v.get("get_resource").and_then(Json::as_str)
}

impl SimulatedCloud {
    pub fn new() -> SimulatedCloud {
        SimulatedCloud::default()
    }

    fn allocate(&mut self, cidr: &str) -> Result<String, String> {
        let (base, size) = parse_cidr(cidr).ok_or_else(|| format!("invalid CIDR {cidr:?}"))?;
        let pool = self.pools.entry(cidr.to_string()).or_insert(Pool {
            base,
            size,
            next: 4,
        });
        if pool.next >= pool.size.saturating_sub(1) {
            return Err(format!("address pool {cidr} is exhausted"));
        }
        let ip = ip_text(pool.base + pool.next);
        pool.next += 1;
        Ok(ip)
    }

    /// Attributes of a new resource of type `ty` with `props`.
    fn build(&mut self, stack: &Stack, name: &str, ty: &str, props: &Json) -> Result<Json, String> {
        let cidr_of_subnet = |r: &str| -> Option<String> {
            let res = stack.template.get("resources")?.get(r)?;
            res.get("properties")?
                .get("cidr")?
                .as_str()
                .map(str::to_string)
        };
        Ok(match ty {
            "OS::Neutron::Subnet" => json!({"cidr": props.get("cidr"), "name": name}),
            "OS::Neutron::Port" => {
                let subnet = props
                    .get("fixed_ips")
                    .and_then(|f| f.get(0))
                    .and_then(|f| f.get("subnet").or_else(|| f.get("subnet_id")))
                    .and_then(resource_ref)
                    .map(str::to_string);
                let cidr = subnet
                    .as_deref()
                    .and_then(cidr_of_subnet)
                    .unwrap_or_else(|| DEFAULT_CIDR.to_string());
                let ip = self.allocate(&cidr)?;
                let network = props
                    .get("network")
                    .and_then(resource_ref)
                    .unwrap_or("network")
                    .to_string();
                json!({"fixed_ips": [{"ip_address": ip, "subnet_id": subnet}],
                       "network": network,
                       "mac_address": format!("fa:16:3e:{}", &short_hash(name)[..6])})
            }
            "OS::Neutron::FloatingIP" => {
                json!({"floating_ip_address": self.allocate(FLOATING_CIDR)?})
            }
            _ => json!({"name": props.get("name").cloned().unwrap_or(json!(name))}),
        })
    }

    /// Server attributes come from its ports (created earlier in the same push).
    fn server_attrs(&mut self, stack: &Stack, name: &str, props: &Json) -> Result<Json, String> {
        let mut networks = Map::new();
        let mut first = None;
        for n in props
            .get("networks")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default()
        {
            let (net, ip) = match n.get("port").and_then(resource_ref) {
                Some(port) => match stack.resources.get(port) {
                    Some((_, _, a)) => (
                        a.get("network")
                            .and_then(Json::as_str)
                            .unwrap_or("network")
                            .to_string(),
                        a.pointer("/fixed_ips/0/ip_address")
                            .and_then(Json::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    ),
                    None => return Err(format!("server {name}: port {port} is not defined")),
                },
                None => {
                    let net = n
                        .get("network")
                        .and_then(Json::as_str)
                        .unwrap_or("network")
                        .to_string();
                    (net, self.allocate(DEFAULT_CIDR)?)
                }
            };
            first.get_or_insert_with(|| ip.clone());
            if let Some(a) = networks
                .entry(net)
                .or_insert_with(|| json!([]))
                .as_array_mut()
            {
                a.push(json!(ip));
            }
        }
        Ok(
            json!({"name": props.get("name").cloned().unwrap_or(json!(name)),
                  "networks": networks, "first_address": first}),
        )
    }

    /// Resolve Heat intrinsic functions against the simulated resources.
    fn resolve(stack: &Stack, params: &Json, v: &Json) -> Json {
        match v {
            Json::Object(m) if m.len() == 1 => {
                let (k, arg) = m.iter().next().expect("one entry");
                match k.as_str() {
                    "get_resource" => arg
                        .as_str()
                        .and_then(|r| stack.resources.get(r))
                        .map(|(_, id, _)| json!(id))
                        .unwrap_or(Json::Null),
                    "get_param" => arg
                        .as_str()
                        .and_then(|p| params.get(p))
                        .cloned()
                        .unwrap_or(Json::Null),
                    "get_attr" => {
                        let Some(a) = arg.as_array() else {
                            return Json::Null;
                        };
                        let Some((_, _, attrs)) = a
                            .first()
                            .and_then(Json::as_str)
                            .and_then(|r| stack.resources.get(r))
                        else {
                            return Json::Null;
                        };
                        let mut cur = attrs.clone();
                        for seg in &a[1..] {
                            cur = match seg {
                                Json::Number(n) => n
                                    .as_u64()
                                    .and_then(|i| cur.get(i as usize).cloned())
                                    .unwrap_or(Json::Null),
                                Json::String(s) => cur.get(s).cloned().unwrap_or(Json::Null),
                                _ => Json::Null,
                            };
                        }
                        cur
                    }
                    _ => {
                        let mut out = Map::new();
                        out.insert(k.clone(), Self::resolve(stack, params, arg));
                        Json::Object(out)
                    }
                }
            }
            Json::Object(m) => Json::Object(
                m.iter()
                    .map(|(k, x)| (k.clone(), Self::resolve(stack, params, x)))
                    .collect(),
            ),
            Json::Array(a) => {
                Json::Array(a.iter().map(|x| Self::resolve(stack, params, x)).collect())
            }
            other => other.clone(),
        }
    }
}

impl CloudBackend for SimulatedCloud {
    fn name(&self) -> &str {
        "simulated"
    }

    fn push_stack(&mut self, name: &str, template: &Json, params: &Json) -> Result<Json, String> {
        let mut stack = self.stacks.remove(name).unwrap_or_default();
        stack.template = template.clone();
        let resources: Vec<(String, Json)> = template
            .get("resources")
            .and_then(Json::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        // Resources removed from the template are deleted; kept ones keep
        // their ids and addresses.
        stack
            .resources
            .retain(|k, _| resources.iter().any(|(n, _)| n == k));
        // Servers last: their addresses come from ports.
        let mut order: Vec<&(String, Json)> = resources.iter().collect();
        order
            .sort_by_key(|(_, r)| r.get("type").and_then(Json::as_str) == Some("OS::Nova::Server"));
        for (rname, res) in order {
            let ty = res
                .get("type")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string();
            if matches!(stack.resources.get(rname), Some((t, _, _)) if *t == ty) {
                continue;
            }
            let props = res.get("properties").cloned().unwrap_or(json!({}));
            let attrs = if ty == "OS::Nova::Server" {
                self.server_attrs(&stack, rname, &props)?
            } else {
                self.build(&stack, rname, &ty, &props)?
            };
            let id = format!("sim-{}", short_hash(&format!("{name}/{rname}")));
            stack.resources.insert(rname.clone(), (ty, id, attrs));
        }
        let mut outputs = Map::new();
        if let Some(o) = template.get("outputs").and_then(Json::as_object) {
            for (k, v) in o {
                let value = v.get("value").cloned().unwrap_or(Json::Null);
                outputs.insert(k.clone(), Self::resolve(&stack, params, &value));
            }
        }
        self.stacks.insert(name.to_string(), stack);
        Ok(Json::Object(outputs))
    }

    fn delete_stack(&mut self, name: &str) -> Result<(), String> {
        self.stacks.remove(name);
        Ok(())
    }

    fn agent_call(&mut self, _host: &str, plan: &Json) -> Result<Json, String> {
        Ok(plan.get("Result").cloned().unwrap_or(Json::Null))
    }

    fn stack_template(&self, name: &str) -> Option<Json> {
        self.stacks.get(name).map(|s| s.template.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_and_servers_get_addresses_from_the_subnet() {
        let mut c = SimulatedCloud::new();
        let t = json!({"resources": {
            "net": {"type": "OS::Neutron::Net", "properties": {"name": "n"}},
            "sub": {"type": "OS::Neutron::Subnet", "properties": {"network": {"get_resource": "net"}, "cidr": "192.168.5.0/24"}},
            "vm": {"type": "OS::Nova::Server", "properties": {"networks": [{"port": {"get_resource": "p"}}]}},
            "p": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": "net"}, "fixed_ips": [{"subnet": {"get_resource": "sub"}}]}},
            "fip": {"type": "OS::Neutron::FloatingIP", "properties": {}}},
            "outputs": {"ip": {"value": {"get_attr": ["p", "fixed_ips", 0, "ip_address"]}},
                        "nets": {"value": {"get_attr": ["vm", "networks"]}},
                        "pub": {"value": {"get_attr": ["fip", "floating_ip_address"]}}}});
        let out = c.push_stack("s", &t, &json!({})).unwrap();
        assert_eq!(out["ip"], json!("192.168.5.4"));
        assert_eq!(out["nets"], json!({"net": ["192.168.5.4"]}));
        assert_eq!(out["pub"], json!("172.24.4.4"));
        // A second push keeps the addresses.
        let again = c.push_stack("s", &t, &json!({})).unwrap();
        assert_eq!(again, out);
        assert_eq!(c.stack_template("s"), Some(t));
    }

    #[test]
    fn bad_cidr_is_an_error_not_a_panic() {
        let mut c = SimulatedCloud::new();
        let t = json!({"resources": {
            "sub": {"type": "OS::Neutron::Subnet", "properties": {"cidr": "nope"}},
            "p": {"type": "OS::Neutron::Port", "properties": {"fixed_ips": [{"subnet": {"get_resource": "sub"}}]}}}});
        assert!(c.push_stack("s", &t, &json!({})).is_err());
    }
}
