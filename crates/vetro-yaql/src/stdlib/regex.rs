//! `regex`: Python `re` functions over fancy-regex (search semantics,
//! match publication as `{value, start, end}` dicts).

use super::strings::PIECE_BYTES;
use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::params::PyInt;
use crate::iter::LazyIter;
use crate::limits::Run;
use crate::value::{Dict, RegexValue, Render, Str, Value};
use crate::yaql_fn;
use std::rc::Rc;

const IGNORECASE: u32 = 2;
const MULTILINE: u32 = 8;
const DOTALL: u32 = 16;

/// Only patterns that compile within this size (the regex engine's size
/// limit) are kept in the engine's cache ([`crate::regex_cache`]).
const CACHED_SIZE: usize = 1 << 20;

/// Compile (cached in the engine of `run`) a pattern with Python flags.
pub fn compile(run: &Run, pattern: &str, flags: u32) -> Result<Rc<RegexValue>> {
    let cache = run.regex_cache();
    let value = |re| {
        Rc::new(RegexValue {
            pattern: pattern.to_string(),
            flags,
            re,
        })
    };
    if let Some(re) = cache.and_then(|c| c.get(pattern, flags)) {
        return Ok(value(re));
    }
    let mut prefix = String::new();
    if flags & IGNORECASE != 0 {
        prefix.push_str("(?i)");
    }
    if flags & MULTILINE != 0 {
        prefix.push_str("(?m)");
    }
    if flags & DOTALL != 0 {
        prefix.push_str("(?s)");
    }
    let src = format!("{prefix}{}", super::pyre::translate(pattern, flags)?);
    let build = |size: Option<usize>| {
        let mut b = fancy_regex::RegexBuilder::new(&src);
        if let Some(size) = size {
            b.delegate_size_limit(size);
        }
        b.build()
    };
    // A pattern that does not fit the cached size is compiled again with the
    // engine's own limit, and not kept.
    let (re, kept) = match build(Some(CACHED_SIZE)) {
        Ok(re) => (re, true),
        Err(_) => (
            build(None).map_err(|e| {
                Error::new(ErrorKind::Regex, format!("invalid regular expression: {e}"))
            })?,
            false,
        ),
    };
    let re = std::sync::Arc::new(re);
    if let (true, Some(cache)) = (kept, cache) {
        cache.insert(pattern, flags, re.clone());
    }
    Ok(value(re))
}

fn re_err(e: fancy_regex::Error) -> Error {
    Error::new(ErrorKind::Regex, format!("regex error: {e}"))
}

fn char_pos(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

fn group_dict(s: &str, m: Option<fancy_regex::Match>) -> Value {
    let mut d = Dict::new();
    match m {
        Some(m) => {
            d.insert(Value::str("value"), Value::str(m.as_str()));
            d.insert(Value::str("start"), Value::Int(char_pos(s, m.start())));
            d.insert(Value::str("end"), Value::Int(char_pos(s, m.end())));
        }
        None => {
            d.insert(Value::str("value"), Value::Null);
            d.insert(Value::str("start"), Value::Int(-1));
            d.insert(Value::str("end"), Value::Int(-1));
        }
    }
    Value::dict(d)
}

fn publish(re: &RegexValue, s: &str, caps: &fancy_regex::Captures, sel: &Lambda) -> Result<Value> {
    if re.re.capture_names().any(|n| n.is_some()) {
        return Err(Error::value_err(
            "named groups are not supported by match selectors",
        ));
    }
    let args: Vec<Value> = (0..caps.len())
        .map(|i| group_dict(s, caps.get(i)))
        .collect();
    sel.call(&args)
}

fn search(re: &RegexValue, s: &str) -> Result<bool> {
    re.re.is_match(s).map_err(re_err)
}

/// One part of a parsed replacement template.
enum Piece {
    Text(String),
    Group(usize),
}

/// A Python replacement template (`\1`, `\g<name>`, `\g<0>`, escapes),
/// parsed once before any match as `re.sub` does, so a reference to a group
/// the pattern does not have is an error even when nothing matches (with
/// Python's messages and positions).
fn parse_template(template: &str, re: &RegexValue) -> Result<Vec<Piece>> {
    let cs: Vec<char> = template.chars().collect();
    let groups = re.re.captures_len().saturating_sub(1);
    let err =
        |msg: String, pos: usize| Error::new(ErrorKind::Regex, format!("{msg} at position {pos}"));
    let bad_ref = |n: usize, pos: usize| err(format!("invalid group reference {n}"), pos);
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c != '\\' || i + 1 >= cs.len() {
            text.push(c);
            i += 1;
            continue;
        }
        let n = cs[i + 1];
        let group = match n {
            'g' => {
                if cs.get(i + 2) != Some(&'<') {
                    return Err(err("missing <".into(), i + 2));
                }
                let Some(len) = cs[i + 3..].iter().position(|&c| c == '>') else {
                    return Err(err("missing >, unterminated name".into(), i + 3));
                };
                let name: String = cs[i + 3..i + 3 + len].iter().collect();
                if name.is_empty() {
                    return Err(err("missing group name".into(), i + 3));
                }
                let index = if name.chars().all(|c| c.is_ascii_digit()) {
                    let n: usize = name.parse().unwrap_or(usize::MAX);
                    if n > groups {
                        return Err(bad_ref(n, i + 3));
                    }
                    n
                } else if is_identifier(&name) {
                    re.re
                        .capture_names()
                        .position(|x| x == Some(name.as_str()))
                        .ok_or_else(|| {
                            Error::new(ErrorKind::Index, format!("unknown group name '{name}'"))
                        })?
                } else {
                    return Err(err(format!("bad character in group name '{name}'"), i + 3));
                };
                i += 4 + len;
                index
            }
            '1'..='9' => {
                let mut j = i + 2;
                if cs.get(j).is_some_and(|c| c.is_ascii_digit()) {
                    j += 1;
                }
                let digits: String = cs[i + 1..j].iter().collect();
                let n: usize = digits.parse().unwrap_or(0);
                if n > groups {
                    return Err(bad_ref(n, i + 1));
                }
                i = j;
                n
            }
            _ => {
                match n {
                    'n' => text.push('\n'),
                    't' => text.push('\t'),
                    'r' => text.push('\r'),
                    'a' => text.push('\x07'),
                    'b' => text.push('\x08'),
                    'f' => text.push('\x0c'),
                    'v' => text.push('\x0b'),
                    '\\' => text.push('\\'),
                    '0' => {
                        // An octal escape: up to two more octal digits.
                        let mut j = i + 2;
                        while j < cs.len() && j < i + 4 && ('0'..='7').contains(&cs[j]) {
                            j += 1;
                        }
                        let code: String = cs[i + 1..j].iter().collect();
                        let v = u32::from_str_radix(&code, 8).unwrap_or(0);
                        text.push(char::from_u32(v).unwrap_or('\0'));
                        i = j;
                        continue;
                    }
                    c if c.is_ascii_alphabetic() => {
                        return Err(err(format!("bad escape \\{c}"), i));
                    }
                    c => {
                        text.push('\\');
                        text.push(c);
                    }
                }
                i += 2;
                continue;
            }
        };
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Group(group));
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && cs.all(|c| c == '_' || c.is_alphanumeric())
}

