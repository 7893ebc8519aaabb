//! TOSCA service templates as bytes, with their imports from memory: the
//! input is split at NUL bytes into `main.yaml`, `types/a.yaml`,
//! `types/b.yaml`, ... held in a [`MemoryFiles`] map, so the fuzzer can build
//! import graphs (cycles, `..`, missing files); nothing is read from the file
//! system or the network. Validation and the type catalog report problems,
//! never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;
use vetro_diag::SourceMap;
use vetro_tosca::{Checker, MemoryFiles};

fn checker() -> &'static Checker {
    static C: OnceLock<Checker> = OnceLock::new();
    C.get_or_init(|| Checker::new(&mut SourceMap::new()).expect("the bundled grammar compiles"))
}

/// Names of the files after `main.yaml`, in input order.
const IMPORTED: [&str; 4] = ["types/a.yaml", "types/b.yaml", "c.yaml", "types/sub/d.yaml"];

fuzz_target!(|bytes: &[u8]| {
    let mut parts = bytes.split(|&b| b == 0);
    let mut files = MemoryFiles::new();
    files.insert("main.yaml", parts.next().unwrap_or_default());
    for (name, part) in IMPORTED.iter().zip(parts) {
        files.insert(name, part);
    }
    let checker = checker();
    let mut sources = SourceMap::new();
    let report = checker.validate_in(Path::new("main.yaml"), &files, &mut sources);
    let _ = report.is_valid();
    let mut sources = SourceMap::new();
    let _ = checker.catalog_in(Path::new("main.yaml"), &files, &mut sources);
});
