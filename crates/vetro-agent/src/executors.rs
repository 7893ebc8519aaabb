//! The script types: `Application` runs the entry point file with the
//! command line the body passes; `Chef` and `Puppet` run `chef-solo` and
//! `puppet apply` on the recipe or class the entry point names
//! (`module::recipe`), with the body's argument as its attributes.

use crate::body::{py_str, Raised, Scripts};
use crate::files::Files;
use serde_json::{json, Value as Json};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The scripts of one plan, callable from its body.
pub struct PlanScripts<'a> {
    scripts: serde_json::Map<String, Json>,
    files: &'a mut Files,
    loaded: HashSet<String>,
    /// Prepare everything, run nothing: each call answers exit code 0.
    dry_run: bool,
}

struct Options {
    stdout: bool,
    stderr: bool,
    verify: bool,
}

impl Options {
    fn of(script: &Json) -> Options {
        let o = |k: &str| {
            script
                .get("Options")
                .and_then(|o| o.get(k))
                .map(crate::body::truthy)
        };
        Options {
            stdout: o("captureStdout").unwrap_or(true),
            stderr: o("captureStderr").unwrap_or(true),
            verify: o("verifyExitcode").unwrap_or(true),
        }
    }
}

impl<'a> PlanScripts<'a> {
    pub fn new(plan: &Json, files: &'a mut Files, dry_run: bool) -> PlanScripts<'a> {
        PlanScripts {
            scripts: plan
                .get("Scripts")
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default(),
            files,
            loaded: HashSet::new(),
            dry_run,
        }
    }

    /// Place the script's files (once); the path the executor works on.
    fn load(&mut self, name: &str, script: &Json) -> Result<PathBuf, Raised> {
        let first = self.loaded.insert(name.to_string());
        if first {
            for f in script
                .get("Files")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                self.files.put_file(f, name)?;
            }
        }
        if script["Type"] == "Application" {
            self.files.put_file(&script["EntryPoint"], name)
        } else {
            let dir = self.files.script_dir(name);
            std::fs::create_dir_all(&dir)
                .map_err(|e| Raised::new(format!("IOError: {}: {e}", dir.display())))?;
            Ok(dir)
        }
    }
}

fn arg(args: &[Json], kwargs: &[(String, Json)], i: usize, name: &str) -> Option<Json> {
    args.get(i).cloned().or_else(|| {
        kwargs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    })
}

impl Scripts for PlanScripts<'_> {
    fn has(&self, name: &str) -> bool {
        self.scripts.contains_key(name)
    }

    fn call(
        &mut self,
        name: &str,
        _function: Option<&str>,
        args: Vec<Json>,
        kwargs: Vec<(String, Json)>,
    ) -> Result<Json, Raised> {
        let script = self.scripts.get(name).cloned().unwrap_or(Json::Null);
        let path = self.load(name, &script)?;
        let opts = Options::of(&script);
        let entry = script["EntryPoint"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match script["Type"].as_str().unwrap_or_default() {
            "Application" => {
                let commandline = arg(&args, &kwargs, 0, "commandline")
                    .map(|v| py_str(&v))
                    .unwrap_or_default();
                let input = arg(&args, &kwargs, 1, "input")
                    .filter(|v| !v.is_null())
                    .map(|v| py_str(&v));
                application(
                    name,
                    &path,
                    &commandline,
                    input.as_deref(),
                    &opts,
                    self.dry_run,
                )
            }
            ty @ ("Chef" | "Puppet") => {
                let attrs = arg(&args, &kwargs, 0, "recipe_attributes").filter(|v| !v.is_null());
                let (module, recipe) = entry.rsplit_once("::").ok_or_else(|| Raised {
                    code: 100,
                    message: format!("Module recipe name format {entry} is not valid"),
                    additional: Json::Null,
                })?;
                let use_berks = script
                    .get("Options")
                    .and_then(|o| o.get("useBerkshelf"))
                    .is_some_and(crate::body::truthy);
                let berksfile = script
                    .get("Options")
                    .and_then(|o| o.get("berksfilePath"))
                    .and_then(Json::as_str);
                let cmd = if ty == "Chef" {
                    chef_setup(
                        &path,
                        module,
                        recipe,
                        attrs.as_ref(),
                        use_berks.then(|| berksfile.unwrap_or("")),
                        &opts,
                        self.dry_run,
                    )?
                } else {
                    puppet_setup(&path, module, recipe, attrs.as_ref())?
                };
                if self.dry_run {
                    return Ok(json!({"exitCode": 0, "stdout": null, "stderr": null}));
                }
                run_tool(&entry, &path, &cmd, &opts)
            }
            other => Err(Raised::new(format!(
                "ValueError: The application type in {name} is not a valid executor {other}"
            ))),
        }
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// Run `cmd` through the shell in `dir`, collecting what `opts` asks for.
fn shell(cmd: &str, dir: &Path, input: Option<&str>, opts: &Options) -> Result<Json, Raised> {
    let pipe = |on: bool| if on { Stdio::piped() } else { Stdio::inherit() };
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(pipe(opts.stdout))
        .stderr(pipe(opts.stderr))
        .spawn()
        .map_err(|e| Raised::new(format!("OSError: cannot run {cmd:?}: {e}")))?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        let _ = stdin.write_all(text.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Raised::new(format!("OSError: {cmd:?}: {e}")))?;
    let code = match out.status.code() {
        Some(c) => c as i64,
        None => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                -(out.status.signal().unwrap_or(0) as i64)
            }
            #[cfg(not(unix))]
            -1
        }
    };
    let text = |on: bool, b: &[u8]| -> Json {
        let s = String::from_utf8_lossy(b);
        if on && !s.trim().is_empty() {
            json!(s.trim())
        } else {
            Json::Null
        }
    };
    Ok(
        json!({"exitCode": code, "stdout": text(opts.stdout, &out.stdout), "stderr": text(opts.stderr, &out.stderr)}),
    )
}

