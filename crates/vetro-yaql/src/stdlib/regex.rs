//! `regex`: Python `re` functions over fancy-regex (search semantics,
//! match publication as `{value, start, end}` dicts).

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::iter::LazyIter;
use crate::value::{Dict, RegexValue, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

const IGNORECASE: u32 = 2;
const MULTILINE: u32 = 8;
const DOTALL: u32 = 16;

thread_local! {
    static CACHE: RefCell<HashMap<(String, u32), Rc<RegexValue>>> = RefCell::new(HashMap::new());
}

/// Translate Python-only syntax to fancy-regex syntax.
fn translate(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('Z') => out.push_str("\\z"),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Compile (cached) a pattern with Python flags.
pub fn compile(pattern: &str, flags: u32) -> Result<Rc<RegexValue>> {
    if let Some(r) = CACHE.with(|c| c.borrow().get(&(pattern.to_string(), flags)).cloned()) {
        return Ok(r);
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
    let src = format!("{prefix}{}", translate(pattern));
    let re = fancy_regex::Regex::new(&src)
        .map_err(|e| Error::new(ErrorKind::Regex, format!("invalid regular expression: {e}")))?;
    let v = Rc::new(RegexValue {
        pattern: pattern.to_string(),
        flags,
        re,
    });
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 1000 {
            c.clear();
        }
        c.insert((pattern.to_string(), flags), v.clone());
    });
    Ok(v)
}

fn re_err(e: fancy_regex::Error) -> Error {
    Error::new(ErrorKind::Regex, format!("regex error: {e}"))
}

fn regex_of(v: &Value) -> Result<Rc<RegexValue>> {
    match v {
        Value::Regex(r) => Ok(r.clone()),
        Value::Str(s) => compile(s, 0),
        _ => Err(Error::type_err("pattern expected")),
    }
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

/// Python replacement template (`\1`, `\g<name>`) expanded for one match.
fn expand(template: &str, caps: &fancy_regex::Captures, re: &RegexValue) -> Result<String> {
    let mut out = String::new();
    let cs: Vec<char> = template.chars().collect();
    let mut i = 0;
    let group = |g: &str| -> Result<String> {
        let m = match g.parse::<usize>() {
            Ok(n) => {
                if n >= caps.len() {
                    return Err(Error::new(
                        ErrorKind::Regex,
                        format!("invalid group reference {n}"),
                    ));
                }
                caps.get(n)
            }
            Err(_) => {
                if !re.re.capture_names().any(|x| x == Some(g)) {
                    return Err(Error::new(
                        ErrorKind::Index,
                        format!("unknown group name '{g}'"),
                    ));
                }
                caps.name(g)
            }
        };
        Ok(m.map(|m| m.as_str().to_string()).unwrap_or_default())
    };
    while i < cs.len() {
        let c = cs[i];
        if c == '\\' && i + 1 < cs.len() {
            let n = cs[i + 1];
            if n.is_ascii_digit() {
                let mut j = i + 1;
                while j < cs.len() && j < i + 3 && cs[j].is_ascii_digit() {
                    j += 1;
                }
                let g: String = cs[i + 1..j].iter().collect();
                out.push_str(&group(&g)?);
                i = j;
                continue;
            }
            if n == 'g' && cs.get(i + 2) == Some(&'<') {
                if let Some(end) = cs[i + 3..].iter().position(|&c| c == '>') {
                    let g: String = cs[i + 3..i + 3 + end].iter().collect();
                    out.push_str(&group(&g)?);
                    i = i + 4 + end;
                    continue;
                }
            }
            let esc = match n {
                'n' => Some('\n'),
                't' => Some('\t'),
                'r' => Some('\r'),
                '\\' => Some('\\'),
                _ => None,
            };
            match esc {
                Some(e) => out.push(e),
                None => {
                    out.push('\\');
                    out.push(n);
                }
            }
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

fn replace_with(
    re: &RegexValue,
    s: &str,
    count: i64,
    mut f: impl FnMut(&fancy_regex::Captures) -> Result<String>,
) -> Result<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut n = 0;
    for caps in re.re.captures_iter(s) {
        if count > 0 && n >= count {
            break;
        }
        let caps = caps.map_err(re_err)?;
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&s[last..m.start()]);
        out.push_str(&f(&caps)?);
        last = m.end();
        n += 1;
    }
    out.push_str(&s[last..]);
    Ok(out)
}

fn split(re: &RegexValue, s: &str, max: i64) -> Result<Value> {
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
    }
    out.push(Value::str(&s[last..]));
    Ok(Value::list(out))
}

fn escape(s: &str) -> String {
    let special = "()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c";
    let mut out = String::new();
    for c in s.chars() {
        if special.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
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

fn search_all(re: Rc<RegexValue>, s: Rc<str>, sel: Option<Lambda>) -> Result<Value> {
    let mut results = Vec::new();
    for caps in re.re.captures_iter(&s) {
        let caps = caps.map_err(re_err)?;
        results.push(match &sel {
            Some(l) => publish(&re, &s, &caps, l)?,
            None => Value::str(caps.get(0).map(|m| m.as_str()).unwrap_or("")),
        });
    }
    let mut it = results.into_iter();
    Ok(Value::Iter(LazyIter::from_fn(move || Ok(it.next()))))
}

pub fn register(r: &Reg) {
    r.f("#operator_=~", "string:String, pattern:String", |_, a| {
        Ok(Value::Bool(search(&*compile(a.str(1), 0)?, a.str(0))?))
    });
    r.f("#operator_=~", "string:String, regexp:Pattern", |_, a| {
        Ok(Value::Bool(search(&*regex_of(a.v(1))?, a.str(0))?))
    });
    r.f("#operator_!~", "string:String, pattern:String", |_, a| {
        Ok(Value::Bool(!search(&*compile(a.str(1), 0)?, a.str(0))?))
    });
    r.f("#operator_!~", "string:String, regexp:Pattern", |_, a| {
        Ok(Value::Bool(!search(&*regex_of(a.v(1))?, a.str(0))?))
    });
    r.f("escapeRegex", "string:String", |_, a| {
        Ok(Value::from(escape(a.str(0))))
    });
    r.f("isRegex", "value:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::Regex(_))))
    });
    r.m("matches", "regexp:Pattern, string:String", |_, a| {
        Ok(Value::Bool(search(&*regex_of(a.v(0))?, a.str(1))?))
    });
    r.m("matches", "string:String, regexp:String", |_, a| {
        Ok(Value::Bool(search(&*compile(a.str(1), 0)?, a.str(0))?))
    });
    r.f(
        "regex",
        "pattern:String, ignoreCase:bool?=false, multiLine:bool?=false, dotAll:bool?=false",
        |_, a| {
            let mut flags = 0;
            if a.v(1).truthy() {
                flags |= IGNORECASE;
            }
            if a.v(2).truthy() {
                flags |= MULTILINE;
            }
            if a.v(3).truthy() {
                flags |= DOTALL;
            }
            Ok(Value::Regex(compile(a.str(0), flags)?))
        },
    );
    r.m(
        "replace",
        "regexp:Pattern, string:String, repl:String, count:int=0",
        |_, a| {
            let re = regex_of(a.v(0))?;
            let repl = a.str(2).to_string();
            Ok(Value::from(replace_with(&re, a.str(1), a.int(3), |c| {
                expand(&repl, c, &re)
            })?))
        },
    );
    r.m(
        "replace",
        "string:String, regexp:Pattern, repl:String, count:int=0",
        |_, a| {
            let re = regex_of(a.v(1))?;
            let repl = a.str(2).to_string();
            Ok(Value::from(replace_with(&re, a.str(0), a.int(3), |c| {
                expand(&repl, c, &re)
            })?))
        },
    );
    r.m(
        "replaceBy",
        "regexp:Pattern, string:String, repl:Lambda, count:int=0",
        |_, a| {
            let re = regex_of(a.v(0))?;
            let s = a.str(1).to_string();
            let l = a
                .lam(2)
                .cloned()
                .ok_or_else(|| Error::type_err("lambda expected"))?;
            Ok(Value::from(replace_with(&re, &s, a.int(3), |c| {
                Ok(publish(&re, &s, c, &l)?.to_yaql_string())
            })?))
        },
    );
    r.m(
        "replaceBy",
        "string:String, regexp:Pattern, repl:Lambda, count:int=0",
        |_, a| {
            let re = regex_of(a.v(1))?;
            let s = a.str(0).to_string();
            let l = a
                .lam(2)
                .cloned()
                .ok_or_else(|| Error::type_err("lambda expected"))?;
            Ok(Value::from(replace_with(&re, &s, a.int(3), |c| {
                Ok(publish(&re, &s, c, &l)?.to_yaql_string())
            })?))
        },
    );
    r.m(
        "search",
        "regexp:Pattern, string:String, selector:Lambda=null",
        |_, a| search_value(&*regex_of(a.v(0))?, a.str(1), a.lam(2)),
    );
    r.m(
        "searchAll",
        "regexp:Pattern, string:String, selector:Lambda=null",
        |_, a| search_all(regex_of(a.v(0))?, Rc::from(a.str(1)), a.lam(2).cloned()),
    );
    r.m(
        "split",
        "regexp:Pattern, string:String, maxSplit:int=0",
        |_, a| split(&*regex_of(a.v(0))?, a.str(1), a.int(2)),
    );
    r.m(
        "split",
        "string:String, regexp:Pattern, maxSplit:int=0",
        |_, a| split(&*regex_of(a.v(1))?, a.str(0), a.int(2)),
    );
}
