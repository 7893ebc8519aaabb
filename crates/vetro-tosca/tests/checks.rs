//! The TOSCA checker on small templates written for these tests.

use std::path::Path;
use vetro_diag::SourceMap;
use vetro_tosca::{Checker, MemoryFiles};

/// A fresh directory with the given files, removed when the value is dropped.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn check(path: &Path) -> Vec<(String, String)> {
    let mut sources = SourceMap::new();
    let checker = Checker::new(&mut sources).expect("bundled grammar");
    let report = checker.validate(path, &mut sources);
    report
        .problems
        .iter()
        .map(|d| (d.path.clone().unwrap_or_default(), d.kind.to_string()))
        .collect()
}

fn check_text(text: &str) -> Vec<(String, String)> {
    let dir = dir_with(&[("t.yaml", text)]);
    let p = check(&dir.path().join("t.yaml"));
    p
}

fn has(problems: &[(String, String)], path: &str, kind: &str) -> bool {
    problems
        .iter()
        .any(|(p, k)| p.starts_with(path) && k == kind)
}

const HEAD: &str = "tosca_definitions_version: tosca_simple_yaml_1_1\n";

const APP: &str = r#"
node_types:
  shop.nodes.App:
    derived_from: tosca.nodes.SoftwareComponent
    properties:
      port:
        type: integer
        default: 80
        constraints:
          - in_range: [1, 1024]
      mode:
        type: string
        required: false
        constraints:
          - valid_values: [fast, safe]
      size: {type: scalar-unit.size, required: false}
      owner: {type: string}
topology_template:
  inputs:
    cpus: {type: integer, default: 2}
  node_templates:
    box:
      type: Compute
      capabilities:
        host:
          properties: {num_cpus: {get_input: cpus}, mem_size: 1 GB}
    app:
      type: shop.nodes.App
      properties:
        owner: ann
        mode: fast
        size: 512 MiB
      requirements:
        - host: box
  outputs:
    ip: {value: {get_attribute: [box, private_address]}}
"#;

fn app_with(from: &str, to: &str) -> String {
    let text = format!("{HEAD}{APP}");
    assert!(text.contains(from), "fixture lacks {from:?}");
    text.replacen(from, to, 1)
}

#[test]
fn a_valid_template_passes() {
    assert_eq!(check_text(&format!("{HEAD}{APP}")), vec![]);
}

#[test]
fn version_selection() {
    let p = check_text(&app_with("tosca_simple_yaml_1_1", "tosca_simple_yaml_1_0"));
    assert_eq!(p, vec![]);
    let p = check_text(&app_with("tosca_simple_yaml_1_1", "tosca_simple_yaml_1_3"));
    assert!(has(&p, "tosca_definitions_version", "bad-enum"), "{p:?}");
}

#[test]
fn grammar_problems_have_paths() {
    let p = check_text(&app_with(
        "        mode: fast\n",
        "        mode: fast\n        colour: red\n",
    ));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/properties/colour",
            "undeclared-name"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with(
        "      type: shop.nodes.App\n",
        "      type: shop.nodes.App\n      colour: red\n",
    ));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/colour",
            "unknown-key"
        ),
        "{p:?}"
    );
    let p = check_text(&format!(
        "{HEAD}topology_template:\n  node_templates: [a, b]\n"
    ));
    assert!(
        has(&p, "topology_template/node_templates", "wrong-type"),
        "{p:?}"
    );
}

#[test]
fn types_and_derivations() {
    let p = check_text(&app_with(
        "type: shop.nodes.App\n      properties",
        "type: shop.nodes.Nope\n      properties",
    ));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/type",
            "unknown-type"
        ),
        "{p:?}"
    );
    let cyc = "node_types:\n  a.A: {derived_from: a.B}\n  a.B: {derived_from: a.A}\n";
    let p = check_text(&format!("{HEAD}{cyc}"));
    assert!(has(&p, "node_types/a.A", "derivation-cycle"), "{p:?}");
    assert!(has(&p, "node_types/a.B", "derivation-cycle"), "{p:?}");
    // Declaration order does not matter.
    let fwd = "node_types:\n  a.A: {derived_from: a.B}\n  a.B: {derived_from: tosca.nodes.Root}\n";
    assert_eq!(check_text(&format!("{HEAD}{fwd}")), vec![]);
}

