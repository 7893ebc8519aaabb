//! Turning file bytes into text.

/// Decode a YAML file: UTF-8 (BOM allowed) or UTF-16 with a BOM. Invalid UTF-8
/// and NUL bytes (binary files) are errors naming the byte offset.
pub fn decode_strict(bytes: &[u8]) -> Result<String, String> {
    if let Some(text) = decode_utf16_bom(bytes) {
        return text;
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text: invalid byte at offset {} (is this a binary file?)",
            e.valid_up_to()
        )
    })?;
    if let Some(pos) = text.find('\0') {
        return Err(format!("binary file: NUL byte at offset {pos}"));
    }
    Ok(text.to_string())
}

/// Decode a text file: strict UTF-8 (or UTF-16 with a BOM) when valid; otherwise, if
/// the bytes look like text (no NUL or other C0 control bytes besides tab and line
/// breaks), UTF-8 with stray bytes read as Windows-1252. Binary files are errors.
pub fn decode_text(bytes: &[u8]) -> Result<String, String> {
    match decode_strict(bytes) {
        Ok(text) => Ok(text),
        Err(_) if looks_like_text(bytes) => Ok(decode_lenient(bytes)),
        Err(err) => Err(err),
    }
}

fn looks_like_text(bytes: &[u8]) -> bool {
    !bytes
        .iter()
        .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
}

/// Decode UTF-8, reading any byte that is not valid UTF-8 as Windows-1252
/// (stray bytes in hand-edited descriptions).
pub fn decode_lenient(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(err) => {
                let (valid, bad) = rest.split_at(err.valid_up_to());
                // SAFETY-free: `valid` was just checked by from_utf8.
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(windows_1252(bad[0]));
                rest = &bad[1..];
            }
        }
    }
}

fn decode_utf16_bom(bytes: &[u8]) -> Option<Result<String, String>> {
    let little = match bytes {
        [0xFF, 0xFE, ..] => true,
        [0xFE, 0xFF, ..] => false,
        _ => return None,
    };
    let units = bytes[2..].chunks(2).map(|c| {
        let pair = [c[0], *c.get(1).unwrap_or(&0)];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    Some(
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| "invalid UTF-16 text".to_string()),
    )
}

/// The Windows-1252 character of a byte (Latin-1 except 0x80..=0x9F).
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '\u{20AC}', '\u{81}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}',
        '\u{2021}', '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{8D}',
        '\u{017D}', '\u{8F}', '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}',
        '\u{2013}', '\u{2014}', '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}',
        '\u{9D}', '\u{017E}', '\u{0178}',
    ];
    match b {
        0x80..=0x9F => HIGH[(b - 0x80) as usize],
        _ => b as char,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_rejects_binary() {
        assert!(decode_strict(b"a: 1\n").is_ok());
        assert!(decode_strict(b"\xEF\xBB\xBFa: 1").is_ok());
        assert!(decode_strict(b"a\0b").is_err());
        assert!(decode_strict(b"\xff\xd8\xff").is_err());
    }

    #[test]
    fn text_with_stray_bytes_is_read_binary_is_refused() {
        assert_eq!(decode_text(b"a: caf\xe9\n").unwrap(), "a: caf\u{e9}\n");
        assert!(decode_text(b"\x7fELF\x02\x01\x01\x00").is_err());
    }

    #[test]
    fn lenient_reads_windows_1252() {
        assert_eq!(
            decode_lenient(b"it\x92s \xe9t\xe9"),
            "it\u{2019}s \u{e9}t\u{e9}"
        );
        assert_eq!(decode_lenient("ok é".as_bytes()), "ok é");
    }
}
