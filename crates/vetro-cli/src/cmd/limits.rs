//! `--max-steps`, `--timeout`, `--max-memory`: the limits of MuranoPL sessions.

use std::time::Duration;
use vetro_dsl::runtime::limits::Limits;

#[derive(clap::Args, Clone, Debug)]
pub struct LimitArgs {
    /// Most workflow steps (instructions and method calls) a session may run; 0: no limit.
    #[arg(long, default_value_t = 100_000_000)]
    max_steps: u64,
    /// Most seconds a session may run; 0: no limit.
    #[arg(long, default_value_t = 600.0)]
    timeout: f64,
    /// Most MiB a session may allocate; 0: no limit.
    #[arg(long, default_value_t = 4096)]
    max_memory: usize,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            max_steps: (self.max_steps > 0).then_some(self.max_steps),
            max_time: (self.timeout > 0.0).then(|| Duration::from_secs_f64(self.timeout)),
            max_memory: (self.max_memory > 0).then_some(self.max_memory << 20),
        }
    }
}
