//! `vetro plugin add DIR | list | remove NAME`: the registry of installed
//! InfraRed plugins that `vetro ir NAME` runs.

use super::ir::{fail, out, print_warnings};
use crate::report::{self, Format};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use vetro_diag::SourceMap;
use vetro_spec::plugin::registry::Registry;
use vetro_spec::plugin::spec::load_plugin;

#[derive(clap::Args)]
pub struct Args {
    /// Registry folder (default: $XDG_DATA_HOME/vetro or ~/.local/share/vetro).
    #[arg(long, value_name = "DIR", global = true)]
    workspace: Option<PathBuf>,
    /// Output format (list) and format of error messages.
    #[arg(long, value_enum, default_value_t = Format::Text, global = true)]
    format: Format,
    #[command(subcommand)]
    command: PluginCommand,
}

#[derive(clap::Subcommand)]
enum PluginCommand {
    /// Check a plugin folder (plugin.spec, main.yml) and install it under its name.
    Add {
        /// The plugin folder.
        dir: PathBuf,
    },
    /// List the installed plugins.
    List,
    /// Uninstall a plugin (its folder is left alone).
    Remove {
        /// The plugin's name.
        name: String,
    },
}

pub fn run(args: Args) -> ExitCode {
    let mut sources = SourceMap::new();
    let env: HashMap<String, String> = std::env::vars().collect();
    let registry = match Registry::locate(args.workspace.as_deref(), &env) {
        Ok(r) => r,
        Err(e) => return fail(&sources, &e, args.format),
    };
    let result = match &args.command {
        PluginCommand::Add { dir } => load_plugin(dir, &mut sources).and_then(|plugin| {
            print_warnings(&sources, &plugin, args.format);
            let entry = registry.add(&plugin)?;
            out(&format!(
                "installed plugin '{}' ({}) from {}\n",
                entry.name,
                entry.plugin_type,
                entry.path.display()
            ));
            Ok(())
        }),
        PluginCommand::List => registry.entries().map(|entries| {
            let rows: Vec<(String, String, String, String)> = entries
                .iter()
                .map(|e| {
                    let description = match load_plugin(&e.path, &mut SourceMap::new()) {
                        Ok(p) => p.description.lines().next().unwrap_or("").to_string(),
                        Err(err) => format!("(cannot be loaded: {})", err.message),
                    };
                    (
                        e.name.clone(),
                        e.plugin_type.clone(),
                        e.path.display().to_string(),
                        description,
                    )
                })
                .collect();
            list(&rows, args.format);
        }),
        PluginCommand::Remove { name } => registry.remove(name).map(|entry| {
            out(&format!(
                "removed plugin '{}' ({})\n",
                entry.name,
                entry.path.display()
            ));
        }),
    };
    match result {
        Ok(()) => ExitCode::from(report::OK),
        Err(e) => fail(&sources, &e, args.format),
    }
}

fn list(rows: &[(String, String, String, String)], format: Format) {
    if format == Format::Json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|(n, t, p, d)| serde_json::json!({"name": n, "type": t, "path": p, "description": d}))
            .collect();
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&items).unwrap_or_default()
        ));
        return;
    }
    if rows.is_empty() {
        out("no plugins installed (add one with `vetro plugin add DIR`)\n");
        return;
    }
    let width = |f: fn(&(String, String, String, String)) -> &String, title: &str| {
        rows.iter()
            .map(|r| f(r).len())
            .max()
            .unwrap_or(0)
            .max(title.len())
    };
    let (wn, wt) = (width(|r| &r.0, "NAME"), width(|r| &r.1, "TYPE"));
    let mut text = format!("{:<wn$}  {:<wt$}  DESCRIPTION / PATH\n", "NAME", "TYPE");
    for (n, t, p, d) in rows {
        text.push_str(&format!(
            "{n:<wn$}  {t:<wt$}  {d}\n{:<wn$}  {:<wt$}  {p}\n",
            "", ""
        ));
    }
    out(&text);
}
