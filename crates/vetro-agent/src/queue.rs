//! The agent's on-disk queue, as murano-agent keeps it: a plan is written to
//! `STORAGE/plans/STAMP/plan.json` before its message is acknowledged, and its
//! result to `result.json` beside it before the result is sent, so a plan
//! received is run and answered once even across restarts. The highest plan
//! `Stamp` seen is kept in `STORAGE/plans/stamp`: older or repeated plans are
//! dropped.

use base64::Engine as _;
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};

pub struct PlanQueue {
    dir: PathBuf,
    last_stamp: i64,
}

/// A stored plan, not yet run.
pub struct Stored {
    pub key: String,
    pub body: Vec<u8>,
    pub signature: Vec<u8>,
    pub message_id: String,
    pub reply_to: Option<String>,
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

impl PlanQueue {
    pub fn open(storage: &Path) -> std::io::Result<PlanQueue> {
        let dir = storage.join("plans");
        std::fs::create_dir_all(&dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        let last_stamp = std::fs::read_to_string(dir.join("stamp"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        Ok(PlanQueue { dir, last_stamp })
    }

    /// Keep a received message.
    pub fn put_plan(
        &mut self,
        body: &[u8],
        signature: &[u8],
        message_id: &str,
        reply_to: Option<&str>,
    ) -> std::io::Result<()> {
        let mut stamp = jiff::Timestamp::now().as_microsecond() / 100;
        let folder = loop {
            let f = self.dir.join(format!("{stamp:020}"));
            if !f.exists() {
                break f;
            }
            stamp += 1;
        };
        std::fs::create_dir(&folder)?;
        let data = json!({"Data": b64().encode(body), "Signature": b64().encode(signature),
                          "ID": message_id, "ReplyTo": reply_to});
        write_atomic(&folder.join("plan.json"), &data.to_string())
    }

    fn first_with(&self, file: &str) -> Option<String> {
        let mut keys: Vec<String> = std::fs::read_dir(&self.dir)
            .ok()?
            .flatten()
            .filter(|e| e.path().join(file).is_file())
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        keys.sort();
        keys.into_iter().next()
    }

    /// The oldest plan not yet answered.
    pub fn next_plan(&self) -> Option<Stored> {
        loop {
            let key = self.first_with_plan_only()?;
            let read = std::fs::read_to_string(self.dir.join(&key).join("plan.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<Json>(&t).ok());
            let Some(info) = read else {
                self.remove(&key);
                continue;
            };
            let field = |k: &str| {
                b64()
                    .decode(info[k].as_str().unwrap_or_default())
                    .unwrap_or_default()
            };
            return Some(Stored {
                body: field("Data"),
                signature: field("Signature"),
                message_id: info["ID"].as_str().unwrap_or_default().to_string(),
                reply_to: info["ReplyTo"].as_str().map(str::to_string),
                key,
            });
        }
    }

    fn first_with_plan_only(&self) -> Option<String> {
        let mut keys: Vec<String> = std::fs::read_dir(&self.dir)
            .ok()?
            .flatten()
            .filter(|e| {
                e.path().join("plan.json").is_file() && !e.path().join("result.json").exists()
            })
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        keys.sort();
        keys.into_iter().next()
    }

    /// Whether a plan's `Stamp` is new (and remember it); plans without a
    /// stamp always are.
    pub fn accept_stamp(&mut self, plan: &Json) -> bool {
        let stamp = plan.get("Stamp").and_then(Json::as_i64).unwrap_or(-1);
        if stamp < 0 {
            return true;
        }
        if stamp <= self.last_stamp {
            return false;
        }
        self.last_stamp = stamp;
        let _ = write_atomic(&self.dir.join("stamp"), &stamp.to_string());
        true
    }

    pub fn put_result(&self, key: &str, result: &Json) -> std::io::Result<()> {
        write_atomic(&self.dir.join(key).join("result.json"), &result.to_string())
    }

    /// The oldest result not yet sent.
    pub fn next_result(&self) -> Option<(String, Json)> {
        let key = self.first_with("result.json")?;
        let text = std::fs::read_to_string(self.dir.join(&key).join("result.json")).ok();
        match text.and_then(|t| serde_json::from_str(&t).ok()) {
            Some(r) => Some((key, r)),
            None => {
                self.remove(&key);
                self.next_result()
            }
        }
    }

    pub fn remove(&self, key: &str) {
        let _ = std::fs::remove_dir_all(self.dir.join(key));
    }
}

fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_and_results_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = PlanQueue::open(dir.path()).unwrap();
        q.put_plan(b"{\"ID\": \"a\"}", b"", "m1", Some("rq"))
            .unwrap();
        q.put_plan(b"{\"ID\": \"b\"}", b"sig", "m2", None).unwrap();
        let q = PlanQueue::open(dir.path()).unwrap();
        let first = q.next_plan().unwrap();
        assert_eq!(
            (first.body.as_slice(), first.reply_to.as_deref()),
            (&b"{\"ID\": \"a\"}"[..], Some("rq"))
        );
        q.put_result(&first.key, &json!({"SourceID": "a"})).unwrap();
        let second = q.next_plan().unwrap();
        assert_eq!(
            (second.message_id.as_str(), second.signature.as_slice()),
            ("m2", &b"sig"[..])
        );
        let (key, r) = q.next_result().unwrap();
        assert_eq!(r["SourceID"], "a");
        q.remove(&key);
        assert!(q.next_result().is_none());
    }

    #[test]
    fn old_stamps_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut q = PlanQueue::open(dir.path()).unwrap();
        assert!(q.accept_stamp(&json!({"Stamp": 10})));
        assert!(!q.accept_stamp(&json!({"Stamp": 10})));
        assert!(q.accept_stamp(&json!({})));
        let mut q = PlanQueue::open(dir.path()).unwrap();
        assert!(!q.accept_stamp(&json!({"Stamp": 9})));
        assert!(q.accept_stamp(&json!({"Stamp": 11})));
    }
}
