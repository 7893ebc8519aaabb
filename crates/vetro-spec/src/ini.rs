//! INI files: reading a read-config file (Python `configparser` rules that
//! the reference relies on) and writing a generate-config file.

use crate::error::{ErrorClass, Result, SpecError};
use indexmap::IndexMap;
use serde_json::Value;
use std::path::Path;

/// Sections in file order, each with its keys in order (values raw).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ini {
    pub sections: IndexMap<String, IndexMap<String, Option<String>>>,
}

impl Ini {
    /// Parse INI text. `lower_keys` lower-cases keys as configparser does.
    pub fn parse(text: &str, lower_keys: bool) -> std::result::Result<Ini, String> {
        let mut ini = Ini::default();
        let mut current: Option<String> = None;
        let mut last_key: Option<String> = None;
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
                continue;
            }
            if line.starts_with([' ', '\t']) && last_key.is_some() {
                // A continuation line of a multi-line value.
                if let (Some(sec), Some(key)) = (&current, &last_key) {
                    if let Some(Some(v)) = ini.sections.get_mut(sec).and_then(|s| s.get_mut(key)) {
                        v.push('\n');
                        v.push_str(trimmed);
                    }
                }
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix('[') {
                let name = rest
                    .strip_suffix(']')
                    .ok_or_else(|| format!("line {}: bad section header '{trimmed}'", n + 1))?;
                ini.sections.entry(name.to_string()).or_default();
                current = Some(name.to_string());
                last_key = None;
                continue;
            }
            let section = current
                .clone()
                .ok_or_else(|| format!("line {}: key before any [section]", n + 1))?;
            let (key, value) = match trimmed.find(['=', ':']) {
                Some(i) => (
                    trimmed[..i].trim().to_string(),
                    Some(trimmed[i + 1..].trim().to_string()),
                ),
                None => (trimmed.to_string(), None),
            };
            let key = if lower_keys { key.to_lowercase() } else { key };
            ini.sections
                .entry(section)
                .or_default()
                .insert(key.clone(), value);
            last_key = Some(key);
        }
        Ok(ini)
    }

    /// Read a file; missing is `file_not_found`, malformed `invalid_value`.
    pub fn read(path: &Path, lower_keys: bool) -> Result<Ini> {
        let cannot = |class, why: &dyn std::fmt::Display| {
            SpecError::new(
                class,
                format!("cannot read config file {}: {why}", path.display()),
            )
        };
        if let Err(e) = std::fs::metadata(path) {
            let class = if e.kind() == std::io::ErrorKind::NotFound {
                ErrorClass::FileNotFound
            } else {
                ErrorClass::Io
            };
            return Err(cannot(class, &e));
        }
        // Size-limited, so that an endless file (`/dev/zero`) is refused.
        let bytes = vetro_yaml::read_bytes(path, vetro_yaml::DEFAULT_MAX_INPUT).map_err(|d| {
            SpecError::new(
                ErrorClass::Io,
                format!("cannot read config file {}", d.message),
            )
        })?;
        let text = String::from_utf8(bytes).map_err(|e| cannot(ErrorClass::Io, &e))?;
        Ini::parse(&text, lower_keys).map_err(|m| {
            SpecError::new(
                ErrorClass::InvalidValue,
                format!("config file {}: {m}", path.display()),
            )
        })
    }

    /// The values a read-config option gives to subcommand `section`:
    /// `[DEFAULT]` entries overridden by the section's own.
    pub fn section_values(&self, section: &str) -> IndexMap<String, Value> {
        let mut out = IndexMap::new();
        for name in ["DEFAULT", section] {
            if let Some(sec) = self.sections.get(name) {
                for (k, v) in sec {
                    out.insert(k.clone(), convert_ini_value(v.as_deref().unwrap_or("")));
                }
            }
        }
        out
    }
}

