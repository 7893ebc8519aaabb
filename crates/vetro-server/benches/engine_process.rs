//! What an engine process costs a task: the bundled example's deployment
//! run by the engine in this process and in an engine process of its own
//! (`vetro engine-task`), alternately, each run timed from the engine's start
//! to its output as a worker sees it: wall-clock time, and CPU time (this
//! process's, plus its engine processes' once they have ended), which the
//! load of a shared machine disturbs less.
//!
//! `cargo bench -p vetro-server --bench engine_process -- [VETRO] [RUNS]`
//! (VETRO: the binary whose `engine-task` runs the engine processes, default
//! `target/release/vetro`; RUNS: runs of each kind, default 50). The task's
//! limits are `vetro serve`'s defaults, so the engine process gets the same
//! operating-system limits and confinement as in the service.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use vetro_deploy::{MemoryResolver, Outcome, PackageCache, Prepared, TaskKind, TaskLimits};
use vetro_dsl::runtime::limits::{Limits, DEFAULT_MAX_GREEN_THREADS};
use vetro_server::worker::{run_to_end, Runner};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/murano")
}

/// The example's deployment, its package unpacked under `cache`.
fn example_task(cache: &PackageCache) -> Prepared {
    let zip = vetro_deploy::resolve::zip_dir(&examples().join("webserver")).expect("zip");
    let mut resolver = MemoryResolver::default();
    resolver.add(zip).expect("the example package");
    let model: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(examples().join("environment.json")).expect("environment.json"),
    )
    .expect("JSON");
    let limits = TaskLimits {
        engine: Limits {
            max_steps: Some(100_000_000),
            max_time: Some(Duration::from_secs(1800)),
            max_memory: Some(4096 << 20),
            max_green_threads: Some(DEFAULT_MAX_GREEN_THREADS),
            cancel: None,
        },
        archive: Default::default(),
    };
    vetro_deploy::prepare(&vetro_deploy::Task {
        kind: TaskKind::Deploy,
        model,
        cloud_state: None,
        backend: Default::default(),
        project_id: Some("bench".into()),
        policy: None,
        resolver: &resolver,
        cache,
        cancel: Default::default(),
        limits,
    })
    .expect("the example prepares")
}

/// CPU milliseconds (user and system) of this process and of its ended children.
fn cpu_ms() -> f64 {
    let used = |who| {
        // SAFETY: getrusage fills the zeroed struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut u) };
        let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
        ms(u.ru_utime) + ms(u.ru_stime)
    };
    used(libc::RUSAGE_SELF) + used(libc::RUSAGE_CHILDREN)
}

/// One run's wall-clock and CPU milliseconds.
async fn timed(runner: &Runner, task: &Prepared) -> (f64, f64) {
    let (start, cpu) = (Instant::now(), cpu_ms());
    let (reports, out) = run_to_end(runner, task.clone()).await;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let cpu = cpu_ms() - cpu;
    let out = out.unwrap_or_else(|e| panic!("the task did not finish: {e}"));
    assert_eq!(out.outcome, Outcome::Success, "reports: {reports:?}");
    (ms, cpu)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn summary(name: &str, mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    let median = percentile(&ms, 0.5);
    println!(
        "{name:<22} median {median:7.2} ms   p10 {:7.2}   p90 {:7.2}   min {:7.2}   max {:7.2}",
        percentile(&ms, 0.1),
        percentile(&ms, 0.9),
        ms[0],
        ms[ms.len() - 1]
    );
    median
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let vetro = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/release/vetro"));
    let runs: usize = args.get(1).map_or(50, |r| r.parse().expect("RUNS"));
    let program = std::fs::canonicalize(&vetro)
        .unwrap_or_else(|e| panic!("{}: {e} (build it, or pass VETRO)", vetro.display()));
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cache = PackageCache::new(dir.path());
    let task = example_task(&cache);
    let in_process = Runner::InProcess;
    let process = Runner::Process {
        program,
        args: vec!["engine-task".into()],
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        // Warm up both (page cache, the binary's pages, the package's files).
        timed(&in_process, &task).await;
        timed(&process, &task).await;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            a.push(timed(&in_process, &task).await);
            b.push(timed(&process, &task).await);
        }
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "engine of the example's deployment, {runs} runs of each, alternated; load average {}",
            load.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        );
        for (cpu, what) in [(false, "wall-clock"), (true, "CPU")] {
            let column = |v: &[(f64, f64)]| -> Vec<f64> {
                v.iter().map(|&(w, c)| if cpu { c } else { w }).collect()
            };
            let (a, b) = (column(&a), column(&b));
            println!("{what} time:");
            let ma = summary("in this process", a.clone());
            let mb = summary("in an engine process", b.clone());
            let diffs: Vec<f64> = b.iter().zip(&a).map(|(p, i)| p - i).collect();
            summary("difference (pairs)", diffs);
            println!(
                "overhead per task (difference of the medians): {:.2} ms",
                mb - ma
            );
        }
    });
}
