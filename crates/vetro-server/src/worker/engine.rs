//! Where a prepared task's engine runs: in an engine process of its own
//! (the service's way), or on a blocking thread of this process (tests).
//!
//! An engine process is the same binary started with a hidden subcommand.
//! It speaks [`vetro_deploy::child`]'s JSON Lines over its standard input and
//! output, runs under operating-system limits taken from the task's limits
//! (address space, CPU time, open files, no core files), gets an empty
//! environment (no database URL; a cloud's credentials come with the task
//! on its standard input), confines itself to its task's packages, with
//! Internet sockets only when its cloud needs them ([`vetro_deploy::sandbox`]), and is
//! killed when it is dropped. However it ends (a crash, an abort, a limit's signal), only its
//! own task fails, with a report saying how.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};
use vetro_deploy::child::{FromEngine, ToEngine};
use vetro_deploy::{EngineLimits, Prepared, StatusReport, TaskOutput};

/// How a worker runs engines.
#[derive(Clone, Debug)]
pub enum Runner {
    /// On a blocking thread of the worker's own process. For tests and
    /// embedders only: a task that crashes or exhausts memory takes the
    /// process with it.
    InProcess,
    /// In a process of its own per task: `program args...` must serve
    /// [`vetro_deploy::child::serve`] on its standard input and output.
    Process {
        program: PathBuf,
        args: Vec<OsString>,
    },
}

/// Stack reserved per green thread by the engine (see vetro-dsl's `green.rs`).
const GREEN_STACK: u64 = (8 << 20) + 4096;

/// Address space an engine process needs beyond its session's memory limit
/// and green-thread stacks: the binary, the allocator's reservations, stack
/// segments of deep recursion.
const BASE_ADDRESS_SPACE: u64 = 1 << 30;

/// Files an engine process may have open (the pipes, package files as they load).
pub const ENGINE_OPEN_FILES: u64 = 64;

/// Seconds of CPU an engine process gets beyond its task's time limit
/// before the system stops it (the engine's own limit should fire first).
const CPU_GRACE_SECS: u64 = 10;

/// Longest line an engine process may send (a report, or the output with its model).
const MAX_LINE: u64 = 1 << 30;

/// What is kept of an engine process's standard error for the report.
const STDERR_TAIL: usize = 2048;

/// The operating-system limits of one engine process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OsLimits {
    /// Bytes of address space (`RLIMIT_AS`); `None` when the session has no memory limit.
    pub address_space: Option<u64>,
    /// Seconds of CPU time (`RLIMIT_CPU`); `None` when the session has no time limit.
    pub cpu_seconds: Option<u64>,
    /// Open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: u64,
}

impl OsLimits {
    /// The limits that let a session with `l` run to its own limits, and no further.
    pub fn for_engine(l: &EngineLimits) -> OsLimits {
        let stacks = l
            .max_green_threads
            .map_or(0, |n| n as u64)
            .saturating_mul(GREEN_STACK);
        OsLimits {
            address_space: l.max_memory.map(|m| {
                (m as u64)
                    .saturating_add(stacks)
                    .saturating_add(BASE_ADDRESS_SPACE)
            }),
            cpu_seconds: l
                .max_time_ms
                .map(|ms| ms.div_ceil(1000).saturating_add(CPU_GRACE_SECS)),
            open_files: ENGINE_OPEN_FILES,
        }
    }
}

/// What the worker hears from a running engine.
pub(super) enum Event {
    Report(StatusReport),
    /// The engine ended: its output, or why there is none.
    Done(Result<TaskOutput, String>),
}

/// How the worker stops an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    Running,
    /// At its next step, keeping what it did (a cancel, a lost lease, a stopping worker).
    Cancel,
    /// At once (its wall-clock limit passed).
    Kill,
}

/// A running engine: its events, and the handle that stops it.
pub(super) struct Engine {
    pub events: mpsc::UnboundedReceiver<Event>,
    pub stop: watch::Sender<Stop>,
}

/// Starts the engine of `task` with `runner`.
pub(super) fn start(runner: &Runner, task: Prepared) -> Engine {
    let (tx, events) = mpsc::unbounded_channel();
    let (stop, stop_rx) = watch::channel(Stop::Running);
    match runner {
        Runner::InProcess => in_process(task, tx, stop_rx),
        Runner::Process { program, args } => {
            let (program, args) = (program.clone(), args.clone());
            tokio::spawn(async move {
                let done = in_child(&program, &args, task, &tx, stop_rx).await;
                let _ = tx.send(Event::Done(done));
            });
        }
    }
    Engine { events, stop }
}