fn check_exit(name: &str, result: Json, opts: &Options) -> Result<Json, Raised> {
    if opts.verify && result["exitCode"] != 0 {
        return Err(Raised {
            code: 100,
            message: format!("Script {name} returned error code"),
            additional: result,
        });
    }
    Ok(result)
}

fn application(
    name: &str,
    path: &Path,
    commandline: &str,
    input: Option<&str>,
    opts: &Options,
    dry_run: bool,
) -> Result<Json, Raised> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    let target = std::fs::canonicalize(path)
        .map_err(|e| Raised::new(format!("IOError: {}: {e}", path.display())))?;
    if dry_run {
        return Ok(json!({"exitCode": 0, "stdout": null, "stderr": null}));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o500))
            .map_err(|e| Raised::new(format!("OSError: chmod {}: {e}", target.display())))?;
    }
    let cmd = format!("./\"{file}\" {commandline}");
    let result = shell(&cmd, dir, input, opts)?;
    check_exit(name, result, opts)
}

fn missing_tool(tool: &str, ty: &str) -> Raised {
    Raised {
        code: 100,
        message: format!("{ty} scripts need `{tool}`, which is not installed on this instance (not found on PATH)"),
        additional: json!({"exitCode": 127, "stdout": null, "stderr": format!("{tool}: command not found")}),
    }
}

fn write(path: &Path, text: &str) -> Result<(), Raised> {
    std::fs::write(path, text).map_err(|e| Raised::new(format!("IOError: {}: {e}", path.display())))
}

/// Write `solo.rb` and `node.json` for recipe `module::recipe`; the command.
fn chef_setup(
    dir: &Path,
    module: &str,
    recipe: &str,
    attrs: Option<&Json>,
    berksfile: Option<&str>,
    opts: &Options,
    dry_run: bool,
) -> Result<String, Raised> {
    if !dry_run && !on_path("chef-solo") {
        return Err(missing_tool("chef-solo", "Chef"));
    }
    let mut cookbooks = dir.to_path_buf();
    if let Some(b) = berksfile {
        let berks = dir.join(if b.is_empty() {
            format!("{module}/Berksfile")
        } else {
            b.to_string()
        });
        if !dry_run && !berks.is_file() {
            return Err(Raised {
                code: 100,
                message: format!("Berskfile {} not found", berks.display()),
                additional: Json::Null,
            });
        }
        cookbooks = dir.join("berks-cookbooks");
        if !dry_run {
            if !on_path("berks") {
                return Err(missing_tool("berks", "Chef (Berkshelf)"));
            }
            let cmd = format!(
                "berks vendor --berksfile={} {}",
                berks.display(),
                cookbooks.display()
            );
            check_exit("berks", shell(&cmd, dir, None, opts)?, opts)?;
        }
    }
    write(
        &dir.join("solo.rb"),
        &format!("cookbook_path \"{}\"", cookbooks.display()),
    )?;
    let mut node = serde_json::Map::new();
    node.insert(
        "run_list".into(),
        json!([format!("recipe[{module}::{recipe}]")]),
    );
    if let Some(a) = attrs {
        node.insert(module.to_string(), a.clone());
    }
    write(&dir.join("node.json"), &Json::Object(node).to_string())?;
    Ok(format!(
        "chef-solo -j node.json -c {}",
        dir.join("solo.rb").display()
    ))
}

/// Write `hiera.yaml`, `manifest.pp` and the attributes for class
/// `module::recipe`; the command.
fn puppet_setup(
    dir: &Path,
    module: &str,
    recipe: &str,
    attrs: Option<&Json>,
) -> Result<String, Raised> {
    write(
        &dir.join("hiera.yaml"),
        ":backends: yaml\n:logger: console\n:hierarchy: '%{env}'\n:yaml:\n  :datadir: /etc/puppet/hieradata\n",
    )?;
    let class = if recipe.is_empty() {
        module.to_string()
    } else {
        format!("{module}::{recipe}")
    };
    write(
        &dir.join("manifest.pp"),
        &format!("node 'default' {{ class {{ {class}:}}}}"),
    )?;
    if let Some(Json::Object(a)) = attrs {
        let data: serde_json::Map<String, Json> = a
            .iter()
            .map(|(k, v)| (format!("{module}::{k}"), v.clone()))
            .collect();
        // JSON is YAML: hiera reads it as is.
        write(&dir.join("default.yaml"), &Json::Object(data).to_string())?;
    }
    Ok(format!(
        "puppet apply --hiera_config=hiera.yaml --modulepath {} manifest.pp",
        dir.display()
    ))
}

fn run_tool(entry: &str, dir: &Path, cmd: &str, opts: &Options) -> Result<Json, Raised> {
    let tool = cmd.split(' ').next().unwrap_or_default();
    if !on_path(tool) {
        return Err(missing_tool(
            tool,
            if tool == "puppet" { "Puppet" } else { "Chef" },
        ));
    }
    let mut result = shell(cmd, dir, None, opts)?;
    // As murano-agent: lines of the output that report an ERROR join stderr.
    if let (Some(out), Some(err)) = (
        result["stdout"].as_str().map(str::to_string),
        result.get("stderr"),
    ) {
        let mut e = err.as_str().unwrap_or_default().to_string();
        for line in out.lines().filter(|l| l.contains("ERROR")) {
            e.push_str(line);
            e.push('\n');
        }
        if !e.is_empty() {
            result["stderr"] = json!(e.trim());
        }
    }
    check_exit(entry, result, opts)
}
