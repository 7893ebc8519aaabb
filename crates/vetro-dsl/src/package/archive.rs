//! Package zip archives (Murano's catalog format: `manifest.yaml`,
//! `Classes/`, `Resources/`, `UI/`, a logo at the top). Archives come from
//! users, so entries that escape the package, too many entries and too many
//! uncompressed bytes (a zip bomb) are refused before anything is kept.

use super::PackageFiles;
use std::io::Read;

/// Bounds on what an archive may unpack to.
#[derive(Clone, Debug)]
pub struct ArchiveLimits {
    /// Total uncompressed bytes of all entries.
    pub max_bytes: u64,
    pub max_entries: usize,
}

impl Default for ArchiveLimits {
    fn default() -> ArchiveLimits {
        ArchiveLimits {
            max_bytes: 64 << 20,
            max_entries: 10_000,
        }
    }
}

/// The files of a zip archive by path (directories left out).
pub(super) fn read_zip(bytes: &[u8], limits: &ArchiveLimits) -> Result<PackageFiles, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a zip archive: {e}"))?;
    if zip.len() > limits.max_entries {
        return Err(format!(
            "the archive has {} entries (at most {} are accepted)",
            zip.len(),
            limits.max_entries
        ));
    }
    let mut files = PackageFiles::new();
    let mut total: u64 = 0;
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| format!("entry {i}: {e}"))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry
            .name()
            .map(|n| n.to_string())
            .map_err(|e| format!("entry {i}: {e}"))?;
        let path = entry
            .enclosed_name()
            .ok_or_else(|| format!("entry {name:?} points outside the package"))?;
        let rel = path
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        // Read at most what is left of the budget (plus one byte to notice
        // more): the sizes an archive declares are not trusted.
        let left = limits.max_bytes.saturating_sub(total);
        let mut data = Vec::new();
        entry
            .take(left + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("entry {name:?}: {e}"))?;
        total += data.len() as u64;
        if total > limits.max_bytes {
            return Err(format!(
                "the archive unpacks to more than {} bytes",
                limits.max_bytes
            ));
        }
        if files.insert(rel, data).is_some() {
            return Err(format!("entry {name:?} appears twice"));
        }
    }
    Ok(files)
}
