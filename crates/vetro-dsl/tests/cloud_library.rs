//! The cloud library on the simulator: instance and network variants, the
//! Heat resources they produce, Resources templates with bind(), the release
//! of an instance that left the model, and the simulated services. The
//! fixture package is tests/fixtures/cloud/apps.

use serde_json::{json, Value};
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use vetro_dsl::cloud::{EventKind, SimulatedCloud};
use vetro_dsl::host::{self, Library, RunOutcome, Target};

fn library() -> Library {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cloud/apps");
    let lib = Library::load(&[dir]);
    let problems: Vec<String> = lib.problems().iter().map(|d| d.message.clone()).collect();
    assert!(problems.is_empty(), "{problems:?}");
    lib
}

fn deploy_on(lib: &Library, model: &Value, cloud: &Rc<RefCell<SimulatedCloud>>) -> RunOutcome {
    let h = lib.host(Box::new(cloud.clone()), None);
    let out = host::run(lib, model, &Target::Root, "deploy", h).expect("model loads");
    if let Err(e) = &out.result {
        panic!("deploy failed: {}", e.message());
    }
    out
}

fn deploy(lib: &Library, model: &Value) -> RunOutcome {
    deploy_on(lib, model, &Rc::new(RefCell::new(SimulatedCloud::new())))
}

fn env(networks: Value, apps: Value) -> Value {
    json!({"Objects": {
        "?": {"id": "env1", "type": "io.murano.Environment"},
        "name": "test-env",
        "defaultNetworks": networks,
        "applications": apps}})
}

fn neutron(cidr: Option<&str>) -> Value {
    let mut n = json!({"?": {"id": "net1", "type": "io.murano.resources.NeutronNetwork"},
                       "name": "lan"});
    if let Some(c) = cidr {
        n["cidr"] = json!(c);
    }
    json!({"environment": n, "flat": null})
}

fn instance(id: &str, class: &str, extra: Value) -> Value {
    let mut i = json!({"?": {"id": id, "type": format!("io.murano.resources.{class}")},
                       "name": id, "image": "img", "flavor": "m1.tiny"});
    if let (Some(m), Some(e)) = (i.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    i
}

fn servers(list: Vec<Value>) -> Value {
    json!([{"?": {"id": "app1", "type": "test.cloud.Servers"}, "servers": list}])
}

fn template(out: &RunOutcome) -> &Value {
    &out.stacks.last().expect("a stack was pushed").1
}

#[test]
fn windows_instance_on_nova_network() {
    let lib = library();
    let nova = json!({"environment": {"?": {"id": "nova1", "type": "io.murano.resources.NovaNetwork"}}, "flat": null});
    let vm = instance("win", "WindowsInstance", json!({"assignFloatingIp": true}));
    let out = deploy(&lib, &env(nova, servers(vec![vm])));
    let t = template(&out);
    let r = &t["resources"];
    // EC2-style group with the RDP rule, named on the server (no ports).
    let group = r
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, v)| v["type"] == "AWS::EC2::SecurityGroup");
    let (gname, g) = group.expect("a security group");
    assert_eq!(
        g["properties"]["SecurityGroupIngress"][0]["FromPort"],
        json!("3389")
    );
    let server = &r["win"];
    assert_eq!(server["type"], json!("OS::Nova::Server"));
    assert_eq!(
        server["properties"]["security_groups"],
        json!([{"get_resource": gname}])
    );
    assert!(server["properties"].get("networks").is_none());
    assert_eq!(
        server["properties"]["user_data_format"],
        json!("HEAT_CFNTOOLS")
    );
    assert_eq!(
        r["win-nova-floating-ip"]["type"],
        json!("OS::Nova::FloatingIP")
    );
    assert_eq!(
        r["win-nova-floating-ip-association"]["properties"]["server_id"],
        json!({"get_resource": "win"})
    );
    let vm = &out.model["Objects"]["applications"][0]["servers"][0];
    assert_eq!(vm["ipAddresses"], json!(["10.100.0.4", "172.24.4.4"]));
    assert_eq!(vm["floatingIpAddress"], json!("172.24.4.4"));
    assert!(
        out.events.iter().any(|e| e.kind == EventKind::Notify),
        "{:?}",
        out.events
    );
}

