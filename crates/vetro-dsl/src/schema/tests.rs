use super::*;
use crate::host::Library;
use crate::package::{Package, PackageFiles};
use vetro_diag::SourceMap;

const MANIFEST: &str = "Format: MuranoPL/1.4\nType: Application\nFullName: shop.Cart\nName: Cart\n\
Classes:\n  shop.Cart: Cart.yaml\n  shop.Base: Base.yaml\n";

const BASE: &str = r#"
Namespaces:
  =: shop
  m: io.murano.metadata
  mf: io.murano.metadata.forms
Name: Base
Meta:
  - mf:Section:
      name: general
      title: General
      index: 0
  - mf:Section:
      name: extra
Properties:
  owner:
    Contract: $.string().notNull()
    Meta:
      - mf:Position:
          index: 0
          section: general
  shadowed:
    Contract: $.int()
  secret:
    Contract: $.string()
    Usage: Runtime
"#;

const CART: &str = r#"
Namespaces:
  =: shop
  std: io.murano
  m: io.murano.metadata
  mf: io.murano.metadata.forms
Name: Cart
Extends: Base
Meta:
  m:Title:
    text: A cart
Properties:
  size:
    Contract: $.int().notNull().check($ >= 1 and $ < 100)
    Default: 10
    Meta:
      - m:Title:
          text: Size
      - m:HelpText:
          text: How many
      - mf:Hidden
      - mf:Position:
          index: 0
          section: general
  tags:
    Contract: [$.string().notNull(), 1]
  labels:
    Contract:
      color: $.string().check($ in [red, blue])
      $.string().notNull(): $.int()
  env:
    Contract: $.class(std:Environment)
  shadowed:
    Contract: $.string()
    Usage: Out
  state:
    Contract: $.string()
    Usage: InOut
Methods:
  build:
    Usage: Static
    Scope: Public
    Meta:
      - m:ModelBuilder
      - m:Title:
          text: Build one
    Arguments:
      - items:
          Contract: $.int().notNull()
          Meta:
            m:Description:
              text: Items
      - name:
          Contract: $.string()
          Default: cart
  notABuilder:
    Usage: Static
    Meta:
      - m:ModelBuilder
  disabled:
    Usage: Static
    Scope: Public
    Meta:
      - m:ModelBuilder:
          enabled: false
"#;

fn library() -> Library {
    let mut files = PackageFiles::new();
    files.insert("manifest.yaml".into(), MANIFEST.into());
    files.insert("Classes/Cart.yaml".into(), CART.into());
    files.insert("Classes/Base.yaml".into(), BASE.into());
    let mut sources = SourceMap::new();
    let pkg = Package::load_files("shop", files, &mut sources);
    let lib = Library::from_packages(vec![pkg], sources);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    lib
}

#[test]
fn a_class_schema_holds_its_inputs_with_contracts_defaults_and_hints() {
    let lib = library();
    let all = generate(&Classes::new(&lib.source), "shop.Cart", &[]).unwrap();
    let s = &all[""];
    assert_eq!(s["$schema"], "http://json-schema.org/draft-04/schema#");
    assert_eq!(s["type"], "object");
    assert_eq!(s["additionalProperties"], false);
    assert_eq!(s["title"], "A cart");
    let props = s["properties"].as_object().unwrap();
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort();
    // Inherited inputs count; Runtime and Out ones (also when they shadow an
    // inherited input) do not.
    assert_eq!(names, ["env", "labels", "owner", "size", "state", "tags"]);
    assert_eq!(
        props["size"],
        json!({"type": "integer", "minimum": 1, "exclusiveMinimum": false,
               "maximum": 100, "exclusiveMaximum": true, "default": 10,
               "title": "Size", "helpText": "How many", "visible": false,
               "formSection": "general", "formIndex": 2})
    );
    // Declared one level up: the same index sorts after the derived class's.
    assert_eq!(props["owner"]["formIndex"], 1);
    assert_eq!(
        props["tags"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        props["labels"],
        json!({"type": "object",
               "properties": {"color": {"type": ["string", "null"], "enum": ["red", "blue"]}},
               "additionalProperties": {"type": ["integer", "null"]}})
    );
    assert_eq!(
        props["env"],
        json!({"type": ["muranoObject", "null"], "muranoType": "io.murano.Environment"})
    );
    assert_eq!(
        s["formSections"],
        json!({"general": {"title": "General", "index": 0}, "extra": {"title": "extra"}})
    );
}

#[test]
fn model_builders_are_static_public_and_marked() {
    let lib = library();
    let classes = Classes::new(&lib.source);
    let all = generate(&classes, "shop.Cart", &[]).unwrap();
    let mut keys: Vec<&str> = all
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(keys, ["", "build"]);
    let only = generate(&classes, "shop.Cart", &["build".into(), "nope".into()]).unwrap();
    assert_eq!(
        only,
        json!({"build": {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "additionalProperties": false,
            "formSections": {},
            "title": "Build one",
            "properties": {
                "items": {"type": "integer", "description": "Items"},
                "name": {"type": ["string", "null"], "default": "cart"}
            }
        }})
    );
    assert_eq!(
        generate(&classes, "shop.Missing", &[]),
        Err(SchemaError::NoClassFound("shop.Missing".into()))
    );
}
