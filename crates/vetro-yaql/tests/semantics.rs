//! Behaviour checks of the language and library (own fixtures).

use vetro_yaql::{data, Engine, EngineOptions, ErrorKind, Options, Value};

fn engine() -> Engine {
    Engine::new(EngineOptions {
        allow_delegates: true,
        delegates: true,
        ..Default::default()
    })
}

fn run_with(e: &Engine, expr: &str, data: &str) -> Result<String, ErrorKind> {
    let data = data::load_str("data", data).unwrap();
    e.eval_str(expr, data)
        .map(|v| data::to_json_string(&v, false))
        .map_err(|e| e.kind)
}

fn ok(expr: &str, want: &str) {
    assert_eq!(
        run_with(&engine(), expr, "null"),
        Ok(want.to_string()),
        "{expr}"
    );
}

fn err(expr: &str, kind: ErrorKind) {
    assert_eq!(run_with(&engine(), expr, "null"), Err(kind), "{expr}");
}

#[test]
fn arithmetic_follows_python() {
    ok("7 / 2", "3");
    ok("-7 / 2", "-4");
    ok("7 / 2.0", "3.5");
    ok("-3 mod 2", "1");
    ok("7 mod -2", "-1");
    ok("2 * 9223372036854775807", "18446744073709551614");
    ok("1 + 2 * 3", "7");
    ok("-[1, 2].len()", "-2");
    ok("0.1 + 0.2", "0.30000000000000004");
    err("1 / 0", ErrorKind::ZeroDivision);
    err("true + 1", ErrorKind::NoMatchingFunction);
    err("1 < 2 < 3", ErrorKind::NoMatchingFunction);
}