#[test]
fn linux_variants_and_the_environment_network() {
    let lib = library();
    let a = instance("a", "LinuxInstance", json!({}));
    let b = instance(
        "b",
        "LinuxUDInstance",
        json!({"customUserData": "#cloud-config\n"}),
    );
    let out = deploy(
        &lib,
        &env(neutron(Some("10.30.0.0/24")), servers(vec![a, b])),
    );
    let t = template(&out);
    let r = &t["resources"];
    // Without a group name the instances share the default group, with SSH.
    let (gname, g) = r
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, v)| v["type"] == "OS::Neutron::SecurityGroup")
        .expect("the default security group");
    assert_eq!(g["properties"]["rules"][0]["port_range_min"], json!(22));
    assert_eq!(
        r["a-port-lan"]["properties"]["security_groups"],
        json!([{"get_resource": gname}])
    );
    assert_eq!(r["b"]["properties"]["user_data"], json!("#cloud-config\n"));
    assert_eq!(r["b"]["properties"]["user_data_format"], json!("RAW"));
    assert_eq!(
        r["lan-router-interface"]["type"],
        json!("OS::Neutron::RouterInterface")
    );
    let app = &out.model["Objects"]["applications"][0];
    assert_eq!(
        app["addresses"],
        json!({"a": ["10.30.0.4"], "b": ["10.30.0.5"]})
    );
    // Application.reportDeployed reaches the notifier path.
    assert!(
        out.events
            .iter()
            .any(|e| e.kind == EventKind::Notify && e.message.contains("reported deployed")),
        "{:?}",
        out.events
    );
}

#[test]
fn network_explorer_picks_a_free_cidr_and_describe_reports_it() {
    let lib = library();
    let apps = json!([{"?": {"id": "svc", "type": "test.cloud.Services"},
                       "network": {"?": {"id": "own", "type": "io.murano.resources.NeutronNetwork"},
                                   "name": "own"}}]);
    let out = deploy(&lib, &env(neutron(None), apps));
    let net = &out.model["Objects"]["defaultNetworks"]["environment"];
    let cidr = net["subnetCidr"].as_str().expect("a CIDR was allocated");
    assert!(
        cidr.starts_with("10.0.") && cidr.ends_with(".0/24"),
        "{cidr}"
    );
    let svc = &out.model["Objects"]["applications"][0];
    let own = svc["described"]["cidr"].as_str().unwrap();
    assert_ne!(own, cidr, "two networks got the same CIDR");
    assert_eq!(svc["described"]["provider"], json!("Neutron"));
    assert!(svc["described"]["gateway"]
        .as_str()
        .is_some_and(|g| g.ends_with(".1")));
    assert_eq!(svc["owner"], json!("sim-project"));
    let m = svc["mistral"].as_str().unwrap();
    assert!(m.contains("not available in the simulated backend"), "{m}");
    assert!(out
        .events
        .iter()
        .any(|e| e.kind == EventKind::Network && e.message.contains("CIDR")));
}

#[test]
fn existing_network_ports_use_the_inventory() {
    let lib = library();
    let existing = json!({"environment": {"?": {"id": "ex", "type": "io.murano.resources.ExistingNeutronNetwork"},
                                          "internalNetworkName": "private"}, "flat": null});
    let vm = instance("vm", "Instance", json!({"assignFloatingIp": true}));
    let out = deploy(&lib, &env(existing, servers(vec![vm])));
    let port = &template(&out)["resources"]["vm-port-private"]["properties"];
    assert_eq!(port["network"], json!("sim-net-private"));
    assert_eq!(port["fixed_ips"], json!([{"subnet": "sim-subnet-private"}]));
    let vm = &out.model["Objects"]["applications"][0]["servers"][0];
    assert_eq!(vm["ipAddresses"], json!(["10.254.0.4", "172.24.4.4"]));
    assert_eq!(vm["floatingIpAddress"], json!("172.24.4.4"));
}

