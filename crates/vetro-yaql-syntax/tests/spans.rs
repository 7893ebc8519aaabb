//! Every node of the tree carries the span of its text and the position of
//! the token that names its operation.

use vetro_yaql_syntax::{parse, Arg, Expr, ExprKind, ParserOptions};

/// Each node as `text@position`, outermost first, depth-first.
fn nodes(src: &str) -> Vec<String> {
    nodes_in(src, ParserOptions::default())
}

fn nodes_in(src: &str, opts: ParserOptions) -> Vec<String> {
    fn walk(src: &str, e: &Expr, out: &mut Vec<String>) {
        out.push(format!("{}@{}", &src[e.span.range()], e.position()));
        let args = |args: &[Arg], out: &mut Vec<String>| {
            for a in args {
                match a {
                    Arg::Pos(x) => walk(src, x, out),
                    Arg::Named(k, v) => {
                        walk(src, k, out);
                        walk(src, v, out);
                    }
                    Arg::Omitted => {}
                }
            }
        };
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Keyword(_) | ExprKind::Var(_) => {}
            ExprKind::Call { args: a, .. } => args(a, out),
            ExprKind::Method { recv, args: a, .. } => {
                walk(src, recv, out);
                args(a, out);
            }
            ExprKind::Dot { recv, rhs, .. } => {
                walk(src, recv, out);
                walk(src, rhs, out);
            }
            ExprKind::Wrap(inner) => walk(src, inner, out),
        }
    }
    let tree = parse(src, opts).unwrap();
    let mut out = Vec::new();
    walk(src, &tree, &mut out);
    out
}

#[test]
fn operators_point_at_their_symbol() {
    assert_eq!(
        nodes("1 + $x * 2"),
        ["1 + $x * 2@2", "1@0", "$x * 2@7", "$x@4", "2@9"]
    );
    assert_eq!(nodes("not $a"), ["not $a@0", "$a@4"]);
    assert_eq!(nodes("-(1)"), ["-(1)@0", "1@2"]);
}

#[test]
fn calls_and_methods_point_at_their_name() {
    assert_eq!(
        nodes("$.where($ > 1).len()"),
        [
            "$.where($ > 1).len()@15",
            "$.where($ > 1)@2",
            "$@0",
            "$ > 1@10",
            "$@8",
            "1@12"
        ]
    );
    assert_eq!(
        nodes("f([1], a => 'b')"),
        ["f([1], a => 'b')@0", "[1]@2", "1@3", "a@7", "'b'@12"]
    );
}

#[test]
fn member_access_and_indexing_point_at_the_operator() {
    assert_eq!(nodes("$.a?.b"), ["$.a?.b@3", "$.a@1", "$@0", "a@2", "b@5"]);
    assert_eq!(nodes("$x[0]"), ["$x[0]@2", "$x@0", "0@3"]);
    assert_eq!(
        nodes("{k => 1}.k"),
        ["{k => 1}.k@8", "{k => 1}@0", "k@1", "1@6", "k@9"]
    );
}

#[test]
fn parentheses_stay_out_of_the_span_except_for_legacy_tuples() {
    assert_eq!(nodes("(1)"), ["1@1"]);
    let legacy = ParserOptions {
        legacy: true,
        ..ParserOptions::default()
    };
    assert_eq!(
        nodes_in("(a => b) => c", legacy),
        [
            "(a => b) => c@9",
            "(a => b)@0",
            "a => b@3",
            "a@1",
            "b@6",
            "c@12"
        ]
    );
}

#[test]
fn spans_are_byte_ranges() {
    // `é` takes two bytes
    assert_eq!(nodes("'é'.len()"), ["'é'.len()@5", "'é'@0"]);
}