/// A parsed template filled in for one match (unmatched groups are empty).
fn expand(pieces: &[Piece], caps: &fancy_regex::Captures) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Group(n) => out.push_str(caps.get(*n).map_or("", |m| m.as_str())),
        }
    }
    out
}

fn replace_with(
    run: &Rc<Run>,
    re: &RegexValue,
    s: &str,
    count: i64,
    mut f: impl FnMut(&fancy_regex::Captures) -> Result<String>,
) -> Result<String> {
    // Each match may put a longer text in its place: the result is held to
    // what the evaluation may build as it grows.
    let mut out = Render::budgeted(run);
    let mut last = 0;
    let mut n = 0;
    for caps in re.re.captures_iter(s) {
        if count > 0 && n >= count {
            break;
        }
        let caps = caps.map_err(re_err)?;
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&s[last..m.start()])?;
        out.push_str(&f(&caps)?)?;
        last = m.end();
        n += 1;
    }
    out.push_str(&s[last..])?;
    Ok(out.finish())
}

/// The first `count` matches (all for 0) replaced by the template `repl`
/// (see [`parse_template`]).
fn replace(run: &Rc<Run>, re: &RegexValue, s: &str, repl: &str, count: i64) -> Result<Value> {
    let repl = parse_template(repl, re)?;
    let out = replace_with(run, re, s, count, |c| Ok(expand(&repl, c)))?;
    Ok(Value::from(out))
}

/// The first `count` matches (all for 0) replaced by the text of what `repl`
/// returns for each (given the match, as `search` publishes it).
fn replace_by(run: &Rc<Run>, re: &RegexValue, s: &str, l: &Lambda, count: i64) -> Result<Value> {
    let out = replace_with(run, re, s, count, |c| {
        publish(re, s, c, l)?.try_to_yaql_string(run)
    })?;
    Ok(Value::from(out))
}

fn split(run: &Run, re: &RegexValue, s: &str, max: i64) -> Result<Value> {
    let mut out = Vec::new();
    let mut last = 0;
    let mut n = 0;
    for caps in re.re.captures_iter(s) {
        if max > 0 && n >= max {
            break;
        }
        let caps = caps.map_err(re_err)?;
        let Some(m) = caps.get(0) else { continue };
        if m.start() == m.end() && m.start() == last && m.start() == 0 && s.is_empty() {
            continue;
        }
        out.push(Value::str(&s[last..m.start()]));
        for i in 1..caps.len() {
            out.push(
                caps.get(i)
                    .map(|g| Value::str(g.as_str()))
                    .unwrap_or(Value::Null),
            );
        }
        last = m.end();
        n += 1;
        if n & 4095 == 0 {
            run.check_bytes(out.len().saturating_mul(PIECE_BYTES))?;
        }
    }
    out.push(Value::str(&s[last..]));
    Ok(Value::list(out))
}

