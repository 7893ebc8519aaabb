//! Confinement of an engine process, applied by the process to itself once
//! it has read its task and before it runs it (Linux only, no privileges
//! needed):
//!
//! - files: Landlock lets the process read the task's unpacked packages and
//!   nothing else, and write nowhere (no database file, no other tenant's
//!   packages); files it already holds open (its pipes) stay usable;
//! - network: a seccomp filter makes every `socket(2)` call fail with
//!   `EPERM` (no TCP, UDP or UNIX socket, so no database server either), and
//!   Landlock denies TCP connects and binds as a second line where the kernel
//!   has those rules. A task whose cloud is reached over the network
//!   ([`crate::Backend::needs_network`]) keeps Internet sockets (IPv4, IPv6)
//!   and may read the files name resolution needs; every other socket family
//!   (UNIX, netlink, raw packets) still fails. Abstract UNIX sockets and
//!   signals to other processes are refused either way.
//!
//! What the kernel cannot enforce (an old kernel without Landlock, seccomp
//! disabled) is left out and named in [`Confinement::missing`], for the
//! worker to log; the task runs anyway.

use std::path::PathBuf;

/// What an engine process may reach.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sandbox {
    /// Folders the process may read (the task's unpacked packages).
    pub readable: Vec<PathBuf>,
    /// Whether the process may open Internet sockets (a task whose cloud is
    /// reached over the network); the simulated cloud needs none.
    pub network: bool,
}

/// What name resolution reads (the resolver's configuration, the hosts
/// file), readable by a process with the network.
const NAME_RESOLUTION: &[&str] = &[
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/gai.conf",
];

impl Sandbox {
    /// The confinement of a task reading `packages`, with the network or not.
    pub fn for_task(packages: &[PathBuf], network: bool) -> Sandbox {
        let mut readable = packages.to_vec();
        if network {
            readable.extend(
                NAME_RESOLUTION
                    .iter()
                    .map(PathBuf::from)
                    .filter(|p| p.exists()),
            );
        }
        Sandbox { readable, network }
    }
}

/// What [`confine`] could enforce.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    /// The protections the kernel refused or lacks, in words.
    pub missing: Vec<String>,
}

/// Confines the calling process as `sandbox` says. Must run before the
/// process starts any thread: both Landlock and seccomp apply to the
/// calling thread and the threads it starts afterwards.
#[cfg(target_os = "linux")]
pub fn confine(sandbox: &Sandbox) -> Confinement {
    let mut missing = Vec::new();
    if let Err(e) = landlock_rules(sandbox) {
        missing.push(e);
    }
    if let Err(e) = deny_sockets(sandbox.network) {
        missing.push(format!("sockets are not blocked (seccomp: {e})"));
    }
    Confinement { missing }
}

#[cfg(not(target_os = "linux"))]
pub fn confine(_sandbox: &Sandbox) -> Confinement {
    Confinement {
        missing: vec!["engine processes are confined only on Linux".into()],
    }
}

#[cfg(target_os = "linux")]
fn landlock_rules(sandbox: &Sandbox) -> Result<(), String> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, ABI,
    };
    let abi = ABI::V6;
    let err = |e: landlock::RulesetError| format!("files are not confined (Landlock: {e})");
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?
        .scope(Scope::from_all(abi))
        .map_err(err)?;
    if !sandbox.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(err)?;
    }
    let status = ruleset
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(
            &sandbox.readable,
            AccessFs::from_read(abi),
        ))
        .map_err(err)?
        .restrict_self()
        .map_err(err)?;
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(()),
        RulesetStatus::PartiallyEnforced => Err(
            "files and network are only partly confined (this kernel's Landlock lacks some rules)"
                .into(),
        ),
        _ => Err("files are not confined (this kernel has no Landlock)".into()),
    }
}

