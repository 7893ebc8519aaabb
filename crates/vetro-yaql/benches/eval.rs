//! Criterion benchmarks: parsing, engine creation, parse-once evaluation,
//! streaming queries.
//! `cargo bench -p vetro-yaql --bench eval`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use vetro_yaql::{Engine, EngineOptions, Expression, Value};

fn records(n: i64) -> Value {
    Value::list(
        (0..n)
            .map(|i| {
                let mut d = vetro_yaql::value::Dict::new();
                d.insert(Value::from("k"), Value::from(format!("key{i:06}")));
                d.insert(Value::from("v"), Value::Int((i * 7919) % 101));
                d.insert(Value::from("g"), Value::from(format!("g{:02}", i % 100)));
                Value::dict(d)
            })
            .collect(),
    )
}

fn bench(c: &mut Criterion) {
    let opts = vetro_yaql::parser::ParserOptions::default();
    c.bench_function("parse simple expression", |b| {
        b.iter(|| vetro_yaql::parser::parse(black_box("$.a + 1"), opts).unwrap())
    });
    c.bench_function("parse query", |b| {
        b.iter(|| {
            vetro_yaql::parser::parse(
                black_box("$.items.where($.v > 3).select({n => $.n, v => $.v * 2}).orderBy($.v)"),
                opts,
            )
            .unwrap()
        })
    });
    c.bench_function("new engine with the standard library", |b| {
        b.iter(|| Engine::new(EngineOptions::default()))
    });
    c.bench_function("new legacy engine", |b| {
        b.iter(|| {
            Engine::new(EngineOptions {
                legacy: true,
                legacy_context: true,
                ..EngineOptions::default()
            })
        })
    });
    let engine = Engine::new(EngineOptions::default());
    let data = records(10_000);
    let where_select = engine.parse("$.where($.v > 50).select($.k).len()").unwrap();
    c.bench_function("where/select over 10k records", |b| {
        b.iter(|| engine.evaluate(&where_select, data.clone(), &[]).unwrap())
    });
    let order = engine
        .parse("$.orderBy($.g).thenByDescending($.v).select($.k).first()")
        .unwrap();
    c.bench_function("orderBy/thenBy over 10k records", |b| {
        b.iter(|| engine.evaluate(&order, data.clone(), &[]).unwrap())
    });
    let group = engine.parse("$.groupBy($.g, $.v, $.sum()).len()").unwrap();
    c.bench_function("groupBy aggregate over 10k records", |b| {
        b.iter(|| engine.evaluate(&group, data.clone(), &[]).unwrap())
    });
    let stream = engine
        .parse("range(1000000).where($ mod 7 = 0).select($ * 2).len()")
        .unwrap();
    c.bench_function("stream 1M elements", |b| {
        b.iter(|| engine.evaluate(&stream, Value::Null, &[]).unwrap())
    });
    // The compiled form against the tree walk alone, on the same tree.
    for (name, text, data) in [
        (
            "range 100k where/select",
            "range(100000).where($ mod 7 = 0).select($ * 2).len()",
            Value::Null,
        ),
        (
            "where/select over 10k records",
            "$.where($.v > 50).select($.k).len()",
            data.clone(),
        ),
    ] {
        let compiled = engine.parse(text).unwrap();
        let walked = Expression::from_tree(compiled.source.clone(), compiled.ast.clone());
        c.bench_function(&format!("{name}, compiled"), |b| {
            b.iter(|| engine.evaluate(&compiled, data.clone(), &[]).unwrap())
        });
        c.bench_function(&format!("{name}, tree walk"), |b| {
            b.iter(|| engine.evaluate(&walked, data.clone(), &[]).unwrap())
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
