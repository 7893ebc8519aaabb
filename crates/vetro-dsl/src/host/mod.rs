//! The user-facing host: load packages with the core and cloud libraries,
//! load an object model, run a method on its root (the deployment) with a
//! cloud backend installed, and serialize the result. `vetro run` and the test
//! runner ([`crate::testing`]) are built on this.

use crate::cloud::{self, CloudBackend, Event, EventSink, Host};
use crate::kind::DslKind;
use crate::package::{Package, PackageFiles};
use crate::runtime::types::EngineExc;
use crate::runtime::types::{as_object, Exc};
use crate::runtime::{ClassSource, Rt};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::LoadOptions;

mod catalog;
pub(crate) use catalog::bundled_classes;
pub use catalog::load_with_catalog;

/// The cloud classes (Environment, HeatStack, Instance, ...) as a package.
fn cloud_package(sources: &mut SourceMap) -> Package {
    crate::core::builtin_package(sources, "<core>/cloud.yaml", cloud::CLOUD_YAML)
}

/// The native methods of the bundled libraries: the cloud classes' first,
/// then the core library's.
pub fn standard_natives() -> crate::runtime::natives::Natives {
    let mut natives = crate::runtime::natives::Natives::default();
    cloud::register_natives(&mut natives);
    crate::core::register_natives(&mut natives);
    natives
}

/// Loaded packages plus the core and cloud libraries: what every session of
/// a deployment shares. A library is `Send + Sync`: parse packages once and
/// share the library between threads; each session ([`Library::session`],
/// [`run`]) lives on the thread that made it.
pub struct Library {
    /// The source text of every loaded file, for diagnostics.
    pub sources: SourceMap,
    /// The packages given to the library (the bundled libraries not included).
    pub packages: Vec<Package>,
    /// The classes every session over the library runs, with their natives.
    pub source: ClassSource,
    /// Each package's folder on disk, by package name (for resources).
    pub roots: HashMap<String, PathBuf>,
    /// Files of the packages loaded from memory or archives, by package name.
    pub files: HashMap<String, Arc<PackageFiles>>,
    /// Limits of every session over the library.
    pub limits: crate::runtime::limits::Limits,
}

impl Library {
    /// Load package directories. Problems (manifest, YAML, classes) are returned
    /// with the library; errors among them should stop a run.
    pub fn load(dirs: &[PathBuf]) -> Library {
        let mut sources = SourceMap::new();
        let packages: Vec<Package> = dirs
            .iter()
            .map(|d| Package::load_dir(d, &mut sources))
            .collect();
        Library::from_packages(packages, sources)
    }

    /// A library of packages loaded by the caller (from directories with
    /// [`Package::load_dir`], memory with [`Package::load_files`], archives
    /// with [`Package::load_zip`]) into `sources`. A package name seen twice
    /// keeps its first package.
    pub fn from_packages(packages: Vec<Package>, mut sources: SourceMap) -> Library {
        let core = crate::core::core_package(&mut sources);
        let cloud = cloud_package(&mut sources);
        let mut source = ClassSource {
            natives: Arc::new(standard_natives()),
            ..ClassSource::default()
        };
        let mut roots = HashMap::new();
        let mut files = HashMap::new();
        let mut packages = packages;
        for p in &mut packages {
            if p.name == CORE_PACKAGE {
                p.problems.push(core_package_set_aside(p));
                continue;
            }
            source.add_package(p);
            match &p.contents {
                Some(contents) => {
                    files
                        .entry(p.name.clone())
                        .or_insert_with(|| contents.clone());
                }
                None => {
                    roots
                        .entry(p.name.clone())
                        .or_insert_with(|| p.root.clone());
                }
            }
        }
        // The cloud library first: its TestFixture (with assertions) replaces
        // the bare declaration of the core library in host mode.
        source.add_package(&cloud);
        source.add_package(&core);
        let mut all = packages;
        all.push(core);
        all.push(cloud);
        Library {
            sources,
            packages: all,
            source,
            roots,
            files,
            limits: Default::default(),
        }
    }

