//! `math`: arithmetic with Python's int/float rules (unbounded ints, floor
//! division), bit operations, conversions, `random`.

use super::int_work::{self, words};
use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::func::params::{Number, PyInt};
use crate::func::{IntDirect, IntOutcome, SharedDef};
use crate::limits::Run;
use crate::value::Value;
use crate::yaql_fn;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};
use vetro_pycompat::int::MAX_INT_DIGITS;

fn big(v: &Value) -> BigInt {
    v.to_bigint().unwrap_or_default()
}

fn float_of(v: &Value) -> Result<f64> {
    v.as_f64().ok_or_else(|| Error::type_err("number expected"))
}

fn is_float(a: &Value, b: &Value) -> bool {
    matches!(a, Value::Float(_)) || matches!(b, Value::Float(_))
}

fn int_overflow() -> Error {
    Error::new(ErrorKind::Overflow, "int too large to convert to float")
}

fn fl(a: &Value) -> Result<f64> {
    let f = float_of(a)?;
    if f.is_infinite() && !matches!(a, Value::Float(_)) {
        return Err(int_overflow());
    }
    Ok(f)
}

pub fn add(a: &Value, b: &Value) -> Result<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(match x.checked_add(*y) {
            Some(r) => Value::Int(r),
            None => Value::from_bigint(BigInt::from(*x) + *y),
        });
    }
    if is_float(a, b) {
        return Ok(Value::Float(fl(a)? + fl(b)?));
    }
    Ok(Value::from_bigint(big(a) + big(b)))
}

pub fn sub(a: &Value, b: &Value) -> Result<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(match x.checked_sub(*y) {
            Some(r) => Value::Int(r),
            None => Value::from_bigint(BigInt::from(*x) - *y),
        });
    }
    if is_float(a, b) {
        return Ok(Value::Float(fl(a)? - fl(b)?));
    }
    Ok(Value::from_bigint(big(a) - big(b)))
}

/// `*`; big-integer work is charged to `run`.
pub fn mul(run: Option<&Run>, a: &Value, b: &Value) -> Result<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(match x.checked_mul(*y) {
            Some(r) => Value::Int(r),
            None => Value::from_bigint(BigInt::from(*x) * *y),
        });
    }
    if is_float(a, b) {
        return Ok(Value::Float(fl(a)? * fl(b)?));
    }
    let (x, y) = (big(a), big(b));
    if !x.is_zero() && !y.is_zero() {
        check_int_bits((x.bits() + y.bits()).saturating_sub(1))?;
        int_work::charge(run, int_work::mul(words(&x), words(&y)))?;
    }
    Ok(Value::from_bigint(x * y))
}

/// `/`: floor division for two ints, true division otherwise.
pub fn div(run: Option<&Run>, a: &Value, b: &Value) -> Result<Value> {
    if is_float(a, b) {
        let y = fl(b)?;
        if y == 0.0 {
            return Err(Error::new(
                ErrorKind::ZeroDivision,
                "float division by zero",
            ));
        }
        return Ok(Value::Float(fl(a)? / y));
    }
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        if *y == 0 {
            return Err(Error::new(
                ErrorKind::ZeroDivision,
                "integer division or modulo by zero",
            ));
        }
        if !(*x == i64::MIN && *y == -1) {
            let mut q = x / y;
            if x % y != 0 && ((*x < 0) != (*y < 0)) {
                q -= 1;
            }
            return Ok(Value::Int(q));
        }
    }
    let y = big(b);
    if y.is_zero() {
        return Err(Error::new(
            ErrorKind::ZeroDivision,
            "integer division or modulo by zero",
        ));
    }
    let x = big(a);
    int_work::charge(run, int_work::div(words(&x), words(&y)))?;
    Ok(Value::from_bigint(x.div_floor(&y)))
}

