//! The grammar engine against small grammars written for these tests.

use vetro_diag::SourceMap;
use vetro_kwalify::{Grammar, Hooks, InstancePath, NoHooks, Problem};
use vetro_yaml::{LoadOptions, Node};

fn grammar(text: &[u8]) -> Grammar {
    let mut sources = SourceMap::new();
    Grammar::load("g.yaml", text, &mut sources).expect("grammar compiles")
}

fn doc(text: &str) -> Node {
    let mut sources = SourceMap::new();
    let id = sources.add("d.yaml", text);
    let mut docs =
        vetro_yaml::load_str(&sources, id, &LoadOptions::default()).expect("document loads");
    docs.remove(0)
}

fn problems(g: &Grammar, text: &str) -> Vec<(String, String)> {
    let mut d = doc(text);
    g.validate(&mut d, &mut NoHooks)
        .into_iter()
        .map(|p| (p.path, p.kind.to_string()))
        .collect()
}

fn pk(path: &str, kind: &str) -> (String, String) {
    (path.to_string(), kind.to_string())
}

const SHOP: &[u8] = br#"
_money: &money
  type: number
  range: {min: 0}
type: map
name: shop
mapping:
  name: {type: str, required: yes, length: {min: 2, max: 10}}
  open: {type: bool}
  opened: {type: date}
  kind: {type: str, enum: [bakery, butcher]}
  code: {type: str, pattern: '/^[a-z]+$/i'}
  price: *money
  discount: {<<: *money, range: {max: 50}}
  items:
    type: seq
    sequence:
      - type: map
        mapping:
          sku: {type: int, unique: yes}
          label: {type: text}
  tags:
    type: seq
    short: 0
    sequence: [{type: str, unique: yes}]
  owner:
    type: map
    short: person
    mapping:
      person: {type: str, required: yes}
      phone: {type: scalar}
  extra:
    type: map
    mapping:
      known: {type: int}
      =: {type: any}
"#;

#[test]
fn a_clean_document_has_no_problems() {
    let g = grammar(SHOP);
    let p = problems(
        &g,
        "name: Corner\nopen: yes\nopened: 2016-01-01\nkind: bakery\ncode: AbC\nprice: 3.5\n\
         discount: 10\nitems: [{sku: 1, label: bread}, {sku: 2, label: 7}]\ntags: [a, b]\n\
         owner: Ann\nextra: {known: 1, other: [1, 2]}\n",
    );
    assert_eq!(p, vec![]);
}

#[test]
fn every_problem_is_collected_with_its_path() {
    let g = grammar(SHOP);
    let p = problems(
        &g,
        "open: maybe\nkind: florist\ncode: a1\nprice: -1\ndiscount: 60\nitems: [{sku: x}, {sku: 3}, {sku: 3}]\n\
         tags: [a, a]\nowner: {phone: 1}\ncolour: red\nextra: {known: one}\n",
    );
    for want in [
        pk("name", "missing-required"),
        pk("open", "wrong-type"),
        pk("kind", "bad-enum"),
        pk("code", "pattern-mismatch"),
        pk("price", "out-of-range"),
        pk("discount", "out-of-range"),
        pk("items/0/sku", "wrong-type"),
        pk("items/2/sku", "not-unique"),
        pk("tags/1", "not-unique"),
        pk("owner/person", "missing-required"),
        pk("colour", "unknown-key"),
        pk("extra/known", "wrong-type"),
    ] {
        assert!(p.contains(&want), "missing {want:?} in {p:?}");
    }
}

#[test]
fn type_tests_follow_yaml_11() {
    let g = grammar(b"type: map\nmapping:\n  s: {type: str}\n  t: {type: timestamp}\n  n: {type: number}\n  f: {type: float}\n");
    assert_eq!(
        problems(
            &g,
            "s: '1.0'\nt: 2001-12-14t21:59:43.10-05:00\nn: 3\nf: 1.5\n"
        ),
        vec![]
    );
    let p = problems(&g, "s: 2016-01-01\nt: soon\nn: 'x'\nf: 1\n");
    assert_eq!(
        p,
        vec![
            pk("s", "wrong-type"),
            pk("t", "wrong-type"),
            pk("n", "wrong-type"),
            pk("f", "wrong-type")
        ]
    );
    // y/n are strings in YAML 1.1 as loaded here; null passes a non-required rule.
    let g = grammar(b"type: map\nmapping:\n  a: {type: str}\n  b: {type: map, mapping: {x: {type: int, required: yes}}}\n");
    assert_eq!(problems(&g, "a: y\nb:\n"), vec![]);
}

#[test]
fn short_forms_are_expanded_in_place() {
    let g = grammar(SHOP);
    let mut d = doc("name: Corner\nowner: Ann\ntags: solo\n");
    assert!(g.validate(&mut d, &mut NoHooks).is_empty());
    assert_eq!(
        d.get("owner")
            .and_then(|o| o.get("person"))
            .and_then(Node::as_str),
        Some("Ann")
    );
    assert_eq!(
        d.get("tags").and_then(Node::as_seq).map(<[Node]>::len),
        Some(1)
    );
    // A short form that does not validate reports the original value.
    let g =
        grammar(b"type: map\nmapping:\n  o: {type: map, short: k, mapping: {k: {type: int}}}\n");
    assert_eq!(problems(&g, "o: text\n"), vec![pk("o", "wrong-type")]);
}

