//! Load and serialize a generated object model of 2,000 objects through the
//! batch protocol, in process: the `?` headers, references by id, contracts,
//! `.init` on every object, then the deployment serializer.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::{json, Value};
use vetro_dsl::batch::Batch;

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

fn begin() -> Batch {
    let mut batch = Batch::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/fixtures");
    let reply = batch.handle(&json!({"op": "begin", "classes_dir": dir,
                                     "class_files": ["ModelBench.yaml"]}));
    assert_eq!(reply["ok"], json!(true), "{reply}");
    batch
}

fn load_and_serialize(c: &mut Criterion) {
    let model = model(OBJECTS);
    let load = json!({"op": "load", "session": 0, "model": model});
    let serialize = json!({"op": "serialize", "session": 0});
    // Set-up (class loading) and tear-down (dropping the session) are not timed.
    c.bench_function("load + serialize 2,000 objects", |b| {
        b.iter_batched(
            begin,
            |mut batch| {
                let loaded = batch.handle(&load);
                assert_eq!(loaded["ok"], json!(true), "{loaded}");
                let out = batch.handle(&serialize);
                assert_eq!(
                    out["value"]["Objects"]["members"].as_array().map(Vec::len),
                    Some(OBJECTS - 1)
                );
                (batch, out)
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