/// Python `%`.
pub fn modulo(run: Option<&Run>, a: &Value, b: &Value) -> Result<Value> {
    if is_float(a, b) {
        let (x, y) = (fl(a)?, fl(b)?);
        if y == 0.0 {
            return Err(Error::new(ErrorKind::ZeroDivision, "float modulo"));
        }
        let mut r = x % y;
        if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
            r += y;
        }
        // Python gives a zero remainder the divisor's sign (`1 % -0.5` is -0.0).
        if r == 0.0 {
            r = 0.0f64.copysign(y);
        }
        return Ok(Value::Float(r));
    }
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        if *y == 0 {
            return Err(Error::new(
                ErrorKind::ZeroDivision,
                "integer modulo by zero",
            ));
        }
        if let Some(r) = x.checked_rem(*y) {
            let r = if r != 0 && ((r < 0) != (*y < 0)) {
                r + y
            } else {
                r
            };
            return Ok(Value::Int(r));
        }
    }
    let y = big(b);
    if y.is_zero() {
        return Err(Error::new(
            ErrorKind::ZeroDivision,
            "integer modulo by zero",
        ));
    }
    let x = big(a);
    int_work::charge(run, int_work::div(words(&x), words(&y)))?;
    Ok(Value::from_bigint(x.mod_floor(&y)))
}

/// The inverse of `a` modulo `m` (`m` > 0), as Python's `pow(a, -1, m)`.
fn mod_inverse(run: Option<&Run>, a: &BigInt, m: &BigInt) -> Result<BigInt> {
    int_work::charge(
        run,
        int_work::div(words(a), words(m)) + int_work::gcd(words(m)),
    )?;
    let g = a.mod_floor(m).extended_gcd(m);
    if !g.gcd.is_one() {
        return Err(Error::value_err(
            "base is not invertible for the given modulus",
        ));
    }
    Ok(g.x.mod_floor(m))
}

pub fn neg(a: &Value) -> Result<Value> {
    Ok(match a {
        Value::Int(x) => match x.checked_neg() {
            Some(r) => Value::Int(r),
            None => Value::from_bigint(-BigInt::from(*x)),
        },
        Value::Float(f) => Value::Float(-f),
        _ => Value::from_bigint(-big(a)),
    })
}

pub fn pow(run: Option<&Run>, a: &Value, b: &Value, m: Option<&Value>) -> Result<Value> {
    if let Some(m) = m {
        if is_float(a, b) || matches!(m, Value::Float(_)) {
            return Err(Error::type_err(
                "pow() 3rd argument not allowed unless all arguments are integers",
            ));
        }
        let mm = big(m);
        if mm.is_zero() {
            return Err(Error::value_err("pow() 3rd argument cannot be 0"));
        }
        let e = big(b);
        let modulus = mm.abs();
        // A negative exponent raises the modular inverse (Python 3.8+).
        let (base, e) = if e.is_negative() {
            (mod_inverse(run, &big(a), &modulus)?, -e)
        } else {
            (big(a), e)
        };
        int_work::charge(
            run,
            int_work::div(words(&base), words(&modulus))
                + int_work::modpow(e.bits(), words(&modulus)),
        )?;
        let r = base.modpow(&e, &modulus);
        let r = if !r.is_zero() && mm.is_negative() {
            r + mm
        } else {
            r
        };
        return Ok(Value::from_bigint(r));
    }
    if !is_float(a, b) {
        let e = big(b);
        if !e.is_negative() {
            let Some(e) = e.to_u32() else {
                return Err(Error::new(ErrorKind::Overflow, "exponent too large"));
            };
            let base = big(a);
            if base.bits() > 1 {
                // |a| ** e has floor(e * log2|a|) + 1 bits.
                let bits = (f64::from(e) * log2_abs(&base)) as u64 + 1;
                check_int_bits(bits)?;
                // The last squaring dominates: a product of two halves.
                let half = bits.div_ceil(128);
                int_work::charge(run, int_work::mul(half, half).saturating_mul(2))?;
            }
            return Ok(Value::from_bigint(num_traits::pow(base, e as usize)));
        }
        let base = fl(a)?;
        if base == 0.0 {
            return Err(Error::new(
                ErrorKind::ZeroDivision,
                "0.0 cannot be raised to a negative power",
            ));
        }
        return Ok(Value::Float(base.powf(fl(b)?)));
    }
    let (x, y) = (fl(a)?, fl(b)?);
    if x == 0.0 && y < 0.0 {
        return Err(Error::new(
            ErrorKind::ZeroDivision,
            "0.0 cannot be raised to a negative power",
        ));
    }
    let r = x.powf(y);
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(Error::value_err("math domain error"));
    }
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return Err(Error::new(
            ErrorKind::Overflow,
            "(34, 'Numerical result out of range')",
        ));
    }
    Ok(Value::Float(r))
}