#[test]
fn non_string_keys_fall_to_the_default_rule() {
    let g = grammar(b"type: map\nmapping:\n  '1': {type: str}\n");
    assert_eq!(problems(&g, "1: a\n"), vec![pk("1", "unknown-key")]);
    let g = grammar(b"type: map\nmapping:\n  '1': {type: str}\n  =: {type: int}\n");
    assert_eq!(problems(&g, "1: 2\n"), vec![]);
}

#[test]
fn unreachable_malformed_rules_are_ignored_and_aliases_compile_once() {
    let g = grammar(
        b"_dead: {type: seq, sequence: {-type: map}, mapping: 3}\n_item: &item {type: int}\n\
          type: map\nmapping:\n  a: {type: seq, sequence: [*item]}\n  b: {type: seq, sequence: [*item]}\n",
    );
    // root, a, b, and one shared item rule
    assert_eq!(g.len(), 4);
    assert_eq!(
        problems(&g, "a: [1, x]\nb: [y]\n"),
        vec![pk("a/1", "wrong-type"), pk("b/0", "wrong-type")]
    );
}

#[test]
fn bytes_that_are_not_utf8_are_an_error_with_their_position() {
    let mut sources = SourceMap::new();
    let err = Grammar::load(
        "g.grammar",
        b"type: map\ndesc: \"it\x92s a shop\"\nmapping:\n  a: {type: int}\n",
        &mut sources,
    )
    .unwrap_err();
    assert_eq!(err[0].kind, "encoding");
    assert!(
        err[0].message.starts_with("g.grammar:2:10: not UTF-8"),
        "{}",
        err[0].message
    );
}

struct EvenHook;

vetro_diag::kinds! {
    enum HookKind {
        Odd = "odd",
    }
}

impl Hooks for EvenHook {
    fn after_rule(
        &mut self,
        name: &str,
        value: &Node,
        path: &InstancePath,
        out: &mut Vec<Problem>,
    ) {
        if name == "even" && value.as_i64().is_some_and(|i| i % 2 != 0) {
            out.push(Problem {
                kind: HookKind::Odd.into(),
                path: path.render(),
                message: "odd".into(),
                span: value.span,
                rule: name.into(),
            });
        }
    }
}

#[test]
fn hooks_run_on_named_rules_after_clean_validation() {
    let g = grammar(b"type: seq\nsequence: [{type: int, name: even}]\n");
    let mut d = doc("[2, 3, x]\n");
    let p: Vec<(String, String)> = g
        .validate(&mut d, &mut EvenHook)
        .into_iter()
        .map(|p| (p.path, p.kind.to_string()))
        .collect();
    assert_eq!(p, vec![pk("1", "odd"), pk("2", "wrong-type")]);
}

#[test]
fn grammar_errors_are_diagnostics() {
    let mut sources = SourceMap::new();
    assert!(Grammar::load("g", b"- not a rule\n", &mut sources).is_err());
    assert!(Grammar::load("g", b"type: wobble\n", &mut sources).is_err());
    assert!(Grammar::load("g", b"type: str\npattern: /(/\n", &mut sources).is_err());
}

/// Deterministic mutations of a grammar and a document never panic: the
/// grammar either compiles or is rejected with diagnostics.
#[test]
fn mutated_grammars_and_documents_never_panic() {
    let mut seed: u64 = 0x2545f4914f6cdd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b" :-[]{},\n#&*<=!|'\"/yes0";
    let mutate = |base: &[u8], next: &mut dyn FnMut() -> u64| {
        let mut text = base.to_vec();
        for _ in 0..(next() % 3 + 1) {
            let at = (next() as usize) % text.len();
            let c = alphabet[(next() as usize) % alphabet.len()];
            if next() & 1 == 0 {
                text[at] = c;
            } else {
                text.insert(at, c);
            }
        }
        text
    };
    let document =
        "name: Corner\nitems: [{sku: 1}, {sku: 1}]\ntags: x\nowner: {person: a}\nextra: {a: 1}\n";
    for _ in 0..300 {
        let g_text = mutate(SHOP, &mut next);
        let mut sources = SourceMap::new();
        let Ok(g) = Grammar::load("g", &g_text, &mut sources) else {
            continue;
        };
        let d_text = mutate(document.as_bytes(), &mut next);
        let text = String::from_utf8_lossy(&d_text).into_owned();
        let id = sources.add("d", text);
        if let Ok(mut docs) = vetro_yaml::load_str(&sources, id, &LoadOptions::default()) {
            for d in docs.iter_mut() {
                let _ = g.validate(d, &mut NoHooks);
            }
        }
    }
}
