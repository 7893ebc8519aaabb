//! The local cloud simulator: the default backend. Nothing leaves the machine.
//! Stack pushes keep the merged HOT template and give every resource a
//! simulated physical id and attributes (ports and servers get addresses from
//! per-subnet pools, floating IPs from a public pool); outputs are resolved
//! from those attributes. Agent calls execute nothing: the result is what the
//! agent results given with [`SimulatedCloud::set_agent_results`] say the
//! instance's scripts would answer, else what the execution plan declares
//! under `Result` (null otherwise).
//!
//! Besides the stacks, the simulated project has a small fixed inventory that
//! the network explorer sees: an external network `public` (172.24.4.0/24, the
//! floating pool), a tenant network `private` (10.254.0.0/24) and a router
//! joining them. Networks created by stacks are listed too.
//!
//! [`catalog`] lists what the simulated project offers to configure an
//! application with (what the dashboard's forms list as choices): flavors
//! `m1.tiny` to `m1.xlarge`, three images with Murano metadata (two Linux, one
//! Windows) and a CirrOS image without it, key pair `vetro-key`, zones `nova`
//! and `nova-2`, the tenant network `private` with its subnet, security
//! group `default`, one volume and one snapshot, DNS zone `example.org.`.

use super::agent_results::{AgentResults, Answer};
use super::CloudBackend;
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;

/// Default pool when a port or server names no subnet with a CIDR.
const DEFAULT_CIDR: &str = "10.0.0.0/24";
/// Pool of floating (public) addresses.
const FLOATING_CIDR: &str = "172.24.4.0/24";
/// Addresses of servers that join no Neutron port (nova-network).
const NOVA_CIDR: &str = "10.100.0.0/24";
/// Where the network explorer picks environment subnets from: /24s of this /19.
const ENV_CIDR_RANGE: &str = "10.0.0.0/19";
/// Ids of the pre-existing inventory.
const PUBLIC_NET: &str = "sim-net-public";
const PRIVATE_NET: &str = "sim-net-private";
const PRIVATE_CIDR: &str = "10.254.0.0/24";
const ROUTER: &str = "sim-router";
/// The project that owns the simulated inventory.
const PROJECT_ID: &str = "sim-project";

#[derive(Default, Clone, Debug)]
struct Stack {
    template: Json,
    /// resource name -> (type, physical id, attributes)
    resources: HashMap<String, (String, String, Json)>,
    /// The outputs of the last push.
    outputs: Json,
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
    /// CIDRs handed out by the network explorer, by the key they were asked for.
    cidrs: Vec<(String, String)>,
    /// What the agents answer (configuration, not state: never saved).
    agent_results: AgentResults,
}

fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

/// The fixed part of the simulated project: networks, subnets, the router
/// and its ports, as Neutron lists them.
fn inventory() -> Json {
    json!({
        "networks": [
            {"id": PUBLIC_NET, "name": "public", "router:external": true,
             "tenant_id": "sim-admin", "subnets": ["sim-subnet-public"], "status": "ACTIVE"},
            {"id": PRIVATE_NET, "name": "private", "router:external": false,
             "tenant_id": PROJECT_ID, "subnets": ["sim-subnet-private"], "status": "ACTIVE"}],
        "subnets": [
            {"id": "sim-subnet-public", "name": "public-subnet", "network_id": PUBLIC_NET,
             "cidr": FLOATING_CIDR, "gateway_ip": "172.24.4.1", "dns_nameservers": [],
             "ip_version": 4, "tenant_id": "sim-admin"},
            {"id": "sim-subnet-private", "name": "private-subnet", "network_id": PRIVATE_NET,
             "cidr": PRIVATE_CIDR, "gateway_ip": "10.254.0.1", "dns_nameservers": ["8.8.8.8"],
             "ip_version": 4, "tenant_id": PROJECT_ID}],
        "ports": [
            {"id": "sim-port-router-private", "network_id": PRIVATE_NET, "device_id": ROUTER,
             "device_owner": "network:router_interface",
             "fixed_ips": [{"subnet_id": "sim-subnet-private", "ip_address": "10.254.0.1"}]},
            {"id": "sim-port-router-gateway", "network_id": PUBLIC_NET, "device_id": ROUTER,
             "device_owner": "network:router_gateway",
             "fixed_ips": [{"subnet_id": "sim-subnet-public", "ip_address": "172.24.4.2"}]}],
        "routers": [
            {"id": ROUTER, "name": "murano-default-router",
             "external_gateway_info": {"network_id": PUBLIC_NET}}],
        "extensions": [
            {"alias": "security-group", "name": "security-group"},
            {"alias": "router", "name": "Neutron L3 Router"}]
    })
}