    /// Every error or warning found loading the packages.
    pub fn problems(&self) -> Vec<Diagnostic> {
        self.packages
            .iter()
            .flat_map(|p| p.problems.iter().cloned())
            .collect()
    }

    /// A fresh executor session over the library.
    pub fn session(&self) -> Rc<Rt> {
        Rt::with_limits(
            self.source.clone(),
            serde_json::json!({}),
            self.limits.clone(),
        )
    }

    /// A host with `backend` that knows the packages' directories.
    pub fn host(&self, backend: Box<dyn CloudBackend>, sink: Option<EventSink>) -> Host {
        let mut h = Host::new(backend);
        h.package_roots = self.roots.clone();
        h.package_files = self.files.clone();
        h.sink = sink;
        h
    }
}

/// The core library's package name: vetro bundles its own.
const CORE_PACKAGE: &str = "io.murano";

/// Murano's own core library given as a package: its classes would replace
/// the bundled ones, whose native methods and cloud simulation they do not
/// match, so the bundled library is used and the package is set aside.
fn core_package_set_aside(p: &Package) -> Diagnostic {
    Diagnostic::warning(
        DslKind::CoreLibrary,
        format!(
            "package io.murano ({}) is Murano's core library: vetro uses its bundled io.murano core \
             library (with the simulated cloud) in its place; the classes of this package are not loaded",
            p.root.display()
        ),
    )
    .with_path(p.root.join("manifest.yaml").display().to_string())
}

/// What one run produced.
pub struct RunOutcome {
    /// The method's result (JSON form), when it returned.
    pub result: Result<Json, Exc>,
    /// The object model after the run.
    pub model: Json,
    /// What the run reported, in order (status reports, logs, cloud steps).
    pub events: Vec<Event>,
    /// The last template of every stack pushed, by stack name.
    pub stacks: Vec<(String, Json)>,
}

/// Where the method runs.
pub enum Target {
    /// The model's root object.
    Root,
    /// An object of the model by id (an action).
    Object(String),
}

/// Load `model` (a deployment `{"Objects": ...}` or a bare root object), run
/// `method` on the target and serialize the model again.
pub fn run(
    lib: &Library,
    model: &Json,
    target: &Target,
    method: &str,
    host: Host,
) -> Result<RunOutcome, Exc> {
    let rt = lib.session();
    cloud::attach(&rt, host);
    let root = rt.load_model(model)?;
    // A model without objects (the environment was deleted) only destroys
    // what the previous deployment had: nothing to run.
    let result = match (&root, target) {
        (None, Target::Root) => Ok(Json::Null),
        _ => call_target(&rt, root, target, method),
    };
    rt.collect_garbage_from_root();
    let model = rt.serialize_model()?;
    let host = cloud::detach(&rt);
    let (events, stacks) = match host {
        Some(h) => {
            let stacks = h
                .pushed_stacks
                .iter()
                .filter_map(|s| h.backend.stack_template(s).map(|t| (s.clone(), t)))
                .collect();
            (h.events, stacks)
        }
        None => (Vec::new(), Vec::new()),
    };
    Ok(RunOutcome {
        result,
        model,
        events,
        stacks,
    })
}

fn call_target(
    rt: &Rt,
    root: Option<Rc<crate::runtime::types::Object>>,
    target: &Target,
    method: &str,
) -> Result<Json, Exc> {
    let recv = match target {
        Target::Root => root.map(|r| r.value()).ok_or_else(|| {
            Exc::engine(
                EngineExc::NoObjectFoundError,
                "the object model has no root object",
            )
        })?,
        Target::Object(id) => rt.object(id).map(|o| o.value()).ok_or_else(|| {
            Exc::engine(
                EngineExc::NoObjectFoundError,
                format!("Object \"{id}\" is not found in object store"),
            )
        })?,
    };
    if let (Target::Object(_), Some((o, _))) = (target, as_object(&recv)) {
        // The actions API runs only methods declared `Usage: Action`.
        let is_action = o
            .class
            .find_methods(method)
            .first()
            .is_some_and(|(_, m)| m.usage == crate::syntax::class::MethodUsage::Action);
        if !is_action {
            return Err(Exc::engine(
                EngineExc::NoActionFound,
                format!("Action \"{method}\" is not found in class {}", o.class.name),
            ));
        }
    }
    crate::core::call_external(rt, &recv, method, Vec::new(), Vec::new())
        .and_then(|v| rt.encode_result(&v))
}