/// The most bits an integer built by `pow()`, `*` or `shiftBitsLeft()` may
/// have: those of the largest integer of [`MAX_INT_DIGITS`] decimal digits.
/// One such operation cannot be interrupted by the evaluation's limits and
/// its time grows faster than its result, and a larger integer could not be
/// written as text anyway.
const MAX_INT_BITS: u64 = (MAX_INT_DIGITS as f64 / std::f64::consts::LOG10_2) as u64 + 1;

/// log2 of |b| (b != 0), from its 53 leading bits.
fn log2_abs(b: &BigInt) -> f64 {
    let shift = b.bits().saturating_sub(53);
    let top = (b.abs() >> shift).to_f64().unwrap_or(f64::INFINITY);
    top.log2() + shift as f64
}

/// Refuse an integer of at least `bits` bits over [`MAX_INT_BITS`], before
/// computing it.
fn check_int_bits(bits: u64) -> Result<()> {
    if bits > MAX_INT_BITS {
        return Err(Error::new(
            ErrorKind::Overflow,
            format!("integer result would have more than {MAX_INT_DIGITS} digits"),
        ));
    }
    Ok(())
}

/// Python's `round(float, ndigits)`: the exact binary value rounded half to
/// even at the decimal position, then read back (CPython's `double_round`).
fn round_float(f: f64, nd: i64) -> Result<f64> {
    // Beyond these every float is returned as is, or becomes a signed zero.
    if !f.is_finite() || f == 0.0 || nd > 323 {
        return Ok(f);
    }
    if nd < -308 {
        return Ok(0.0 * f);
    }
    if nd >= 0 {
        // Rust writes the exact value correctly rounded, ties to even.
        let s = format!("{:.*}", nd as usize, f);
        return Ok(s.parse::<f64>().unwrap_or(f));
    }
    let a = f.abs();
    let whole = BigInt::from_f64(a.trunc()).unwrap_or_default();
    let above = a.fract() > 0.0;
    let m = num_traits::pow(BigInt::from(10), (-nd) as usize);
    let (q, r) = whole.div_mod_floor(&m);
    let twice = &r * 2;
    let up = twice > m || (twice == m && (above || q.is_odd()));
    let q = if up { q + 1 } else { q };
    let out = (q * m).to_f64().unwrap_or(f64::INFINITY);
    if out.is_infinite() {
        return Err(Error::new(
            ErrorKind::Overflow,
            "rounded value too large to represent",
        ));
    }
    Ok(if f < 0.0 { -out } else { out })
}

/// Python `round(x, n)`: half to even.
pub fn round(run: Option<&Run>, x: &Value, nd: i64) -> Result<Value> {
    match x {
        Value::Float(f) => round_float(*f, nd).map(Value::Float),
        _ => {
            if nd >= 0 {
                return Ok(x.clone());
            }
            let v = big(x);
            // |v| < 2 ** bits <= 10 ** (-nd - 1), under half of 10 ** -nd:
            // the result is 0, without building 10 ** -nd (which could have
            // billions of digits).
            if (v.bits() as f64) * std::f64::consts::LOG10_2 + 1.0 < -(nd as f64) {
                return Ok(Value::Int(0));
            }
            let w = words(&v);
            int_work::charge(
                run,
                int_work::mul(w, w).saturating_mul(2) + int_work::div(w, w),
            )?;
            let m = num_traits::pow(BigInt::from(10), nd.unsigned_abs() as usize);
            let (q, r) = v.div_mod_floor(&m);
            let twice = &r * 2;
            let q = if twice > m || (twice == m && q.is_odd()) {
                q + 1
            } else {
                q
            };
            Ok(Value::from_bigint(q * m))
        }
    }
}

