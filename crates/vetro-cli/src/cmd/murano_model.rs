//! `vetro murano model`: an application's object model from its package's
//! forms (`UI/ui.yaml`) and an answers file, inside a new environment, as
//! the dashboard built it; `vetro run` deploys it as it is.

use crate::report::{print_diagnostics, Format};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vetro_diag::{Severity, SourceMap};
use vetro_dsl::package::catalog::resolve_class;
use vetro_dsl::package::Catalog;
use vetro_forms::answers::{fill, NewApp};
use vetro_forms::{AppPackage, ExistingApp, FieldView, Inventory, Limits, Wizard};

#[derive(clap::Args)]
pub struct ModelArgs {
    /// The application's package folder.
    package: PathBuf,
    /// Folders to find packages in, for applications an answer creates in a
    /// field whose type is a class: `FIELD: {new: CLASS, answers: {...}}`.
    #[arg(long = "packages", value_name = "DIR")]
    packages: Vec<PathBuf>,
    /// Answers: `{FORM: {FIELD: value}}` (YAML or JSON; `-` reads standard
    /// input). Fields not answered take their initial value.
    #[arg(long, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// Name of the environment holding the application.
    #[arg(long, value_name = "NAME", default_value = "quick-env-1")]
    environment: String,
    #[arg(long, value_enum, default_value = "json")]
    format: ModelFormat,
    /// Print the forms (fields, initial values, choices) as JSON instead of a model.
    #[arg(long)]
    show_forms: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ModelFormat {
    Json,
    Yaml,
}

/// How deep `new:` answers may nest (an application creating one that creates one...).
const MAX_NESTING: usize = 8;

struct Run {
    sources: SourceMap,
    catalog: Catalog,
    applications: Vec<Json>,
    inventory: Inventory,
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("vetro murano model: {}", vetro_diag::clip(msg));
    ExitCode::from(crate::report::INVALID)
}

pub fn run(a: ModelArgs) -> ExitCode {
    let answers = match &a.answers {
        Some(path) => match read_answers(path) {
            Ok(v) => v,
            Err(code) => return code,
        },
        None => Json::Null,
    };
    let mut run = Run {
        sources: SourceMap::new(),
        catalog: Catalog::new(&a.packages),
        applications: Vec::new(),
        inventory: Inventory {
            cloud: vetro_dsl::cloud::simulator::catalog(),
            apps: Vec::new(),
        },
    };
    if a.show_forms {
        return show_forms(&mut run, &a.package);
    }
    match run.application(&a.package, &answers, 0) {
        Ok(_) => {}
        Err(Failure::Diagnostics(d)) => {
            print_diagnostics(&run.sources, &d, Format::Text);
            return ExitCode::from(crate::report::INVALID);
        }
        Err(Failure::Message(m)) => return fail(&m),
    }
    let model = vetro_forms::model::environment_model(&a.environment, run.applications);
    match a.format {
        ModelFormat::Json => crate::outln!(
            "{}",
            serde_json::to_string_pretty(&model).unwrap_or_default()
        ),
        ModelFormat::Yaml => {
            let node = vetro_yaml::from_json(&model, vetro_diag::Span::default());
            crate::out!("{}", vetro_yaml::to_yaml_string(&node));
        }
    }
    ExitCode::SUCCESS
}

fn read_answers(path: &Path) -> Result<Json, ExitCode> {
    let mut sources = SourceMap::new();
    match vetro_yaml::load_data(path, &mut sources, &Default::default(), Clone::clone) {
        Ok((_, v)) => Ok(v.as_ref().map_or(Json::Null, vetro_yaml::to_json)),
        Err(d) => {
            print_diagnostics(&sources, &d, Format::Text);
            Err(crate::report::exit_for(&d))
        }
    }
}

enum Failure {
    Diagnostics(Vec<vetro_diag::Diagnostic>),
    Message(String),
}

impl Run {
    fn load_ui(&mut self, dir: &Path) -> Result<(AppPackage, vetro_forms::UiDefinition), Failure> {
        let pkg = AppPackage::load(dir, &mut self.sources);
        let errors: Vec<_> = pkg
            .package
            .problems
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        if !errors.is_empty() {
            return Err(Failure::Diagnostics(errors));
        }
        let (ui, problems) = pkg.ui(&mut self.sources);
        if let Some((ui, _)) = &ui {
            // A reference to a missing form or field evaluates to null, as
            // in the dashboard: reported, but the model is still built.
            let mut refs = vetro_forms::check(ui, &self.sources);
            for d in &mut refs {
                d.severity = Severity::Warning;
            }
            print_diagnostics(&self.sources, &refs, Format::Text);
        }
        match ui {
            Some((ui, _)) if !problems.iter().any(|d| d.severity == Severity::Error) => {
                Ok((pkg, ui))
            }
            _ => Err(Failure::Diagnostics(problems)),
        }
    }