#[test]
fn resources_yaml_templates_bind_their_placeholders() {
    let lib = library();
    let apps = json!([{"?": {"id": "t", "type": "test.cloud.Templated"},
                       "instance": instance("vm", "LinuxMuranoInstance", json!({}))}]);
    let out = deploy(&lib, &env(neutron(Some("10.40.0.0/24")), apps));
    let app = &out.model["Objects"]["applications"][0];
    let plan = &app["plan"];
    assert_eq!(
        plan["Name"],
        json!("Configure $site"),
        "only whole-string placeholders bind"
    );
    assert_eq!(plan["Parameters"]["port"], json!(8080));
    assert_eq!(plan["Parameters"]["site"], json!("hello"));
    assert_eq!(
        plan["Parameters"]["listen"],
        json!("http://10.40.0.4:8080/")
    );
    assert_eq!(plan["Parameters"]["hello"], json!("the key is bound too"));
    assert_eq!(plan["Parameters"]["untouched"], json!("plain text"));
    assert_eq!(app["script"], json!("#!/bin/sh\necho configured\n"));
    // The simulated agent answers with the plan's Result.
    assert_eq!(
        app["answer"],
        json!({"port": 8080, "url": "http://10.40.0.4:8080/hello"})
    );
}

#[test]
fn an_instance_removed_from_the_model_leaves_the_stack() {
    let lib = library();
    let cloud = Rc::new(RefCell::new(SimulatedCloud::new()));
    let keep = instance(
        "keep",
        "LinuxMuranoInstance",
        json!({"assignFloatingIp": true}),
    );
    let gone = instance(
        "gone",
        "LinuxMuranoInstance",
        json!({"assignFloatingIp": true}),
    );
    let first = deploy_on(
        &lib,
        &env(neutron(Some("10.50.0.0/24")), servers(vec![keep, gone])),
        &cloud,
    );
    let r = &template(&first)["resources"];
    assert!(
        r.get("gone").is_some()
            && r.get("gone-port-lan").is_some()
            && r.get("gone-floating-ip").is_some()
    );
    // The next deployment: the same model without `gone`.
    let mut next = first.model.clone();
    let list = next["Objects"]["applications"][0]["servers"]
        .as_array_mut()
        .unwrap();
    list.retain(|s| s["name"] != json!("gone"));
    let second = deploy_on(&lib, &next, &cloud);
    let t = template(&second);
    let r = t["resources"].as_object().unwrap();
    assert!(!r.keys().any(|k| k.starts_with("gone")), "{:?}", r.keys());
    assert!(
        r.contains_key("keep")
            && r.contains_key("keep-port-lan")
            && r.contains_key("keep-floating-ip")
    );
    let outputs = t["outputs"].as_object().unwrap();
    assert!(
        !outputs.keys().any(|k| k.starts_with("gone")),
        "{:?}",
        outputs.keys()
    );
    // The kept instance keeps its addresses; the release was reported.
    let kept = &second.model["Objects"]["applications"][0]["servers"][0];
    assert_eq!(
        kept["ipAddresses"],
        first.model["Objects"]["applications"][0]["servers"][0]["ipAddresses"]
    );
    assert!(
        second.events.iter().any(|e| e.kind == EventKind::Notify
            && e.message.contains("gone")
            && e.message.contains("untracked")),
        "{:?}",
        second.events
    );
    assert!(second
        .events
        .iter()
        .any(|e| e.kind == EventKind::Log && e.message.contains("Releasing instance gone")));
}

#[test]
fn heat_software_config_instances_add_deployments() {
    let lib = library();
    let apps = json!([{"?": {"id": "sc", "type": "test.cloud.SoftwareConfig"},
                       "instance": instance("vm", "HeatSWConfigLinuxInstance", json!({}))}]);
    let out = deploy(&lib, &env(neutron(Some("10.60.0.0/24")), apps));
    let r = &template(&out)["resources"];
    assert_eq!(r["vm-hello"]["type"], json!("OS::Heat::SoftwareConfig"));
    assert_eq!(r["vm-hello"]["properties"]["group"], json!("script"));
    let d = &r["vm-hello-deployment"];
    assert_eq!(d["type"], json!("OS::Heat::SoftwareDeployment"));
    assert_eq!(d["properties"]["server"], json!({"get_resource": "vm"}));
    assert_eq!(d["properties"]["input_values"], json!({"who": "world"}));
    assert_eq!(
        r["vm"]["properties"]["user_data_format"],
        json!("SOFTWARE_CONFIG")
    );
    // LinuxInstance's SSH rule still applies.
    assert!(r
        .as_object()
        .unwrap()
        .values()
        .any(|v| v["type"] == "OS::Neutron::SecurityGroup"));
}

