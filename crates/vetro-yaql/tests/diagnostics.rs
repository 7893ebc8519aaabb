//! Golden tests of the errors users see for bad expressions: the text form
//! (kind, message, caret under the position: where a parse error is, or the
//! innermost call that failed at run time) and the JSON form.

use serde_json::json;
use vetro_yaql::{Engine, EngineOptions, Value};

const BAD: &[&str] = &[
    "1 +",
    "(1",
    "[1, 2, ][0]",
    "1 @ 2",
    "'unterminated",
    "__x",
    "1e3",
    "len ([1])",
    "$$",
    "{a => 1,}",
    "not(true)",
    "'abc'.nosuch()",
    "toUpper('abc')",
    "2.abs()",
    "'a' + 1",
    "1 < 2 < 3",
    "{a => 1}.b",
    "[1, 2][5]",
    "[].first()",
    "1 / 0",
    "int('x')",
    "[].sum()",
    "[1].take(-1)",
    "regex('(')",
    "let(a + 1 => 2) -> 1",
    "[1, 2].unpack(a) -> $a",
    // run-time errors point at the innermost node that failed
    "[1, 2].select($ + 'a')",
    "len([1, 2].where($ > 1).first().nosuch())",
    "dict(a => 1).get(b).x",
    "[3, 2, 1].orderBy(1 / ($ - 2))",
    "range(3).sum() + [1].max() + len(int('1.5'))",
];

fn errors() -> Vec<(&'static str, vetro_yaql::Error)> {
    let engine = Engine::new(EngineOptions::default());
    BAD.iter()
        .map(|&src| match engine.eval_str(src, Value::Null) {
            Err(e) => (src, e),
            Ok(v) => panic!("{src} evaluated to {}", v.to_yaql_string()),
        })
        .collect()
}

#[test]
fn error_text() {
    let text: Vec<String> = errors()
        .iter()
        .map(|(src, e)| format!("$ {src}\n{}\n", e.render(src)))
        .collect();
    insta::assert_snapshot!("error_text", text.join("\n"));
}

#[test]
fn error_json() {
    let items: Vec<_> = errors()
        .iter()
        .map(|(src, e)| {
            json!({"expression": src, "kind": e.kind.as_str(), "message": e.message, "position": e.position})
        })
        .collect();
    insta::assert_snapshot!("error_json", serde_json::to_string_pretty(&items).unwrap());
}
