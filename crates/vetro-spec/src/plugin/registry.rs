//! The plugins a user installed with `vetro plugin add DIR`: an INI file
//! `plugins.ini` (one section per plugin type, `name = folder` entries) in the
//! registry folder — `--workspace DIR`, else `$XDG_DATA_HOME/vetro`, else
//! `~/.local/share/vetro`. Plugins stay where they are; the registry only
//! remembers their folders.

use super::spec::PLUGIN_TYPES;
use super::Plugin;
use crate::error::{ErrorClass, Result, SpecError};
use crate::ini::Ini;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const FILE: &str = "plugins.ini";

/// One registered plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub plugin_type: String,
    pub path: PathBuf,
}

/// A registry folder.
#[derive(Clone, Debug)]
pub struct Registry {
    pub dir: PathBuf,
}

fn io_err(path: &Path, e: std::io::Error) -> SpecError {
    SpecError::new(ErrorClass::Io, format!("{}: {e}", path.display()))
}

impl Registry {
    /// The registry of `workspace`, or the user's data folder.
    pub fn locate(workspace: Option<&Path>, env: &HashMap<String, String>) -> Result<Registry> {
        if let Some(dir) = workspace {
            return Ok(Registry {
                dir: dir.to_path_buf(),
            });
        }
        let data = env
            .get("XDG_DATA_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                env.get("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| Path::new(h).join(".local/share"))
            })
            .ok_or_else(|| {
                SpecError::new(
                    ErrorClass::Io,
                    "no registry folder: set HOME or XDG_DATA_HOME, or pass --workspace DIR",
                )
            })?;
        Ok(Registry {
            dir: data.join("vetro"),
        })
    }

    fn file(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    /// Every registered plugin, by type then name.
    pub fn entries(&self) -> Result<Vec<Entry>> {
        let file = self.file();
        if !file.exists() {
            return Ok(Vec::new());
        }
        let ini = Ini::read(&file, false)?;
        let mut out = Vec::new();
        for (section, keys) in &ini.sections {
            for (name, path) in keys {
                out.push(Entry {
                    name: name.clone(),
                    plugin_type: section.clone(),
                    path: PathBuf::from(path.clone().unwrap_or_default()),
                });
            }
        }
        out.sort_by(|a, b| (&a.plugin_type, &a.name).cmp(&(&b.plugin_type, &b.name)));
        Ok(out)
    }

    /// The plugin registered as `name`.
    pub fn find(&self, name: &str) -> Result<Entry> {
        let entries = self.entries()?;
        entries.iter().find(|e| e.name == name).cloned().ok_or_else(|| {
            let known: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
            SpecError::new(
                ErrorClass::UnknownCommand,
                format!(
                    "no plugin named '{name}' in {} (installed: {}); add one with `vetro plugin add DIR`",
                    self.dir.display(),
                    if known.is_empty() { "none".to_string() } else { known.join(", ") }
                ),
            )
        })
    }

    /// Register a loaded plugin; a name already taken is an error.
    pub fn add(&self, plugin: &Plugin) -> Result<Entry> {
        let mut entries = self.entries()?;
        if let Some(old) = entries.iter().find(|e| e.name == plugin.name) {
            return Err(SpecError::new(
                ErrorClass::PluginExists,
                format!(
                    "a plugin named '{}' is already installed from {} (remove it first: vetro plugin remove {})",
                    plugin.name,
                    old.path.display(),
                    plugin.name
                ),
            ));
        }
        let entry = Entry {
            name: plugin.name.clone(),
            plugin_type: plugin.plugin_type.clone(),
            path: plugin.dir.clone(),
        };
        entries.push(entry.clone());
        self.save(&entries)?;
        Ok(entry)
    }

    /// Forget the plugin registered as `name` (its folder is left alone).
    pub fn remove(&self, name: &str) -> Result<Entry> {
        let entry = self.find(name)?;
        let entries: Vec<Entry> = self
            .entries()?
            .into_iter()
            .filter(|e| e.name != name)
            .collect();
        self.save(&entries)?;
        Ok(entry)
    }

    /// Write the file through a temporary file, so a crash leaves the old one.
    fn save(&self, entries: &[Entry]) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|e| io_err(&self.dir, e))?;
        let mut text = String::from("# Plugins installed with `vetro plugin add`.\n");
        for t in PLUGIN_TYPES {
            let of_type: Vec<&Entry> = entries.iter().filter(|e| e.plugin_type == *t).collect();
            if of_type.is_empty() {
                continue;
            }
            text.push_str(&format!("[{t}]\n"));
            for e in of_type {
                text.push_str(&format!("{} = {}\n", e.name, e.path.display()));
            }
        }
        let file = self.file();
        let tmp = self.dir.join(format!(".{FILE}.{}", std::process::id()));
        std::fs::write(&tmp, text).map_err(|e| io_err(&tmp, e))?;
        std::fs::rename(&tmp, &file).map_err(|e| io_err(&file, e))
    }
}