/// Every `socket(2)` fails, or, with `internet`, every one but IPv4 and IPv6.
#[cfg(target_os = "linux")]
fn deny_sockets(internet: bool) -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    // A rule matches (and the call fails) when all its conditions hold; no
    // rule at all matches every call.
    let rules = if internet {
        let not = |family: i32| {
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family as u64)
        };
        let other_family = SeccompRule::new(vec![
            not(libc::AF_INET).map_err(|e| e.to_string())?,
            not(libc::AF_INET6).map_err(|e| e.to_string())?,
        ])
        .map_err(|e| e.to_string())?;
        vec![other_family]
    } else {
        Vec::new()
    };
    let filter = SeccompFilter::new(
        [(libc::SYS_socket, rules)].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter(&program).map_err(|e| e.to_string())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::process::Command;

    /// Set in the test's own child process, which confines itself and probes.
    const PROBE: &str = "VETRO_SANDBOX_PROBE";

    /// What a confined process can still do, one line each: `name ok` or `name denied`.
    fn probe(readable: &std::path::Path, secret: &std::path::Path, port: u16, network: bool) {
        let c = confine(&Sandbox::for_task(&[readable.to_path_buf()], network));
        let line =
            |name: &str, ok: bool| println!("\nprobe {name} {}", if ok { "ok" } else { "denied" });
        for m in &c.missing {
            println!("\nprobe missing {m}");
        }
        let mut s = String::new();
        let own = std::fs::File::open(readable.join("package.txt"))
            .and_then(|mut f| f.read_to_string(&mut s));
        line("read-own", own.is_ok());
        line("read-other", std::fs::read(secret).is_ok());
        line("read-hosts", std::fs::read("/etc/hosts").is_ok());
        line(
            "write-own",
            std::fs::write(readable.join("new.txt"), b"x").is_ok(),
        );
        line(
            "write-tmp",
            std::fs::write(std::env::temp_dir().join("vetro-sandbox-probe"), b"x").is_ok(),
        );
        line(
            "tcp",
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
        );
        line("udp", std::net::UdpSocket::bind("127.0.0.1:0").is_ok());
        line(
            "unix",
            std::os::unix::net::UnixStream::connect(secret.with_extension("sock")).is_ok(),
        );
    }

    /// Runs test `name` again in a process of its own (confinement cannot be
    /// undone), which probes; its output, and whether files were confined.
    fn confined_probe(name: &str, network: bool) -> (String, bool) {
        if let Ok(args) = std::env::var(PROBE) {
            let mut parts = args.split('\n');
            let (dir, secret, port) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap().parse().unwrap(),
            );
            probe(dir.as_ref(), secret.as_ref(), port, network);
            std::process::exit(0);
        }
        let own = tempfile::tempdir().unwrap();
        std::fs::write(own.path().join("package.txt"), "mine").unwrap();
        let other = tempfile::tempdir().unwrap();
        let secret = other.path().join("tenant.db");
        std::fs::write(&secret, "theirs").unwrap();
        let _unix = std::os::unix::net::UnixListener::bind(secret.with_extension("sock")).unwrap();
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = tcp.local_addr().unwrap().port();
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &format!("sandbox::tests::{name}"),
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(
                PROBE,
                format!("{}\n{}\n{port}", own.path().display(), secret.display()),
            )
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{text}");
        let files = !text.lines().any(|l| l.starts_with("probe missing files"));
        if !files {
            eprintln!("skipping the file checks (no Landlock here): {text}");
        }
        (text, files)
    }

    fn has(text: &str, l: &str) -> bool {
        text.lines().any(|x| x == format!("probe {l}"))
    }

    #[test]
    fn a_confined_process_reads_its_packages_and_reaches_nothing_else() {
        let (text, files) = confined_probe(
            "a_confined_process_reads_its_packages_and_reaches_nothing_else",
            false,
        );
        let has = |l: &str| has(&text, l);
        assert!(has("read-own ok"), "{text}");
        assert!(
            has("tcp denied") && has("udp denied") && has("unix denied"),
            "{text}"
        );
        if files {
            assert!(
                has("read-other denied") && has("read-hosts denied"),
                "{text}"
            );
            assert!(has("write-own denied") && has("write-tmp denied"), "{text}");
        }
    }

    #[test]
    fn a_process_with_the_network_gets_internet_sockets_only() {
        let (text, files) = confined_probe(
            "a_process_with_the_network_gets_internet_sockets_only",
            true,
        );
        let has = |l: &str| has(&text, l);
        assert!(has("read-own ok"), "{text}");
        assert!(has("tcp ok") && has("udp ok"), "{text}");
        assert!(has("unix denied"), "{text}");
        if files {
            assert!(has("read-hosts ok") && has("read-other denied"), "{text}");
            assert!(has("write-own denied") && has("write-tmp denied"), "{text}");
        }
    }
}
