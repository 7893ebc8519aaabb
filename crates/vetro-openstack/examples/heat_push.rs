//! Pushes of a small stack to a real Heat, timed from the engine's side, for
//! `benches/heat_push.py` (which adds Heat's own record of each operation).
//! One JSON line per push: how the engine learned of Heat's end (`mode`:
//! `polling`, or `notified` through Heat's notifications), the stack, the
//! operation, wall-clock start and end, when the look that saw the
//! operation end was sent and when a notification woke the wait (all Unix
//! microseconds; 0: none), the looks and requests, and the process's CPU
//! time.
//!
//! usage: heat_push [ROUNDS]   (the cloud: VETRO_TEST_CLOUDS_YAML's
//! `vetro-test`, else OS_CLOUD / OS_*). With VETRO_HEAT_NOTIFICATIONS (or
//! VETRO_TEST_HEAT_NOTIFICATIONS) naming Heat's notification broker, each
//! round pushes twice, once per mode, side by side (alternating which goes
//! first).

use serde_json::json;
use std::path::Path;
use std::time::{Duration, SystemTime};
use vetro_dsl::cloud::CloudBackend;
use vetro_openstack::{credentials, OpenStackCloud, Options};

fn micros(t: SystemTime) -> u128 {
    t.duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_micros()
}

/// CPU time of the whole process (every thread), in microseconds.
fn cpu_micros() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u128 * 1_000_000 + ts.tv_nsec as u128 / 1000
}

fn main() -> Result<(), String> {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().map_err(|e| format!("ROUNDS: {e}")))
        .transpose()?
        .unwrap_or(5);
    let clouds = std::env::var("VETRO_TEST_CLOUDS_YAML").ok();
    let opts = Options {
        cloud: clouds.as_ref().map(|_| "vetro-test".to_string()),
        ..Options::default()
    };
    let env = move |k: &str| match (k, &clouds) {
        ("OS_CLIENT_CONFIG_FILE", Some(f)) => Some(f.clone()),
        _ => std::env::var(k).ok(),
    };
    let creds = credentials(&opts, &env, Path::new("."))?;
    let mut modes = vec![("polling", OpenStackCloud::connect(creds.clone(), &opts)?)];
    let notifications = ["VETRO_HEAT_NOTIFICATIONS", "VETRO_TEST_HEAT_NOTIFICATIONS"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|u| !u.is_empty()));
    if let Some(url) = notifications {
        let notified = Options {
            heat_notifications: Some(url),
            ..opts.clone()
        };
        let cloud = OpenStackCloud::connect(creds, &notified)?;
        if !cloud.heat_notifications_ready(Duration::from_secs(2)) {
            // Heat declares its exchange with its first notification.
            round(&mut modes[0].1, "vetro-bench-warmup", "warmup")?;
            if !cloud.heat_notifications_ready(Duration::from_secs(20)) {
                return Err("no queue bound to Heat's notifications".into());
            }
        }
        modes.push(("notified", cloud));
    }
    let pid = std::process::id();
    for r in 0..rounds {
        let mut order: Vec<usize> = (0..modes.len()).collect();
        if r % 2 == 1 {
            order.reverse();
        }
        for i in order {
            let (mode, cloud) = &mut modes[i];
            round(cloud, &format!("vetro-bench-{pid}-{mode}-{r}"), mode)?;
        }
    }
    Ok(())
}

/// Create stack `name`, update it, delete it; a line per push.
fn round(cloud: &mut OpenStackCloud, name: &str, mode: &str) -> Result<(), String> {
    let mut template = json!({"heat_template_version": "2013-05-23",
        "resources": {"word": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}},
        "outputs": {"word": {"value": {"get_attr": ["word", "value"]}}}});
    for action in ["CREATE", "UPDATE"] {
        if action == "UPDATE" {
            template["resources"]["extra"] =
                json!({"type": "OS::Heat::Value", "properties": {"value": "x"}});
        }
        let (cpu, start) = (cpu_micros(), SystemTime::now());
        cloud.push_stack(name, &template, &json!({}))?;
        let (end, cpu) = (SystemTime::now(), cpu_micros() - cpu);
        let t = cloud.last_heat_timing();
        println!(
            "{}",
            json!({"mode": mode, "stack": name, "action": action, "start_us": micros(start) as u64,
                   "end_us": micros(end) as u64, "last_look_us": micros(t.last_look) as u64,
                   "woken_us": micros(t.woken) as u64,
                   "looks": t.looks, "requests": t.requests, "cpu_us": cpu as u64})
        );
    }
    cloud.delete_stack(name)?;
    Ok(())
}
