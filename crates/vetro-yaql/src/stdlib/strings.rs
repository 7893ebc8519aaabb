//! `strings`: Python `str` methods under their camelCase YAQL names.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::func::params::{Iterable, Number, PyInt, Rest};
use crate::limits::Run;
use crate::value::{Dict, Render, Value};
use crate::yaql_fn;
use std::rc::Rc;

pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Python slice bounds (`s[start:stop]`) over `len` items.
pub fn slice_bounds(len: usize, start: Option<i64>, stop: Option<i64>) -> (usize, usize) {
    let n = len as i64;
    let fix = |i: i64| -> i64 {
        if i < 0 {
            i.saturating_add(n).max(0)
        } else {
            i.min(n)
        }
    };
    let s = start.map(fix).unwrap_or(0);
    let e = stop.map(fix).unwrap_or(n);
    (s as usize, (e.max(s)) as usize)
}

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// Python `str.find(sub, start, end)` in character positions: a start past
/// the end, or a range shorter than `sub`, finds nothing (even for `''`).
pub fn find(s: &str, sub: &str, start: Option<i64>, end: Option<i64>, rev: bool) -> i64 {
    let cs = chars(s);
    let n = cs.len() as i64;
    let wrap = |i: i64| {
        if i < 0 {
            i.saturating_add(n).max(0)
        } else {
            i.min(n + 1)
        }
    };
    let (a, b) = (start.map_or(0, wrap), end.map_or(n, wrap).min(n));
    let sub: Vec<char> = chars(sub);
    if a > n || b - a < sub.len() as i64 {
        return -1;
    }
    let (a, b) = (a as usize, b as usize);
    let range: Box<dyn Iterator<Item = usize>> = if rev {
        Box::new((a..=b - sub.len()).rev())
    } else {
        Box::new(a..=b - sub.len())
    };
    for i in range {
        if cs[i..i + sub.len()] == sub[..] {
            return i as i64;
        }
    }
    -1
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Bytes one piece of a split string takes at least besides its text: the
/// item, the string's header and its allocation's rounding.
pub const PIECE_BYTES: usize = 64;

/// Called as pieces are collected: every 4096 pieces their size is checked
/// against what the evaluation may build (a string of separators splits
/// into many more bytes than it has).
#[inline]
pub fn check_pieces(run: &Run, pieces: usize) -> Result<()> {
    if pieces & 4095 == 0 && pieces > 0 {
        run.check_bytes(pieces.saturating_mul(PIECE_BYTES))
    } else {
        Ok(())
    }
}

fn collect_pieces<'a>(run: &Run, pieces: impl Iterator<Item = &'a str>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for p in pieces {
        out.push(p.to_string());
        check_pieces(run, out.len())?;
    }
    Ok(out)
}

/// Python `str.split(sep, maxsplit)`.
pub fn py_split(run: &Run, s: &str, sep: Option<&str>, max: i64) -> Result<Vec<String>> {
    match sep {
        Some("") => Err(Error::value_err("empty separator")),
        Some(sep) => {
            if max < 0 {
                collect_pieces(run, s.split(sep))
            } else {
                collect_pieces(run, s.splitn(max as usize + 1, sep))
            }
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_start_matches(is_space);
            while !rest.is_empty() {
                check_pieces(run, out.len())?;
                if max >= 0 && out.len() as i64 == max {
                    out.push(rest.to_string());
                    break;
                }
                match rest.find(is_space) {
                    Some(i) => {
                        out.push(rest[..i].to_string());
                        rest = rest[i..].trim_start_matches(is_space);
                    }
                    None => {
                        out.push(rest.to_string());
                        break;
                    }
                }
            }
            Ok(out)
        }
    }
}

/// Python `str.rsplit(sep, maxsplit)`.
pub fn py_rsplit(run: &Run, s: &str, sep: Option<&str>, max: i64) -> Result<Vec<String>> {
    if max < 0 {
        return py_split(run, s, sep, max);
    }
    match sep {
        Some("") => Err(Error::value_err("empty separator")),
        Some(sep) => {
            let mut v = collect_pieces(run, s.rsplitn(max as usize + 1, sep))?;
            v.reverse();
            Ok(v)
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_end_matches(is_space);
            while !rest.is_empty() {
                check_pieces(run, out.len())?;
                if out.len() as i64 == max {
                    out.push(rest.to_string());
                    break;
                }
                match rest.rfind(is_space) {
                    Some(i) => {
                        let w = rest[i..].trim_start_matches(is_space);
                        out.push(w.to_string());
                        rest = rest[..i].trim_end_matches(is_space);
                    }
                    None => {
                        out.push(rest.to_string());
                        break;
                    }
                }
            }
            out.reverse();
            Ok(out)
        }
    }
}

