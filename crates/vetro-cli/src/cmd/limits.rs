//! `--max-steps`, `--timeout`, `--max-memory`: the limits of MuranoPL sessions.

use std::time::Duration;
use vetro_dsl::runtime::limits::Limits;

/// The longest `--timeout` accepted (a year): anything longer is a typo, and
/// a limit must stay a real limit.
const MAX_TIMEOUT_SECS: f64 = 365.0 * 24.0 * 3600.0;

/// The largest `--max-memory` accepted, in MiB (1 PiB).
const MAX_MEMORY_MIB: usize = 1 << 30;

#[derive(clap::Args, Clone, Debug)]
pub struct LimitArgs {
    /// Most workflow steps (instructions and method calls) a session may run; 0: no limit.
    #[arg(long, default_value_t = 100_000_000)]
    max_steps: u64,
    /// Most seconds a session may run (a year at most); 0: no limit.
    #[arg(long, default_value = "600", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Duration,
    /// Most MiB a session may allocate; 0: no limit.
    #[arg(long, default_value_t = 4096, value_parser = parse_memory)]
    max_memory: usize,
    /// Most green threads (Parallel branches, pselect items) a session runs at once; 0: no limit.
    #[arg(long, default_value_t = vetro_dsl::runtime::limits::DEFAULT_MAX_GREEN_THREADS)]
    max_green_threads: usize,
}

/// Seconds as a finite, non-negative number of at most a year.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!(
            "{text:?} is not a number of seconds (0 means no limit)"
        ));
    }
    if secs > MAX_TIMEOUT_SECS {
        return Err(format!(
            "{text} seconds is more than a year; use 0 for no limit"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// MiB as a whole number of at most 1 PiB.
fn parse_memory(text: &str) -> Result<usize, String> {
    let mib: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number of MiB"))?;
    if mib > MAX_MEMORY_MIB {
        return Err(format!("{text} MiB is more than 1 PiB; use 0 for no limit"));
    }
    Ok(mib)
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            max_steps: (self.max_steps > 0).then_some(self.max_steps),
            max_time: (!self.timeout.is_zero()).then_some(self.timeout),
            max_memory: (self.max_memory > 0).then_some(self.max_memory << 20),
            max_green_threads: (self.max_green_threads > 0).then_some(self.max_green_threads),
            cancel: None,
        }
    }
}