/// Why a model file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The file cannot be read: missing, a directory, over the input size limit.
    Io(String),
    /// The file is not a model document: not UTF-8, bad syntax, a duplicate
    /// key, an integer beyond 64 bits. The message names the position.
    Invalid(String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Io(m) | ModelError::Invalid(m) => f.write_str(m),
        }
    }
}

/// Read a model file: JSON, or YAML (which includes JSON), at most
/// [`vetro_yaml::DEFAULT_MAX_INPUT`] bytes of strict UTF-8 (`-` is standard
/// input). JSON takes a fast path; a document it cannot take exactly as the
/// YAML loader would (a duplicate key, for one) goes through the YAML loader,
/// whose errors carry line and column, so both paths accept the same models.
/// Integers that do not fit in 64 bits are refused: MuranoPL model values are
/// 64-bit.
pub fn read_model(path: &Path) -> Result<Json, ModelError> {
    let mut sources = SourceMap::new();
    let file = vetro_yaml::read_source(path, &mut sources, vetro_yaml::DEFAULT_MAX_INPUT).map_err(
        |d| match d.kind {
            vetro_diag::Kind::Encoding => ModelError::Invalid(d.message),
            _ => ModelError::Io(d.message),
        },
    )?;
    let text = sources.text(file);
    let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if start.starts_with(['{', '[']) {
        if let Some(node) = vetro_yaml::parse_json_exact::<vetro_yaml::Node>(start) {
            if let Some((line, col, digits)) = wide_json_integer(text) {
                return Err(too_wide(path, line, col, &digits));
            }
            return Ok(vetro_yaml::to_json(&node));
        }
    }
    let docs = vetro_yaml::load_str(&sources, file, &LoadOptions::default()).map_err(|d| {
        let first = d.first().map_or(String::new(), |x| match x.span {
            Some(s) => format!(":{}:{}: {}", s.line, s.col, x.message),
            None => format!(": {}", x.message),
        });
        ModelError::Invalid(format!("{}{first}", path.display()))
    })?;
    let Some(doc) = docs.first() else {
        return Ok(Json::Null);
    };
    if let Some((span, digits)) = wide_yaml_integer(doc) {
        return Err(too_wide(path, span.line, span.col, &digits));
    }
    Ok(vetro_yaml::to_json(doc))
}

fn too_wide(path: &Path, line: u32, col: u32, digits: &str) -> ModelError {
    ModelError::Invalid(format!(
        "{}:{line}:{col}: the integer {digits} does not fit in 64 bits (MuranoPL models hold signed 64-bit integers)",
        path.display()
    ))
}

/// The first integer literal of a JSON text outside the signed 64-bit range, with
/// its line and column.
fn wide_json_integer(text: &str) -> Option<(u32, u32, String)> {
    let bytes = text.as_bytes();
    let (mut line, mut line_start) = (1u32, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let token = &text[start..i];
                let integer = !token.contains(['.', 'e', 'E']);
                if integer && token.parse::<i64>().is_err() {
                    let col = text[line_start..start].chars().count() as u32 + 1;
                    return Some((line, col, token.to_string()));
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn wide_yaml_integer(node: &vetro_yaml::Node) -> Option<(vetro_diag::Span, String)> {
    use vetro_yaml::NodeKind;
    let mut todo = vec![node];
    while let Some(n) = todo.pop() {
        match &n.kind {
            NodeKind::BigInt(digits) => return Some((n.span, digits.clone())),
            NodeKind::Seq(items) => todo.extend(items.iter()),
            NodeKind::Map(m) => {
                for (k, v) in m.iter() {
                    todo.push(k);
                    todo.push(v);
                }
            }
            _ => {}
        }
    }
    None
}
