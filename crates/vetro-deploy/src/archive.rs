//! Safe extraction of package archives (zip). Archives come from users, so
//! every entry is checked before a byte is written: names must stay inside
//! the archive (no absolute paths, no `..`), links are refused, and the
//! number of entries and the bytes actually decompressed are bounded (a
//! zip bomb stops at the limit, whatever its headers claim).

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// Bounds on what one archive may hold.
#[derive(Clone, Debug)]
pub struct ArchiveLimits {
    /// Size of the archive itself (Murano's `package_size_limit` is 5 MB).
    pub max_archive_bytes: u64,
    /// Total bytes of all entries once decompressed.
    pub max_unpacked_bytes: u64,
    /// Number of entries (files and folders).
    pub max_entries: usize,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        ArchiveLimits {
            max_archive_bytes: 5 << 20,
            max_unpacked_bytes: 64 << 20,
            max_entries: 10_000,
        }
    }
}

/// Why an archive was refused.
#[derive(Clone, Debug, PartialEq)]
pub struct ArchiveError {
    /// The entry concerned, when there is one.
    pub entry: Option<String>,
    pub message: String,
    /// The archive is over a size limit (itself, or what it unpacks to),
    /// rather than malformed or hostile.
    pub too_large: bool,
}

impl std::fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.entry {
            Some(e) => write!(f, "{e}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn refuse(entry: Option<&str>, message: impl Into<String>) -> ArchiveError {
    ArchiveError {
        entry: entry.map(str::to_string),
        message: message.into(),
        too_large: false,
    }
}

fn too_large(entry: Option<&str>, message: String) -> ArchiveError {
    ArchiveError {
        too_large: true,
        ..refuse(entry, message)
    }
}

/// The relative path of an entry name, or an error when it would leave the
/// extraction folder.
fn safe_relative(name: &str) -> Result<PathBuf, ArchiveError> {
    if name.contains('\\') || name.contains('\0') {
        return Err(refuse(Some(name), "entry name holds a backslash or NUL"));
    }
    let mut out = PathBuf::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(Some(name), "the entry points outside the archive"));
            }
        }
    }
    Ok(out)
}

/// Extract `bytes` into `dest` (an existing, empty folder) within `limits`.
/// Returns the relative paths of the files written.
pub fn extract(
    bytes: &[u8],
    dest: &Path,
    limits: &ArchiveLimits,
) -> Result<Vec<PathBuf>, ArchiveError> {
    if bytes.len() as u64 > limits.max_archive_bytes {
        return Err(too_large(
            None,
            format!(
                "the archive is {} bytes, more than the limit of {} bytes",
                bytes.len(),
                limits.max_archive_bytes
            ),
        ));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| refuse(None, format!("not a valid zip archive: {e}")))?;
    if zip.len() > limits.max_entries {
        return Err(refuse(
            None,
            format!(
                "the archive has {} entries, more than the limit of {}",
                zip.len(),
                limits.max_entries
            ),
        ));
    }
    let mut budget = limits.max_unpacked_bytes;
    let mut files = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| refuse(None, format!("entry {i} cannot be read: {e}")))?;
        let name = entry
            .name()
            .map_err(|e| refuse(None, format!("entry {i} has no readable name: {e}")))?
            .to_string();
        let rel = safe_relative(&name)?;
        if entry.is_symlink() {
            return Err(refuse(Some(&name), "symbolic links are not allowed"));
        }
        if rel.as_os_str().is_empty() {
            continue;
        }
        let target = dest.join(&rel);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| refuse(Some(&name), e.to_string()))?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| refuse(Some(&name), e.to_string()))?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|e| refuse(Some(&name), format!("cannot be written: {e}")))?;
        // Count what is really decompressed: headers can lie about sizes.
        let mut limited = (&mut entry).take(budget + 1);
        let written = copy(&mut limited, &mut out)
            .map_err(|e| refuse(Some(&name), format!("cannot be decompressed: {e}")))?;
        if written > budget {
            return Err(too_large(
                Some(&name),
                format!(
                    "the archive unpacks to more than {} bytes (zip bomb?)",
                    limits.max_unpacked_bytes
                ),
            ));
        }
        budget -= written;
        files.push(rel);
    }
    Ok(files)
}

fn copy(from: &mut impl Read, to: &mut impl Write) -> std::io::Result<u64> {
    let mut buf = [0u8; 16 * 1024];
    let mut total = 0u64;
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            return Ok(total);
        }
        to.write_all(&buf[..n])?;
        total += n as u64;
    }
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
    use zip::write::SimpleFileOptions;

    /// A zip of (name, bytes) entries.
    pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn escaping_paths_are_refused() {
        for bad in ["../x", "a/../../x", "/etc/passwd", "a\\..\\x"] {
            assert!(safe_relative(bad).is_err(), "{bad}");
        }
        assert_eq!(safe_relative("./a/b").unwrap(), PathBuf::from("a/b"));
        let dir = tempfile::tempdir().unwrap();
        let z = zip_of(&[("../evil.txt", b"x")]);
        let e = extract(&z, dir.path(), &ArchiveLimits::default()).unwrap_err();
        assert!(e.message.contains("outside"), "{e}");
        assert!(!e.too_large);
        assert!(!dir.path().parent().unwrap().join("evil.txt").exists());
    }

    #[test]
    fn a_zip_bomb_stops_at_the_limit() {
        let zeros = vec![0u8; 4 << 20];
        let z = zip_of(&[("a.bin", &zeros), ("b.bin", &zeros)]);
        assert!(z.len() < 100_000, "deflated zeros are small");
        let limits = ArchiveLimits {
            max_unpacked_bytes: 6 << 20,
            ..Default::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let e = extract(&z, dir.path(), &limits).unwrap_err();
        assert!(e.message.contains("zip bomb"), "{e}");
        assert!(e.too_large);
    }

    #[test]
    fn limits_on_archive_size_and_entries() {
        let z = zip_of(&[("a", b"1"), ("b", b"2"), ("c", b"3")]);
        let dir = tempfile::tempdir().unwrap();
        let few = ArchiveLimits {
            max_entries: 2,
            ..Default::default()
        };
        assert!(extract(&z, dir.path(), &few).is_err());
        let small = ArchiveLimits {
            max_archive_bytes: 10,
            ..Default::default()
        };
        assert!(extract(&z, dir.path(), &small).unwrap_err().too_large);
        assert!(extract(b"not a zip", dir.path(), &ArchiveLimits::default()).is_err());
        let files = extract(&z, dir.path(), &ArchiveLimits::default()).unwrap();
        assert_eq!(files.len(), 3);
    }
}