/// Python `int(value)` (`int(null)` = 0).
pub fn to_int(v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Null => Value::Int(0),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Int(_) | Value::BigInt(_) => v.clone(),
        Value::Float(f) => {
            if f.is_nan() {
                return Err(Error::value_err("cannot convert float NaN to integer"));
            }
            if f.is_infinite() {
                return Err(Error::new(
                    ErrorKind::Overflow,
                    "cannot convert float infinity to integer",
                ));
            }
            if f.abs() < 9.0e18 {
                Value::Int(f.trunc() as i64)
            } else {
                Value::from_bigint(BigInt::from(f.trunc() as i128))
            }
        }
        Value::Str(s) => {
            let t = s.trim().replace('_', "");
            match crate::value::parse_int_text(&t) {
                Some(b) if !s.trim().starts_with('_') && !s.contains("__") => {
                    Value::from_bigint(b?)
                }
                _ => {
                    return Err(Error::value_err(format!(
                        "invalid literal for int() with base 10: {}",
                        crate::value::str_repr(s)
                    )))
                }
            }
        }
        _ => {
            return Err(Error::type_err(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                v.py_type_name()
            )))
        }
    })
}

/// Python `float(value)` (`float(null)` = 0.0).
pub fn to_float(v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Null => Value::Float(0.0),
        Value::Bool(b) => Value::Float(*b as i64 as f64),
        Value::Int(_) | Value::BigInt(_) => Value::Float(fl(v)?),
        Value::Float(_) => v.clone(),
        Value::Str(s) => {
            let t = s.trim().to_ascii_lowercase();
            let f = match t.as_str() {
                "inf" | "+inf" | "infinity" | "+infinity" => f64::INFINITY,
                "-inf" | "-infinity" => f64::NEG_INFINITY,
                "nan" | "+nan" | "-nan" => f64::NAN,
                _ => {
                    let ok = !t.is_empty()
                        && t.chars().all(|c| c.is_ascii_digit() || "+-.e_".contains(c))
                        && t.chars().any(|c| c.is_ascii_digit());
                    match t.replace('_', "").parse::<f64>() {
                        Ok(f) if ok => f,
                        _ => {
                            return Err(Error::value_err(format!(
                                "could not convert string to float: {}",
                                crate::value::str_repr(s)
                            )))
                        }
                    }
                }
            };
            Value::Float(f)
        }
        _ => {
            return Err(Error::type_err(format!(
                "float() argument must be a string or a real number, not '{}'",
                v.py_type_name()
            )))
        }
    })
}

fn bitop(
    a: &Value,
    b: &Value,
    op: fn(&BigInt, &BigInt) -> BigInt,
    fast: fn(i64, i64) -> i64,
) -> Value {
    match (a.as_i64(), b.as_i64()) {
        // Python's `&`, `|`, `^` of two bools is a bool.
        (Some(x), Some(y)) if matches!((a, b), (Value::Bool(_), Value::Bool(_))) => {
            Value::Bool(fast(x, y) != 0)
        }
        (Some(x), Some(y)) => Value::Int(fast(x, y)),
        _ => Value::from_bigint(op(&big(a), &big(b))),
    }
}

pub fn register(r: &Reg) {
    arithmetic(r);
    bits(r);
    conversions(r);
}

/// Operators, comparisons, `abs`, `pow`, `round`, `sign`.
/// A comparison of two numbers: `want` says which of less, equal and
/// greater make it true (numbers that do not compare make it false).
fn number_order(a: &Value, b: &Value, want: [bool; 3]) -> Result<Value> {
    Ok(Value::Bool(match crate::value::compare(a, b) {
        Some(std::cmp::Ordering::Less) => want[0],
        Some(std::cmp::Ordering::Equal) => want[1],
        Some(std::cmp::Ordering::Greater) => want[2],
        None => false,
    }))
}

fn less(a: &Value, b: &Value) -> Result<Value> {
    number_order(a, b, [true, false, false])
}

fn less_or_equal(a: &Value, b: &Value) -> Result<Value> {
    number_order(a, b, [true, true, false])
}