#[test]
fn affinity_groups_and_volumes() {
    let lib = library();
    let mut vm = instance(
        "vm",
        "Instance",
        json!({"instanceAffinityGroup": {"?": {"id": "grp", "type": "io.murano.resources.InstanceAffinityGroup"}, "affinity": true},
               "volumes": {"/srv": {"?": {"id": "v", "type": "io.murano.resources.CinderVolume"}, "name": "srv", "size": 2}}}),
    );
    vm["?"]["metadata"] = json!({"role": "db"});
    let out = deploy(&lib, &env(neutron(Some("10.70.0.0/24")), servers(vec![vm])));
    assert_eq!(
        template(&out)["resources"]["vm"]["properties"]["metadata"],
        json!({"role": "db"})
    );
    let r = &template(&out)["resources"];
    assert_eq!(
        r["server-group-grp"]["properties"]["policies"],
        json!(["affinity"])
    );
    assert_eq!(
        r["vm"]["properties"]["scheduler_hints"],
        json!({"group": {"get_resource": "server-group-grp"}})
    );
    assert_eq!(r["srv-volume"]["properties"]["size"], json!(2));
    assert_eq!(
        r["srv-attachment-vm"]["properties"]["volume_id"],
        json!({"get_resource": "srv-volume"})
    );
}

#[test]
fn an_instance_the_application_drops_is_released_in_the_same_run() {
    let lib = library();
    let cloud = Rc::new(RefCell::new(SimulatedCloud::new()));
    let a = instance("a", "Instance", json!({}));
    let b = instance("b", "Instance", json!({}));
    let first = deploy_on(
        &lib,
        &env(neutron(Some("10.80.0.0/24")), servers(vec![a, b])),
        &cloud,
    );
    let h = lib.host(Box::new(cloud.clone()), None);
    let out = host::run(
        &lib,
        &first.model,
        &Target::Object("app1".into()),
        "dropLast",
        h,
    )
    .unwrap();
    let keys = out.result.expect("the action runs");
    let keys: Vec<&str> = keys
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        keys.contains(&"a") && keys.contains(&"a-port-lan"),
        "{keys:?}"
    );
    assert!(!keys.iter().any(|k| k.starts_with("b")), "{keys:?}");
    assert!(
        out.events.iter().any(|e| e.kind == EventKind::StackPush),
        "{:?}",
        out.events
    );
}

