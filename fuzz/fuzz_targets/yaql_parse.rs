//! YAQL parsing in every parser mode: any input either parses or is a
//! lexical/grammar error, never a panic or a stack overflow.

#![no_main]

use libfuzzer_sys::fuzz_target;
use vetro_yaql::parser::{parse, ParserOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for mode in 0..16u8 {
        let opts = ParserOptions {
            legacy: mode & 1 != 0,
            allow_delegates: mode & 2 != 0,
            colon: mode & 4 != 0,
            is_operator: mode & 8 != 0,
        };
        // Its errors are `SyntaxError`s (lexical or grammar) by type.
        let _ = parse(text, opts);
    }
});