fn greater(a: &Value, b: &Value) -> Result<Value> {
    number_order(a, b, [false, false, true])
}

fn greater_or_equal(a: &Value, b: &Value) -> Result<Value> {
    number_order(a, b, [false, true, true])
}

/// `+`, `-`, `*` and `mod` of two integers whose result is one
/// ([`crate::func::Direct::ints`]).
fn int_add(a: i64, b: i64) -> IntOutcome {
    IntOutcome::checked(a.checked_add(b))
}

fn int_sub(a: i64, b: i64) -> IntOutcome {
    IntOutcome::checked(a.checked_sub(b))
}

fn int_mul(a: i64, b: i64) -> IntOutcome {
    IntOutcome::checked(a.checked_mul(b))
}

/// Python's modulo: the remainder has the divisor's sign.
fn int_mod(a: i64, b: i64) -> IntOutcome {
    match a.checked_rem(b) {
        Some(r) if r != 0 && ((r < 0) != (b < 0)) => IntOutcome::int(r + b),
        Some(r) => IntOutcome::int(r),
        None => IntOutcome::OTHER,
    }
}

fn arithmetic(r: &Reg) {
    type Op = fn(Option<&Run>, &Value, &Value) -> Result<Value>;
    type Direct = fn(&Value, &Value) -> Result<Value>;
    // The direct bodies count no big-integer work: the kinds a direct call
    // takes (64-bit integers, floats, strings) make none worth counting.
    for (name, op, direct, ints) in [
        (
            "#operator_+",
            (|_: Option<&Run>, a: &Value, b: &Value| add(a, b)) as Op,
            add as Direct,
            Some(int_add as IntDirect),
        ),
        ("#operator_-", |_, a, b| sub(a, b), sub, Some(int_sub)),
        ("#operator_*", mul, |a, b| mul(None, a, b), Some(int_mul)),
        ("#operator_/", div, |a, b| div(None, a, b), None),
        (
            "#operator_mod",
            modulo,
            |a, b| modulo(None, a, b),
            Some(int_mod),
        ),
    ] {
        let def: SharedDef = yaql_fn!(Function name, |c| (left: Number, right: Number) {
            op(Some(c.run()), &left, &right)
        })
        .into();
        r.add_def(match ints {
            Some(ints) => def.with_direct_ints(direct, ints),
            None => def.with_direct(direct),
        });
    }
    r.add_def(yaql_fn!(Function "#unary_operator_+", |_c| (op: Number) { Ok(op.0.clone()) }));
    r.add_def(yaql_fn!(Function "#unary_operator_-", |_c| (op: Number) { neg(&op) }));
    for (name, cmp, ints) in [
        (
            "#operator_<",
            less as Direct,
            (|a, b| IntOutcome::bool(a < b)) as IntDirect,
        ),
        ("#operator_<=", less_or_equal, |a, b| {
            IntOutcome::bool(a <= b)
        }),
        ("#operator_>", greater, |a, b| IntOutcome::bool(a > b)),
        ("#operator_>=", greater_or_equal, |a, b| {
            IntOutcome::bool(a >= b)
        }),
    ] {
        let def: SharedDef =
            yaql_fn!(Function name, |_c| (left: Number, right: Number) { cmp(&left, &right) })
                .into();
        r.add_def(def.with_direct_ints(cmp, ints));
    }
    r.add_def(yaql_fn!(Function "abs", |_c| (op: Number) {
        Ok(match op.0 {
            Value::Float(f) => Value::Float(f.abs()),
            Value::Int(i) if *i >= 0 => op.0.clone(),
            Value::Int(_) => neg(&op)?,
            v => Value::from_bigint(big(v).abs()),
        })
    }));
    r.add_def(
        yaql_fn!(Function "pow", |call| (a: Number, b: Number, c: Option<Number> = Null) {
            pow(Some(call.run()), &a, &b, c.as_deref())
        }),
    );
    r.add_def(
        yaql_fn!(Function "round", |c| (number: Number, ndigits: PyInt = 0) {
            round(Some(c.run()), &number, ndigits.clamped()?)
        }),
    );
    r.add_def(yaql_fn!(Function "sign", |_c| (num: Number) {
        Ok(match num.0 {
            Value::Float(f) if *f > 0.0 => 1,
            Value::Float(f) if *f < 0.0 => -1,
            Value::Float(_) => 0,
            v => match big(v).sign() {
                num_bigint::Sign::Plus => 1,
                num_bigint::Sign::Minus => -1,
                num_bigint::Sign::NoSign => 0,
            },
        })
    }));
}