#[test]
fn equality_and_truthiness() {
    ok("1 = 1.0", "true");
    ok("true = 1", "true");
    ok("[1, 2] = [1, 2]", "true");
    ok("1 and 0", "0");
    ok("null or 'x'", r#""x""#);
    ok("not null", "true");
    ok("null < 1", "true");
    ok("null < null", "false");
}

#[test]
fn lexing_and_parsing_errors() {
    err("1e3", ErrorKind::Lexical);
    err("__x", ErrorKind::Lexical);
    err("1 +", ErrorKind::Grammar);
    err("[1, 2, ][0]", ErrorKind::Grammar);
    let plain = Engine::new(EngineOptions::default());
    assert_eq!(
        run_with(&plain, "len ([1])", "null"),
        Err(ErrorKind::Grammar)
    );
    err("not(true)", ErrorKind::NoFunction);
    ok("x", r#""x""#);
    ok("'\\101'", r#""A""#);
    ok("`a\\nb`", r#""a\\nb""#);
}

#[test]
fn queries_are_lazy_and_single_pass() {
    ok("sequence().where($ > 5).take(3)", "[6,7,8]");
    ok(
        "let(a => [1,2,3].where($ > 1)) -> [$a.len(), $a.len()]",
        "[2,0]",
    );
    ok(
        "let(a => [1,2,3].where($ > 1).memorize()) -> [$a.len(), $a.len()]",
        "[2,2]",
    );
    ok(
        "[[2,a],[1,b],[2,c],[1,d]].orderBy($[0]).thenByDescending($[1])",
        r#"[[1,"d"],[1,"b"],[2,"c"],[2,"a"]]"#,
    );
    ok(
        "[[1,a],[2,b],[1,c]].groupBy($[0], $[1], $.join(''))",
        r#"[[1,"ac"],[2,"b"]]"#,
    );
    ok("[1,2,3].aggregate($1 + $2)", "6");
    ok("[1,2].join([2,3], $1 = $2, [$1, $2])", "[[2,2]]");
    err("[].sum()", ErrorKind::Type);
    err("[].first()", ErrorKind::StopIteration);
}

#[test]
fn strings_and_collections() {
    ok("str([1, 'a', null, true])", r#""(1, 'a', None, True)""#);
    ok("'abcdef'.substring(-2)", r#""ef""#);
    ok("'a b  c'.split()", r#"["a","b","c"]"#);
    ok("'abc'.replace({a=>1, b=>2})", r#""12c""#);
    ok("{a=>1}.a", "1");
    err("{a=>1}.b", ErrorKind::Key);
    ok("[{a=>1},{a=>2}].a", "[1,2]");
    ok("{1 => 2}", r#"{"1":2}"#);
    err("set(1, [2])", ErrorKind::Type);
    ok("set(1, [2]).len()", "2");
    ok("list(range(2), 3)", "[0,1,3]");
}

#[test]
fn contexts_and_functions() {
    ok("let(x => 1) -> [$x, let(x => 2) -> $x, $x]", "[1,2,1]");
    ok("def(f, $1 + $2) -> f(3, 4)", "7");
    ok("[1, 2].unpack(a, b) -> $a + $b", "3");
    ok("let(f => lambda($1 + $2)) -> $f(1, 2)", "3");
    ok("call(len, [[1,2]], {})", "2");
    err("substring('abc', 1)", ErrorKind::NoFunction);
    err("2.abs()", ErrorKind::NoMethod);
    err("let(a + 1 => 2)", ErrorKind::MappingTranslation);
}

#[test]
fn datetimes() {
    ok("datetime(2015, 8, 29)", r#""2015-08-29T00:00:00+00:00""#);
    ok("datetime('2008-09-03T20:56:35.450686+03:00').hour", "20");
    ok("timespan(hours => 1) / timespan(minutes => 30)", "2.0");
    ok("str(timespan(days => 1))", r#""1 day, 0:00:00""#);
    err("timespan(hours => 1.5)", ErrorKind::NoMatchingFunction);
}

#[test]
fn legacy_mode() {
    let e = Engine::new(EngineOptions {
        legacy: true,
        legacy_context: true,
        yaql: Options {
            convert_tuples_to_lists: false,
            iterable_dicts: true,
            ..Default::default()
        },
        ..Default::default()
    });
    assert_eq!(
        run_with(&e, "a => b => c", "null").unwrap(),
        r#"["a","b","c"]"#
    );
    assert_eq!(run_with(&e, "[1,2,3][$ > 1]", "null").unwrap(), "[2,3]");
    assert_eq!(run_with(&e, "range(2).take(3)", "null").unwrap(), "[2,3,4]");
    assert_eq!(run_with(&e, "{a=>1}.x", "null").unwrap(), "null");
    assert_eq!(
        run_with(&e, "[1, 2].as(sum($) => a).select($ * $a)", "null").unwrap(),
        "[3,6]"
    );
    // `dict` builds a dict as a function; as a method it takes a tuple
    // receiver and finds no method to hand it to, as the reference's.
    assert_eq!(
        run_with(&e, "dict(a => 1, [b, 2])", "null").unwrap(),
        r#"{"a":1,"b":2}"#
    );
    assert_eq!(
        run_with(&e, "(a => 1).dict(b => 2)", "null"),
        Err(ErrorKind::NoMethod)
    );
    assert_eq!(
        run_with(&e, "1.dict()", "null"),
        Err(ErrorKind::NoMatchingMethod)
    );
}

#[test]
fn limits() {
    let e = Engine::new(EngineOptions {
        yaql: Options {
            limit_iterators: 3,
            max_depth: 200,
            ..Default::default()
        },
        ..Default::default()
    });
    assert_eq!(
        run_with(&e, "range(10).take(3)", "null").unwrap(),
        "[0,1,2]"
    );
    assert_eq!(
        run_with(&e, "range(10).take(5).len()", "null"),
        Err(ErrorKind::CollectionTooLarge)
    );
    assert_eq!(
        run_with(&e, "list(sequence())", "null"),
        Err(ErrorKind::CollectionTooLarge)
    );
    assert_eq!(
        run_with(&e, "def(f, f($)) -> f(1)", "null"),
        Err(ErrorKind::Recursion)
    );
    let t = Engine::new(EngineOptions {
        yaql: Options {
            limits: vetro_yaql::Limits {
                timeout: Some(std::time::Duration::from_millis(50)),
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    });
    assert_eq!(
        run_with(&t, "sequence().len()", "null"),
        Err(ErrorKind::Timeout)
    );
}

#[test]
fn safe_format_is_opt_in() {
    err("format('{0}', 1)", ErrorKind::NoFunction);
    let e = Engine::new(EngineOptions {
        format: true,
        ..Default::default()
    });
    let v = e.eval_str(
        "'{0:>5}|{name}|{1:.2f}'.format(42, 3.14159, name => x)",
        Value::Null,
    );
    assert_eq!(v.unwrap(), Value::from("   42|x|3.14"));
    assert!(e
        .eval_str("'{0.__class__}'.format(1)", Value::Null)
        .is_err());
}

#[test]
fn order_by_keeps_equal_keys_in_their_order() {
    // Long enough for the sort's path for large inputs; keys repeat.
    ok(
        "range(200).orderBy($ mod 3).where($ mod 3 = 1).take(4)",
        "[1,4,7,10]",
    );
    ok(
        "range(200).orderByDescending($ mod 3).skip(66).take(3)",
        "[1,4,7]",
    );
    // Keys that cannot be compared are the error of the first comparison
    // that meets them, however far into the sort (never a crash).
    err(
        "range(300).select([$ mod 5, switch($ mod 7 = 0 => str($), true => $)]).orderBy($[0]).thenBy($[1])",
        ErrorKind::NoMatchingFunction,
    );
    // A later key is computed only for items that tie on the keys before
    // it, as the reference's comparison calls it only then.
    ok(
        "[[1, 5], [2, 'x']].orderBy($[0]).thenBy($[1].toUpper()).select($[0])",
        "[1,2]",
    );
    err(
        "[[1, 5], [1, 'x']].orderBy($[0]).thenBy($[1].toUpper())",
        ErrorKind::NoMatchingMethod,
    );
    // Three keys, one descending, over runs of ties at two levels (the
    // reference's order).
    ok(
        "range(30).select([$ mod 3, $ mod 5, $]).orderBy($[0]).thenByDescending($[1]).thenBy(-$[2]).select($[2])",
        "[24,9,18,3,27,12,21,6,15,0,19,4,28,13,22,7,16,1,25,10,29,14,23,8,17,2,26,11,20,5]",
    );
    // A list sorted where it is stays as it was.
    ok(
        "let(l => range(100).select(99 - $).toList()) -> [$l.orderBy($).first(), $l.first(), $l.orderBy($).last()]",
        "[0,99,99]",
    );
}

#[test]
fn reverse_hands_its_items_back_once() {
    // `reverse()` collects at once and hands the items back through a
    // single-pass iterator (Python's `reversed`), as the reference does.
    ok("[1, 2, 3].reverse()", "[3,2,1]");
    ok(
        "let(x => [1, 2].reverse()) -> [$x.len(), $x.len()]",
        "[2,0]",
    );
    ok("[1, 2].reverse().repeat(2).take(3)", "[[2,1],[]]");
    ok("[].reverse() and true", "true");
}

#[test]
fn generators_of_the_reference_stay_lazy() {
    // `examine`, `selectAllCases`, `groupBy`'s aggregation, `slice`,
    // `splitWhere` and `sliceWhere` are generators in the reference: what
    // is not read is never computed, and their results are not lists.
    ok("examine(true, 1 / 0).first()", "true");
    ok("selectAllCases(false, true, 1 / 0).first()", "1");
    ok("isList(examine(true))", "false");
    ok(
        "[isList([1].groupBy($)), isList([1].slice(1))]",
        "[false,false]",
    );
    ok("[1, 0, 2].splitWhere(1 / $).first()", "[]");
    ok("[1, 2, 0].sliceWhere(1 / $ > 0.6).first()", "[1]");
    // `defaultIfEmpty` hands a list back itself.
    ok("isList([1].defaultIfEmpty([2]))", "true");
    // `slice` reads as Python's islice: nothing for 0, a negative length
    // refused when read.
    ok("[1, 2, 3].slice(0)", "[]");
    ok("isList([1, 2].slice(-1))", "false");
    err("[1, 2].slice(-1)", ErrorKind::Value);
    // `join` reads its second collection once the first has an item.
    ok("[].join([1, 2].select(1 / ($ - 1)), true, [$1, $2])", "[]");
    err(
        "[1].join([1, 2].select(1 / ($ - 1)), true, [$1, $2])",
        ErrorKind::ZeroDivision,
    );
    // groupBy computes an item's value before its key.
    err("[[1, 2]].groupBy($.toUpper(), $[5])", ErrorKind::Index);
}

#[test]
fn list_and_set_spread_nested_lazy_sequences() {
    ok("list([1, 2].select([$].select($)))", "[1,2]");
    ok(
        "list([1, 2].select([$].select([$].select($))), [3].select([$]))",
        "[1,2,[3]]",
    );
    ok("set([1, 2].select([$].select($))).len()", "2");
}

#[test]
fn order_by_calls_selectors_as_the_reference_sort() {
    // One item: nothing to compare, no selector called.
    ok("[[1]].orderBy($.toUpper())", "[[1]]");
    // The sort compares the second item with the first first: the
    // second's key fails first.
    err(
        "[[1], ['x', 2]].orderBy($[1].toUpper())",
        ErrorKind::NoMatchingMethod,
    );
    // A selector failing on a later item: the comparisons of the items
    // before it come first (lists do not compare).
    err(
        "['b', 'a', 1.5].orderBy($.split(','))",
        ErrorKind::NoMatchingFunction,
    );
}

#[test]
fn dict_of_pairs_iterates_each_pair_as_python() {
    ok("dict(['ab', 'cd'])", r#"{"a":"b","c":"d"}"#);
    ok("dict([[1, 2, 3]])", r#"{"1":2}"#);
    ok("dict([{a => 1, b => 2}])", r#"{"a":"b"}"#);
    err("dict(['a'])", ErrorKind::StopIteration);
    err("dict([[]])", ErrorKind::StopIteration);
    err("dict([1])", ErrorKind::Type);
}

#[test]
fn regex_patterns_are_read_as_python_reads_them() {
    let matches = |text: &str, pattern: &str| {
        let data = serde_json::json!([text, pattern]).to_string();
        run_with(&engine(), "$[0] =~ $[1]", &data)
    };
    let yes = Ok("true".to_string());
    // Python's errors where fancy-regex would read something.
    for bad in [
        "{0}",
        "a**",
        "a{1}{2}",
        "a*?+",
        "a(?i)",
        "a|(?i)b",
        "((?i)a)",
        "\\p{L}",
        "\\e",
        "(?P<n>a)(?P<n>b)",
        "(?P<1>a)",
        "(?<n>a)",
        "a{2,1}",
        "(a",
        "a)",
        "[a",
        "[\\8]",
    ] {
        assert_eq!(matches("a", bad), Err(ErrorKind::Regex), "{bad}");
    }
    assert_eq!(matches("a", "a{99999999999}"), Err(ErrorKind::Overflow));
    // Python's readings where fancy-regex's differ.
    for (text, pattern) in [
        ("a{b}", "a{b}"),
        ("x", "x{,2}"),
        ("xx", "^x{,}$"),
        ("[", "[[]"),
        ("<", "\\<"),
        ("a&", "[a&&b]"),
        ("\u{7}", "\\07"),
        ("\u{1}", "\\001"),
        ("\u{1}", "[\\1]"),
        ("A", "(?i)(?m)a"),
        ("ab", "(?P<n>a)(?P=n)|ab"),
        ("a\nb", "(?s)a.b"),
    ] {
        assert_eq!(matches(text, pattern), yes, "{pattern}");
    }
}

#[test]
fn min_and_max_ask_whether_the_second_is_greater() {
    // As the reference's: `min` of equal values, or of sets neither inside
    // the other, is the second (here 1.0 and set(2)).
    ok("min(1, 1.0)", "1.0");
    ok("[1, 1.0].min()", "1.0");
    ok("[1.0, 1].max()", "1.0");
    ok("min(set(1), set(2))", "[2]");
    ok("[set(1), set(2)].min()", "[2]");
    ok("max(set(1), set(2))", "[1]");
    // Values that do not compare fail in `#operator_>`.
    let e = engine();
    let err = e.eval_str("[true, 1].max()", Value::Null).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NoMatchingFunction);
    assert!(
        err.message.starts_with("No function \"#operator_>\""),
        "{}",
        err.message
    );
    let err = e.eval_str("[true, 1].orderBy($)", Value::Null).unwrap_err();
    assert!(
        err.message.starts_with("No function \"#operator_<\""),
        "{}",
        err.message
    );
}

#[test]
fn list_keeps_iterables_that_are_not_iterators_as_items() {
    // An orderBy result is iterable but not an iterator: `list()` holds it
    // as one item, as the reference's does (and never sorts it here).
    ok("list([1, 2].orderBy([$])).len()", "1");
    ok("list([2, 1].orderBy($))", "[[1,2]]");
    ok("set([1, 2].orderBy([$])).len()", "1");
}

#[test]
fn zip_longest_ignores_keyword_arguments_but_default() {
    ok("[1, 2].zipLongest([3], foo => 1)", "[[1,3],[2,null]]");
    ok(
        "[1, 2].zipLongest([3], default => 1, default => 5)",
        "[[1,3],[2,5]]",
    );
}

#[test]
fn method_resolution_errors_carry_the_receiver() {
    let e = engine();
    let cases = [
        ("[1, 2].foo()", ErrorKind::NoMethod, Some("(1, 2)")),
        ("[1, 2].len(3)", ErrorKind::NoMatchingMethod, Some("(1, 2)")),
        (
            "[1, 2].thenBy($)",
            ErrorKind::NoMatchingMethod,
            Some("(1, 2)"),
        ),
        (
            "set(1).insert(0, 1)",
            ErrorKind::NoMatchingMethod,
            Some("frozenset({1})"),
        ),
        ("'abc'.foo(1 / 0)", ErrorKind::NoMethod, Some("abc")),
        // Functions have no receiver.
        ("foo(1)", ErrorKind::NoFunction, None),
        ("len(1, 2)", ErrorKind::NoMatchingFunction, None),
    ];
    for (expr, kind, receiver) in cases {
        let err = e.eval_str(expr, Value::Null).unwrap_err();
        assert_eq!(err.kind, kind, "{expr}");
        assert_eq!(
            err.receiver().map(Value::py_str).as_deref(),
            receiver,
            "{expr}"
        );
    }
}
