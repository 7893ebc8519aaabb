//! The bundled example package and environment, for the tests.

use std::path::PathBuf;

pub fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/murano")
}

/// `examples/murano/webserver` as a zip archive.
pub fn example_zip() -> Vec<u8> {
    crate::resolve::zip_dir(&examples().join("webserver")).expect("the example package zips")
}
