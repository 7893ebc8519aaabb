//! Reading input files: a size limit, strict UTF-8 with the position of the
//! first bad byte, `-` for standard input, and "JSON, else YAML" for data files.

use crate::decode::decode_strict_at;
use crate::json::JsonBuild;
use crate::load::{load_str, LoadOptions};
use crate::node::Node;
use std::io::Read;
use std::path::Path;
use vetro_diag::{Diagnostic, FileId, SourceMap};

/// The largest input file read by default (256 MiB). Larger inputs (or
/// endless ones such as `/dev/zero`) are refused before they exhaust memory.
pub const DEFAULT_MAX_INPUT: u64 = 256 << 20;

/// The display name of standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Reads at most `limit` bytes of a file (`-` is standard input).
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, Diagnostic> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    };
    let io = |e: std::io::Error| Diagnostic::error("io", format!("{name}: {e}"));
    let mut bytes = Vec::new();
    let read = if stdin {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut bytes)
    } else {
        if path.is_dir() {
            return Err(Diagnostic::error(
                "io",
                format!("{name}: is a directory, not a file"),
            ));
        }
        let file = std::fs::File::open(path).map_err(io)?;
        file.take(limit + 1).read_to_end(&mut bytes)
    };
    read.map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(Diagnostic::error(
            "too-large",
            format!(
                "{name}: larger than the input limit of {} MiB; refusing to read it",
                limit >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// Reads a text file into `sources`: size-limited, strict UTF-8 (or UTF-16
/// with a BOM). A bad byte is an `encoding` error naming its line and column.
pub fn read_source(path: &Path, sources: &mut SourceMap, limit: u64) -> Result<FileId, Diagnostic> {
    let bytes = read_bytes(path, limit)?;
    let name = if path.as_os_str() == "-" {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    };
    let text = decode_strict_at(&bytes)
        .map_err(|msg| Diagnostic::error("encoding", format!("{name}:{msg}")))?;
    Ok(sources.add(name, text))
}

/// Loads the first document of a data file (`-` is standard input). JSON text
/// takes a fast path straight into `T`; anything the fast path cannot read
/// exactly as the YAML loader would (other syntax, floats, duplicate keys,
/// deep nesting) goes through the YAML loader, which reports problems with
/// positions. An empty stream is `None`.
pub fn load_data<T: JsonBuild>(
    path: &Path,
    sources: &mut SourceMap,
    opts: &LoadOptions,
    from_node: impl FnOnce(&Node) -> T,
) -> Result<(FileId, Option<T>), Vec<Diagnostic>> {
    let id = read_source(path, sources, DEFAULT_MAX_INPUT).map_err(|d| vec![d])?;
    let text = sources.text(id);
    let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if start.starts_with('{') || start.starts_with('[') {
        if let Some(value) = crate::json::parse_json_exact::<T>(start) {
            return Ok((id, Some(value)));
        }
    }
    let docs = load_str(sources, id, opts)?;
    Ok((id, docs.first().map(from_node)))
}

/// Read and load a file (`-` is standard input). I/O problems are diagnostics
/// of kind `io`, a file over [`crate::DEFAULT_MAX_INPUT`] is `too-large`, and
/// bytes that are not UTF-8 text are an `encoding` error with their position.
pub fn load_file(
    path: &Path,
    sources: &mut SourceMap,
    opts: &LoadOptions,
) -> Result<(FileId, Vec<Node>), Vec<Diagnostic>> {
    let id = read_source(path, sources, DEFAULT_MAX_INPUT).map_err(|d| vec![d])?;
    let docs = load_str(sources, id, opts)?;
    Ok((id, docs))
}