#[test]
fn values_and_constraints() {
    let p = check_text(&app_with("owner: ann", "owner: ann\n        port: eighty"));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/properties/port",
            "bad-value"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("mode: fast", "mode: slow"));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/properties/mode",
            "constraint-violation"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("size: 512 MiB", "size: 512 parsecs"));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/properties/size",
            "bad-value"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("default: 80", "default: 8080"));
    assert!(
        has(
            &p,
            "node_types/shop.nodes.App/properties/port",
            "constraint-violation"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("- in_range: [1, 1024]", "- in_range: [1, 2, 3]"));
    assert!(
        has(
            &p,
            "node_types/shop.nodes.App/properties/port/constraints",
            "bad-constraint"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("- in_range: [1, 1024]", "- between: [1, 3]"));
    assert!(
        has(
            &p,
            "node_types/shop.nodes.App/properties/port/constraints",
            "unknown-key"
        ),
        "{p:?}"
    );
}

#[test]
fn required_properties_and_references() {
    let p = check_text(&app_with("        owner: ann\n", ""));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/properties",
            "missing-required"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("- host: box", "- host: nobox"));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/requirements/0",
            "unresolved-reference"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with("{get_input: cpus}", "{get_input: gpus}"));
    assert!(
        has(
            &p,
            "topology_template/node_templates/box/capabilities/host/properties/num_cpus",
            "unresolved-reference"
        ),
        "{p:?}"
    );
    let p = check_text(&app_with(
        "[box, private_address]",
        "[bax, private_address]",
    ));
    assert!(
        has(&p, "topology_template/outputs/ip", "unresolved-reference"),
        "{p:?}"
    );
    let p = check_text(&app_with("{get_input: cpus}", "{token: [a, b]}"));
    assert!(
        has(&p, "topology_template/node_templates/box", "bad-function"),
        "{p:?}"
    );
}

#[test]
fn requirement_occurrences() {
    // SoftwareComponent's `host` has TOSCA's default occurrences [1, 1].
    let p = check_text(&app_with("      requirements:\n        - host: box\n", ""));
    assert!(
        has(
            &p,
            "topology_template/node_templates/app/requirements",
            "occurrences"
        ),
        "{p:?}"
    );
}

#[test]
fn imports_cycles_and_failures() {
    let lib = format!(
        "{HEAD}imports: [main.yaml]\nnode_types:\n  lib.Node: {{derived_from: tosca.nodes.Root}}\n"
    );
    let main = format!("{HEAD}imports:\n  - lib/lib.yaml\ntopology_template:\n  node_templates:\n    n: {{type: lib.Node}}\n");
    // main.yaml and lib/lib.yaml import each other: each is loaded once.
    let dir = dir_with(&[
        ("main.yaml", &main),
        ("lib/lib.yaml", &lib.replace("main.yaml", "../main.yaml")),
    ]);
    assert_eq!(check(&dir.path().join("main.yaml")), vec![]);
    let broken = format!("{HEAD}node_types:\n  lib.Node: {{derived_from: lib.Missing}}\n");
    let dir = dir_with(&[("main.yaml", &main), ("lib/lib.yaml", &broken)]);
    let p = check(&dir.path().join("main.yaml"));
    assert!(has(&p, "imports/0", "import-failed"), "{p:?}");
    let missing = format!("{HEAD}imports: [nowhere.yaml, 'http://example.com/x.yaml']\n");
    let p = check_text(&missing);
    assert!(
        has(&p, "imports/0", "import-failed") && has(&p, "imports/1", "import-failed"),
        "{p:?}"
    );
}

fn check_in(files: &MemoryFiles, main: &str) -> Vec<(String, String)> {
    let mut sources = SourceMap::new();
    let checker = Checker::new(&mut sources).expect("bundled grammar");
    let report = checker.validate_in(Path::new(main), files, &mut sources);
    report
        .problems
        .iter()
        .map(|d| (d.path.clone().unwrap_or_default(), d.kind.to_string()))
        .collect()
}

#[test]
fn imports_from_memory_read_nothing_else() {
    let lib = format!(
        "{HEAD}imports: [../main.yaml]\nnode_types:\n  lib.Node: {{derived_from: tosca.nodes.Root}}\n"
    );
    let main = format!("{HEAD}imports:\n  - lib/lib.yaml\ntopology_template:\n  node_templates:\n    n: {{type: lib.Node}}\n");
    let mut files = MemoryFiles::new();
    files.insert("main.yaml", main.as_bytes());
    files.insert("lib/lib.yaml", lib.as_bytes());
    // The cycle ends (each file loads once) and the imported type is known.
    assert_eq!(check_in(&files, "main.yaml"), vec![]);
    assert_eq!(check_in(&files, "./lib/../main.yaml"), vec![]);
    // A file on disk next to the template is not read: only the map is.
    let dir = dir_with(&[("lib/lib.yaml", &lib)]);
    let on_disk = dir.path().join("main.yaml");
    let mut files = MemoryFiles::new();
    files.insert(&on_disk, main.as_bytes());
    let p = check_in(&files, on_disk.to_str().unwrap());
    assert!(has(&p, "imports/0", "import-failed"), "{p:?}");
    // A missing main template is unreadable, as a missing file is.
    let mut sources = SourceMap::new();
    let checker = Checker::new(&mut sources).unwrap();
    let report = checker.validate_in(Path::new("absent.yaml"), &MemoryFiles::new(), &mut sources);
    assert!(report.unreadable);
}

#[test]
fn unreadable_and_malformed_input() {
    let mut sources = SourceMap::new();
    let checker = Checker::new(&mut sources).unwrap();
    let report = checker.validate(Path::new("/nonexistent/x.yaml"), &mut sources);
    assert!(report.unreadable);
    for text in [
        "",
        "a: [",
        "- 1\n",
        "a: 1\n---\nb: 2\n",
        "tosca_definitions_version: [\n",
    ] {
        let p = check_text(text);
        assert!(has(&p, "", "yaml-syntax"), "{text:?}: {p:?}");
    }
}