/// The choices the simulated project offers (see the module documentation).
pub fn catalog() -> super::CloudCatalog {
    use super::catalog::{Flavor, Image, Network, Subnet, Volume, Zone};
    let flavor = |name: &str, vcpus, ram_mb, disk_gb| Flavor {
        id: format!("sim-flavor-{name}"),
        name: name.to_string(),
        vcpus,
        ram_mb,
        disk_gb,
    };
    let image = |name: &str, murano: Option<(&str, &str)>| Image {
        id: format!("sim-image-{name}"),
        name: name.to_string(),
        status: "active".to_string(),
        murano_type: murano.map(|(t, _)| t.to_string()),
        title: murano.map(|(_, title)| title.to_string()),
    };
    let inv = inventory();
    let subnet = |id: &str| {
        let s = inventory_list(&inv, "subnets").find(|s| s["id"] == json!(id));
        Subnet {
            id: id.to_string(),
            name: s.and_then(|s| s["name"].as_str()).unwrap_or(id).to_string(),
            cidr: s
                .and_then(|s| s["cidr"].as_str())
                .unwrap_or_default()
                .to_string(),
        }
    };
    let networks = inventory_list(&inv, "networks")
        .map(|n| Network {
            id: n["id"].as_str().unwrap_or_default().to_string(),
            name: n["name"].as_str().unwrap_or_default().to_string(),
            external: n["router:external"].as_bool().unwrap_or(false),
            subnets: inventory_list(n, "subnets")
                .filter_map(Json::as_str)
                .map(subnet)
                .collect(),
        })
        .collect();
    super::CloudCatalog {
        flavors: vec![
            flavor("m1.tiny", 1, 512, 1),
            flavor("m1.small", 1, 2048, 20),
            flavor("m1.medium", 2, 4096, 40),
            flavor("m1.large", 4, 8192, 80),
            flavor("m1.xlarge", 8, 16384, 160),
        ],
        images: vec![
            image("ubuntu-22.04", Some(("linux", "Ubuntu 22.04"))),
            image("debian-12", Some(("linux", "Debian 12"))),
            image(
                "windows-2019",
                Some(("windows.2019", "Windows Server 2019")),
            ),
            image("cirros-0.6", None),
        ],
        keypairs: vec!["vetro-key".to_string()],
        zones: ["nova", "nova-2"]
            .iter()
            .map(|z| Zone {
                name: z.to_string(),
                available: true,
            })
            .collect(),
        networks,
        security_groups: vec!["default".to_string()],
        volumes: vec![
            Volume {
                id: "sim-volume-data".to_string(),
                name: "data".to_string(),
                snapshot: false,
            },
            Volume {
                id: "sim-snapshot-data-1".to_string(),
                name: "data-snapshot-1".to_string(),
                snapshot: true,
            },
        ],
        dns_zones: vec!["example.org.".to_string()],
    }
}

fn inventory_list<'a>(inv: &'a Json, what: &str) -> impl Iterator<Item = &'a Json> {
    inv.get(what).and_then(Json::as_array).into_iter().flatten()
}

/// CIDR of an inventory subnet, by id or name.
fn inventory_cidr(subnet: &str) -> Option<String> {
    let inv = inventory();
    let found = inventory_list(&inv, "subnets")
        .find(|s| s["id"] == json!(subnet) || s["name"] == json!(subnet))
        .and_then(|s| s["cidr"].as_str().map(str::to_string));
    found
}

/// CIDR of the first subnet of an inventory network, by id or name.
fn inventory_network_cidr(net: &str) -> Option<String> {
    let inv = inventory();
    let id = inventory_list(&inv, "networks")
        .find(|n| n["id"] == json!(net) || n["name"] == json!(net))
        .and_then(|n| n["id"].as_str().map(str::to_string))?;
    let found = inventory_list(&inv, "subnets")
        .find(|s| s["network_id"] == json!(id))
        .and_then(|s| s["cidr"].as_str().map(str::to_string));
    found
}

