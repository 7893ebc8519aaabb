//! vetro-yaql's JSON readers on arbitrary text: the direct single-pass
//! reader and the serde_json path it falls back to agree on every input
//! (the same value, kind for kind and bit for bit, or both refuse it);
//! where the direct reader gives up on deep nesting, loading gives exactly
//! the fallback's value; whatever the fallback takes, serde_json's own
//! reader reads as the same value.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Err(e) = vetro_yaql::data::json_readers_agree(text) {
        panic!("the JSON readers disagree on {text:?}: {e}");
    }
});
