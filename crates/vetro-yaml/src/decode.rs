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

/// Like [`decode_strict`], but a problem is reported as `LINE:COLUMN: message`
/// (1-based; the column counts characters) so the reader can find the byte.
pub fn decode_strict_at(bytes: &[u8]) -> Result<String, String> {
    decode_strict(bytes).map_err(|msg| {
        let at = bad_offset(bytes);
        let valid = String::from_utf8_lossy(&bytes[..at.min(bytes.len())]);
        let line = valid.matches('\n').count() + 1;
        let col = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{line}:{col}: {msg}")
    })
}

/// Byte offset of the first byte that is not UTF-8 text (or a NUL byte).
fn bad_offset(bytes: &[u8]) -> usize {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").map_or(bytes, |b| b);
    let skipped = bytes.len() - body.len();
    let utf8 = match std::str::from_utf8(body) {
        Ok(_) => body.len(),
        Err(e) => e.valid_up_to(),
    };
    let nul = body[..utf8].iter().position(|&b| b == 0).unwrap_or(utf8);
    skipped + nul.min(utf8)
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
    fn a_bad_byte_is_reported_at_its_line_and_column() {
        let err = decode_strict_at(b"a: 1\nb: caf\xe9\n").unwrap_err();
        assert!(err.starts_with("2:7: not UTF-8 text"), "{err}");
        let err = decode_strict_at(b"x\0").unwrap_err();
        assert!(err.starts_with("1:2: binary file"), "{err}");
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
