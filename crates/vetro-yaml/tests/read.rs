//! Reading input files: what is not a regular file, or is larger than the
//! input limit, is refused without holding more than the limit.

use std::path::Path;
use vetro_yaml::read_bytes;

fn temp_dir(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("vetro-yaml-read-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_regular_file_over_the_limit_is_refused_before_it_is_read() {
    let dir = temp_dir("sparse");
    let path = dir.join("big.yaml");
    // A sparse file: 1 TiB long, nothing stored, nothing to read quickly.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 40).unwrap();
    let started = std::time::Instant::now();
    let e = read_bytes(&path, 1 << 20).unwrap_err();
    assert_eq!(e.kind, "too-large", "{}", e.message);
    assert!(e.message.contains("input limit of 1 MiB"), "{}", e.message);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_at_the_limit_is_read() {
    let dir = temp_dir("exact");
    let path = dir.join("exact.yaml");
    std::fs::write(&path, vec![b'a'; 1 << 20]).unwrap();
    assert_eq!(read_bytes(&path, 1 << 20).unwrap().len(), 1 << 20);
    let e = read_bytes(&path, (1 << 20) - 1).unwrap_err();
    assert_eq!(e.kind, "too-large", "{}", e.message);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directory_is_refused() {
    let dir = temp_dir("dir");
    let e = read_bytes(&dir, 1 << 20).unwrap_err();
    assert_eq!(e.kind, "io");
    assert!(e.message.contains("is a directory"), "{}", e.message);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn an_endless_device_is_refused_at_the_limit() {
    let e = read_bytes(Path::new("/dev/zero"), 4 << 20).unwrap_err();
    assert_eq!(e.kind, "too-large", "{}", e.message);
    assert!(read_bytes(Path::new("/dev/null"), 4 << 20)
        .unwrap()
        .is_empty());
}
