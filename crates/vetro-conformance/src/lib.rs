//! The batch protocols spoken with the conformance harnesses (`vetro yaql --batch`,
//! `vetro run --batch`, `vetro policy eval --batch`) and the tagged JSON encoding of
//! values plain JSON cannot carry (`{"$set": [...]}`, `{"$tuple": [...]}`).
//!
//! User-facing commands read plain JSON and YAML; only the batch modes use this crate.

pub mod dsl;
pub mod policy;
pub mod yaql;

/// The longest batch line read (64 MiB). A longer line ends the batch with
/// an error: its end cannot be told apart from an endless input such as
/// `/dev/zero`, which would otherwise be read until memory runs out.
pub const MAX_LINE: usize = 64 << 20;

/// Reads the next line of a batch into `line` (cleared first); `false` at
/// the end of the input. A line over [`MAX_LINE`] is an `InvalidData` error.
pub fn read_line(input: &mut impl std::io::BufRead, line: &mut Vec<u8>) -> std::io::Result<bool> {
    use std::io::{BufRead, Read};
    line.clear();
    if input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', line)?
        == 0
    {
        return Ok(false);
    }
    if line.len() > MAX_LINE && !line.ends_with(b"\n") {
        line.clear();
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "a line is longer than the batch line limit of {} MiB",
                MAX_LINE >> 20
            ),
        ));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_limit_ends_the_batch() {
        let mut input = b"first\n".to_vec();
        input.resize(input.len() + MAX_LINE + 10, b'x');
        let mut reader = std::io::BufReader::new(&input[..]);
        let mut line = Vec::new();
        assert!(read_line(&mut reader, &mut line).unwrap());
        assert_eq!(line, b"first\n");
        let e = read_line(&mut reader, &mut line).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        // A line of exactly the limit is read.
        let exact = vec![b'y'; MAX_LINE];
        assert!(read_line(&mut &exact[..], &mut line).unwrap());
        assert_eq!(line.len(), MAX_LINE);
        assert!(!read_line(&mut &b""[..], &mut line).unwrap());
    }
}
