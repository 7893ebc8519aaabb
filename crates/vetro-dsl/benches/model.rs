//! Load and serialize a generated object model of 2,000 objects in process:
//! the `?` headers, references by id, contracts, `.init` on every object,
//! then the deployment serializer; and what a new session costs.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::{json, Value};
use std::path::Path;
use std::rc::Rc;
use vetro_diag::SourceMap;
use vetro_dsl::package::Package;
use vetro_dsl::runtime::{ClassSource, Rt};

// The allocator of the `vetro` binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OBJECTS: usize = 2_000;

fn member_id(i: usize) -> String {
    format!("m{i:05}")
}

/// A cluster holding `n - 1` members; each links to a later one and names up to
/// three friends by id, so most references are forward references.
fn model(n: usize) -> Value {
    let members: Vec<Value> = (0..n - 1)
        .map(|i| {
            let friends: Vec<Value> = (1..=(i % 3) + 1)
                .map(|k| json!(member_id((i * 7 + k * 131) % (n - 1))))
                .collect();
            json!({
                "?": {"id": member_id(i), "type": "Member"},
                "label": format!("member {i}"),
                "weight": (i * 37) % 101,
                "next": member_id((i + 1) % (n - 1)),
                "friends": friends,
                "labels": {format!("k{}", i % 5): i, "w": i % 7},
            })
        })
        .collect();
    json!({
        "?": {"id": "cluster", "type": "Cluster"},
        "title": "benchmark cluster",
        "members": members,
        "head": member_id(n / 2),
    })
}

/// The bench classes with the core library.
fn classes() -> ClassSource {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/fixtures"));
    let mut sources = SourceMap::new();
    let files = ["ModelBench.yaml".to_string()];
    let tests = Package::load_test_classes(dir, Some(&files), &mut sources);
    assert!(tests.problems.is_empty(), "{:?}", tests.problems);
    let mut source = ClassSource::default();
    source.natives = std::sync::Arc::new(vetro_dsl::host::standard_natives());
    source.add_package(&tests);
    source.add_package(&vetro_dsl::core::core_package(&mut sources));
    source
}

fn session(source: &ClassSource) -> Rc<Rt> {
    Rt::new(source.clone(), json!({}))
}

fn load_and_serialize(c: &mut Criterion) {
    let model = model(OBJECTS);
    let source = classes();
    // What every run, test and deployment pays before its first step.
    c.bench_function("new session over the core library", |b| {
        b.iter(|| session(&source))
    });
    // Set-up (the session) and tear-down (dropping it) are not timed.
    c.bench_function("load + serialize 2,000 objects", |b| {
        b.iter_batched(
            || session(&source),
            |rt| {
                let root = rt.load_model(&model);
                assert!(matches!(root, Ok(Some(_))));
                let out = rt.serialize_model().expect("the model serializes");
                assert_eq!(
                    out["Objects"]["members"].as_array().map(Vec::len),
                    Some(OBJECTS - 1)
                );
                (rt, out)
            },
            BatchSize::PerIteration,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = load_and_serialize
}
criterion_main!(benches);
