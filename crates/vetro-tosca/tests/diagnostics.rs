//! Golden tests of the checker's diagnostics as users see them: rendered
//! text (message, position, excerpt) and JSON.

use vetro_diag::SourceMap;
use vetro_diag::{render_json, render_text, ColorChoice};
use vetro_tosca::Checker;

const TEMPLATE: &str = "tosca_definitions_version: tosca_simple_yaml_1_1
node_types:
  shop.nodes.App:
    derived_from: tosca.nodes.Nothing
    properties:
      port:
        type: integer
        default: 8080
        constraints:
          - in_range: [1, 1024]
      owner: {type: string}
topology_template:
  node_templates:
    app:
      type: shop.nodes.App
      properties:
        port: eighty
        colour: red
      requirements:
        - host: nowhere
";

fn rendered() -> (String, String) {
    let dir = std::env::temp_dir().join(format!("vetro-tosca-diag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("shop.yaml");
    std::fs::write(&path, TEMPLATE).unwrap();
    let mut sources = SourceMap::new();
    let checker = Checker::new(&mut sources).unwrap();
    let report = checker.validate(&path, &mut sources);
    let prefix = format!("{}/", dir.display());
    let text = render_text(&sources, &report.problems, ColorChoice::Never).replace(&prefix, "");
    let json = serde_json::to_string_pretty(&render_json(&sources, &report.problems))
        .unwrap()
        .replace(&prefix, "");
    std::fs::remove_dir_all(&dir).ok();
    (text, json)
}

#[test]
fn template_problems_text_and_json() {
    let (text, json) = rendered();
    insta::assert_snapshot!("template_problems_text", text);
    insta::assert_snapshot!("template_problems_json", json);
}
