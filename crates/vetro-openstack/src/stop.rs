//! A wait for the cloud that ends when the session is cancelled or out of
//! time. The session's flag is an atomic the engine sets from another
//! thread; it is looked at every [`LOOK_EVERY`] (a load and a clock read,
//! no request), so a cancelled deployment stops waiting within that.

use std::future::Future;
use std::time::Duration;
use vetro_dsl::cloud::Interrupt;

/// How often a waiting backend looks at the session's flag.
pub const LOOK_EVERY: Duration = Duration::from_millis(20);

/// `work`'s result, or an error naming `what` once `interrupt` fires first
/// (`work` is then dropped: its requests are abandoned, not undone).
pub async fn unless_interrupted<T>(
    interrupt: &Interrupt,
    what: &str,
    work: impl Future<Output = Result<T, String>>,
) -> Result<T, String> {
    tokio::select! {
        r = work => r,
        why = fired(interrupt) => Err(format!("{what}: stopped waiting: {why}")),
    }
}

async fn fired(interrupt: &Interrupt) -> &'static str {
    loop {
        if let Some(why) = interrupt.reason() {
            return why;
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;
    use vetro_dsl::runtime::limits::{Budget, CancelFlag, Limits, Watch};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    #[test]
    fn a_cancelled_session_stops_a_wait_that_never_ends() {
        let flag = CancelFlag::new();
        let interrupt = Interrupt::on_cancel(&flag);
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.cancel();
            Instant::now()
        });
        let never = std::future::pending::<Result<(), String>>();
        let e = runtime()
            .block_on(unless_interrupted(&interrupt, "stack s", never))
            .unwrap_err();
        let late = canceller.join().unwrap().elapsed();
        assert_eq!(e, "stack s: stopped waiting: the session was cancelled");
        assert!(late < Duration::from_millis(200), "{late:?}");
    }

    #[test]
    fn the_session_time_limit_stops_a_wait_and_a_quiet_one_lets_work_finish() {
        let limits = Limits {
            max_time: Some(Duration::from_millis(150)),
            ..Limits::default()
        };
        let interrupt = Interrupt::of(&Watch::new(&limits, &Budget::start()));
        let start = Instant::now();
        let never = std::future::pending::<Result<(), String>>();
        let e = runtime()
            .block_on(unless_interrupted(&interrupt, "agent of vm", never))
            .unwrap_err();
        assert_eq!(
            e,
            "agent of vm: stopped waiting: the session ran out of time"
        );
        assert!(
            start.elapsed() < Duration::from_millis(600),
            "{:?}",
            start.elapsed()
        );
        let done = runtime().block_on(unless_interrupted(&Interrupt::default(), "x", async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(7)
        }));
        assert_eq!(done, Ok(7));
    }
}
