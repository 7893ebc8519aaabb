//! Execution plans as Murano's engine completed them before sending them to
//! a real agent: format 2 plans get an `ID`, a `Stamp`, an `Action` and their
//! script entry points and script files placed in `Files` (read from the
//! calling package's `Resources/scripts/`; a `<name>` is sent as Base64, a URL
//! as a download); format 1 plans (the Windows agent's) get their scripts
//! inlined as Base64 and a `Stamp`.

use serde_json::{json, Map, Value as Json};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

static LAST_STAMP: AtomicI64 = AtomicI64::new(0);
static COUNTER: AtomicU64 = AtomicU64::new(0);

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default()
}

/// Increasing per process, and across processes by time (units of 100 µs),
/// so an agent can drop plans older than the last it ran.
fn stamp() -> i64 {
    let now = (now_nanos() / 100_000) as i64;
    let mut last = LAST_STAMP.load(Ordering::Relaxed);
    loop {
        let next = now.max(last + 1);
        match LAST_STAMP.compare_exchange(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

/// A new 32-digit hex id.
pub(super) fn new_id() -> String {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mix = now_nanos() ^ ((std::process::id() as u128) << 96) ^ ((n as u128) << 64);
    format!(
        "{:032x}",
        mix.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)
    )
}

fn is_url(s: &str) -> bool {
    s.split_once("://")
        .is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty())
}

/// The value of a file reference: a name, or the value of `{name: value}`.
fn file_value(f: &Json) -> String {
    match f {
        Json::Object(m) => m
            .values()
            .next()
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string(),
        other => other.as_str().unwrap_or_default().to_string(),
    }
}

/// The name a file reference is known by: a URL's last segment, `<x>` → `x`.
fn file_name(f: &Json) -> String {
    let name = match f {
        Json::Object(m) => m.keys().next().cloned().unwrap_or_default(),
        other => other.as_str().unwrap_or_default().to_string(),
    };
    if is_url(&name) {
        name.rsplit('/').next().unwrap_or_default().to_string()
    } else if name.starts_with('<') && name.ends_with('>') && name.len() >= 2 {
        name[1..name.len() - 1].to_string()
    } else {
        name
    }
}

/// Complete `template` for a real agent; `read` gives the text of a file of
/// the calling package's `Resources/` folder.
pub fn build(
    template: Json,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Json, String> {
    let Json::Object(mut t) = template else {
        return Err("Incorrect execution plan: not a mapping".into());
    };
    let version = t.get("FormatVersion").and_then(Json::as_str).unwrap_or("");
    if version.is_empty() || version.starts_with("1.") {
        let mut scripts = Vec::new();
        for s in t
            .get("Scripts")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default()
        {
            let text = read(&format!("scripts/{}", s.as_str().unwrap_or_default()))?;
            scripts.push(json!(base64(text.as_bytes())));
        }
        t.insert("Scripts".into(), Json::Array(scripts));
        t.insert("Stamp".into(), json!(stamp()));
        return Ok(Json::Object(t));
    }
    t.insert("ID".into(), json!(new_id()));
    t.insert("Stamp".into(), json!(stamp()));
    t.entry("Action").or_insert_with(|| json!("Execute"));
    let mut files = match t.remove("Files") {
        Some(Json::Object(m)) => m,
        _ => Map::new(),
    };
    // Files the template carries, by name.
    let mut by_name: Map<String, Json> = files
        .iter()
        .filter_map(|(id, d)| Some((d.get("Name")?.as_str()?.to_string(), json!(id))))
        .collect();
    let mut scripts = match t.remove("Scripts") {
        Some(Json::Object(m)) => m,
        _ => Map::new(),
    };
    for (name, script) in scripts.iter_mut() {
        let Some(s) = script.as_object_mut() else {
            return Err(format!("script {name} is not a mapping"));
        };
        let entry = s
            .get("EntryPoint")
            .cloned()
            .ok_or_else(|| format!("No entry point in script {name}"))?;
        if s.get("Type").and_then(Json::as_str) == Some("Application") {
            let id = match by_name.get(entry.as_str().unwrap_or_default()) {
                Some(id) => id.clone(),
                None => place(&entry, &mut files, &mut by_name, read)?,
            };
            s.insert("EntryPoint".into(), id);
        }
        if let Some(Json::Array(list)) = s.get_mut("Files") {
            for f in list.iter_mut() {
                *f = match by_name.get(&file_name(f)) {
                    Some(id) => id.clone(),
                    None => place(f, &mut files, &mut by_name, read)?,
                };
            }
        }
    }
    t.insert("Files".into(), Json::Object(files));
    t.insert("Scripts".into(), Json::Object(scripts));
    Ok(Json::Object(t))
}

/// Add file `f` of `Resources/scripts/` (or a download) to the plan's files.
fn place(
    f: &Json,
    files: &mut Map<String, Json>,
    by_name: &mut Map<String, Json>,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Json, String> {
    let (value, name) = (file_value(f), file_name(f));
    let id = new_id();
    let def = if is_url(&value) {
        json!({"Name": name, "URL": value, "Type": "Downloadable"})
    } else if value.starts_with('<') && value.ends_with('>') {
        let text = read(&format!("scripts/{name}"))?;
        json!({"Name": name, "BodyType": "Base64", "Body": format!("{}\n", base64(text.as_bytes()))})
    } else {
        json!({"Name": name, "BodyType": "Text", "Body": read(&format!("scripts/{value}"))?})
    };
    files.insert(id.clone(), def);
    by_name.insert(name, json!(id));
    Ok(json!(id))
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str) -> Result<String, String> {
        match path {
            "scripts/deploy.sh" => Ok("echo deploy".into()),
            "scripts/lib.sh" => Ok("f() { :; }".into()),
            "scripts/blob" => Ok("abc".into()),
            other => Err(format!("no resource {other}")),
        }
    }

    #[test]
    fn v2_plans_get_ids_and_files() {
        let t = json!({"FormatVersion": "2.0.0", "Body": "return deploy().stdout",
            "Scripts": {"deploy": {"Type": "Application", "EntryPoint": "deploy.sh",
                                   "Files": ["lib.sh", "<blob>", {"repo": "https://example.org/x.git"}]}}});
        let p = build(t, &read).unwrap();
        assert_eq!(p["ID"].as_str().unwrap().len(), 32);
        assert_eq!(p["Action"], "Execute");
        let files = p["Files"].as_object().unwrap();
        let s = &p["Scripts"]["deploy"];
        let entry = &files[s["EntryPoint"].as_str().unwrap()];
        assert_eq!(
            entry,
            &json!({"Name": "deploy.sh", "BodyType": "Text", "Body": "echo deploy"})
        );
        let refs: Vec<&Json> = s["Files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| &files[id.as_str().unwrap()])
            .collect();
        assert_eq!(refs[0]["Body"], "f() { :; }");
        assert_eq!(
            refs[1],
            &json!({"Name": "blob", "BodyType": "Base64", "Body": "YWJj\n"})
        );
        assert_eq!(
            refs[2],
            &json!({"Name": "repo", "URL": "https://example.org/x.git", "Type": "Downloadable"})
        );
        let again = build(json!({"FormatVersion": "2.0.0", "Scripts": {}}), &read).unwrap();
        assert!(again["Stamp"].as_i64() > p["Stamp"].as_i64());
    }

    #[test]
    fn v1_plans_inline_their_scripts_and_missing_files_fail() {
        let p = build(json!({"Scripts": ["deploy.sh"], "Commands": []}), &read).unwrap();
        assert_eq!(p["Scripts"], json!(["ZWNobyBkZXBsb3k="]));
        let e = build(
            json!({"FormatVersion": "2.0.0", "Scripts": {"s": {"Type": "Application", "EntryPoint": "nope.sh"}}}),
            &read,
        );
        assert_eq!(e.unwrap_err(), "no resource scripts/nope.sh");
    }
}
