//! The direct JSON reader against serde_json: wherever the direct reader
//! takes a document, both give the same value, kind for kind and bit for
//! bit; where it gives up, the document still loads (or fails) as before.

use super::{agree, serde_json_path};

/// Checks `text` every way; whether the direct reader took it.
fn check(text: &str) -> bool {
    agree::json_readers_agree(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

/// Documents the direct reader takes itself.
const TAKEN: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "0.5",
    "-12.25",
    "123456789012345678",
    "-123456789012345678",
    "0.000000000000000001",
    "4503599627370495.5",
    "9007199254740991",
    "3.141592653589793",
    "1.0",
    "true",
    "false",
    "null",
    "\"\"",
    "\"abc\"",
    "\"fifteen bytes..\"",
    "\"sixteen bytes...\"",
    "\"a longer string of text, past twenty-four bytes\"",
    "\"caf\u{e9} \u{1f600} \u{7f}\"",
    "\"a\\\"b\"",
    "\"\\\\\"",
    "\"\\/\\b\\f\\n\\r\\t\"",
    "\"\\u00e9\\u0041\"",
    "\"\\ud83d\\ude00\"",
    "\"with an escape past eight bytes\\n and more\"",
    "[]",
    "{}",
    "[[]]",
    "[{}]",
    "{\"a\":{}}",
    " \t\r\n[ 1 , 2 ,\n3 ] \n\t ",
    "{\"a\": 1, \"b\": [true, false, null], \"c\": {\"d\": \"e\"}}",
    "[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4},{\"b\":5,\"a\":6},{\"a\":7}]",
    "[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4,\"c\":5},{\"a\":1,\"b\":2}]",
    "{\"\\u0061\": 1, \"b\": 2}",
    "{\"k\\n\": 1}",
    "[1e5, 1E-5, 2.5e+3, -1e0]",
    "[1234567890123456789, 12345678901234567890, -9223372036854775808]",
    "[0.1234567890123456789, 123456789.123456789123]",
    "[9007199254740993.5]",
    "[1.00000000000000000000000001]",
    "[2.2250738585072011e-308, 4.9e-324, -1.5e-300, 9.1e18]",
    "[\"same long string value\", \"same long string value\"]",
];

/// Documents neither JSON path takes (the YAML loader then reads them):
/// not JSON, a duplicate key, or a whole number too large to be exact.
const REFUSED: &[&str] = &[
    "",
    " ",
    "\u{feff}[]",
    "[1] x",
    "[1,]",
    "{\"a\":1,}",
    "[01]",
    "[-]",
    "[1.]",
    "[.5]",
    "[+1]",
    "[1e]",
    "[nul]",
    "[nullx]",
    "[truex]",
    "{\"a\" 1}",
    "{a: 1}",
    "{\"a\": 1, \"a\": 2}",
    "[{\"a\": 1, \"b\": 2, \"a\": 3}]",
    "\"unterminated",
    "\"tab\tinside\"",
    "\"\\x\"",
    "\"\\ud83d\"",
    "\"\\ude00\"",
    "\"\\ud83dx\"",
    "\"\\u12\"",
    "[1e400]",
    "[1.7976931348623157e308]",
    "[-1e400]",
    "[123456789012345678901234567890]",
    "[18446744073709551616]",
    "[-9223372036854775809]",
    "[1]]",
    "[[1]",
    "{\"a\":1}}",
    "'a'",
    "NaN",
    "[Infinity]",
    "// comment\n1",
];

#[test]
fn the_direct_reader_agrees_with_serde_json() {
    for text in TAKEN {
        assert!(check(text), "the direct reader gave up on {text:?}");
    }
    for text in REFUSED {
        assert!(!check(text), "the direct reader took {text:?}");
        assert!(serde_json_path(text, None).is_none(), "{text:?}");
    }
}

#[test]
fn deep_nesting_is_left_to_serde_json() {
    for depth in [1, 99, 100, 101, 127, 128, 129, 300] {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(check(&text), depth <= 100, "depth {depth}");
        let text = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        assert_eq!(check(&text), depth <= 100, "depth {depth}");
    }
}

#[test]
fn big_integers_and_duplicates_still_load_exactly() {
    let v = super::load_str("d", "[12345678901234567890123, 1e400]").unwrap();
    assert_eq!(
        super::to_json_string(&v, false),
        "[12345678901234567890123,\"1e400\"]"
    );
    assert!(super::load_str("d", "{\"a\": 1, \"a\": 2}").is_err());
}

/// A small generator of JSON-like text: valid documents, and the same
/// with a byte changed, dropped or repeated.
struct Gen(u64);

impl Gen {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn value(&mut self, out: &mut String, depth: usize) {
        const ATOMS: &[&str] = &[
            "0",
            "-0",
            "7",
            "-42",
            "1.5",
            "-0.25",
            "1e3",
            "2E-2",
            "123456789012345678",
            "98765432109876543210",
            "0.1",
            "3.0",
            "true",
            "false",
            "null",
            "\"\"",
            "\"x\"",
            "\"short\"",
            "\"a string of twenty bytes\"",
            "\"\\n\\t\\\"\"",
            "\"\\u00e9\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud800\"",
            "\"\u{e9}t\u{e9}\"",
        ];
        const KEYS: &[&str] = &["a", "b", "name", "a key longer than fifteen", "\\u0062", ""];
        match if depth > 4 { 0 } else { self.next(4) } {
            0 | 1 => out.push_str(ATOMS[self.next(ATOMS.len())]),
            2 => {
                out.push('[');
                for i in 0..self.next(4) {
                    if i > 0 {
                        out.push_str([",", " , ", ",\n"][self.next(3)]);
                    }
                    self.value(out, depth + 1);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for i in 0..self.next(4) {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(KEYS[self.next(KEYS.len())]);
                    out.push_str(["\":", "\" : "][self.next(2)]);
                    self.value(out, depth + 1);
                }
                out.push('}');
            }
        }
    }
}

#[test]
fn generated_documents_and_their_mutations_agree() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut taken = 0;
    for _ in 0..20_000 {
        let mut text = String::new();
        g.value(&mut text, 0);
        taken += usize::from(check(&text));
        let mut bytes = text.into_bytes();
        let at = g.next(bytes.len());
        match g.next(3) {
            0 => bytes[at] = b"{}[]\",:0-.e\\ u1"[g.next(15)],
            1 => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, bytes[at]),
        }
        if let Ok(text) = String::from_utf8(bytes) {
            check(&text);
        }
    }
    // Most generated documents are plain enough for the direct reader.
    assert!(taken > 5_000, "taken {taken}");
}