fn inventory_network_name(net: &str) -> String {
    let inv = inventory();
    let found = inventory_list(&inv, "networks")
        .find(|n| n["id"] == json!(net))
        .and_then(|n| n["name"].as_str().map(str::to_string))
        .unwrap_or_else(|| net.to_string());
    found
}

fn cidrs_overlap(a: &str, b: &str) -> bool {
    match (parse_cidr(a), parse_cidr(b)) {
        (Some((ab, asz)), Some((bb, bsz))) => {
            let (a_end, b_end) = (ab as u64 + asz as u64, bb as u64 + bsz as u64);
            (ab as u64) < b_end && (bb as u64) < a_end
        }
        _ => false,
    }
}

/// `{get_resource: name}` -> name.
fn resource_ref(v: &Json) -> Option<&str> {
    v.get("get_resource").and_then(Json::as_str)
}

impl SimulatedCloud {
    /// A simulator with nothing deployed and no agent results.
    pub fn new() -> SimulatedCloud {
        SimulatedCloud::default()
    }

    /// Answer agent calls from `results` (see [`AgentResults`]).
    pub fn set_agent_results(&mut self, results: AgentResults) {
        self.agent_results = results;
    }

    /// The agent result rules no call has matched yet.
    pub fn unused_agent_results(&self) -> Vec<String> {
        self.agent_results.unused()
    }

    /// Everything the simulator holds (stacks with their resources, address
    /// pools, handed-out CIDRs) as JSON, so that a later run can continue
    /// from it with [`SimulatedCloud::restore`].
    pub fn save(&self) -> Json {
        let mut stacks = Map::new();
        for (name, st) in &self.stacks {
            let resources: Map<String, Json> = st
                .resources
                .iter()
                .map(|(r, (t, id, a))| (r.clone(), json!([t, id, a])))
                .collect();
            stacks.insert(
                name.clone(),
                json!({"template": st.template, "outputs": st.outputs, "resources": resources}),
            );
        }
        let pools: Map<String, Json> = self
            .pools
            .iter()
            .map(|(c, p)| (c.clone(), json!(p.next)))
            .collect();
        json!({"format": STATE_FORMAT, "version": STATE_VERSION,
               "stacks": stacks, "pools": pools, "cidrs": self.cidrs})
    }

