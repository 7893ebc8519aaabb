//! Spec loading and argument parsing: the input is a spec text, then a NUL,
//! then one command-line argument per line. A spec starting with `#tree` is a
//! settings-tree spec (command `app`); anything else is a plugin.spec run with
//! `vetro ir`'s procedure. Nothing may panic or hang.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use vetro_diag::SourceMap;
use vetro_spec::plugin::invoke::{invoke, IrRequest};
use vetro_spec::plugin::spec::load_plugin;
use vetro_spec::{Engine, Request};

/// A scratch folder with a plugin (`plugin/`) and a settings tree (`tree/app/`).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("vetro-fuzz-spec-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("plugin/vars/opt")).expect("scratch dir");
        std::fs::create_dir_all(dir.join("tree/app/sub")).expect("scratch dir");
        std::fs::write(dir.join("plugin/main.yml"), "- hosts: localhost\n").expect("main.yml");
        std::fs::write(dir.join("plugin/vars/opt/a.yml"), "a: 1\n").expect("vars file");
        std::fs::write(dir.join("tree/app/sub/sub.yml"), "app: {x: 1}\n").expect("skeleton");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (spec, rest) = text.split_once('\0').unwrap_or((text, ""));
    // Arguments stay inside the scratch folder (answers files are written there).
    let args: Vec<String> = rest
        .split('\n')
        .filter(|a| !a.is_empty() && !a.contains('/') && !a.contains(".."))
        .map(str::to_string)
        .collect();
    let dir = scratch();
    let mut sources = SourceMap::new();
    if spec.starts_with("#tree") {
        if std::fs::write(dir.join("tree/app/app.spec"), spec).is_err() {
            return;
        }
        let mut argv = vec!["app".to_string()];
        argv.extend(args);
        let req = Request {
            settings_root: dir.join("tree"),
            args: argv,
            cwd: dir.join("tree"),
            env: HashMap::new(),
        };
        let _ = Engine::default().run(&req, &mut sources);
    } else {
        let plugin_dir = dir.join("plugin");
        if std::fs::write(plugin_dir.join("plugin.spec"), spec).is_err() {
            return;
        }
        let Ok(plugin) = load_plugin(&plugin_dir, &mut sources) else {
            return;
        };
        let req = IrRequest {
            args,
            cwd: plugin_dir,
            env: HashMap::new(),
        };
        let _ = invoke(&plugin, &req, &mut sources);
    }
});
