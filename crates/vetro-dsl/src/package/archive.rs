//! Package zip archives (Murano's catalog format: `manifest.yaml`,
//! `Classes/`, `Resources/`, `UI/`, a logo at the top). This is the
//! workspace's one zip reader and its one zip writer. Archives come from users, so every entry is
//! checked before anything is kept: names must stay inside the archive (no
//! absolute paths, no `..`, no backslash or NUL), links are refused, an entry
//! may not appear twice, and the archive's size, its number of entries and
//! the bytes actually decompressed are bounded (a zip bomb stops at the
//! limit, whatever its headers claim).

use super::PackageFiles;
use std::io::{Read, Write};
use std::path::{Component, Path};

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
    /// Why the archive was refused.
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

impl std::error::Error for ArchiveError {}

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

/// The entry's path inside the archive, `/`-separated and without `.`
/// parts, or an error when the name would leave the archive.
fn safe_relative(name: &str) -> Result<String, ArchiveError> {
    if name.contains('\\') || name.contains('\0') {
        return Err(refuse(Some(name), "entry name holds a backslash or NUL"));
    }
    let mut parts = Vec::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(part) => parts.push(part.to_string_lossy()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(Some(name), "the entry points outside the archive"));
            }
        }
    }
    Ok(parts.join("/"))
}

/// The files of a zip archive by path (folders left out), read within
/// `limits`.
pub fn read_zip(bytes: &[u8], limits: &ArchiveLimits) -> Result<PackageFiles, ArchiveError> {
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
    let mut files = PackageFiles::new();
    for i in 0..zip.len() {
        let entry = zip
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
        if rel.is_empty() || entry.is_dir() {
            continue;
        }
        // Read at most what is left of the budget, plus one byte to notice
        // more: the sizes an archive declares are not trusted.
        let mut data = Vec::new();
        entry
            .take(budget + 1)
            .read_to_end(&mut data)
            .map_err(|e| refuse(Some(&name), format!("cannot be decompressed: {e}")))?;
        let read = data.len() as u64;
        if read > budget {
            return Err(too_large(
                Some(&name),
                format!(
                    "the archive unpacks to more than {} bytes (zip bomb?)",
                    limits.max_unpacked_bytes
                ),
            ));
        }
        budget -= read;
        if files.insert(rel, data).is_some() {
            return Err(refuse(Some(&name), "the entry appears twice"));
        }
    }
    Ok(files)
}

/// A zip archive (deflated) of `(name, bytes)` entries, in the given order.
pub fn write_zip<N: AsRef<str>, D: AsRef<[u8]>>(
    entries: impl IntoIterator<Item = (N, D)>,
) -> std::io::Result<Vec<u8>> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        w.start_file(name.as_ref(), opts)
            .map_err(std::io::Error::other)?;
        w.write_all(data.as_ref())?;
    }
    Ok(w.finish().map_err(std::io::Error::other)?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        write_zip(entries.iter().copied()).unwrap()
    }

    #[test]
    fn escaping_paths_are_refused() {
        for bad in ["../x", "a/../../x", "/etc/passwd", "a\\..\\x", "a\0b"] {
            assert!(safe_relative(bad).is_err(), "{bad:?}");
        }
        assert_eq!(safe_relative("./a/b").unwrap(), "a/b");
        let e = read_zip(&zip_of(&[("../evil.txt", b"x")]), &ArchiveLimits::default()).unwrap_err();
        assert!(e.message.contains("outside"), "{e}");
        assert_eq!(e.entry.as_deref(), Some("../evil.txt"));
        assert!(!e.too_large);
    }

    #[test]
    fn symbolic_links_are_refused() {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        w.add_symlink(
            "link",
            "/etc/passwd",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        let z = w.finish().unwrap().into_inner();
        let e = read_zip(&z, &ArchiveLimits::default()).unwrap_err();
        assert!(e.message.contains("symbolic link"), "{e}");
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
        let e = read_zip(&z, &limits).unwrap_err();
        assert!(e.message.contains("zip bomb"), "{e}");
        assert_eq!(e.entry.as_deref(), Some("b.bin"));
        assert!(e.too_large);
    }

    #[test]
    fn limits_on_archive_size_and_entries() {
        let z = zip_of(&[("a", b"1"), ("b/c", b"2"), ("./d", b"3")]);
        let few = ArchiveLimits {
            max_entries: 2,
            ..Default::default()
        };
        assert!(!read_zip(&z, &few).unwrap_err().too_large);
        let small = ArchiveLimits {
            max_archive_bytes: 10,
            ..Default::default()
        };
        assert!(read_zip(&z, &small).unwrap_err().too_large);
        assert!(read_zip(b"not a zip", &ArchiveLimits::default()).is_err());
        let files = read_zip(&z, &ArchiveLimits::default()).unwrap();
        let names: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(names, ["a", "b/c", "d"]);
    }

    #[test]
    fn an_entry_written_twice_is_refused() {
        let z = zip_of(&[("a/b", b"1"), ("a/./b", b"2")]);
        let e = read_zip(&z, &ArchiveLimits::default()).unwrap_err();
        assert!(e.message.contains("twice"), "{e}");
    }
}
