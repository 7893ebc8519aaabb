//! vetro's YAML layer.
//!
//! Parses YAML (with `saphyr-parser` events) into a [`Node`] tree in which every
//! scalar, sequence, mapping and mapping key carries its [`Span`] and tag.
//! Documents written for PyYAML keep their meaning in the default
//! [`YamlVersion::V1_1`] mode: `yes`/`no`/`on`/`off` booleans, 1.1 integers and
//! floats, and `<<` merge keys. Duplicate keys, undefined aliases and alias bombs
//! are reported as [`Diagnostic`]s.

mod decode;
mod emit;
mod json;
mod kind;
mod load;
mod node;
mod read;
mod resolve;

pub use decode::{decode_lenient, decode_strict, decode_strict_at};
pub use emit::to_yaml_string;
pub use json::{from_json, parse_json_exact, to_json, to_json_string, JsonBuild};
pub use kind::YamlKind;
pub use load::{load_str, LoadOptions};
pub use node::{Mapping, Node, NodeKind, Style};
pub use read::{load_data, load_file, read_bytes, read_source, DEFAULT_MAX_INPUT, STDIN_NAME};
pub use resolve::{resolve_plain, Resolved, YamlVersion};
pub use vetro_diag::{Diagnostic, FileId, SourceMap, Span};
