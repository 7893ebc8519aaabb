//! Decomposition and enforcement on a small model written for these tests.

use vetro_policy::datalog::PolicyKind;
use vetro_policy::enforce::validate;
use vetro_policy::facts::{decompose, ClassHierarchy, DecomposeOptions, MValue};
use vetro_yaml::{load_str, LoadOptions, SourceMap};

const MODEL: &str = r#"
'?': {id: env1, type: io.murano.Environment}
name: demo
applications:
- '?': {id: app1, type: demo.Web/1.0@pkg}
  name: web
  flavor: m1.huge
  ports: [80, 443]
  server:
    '?': {id: vm1, type: demo.Vm}
    keyname: ''
    peer: app1
  extra:
  - '?': {id: loose1, type: demo.Loose}
"#;

fn model() -> MValue {
    let mut sources = SourceMap::new();
    let id = sources.add("model.yaml", MODEL);
    MValue::from_node(&load_str(&sources, id, &LoadOptions::default()).unwrap()[0])
}

#[test]
fn decomposition_rows() {
    let opts = DecomposeOptions {
        tenant: Some("t1".into()),
        classes: ClassHierarchy::parse_edges("demo.Web->demo.App\ndemo.App->demo.Base").unwrap(),
    };
    let d = decompose(&model(), &opts).unwrap();
    let rows: Vec<String> = d.rows.iter().map(|r| r.render()).collect();
    for expected in [
        r#"murano:objects+("env1", "t1", "io.murano.Environment")"#,
        r#"murano:objects+("app1", "env1", "demo.Web")"#,
        r#"murano:relationships+("env1", "app1", "services")"#,
        r#"murano:relationships+("app1", "vm1", "server")"#,
        r#"murano:relationships+("vm1", "app1", "peer")"#,
        r#"murano:properties+("app1", "ports", "80")"#,
        r#"murano:properties+("vm1", "keyname", "")"#,
        r#"murano:parent_types+("app1", "demo.Base")"#,
        r#"murano:connected+("app1", "app1")"#,
        r#"murano:objects+("loose1", "app1", "demo.Loose")"#,
    ] {
        assert!(rows.iter().any(|r| r == expected), "missing {expected}");
    }
    assert!(!rows
        .iter()
        .any(|r| r.contains(r#"connected+("app1", "loose1")"#)));
}

#[test]
fn predeploy_errors_found() {
    let d = decompose(&model(), &DecomposeOptions::default()).unwrap();
    let policy = "ok_flavor(\"m1.small\")\n\
        predeploy_errors(e, o, m) :- murano:properties(o, \"flavor\", f), not ok_flavor(f), murano:objects(e, t, \"io.murano.Environment\"), concat(\"bad flavor \", f, m)\n";
    let found = validate(&d, policy, PolicyKind::Nonrecursive).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].atom,
        r#"predeploy_errors("env1", "app1", "bad flavor m1.huge")"#
    );
}

#[test]
fn not_an_object_model() {
    let mut sources = SourceMap::new();
    let id = sources.add("bad.yaml", "[1, 2]");
    let node = MValue::from_node(&load_str(&sources, id, &LoadOptions::default()).unwrap()[0]);
    assert!(decompose(&node, &DecomposeOptions::default()).is_err());
}

#[test]
fn incremental_revalidation_matches_full_evaluation() {
    use vetro_policy::enforce::Session;
    use vetro_policy::facts::{Row, Table};
    let d = decompose(&model(), &DecomposeOptions::default()).unwrap();
    let policy = "ok_flavor(\"m1.small\")\n\
        env_of(o, e) :- murano:connected(e, o), murano:objects(e, t, \"io.murano.Environment\")\n\
        predeploy_errors(e, o, m) :- murano:properties(o, \"flavor\", f), not ok_flavor(f), env_of(o, e), concat(\"bad flavor \", f, m)\n\
        predeploy_errors(e, o, \"no keypair\") :- murano:objects(o, p, \"demo.Vm\"), env_of(o, e), not has_key(o)\n\
        has_key(o) :- murano:properties(o, \"keyname\", k), not empty(k)\n\
        empty(\"\")\n";
    let mut s = Session::new(&d, policy, PolicyKind::Nonrecursive).unwrap();
    let atoms = |s: &mut Session| {
        s.violations()
            .unwrap()
            .into_iter()
            .map(|v| v.atom)
            .collect::<Vec<_>>()
    };
    assert_eq!(atoms(&mut s).len(), 2);
    let row = |t: Table, v: [&str; 3]| Row {
        table: t,
        values: v.iter().map(|x| x.to_string()).collect(),
    };
    // Fix the flavor and give the VM a key: both errors disappear.
    s.update(
        &[
            row(Table::Properties, ["app1", "flavor", "m1.huge"]),
            row(Table::Properties, ["vm1", "keyname", ""]),
        ],
        &[
            row(Table::Properties, ["app1", "flavor", "m1.small"]),
            row(Table::Properties, ["vm1", "keyname", "ops"]),
        ],
    );
    assert!(atoms(&mut s).is_empty());
    // Back again: the same two errors as a full evaluation.
    s.update(
        &[
            row(Table::Properties, ["app1", "flavor", "m1.small"]),
            row(Table::Properties, ["vm1", "keyname", "ops"]),
        ],
        &[
            row(Table::Properties, ["app1", "flavor", "m1.huge"]),
            row(Table::Properties, ["vm1", "keyname", ""]),
        ],
    );
    let mut inc = atoms(&mut s);
    inc.sort();
    let mut full: Vec<String> = validate(&d, policy, PolicyKind::Nonrecursive)
        .unwrap()
        .into_iter()
        .map(|v| v.atom)
        .collect();
    full.sort();
    assert_eq!(inc, full);
}
