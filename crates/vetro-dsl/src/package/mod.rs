//! Packages: a directory (or the `tests` classes folder) with a manifest and
//! class files. Loading yields class definitions plus a per-file report of the
//! expressions found and the methods compiled (for `check --expressions`).

mod manifest;

pub use manifest::Manifest;

use crate::syntax::class::{defines_class, read_class, read_namespaces, DocContext};
use crate::syntax::data::{DataReader, DocPath, FoundExpr, PathSeg};
use crate::syntax::{ClassDef, Namespaces};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::{LoadOptions, YamlVersion};

/// What loading one class file found.
#[derive(Clone, Debug, Default)]
pub struct FileReport {
    /// Path relative to the package root, `Classes/X.yaml`.
    pub file: String,
    pub documents: usize,
    pub expressions: Vec<FoundExpr>,
    /// (method, compiled, error)
    pub methods: Vec<(String, bool, Option<String>)>,
    pub class_names: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub format: String,
    pub requires: Vec<(String, Option<String>)>,
    pub root: PathBuf,
    pub classes: IndexMap<String, Arc<ClassDef>>,
    pub files: Vec<FileReport>,
    pub problems: Vec<Diagnostic>,
}

/// Load one class file. `default_name` is the class the package maps to it.
pub fn load_class_file(
    path: &Path,
    rel: &str,
    sources: &mut SourceMap,
    default_name: Option<&str>,
    test_methods_public: bool,
) -> (Vec<ClassDef>, FileReport, Vec<Diagnostic>) {
    let mut report = FileReport {
        file: rel.to_string(),
        ..Default::default()
    };
    let mut problems = Vec::new();
    let opts = LoadOptions {
        version: YamlVersion::V1_1,
        ..LoadOptions::default()
    };
    let (file, docs) = match vetro_yaml::load_file(path, sources, &opts) {
        Ok(r) => r,
        Err(d) => return (Vec::new(), report, d),
    };
    let mut classes = Vec::new();
    let mut namespaces = Arc::new(Namespaces::default());
    let mut reader = DataReader::new();
    for (i, node) in docs.iter().enumerate() {
        if node.is_null() {
            continue;
        }
        report.documents += 1;
        let mut path: DocPath = vec![PathSeg::Index(i)];
        let doc = match reader.read(node, &mut path) {
            Ok(d) => d,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if let Some(ns) = read_namespaces(&doc) {
            namespaces = Arc::new(ns);
        }
        if !defines_class(&doc) {
            continue;
        }
        let ctx = DocContext {
            namespaces: namespaces.clone(),
            default_name,
            file,
            file_name: rel,
            test_methods_public,
        };
        match read_class(&doc, &ctx) {
            Ok(rc) => {
                for p in &rc.method_problems {
                    problems.push(
                        Diagnostic::error("method-syntax", p.error.message.clone())
                            .with_span(p.error.span)
                            .with_path(format!("Methods/{}", p.method)),
                    );
                }
                report.methods.extend(rc.methods_ok);
                report.class_names.push(rc.class.name.clone());
                if rc.method_problems.is_empty() {
                    classes.push(rc.class);
                }
            }
            Err(p) => problems.push(Diagnostic::error("class-syntax", p.message).with_span(p.span)),
        }
    }
    report.expressions = reader.found;
    (classes, report, problems)
}

fn yaml_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}

fn rel_path(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

impl Package {
    fn add_classes(&mut self, classes: Vec<ClassDef>) {
        for c in classes {
            self.classes.insert(c.name.clone(), Arc::new(c));
        }
    }

    /// A package directory with `manifest.yaml` and `Classes/`.
    pub fn load_dir(root: &Path, sources: &mut SourceMap) -> Package {
        let mut pkg = Package {
            root: root.to_path_buf(),
            version: "0.0.0".into(),
            format: "1.0".into(),
            ..Default::default()
        };
        let manifest = match Manifest::load(&root.join("manifest.yaml"), sources) {
            Ok(m) => m,
            Err(d) => {
                pkg.problems.extend(d);
                return pkg;
            }
        };
        pkg.name = manifest.full_name.clone();
        pkg.version = manifest.version.clone();
        pkg.format = manifest.format.clone();
        pkg.requires = manifest.require.clone();
        let classes_dir = root.join("Classes");
        let mut files = Vec::new();
        yaml_files_under(&classes_dir, &mut files);
        for f in files {
            let rel = rel_path(root, &f);
            let under = rel_path(&classes_dir, &f);
            let default_name = manifest
                .classes
                .iter()
                .find(|(_, file)| file.as_str() == under)
                .map(|(n, _)| n.clone());
            let (classes, report, problems) =
                load_class_file(&f, &rel, sources, default_name.as_deref(), false);
            pkg.add_classes(classes);
            pkg.files.push(report);
            pkg.problems.extend(problems);
        }
        for (cls, file) in &manifest.classes {
            if !classes_dir.join(file).is_file() {
                pkg.problems.push(Diagnostic::error(
                    "missing-class-file",
                    format!("class {cls} maps to Classes/{file}, which does not exist"),
                ));
            }
        }
        pkg
    }

    /// The conformance `tests` package: every `*.yaml` file of a folder (or the
    /// listed ones), version 0.0.0, format 1.0, `test*` methods public.
    pub fn load_test_classes(
        dir: &Path,
        only: Option<&[String]>,
        sources: &mut SourceMap,
    ) -> Package {
        let mut pkg = Package {
            name: "tests".into(),
            version: "0.0.0".into(),
            format: "1.0".into(),
            root: dir.to_path_buf(),
            ..Default::default()
        };
        let mut files = Vec::new();
        match only {
            Some(names) => files.extend(names.iter().map(|n| dir.join(n))),
            None => yaml_files_under(dir, &mut files),
        }
        for f in files {
            let rel = rel_path(dir, &f);
            let (classes, report, problems) = load_class_file(&f, &rel, sources, None, true);
            pkg.add_classes(classes);
            pkg.files.push(report);
            pkg.problems.extend(problems);
        }
        pkg
    }
}
