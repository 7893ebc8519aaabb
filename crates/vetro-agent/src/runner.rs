//! Running one plan and shaping murano-agent's answer to it.

use crate::body::{eval_body, parse_body, Raised};
use crate::executors::PlanScripts;
use crate::files::Files;
use crate::plan::validate;
use serde_json::{json, Value as Json};
use std::path::Path;

/// Check and run `plan` with its files under `storage`; what its body
/// returned, or what it raised. `dry_run` prepares every file and evaluates
/// the body, but starts no script (each answers exit code 0).
pub fn run_plan(plan: &Json, storage: &Path, dry_run: bool) -> Result<Json, Raised> {
    validate(plan)?;
    let body = plan.get("Body").and_then(Json::as_str).unwrap_or("return");
    let stmts = parse_body(body).map_err(|e| Raised::new(format!("SyntaxError: Body {e}")))?;
    let id = plan
        .get("ID")
        .map(crate::body::py_str)
        .ok_or_else(|| Raised::new("ValueError: ID attribute is missing from execution plan"))?;
    let mut files = Files::new(storage, &id, plan, dry_run)?;
    let params = plan.get("Parameters").cloned().unwrap_or(Json::Null);
    let result = {
        let mut scripts = PlanScripts::new(plan, &mut files, dry_run);
        eval_body(&stmts, &params, &mut scripts)
    };
    files.clear();
    result
}

fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M:%S%.6f")
        .to_string()
}

/// murano-agent's result message for `plan` (format 2.0.0): `ErrorCode` 0
/// and the body's value, or the error's code with `{Message, AdditionalInfo}`.
pub fn result_message(plan: &Json, outcome: &Result<Json, Raised>) -> Json {
    let (code, body) = match outcome {
        Ok(v) => (0, v.clone()),
        Err(e) => (
            e.code,
            json!({"Message": e.message, "AdditionalInfo": e.additional}),
        ),
    };
    json!({
        "FormatVersion": "2.0.0",
        "ID": uuid::Uuid::new_v4().simple().to_string(),
        "SourceID": plan.get("ID").cloned().unwrap_or(Json::Null),
        "Action": "Execution:Result",
        "ErrorCode": code,
        "Body": body,
        "Time": now(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(script: &str, body: &str, verify: bool) -> Json {
        json!({"FormatVersion": "2.0.0", "ID": "p1", "Body": body, "Parameters": {"who": "ci"},
               "Files": {"f": {"Name": "run.sh", "BodyType": "Text", "Body": script}},
               "Scripts": {"run": {"Type": "Application", "EntryPoint": "f", "Files": [],
                                   "Options": {"captureStdout": true, "captureStderr": true, "verifyExitcode": verify}}}})
    }

    #[cfg(unix)]
    #[test]
    fn runs_application_scripts() {
        let dir = tempfile::tempdir().unwrap();
        let p = plan(
            "#!/bin/sh\necho \"hello $1\"\necho warn >&2\n",
            "return run(args.who)",
            true,
        );
        let r = run_plan(&p, dir.path(), false).unwrap();
        assert_eq!(
            r,
            json!({"exitCode": 0, "stdout": "hello ci", "stderr": "warn"})
        );
        let msg = result_message(&p, &Ok(r));
        assert_eq!(
            (msg["ErrorCode"].clone(), msg["SourceID"].clone()),
            (json!(0), json!("p1"))
        );
        // The plan's files are gone afterwards.
        assert!(!dir.path().join("files/p1").exists());
    }

    #[cfg(unix)]
    #[test]
    fn failing_scripts_raise_with_their_output() {
        let dir = tempfile::tempdir().unwrap();
        let p = plan(
            "#!/bin/sh\necho broken >&2\nexit 3\n",
            "return run().stdout",
            true,
        );
        let e = run_plan(&p, dir.path(), false).unwrap_err();
        assert_eq!(e.code, 100);
        assert_eq!(e.message, "Script run returned error code");
        assert_eq!(e.additional["stderr"], "broken");
        assert_eq!(e.additional["exitCode"], 3);
        let msg = result_message(&p, &Err(e));
        assert_eq!(msg["Body"]["AdditionalInfo"]["exitCode"], 3);
        // Without verifyExitcode the code is returned.
        let p = plan("#!/bin/sh\nexit 3\n", "return run().exitCode", false);
        assert_eq!(run_plan(&p, dir.path(), false).unwrap(), json!(3));
    }

    #[test]
    fn chef_without_chef_solo_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = json!({"FormatVersion": "2.1.0", "ID": "c", "Body": "return r(args).stdout", "Files": {},
                       "Scripts": {"r": {"Type": "Chef", "EntryPoint": "nosuchcookbook::default", "Options": {}}}});
        if on_path_for_test("chef-solo") {
            return;
        }
        let e = run_plan(&p, dir.path(), false).unwrap_err();
        assert!(e.message.contains("chef-solo"), "{e}");
        // A dry run prepares the recipe's files without the tool.
        assert_eq!(run_plan(&p, dir.path(), true).unwrap(), Json::Null);
    }

    fn on_path_for_test(tool: &str) -> bool {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
    }
}
