//! `vetro serve`'s HTTP options: timeouts, the connection bound, per-token
//! rates; and the open-files limit the connection bound
//! needs.

use std::num::NonZeroU32;
use std::time::Duration;
use vetro_server::rate::Rate;
use vetro_server::Limits;

/// Descriptors kept free for the database, logs and packages.
const RESERVED_FILES: u64 = 256;

#[derive(clap::Args)]
pub struct HttpArgs {
    /// Seconds a client has to send a request's headers; also how long an
    /// idle keep-alive connection is kept.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_timeout: u64,
    /// Seconds allowed between two pieces of a request body.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    body_timeout: u64,
    /// Seconds allowed for a whole request, from its headers to its answer.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    request_timeout: u64,
    /// Connections served at once; more are answered 503 and closed. Lowered
    /// to fit the open-files limit, which is raised to its maximum at start.
    #[arg(long, default_value_t = 16_384, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,
    /// Requests per second each token may make (0: no limit); past it, 429.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32))]
    rate_limit: u32,
    /// Requests a token may make at once above its rate.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..))]
    rate_burst: u32,
}

impl HttpArgs {
    /// These options applied to `limits`.
    pub fn apply(&self, limits: &mut Limits) {
        limits.header_timeout = Duration::from_secs(self.header_timeout);
        limits.body_timeout = Duration::from_secs(self.body_timeout);
        limits.request_timeout = Duration::from_secs(self.request_timeout);
        let files = raise_open_files_limit();
        let fit = files.saturating_sub(RESERVED_FILES).max(1);
        limits.max_connections = usize::try_from(self.max_connections.min(fit)).unwrap_or(1);
        if self.max_connections > fit {
            eprintln!(
                "warning: --max-connections {} does not fit the open-files limit ({files}); serving at most {fit} connections",
                self.max_connections
            );
        }
        limits.rate = NonZeroU32::new(self.rate_limit).map(|per_second| Rate {
            per_second,
            burst: NonZeroU32::new(self.rate_burst).unwrap_or(NonZeroU32::MIN),
        });
    }
}

/// Raises the soft limit on open files to the hard limit, where allowed;
/// returns the soft limit in force.
fn raise_open_files_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read or write only the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 1024;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    lim.rlim_cur
}