/// A shift's bit count: Python refuses a negative one.
fn shift_count(bits: &PyInt) -> Result<i64> {
    match bits.clamped()? {
        n if n < 0 => Err(Error::value_err("negative shift count")),
        n => Ok(n),
    }
}

/// Bitwise operations and shifts.
fn bits(r: &Reg) {
    for (name, small, large) in [
        (
            "bitwiseAnd",
            (|x, y| x & y) as fn(i64, i64) -> i64,
            (|x, y| x & y) as fn(&BigInt, &BigInt) -> BigInt,
        ),
        ("bitwiseOr", |x, y| x | y, |x, y| x | y),
        ("bitwiseXor", |x, y| x ^ y, |x, y| x ^ y),
    ] {
        r.add_def(yaql_fn!(Function name, |_c| (left: PyInt, right: PyInt) {
            Ok(bitop(&left, &right, large, small))
        }));
    }
    r.add_def(yaql_fn!(Function "bitwiseNot", |_c| (arg: PyInt) {
        Ok(match arg.as_i64() {
            Some(x) => Value::Int(!x),
            None => Value::from_bigint(-big(&arg) - 1),
        })
    }));
    r.add_def(
        yaql_fn!(Function "shiftBitsLeft", |_c| (value: PyInt, bitsNumber: PyInt) {
            let n = shift_count(&bitsNumber)?;
            let v = big(&value);
            if v.is_zero() {
                return Ok(Value::Int(0));
            }
            check_int_bits(v.bits().saturating_add(n as u64))?;
            Ok(Value::from_bigint(v << (n as usize)))
        }),
    );
    r.add_def(
        yaql_fn!(Function "shiftBitsRight", |_c| (value: PyInt, bitsNumber: PyInt) {
            let n = shift_count(&bitsNumber)?;
            let v = big(&value);
            // Every bit shifted out: 0, or -1 for a negative value (floor).
            if n as u64 >= v.bits() {
                return Ok(Value::Int(if v.is_negative() { -1 } else { 0 }));
            }
            Ok(Value::from_bigint(v >> (n as usize)))
        }),
    );
}

/// `float`, `int`, type tests, `max`/`min` of two, `random`.
fn conversions(r: &Reg) {
    r.add_def(yaql_fn!(Function "float", |_c| (value: &Value) { to_float(value) }));
    r.add_def(yaql_fn!(Function "int", |_c| (value: &Value) { to_int(value) }));
    r.add_def(yaql_fn!(Function "isInteger", |_c| (value: &Value) { Ok(value.is_int()) }));
    r.add_def(yaql_fn!(Function "isNumber", |_c| (value: &Value) { Ok(value.is_number()) }));
    // Both ask `b > a`, as the reference's do: `min` of equal values (or of
    // sets neither inside the other) is the second.
    for (name, is_max) in [("max", true), ("min", false)] {
        r.add_def(yaql_fn!(Function name, |c| (a: &Value, b: &Value) {
            let greater = c.call("#operator_>", vec![b.clone(), a.clone()])?.truthy();
            Ok(if greater == is_max { b.clone() } else { a.clone() })
        }));
    }
    r.add_def(yaql_fn!(Function "random", |c| () { Ok(c.run().random_f64()) }));
    r.add_def(yaql_fn!(Function "random", |c| (from: &Value, to: &Value) {
        let int = |v: &Value| v.as_i64().ok_or_else(|| Error::type_err("int expected"));
        let (lo, hi) = (int(from)?, int(to)?);
        if hi < lo {
            return Err(Error::value_err("empty range for randrange()"));
        }
        let span = (hi - lo + 1) as f64;
        Ok(lo + (c.run().random_f64() * span) as i64)
    }));
}
