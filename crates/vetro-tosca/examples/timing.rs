//! Timings for BENCHMARKS.md: grammar load + compile, and validation of files
//! given on the command line (in-process, no process start).
//!
//! `cargo run --release -p vetro-tosca --example timing -- FILE...`

use std::time::Instant;
use vetro_diag::SourceMap;
use vetro_tosca::{Checker, BUNDLED_GRAMMAR};

fn main() {
    let runs = 50;
    let start = Instant::now();
    for _ in 0..runs {
        let mut sources = SourceMap::new();
        let g = vetro_kwalify::Grammar::load("g", BUNDLED_GRAMMAR, &mut sources);
        assert!(g.is_ok());
    }
    let per = start.elapsed().as_secs_f64() / runs as f64;
    println!("grammar decode+parse+compile: {:.2} ms", per * 1e3);
    let mut sources = SourceMap::new();
    let text = String::from_utf8_lossy(BUNDLED_GRAMMAR).into_owned();
    let id = sources.add("g", text);
    let opts = vetro_yaml::LoadOptions::default();
    let start = Instant::now();
    let mut root = None;
    for _ in 0..runs {
        root = vetro_yaml::load_str(&sources, id, &opts)
            .ok()
            .and_then(|mut d| d.pop());
    }
    let parse = start.elapsed().as_secs_f64() / runs as f64;
    let Some(root) = root else { return };
    let start = Instant::now();
    for _ in 0..runs {
        assert!(vetro_kwalify::Grammar::from_node(&root).is_ok());
    }
    let compile = start.elapsed().as_secs_f64() / runs as f64;
    println!(
        "  of which YAML parse: {:.2} ms, compile: {:.2} ms",
        parse * 1e3,
        compile * 1e3
    );
    for file in std::env::args().skip(1) {
        let mut sources = SourceMap::new();
        let checker = match Checker::new(&mut sources) {
            Ok(c) => c,
            Err(_) => return,
        };
        let start = Instant::now();
        let report = checker.validate(std::path::Path::new(&file), &mut sources);
        println!(
            "{file}: {:.1} ms, {} problem(s)",
            start.elapsed().as_secs_f64() * 1e3,
            report.problems.len()
        );
    }
}