fn strip<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        Some(cs) => cs.contains(c),
        None => is_space(c),
    };
    let mut r = s;
    if left {
        r = r.trim_start_matches(pred);
    }
    if right {
        r = r.trim_end_matches(pred);
    }
    r
}

/// Python `str.replace(old, new, count)`, refused when the result would be
/// larger than the evaluation may build.
pub fn py_replace(run: &Run, s: &str, old: &str, new: &str, count: i64) -> Result<String> {
    check_replaced_size(run, s, old, new, count)?;
    Ok(replace_unchecked(s, old, new, count))
}

/// Refuse a replacement that grows `s` past what the evaluation may build,
/// before building it (`$s.replace('x', 'xx')` doubles at every step). Only
/// a growing replacement of a large enough result counts its matches.
fn check_replaced_size(run: &Run, s: &str, old: &str, new: &str, count: i64) -> Result<()> {
    if new.len() <= old.len() {
        return Ok(());
    }
    let most = if old.is_empty() {
        s.chars().count().saturating_add(1)
    } else {
        s.len() / old.len()
    };
    let most = if count < 0 {
        most
    } else {
        most.min(count as usize)
    };
    let growth = new.len() - old.len();
    let at_most = s.len().saturating_add(most.saturating_mul(growth));
    if at_most < crate::limits::CHECK_JOIN_BYTES {
        return Ok(());
    }
    let matches = if old.is_empty() {
        most
    } else if count < 0 {
        s.matches(old).count()
    } else {
        s.matches(old).take(most).count()
    };
    run.check_join(s.len().saturating_add(matches.saturating_mul(growth)))
}

fn replace_unchecked(s: &str, old: &str, new: &str, count: i64) -> String {
    if count < 0 {
        if old.is_empty() {
            let mut out = String::from(new);
            for c in s.chars() {
                out.push(c);
                out.push_str(new);
            }
            return out;
        }
        return s.replace(old, new);
    }
    if old.is_empty() {
        let mut out = String::new();
        let mut n = 0;
        for c in s.chars() {
            if n < count {
                out.push_str(new);
                n += 1;
            }
            out.push(c);
        }
        if n < count {
            out.push_str(new);
        }
        return out;
    }
    s.replacen(old, new, count as usize)
}

fn strs(v: Vec<String>) -> Value {
    Value::list(v.into_iter().map(Value::from).collect())
}

fn repeat(c: &crate::func::Call, s: &str, n: i64) -> Result<Value> {
    if n > 0 {
        c.rt().check_bytes(s.len().saturating_mul(n as usize))?;
    }
    Ok(Value::from(if n <= 0 || s.is_empty() {
        String::new()
    } else {
        s.repeat(n as usize)
    }))
}

pub fn register(r: &Reg) {
    operators_and_tests(r);
    searching_and_joining(r);
    transforming(r);
}

