//! Timings for BENCHMARKS.md: grammar load + compile, and validation of files
//! given on the command line with one checker (in-process, no process start;
//! the mean of 50 validations each).
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
    let Ok(checker) = Checker::new(&mut SourceMap::new()) else {
        return;
    };
    for file in std::env::args().skip(1) {
        let path = std::path::Path::new(&file);
        let start = Instant::now();
        let mut problems = 0;
        for _ in 0..runs {
            problems = checker.validate(path, &mut SourceMap::new()).problems.len();
        }
        let per = start.elapsed().as_secs_f64() / runs as f64;
        println!("{file}: {:.2} ms, {problems} problem(s)", per * 1e3);
    }
}
