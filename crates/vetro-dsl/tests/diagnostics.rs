//! Golden tests of package diagnostics (`vetro check`): rendered text and
//! JSON for a package with loading problems and one with analysis findings.

use vetro_diag::{render_json, render_text, ColorChoice, Diagnostic, SourceMap};
use vetro_dsl::check;
use vetro_dsl::package::{Package, PackageFiles};

fn package(files: &[(&str, &str)]) -> (SourceMap, Package) {
    let mut map = PackageFiles::new();
    for (name, text) in files {
        map.insert(name.to_string(), text.as_bytes().to_vec());
    }
    let mut sources = SourceMap::new();
    let pkg = Package::load_files("demo", map, &mut sources);
    (sources, pkg)
}

fn rendered(sources: &SourceMap, diags: &[Diagnostic]) -> (String, String) {
    let text = render_text(sources, diags, ColorChoice::Never);
    let json = serde_json::to_string_pretty(&render_json(sources, diags)).unwrap();
    (text, json)
}

const MANIFEST: &str =
    "Format: MuranoPL/1.4\nFullName: demo.pkg\nVersion: 1.0.0\nClasses:\n  demo.Main: Main.yaml\n";

#[test]
fn loading_problems() {
    let (sources, pkg) = package(&[
        ("manifest.yaml", MANIFEST),
        (
            "Classes/Main.yaml",
            "Name: demo.Main\nMethods:\n  run:\n    Body:\n      - $x: [1, 2\n",
        ),
    ]);
    let (text, json) = rendered(&sources, &pkg.problems);
    insta::assert_snapshot!("loading_problems_text", text);
    insta::assert_snapshot!("loading_problems_json", json);
}

#[test]
fn analysis_findings() {
    let main = "Name: demo.Main
Properties:
  size:
    Contract: $.int(
Methods:
  run:
    Body:
      - Return: 1
      - $x: 2
  call:
    Body:
      - $.missingMethod()
";
    let (sources, pkg) = package(&[("manifest.yaml", MANIFEST), ("Classes/Main.yaml", main)]);
    let mut diags = pkg.problems.clone();
    diags.extend(check::analysis_problems(std::slice::from_ref(&pkg)));
    let (text, json) = rendered(&sources, &diags);
    insta::assert_snapshot!("analysis_findings_text", text);
    insta::assert_snapshot!("analysis_findings_json", json);
}
