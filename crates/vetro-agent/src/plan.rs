//! Execution plans as murano-agent accepts them: format 1.x and 2.0-2.2.
//! A plan is a JSON object with `Body` (Python, see [`crate::body`]),
//! `Parameters`, `Files` (id -> `{Name, BodyType: Text|Base64, Body}` or,
//! from 2.1, `{Name, Type: Downloadable, URL}`) and `Scripts` (name ->
//! `{Type, EntryPoint, Files, Options}`; only `Application` before 2.1,
//! also `Chef` and `Puppet` from 2.1).

use crate::body::Raised;
use serde_json::Value as Json;

/// A plan's `FormatVersion` (`1.0.0` when absent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FormatVersion(pub u64, pub u64, pub u64);

impl FormatVersion {
    pub fn of(plan: &Json) -> Result<FormatVersion, Raised> {
        let text = plan
            .get("FormatVersion")
            .and_then(Json::as_str)
            .unwrap_or("1.0.0");
        let bad = || Raised::new(format!("ValueError: Invalid version string: {text:?}"));
        let core = text.split(['-', '+']).next().unwrap_or_default();
        let parts: Vec<u64> = core
            .split('.')
            .map(|p| p.parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        match parts[..] {
            [a, b, c] => Ok(FormatVersion(a, b, c)),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for FormatVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

const MAX: FormatVersion = FormatVersion(2, 2, 0);
const V2_0: FormatVersion = FormatVersion(2, 0, 0);
const V2_1: FormatVersion = FormatVersion(2, 1, 0);
const V2_2: FormatVersion = FormatVersion(2, 2, 0);

fn incorrect(code: i64, message: String) -> Raised {
    Raised {
        code,
        message,
        additional: Json::Null,
    }
}

/// The id of a script's file reference: a file id, or the key of a
/// one-entry `{name: ...}` mapping.
pub fn file_ref_id(f: &Json) -> Option<&str> {
    match f {
        Json::String(s) => Some(s),
        Json::Object(m) => m.keys().next().map(String::as_str),
        _ => None,
    }
}

/// Check a plan as murano-agent does before it runs one; the error carries
/// murano-agent's error code (9: unsupported version, 2: malformed).
pub fn validate(plan: &Json) -> Result<FormatVersion, Raised> {
    let v = FormatVersion::of(plan)?;
    if v > MAX {
        return Err(incorrect(
            9,
            format!("Unsupported format version {v} (I support versions <={MAX})"),
        ));
    }
    for attr in ["Scripts", "Files"] {
        if plan.get(attr).is_none() {
            return Err(incorrect(2, format!("{attr} is not in the execution plan")));
        }
    }
    for attr in ["Scripts", "Files", "Options"] {
        if plan.get(attr).is_some_and(|x| !x.is_object()) {
            return Err(incorrect(2, format!("{attr} is not a dictionary")));
        }
    }
    let empty = serde_json::Map::new();
    let files = plan["Files"].as_object().unwrap_or(&empty);
    for (name, script) in plan["Scripts"].as_object().unwrap_or(&empty) {
        validate_script(name, script, v, files)?;
    }
    for (key, file) in files {
        validate_file(key, file, v)?;
    }
    Ok(v)
}

fn validate_script(
    name: &str,
    script: &Json,
    v: FormatVersion,
    files: &serde_json::Map<String, Json>,
) -> Result<(), Raised> {
    let field = |k: &str| script.get(k).and_then(Json::as_str);
    for attr in ["Type", "EntryPoint"] {
        if field(attr).is_none() {
            return Err(incorrect(
                2,
                format!("Incorrect {attr} entry in script {name}"),
            ));
        }
    }
    let (ty, entry) = (
        field("Type").unwrap_or_default(),
        field("EntryPoint").unwrap_or_default(),
    );
    if v >= V2_0 && v < V2_1 && ty != "Application" {
        return Err(incorrect(
            2,
            format!("Type {ty} is not valid for format {v}"),
        ));
    }
    if v >= V2_0 {
        if v >= V2_1 && !["Application", "Chef", "Puppet"].contains(&ty) {
            return Err(incorrect(2, format!("Script has not a valid type {ty}")));
        }
        if ty == "Application" && !files.contains_key(entry) {
            return Err(incorrect(
                2,
                format!("Script {name} misses entry point {entry}"),
            ));
        }
        if ty != "Application" && !entry.contains("::") {
            return Err(incorrect(
                2,
                format!("Wrong EntryPoint {entry} for Puppet/Chef executors. :: needed"),
            ));
        }
    }
    if v >= V2_1 {
        let options = script.get("Options").and_then(Json::as_object);
        for option in options.into_iter().flat_map(|o| o.keys()) {
            if option == "useBerkshelf" || option == "berksfilePath" {
                if v < V2_2 {
                    return Err(incorrect(
                        2,
                        format!("Script has an option {option} invalid for version {v}"),
                    ));
                }
                if ty != "Chef" {
                    return Err(incorrect(
                        2,
                        format!("Script has an option {option} invalid for type {ty}"),
                    ));
                }
            }
        }
    }
    let refs = script
        .get("Files")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    for f in &refs {
        if !file_ref_id(f).is_some_and(|id| files.contains_key(id)) {
            let shown = crate::body::py_str(f);
            return Err(incorrect(2, format!("Script {name} misses file {shown}")));
        }
    }
    Ok(())
}

fn validate_file(key: &str, file: &Json, v: FormatVersion) -> Result<(), Raised> {
    let has = |k: &str| file.get(k).is_some();
    if v >= V2_0 && v < V2_1 && (has("Type") || has("URL")) {
        return Err(incorrect(
            2,
            format!("Download file is {key} not valid for this version {v}"),
        ));
    }
    let required: &[&str] = if has("Type") {
        &["Type", "URL", "Name"]
    } else if has("Body") {
        &["BodyType", "Body", "Name"]
    } else {
        return Err(incorrect(
            2,
            format!("Invalid file {key}: {}", crate::body::py_str(file)),
        ));
    };
    for attr in required {
        if !has(attr) {
            return Err(incorrect(
                2,
                format!("Incorrect {attr} entry in file {key}"),
            ));
        }
    }
    if has("Body") && !matches!(file["BodyType"].as_str(), Some("Text" | "Base64")) {
        return Err(incorrect(2, format!("Incorrect BodyType in file {key}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(version: &str, ty: &str, entry: &str) -> Json {
        json!({"FormatVersion": version, "ID": "p", "Body": "return",
               "Files": {"f": {"Name": "a.sh", "BodyType": "Text", "Body": "echo"}},
               "Scripts": {"s": {"Type": ty, "EntryPoint": entry, "Files": [], "Options": {}}}})
    }

    #[test]
    fn accepts_what_murano_agent_accepts() {
        assert_eq!(
            validate(&plan("2.0.0", "Application", "f")).unwrap(),
            FormatVersion(2, 0, 0)
        );
        assert!(validate(&plan("2.1.0", "Chef", "git::default")).is_ok());
        let mut v1 = plan("1.0.0", "Anything", "f");
        v1.as_object_mut().unwrap().remove("FormatVersion");
        assert_eq!(validate(&v1).unwrap(), FormatVersion(1, 0, 0));
    }

    #[test]
    fn refuses_with_murano_agent_codes() {
        let e = validate(&plan("3.0.0", "Application", "f")).unwrap_err();
        assert_eq!(e.code, 9);
        let e = validate(&plan("2.0.0", "Chef", "git::default")).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (2, "Type Chef is not valid for format 2.0.0")
        );
        let e = validate(&plan("2.1.0", "Chef", "git")).unwrap_err();
        assert!(e.message.contains(":: needed"));
        let e = validate(&plan("2.0.0", "Application", "missing")).unwrap_err();
        assert_eq!(e.message, "Script s misses entry point missing");
        let e = validate(&json!({"Files": {}})).unwrap_err();
        assert_eq!(e.message, "Scripts is not in the execution plan");
    }
}