/// String operators, comparisons, `concat`, `characters`, `startsWith`/`endsWith`, `hex`.
fn operators_and_tests(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "#operator_*", |c| (left: &str, right: PyInt) {
            repeat(c, left, right.index()?)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_*", |c| (left: PyInt, right: &str) {
            repeat(c, right, left.index()?)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_+", |c| (args: Rest<&str>) { concat(c.run(), &args.0) }),
    );
    for (name, want) in [
        ("#operator_<", [true, false, false]),
        ("#operator_<=", [true, true, false]),
        ("#operator_>", [false, false, true]),
        ("#operator_>=", [false, true, true]),
    ] {
        r.add_def(yaql_fn!(Function name, |_c| (left: &str, right: &str) {
            Ok(match left.cmp(right) {
                std::cmp::Ordering::Less => want[0],
                std::cmp::Ordering::Equal => want[1],
                std::cmp::Ordering::Greater => want[2],
            })
        }));
    }
    r.add_def(
        yaql_fn!(Function "#operator_in", |_c| (left: &str, right: &str) {
            Ok(right.contains(left))
        }),
    );
    r.add_def(yaql_fn!(Function "characters", |_c| (
        digits: Option<bool> = false,
        hexdigits: Option<bool> = false,
        asciiLowercase: Option<bool> = false,
        asciiUppercase: Option<bool> = false,
        asciiLetters: Option<bool> = false,
        letters: Option<bool> = false,
        octdigits: Option<bool> = false,
        punctuation: Option<bool> = false,
        printable: Option<bool> = false,
        lowercase: Option<bool> = false,
        uppercase: Option<bool> = false,
        whitespace: Option<bool> = false,
    ) {
        let asked = [
            digits, hexdigits, asciiLowercase, asciiUppercase, asciiLetters, letters, octdigits,
            punctuation, printable, lowercase, uppercase, whitespace,
        ];
        characters(asked.map(|b| b == Some(true)))
    }));
    r.add_def(yaql_fn!(Function "concat", |c| (args: Rest<&str>) { concat(c.run(), &args.0) }));
    r.add_def(
        yaql_fn!(Method "endsWith", |_c| (string: &str, suffixes: Rest<&str>) {
            Ok(suffixes.0.iter().any(|x| string.ends_with(x)))
        }),
    );
    r.add_def(
        yaql_fn!(Method "startsWith", |_c| (string: &str, prefixes: Rest<&str>) {
            Ok(prefixes.0.iter().any(|x| string.starts_with(x)))
        }),
    );
    r.add_def(yaql_fn!(Function "hex", |_c| (num: Option<Number>) {
        match num.as_deref() {
            Some(Value::Int(i)) => Ok(if *i < 0 {
                format!("-0x{:x}", i.unsigned_abs())
            } else {
                format!("0x{:x}", i)
            }),
            Some(Value::BigInt(b)) => Ok(if b.sign() == num_bigint::Sign::Minus {
                format!("-0x{:x}", -(**b).clone())
            } else {
                format!("0x{:x}", **b)
            }),
            v => Err(Error::type_err(format!(
                "'{}' object cannot be interpreted as an integer",
                v.unwrap_or(&Value::Null).type_name()
            ))),
        }
    }));
}

/// The strings joined, within what the evaluation may build.
fn concat(run: &Run, parts: &[&str]) -> Result<String> {
    run.check_join(parts.iter().map(|x| x.len()).sum())?;
    Ok(parts.concat())
}

/// `characters()`: the characters of the Python `string` constants asked
/// for, each once, in order.
fn characters(asked: [bool; 12]) -> Result<Value> {
    let lower = "abcdefghijklmnopqrstuvwxyz";
    let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    let ws = " \t\n\r\x0b\x0c";
    let sets: [String; 12] = [
        "0123456789".into(),
        "0123456789abcdefABCDEF".into(),
        lower.into(),
        upper.into(),
        format!("{lower}{upper}"),
        String::new(),
        "01234567".into(),
        punct.into(),
        format!("0123456789{lower}{upper}{punct}{ws}"),
        String::new(),
        String::new(),
        ws.into(),
    ];
    let mut out = indexmap::IndexSet::new();
    for (i, s) in sets.iter().enumerate() {
        if asked[i] {
            // Python 3 has no `string.letters`, `lowercase`, `uppercase`.
            if matches!(i, 5 | 9 | 10) {
                return Err(Error::new(
                    ErrorKind::Attribute,
                    "module 'string' has no attribute",
                ));
            }
            out.extend(s.chars());
        }
    }
    Ok(Value::list(
        out.into_iter()
            .map(|c| Value::from(c.to_string()))
            .collect(),
    ))
}

/// `find` within `length` characters from `start`: a negative start counts
/// from the end, a negative length runs to the end.
fn find_in_window(s: &str, sub: &str, start: i64, length: i64, last: bool) -> i64 {
    let n = s.chars().count() as i64;
    let start = if start < 0 {
        start.saturating_add(n)
    } else {
        start
    };
    let length = if length < 0 {
        n.saturating_sub(start)
    } else {
        length
    };
    find(
        s,
        sub,
        Some(start),
        Some(start.saturating_add(length)),
        last,
    )
}

/// `indexOf`, `lastIndexOf`, `isEmpty`, `isString`, `join`, `len`.
fn searching_and_joining(r: &Reg) {
    for (name, last) in [("indexOf", false), ("lastIndexOf", true)] {
        r.add_def(
            yaql_fn!(Method name, |_c| (string: &str, sub: &str, start: PyInt, length: PyInt) {
                Ok(find_in_window(string, sub, start.clamped()?, length.clamped()?, last))
            }),
        );
        r.add_def(
            yaql_fn!(Method name, |_c| (string: &str, sub: &str, start: PyInt = 0) {
                Ok(find(string, sub, Some(start.clamped()?), None, last))
            }),
        );
    }
    r.add_def(yaql_fn!(Both "isEmpty", |_c| (string: Option<&str>, trim: bool = true, chars: Option<&str> = Null) {
        Ok(match string {
            None => true,
            Some(s) if trim => strip(s, chars, true, true).is_empty(),
            Some(s) => s.is_empty(),
        })
    }));
    r.add_def(yaql_fn!(Function "isString", |_c| (arg: &Value) {
        Ok(matches!(arg, Value::Str(_)))
    }));
    r.add_def(
        yaql_fn!(Method "join", |c| (separator: &str, sequence: Iterable) {
            join(c.run(), &sequence.collect(c)?, separator)
        }),
    );
    r.add_def(
        yaql_fn!(Method "join", |c| (sequence: Iterable, separator: &str) {
            join(c.run(), &sequence.collect(c)?, separator)
        }),
    );
    r.add_def(yaql_fn!(Both "len", |_c| (string: &str) { Ok(string.chars().count() as i64) }));
}

