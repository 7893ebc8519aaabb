//! Package archives unpacked to disk. The archive is read by the
//! workspace's one zip reader ([`vetro_dsl::package::read_zip`]), which
//! checks every entry (paths inside the archive, no links, no repeats) and
//! bounds the archive's size, its entries and the bytes it unpacks to; only
//! then is a file written.

use std::path::{Path, PathBuf};
pub use vetro_dsl::package::{ArchiveError, ArchiveLimits};

/// Extract `bytes` into `dest` (an existing, empty folder) within `limits`.
/// Returns the relative paths of the files written.
pub fn extract(
    bytes: &[u8],
    dest: &Path,
    limits: &ArchiveLimits,
) -> Result<Vec<PathBuf>, ArchiveError> {
    let files = vetro_dsl::package::read_zip(bytes, limits)?;
    let mut written = Vec::with_capacity(files.len());
    for (rel, data) in files {
        let failed = |e: std::io::Error| ArchiveError {
            entry: Some(rel.clone()),
            message: format!("cannot be written: {e}"),
            too_large: false,
        };
        let target = dest.join(&rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(failed)?;
        }
        std::fs::write(&target, data).map_err(failed)?;
        written.push(PathBuf::from(rel));
    }
    Ok(written)
}

/// The package root inside an extracted archive: the folder itself when it
/// holds `manifest.yaml`, else its single sub-folder that does (archives made
/// by zipping the package folder).
pub fn package_root(dir: &Path) -> Option<PathBuf> {
    if dir.join("manifest.yaml").is_file() {
        return Some(dir.to_path_buf());
    }
    let subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    match subdirs.as_slice() {
        [only] if only.join("manifest.yaml").is_file() => Some(only.clone()),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A zip of (name, bytes) entries.
    pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        vetro_dsl::package::write_zip(entries.iter().copied()).unwrap()
    }

    #[test]
    fn files_are_written_under_the_folder_and_nothing_outside() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("pkg");
        std::fs::create_dir(&dest).unwrap();
        let z = zip_of(&[("a/manifest.yaml", b"m"), ("a/Classes/x.yaml", b"x")]);
        let files = extract(&z, &dest, &ArchiveLimits::default()).unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(std::fs::read(dest.join("a/Classes/x.yaml")).unwrap(), b"x");
        assert_eq!(package_root(&dest), Some(dest.join("a")));

        let evil = zip_of(&[("ok", b"1"), ("../evil.txt", b"x")]);
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let e = extract(&evil, &other, &ArchiveLimits::default()).unwrap_err();
        assert!(e.message.contains("outside"), "{e}");
        assert!(!dir.path().join("evil.txt").exists());
        assert!(
            !other.join("ok").exists(),
            "nothing is written from a refused archive"
        );
    }
}
