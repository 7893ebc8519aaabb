//! Reading input files: a size limit, strict UTF-8 with the position of the
//! first bad byte, `-` for standard input, and "JSON, else YAML" for data files.

use crate::decode::decode_strict_at;
use crate::json::JsonBuild;
use crate::kind::YamlKind;
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

/// Reads at most `limit` bytes of a file (`-` is standard input). A regular
/// file larger than `limit` is refused before anything is read; a stream (a
/// pipe, a device such as `/dev/zero`) is read until it ends or passes the
/// limit, holding no more than the limit while it is read.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, Diagnostic> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    };
    let io = |e: std::io::Error| Diagnostic::error(vetro_diag::Kind::Io, format!("{name}: {e}"));
    let too_large = || {
        Diagnostic::error(
            YamlKind::TooLarge,
            format!(
                "{name}: larger than the input limit of {} MiB; refusing to read it",
                limit >> 20
            ),
        )
    };
    let read = if stdin {
        read_capped(std::io::stdin().lock(), limit, 0)
    } else {
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(Diagnostic::error(
                vetro_diag::Kind::Io,
                format!("{name}: is a directory, not a file"),
            ));
        }
        // Only a regular file's size is known before reading it.
        let expected = if meta.is_file() { meta.len() } else { 0 };
        if expected > limit {
            return Err(too_large());
        }
        read_capped(file, limit, expected)
    };
    read.map_err(io)?.ok_or_else(too_large)
}

/// The smallest piece a stream is read in.
const FIRST_PIECE: u64 = 64 << 10;

/// All of `r`, or `None` once it passes `limit` bytes. `expected` (a regular
/// file's size, else 0) is read in one piece of that size; anything else in
/// pieces that double the total, joined at the end: growing one buffer would
/// hold up to twice the limit (the old buffer and the new one) for a stream
/// that never ends.
fn read_capped(mut r: impl Read, limit: u64, expected: u64) -> std::io::Result<Option<Vec<u8>>> {
    let cap = limit.saturating_add(1);
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let mut total: u64 = 0;
    let mut want = expected.saturating_add(1).max(FIRST_PIECE);
    loop {
        let want_now = want.min(cap - total);
        let mut piece = Vec::with_capacity(usize::try_from(want_now).unwrap_or(usize::MAX));
        (&mut r).take(want_now).read_to_end(&mut piece)?;
        let ended = (piece.len() as u64) < want_now;
        total += piece.len() as u64;
        pieces.push(piece);
        if total > limit {
            return Ok(None);
        }
        if ended {
            break;
        }
        want = total.max(FIRST_PIECE);
    }
    if pieces.len() == 1 {
        return Ok(pieces.pop());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(total).unwrap_or(usize::MAX));
    for piece in pieces {
        bytes.extend_from_slice(&piece);
    }
    Ok(Some(bytes))
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
        .map_err(|msg| Diagnostic::error(vetro_diag::Kind::Encoding, format!("{name}:{msg}")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream of `n` bytes handed out a few at a time, as a pipe does.
    struct Trickle(u64);

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(7).min(self.0 as usize);
            buf[..n].fill(b'x');
            self.0 -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn a_stream_is_read_whole_up_to_the_limit() {
        for n in [
            0,
            1,
            1000,
            FIRST_PIECE - 1,
            FIRST_PIECE,
            5 * FIRST_PIECE + 3,
        ] {
            let bytes = read_capped(Trickle(n), n, 0).unwrap().unwrap();
            assert_eq!(bytes.len() as u64, n);
            assert!(bytes.iter().all(|&b| b == b'x'));
        }
    }

    #[test]
    fn a_stream_past_the_limit_is_refused() {
        assert!(read_capped(Trickle(1001), 1000, 0).unwrap().is_none());
        assert!(read_capped(std::io::repeat(0), 3 * FIRST_PIECE, 0)
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_file_of_the_expected_size_is_read_in_one_piece() {
        let bytes = read_capped(&b"abc"[..], 10, 3).unwrap().unwrap();
        assert_eq!(bytes, b"abc");
        // A file that grew since its size was taken is still bounded.
        assert!(read_capped(Trickle(20), 10, 3).unwrap().is_none());
    }
}
