//! vetro's safe `format()`: Python-style `{}` / `{0}` / `{name}` fields with
//! format specs, and no attribute or item access. Registered only on request.

use super::Reg;
use crate::error::{Error, Result};
use crate::func::params::{KwArgs, Rest};
use crate::limits::Run;
use crate::value::{float_repr, Render, Value};
use crate::yaql_fn;
use std::rc::Rc;

fn pad(run: &Run, s: String, spec: &Spec) -> Result<String> {
    let Some(width) = spec.width else {
        return Ok(s);
    };
    let len = s.chars().count();
    if len >= width {
        return Ok(s);
    }
    let fill = spec.fill.unwrap_or(' ');
    let n = width - len;
    // The width is the caller's: refuse it before building the padding.
    run.check_join(n.saturating_mul(fill.len_utf8()).saturating_add(s.len()))?;
    Ok(
        match spec.align.unwrap_or(if spec.numeric { '>' } else { '<' }) {
            '>' => format!("{}{}", fill.to_string().repeat(n), s),
            '^' => {
                let l = n / 2;
                format!(
                    "{}{}{}",
                    fill.to_string().repeat(l),
                    s,
                    fill.to_string().repeat(n - l)
                )
            }
            '=' => {
                let (sign, rest) = if s.starts_with('-') || s.starts_with('+') {
                    s.split_at(1)
                } else {
                    ("", s.as_str())
                };
                format!("{}{}{}", sign, fill.to_string().repeat(n), rest)
            }
            _ => format!("{}{}", s, fill.to_string().repeat(n)),
        },
    )
}

#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    width: Option<usize>,
    precision: Option<usize>,
    kind: Option<char>,
    numeric: bool,
}

fn parse_spec(s: &str) -> Result<Spec> {
    let cs: Vec<char> = s.chars().collect();
    let mut sp = Spec::default();
    let mut i = 0;
    if cs.len() >= 2 && "<>^=".contains(cs[1]) {
        sp.fill = Some(cs[0]);
        sp.align = Some(cs[1]);
        i = 2;
    } else if !cs.is_empty() && "<>^=".contains(cs[0]) {
        sp.align = Some(cs[0]);
        i = 1;
    }
    if i < cs.len() && "+- ".contains(cs[i]) {
        sp.sign = Some(cs[i]);
        i += 1;
    }
    if i < cs.len() && cs[i] == '0' {
        sp.fill.get_or_insert('0');
        sp.align.get_or_insert('=');
        i += 1;
    }
    let start = i;
    while i < cs.len() && cs[i].is_ascii_digit() {
        i += 1;
    }
    if i > start {
        sp.width = cs[start..i].iter().collect::<String>().parse().ok();
    }
    if i < cs.len() && cs[i] == '.' {
        i += 1;
        let st = i;
        while i < cs.len() && cs[i].is_ascii_digit() {
            i += 1;
        }
        sp.precision = cs[st..i].iter().collect::<String>().parse().ok();
    }
    if i < cs.len() {
        sp.kind = Some(cs[i]);
        i += 1;
    }
    if i != cs.len() {
        return Err(Error::value_err(format!("Invalid format specifier '{s}'")));
    }
    Ok(sp)
}

fn format_value(run: &Rc<Run>, v: &Value, spec: &str) -> Result<String> {
    let mut sp = parse_spec(spec)?;
    sp.numeric = v.is_number();
    let sign = |s: String, neg: bool, sp: &Spec| -> String {
        if neg {
            format!("-{s}")
        } else {
            match sp.sign {
                Some('+') => format!("+{s}"),
                Some(' ') => format!(" {s}"),
                _ => s,
            }
        }
    };
    let body = match (v, sp.kind) {
        (Value::Int(i), None | Some('d')) => sign(i.unsigned_abs().to_string(), *i < 0, &sp),
        (Value::Int(i), Some('x')) => sign(format!("{:x}", i.unsigned_abs()), *i < 0, &sp),
        (Value::Int(i), Some('X')) => sign(format!("{:X}", i.unsigned_abs()), *i < 0, &sp),
        (Value::Int(i), Some('o')) => sign(format!("{:o}", i.unsigned_abs()), *i < 0, &sp),
        (Value::Int(i), Some('b')) => sign(format!("{:b}", i.unsigned_abs()), *i < 0, &sp),
        (Value::Int(_) | Value::Float(_), Some('f' | 'F' | 'e' | 'E' | '%' | 'g')) => {
            let f = v.as_f64().unwrap_or(0.0);
            let p = sp.precision.unwrap_or(6);
            check_precision(run, p)?;
            let s = match sp.kind {
                Some('e') | Some('E') => {
                    let s = format!("{:.*e}", p, f.abs());
                    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
                    let e: i32 = e.parse().unwrap_or(0);
                    let out = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
                    if sp.kind == Some('E') {
                        out.to_uppercase()
                    } else {
                        out
                    }
                }
                Some('%') => format!("{:.*}%", p, f.abs() * 100.0),
                Some('g') => float_repr(f.abs()),
                _ => format!("{:.*}", p, f.abs()),
            };
            sign(s, f < 0.0, &sp)
        }
        (Value::Float(f), None) => match sp.precision {
            Some(p) => {
                check_precision(run, p)?;
                sign(format!("{:.*}", p, f.abs()), *f < 0.0, &sp)
            }
            None => sign(float_repr(f.abs()), *f < 0.0, &sp),
        },
        (Value::Str(s), None | Some('s')) => match sp.precision {
            Some(p) => s.chars().take(p).collect(),
            None => s.to_string(),
        },
        (_, None) => v.try_to_yaql_string(run)?,
        (_, Some(k)) => {
            return Err(Error::value_err(format!(
                "Unknown format code '{k}' for object of type '{}'",
                v.type_name()
            )))
        }
    };
    pad(run, body, &sp)
}