fn escape(run: &Run, s: &str) -> Result<String> {
    let special = "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c";
    // Up to twice as long: escaping an escaped text again doubles it.
    if s.len().saturating_mul(2) >= crate::limits::CHECK_JOIN_BYTES {
        let more = s.chars().filter(|c| special.contains(*c)).count();
        run.check_bytes(s.len().saturating_add(more))?;
    }
    let mut out = String::new();
    for c in s.chars() {
        if special.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(out)
}

fn search_value(re: &RegexValue, s: &str, sel: Option<&Lambda>) -> Result<Value> {
    match re.re.captures(s).map_err(re_err)? {
        None => Ok(Value::Null),
        Some(caps) => match sel {
            Some(l) => publish(re, s, &caps, l),
            None => Ok(Value::str(caps.get(0).map(|m| m.as_str()).unwrap_or(""))),
        },
    }
}

fn search_all(run: &Rc<Run>, re: Rc<RegexValue>, s: Str, sel: Option<Lambda>) -> Result<Value> {
    let mut results = Vec::new();
    for caps in re.re.captures_iter(&s) {
        let caps = caps.map_err(re_err)?;
        results.push(match &sel {
            Some(l) => publish(&re, &s, &caps, l)?,
            None => Value::str(caps.get(0).map(|m| m.as_str()).unwrap_or("")),
        });
    }
    let mut it = results.into_iter();
    Ok(Value::Iter(LazyIter::from_fn(run, move || Ok(it.next()))))
}

pub fn register(r: &Reg) {
    for (name, found) in [("#operator_=~", true), ("#operator_!~", false)] {
        r.add_def(yaql_fn!(Function name, |c| (string: &str, pattern: &str) {
            Ok(search(&*compile(c.run(), pattern, 0)?, string)? == found)
        }));
        r.add_def(
            yaql_fn!(Function name, |_c| (string: &str, regexp: &Rc<RegexValue>) {
                Ok(search(regexp, string)? == found)
            }),
        );
    }
    r.add_def(yaql_fn!(Function "escapeRegex", |c| (string: &str) { escape(c.run(), string) }));
    r.add_def(yaql_fn!(Function "isRegex", |_c| (value: &Value) {
        Ok(matches!(value, Value::Regex(_)))
    }));
    r.add_def(
        yaql_fn!(Method "matches", |_c| (regexp: &Rc<RegexValue>, string: &str) {
            search(regexp, string)
        }),
    );
    r.add_def(
        yaql_fn!(Method "matches", |c| (string: &str, regexp: &str) {
            search(&*compile(c.run(), regexp, 0)?, string)
        }),
    );
    r.add_def(yaql_fn!(Function "regex", |c| (
        pattern: &str,
        ignoreCase: Option<bool> = false,
        multiLine: Option<bool> = false,
        dotAll: Option<bool> = false,
    ) {
        let mut flags = 0;
        for (asked, flag) in [(ignoreCase, IGNORECASE), (multiLine, MULTILINE), (dotAll, DOTALL)] {
            if asked == Some(true) {
                flags |= flag;
            }
        }
        Ok(Value::Regex(compile(c.run(), pattern, flags)?))
    }));
    // `replace`, `replaceBy` and `split` take the regexp and the string in
    // either order.
    r.add_def(yaql_fn!(Method "replace", |c| (regexp: &Rc<RegexValue>, string: &str, repl: &str, count: PyInt = 0) {
        replace(c.run(), regexp, string, repl, count.index()?)
    }));
    r.add_def(yaql_fn!(Method "replace", |c| (string: &str, regexp: &Rc<RegexValue>, repl: &str, count: PyInt = 0) {
        replace(c.run(), regexp, string, repl, count.index()?)
    }));
    r.add_def(yaql_fn!(Method "replaceBy", |c| (regexp: &Rc<RegexValue>, string: &str, repl: &Lambda, count: PyInt = 0) {
        replace_by(c.run(), regexp, string, repl, count.index()?)
    }));
    r.add_def(yaql_fn!(Method "replaceBy", |c| (string: &str, regexp: &Rc<RegexValue>, repl: &Lambda, count: PyInt = 0) {
        replace_by(c.run(), regexp, string, repl, count.index()?)
    }));
    r.add_def(yaql_fn!(Method "search", |_c| (regexp: &Rc<RegexValue>, string: &str, selector: Option<&Lambda> = Null) {
        search_value(regexp, string, selector)
    }));
    r.add_def(yaql_fn!(Method "searchAll", |c| (regexp: &Rc<RegexValue>, string: &Str, selector: Option<&Lambda> = Null) {
        search_all(c.run(), regexp.clone(), string.clone(), selector.cloned())
    }));
    r.add_def(
        yaql_fn!(Method "split", |c| (regexp: &Rc<RegexValue>, string: &str, maxSplit: PyInt = 0) {
            Ok(c.list_result(split(c.run(), regexp, string, maxSplit.index()?)?))
        }),
    );
    r.add_def(
        yaql_fn!(Method "split", |c| (string: &str, regexp: &Rc<RegexValue>, maxSplit: PyInt = 0) {
            Ok(c.list_result(split(c.run(), regexp, string, maxSplit.index()?)?))
        }),
    );
}