    /// A simulator in the state [`SimulatedCloud::save`] wrote.
    /// Anything else (another program's file, a newer version) is refused.
    pub fn restore(state: &Json) -> Result<SimulatedCloud, String> {
        check_state_header(state)?;
        let mut c = SimulatedCloud::new();
        let bad = |what: &str| format!("simulator state: bad {what}");
        let section = |key: &str, array: bool| -> Result<(), String> {
            match state.get(key) {
                Some(Json::Array(_)) if array => Ok(()),
                Some(Json::Object(_)) if !array => Ok(()),
                _ => Err(bad(key)),
            }
        };
        section("stacks", false)?;
        section("pools", false)?;
        section("cidrs", true)?;
        for (name, st) in state
            .get("stacks")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            if !st.is_object() {
                return Err(bad("stack"));
            }
            let mut stack = Stack {
                template: st.get("template").cloned().unwrap_or(Json::Null),
                outputs: st.get("outputs").cloned().unwrap_or(json!({})),
                resources: HashMap::new(),
            };
            for (r, v) in st
                .get("resources")
                .and_then(Json::as_object)
                .into_iter()
                .flatten()
            {
                let (Some(t), Some(id)) = (
                    v.get(0).and_then(Json::as_str),
                    v.get(1).and_then(Json::as_str),
                ) else {
                    return Err(bad("resource"));
                };
                let attrs = v.get(2).cloned().unwrap_or(Json::Null);
                stack
                    .resources
                    .insert(r.clone(), (t.to_string(), id.to_string(), attrs));
            }
            c.stacks.insert(name.clone(), stack);
        }
        for (cidr, next) in state
            .get("pools")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            let (base, size) = parse_cidr(cidr).ok_or_else(|| bad("pool"))?;
            let next = next
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad("pool"))?;
            c.pools.insert(cidr.clone(), Pool { base, size, next });
        }
        for pair in state
            .get("cidrs")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            match (
                pair.get(0).and_then(Json::as_str),
                pair.get(1).and_then(Json::as_str),
            ) {
                (Some(k), Some(v)) => c.cidrs.push((k.to_string(), v.to_string())),
                _ => return Err(bad("CIDR")),
            }
        }
        Ok(c)
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
                // A subnet of the inventory is named by id (a plain string).
                let inventory_subnet = props
                    .get("fixed_ips")
                    .and_then(|f| f.get(0))
                    .and_then(|f| f.get("subnet").or_else(|| f.get("subnet_id")))
                    .and_then(Json::as_str)
                    .map(str::to_string);
                let net_id = props.get("network").and_then(Json::as_str);
                // Or a subnet of this stack named by its physical id.
                let by_id = |ty: &str, id: &str| {
                    stack
                        .resources
                        .iter()
                        .find(|(_, (t, pid, _))| t == ty && pid == id)
                        .map(|(n, _)| n.clone())
                };
                let stack_subnet = inventory_subnet
                    .as_deref()
                    .and_then(|id| by_id("OS::Neutron::Subnet", id));
                let stack_net = net_id.and_then(|id| by_id("OS::Neutron::Net", id));
                let cidr = subnet
                    .as_deref()
                    .or(stack_subnet.as_deref())
                    .and_then(cidr_of_subnet)
                    .or_else(|| inventory_subnet.as_deref().and_then(inventory_cidr))
                    .or_else(|| net_id.and_then(inventory_network_cidr))
                    .unwrap_or_else(|| DEFAULT_CIDR.to_string());
                let ip = self.allocate(&cidr)?;
                let network = props
                    .get("network")
                    .and_then(resource_ref)
                    .map(str::to_string)
                    .or(stack_net)
                    .or_else(|| net_id.map(inventory_network_name))
                    .unwrap_or_else(|| "network".to_string());
                let subnet = subnet.or(inventory_subnet);
                json!({"fixed_ips": [{"ip_address": ip, "subnet_id": subnet}],
                       "network": network,
                       "mac_address": format!("fa:16:3e:{}", &short_hash(name)[..6])})
            }
            "OS::Neutron::FloatingIP" => {
                json!({"floating_ip_address": self.allocate(FLOATING_CIDR)?})
            }
            "OS::Nova::FloatingIP" => json!({"ip": self.allocate(FLOATING_CIDR)?}),
            "OS::Cinder::Volume" => {
                json!({"name": props.get("name").cloned().unwrap_or(json!(name)),
                                          "size": props.get("size"), "attachments_list": []})
            }
            // Nothing runs on the simulated servers: no output, no status code.
            "OS::Heat::SoftwareDeployment" | "OS::Heat::StructuredDeployment" => {
                json!({"deploy_stdout": null, "deploy_stderr": null, "deploy_status_code": null})
            }
            _ => json!({"name": props.get("name").cloned().unwrap_or(json!(name))}),
        })
    }

    /// Server attributes come from its ports (created earlier in the same push).
    fn server_attrs(&mut self, stack: &Stack, name: &str, props: &Json) -> Result<Json, String> {
        let mut networks = Map::new();
        let mut addresses = Map::new();
        let mut first = None;
        let mut nets = props
            .get("networks")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        // No port: the server is on the flat nova-network.
        if nets.is_empty() {
            nets.push(json!({"network": "novanetwork"}));
        }
        for n in nets {
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
                    (net, self.allocate(NOVA_CIDR)?)
                }
            };
            first.get_or_insert_with(|| ip.clone());
            if let Some(a) = addresses
                .entry(net.clone())
                .or_insert_with(|| json!([]))
                .as_array_mut()
            {
                a.push(json!({"addr": ip, "version": 4, "OS-EXT-IPS:type": "fixed"}));
            }
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
                  "networks": networks, "addresses": addresses, "first_address": first}),
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

