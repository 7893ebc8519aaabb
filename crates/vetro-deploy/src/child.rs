//! The engine in a process of its own: the messages between a worker and
//! the engine process it starts for one task, and the engine process's side.
//!
//! The worker prepares the task ([`crate::prepare`]: packages found and
//! unpacked), starts the process, and writes one [`ToEngine::Run`] line on
//! its standard input; a later [`ToEngine::Cancel`] line (or the input's
//! end) stops the engine at its next step. The process writes one
//! [`FromEngine::Report`] line per status report, as they happen, and a
//! last [`FromEngine::Done`] line with the task's output. Each message is
//! one line of JSON. The process needs no database and no credentials: what
//! it reads is the task, what it writes is the outcome; once it has read the
//! task it confines itself ([`crate::sandbox`]) to reading the task's
//! packages, with no sockets.

use crate::report::StatusReport;
use crate::sandbox::{self, Sandbox};
use crate::task::{run_prepared, Prepared, TaskOutput};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What a worker sends to its engine process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToEngine {
    /// The task to run (the first line).
    Run { task: Box<Prepared> },
    /// Stop at the next step.
    Cancel,
}

/// What an engine process sends back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromEngine {
    /// A status report, as it happens.
    Report { report: StatusReport },
    /// The task's output (the last line).
    Done { output: Box<TaskOutput> },
    /// A protection the engine process could not apply to itself (see
    /// [`crate::sandbox`]); the task runs anyway.
    Unconfined { missing: String },
}

/// Why an engine process could not serve its worker.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot read the task: {0}")]
    Read(#[source] std::io::Error),
    #[error("the first line is not a task: {0}")]
    NotATask(#[source] serde_json::Error),
    /// The output could not be written: the worker is gone.
    #[error("cannot write to the worker: {0}")]
    Write(String),
}

/// The engine process's side: read the task from `input`, run it, write
/// its reports and output to `output`. `Err` when the input is not a task
/// or the output cannot be written (the worker is gone).
pub fn serve<R, W>(mut input: R, output: W) -> Result<(), ServeError>
where
    R: BufRead + Send + 'static,
    W: Write + 'static,
{
    let mut line = String::new();
    input.read_line(&mut line).map_err(ServeError::Read)?;
    let task = match serde_json::from_str::<ToEngine>(&line) {
        Ok(ToEngine::Run { task }) => task,
        Ok(ToEngine::Cancel) => return Ok(()),
        Err(e) => return Err(ServeError::NotATask(e)),
    };
    // Before any thread starts: the confinement covers the threads started after it.
    let confinement = sandbox::confine(&Sandbox::for_task(
        &task.roots,
        task.backend.needs_network(),
    ));
    let cancel = Arc::new(AtomicBool::new(false));
    {
        // A cancel line, or the worker closing the pipe, stops the engine.
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            loop {
                line.clear();
                match input.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if matches!(serde_json::from_str(&line), Ok(ToEngine::Cancel)) => break,
                    Ok(_) => {}
                }
            }
            cancel.store(true, Ordering::Relaxed);
        });
    }
    let out = Rc::new(RefCell::new(Writer {
        output,
        failed: None,
    }));
    for missing in confinement.missing {
        out.borrow_mut().send(&FromEngine::Unconfined { missing });
    }
    let sink = {
        let (out, cancel) = (out.clone(), cancel.clone());
        Box::new(move |r: &StatusReport| {
            let mut w = out.borrow_mut();
            w.send(&FromEngine::Report { report: r.clone() });
            if w.failed.is_some() {
                cancel.store(true, Ordering::Relaxed);
            }
        })
    };
    let output = run_prepared(&task, cancel, sink);
    let mut w = out.borrow_mut();
    w.send(&FromEngine::Done {
        output: Box::new(output),
    });
    match w.failed.take() {
        Some(e) => Err(ServeError::Write(e)),
        None => Ok(()),
    }
}

/// The output side; remembers the first write error and writes nothing after it.
struct Writer<W: Write> {
    output: W,
    failed: Option<String>,
}

impl<W: Write> Writer<W> {
    fn send(&mut self, m: &FromEngine) {
        if self.failed.is_some() {
            return;
        }
        let written = serde_json::to_writer(&mut self.output, m)
            .map_err(|e| e.to_string())
            .and_then(|()| self.output.write_all(b"\n").map_err(|e| e.to_string()))
            .and_then(|()| self.output.flush().map_err(|e| e.to_string()));
        if let Err(e) = written {
            self.failed = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{EngineLimits, TaskKind};
    use serde_json::json;

    fn task() -> Prepared {
        Prepared {
            kind: TaskKind::Deploy,
            model: json!({"Objects": null}),
            cloud_state: None,
            backend: Default::default(),
            project_id: Some("p".into()),
            policy: None,
            roots: Vec::new(),
            packages: Vec::new(),
            limits: EngineLimits::default(),
        }
    }

    /// An output the test keeps a handle on.
    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn lines(out: &Shared) -> Vec<FromEngine> {
        String::from_utf8_lossy(&out.0.borrow())
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn a_task_line_gives_reports_then_one_done_line() {
        let input = format!(
            "{}\n",
            serde_json::to_string(&ToEngine::Run {
                task: Box::new(task())
            })
            .unwrap()
        );
        let out = Shared::default();
        serve(std::io::Cursor::new(input.into_bytes()), out.clone()).unwrap();
        let msgs = lines(&out);
        assert!(
            matches!(msgs.last(), Some(FromEngine::Done { .. })),
            "{msgs:?}"
        );
        let reports = msgs
            .iter()
            .filter(|m| matches!(m, FromEngine::Report { .. }))
            .count();
        assert_eq!(reports, msgs.len() - 1);
        let Some(FromEngine::Done { output }) = msgs.last() else {
            unreachable!()
        };
        assert!(output.outcome.is_good(), "{output:?}");
    }

    #[test]
    fn a_first_line_that_is_not_a_task_is_an_error() {
        let out = Shared::default();
        let e = serve(
            std::io::Cursor::new(b"{\"type\": 1}\n".to_vec()),
            out.clone(),
        )
        .unwrap_err();
        assert!(matches!(e, ServeError::NotATask(_)), "{e:?}");
        assert!(e.to_string().starts_with("the first line is not a task: "));
        assert!(out.0.borrow().is_empty());
    }
}