/// Refuse a precision whose digits alone pass what the evaluation may build
/// (a float has at most 309 digits before its point).
fn check_precision(run: &Run, p: usize) -> Result<()> {
    run.check_join(p.saturating_add(320))
}

/// Format `template` with positional and keyword values, within what the
/// evaluation of `run` may build.
pub fn format(
    run: &Rc<Run>,
    template: &str,
    args: &[Value],
    kw: &[(Rc<str>, Value)],
) -> Result<String> {
    let mut out = Render::budgeted(run);
    let cs: Vec<char> = template.chars().collect();
    let mut i = 0;
    let mut auto = 0usize;
    while i < cs.len() {
        let c = cs[i];
        if c == '{' {
            if cs.get(i + 1) == Some(&'{') {
                out.push('{')?;
                i += 2;
                continue;
            }
            let end = cs[i..]
                .iter()
                .position(|&c| c == '}')
                .ok_or_else(|| Error::value_err("Single '{' encountered in format string"))?;
            let field: String = cs[i + 1..i + end].iter().collect();
            let (name, spec) = match field.split_once(':') {
                Some((n, s)) => (n.to_string(), s.to_string()),
                None => (field.clone(), String::new()),
            };
            let (name, conv) = match name.split_once('!') {
                Some((n, c)) => (n.to_string(), Some(c.to_string())),
                None => (name, None),
            };
            if name.contains('.') || name.contains('[') {
                return Err(Error::value_err(
                    "attribute and item access are not allowed in format()",
                ));
            }
            let v = if name.is_empty() {
                let v = args.get(auto).ok_or_else(|| {
                    Error::new(
                        crate::error::ErrorKind::Index,
                        "Replacement index out of range",
                    )
                })?;
                auto += 1;
                v.clone()
            } else if let Ok(n) = name.parse::<usize>() {
                args.get(n).cloned().ok_or_else(|| {
                    Error::new(
                        crate::error::ErrorKind::Index,
                        "Replacement index out of range",
                    )
                })?
            } else {
                kw.iter()
                    .find(|(k, _)| **k == *name)
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| {
                        // Python's KeyError, written as it prints: the key's repr.
                        Error::new(crate::error::ErrorKind::Key, crate::value::str_repr(&name))
                    })?
            };
            let v = match conv.as_deref() {
                Some("r") => Value::from(v.try_repr(run)?),
                Some("s") => Value::from(v.try_to_yaql_string(run)?),
                _ => v,
            };
            out.push_str(&format_value(run, &v, &spec)?)?;
            i += end + 1;
        } else if c == '}' {
            if cs.get(i + 1) == Some(&'}') {
                out.push('}')?;
                i += 2;
                continue;
            }
            return Err(Error::value_err("Single '}' encountered in format string"));
        } else {
            out.push(c)?;
            i += 1;
        }
    }
    Ok(out.finish())
}

pub fn register(r: &Reg) {
    r.add_def(
        yaql_fn!(Both "format", |c| (format: &str, args: Rest<Value>, kwargs: KwArgs) {
            let kw: Vec<_> = kwargs.0.iter().map(|(k, v)| (k.clone(), v.val().clone())).collect();
            self::format(c.run(), format, &args.0, &kw)
        }),
    );
}