/// Runs `task`'s engine with `runner` to its end: its status reports, then
/// its output or why there is none. What a worker does around an engine
/// (leases, storing reports, stops) is left out: benchmarks compare runners
/// with it.
pub async fn run_to_end(
    runner: &Runner,
    task: Prepared,
) -> (Vec<StatusReport>, Result<TaskOutput, String>) {
    let mut engine = start(runner, task);
    let mut reports = Vec::new();
    while let Some(event) = engine.events.recv().await {
        match event {
            Event::Report(r) => reports.push(r),
            Event::Done(done) => return (reports, done),
        }
    }
    (reports, Err("the engine ended without an output".into()))
}

fn in_process(task: Prepared, tx: mpsc::UnboundedSender<Event>, mut stop: watch::Receiver<Stop>) {
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            while stop.changed().await.is_ok() {
                if *stop.borrow() != Stop::Running {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
        });
    }
    tokio::task::spawn_blocking(move || {
        let reports = tx.clone();
        let sink = Box::new(move |r: &StatusReport| {
            let _ = reports.send(Event::Report(r.clone()));
        });
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            vetro_deploy::run_prepared(&task, cancel, sink)
        }));
        let done = out.map_err(|_| "the engine stopped unexpectedly (a panic)".to_string());
        let _ = tx.send(Event::Done(done.map(|mut o| {
            o.packages = task.packages.clone();
            o
        })));
    });
}

async fn in_child(
    program: &PathBuf,
    args: &[OsString],
    task: Prepared,
    tx: &mpsc::UnboundedSender<Event>,
    mut stop: watch::Receiver<Stop>,
) -> Result<TaskOutput, String> {
    let limits = OsLimits::for_engine(&task.limits);
    let mut child = command(program, args, limits)
        .spawn()
        .map_err(|e| format!("cannot start the engine process {}: {e}", program.display()))?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the engine process has no pipes".into());
    };
    let packages = task.packages.clone();
    let mut line = serde_json::to_vec(&ToEngine::Run {
        task: Box::new(task),
    })
    .map_err(|e| format!("cannot encode the task: {e}"))?;
    line.push(b'\n');
    let tail = tokio::spawn(stderr_tail(stderr));
    // The engine reads its whole task before it writes: no deadlock here.
    // A process that died at once shows in its exit status below.
    let _ = stdin.write_all(&line).await;
    let _ = stdin.flush().await;
    let mut reader = BufReader::new(stdout);
    let mut output = None;
    let mut killed = false;
    // A read the stop branch interrupts keeps what it read in `buf`: a line
    // is only cleared once it is whole.
    let mut buf = Vec::new();
    loop {
        let room = MAX_LINE.saturating_sub(buf.len() as u64);
        let mut limited = (&mut reader).take(room);
        tokio::select! {
            read = limited.read_until(b'\n', &mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(_) if !buf.ends_with(b"\n") && buf.len() as u64 >= MAX_LINE => {
                    let _ = child.start_kill();
                    return Err(format!("the engine process sent a message over {} MiB", MAX_LINE >> 20));
                }
                // The end of the output came without a newline; the next read says so.
                Ok(_) if !buf.ends_with(b"\n") => {}
                Ok(_) => {
                    match serde_json::from_slice::<FromEngine>(&buf) {
                        Ok(FromEngine::Report { report }) => { let _ = tx.send(Event::Report(report)); }
                        Ok(FromEngine::Done { output: o }) => output = Some(*o),
                        Ok(FromEngine::Unconfined { missing }) => warn_unconfined(&missing),
                        Err(e) => {
                            let _ = child.start_kill();
                            return Err(format!("the engine process sent a message that is not one: {e}"));
                        }
                    }
                    buf.clear();
                }
            },
            changed = stop.changed(), if !killed => {
                let how = if changed.is_ok() { *stop.borrow() } else { Stop::Kill };
                match how {
                    Stop::Running => {}
                    Stop::Cancel => {
                        let cancel = b"{\"type\":\"cancel\"}\n";
                        let _ = stdin.write_all(cancel).await;
                        let _ = stdin.flush().await;
                    }
                    Stop::Kill => {
                        killed = true;
                        let _ = child.start_kill();
                    }
                }
            }
        }
    }
    drop(stdin);
    let status = child
        .wait()
        .await
        .map_err(|e| format!("cannot wait for the engine process: {e}"))?;
    match output {
        Some(mut o) => {
            o.packages = packages;
            Ok(o)
        }
        None => {
            let tail = tail.await.unwrap_or_default();
            Err(describe_exit(status, killed, &limits, &tail))
        }
    }
}

