//! `vetro tosca`: validate TOSCA Simple Profile service templates.

use crate::report::{self, Format};
use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vetro_diag::{render_text, ColorChoice, Diagnostic, SourceMap};
use vetro_tosca::{Catalog, Checker, Construct};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Validate service templates (and their imports): exit 0 valid, 1 invalid, 2 unreadable.
    Validate {
        /// Service template files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Validate against this kwalify grammar instead of the bundled TOSCA 1.1 grammar.
        #[arg(long)]
        grammar: Option<PathBuf>,
    },
    /// Print the resolved type hierarchy a template sees.
    Types {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        Command::Validate {
            files,
            format,
            grammar,
        } => validate(&files, format, grammar),
        Command::Types { file, format } => types(&file, format),
    }
}

fn checker(
    grammar: Option<&PathBuf>,
    sources: &mut SourceMap,
    format: Format,
) -> Result<Checker, ExitCode> {
    let result = match grammar {
        Some(path) => Checker::with_grammar(path, sources),
        None => Checker::new(sources),
    };
    result.map_err(|diags| {
        report::print_diagnostics(sources, &diags, format);
        ExitCode::from(report::USAGE)
    })
}

fn problem_json(sources: &SourceMap, d: &Diagnostic, file: Option<&str>) -> serde_json::Value {
    let (line, column) = d.span.map(|s| (s.line, s.col)).unwrap_or((0, 0));
    let mut obj = serde_json::json!({
        "path": d.path.clone().unwrap_or_default(),
        "line": line,
        "column": column,
        "kind": d.kind,
        "message": d.message,
    });
    if let Some(f) = file {
        obj["file"] = f.into();
    } else if let Some(span) = d.span {
        let _ = sources.name(span.file);
    }
    obj
}

fn validate(files: &[PathBuf], format: Format, grammar: Option<PathBuf>) -> ExitCode {
    let mut sources = SourceMap::new();
    let checker = match checker(grammar.as_ref(), &mut sources, format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut unreadable = false;
    let mut problems_json = Vec::new();
    let mut all_valid = true;
    let color = if std::io::stderr().is_terminal() {
        ColorChoice::Always
    } else {
        ColorChoice::Never
    };
    for path in files {
        let report = checker.validate(path, &mut sources);
        unreadable |= report.unreadable;
        all_valid &= report.is_valid();
        match format {
            Format::Json => {
                let name = path.display().to_string();
                let file = (files.len() > 1).then_some(name.as_str());
                problems_json.extend(
                    report
                        .problems
                        .iter()
                        .map(|d| problem_json(&sources, d, file)),
                );
            }
            Format::Text => {
                eprint!("{}", render_text(&sources, &report.problems, color));
                if report.is_valid() {
                    crate::outln!("{}: valid", path.display());
                } else {
                    crate::outln!("{}: {} problem(s)", path.display(), report.problems.len());
                }
            }
        }
    }
    if format == Format::Json {
        let out = serde_json::json!({"valid": all_valid, "problems": problems_json});
        crate::outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    }
    if unreadable {
        ExitCode::from(report::USAGE)
    } else if all_valid {
        ExitCode::from(report::OK)
    } else {
        ExitCode::from(report::INVALID)
    }
}

fn types(file: &Path, format: Format) -> ExitCode {
    let mut sources = SourceMap::new();
    let checker = match checker(None, &mut sources, format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (catalog, report) = checker.catalog(file, &mut sources);
    if report.unreadable {
        report::print_diagnostics(&sources, &report.problems, format);
        return ExitCode::from(report::USAGE);
    }
    match format {
        Format::Json => write_types_json(&catalog),
        Format::Text => print_tree(&catalog),
    }
    // The tree is printed even when some imports failed (what could be read);
    // the failures are reported and make the status 1.
    report::print_diagnostics(&sources, &report.problems, format);
    report::exit_for(&report.problems)
}

/// The catalog as JSON, written as it is made: each type lists all its
/// ancestors, so the text grows with the square of a chain's length (a chain
/// of 5,000 types is 200 MB), and building it as one value first took eight
/// times that.
fn write_types_json(catalog: &Catalog) {
    use serde::ser::{SerializeStruct, Serializer};
    struct Types<'a>(&'a Catalog);
    struct Section<'a>(&'a Catalog, Construct);
    struct Type<'a>(&'a Catalog, usize);
    impl serde::Serialize for Types<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(Construct::ALL.map(|c| (c.section(), Section(self.0, c))))
        }
    }
    impl serde::Serialize for Section<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.of(self.1).map(|(i, _)| Type(self.0, i)))
        }
    }
    impl serde::Serialize for Type<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let (catalog, i) = (self.0, self.1);
            let t = catalog.get(i);
            let chain = catalog.ancestors(i);
            let mut out = s.serialize_struct("Type", 3)?;
            out.serialize_field("name", &t.name)?;
            out.serialize_field("builtin", &t.file.is_none())?;
            let names: Vec<&str> = chain[1..]
                .iter()
                .map(|&a| catalog.get(a).name.as_str())
                .collect();
            out.serialize_field("ancestors", &names)?;
            out.end()
        }
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, &Types(catalog))
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"));
    if let Err(e) = written.and_then(|()| out.flush()) {
        report::stdout_failed(&e);
    }
}

fn print_tree(catalog: &Catalog) {
    for c in Construct::ALL {
        crate::outln!("{}:", c.section());
        // Each type's children in catalog order, found in one pass.
        let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut roots = Vec::new();
        for (i, _) in catalog.of(c) {
            match catalog.parent(i) {
                Some(p) => children.entry(p).or_default().push(i),
                None => roots.push(i),
            }
        }
        // Depth first without recursion: a derived_from chain can be tens
        // of thousands of types long.
        let mut seen = HashSet::new();
        let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 1)).collect();
        while let Some((t, depth)) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            let def = catalog.get(t);
            let origin = if def.file.is_none() {
                ""
            } else {
                "  (declared)"
            };
            crate::outln!("{}{}{origin}", "  ".repeat(depth), def.name);
            if let Some(kids) = children.get(&t) {
                stack.extend(kids.iter().rev().map(|&k| (k, depth + 1)));
            }
        }
    }
}