#[test]
fn muranopl_tests_of_the_library_pass() {
    let lib = library();
    let results = vetro_dsl::testing::run_all(&lib, None);
    let failed: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.failure
                .as_ref()
                .map(|f| format!("{}: {}", r.method, f.message))
        })
        .collect();
    assert_eq!(
        results.len(),
        6,
        "{:?}",
        results.iter().map(|r| &r.method).collect::<Vec<_>>()
    );
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn flat_and_custom_networks_and_the_primary_one() {
    let lib = library();
    let nets = json!({
        "environment": {"?": {"id": "net1", "type": "io.murano.resources.NeutronNetwork"}, "name": "lan", "cidr": "10.11.0.0/24"},
        "flat": {"?": {"id": "flat1", "type": "io.murano.resources.ExistingNeutronNetwork"}}});
    let vm = instance(
        "vm",
        "Instance",
        json!({"assignFloatingIp": true,
               "networks": {"useEnvironmentNetwork": false, "useFlatNetwork": true,
                            "customNetworks": [{"?": {"id": "extra", "type": "io.murano.resources.NeutronNetwork"},
                                                "name": "extra", "cidr": "10.12.0.0/24"}]}}),
    );
    let out = deploy(&lib, &env(nets, servers(vec![vm])));
    let r = template(&out)["resources"].as_object().unwrap().clone();
    assert!(!r.contains_key("vm-port-lan"), "{:?}", r.keys());
    assert!(r.contains_key("vm-port-private") && r.contains_key("vm-port-extra"));
    // The floating IP goes to the primary (the flat) network's port.
    assert_eq!(
        r["vm-floating-ip"]["properties"]["port_id"],
        json!({"get_resource": "vm-port-private"})
    );
    // As Nova lists a server's addresses: the floating address under the
    // network it was associated through, and last in ipAddresses.
    let vm = &out.model["Objects"]["applications"][0]["servers"][0];
    assert_eq!(
        vm["ipAddresses"],
        json!(["10.254.0.4", "10.12.0.4", "172.24.4.4"])
    );
    let lists: Vec<_> = vm["joinedNetworks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["ipList"].clone())
        .collect();
    assert_eq!(
        lists,
        vec![json!(["10.254.0.4", "172.24.4.4"]), json!(["10.12.0.4"])]
    );
}

#[test]
fn shared_ips_and_existing_volumes() {
    let lib = library();
    let vm = instance(
        "vm",
        "Instance",
        json!({
            "sharedIps": [{"?": {"id": "vip", "type": "io.murano.SharedIp"}, "assignFloatingIp": true}],
            "volumes": {
                "/old": {"?": {"id": "old", "type": "io.murano.resources.ExistingCinderVolume"}, "openstackId": "vol-123"},
                "/new": {"?": {"id": "new", "type": "io.murano.resources.CinderVolume"}, "name": "fresh", "size": 1,
                         "sourceSnapshot": {"?": {"id": "snap", "type": "io.murano.resources.CinderVolumeSnapshot"}, "openstackId": "snap-9"}}}}),
    );
    let out = deploy(&lib, &env(neutron(Some("10.13.0.0/24")), servers(vec![vm])));
    let r = &template(&out)["resources"];
    // The shared address is a port of its own; the instance's port allows it.
    assert_eq!(r["shared-ip-vip"]["type"], json!("OS::Neutron::Port"));
    assert_eq!(
        r["vm-port-lan"]["properties"]["allowed_address_pairs"],
        json!([{"ip_address": {"get_attr": ["shared-ip-vip", "fixed_ips", 0, "ip_address"]}}])
    );
    let vip = &out.model["Objects"]["applications"][0]["servers"][0]["sharedIps"][0];
    assert_eq!(vip["virtualIp"], json!("10.13.0.4"));
    assert_eq!(vip["floatingIpAddress"], json!("172.24.4.4"));
    assert_eq!(
        r["vol-123-attachment-vm"]["properties"]["volume_id"],
        json!("vol-123")
    );
    assert_eq!(
        r["fresh-volume"]["properties"]["snapshot_id"],
        json!("snap-9")
    );
    assert!(out
        .events
        .iter()
        .any(|e| e.message.contains("Snapshot snap-9 is not checked")));
}

#[test]
fn stack_outputs_come_from_the_cloud_in_a_later_run() {
    let lib = library();
    let cloud = Rc::new(RefCell::new(SimulatedCloud::new()));
    let vm = instance("vm", "Instance", json!({}));
    let first = deploy_on(
        &lib,
        &env(neutron(Some("10.14.0.0/24")), servers(vec![vm])),
        &cloud,
    );
    // The state survives a save/restore too (what a host would keep on disk).
    let restored = SimulatedCloud::restore(&cloud.borrow().save()).unwrap();
    let h = lib.host(Box::new(restored), None);
    let out = host::run(
        &lib,
        &first.model,
        &Target::Object("app1".into()),
        "stackOutputs",
        h,
    )
    .unwrap();
    let outputs = out.result.expect("the action runs");
    assert_eq!(outputs["vm-port-lan-ip"], json!("10.14.0.4"));
    assert!(outputs["vm-id"]
        .as_str()
        .is_some_and(|id| id.starts_with("sim-")));
}
