//! The user-facing host: load packages with the core and cloud libraries,
//! load an object model, run a method on its root (the deployment) with a
//! cloud backend installed, and serialize the result. `vetro run` and the test
//! runner ([`crate::testing`]) are built on this.

use crate::cloud::{self, CloudBackend, Event, EventSink, Host, SimulatedCloud};
use crate::package::Package;
use crate::runtime::types::{as_object, Exc};
use crate::runtime::{ClassSource, Conformance, Rt};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::LoadOptions;

/// The cloud classes (Environment, HeatStack, Instance, ...) as a package.
pub fn cloud_package(sources: &mut SourceMap) -> Package {
    crate::core::builtin_package(sources, "<core>/cloud.yaml", cloud::CLOUD_YAML)
}

/// Loaded packages plus the core and cloud libraries.
pub struct Library {
    pub sources: SourceMap,
    pub packages: Vec<Package>,
    pub source: ClassSource,
    pub roots: HashMap<String, PathBuf>,
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
        let core = crate::core::core_package(&mut sources);
        let cloud = cloud_package(&mut sources);
        let mut source = ClassSource::default();
        let mut roots = HashMap::new();
        for p in &packages {
            source.add_package(p);
            roots.insert(p.name.clone(), p.root.clone());
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
            limits: Default::default(),
        }
    }

    pub fn problems(&self) -> Vec<Diagnostic> {
        self.packages
            .iter()
            .flat_map(|p| p.problems.iter().cloned())
            .collect()
    }

    /// A fresh executor session over the library.
    pub fn session(&self) -> Rc<Rt> {
        let rt = Rt::new(
            self.source.clone(),
            serde_json::json!({}),
            Conformance::default(),
        );
        *rt.limits.borrow_mut() = self.limits.clone();
        rt
    }

    /// A host with `backend` that knows the packages' directories.
    pub fn host(&self, backend: Box<dyn CloudBackend>, sink: Option<EventSink>) -> Host {
        let mut h = Host::new(backend);
        h.package_roots = self.roots.clone();
        h.sink = sink;
        h
    }
}

/// The backend named on the command line.
pub fn backend_by_name(name: &str) -> Option<Box<dyn CloudBackend>> {
    match name {
        "simulated" => Some(Box::new(SimulatedCloud::new())),
        _ => None,
    }
}

/// What one run produced.
pub struct RunOutcome {
    /// The method's result (JSON form), when it returned.
    pub result: Result<Json, Exc>,
    /// The object model after the run.
    pub model: Json,
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
    let guard = cloud::install(host);
    let rt = lib.session();
    let root = rt.load_model(model)?;
    // A model without objects (the environment was deleted) only destroys
    // what the previous deployment had: nothing to run.
    let result = match (&root, target) {
        (None, Target::Root) => Ok(Json::Null),
        _ => call_target(&rt, root, target, method),
    };
    let roots: Vec<_> = rt.root.borrow().iter().cloned().collect();
    rt.collect_garbage(&roots);
    let model = rt.serialize_model();
    let host = guard.finish();
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
        Target::Root => root
            .map(|r| r.value())
            .ok_or_else(|| Exc::dsl("NoObjectFoundError", "the object model has no root object"))?,
        Target::Object(id) => rt
            .store
            .borrow()
            .get(id)
            .map(|o| o.value())
            .ok_or_else(|| {
                Exc::dsl(
                    "NoObjectFoundError",
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
            return Err(Exc::dsl(
                "NoActionFound",
                format!("Action \"{method}\" is not found in class {}", o.class.name),
            ));
        }
    }
    crate::core::call_external(rt, &recv, method, Vec::new(), Vec::new()).map(|v| rt.encode(&v))
}

/// Read a model file: JSON, or YAML (which includes JSON).
pub fn read_model(path: &Path) -> Result<Json, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = vetro_yaml::decode_lenient(&text);
    if let Ok(j) = serde_json::from_str::<Json>(&text) {
        return Ok(j);
    }
    let mut sources = SourceMap::new();
    let file = sources.add(path.display().to_string(), text.as_str());
    let docs = vetro_yaml::load_str(&sources, file, &LoadOptions::default()).map_err(|d| {
        let first = d.first().map(|x| x.message.clone()).unwrap_or_default();
        format!("{}: {first}", path.display())
    })?;
    Ok(docs.first().map(vetro_yaml::to_json).unwrap_or(Json::Null))
}