impl SimulatedCloud {
    /// Networks and subnets the stacks created, in Neutron's list form.
    fn stack_networks(&self) -> (Vec<Json>, Vec<Json>) {
        let mut nets = Vec::new();
        let mut subnets = Vec::new();
        let mut names: Vec<&String> = self.stacks.keys().collect();
        names.sort();
        for sname in names {
            let stack = &self.stacks[sname];
            let mut rnames: Vec<&String> = stack.resources.keys().collect();
            rnames.sort();
            for r in rnames {
                let (ty, id, attrs) = &stack.resources[r];
                let props = stack
                    .template
                    .pointer(&format!(
                        "/resources/{}/properties",
                        r.replace('~', "~0").replace('/', "~1")
                    ))
                    .cloned()
                    .unwrap_or(json!({}));
                let net_id = |p: &Json| {
                    p.get("network")
                        .and_then(resource_ref)
                        .and_then(|n| stack.resources.get(n))
                        .map(|(_, i, _)| json!(i))
                        .unwrap_or(Json::Null)
                };
                match ty.as_str() {
                    "OS::Neutron::Net" => nets.push(json!({
                        "id": id, "name": attrs.get("name").cloned().unwrap_or(json!(r)),
                        "router:external": false, "tenant_id": PROJECT_ID, "status": "ACTIVE"})),
                    "OS::Neutron::Subnet" => subnets.push(json!({
                        "id": id, "name": r, "network_id": net_id(&props),
                        "cidr": props.get("cidr"),
                        "gateway_ip": props.get("cidr").and_then(Json::as_str)
                            .and_then(parse_cidr).map(|(b, _)| ip_text(b + 1)),
                        "dns_nameservers": props.get("dns_nameservers").cloned().unwrap_or(json!([])),
                        "ip_version": 4, "tenant_id": PROJECT_ID})),
                    _ => {}
                }
            }
        }
        (nets, subnets)
    }

    /// CIDRs that are in use: the inventory's, the stacks' subnets and those
    /// already handed out.
    fn taken_cidrs(&self) -> Vec<String> {
        let inv = inventory();
        let mut taken: Vec<String> = inventory_list(&inv, "subnets")
            .filter_map(|s| s["cidr"].as_str().map(str::to_string))
            .collect();
        taken.extend(
            self.stack_networks()
                .1
                .iter()
                .filter_map(|s| s["cidr"].as_str().map(str::to_string)),
        );
        taken.extend(self.cidrs.iter().map(|(_, c)| c.clone()));
        taken
    }
}

impl CloudBackend for SimulatedCloud {
    fn name(&self) -> &'static str {
        "simulated"
    }

    fn list(&self, what: &str) -> Result<Json, String> {
        let inv = inventory();
        let mut items: Vec<Json> = inventory_list(&inv, what).cloned().collect();
        let (nets, subnets) = self.stack_networks();
        match what {
            "networks" => items.extend(nets),
            "subnets" => items.extend(subnets),
            "ports" | "routers" | "extensions" => {}
            other => return Err(format!("the simulated cloud has no {other} to list")),
        }
        Ok(Json::Array(items))
    }

    fn default_router(&mut self) -> Result<String, String> {
        Ok(ROUTER.to_string())
    }

    /// Every subnet of the simulated project counts as taken, whatever the router.
    fn allocate_cidr(&mut self, _router: Option<&str>, key: &str) -> Result<String, String> {
        if let Some((_, c)) = self.cidrs.iter().find(|(k, _)| k == key) {
            return Ok(c.clone());
        }
        let (base, size) = parse_cidr(ENV_CIDR_RANGE).ok_or("bad environment range")?;
        let count = size / 256;
        let taken = self.taken_cidrs();
        // Start where the key's hash points so that different networks try
        // different subnets first, like the reference explorer.
        let start = u32::from_str_radix(&short_hash(key)[..6], 16).unwrap_or(0) % count;
        for i in 0..count {
            let cidr = format!("{}/24", ip_text(base + ((start + i) % count) * 256));
            if !taken.iter().any(|t| cidrs_overlap(t, &cidr)) {
                self.cidrs.push((key.to_string(), cidr.clone()));
                return Ok(cidr);
            }
        }
        Err(format!("no free /24 left in {ENV_CIDR_RANGE}"))
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
        stack.outputs = Json::Object(outputs.clone());
        self.stacks.insert(name.to_string(), stack);
        Ok(Json::Object(outputs))
    }

    fn delete_stack(&mut self, name: &str) -> Result<(), String> {
        self.stacks.remove(name);
        Ok(())
    }

    fn agent_call(&mut self, _call: &super::AgentCall<'_>, plan: &Json) -> Result<Json, String> {
        match self.agent_results.answer(plan) {
            Some(Answer::Result(v)) => Ok(v),
            Some(Answer::Error(e)) => Err(e),
            None => Ok(plan.get("Result").cloned().unwrap_or(Json::Null)),
        }
    }

    fn stack_template(&self, name: &str) -> Option<Json> {
        self.stacks.get(name).map(|s| s.template.clone())
    }

    fn stack_outputs(&self, name: &str) -> Option<Json> {
        self.stacks.get(name).map(|s| s.outputs.clone())
    }
}