/// Logs, once per worker process, each protection engine processes lack.
fn warn_unconfined(missing: &str) {
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|m| m == missing) && seen.len() < 16 {
        seen.push(missing.to_string());
        tracing::warn!("engine processes run less confined than they should: {missing}");
    }
}

/// The engine process's command: piped, limited, with an empty environment.
fn command(program: &PathBuf, args: &[OsString], limits: OsLimits) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .env_clear()
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    {
        let worker = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and only
        // makes system calls that are async-signal-safe (setrlimit, prctl,
        // getppid); it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                apply(&limits)?;
                die_with(worker)
            });
        }
    }
    cmd
}

/// The engine process is killed when its worker dies: a worker's task is
/// taken over by another worker, and the dead one's engine must not go on
/// deploying beside the new one (pushing stacks, sending plans).
#[cfg(target_os = "linux")]
fn die_with(worker: u32) -> std::io::Result<()> {
    // SAFETY: plain system calls with integer arguments.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // The worker died before the line above: nothing would signal us.
        if libc::getppid() as u32 != worker {
            return Err(std::io::Error::other("the worker is gone"));
        }
    }
    Ok(())
}

#[cfg(all(unix, not(target_os = "linux")))]
fn die_with(_worker: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn apply(l: &OsLimits) -> std::io::Result<()> {
    fn set(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
        let lim = libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        };
        // SAFETY: a plain system call on a value on the stack.
        if unsafe { libc::setrlimit(resource, &lim) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    if let Some(bytes) = l.address_space {
        set(libc::RLIMIT_AS, bytes, bytes)?;
    }
    if let Some(secs) = l.cpu_seconds {
        // SIGXCPU at the soft limit, SIGKILL at the hard one.
        set(libc::RLIMIT_CPU, secs, secs.saturating_add(5))?;
    }
    set(libc::RLIMIT_NOFILE, l.open_files, l.open_files)?;
    set(libc::RLIMIT_CORE, 0, 0)
}

async fn stderr_tail(mut stderr: impl AsyncRead + Unpin) -> String {
    let mut tail: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        tail.extend_from_slice(&chunk[..n]);
        if tail.len() > 2 * STDERR_TAIL {
            tail.drain(..tail.len() - STDERR_TAIL);
        }
    }
    let start = tail.len().saturating_sub(STDERR_TAIL);
    String::from_utf8_lossy(&tail[start..]).trim().to_string()
}

/// Why an engine process ended without an output, in words.
fn describe_exit(
    status: std::process::ExitStatus,
    killed: bool,
    limits: &OsLimits,
    stderr: &str,
) -> String {
    let mib = |b: u64| b >> 20;
    let mut text = if killed {
        "the task ran past its wall-clock limit and its engine process was killed".to_string()
    } else {
        match signal_of(status) {
            Some(libc::SIGXCPU) => format!(
                "the engine process used more than its CPU time limit of {} s and was stopped",
                limits.cpu_seconds.unwrap_or(0)
            ),
            Some(libc::SIGABRT) if stderr.contains("memory allocation") => format!(
                "the engine process ran out of memory under its address-space limit of {} MiB \
                 and stopped",
                limits.address_space.map_or(0, mib)
            ),
            // The hard CPU limit and the kernel's out-of-memory killer both
            // send SIGKILL; nothing tells them apart.
            Some(libc::SIGKILL) => "the engine process was killed (SIGKILL: the system's CPU-time \
                                    limit or its out-of-memory killer)"
                .to_string(),
            Some(sig) => format!(
                "the engine process crashed ({}); the task stopped there",
                signal_name(sig)
            ),
            None => format!("the engine process exited ({status}) without finishing the task"),
        }
    };
    if !stderr.is_empty() {
        text.push_str(&format!(": {stderr}"));
    }
    text
}

#[cfg(unix)]
fn signal_of(status: std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {sig}"),
    };
    format!("{name}, signal {sig}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_limits_leave_room_for_the_sessions_own_limits() {
        let l = OsLimits::for_engine(&EngineLimits {
            max_steps: None,
            max_time_ms: Some(1500),
            max_memory: Some(1 << 30),
            max_green_threads: Some(10),
        });
        assert_eq!(l.cpu_seconds, Some(2 + CPU_GRACE_SECS));
        assert_eq!(
            l.address_space,
            Some((1 << 30) + 10 * GREEN_STACK + BASE_ADDRESS_SPACE)
        );
        let none = OsLimits::for_engine(&EngineLimits::default());
        assert_eq!((none.address_space, none.cpu_seconds), (None, None));
    }
}
