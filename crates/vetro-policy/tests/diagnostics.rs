//! Golden tests of policy compile errors: class, message and position, as
//! text and as JSON.

use serde_json::json;
use vetro_policy::datalog::{Engine, PolicyError, PolicyKind};

const BAD: &[(&str, &str)] = &[
    ("unsafe head", "p(x) :- q(y)"),
    ("unsafe negation", "p(x) :- q(x), not r(x, y)"),
    ("recursion", "p(x) :- q(x)\nq(x) :- p(x)"),
    ("arity", "s(1, 2)\ns(1, 2, 3)"),
    ("module", "nowhere:q(1)"),
    ("syntax: open paren", "p(x) :- q(x"),
    ("syntax: bad token", "p(x) :- q(x) ;; r"),
    ("syntax: second line", "q(1)\np(x) :- q(x),"),
    ("unterminated string", "p(\"abc)"),
];

fn errors() -> Vec<(&'static str, &'static str, PolicyError)> {
    BAD.iter()
        .map(|&(label, text)| {
            let mut e = Engine::new();
            e.create_policy("t", PolicyKind::Nonrecursive);
            match e.insert_text("t", text) {
                Err(err) => (label, text, err),
                Ok(_) => panic!("{label}: accepted"),
            }
        })
        .collect()
}

#[test]
fn compile_error_text() {
    let text: Vec<String> = errors()
        .iter()
        .map(|(label, text, e)| format!("# {label}\n{text}\n=> {e}\n"))
        .collect();
    insta::assert_snapshot!("compile_error_text", text.join("\n"));
}

#[test]
fn compile_error_json() {
    let items: Vec<_> = errors()
        .iter()
        .map(|(label, _, e)| {
            json!({
                "case": label,
                "class": e.class.label(),
                "message": e.message,
                "line": e.span.map(|p| p.line),
                "column": e.span.map(|p| p.col),
            })
        })
        .collect();
    insta::assert_snapshot!(
        "compile_error_json",
        serde_json::to_string_pretty(&items).unwrap()
    );
}
