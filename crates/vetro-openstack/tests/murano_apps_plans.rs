//! Every execution plan of the published Murano applications, completed as
//! the engine completes it for a real agent (script files from the package's
//! `Resources/scripts/`) and dry-run by `vetro agent`: checked, files placed,
//! `Body` evaluated, no script started. Needs `../shared/murano-packages`
//! (or `VETRO_MURANO_PACKAGES`); skips with a message without it.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};

fn packages_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VETRO_MURANO_PACKAGES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/murano-packages")
        });
    dir.join("murano-apps").is_dir().then_some(dir)
}

fn templates(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            templates(&p, out);
        } else if p.extension().is_some_and(|x| x == "template")
            && p.parent().is_some_and(|d| d.ends_with("Resources"))
        {
            out.push(p);
        }
    }
}

fn load(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap();
    let mut sources = vetro_diag::SourceMap::new();
    let file = sources.add(path.display().to_string(), text.as_str());
    let docs = vetro_yaml::load_str(&sources, file, &vetro_yaml::LoadOptions::default()).unwrap();
    vetro_yaml::to_json(&docs[0])
}

#[test]
fn every_murano_apps_plan_dry_runs() {
    let Some(dir) = packages_dir() else {
        eprintln!("skipped: ../shared/murano-packages not found (set VETRO_MURANO_PACKAGES)");
        return;
    };
    let mut files = Vec::new();
    templates(&dir.join("murano-apps"), &mut files);
    files.sort();
    let storage = tempfile::tempdir().unwrap();
    let (mut v2, mut v1) = (0, 0);
    for path in &files {
        let resources = path.parent().unwrap().to_path_buf();
        let template = load(path);
        let read = |name: &str| {
            std::fs::read_to_string(resources.join(name)).map_err(|e| format!("{name}: {e}"))
        };
        let plan =
            vetro_dsl::cloud::build_agent_plan(template.clone(), &read).unwrap_or_else(|e| {
                panic!(
                    "{}: the engine cannot complete the plan: {e}",
                    path.display()
                )
            });
        let outcome = vetro_agent::run_plan(&plan, storage.path(), true);
        if template.get("FormatVersion").is_some() {
            v2 += 1;
            if let Err(e) = outcome {
                panic!("{}: {} (code {})", path.display(), e.message, e.code);
            }
        } else {
            // Format 1 plans are the Windows agent's (a list of PowerShell
            // scripts and commands): murano-agent refuses them as malformed,
            // and so does vetro agent, with the same error (they have no `Files`).
            v1 += 1;
            let e = outcome.unwrap_err();
            assert_eq!(
                (e.code, e.message.as_str()),
                (2, "Files is not in the execution plan"),
                "{}",
                path.display()
            );
            assert!(plan["Scripts"]
                .as_array()
                .is_some_and(|s| s.iter().all(Json::is_string)));
        }
    }
    eprintln!("{v2} format 2 plans dry-run, {v1} format 1 (Windows) plans refused as murano-agent refuses them");
    assert!(
        v2 >= 20,
        "only {v2} format 2 plans found under {}",
        dir.display()
    );
}