/// `True`/`False` become booleans, `[...]` a list literal, the rest a string.
pub fn convert_ini_value(text: &str) -> Value {
    match text {
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        t if t.starts_with('[') && t.ends_with(']') => {
            parse_list_literal(&t[1..t.len() - 1]).unwrap_or_else(|| Value::String(t.to_string()))
        }
        t => Value::String(t.to_string()),
    }
}

/// A Python list literal of scalars (`'x', "y", 1, True`).
fn parse_list_literal(body: &str) -> Option<Value> {
    let mut items = Vec::new();
    let mut chars = body.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        if c == '\'' || c == '"' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next()? {
                    '\\' => s.push(chars.next()?),
                    ch if ch == c => break,
                    ch => s.push(ch),
                }
            }
            items.push(Value::String(s));
        } else {
            let mut tok = String::new();
            while chars.peek().is_some_and(|&ch| ch != ',') {
                tok.push(chars.next()?);
            }
            let tok = tok.trim();
            items.push(match tok {
                "True" => Value::Bool(true),
                "False" => Value::Bool(false),
                "None" => Value::Null,
                t => {
                    if let Ok(i) = t.parse::<i64>() {
                        Value::from(i)
                    } else {
                        Value::from(t.parse::<f64>().ok()?)
                    }
                }
            });
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => break,
            Some(',') => continue,
            Some(_) => return None,
        }
    }
    Some(Value::Array(items))
}

/// One line of a generated section.
#[derive(Clone, Debug)]
pub enum GenLine {
    Comment(String),
    Entry(String, String),
}

/// Write `lines` as section `section` of `path`, keeping the other sections of
/// an existing file and the existing values of keys this section writes.
pub fn write_generated(path: &Path, section: &str, lines: &[GenLine]) -> Result<()> {
    let existing = if path.exists() {
        Ini::read(path, false)?
    } else {
        Ini::default()
    };
    let old = existing.sections.get(section);
    let mut text = String::new();
    let mut wrote_own = false;
    let write_own = |text: &mut String| {
        text.push_str(&format!("[{section}]\n"));
        for line in lines {
            match line {
                GenLine::Comment(c) => {
                    for l in c.lines() {
                        text.push_str(&format!("# {l}\n"));
                    }
                }
                GenLine::Entry(k, v) => {
                    let v = old
                        .and_then(|s| s.get(k))
                        .map(|v| v.clone().unwrap_or_default())
                        .unwrap_or_else(|| v.clone());
                    text.push_str(&format!("{k} = {v}\n"));
                }
            }
        }
        text.push('\n');
    };
    for (name, keys) in &existing.sections {
        if name == section {
            write_own(&mut text);
            wrote_own = true;
            continue;
        }
        text.push_str(&format!("[{name}]\n"));
        for (k, v) in keys {
            match v {
                Some(v) => text.push_str(&format!("{k} = {v}\n")),
                None => text.push_str(&format!("{k}\n")),
            }
        }
        text.push('\n');
    }
    if !wrote_own {
        write_own(&mut text);
    }
    std::fs::write(path, text).map_err(|e| {
        SpecError::new(
            ErrorClass::Io,
            format!("cannot write config file {}: {e}", path.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_endless_file_is_refused_at_the_input_limit() {
        let e = Ini::read(Path::new("/dev/zero"), true).unwrap_err();
        assert!(
            e.message.contains("larger than the input limit"),
            "{}",
            e.message
        );
    }

    #[test]
    fn reads_sections_and_default() {
        let ini = Ini::parse("[DEFAULT]\nA = 1\n[svc]\nb: True\nc=['x', 'y']\n", true).unwrap();
        let v = ini.section_values("svc");
        assert_eq!(v["a"], json!("1"));
        assert_eq!(v["b"], json!(true));
        assert_eq!(v["c"], json!(["x", "y"]));
    }

    #[test]
    fn list_literal_fallback() {
        assert_eq!(convert_ini_value("[oops"), json!("[oops"));
        assert_eq!(convert_ini_value("[1, 'a']"), json!([1, "a"]));
    }
}