/// The items' `str()` joined by `sep`, within what the evaluation may build.
fn join(run: &Rc<Run>, items: &[Value], sep: &str) -> Result<Value> {
    let mut out = Render::budgeted(run);
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep)?;
        }
        v.write_yaql_string(&mut out)?;
    }
    Ok(Value::from(out.finish()))
}

/// Splitting, replacing, case, trimming, `substring`, `str`.
fn transforming(r: &Reg) {
    r.add_def(
        yaql_fn!(Both "norm", |_c| (string: Option<&str>, chars: Option<&str> = Null) {
            Ok(string
                .map(|s| strip(s, chars, true, true))
                .filter(|t| !t.is_empty())
                .map(Value::from)
                .unwrap_or(Value::Null))
        }),
    );
    r.add_def(
        yaql_fn!(Method "replace", |c| (string: &str, old: &str, new: &str, count: PyInt = -1) {
            py_replace(c.run(), string, old, new, count.index()?)
        }),
    );
    r.add_def(
        yaql_fn!(Method "replace", |c| (string: &str, replacements: &Dict, count: PyInt = -1) {
            let mut s = string.to_string();
            for (k, v) in replacements.iter() {
                let (old, new) = (k.try_to_yaql_string(c.run())?, v.try_to_yaql_string(c.run())?);
                s = py_replace(c.run(), &s, &old, &new, count.index()?)?;
            }
            Ok(s)
        }),
    );
    r.add_def(yaql_fn!(Method "rightSplit", |c| (string: &str, separator: Option<&str> = Null, maxSplits: PyInt = -1) {
        Ok(c.list_result(strs(py_rsplit(c.run(), string, separator, maxSplits.index()?)?)))
    }));
    r.add_def(yaql_fn!(Method "split", |c| (string: &str, separator: Option<&str> = Null, maxSplits: PyInt = -1) {
        Ok(c.list_result(strs(py_split(c.run(), string, separator, maxSplits.index()?)?)))
    }));
    r.add_def(yaql_fn!(Function "str", |c| (value: &Value) { value.try_to_yaql_string(c.run()) }));
    r.add_def(
        yaql_fn!(Method "substring", |_c| (string: &str, start: PyInt, length: PyInt = -1) {
            // As the reference: a negative length means the whole string, a
            // negative start counts from the end once, then Python slicing.
            let cs = chars(string);
            let n = cs.len() as i64;
            let (start, length) = (start.clamped()?, length.clamped()?);
            let len = if length < 0 { n } else { length };
            let start = if start < 0 { start.saturating_add(n) } else { start };
            let (s, e) = slice_bounds(cs.len(), Some(start), Some(start.saturating_add(len)));
            Ok(cs[s..e].iter().collect::<String>())
        }),
    );
    r.add_def(yaql_fn!(Method "toCharArray", |c| (string: &str) {
        // One item and one string per character: many times the text's size.
        if string.len().saturating_mul(PIECE_BYTES) >= crate::limits::CHECK_JOIN_BYTES {
            c.run().check_bytes(string.chars().count().saturating_mul(PIECE_BYTES))?;
        }
        Ok(Value::list(string.chars().map(|c| Value::from(c.to_string())).collect()))
    }));
    r.add_def(yaql_fn!(Method "toLower", |_c| (string: &str) { Ok(string.to_lowercase()) }));
    r.add_def(yaql_fn!(Method "toUpper", |_c| (string: &str) { Ok(string.to_uppercase()) }));
    for (name, left, right) in [
        ("trim", true, true),
        ("trimLeft", true, false),
        ("trimRight", false, true),
    ] {
        r.add_def(
            yaql_fn!(Method name, |_c| (string: &str, chars: Option<&str> = Null) {
                Ok(strip(string, chars, left, right))
            }),
        );
    }
}
