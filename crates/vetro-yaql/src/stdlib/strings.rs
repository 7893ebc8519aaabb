//! `strings`: Python `str` methods under their camelCase YAQL names.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::value::{Render, Value};

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
pub fn check_pieces(pieces: usize) -> Result<()> {
    if pieces & 4095 == 0 && pieces > 0 {
        crate::limits::check_bytes(pieces.saturating_mul(PIECE_BYTES))
    } else {
        Ok(())
    }
}

fn collect_pieces<'a>(pieces: impl Iterator<Item = &'a str>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for p in pieces {
        out.push(p.to_string());
        check_pieces(out.len())?;
    }
    Ok(out)
}

/// Python `str.split(sep, maxsplit)`.
pub fn py_split(s: &str, sep: Option<&str>, max: i64) -> Result<Vec<String>> {
    match sep {
        Some("") => Err(Error::value_err("empty separator")),
        Some(sep) => {
            if max < 0 {
                collect_pieces(s.split(sep))
            } else {
                collect_pieces(s.splitn(max as usize + 1, sep))
            }
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_start_matches(is_space);
            while !rest.is_empty() {
                check_pieces(out.len())?;
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
pub fn py_rsplit(s: &str, sep: Option<&str>, max: i64) -> Result<Vec<String>> {
    if max < 0 {
        return py_split(s, sep, max);
    }
    match sep {
        Some("") => Err(Error::value_err("empty separator")),
        Some(sep) => {
            let mut v = collect_pieces(s.rsplitn(max as usize + 1, sep))?;
            v.reverse();
            Ok(v)
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_end_matches(is_space);
            while !rest.is_empty() {
                check_pieces(out.len())?;
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
pub fn py_replace(s: &str, old: &str, new: &str, count: i64) -> Result<String> {
    check_replaced_size(s, old, new, count)?;
    Ok(replace_unchecked(s, old, new, count))
}

/// Refuse a replacement that grows `s` past what the evaluation may build,
/// before building it (`$s.replace('x', 'xx')` doubles at every step). Only
/// a growing replacement of a large enough result counts its matches.
fn check_replaced_size(s: &str, old: &str, new: &str, count: i64) -> Result<()> {
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
    crate::limits::check_join(s.len().saturating_add(matches.saturating_mul(growth)))
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

fn opt_str(v: &Value) -> Option<&str> {
    v.as_str()
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
    r.f("#operator_*", "left:String, right:int", |c, a| {
        repeat(c, a.str(0), a.int(1)?)
    });
    r.f("#operator_*", "left:int, right:String", |c, a| {
        repeat(c, a.str(1), a.int(0)?)
    });
    r.f("#operator_+", "*args:String", |_, a| {
        crate::limits::check_join(a.rest.iter().map(|x| x.str().len()).sum())?;
        Ok(Value::from(
            a.rest.iter().map(|x| x.str()).collect::<String>(),
        ))
    });
    for (name, want) in [
        ("#operator_<", [true, false, false]),
        ("#operator_<=", [true, true, false]),
        ("#operator_>", [false, false, true]),
        ("#operator_>=", [false, true, true]),
    ] {
        r.f(name, "left:String, right:String", move |_, a| {
            Ok(Value::Bool(match a.str(0).cmp(a.str(1)) {
                std::cmp::Ordering::Less => want[0],
                std::cmp::Ordering::Equal => want[1],
                std::cmp::Ordering::Greater => want[2],
            }))
        });
    }
    r.f("#operator_in", "left:String, right:String", |_, a| {
        Ok(Value::Bool(a.str(1).contains(a.str(0))))
    });
    r.f(
        "characters",
        "digits:bool?=false, hexdigits:bool?=false, asciiLowercase:bool?=false, asciiUppercase:bool?=false, asciiLetters:bool?=false, letters:bool?=false, octdigits:bool?=false, punctuation:bool?=false, printable:bool?=false, lowercase:bool?=false, uppercase:bool?=false, whitespace:bool?=false",
        |_, a| {
            let lower = "abcdefghijklmnopqrstuvwxyz";
            let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
            let punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
            let ws = " \t\n\r\x0b\x0c";
            let sets: [(usize, String); 12] = [
                (0, "0123456789".into()),
                (1, "0123456789abcdefABCDEF".into()),
                (2, lower.into()),
                (3, upper.into()),
                (4, format!("{lower}{upper}")),
                (5, String::new()),
                (6, "01234567".into()),
                (7, punct.into()),
                (8, format!("0123456789{lower}{upper}{punct}{ws}")),
                (9, String::new()),
                (10, String::new()),
                (11, ws.into()),
            ];
            let mut out = indexmap::IndexSet::new();
            for (i, s) in sets {
                if a.v(i).truthy() {
                    if matches!(i, 5 | 9 | 10) {
                        return Err(Error::new(
                            ErrorKind::Attribute,
                            "module 'string' has no attribute",
                        ));
                    }
                    for c in s.chars() {
                        out.insert(c);
                    }
                }
            }
            Ok(Value::list(out.into_iter().map(|c| Value::from(c.to_string())).collect()))
        },
    );
    r.f("concat", "*args:String", |_, a| {
        crate::limits::check_join(a.rest.iter().map(|x| x.str().len()).sum())?;
        Ok(Value::from(
            a.rest.iter().map(|x| x.str()).collect::<String>(),
        ))
    });
    r.m("endsWith", "string:String, *suffixes:String", |_, a| {
        let s = a.str(0);
        Ok(Value::Bool(a.rest.iter().any(|x| s.ends_with(x.str()))))
    });
    r.m("startsWith", "string:String, *prefixes:String", |_, a| {
        let s = a.str(0);
        Ok(Value::Bool(a.rest.iter().any(|x| s.starts_with(x.str()))))
    });
    r.f("hex", "num:Number?", |_, a| match a.v(0) {
        Value::Int(i) => Ok(Value::from(if *i < 0 {
            format!("-0x{:x}", i.unsigned_abs())
        } else {
            format!("0x{:x}", i)
        })),
        Value::BigInt(b) => Ok(Value::from(if b.sign() == num_bigint::Sign::Minus {
            format!("-0x{:x}", -(**b).clone())
        } else {
            format!("0x{:x}", **b)
        })),
        v => Err(Error::type_err(format!(
            "'{}' object cannot be interpreted as an integer",
            v.type_name()
        ))),
    });
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
    r.m(
        "indexOf",
        "string:String, sub:String, start:int, length:int",
        |_, a| {
            let (s, sub) = (a.str(0), a.str(1));
            Ok(Value::Int(find_in_window(
                s,
                sub,
                a.clamped(2)?,
                a.clamped(3)?,
                false,
            )))
        },
    );
    r.m(
        "indexOf",
        "string:String, sub:String, start:int=0",
        |_, a| {
            Ok(Value::Int(find(
                a.str(0),
                a.str(1),
                Some(a.clamped(2)?),
                None,
                false,
            )))
        },
    );
    r.m(
        "lastIndexOf",
        "string:String, sub:String, start:int, length:int",
        |_, a| {
            let (s, sub) = (a.str(0), a.str(1));
            Ok(Value::Int(find_in_window(
                s,
                sub,
                a.clamped(2)?,
                a.clamped(3)?,
                true,
            )))
        },
    );
    r.m(
        "lastIndexOf",
        "string:String, sub:String, start:int=0",
        |_, a| {
            Ok(Value::Int(find(
                a.str(0),
                a.str(1),
                Some(a.clamped(2)?),
                None,
                true,
            )))
        },
    );
    r.mf(
        "isEmpty",
        "string:String?, trim:bool=true, chars:String?=null",
        |_, a| {
            Ok(Value::Bool(match a.v(0) {
                Value::Null => true,
                Value::Str(s) => {
                    if a.v(1).truthy() {
                        strip(s, opt_str(a.v(2)), true, true).is_empty()
                    } else {
                        s.is_empty()
                    }
                }
                _ => false,
            }))
        },
    );
    r.f("isString", "arg:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::Str(_))))
    });
    r.m("join", "separator:String, sequence:Iterable", |c, a| {
        join(&c.collect(a.v(1))?, a.str(0))
    });
    r.m("join", "sequence:Iterable, separator:String", |c, a| {
        join(&c.collect(a.v(0))?, a.str(1))
    });
    r.mf("len", "string:String", |_, a| {
        Ok(Value::Int(a.str(0).chars().count() as i64))
    });
}

/// The items' `str()` joined by `sep`, within what the evaluation may build.
fn join(items: &[Value], sep: &str) -> Result<Value> {
    let mut out = Render::budgeted();
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
    r.mf(
        "norm",
        "string:String?, chars:String?=null",
        |_, a| match a.v(0) {
            Value::Str(s) => {
                let t = strip(s, opt_str(a.v(1)), true, true);
                Ok(if t.is_empty() {
                    Value::Null
                } else {
                    Value::from(t)
                })
            }
            _ => Ok(Value::Null),
        },
    );
    r.m(
        "replace",
        "string:String, old:String, new:String, count:int=-1",
        |_, a| {
            Ok(Value::from(py_replace(
                a.str(0),
                a.str(1),
                a.str(2),
                a.int(3)?,
            )?))
        },
    );
    r.m(
        "replace",
        "string:String, replacements:Mapping, count:int=-1",
        |_, a| {
            let mut s = a.str(0).to_string();
            if let Value::Dict(d) = a.v(1) {
                for (k, v) in d.iter() {
                    let (old, new) = (k.try_to_yaql_string()?, v.try_to_yaql_string()?);
                    s = py_replace(&s, &old, &new, a.int(2)?)?;
                }
            }
            Ok(Value::from(s))
        },
    );
    r.m(
        "rightSplit",
        "string:String, separator:String?=null, maxSplits:int=-1",
        |c, a| Ok(c.list_result(strs(py_rsplit(a.str(0), opt_str(a.v(1)), a.int(2)?)?))),
    );
    r.m(
        "split",
        "string:String, separator:String?=null, maxSplits:int=-1",
        |c, a| Ok(c.list_result(strs(py_split(a.str(0), opt_str(a.v(1)), a.int(2)?)?))),
    );
    r.f("str", "value:any", |_, a| {
        Ok(Value::from(a.v(0).try_to_yaql_string()?))
    });
    r.m(
        "substring",
        "string:String, start:int, length:int=-1",
        |_, a| {
            // As the reference: a negative length means the whole string, a
            // negative start counts from the end once, then Python slicing.
            let cs = chars(a.str(0));
            let n = cs.len() as i64;
            let len = if a.clamped(2)? < 0 { n } else { a.clamped(2)? };
            let start = if a.clamped(1)? < 0 {
                a.clamped(1)?.saturating_add(n)
            } else {
                a.clamped(1)?
            };
            let (s, e) = slice_bounds(cs.len(), Some(start), Some(start.saturating_add(len)));
            Ok(Value::from(cs[s..e].iter().collect::<String>()))
        },
    );
    r.m("toCharArray", "string:String", |_, a| {
        // One item and one string per character: many times the text's size.
        let s = a.str(0);
        if s.len().saturating_mul(PIECE_BYTES) >= crate::limits::CHECK_JOIN_BYTES {
            crate::limits::check_bytes(s.chars().count().saturating_mul(PIECE_BYTES))?;
        }
        Ok(Value::list(
            a.str(0)
                .chars()
                .map(|c| Value::from(c.to_string()))
                .collect(),
        ))
    });
    r.m("toLower", "string:String", |_, a| {
        Ok(Value::from(a.str(0).to_lowercase()))
    });
    r.m("toUpper", "string:String", |_, a| {
        Ok(Value::from(a.str(0).to_uppercase()))
    });
    r.m("trim", "string:String, chars:String?=null", |_, a| {
        Ok(Value::from(strip(a.str(0), opt_str(a.v(1)), true, true)))
    });
    r.m("trimLeft", "string:String, chars:String?=null", |_, a| {
        Ok(Value::from(strip(a.str(0), opt_str(a.v(1)), true, false)))
    });
    r.m("trimRight", "string:String, chars:String?=null", |_, a| {
        Ok(Value::from(strip(a.str(0), opt_str(a.v(1)), false, true)))
    });
}
