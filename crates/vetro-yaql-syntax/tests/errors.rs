//! Which error a text that does not parse gets. As in the reference, the
//! parser reads tokens as it needs them: a grammar error stands even when a
//! lexical error follows it in the text, except past vetro's own nesting
//! limit, where the reference would have read on.

use vetro_yaql_syntax::operators::{Fixity, OperatorSpec, OperatorTable};
use vetro_yaql_syntax::{check, parse, parse_with_operators, ParserOptions, SyntaxErrorKind};

fn error(src: &str) -> (SyntaxErrorKind, String, usize) {
    let opts = ParserOptions::default();
    let e = parse(src, opts).unwrap_err();
    assert_eq!(check(src, opts, None).unwrap_err(), e, "check of {src:?}");
    (e.kind, e.message, e.position)
}

#[test]
fn the_first_error_in_reading_order_wins() {
    let lexical = |m: &str, at| (SyntaxErrorKind::Lexical, m.to_string(), at);
    // Nothing can start with `<`: the grammar refuses it before the `%`.
    assert_eq!(
        error("<% ctx().var1"),
        (
            SyntaxErrorKind::Grammar,
            "Parse error: unexpected '<', expected a value".to_string(),
            0
        )
    );
    assert_eq!(error("(1 + ) 'x").0, SyntaxErrorKind::Grammar);
    assert_eq!(error("1 2 #").2, 2);
    assert_eq!(error(") __x").0, SyntaxErrorKind::Grammar);
    // A lexical error before the grammar error, or in the token the
    // grammar stopped at, is the one reported.
    assert_eq!(
        error("1 + #"),
        lexical("Lexical error: illegal character '#'", 4)
    );
    assert_eq!(
        error("f(1) __x"),
        lexical("Lexical error: illegal identifier '__x'", 5)
    );
    // Past the nesting limit (which the reference does not have) the
    // rest of the text is still read for a lexical error.
    let deep = format!("{}1 #", "(".repeat(300));
    assert_eq!(
        error(&deep),
        lexical("Lexical error: illegal character '#'", 302)
    );
}

#[test]
fn grammar_errors_keep_their_token_and_position() {
    let grammar = |m: &str, at| (SyntaxErrorKind::Grammar, m.to_string(), at);
    assert_eq!(error(""), grammar("Parse error: empty expression", 0));
    assert_eq!(
        error("1 +"),
        grammar(
            "Parse error: unexpected end of statement, expected a value",
            3
        )
    );
    assert_eq!(
        error("f(1 2)"),
        grammar("Parse error: unexpected number 2, expected ',' or ')'", 4)
    );
    assert_eq!(
        error("[1, )"),
        grammar("Parse error: unexpected ')', expected a value", 4)
    );
    let deep = format!("{}1", "(".repeat(300));
    assert_eq!(
        error(&deep),
        grammar("Parse error: expression nested too deeply", 200)
    );
}

#[test]
fn a_suffix_operator_looks_at_the_next_token() {
    let specs =
        [("!", Fixity::Suffix, 0), ("!", Fixity::Left, 1)].map(|(s, fixity, group)| OperatorSpec {
            symbol: s.to_string(),
            fixity,
            group,
            alias: None,
        });
    let table = OperatorTable::new(&specs, None).unwrap();
    let opts = ParserOptions::default();
    let name = |src| match parse_with_operators(src, opts, &table).unwrap().kind {
        vetro_yaql_syntax::ExprKind::Call { name, args, .. } => (name.to_string(), args.len()),
        other => panic!("{other:?}"),
    };
    assert_eq!(name("1 ! 2"), ("#operator_!".to_string(), 2));
    assert_eq!(name("1 !"), ("#unary_operator_!".to_string(), 1));
    let e = parse_with_operators("1 ! '", opts, &table).unwrap_err();
    assert_eq!((e.kind, e.position), (SyntaxErrorKind::Lexical, 4));
}

#[test]
fn long_chains_are_refused_before_the_tree_gets_too_deep_to_walk() {
    // `1+1+...` nests the tree one level per operand without the parser
    // recursing; 100,000 of them overflowed the stack when the tree was dropped.
    let sum = ["1"; 100_000].join("+");
    let (kind, message, at) = error(&sum);
    assert_eq!(kind, SyntaxErrorKind::Grammar);
    assert_eq!(message, "Parse error: expression nested too deeply");
    assert_eq!(at, 2_003);
    let members = format!("${}", ".a".repeat(100_000));
    assert_eq!(
        error(&members).1,
        "Parse error: expression nested too deeply"
    );
    // Up to the limit, chains parse, also when nested in parentheses.
    let opts = ParserOptions::default();
    assert!(parse(&["1"; 1_000].join("+"), opts).is_ok());
    let nested = format!("({})", ["1"; 500].join("+"));
    assert!(parse(&[nested.as_str(); 2].join("+"), opts).is_ok());
}

#[test]
fn an_integer_literal_over_the_digit_limit_is_a_lexical_error() {
    use vetro_yaql_syntax::MAX_INT_DIGITS;
    let long = format!("2 + {}", "7".repeat(MAX_INT_DIGITS + 1));
    let message = format!(
        "Lexical error: an integer of {} digits is over the limit of {MAX_INT_DIGITS}",
        MAX_INT_DIGITS + 1
    );
    assert_eq!(error(&long), (SyntaxErrorKind::Lexical, message, 4));
    let float = format!("2 + {}.5", "7".repeat(MAX_INT_DIGITS + 1));
    assert!(
        parse(&float, ParserOptions::default()).is_ok(),
        "a float is not an integer"
    );
    assert!(parse(&"7".repeat(1000), ParserOptions::default()).is_ok());
}

#[test]
fn numbers_end_where_the_reference_lexer_ends_them() {
    let lexical = |m: &str, at| (SyntaxErrorKind::Lexical, m.to_string(), at);
    // A word character right after the digits: no number starts there, so
    // its first digit is the illegal character.
    assert_eq!(
        error("12abc"),
        lexical("Lexical error: illegal character '1'", 0)
    );
    assert_eq!(
        error("[1, 2a]"),
        lexical("Lexical error: illegal character '2'", 4)
    );
    // After a fraction it leaves the integer alone: `1`, `.`, then `5e3`.
    assert_eq!(
        error("1.5e3"),
        lexical("Lexical error: illegal character '5'", 2)
    );
    assert!(parse("1.5 + 2", ParserOptions::default()).is_ok());
}

#[test]
fn an_unterminated_string_is_its_quote() {
    for (src, at) in [("'abc", 0), ("1 + \"ab", 4), ("`a\\", 0), ("'a' 'b", 4)] {
        let (kind, message, pos) = error(src);
        assert_eq!((kind, pos), (SyntaxErrorKind::Lexical, at), "{src}");
        let quote = &src[at..at + 1];
        assert!(
            message.starts_with(&format!("Lexical error: illegal character '{quote}'")),
            "{src}: {message}"
        );
    }
}

#[test]
fn a_hex_escape_with_bad_digits_is_a_truncated_escape() {
    let (kind, message, pos) = error("'a\\x4g'");
    assert_eq!(kind, SyntaxErrorKind::Lexical);
    assert_eq!(message, "Lexical error: truncated \\xXX escape");
    assert_eq!(pos, 2);
    assert_eq!(
        error("'\\UZZZZZZZZ'").1,
        "Lexical error: truncated \\UXXXXXXXX escape"
    );
}
