//! Loading throughput of the spanned tree against the raw parser's events.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use saphyr_parser::Parser;
use vetro_yaml::{load_str, LoadOptions, SourceMap};

/// A YAML document of about `bytes` bytes with nested maps, lists, anchors and merges.
fn generate(bytes: usize) -> String {
    let mut out = String::from(
        "defaults: &defaults\n  flavor: m1.small\n  enabled: yes\n  count: 3\nitems:\n",
    );
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "  - name: item-{i}\n    <<: *defaults\n    id: {i}\n    ratio: {}.5\n    tags: [a, b, \"c d\"]\n    meta:\n      owner: 'team {i}'\n      public: off\n",
            i % 100
        ));
        i += 1;
    }
    out
}

fn bench_load(c: &mut Criterion) {
    let text = generate(20 * 1024 * 1024);
    let mut group = c.benchmark_group("yaml-20MB");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("saphyr-parser events", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for event in Parser::new_from_str(&text) {
                event.expect("valid yaml");
                n += 1;
            }
            n
        })
    });
    let mut sources = SourceMap::new();
    let id = sources.add("bench.yaml", text.as_str());
    let opts = LoadOptions::default();
    group.bench_function("vetro-yaml spanned tree", |b| {
        // Freeing the tree is left out of the timing: the raw parser builds none.
        b.iter_with_large_drop(|| load_str(&sources, id, &opts).expect("valid yaml"))
    });
    group.finish();
}

criterion_group!(benches, bench_load);
criterion_main!(benches);