/// The `format` member of a saved simulator state.
const STATE_FORMAT: &str = "vetro-simulated-cloud";
/// The state layout [`SimulatedCloud::save`] writes.
const STATE_VERSION: u64 = 1;

/// Whether `state` says it is a simulator state this version can read.
fn check_state_header(state: &Json) -> Result<(), String> {
    let Some(obj) = state.as_object() else {
        return Err("not a vetro simulated-cloud state (not a JSON object)".into());
    };
    if obj.get("format").and_then(Json::as_str) != Some(STATE_FORMAT) {
        return Err(format!(
            "not a vetro simulated-cloud state (no \"format\": \"{STATE_FORMAT}\")"
        ));
    }
    match obj.get("version").and_then(Json::as_u64) {
        Some(STATE_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "simulated-cloud state version {v} is not supported (this vetro reads version {STATE_VERSION})"
            ))
        }
        None => return Err("simulated-cloud state without a version".into()),
    }
    let unknown: Vec<&String> = obj
        .keys()
        .filter(|k| !["format", "version", "stacks", "pools", "cidrs"].contains(&k.as_str()))
        .collect();
    if let Some(k) = unknown.first() {
        return Err(format!("simulated-cloud state: unknown member {k:?}"));
    }
    Ok(())
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
    fn explorer_cidrs_are_stable_per_key_and_avoid_subnets_in_use() {
        let mut c = SimulatedCloud::new();
        let a = c.allocate_cidr(None, "net-a").unwrap();
        assert_eq!(c.allocate_cidr(None, "net-a").unwrap(), a);
        let b = c.allocate_cidr(None, "net-b").unwrap();
        assert_ne!(a, b);
        // A stack subnet on the CIDR "net-c" would pick is skipped.
        let mut d = SimulatedCloud::new();
        let wanted = d.allocate_cidr(None, "net-c").unwrap();
        let mut e = SimulatedCloud::new();
        let t = json!({"resources": {
            "n": {"type": "OS::Neutron::Net", "properties": {"name": "n"}},
            "s": {"type": "OS::Neutron::Subnet", "properties": {"network": {"get_resource": "n"}, "cidr": wanted}}}});
        e.push_stack("st", &t, &json!({})).unwrap();
        assert_ne!(e.allocate_cidr(None, "net-c").unwrap(), wanted);
        // The stack's network and subnet are listed with the inventory.
        let nets = e.list("networks").unwrap();
        assert!(nets.as_array().unwrap().iter().any(|n| n["name"] == "n"));
        let subnets = e.list("subnets").unwrap();
        let s = subnets
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["cidr"] == json!(wanted))
            .unwrap();
        let net_id = nets
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == "n")
            .unwrap()["id"]
            .clone();
        assert_eq!(s["network_id"], net_id);
        assert!(e.list("volumes").is_err());
    }

    #[test]
    fn inventory_ports_and_nova_servers_get_addresses() {
        let mut c = SimulatedCloud::new();
        let t = json!({"resources": {
            "p": {"type": "OS::Neutron::Port", "properties": {"network": PRIVATE_NET, "fixed_ips": [{"subnet": "sim-subnet-private"}]}},
            "vm": {"type": "OS::Nova::Server", "properties": {}},
            "fip": {"type": "OS::Nova::FloatingIP"}},
            "outputs": {"ip": {"value": {"get_attr": ["p", "fixed_ips", 0, "ip_address"]}},
                        "nets": {"value": {"get_attr": ["vm", "networks"]}},
                        "pub": {"value": {"get_attr": ["fip", "ip"]}}}});
        let out = c.push_stack("s", &t, &json!({})).unwrap();
        assert_eq!(out["ip"], json!("10.254.0.4"));
        assert_eq!(out["nets"], json!({"novanetwork": ["10.100.0.4"]}));
        assert_eq!(out["pub"], json!("172.24.4.4"));
    }

    #[test]
    fn saved_state_restores_stacks_pools_and_cidrs() {
        let mut c = SimulatedCloud::new();
        let t = json!({"resources": {
            "sub": {"type": "OS::Neutron::Subnet", "properties": {"cidr": "192.168.9.0/24"}},
            "p": {"type": "OS::Neutron::Port", "properties": {"fixed_ips": [{"subnet": {"get_resource": "sub"}}]}}},
            "outputs": {"ip": {"value": {"get_attr": ["p", "fixed_ips", 0, "ip_address"]}}}});
        let out = c.push_stack("s", &t, &json!({})).unwrap();
        let cidr = c.allocate_cidr(None, "k").unwrap();
        let mut r = SimulatedCloud::restore(&c.save()).unwrap();
        assert_eq!(r.stack_template("s"), Some(t.clone()));
        assert_eq!(r.stack_outputs("s"), Some(out.clone()));
        assert_eq!(r.allocate_cidr(None, "k").unwrap(), cidr);
        // Kept resources keep their addresses; a new port gets the next one.
        let mut t2 = t.clone();
        t2["resources"]["q"] = json!({"type": "OS::Neutron::Port", "properties": {"fixed_ips": [{"subnet": {"get_resource": "sub"}}]}});
        t2["outputs"]["ip2"] = json!({"value": {"get_attr": ["q", "fixed_ips", 0, "ip_address"]}});
        let out2 = r.push_stack("s", &t2, &json!({})).unwrap();
        assert_eq!(out2["ip"], out["ip"]);
        assert_eq!(out2["ip2"], json!("192.168.9.5"));
        assert!(SimulatedCloud::restore(&json!({"pools": {"nope": 4}})).is_err());
    }

    #[test]
    fn bad_cidr_is_an_error_not_a_panic() {
        let mut c = SimulatedCloud::new();
        let t = json!({"resources": {
            "sub": {"type": "OS::Neutron::Subnet", "properties": {"cidr": "nope"}},
            "p": {"type": "OS::Neutron::Port", "properties": {"fixed_ips": [{"subnet": {"get_resource": "sub"}}]}}}});
        assert!(c.push_stack("s", &t, &json!({})).is_err());
    }

    #[test]
    fn agent_results_answer_before_the_plan_s_own_result() {
        let call = crate::cloud::AgentCall {
            host: "vm",
            queue: "q",
            result_queue: "r",
            timeout: None,
        };
        let mut c = SimulatedCloud::new();
        let plan = json!({"Name": "A", "Result": 1});
        assert_eq!(c.agent_call(&call, &plan), Ok(json!(1)));
        assert_eq!(c.agent_call(&call, &json!({"Name": "B"})), Ok(Json::Null));
        let rules = "- plan: A\n  result: 2\n- plan: B\n  error: broken\n";
        c.set_agent_results(AgentResults::parse("r.yaml", rules).unwrap());
        assert_eq!(c.agent_call(&call, &plan), Ok(json!(2)));
        assert_eq!(
            c.agent_call(&call, &json!({"Name": "B"})),
            Err("broken".into())
        );
        assert!(c.unused_agent_results().is_empty());
        // Configuration, not state: a restored simulator has no rules.
        let mut r = SimulatedCloud::restore(&c.save()).unwrap();
        assert_eq!(r.agent_call(&call, &plan), Ok(json!(1)));
    }

    #[test]
    fn only_vetro_state_is_restored() {
        for other in [
            json!({"stacks": {}}),
            json!([]),
            json!({"format": "vetro-simulated-cloud", "version": 99, "stacks": {}, "pools": {}, "cidrs": []}),
            json!({"format": "vetro-simulated-cloud", "version": 1, "stacks": [], "pools": {}, "cidrs": []}),
            json!({"format": "vetro-simulated-cloud", "version": 1, "stacks": {}, "pools": {}, "cidrs": [], "x": 1}),
        ] {
            assert!(SimulatedCloud::restore(&other).is_err(), "{other}");
        }
    }
}