/// Deterministic mutations of a valid template never make the checker panic.
#[test]
fn mutated_templates_never_panic() {
    let base = format!("{HEAD}{APP}").into_bytes();
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let dir = dir_with(&[]);
    let path = dir.path().join("m.yaml");
    let mut sources = SourceMap::new();
    let checker = Checker::new(&mut sources).unwrap();
    let alphabet = b" :-[]{},\n#&*!|>'\"%@`abc019";
    for _ in 0..150 {
        let mut text = base.clone();
        for _ in 0..(next() % 4 + 1) {
            let at = (next() as usize) % text.len();
            match next() % 3 {
                0 => text[at] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    text.remove(at);
                }
                _ => text.insert(at, alphabet[(next() as usize) % alphabet.len()]),
            }
        }
        std::fs::write(&path, &text).unwrap();
        let mut sources = SourceMap::new();
        let _ = checker.validate(&path, &mut sources);
    }
}

#[test]
fn redefinitions_keep_derived_types() {
    let bad = "node_types:\n  a.A:\n    derived_from: tosca.nodes.Root\n    properties: {p: {type: integer}}\n  a.B:\n    derived_from: a.A\n    properties: {p: {type: string}}\n";
    let p = check_text(&format!("{HEAD}{bad}"));
    assert!(
        has(&p, "node_types/a.B/properties/p/type", "bad-redefinition"),
        "{p:?}"
    );
    let ok = bad.replace("p: {type: string}", "p: {type: integer, default: 3}");
    assert_eq!(check_text(&format!("{HEAD}{ok}")), vec![]);
}

#[test]
fn groups_policies_and_substitution_mappings() {
    let topo = r#"
group_types:
  a.Servers:
    derived_from: tosca.groups.Root
    targets: [tosca.nodes.Compute]
topology_template:
  node_templates:
    box: {type: Compute}
    db:
      type: tosca.nodes.Database
      requirements: [{host: box}]
  groups:
    g: {type: a.Servers, members: [box]}
  policies:
    - p: {type: tosca.policies.Placement, targets: [g, box]}
  substitution_mappings:
    node_type: tosca.nodes.Compute
    capabilities:
      host: [box, host]
"#;
    assert_eq!(check_text(&format!("{HEAD}{topo}")), vec![]);
    let p = check_text(&format!(
        "{HEAD}{}",
        topo.replace("members: [box]", "members: [db, nobody]")
    ));
    assert!(
        has(
            &p,
            "topology_template/groups/g/members/0",
            "unresolved-reference"
        ),
        "{p:?}"
    );
    assert!(
        has(
            &p,
            "topology_template/groups/g/members/1",
            "unresolved-reference"
        ),
        "{p:?}"
    );
    let p = check_text(&format!(
        "{HEAD}{}",
        topo.replace("targets: [g, box]", "targets: [h]")
    ));
    assert!(
        has(
            &p,
            "topology_template/policies/0/p/targets/0",
            "unresolved-reference"
        ),
        "{p:?}"
    );
    let p = check_text(&format!(
        "{HEAD}{}",
        topo.replace("[box, host]", "[box, hots]")
    ));
    assert!(
        has(
            &p,
            "topology_template/substitution_mappings/capabilities/host/1",
            "unresolved-reference"
        ),
        "{p:?}"
    );
}

#[test]
fn a_broken_type_is_reported_once() {
    let text = "node_types:\n  a.A: {derived_from: a.Missing}\ntopology_template:\n  node_templates:\n    n:\n      type: a.A\n      properties: {x: 1}\n      requirements: [{host: m}]\n";
    let p = check_text(&format!("{HEAD}{text}"));
    assert_eq!(
        p,
        vec![(
            "node_types/a.A/derived_from".to_string(),
            "unknown-type".to_string()
        )]
    );
}

#[test]
fn an_endless_grammar_file_is_refused_at_the_input_limit() {
    let Err(problems) = Checker::with_grammar(Path::new("/dev/zero"), &mut SourceMap::new()) else {
        panic!("/dev/zero read as a grammar");
    };
    assert_eq!(problems[0].kind, "too-large", "{:?}", problems[0].message);
}

#[test]
fn a_long_derivation_chain_is_followed_once() {
    // 5,000 node types, each deriving from the one before, and a template of
    // the last: before chains were followed once per type and per check,
    // this took minutes.
    let mut text = format!("{HEAD}node_types:\n");
    for i in 0..5000 {
        let parent = if i == 0 {
            "tosca.nodes.Root".to_string()
        } else {
            format!("my.T{}", i - 1)
        };
        text.push_str(&format!("  my.T{i}:\n    derived_from: {parent}\n"));
        if i % 1000 == 0 {
            text.push_str(&format!(
                "    properties:\n      p{i}:\n        type: integer\n        default: {i}\n"
            ));
        }
    }
    text.push_str("topology_template:\n  node_templates:\n    last:\n      type: my.T4999\n");
    let started = std::time::Instant::now();
    assert_eq!(check_text(&text), vec![]);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(60), "{took:?}");
}