    /// Build the application of package `dir` from `answers`, add it to
    /// the environment (after the applications its answers create), and
    /// return it as an application of the environment.
    fn application(
        &mut self,
        dir: &Path,
        answers: &Json,
        depth: usize,
    ) -> Result<ExistingApp, Failure> {
        let (pkg, ui) = self.load_ui(dir)?;
        let mut w = Wizard::new(
            &ui,
            pkg.app_info(),
            self.inventory.clone(),
            Limits::default(),
            Default::default(),
        )
        .map_err(|e| Failure::Message(format!("{}: Parameters: {e}", dir.display())))?;
        let mut nested_failure: Option<Failure> = None;
        let filled = {
            let this = &mut *self;
            let failure = &mut nested_failure;
            let mut new_app = |field: &FieldView, spec: &Json| -> Result<ExistingApp, String> {
                if depth + 1 >= MAX_NESTING {
                    return Err(format!(
                        "applications created by answers nest deeper than {MAX_NESTING}"
                    ));
                }
                let class = spec.get("new").and_then(Json::as_str).ok_or_else(|| {
                    format!(
                        "answer with the id of an application of the environment, or with {{new: CLASS, answers: {{...}}}} to create one (classes: {})",
                        field.app_types.join(", ")
                    )
                })?;
                let found =
                    resolve_class(&this.catalog, &pkg.package, class).map_err(|errors| {
                        let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
                        texts.join("; ")
                    })?;
                let sub = spec.get("answers").cloned().unwrap_or(Json::Null);
                match this.application(&found, &sub, depth + 1) {
                    Ok(app) => Ok(app),
                    Err(Failure::Message(m)) => Err(m),
                    Err(f) => {
                        *failure = Some(f);
                        Err(format!("the package of {class} has problems (above)"))
                    }
                }
            };
            let hook: &mut NewApp<'_> = &mut new_app;
            fill(&mut w, answers, hook)
        };
        if let Some(f) = nested_failure {
            return Err(f);
        }
        filled.map_err(|e| Failure::Message(e.to_string()))?;
        self.finish(&w, &pkg)
    }

    fn finish(&mut self, w: &Wizard<'_>, pkg: &AppPackage) -> Result<ExistingApp, Failure> {
        let model = w
            .build()
            .map_err(|e| Failure::Message(format!("{}: {e}", pkg.package.name)))?;
        let id = model["?"]["id"].as_str().unwrap_or_default().to_string();
        let class = model["?"]["type"].as_str().unwrap_or_default().to_string();
        let app = ExistingApp {
            id,
            name: w.application_name(),
            classes: pkg.lineage(&class),
        };
        self.applications.push(model);
        self.inventory.apps.push(app.clone());
        Ok(app)
    }
}

/// `--show-forms`: every step as the wizard shows it before any answer.
fn show_forms(run: &mut Run, dir: &Path) -> ExitCode {
    let (pkg, ui) = match run.load_ui(dir) {
        Ok(x) => x,
        Err(Failure::Diagnostics(d)) => {
            print_diagnostics(&run.sources, &d, Format::Text);
            return ExitCode::from(crate::report::INVALID);
        }
        Err(Failure::Message(m)) => return fail(&m),
    };
    let w = match Wizard::new(
        &ui,
        pkg.app_info(),
        run.inventory.clone(),
        Limits::default(),
        Default::default(),
    ) {
        Ok(w) => w,
        Err(e) => return fail(&e.to_string()),
    };
    let mut forms = Vec::new();
    for step in 0..w.steps().len() {
        match w.form(step) {
            Ok(f) => forms.push(serde_json::to_value(f).unwrap_or_default()),
            Err(e) => return fail(&e.to_string()),
        }
    }
    crate::outln!(
        "{}",
        serde_json::to_string_pretty(&Json::Array(forms)).unwrap_or_default()
    );
    ExitCode::SUCCESS
}
