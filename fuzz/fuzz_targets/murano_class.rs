//! A MuranoPL class file (the whole input) in a package held in memory:
//! loaded and checked as `vetro check` does, then, when it loads without
//! errors as `vetro run` requires, its `deploy` method (or its first method)
//! run on a one-object model under small step, time and memory limits.
//! Nothing may panic, overflow the stack, or outrun its limits by far.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use vetro_diag::{Severity, SourceMap};
use vetro_dsl::check;
use vetro_dsl::cloud::SimulatedCloud;
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::package::{Package, PackageFiles};
use vetro_dsl::runtime::limits::{set_memory_probe, Limits};

// The allocator underneath: the system's, which AddressSanitizer watches,
// or with the `mimalloc` feature the one the `vetro` binary uses.
#[cfg(feature = "mimalloc")]
use mimalloc::MiMalloc as Inner;
#[cfg(not(feature = "mimalloc"))]
use std::alloc::System as Inner;

/// Counts the bytes in use, so that the session's memory limit is enforced
/// (as in the `vetro` binary) and its overruns can be seen.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = IN_USE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded to the inner allocator unchanged; the
// counters are bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { Inner.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { Inner.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { Inner.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { Inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            IN_USE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MANIFEST: &[u8] = b"Format: MuranoPL/1.4\nFullName: fuzz.pkg\nVersion: 1.0.0\nClasses: {}\n";
const MAX_MEMORY: usize = 16 << 20;
const MAX_TIME: Duration = Duration::from_millis(250);

/// The core and cloud libraries, loaded once.
fn base() -> &'static Library {
    static BASE: OnceLock<Library> = OnceLock::new();
    BASE.get_or_init(|| {
        set_memory_probe(|| IN_USE.load(Relaxed));
        Library::from_packages(Vec::new(), SourceMap::new())
    })
}

/// A library over `base` plus `package` (without reloading the base).
fn library(package: &Package) -> Library {
    let base = base();
    let mut source = base.source.clone();
    // The package's classes win over the bundled ones, as in a real library.
    let bundled = std::mem::take(&mut source.defs);
    source.add_package(package);
    let defs = Arc::make_mut(&mut source.defs);
    for (name, def) in bundled.iter() {
        defs.entry(name.clone()).or_insert_with(|| def.clone());
    }
    let mut files = HashMap::new();
    if let Some(contents) = &package.contents {
        files.insert(package.name.clone(), contents.clone());
    }
    Library {
        sources: SourceMap::new(),
        packages: Vec::new(),
        source,
        roots: HashMap::new(),
        files,
        limits: Limits {
            max_steps: Some(20_000),
            max_time: Some(MAX_TIME),
            max_memory: Some(MAX_MEMORY),
            max_green_threads: Some(64),
            cancel: None,
        },
    }
}

fn run(package: &Package) {
    let Some((class, def)) = package.classes.first() else {
        return;
    };
    let method = if def.methods.contains_key("deploy") {
        "deploy".to_string()
    } else {
        match def.methods.keys().next() {
            Some(m) => m.clone(),
            None => return,
        }
    };
    let lib = library(package);
    let model = json!({"?": {"id": "fuzz1", "type": class}});
    let host = lib.host(Box::new(SimulatedCloud::new()), None);
    let base = IN_USE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let started = Instant::now();
    let _ = host::run(&lib, &model, &Target::Root, &method, host);
    let took = started.elapsed();
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    // Limits are checked between steps, so a step may pass them a little;
    // far beyond is a limit that does not hold.
    assert!(peak < 16 * MAX_MEMORY, "the run held {peak} bytes");
    assert!(took < 12 * MAX_TIME, "the run took {took:?}");
}

fuzz_target!(|bytes: &[u8]| {
    let _ = base();
    let mut files = PackageFiles::new();
    files.insert("manifest.yaml".into(), MANIFEST.to_vec());
    files.insert("Classes/Main.yaml".into(), bytes.to_vec());
    let mut sources = SourceMap::new();
    let package = Package::load_files("fuzz.zip", files, &mut sources);
    let packages = std::slice::from_ref(&package);
    let _ = check::resolution_problems(packages);
    let _ = check::analysis_problems(packages);
    if package
        .problems
        .iter()
        .all(|d| d.severity != Severity::Error)
    {
        run(&package);
    }
});
