//! The YAQL value model: Python-compatible equality, hashing, ordering and
//! `str()`/`repr()` rendering.

mod dict;
mod lazy;
mod list;
mod render;
mod shared;
mod str;

pub(crate) use dict::hash_of;
pub use dict::{Dict, DictKeys};
pub use lazy::LazyIter;
pub use list::{List, WeakList};
pub use render::Render;
pub use shared::Address;
pub use str::Str;

use crate::datetime::DateTime;
use crate::error::{Error, Result};
use crate::limits::Run;
use indexmap::IndexSet;
use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use vetro_pycompat::int::{decimal_digits, parse_decimal, MAX_INT_DIGITS};

pub type Set = IndexSet<Value>;

/// An object owned by the host application (for example a MuranoPL object).
/// `.name` on it calls [`HostObject::get_property`] unless the host overrides
/// `#operator_.` for it.
pub trait HostObject {
    /// The type name shown in error messages and `str()`.
    fn type_name(&self) -> &str;
    /// Downcasting support for the host.
    fn as_any(&self) -> &dyn Any;
    /// `obj.name`: `None` means "no such property" (the standard fallback then applies).
    fn get_property(&self, _name: &str) -> Option<Result<Value>> {
        None
    }
    /// `obj.name(args)` goes to the context's method fallback
    /// ([`crate::Context::set_method_fallback`]) before any registered
    /// function of that name: the object answers every method call itself
    /// (the reference's yaqlized Python objects).
    fn methods_first(&self) -> bool {
        false
    }
    /// `str(obj)`.
    fn to_str(&self) -> String {
        format!("<{} object>", self.type_name())
    }
}

/// A compiled regular expression value (`regex('...')`).
pub struct RegexValue {
    pub pattern: String,
    pub flags: u32,
    /// Compiled once and shared (an engine keeps the patterns it met).
    pub re: std::sync::Arc<fancy_regex::Regex>,
}

/// A callable value: made by `lambda(...)` (delegates), or handed over by
/// the host; `call(f, args)` and `f(args)` call it.
pub trait Callable {
    /// Call with positional and keyword arguments.
    fn call(&self, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value>;
}

/// A YAQL value. Cloning is cheap (reference counted).
#[derive(Clone)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    BigInt(Rc<BigInt>),
    Float(f64),
    /// Text; short text is held in the value (see [`Str`]).
    Str(Str),
    /// Lists and tuples (the reference stores every list as a tuple).
    List(List),
    Dict(Dict),
    Set(Rc<Set>),
    DateTime(DateTime),
    /// A timespan in microseconds.
    TimeDelta(i64),
    /// A timezone object, as its UTC offset in seconds.
    Tz(i32),
    Regex(Rc<RegexValue>),
    /// A lazy sequence: an iterator, or an iterable that every iteration
    /// reads from its start (see [`LazyIter::cursor`]).
    Iter(Rc<LazyIter>),
    Func(Rc<dyn Callable>),
    /// A context (what `let`, `with`, `def`, `unpack` return, for `->`);
    /// the evaluator's `Context`, opaque to the value model.
    Context(Rc<dyn Any>),
    Object(Rc<dyn HostObject>),
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

impl From<&crate::parser::Literal> for Value {
    fn from(l: &crate::parser::Literal) -> Value {
        use crate::parser::Literal;
        match l {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::Int(*i),
            Literal::BigInt(b) => Value::BigInt(Rc::new((**b).clone())),
            Literal::Float(f) => Value::Float(*f),
            Literal::Str(s) => Value::Str(Str::from(&**s)),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Float(x)
    }
}
impl From<&str> for Value {
    #[inline]
    fn from(s: &str) -> Value {
        Value::Str(Str::from(s))
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(Str::from(s))
    }
}
impl From<Str> for Value {
    fn from(s: Str) -> Value {
        Value::Str(s)
    }
}
impl From<std::rc::Rc<str>> for Value {
    fn from(s: std::rc::Rc<str>) -> Value {
        Value::Str(Str::from(s))
    }
}
/// `None` is null (a host function returning `Option<T>`).
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}
/// Null (a host function returning nothing).
impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Null
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Value {
        Value::List(List::from(v))
    }
}

impl Value {
    #[inline]
    pub fn str(s: &str) -> Value {
        Value::Str(Str::from(s))
    }

    pub fn list(v: Vec<Value>) -> Value {
        Value::List(List::from(v))
    }

    pub fn dict(d: Dict) -> Value {
        Value::Dict(d)
    }

    pub fn set(s: Set) -> Value {
        Value::Set(Rc::new(s))
    }

    /// An integer from a big integer, narrowed to i64 when it fits.
    pub fn from_bigint(b: BigInt) -> Value {
        match b.to_i64() {
            Some(i) => Value::Int(i),
            None => Value::BigInt(Rc::new(b)),
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Python-style type name for messages.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Dict(_) => "dict",
            Value::Set(_) => "set",
            Value::DateTime(_) => "datetime",
            Value::TimeDelta(_) => "timespan",
            Value::Tz(_) => "timezone",
            Value::Regex(_) => "regex",
            Value::Iter(_) => "iterator",
            Value::Func(_) => "function",
            Value::Context(_) => "context",
            Value::Object(o) => o.type_name(),
        }
    }

    /// The name of the Python type the reference holds such a value in, as
    /// Python's own errors name it (a list is a tuple there, a dict a
    /// `FrozenDict`; every lazy sequence is named a generator, where the
    /// reference's are generators or other iterators).
    pub fn py_type_name(&self) -> &str {
        match self {
            Value::Null => "NoneType",
            Value::Str(_) => "str",
            Value::List(_) => "tuple",
            Value::Dict(_) => "FrozenDict",
            Value::Set(_) => "frozenset",
            Value::TimeDelta(_) => "timedelta",
            Value::Regex(_) => "re.Pattern",
            Value::Iter(_) => "generator",
            Value::Context(_) => "Context",
            _ => self.type_name(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Integer value (bool counts as 0/1, as Python `int` parameters accept).
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::BigInt(_) | Value::Float(_))
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Value::Int(_) | Value::BigInt(_))
    }

    /// Numeric value as f64 (bool included).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::BigInt(b) => b.to_f64(),
            Value::Float(f) => Some(*f),
            Value::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        }
    }

    pub fn to_bigint(&self) -> Option<BigInt> {
        match self {
            Value::Int(i) => Some(BigInt::from(*i)),
            Value::BigInt(b) => Some((**b).clone()),
            Value::Bool(b) => Some(BigInt::from(*b as i64)),
            _ => None,
        }
    }

    /// Python truthiness. Lazy iterators are always true (like generators).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::BigInt(b) => !b.is_zero(),
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Dict(d) => !d.is_empty(),
            Value::Set(s) => !s.is_empty(),
            Value::TimeDelta(t) => *t != 0,
            Value::Iter(it) => it.range_bounds().is_none_or(|(start, stop)| start < stop),
            _ => true,
        }
    }

    /// `str()` as YAQL's `str` function renders it (null/true/false at top
    /// level), not bounded: for hosts that apply no limit. Evaluation uses
    /// [`Value::try_to_yaql_string`].
    pub fn to_yaql_string(&self) -> String {
        unbounded(|r| self.write_yaql_string(r))
    }

    /// Python `str()`, not bounded (see [`Value::to_yaql_string`]).
    pub fn py_str(&self) -> String {
        unbounded(|r| self.write_py_str(r))
    }

    /// Python `repr()`, not bounded (see [`Value::to_yaql_string`]).
    pub fn repr(&self) -> String {
        unbounded(|r| self.write_repr(r))
    }

    /// [`Value::to_yaql_string`] within what the evaluation of `run` may
    /// still build ([`Render::budgeted`]): a value sharing its containers
    /// can be far larger written out than in memory.
    pub fn try_to_yaql_string(&self, run: &Rc<Run>) -> Result<String> {
        match self {
            Value::Str(s) if s.len() < crate::limits::CHECK_JOIN_BYTES => Ok(s.to_string()),
            Value::Int(i) => Ok(i.to_string()),
            _ => budgeted(run, |r| self.write_yaql_string(r)),
        }
    }

    /// [`Value::repr`] within what the evaluation of `run` may still build.
    pub fn try_repr(&self, run: &Rc<Run>) -> Result<String> {
        budgeted(run, |r| self.write_repr(r))
    }

    /// [`Value::repr`] cut at about `max` bytes (ending in `...` when cut):
    /// for error messages.
    pub fn repr_clipped(&self, max: usize) -> String {
        clipped(max, |r| self.write_repr(r))
    }

    /// [`Value::py_str`] cut at about `max` bytes, as [`Value::repr_clipped`].
    pub fn py_str_clipped(&self, max: usize) -> String {
        clipped(max, |r| self.write_py_str(r))
    }

    /// Write [`Value::to_yaql_string`] into `out`.
    pub fn write_yaql_string(&self, out: &mut Render) -> Result<()> {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(true) => out.push_str("true"),
            Value::Bool(false) => out.push_str("false"),
            _ => self.write_py_str(out),
        }
    }

    /// Write Python `str()` into `out`.
    pub fn write_py_str(&self, out: &mut Render) -> Result<()> {
        match self {
            Value::Str(s) => out.push_str(s),
            Value::DateTime(d) => out.push_str(&d.to_py_str()),
            Value::TimeDelta(t) => out.push_str(&crate::datetime::timedelta_str(*t)),
            Value::Object(o) => out.push_str(&o.to_str()),
            _ => self.write_repr(out),
        }
    }

    /// Write Python `repr()` into `out`.
    pub fn write_repr(&self, out: &mut Render) -> Result<()> {
        deep(|| self.write_repr_in(out))
    }

    fn write_repr_in(&self, out: &mut Render) -> Result<()> {
        match self {
            Value::Null => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(i) => out.write(format_args!("{i}")),
            Value::BigInt(b) => out.push_str(&int_text(b)?),
            Value::Float(f) => out.push_str(&float_repr(*f)),
            Value::Str(s) => out.push_str(&str_repr(s)),
            Value::List(l) => {
                out.push('(')?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ")?;
                    }
                    v.write_repr(out)?;
                }
                if l.len() == 1 {
                    out.push(',')?;
                }
                out.push(')')
            }
            Value::Dict(d) => {
                out.push('{')?;
                for (i, (k, v)) in d.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ")?;
                    }
                    k.write_repr(out)?;
                    out.push_str(": ")?;
                    v.write_repr(out)?;
                }
                out.push('}')
            }
            Value::Set(s) => {
                if s.is_empty() {
                    return out.push_str("frozenset()");
                }
                out.push_str("frozenset({")?;
                for (i, v) in s.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ")?;
                    }
                    v.write_repr(out)?;
                }
                out.push_str("})")
            }
            Value::DateTime(d) => out.push_str(&d.to_py_repr()),
            Value::TimeDelta(t) => out.push_str(&crate::datetime::timedelta_repr(*t)),
            Value::Tz(o) => out.write(format_args!(
                "datetime.timezone(datetime.timedelta(seconds={o}))"
            )),
            Value::Regex(r) => out.write(format_args!("re.compile({})", str_repr(&r.pattern))),
            Value::Iter(it) => match it.range_bounds() {
                Some((start, stop)) => out.write(format_args!("range({start}, {stop})")),
                None => out.push_str("<generator object>"),
            },
            Value::Func(_) => out.push_str("<function>"),
            Value::Context(_) => out.push_str("<yaql.language.contexts.Context object>"),
            Value::Object(o) => out.push_str(&o.to_str()),
        }
    }

    /// Pointer identity for reference values.
    /// The address of a list, dict or set held more than once: the key
    /// under which a walk over a value remembers what it found for it. A
    /// value can share its containers (`$l: [$l, $l]` in a loop is 60 lists
    /// but 2^60 paths), so walks that compare, hash or convert it remember
    /// each shared container and take time in the number of containers, not
    /// of paths. A container held once is reached by one path only.
    pub fn shared_address(&self) -> Option<Address> {
        let holders = match self {
            Value::List(l) => l.holders(),
            Value::Dict(d) => d.holders(),
            Value::Set(s) => Rc::strong_count(s),
            _ => return None,
        };
        (holders > 1).then(|| container_address(self))
    }

    fn ptr_id(&self) -> usize {
        match self {
            Value::Iter(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Func(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Context(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Object(r) => Rc::as_ptr(r) as *const u8 as usize,
            Value::Regex(r) => Rc::as_ptr(r) as *const u8 as usize,
            _ => 0,
        }
    }
}

pub use vetro_pycompat::repr::{float_repr, str_repr};

/// What `write` renders, cut at about `max` bytes (ending in `...` when cut).
fn clipped(max: usize, write: impl FnOnce(&mut Render) -> Result<()>) -> String {
    let mut r = Render::with_cap(max);
    if write(&mut r).is_ok() {
        return r.finish();
    }
    let mut text = r.finish();
    text.push_str("...");
    text
}

/// The text `write` makes, with no limit (it cannot fail then).
fn unbounded(write: impl FnOnce(&mut Render) -> Result<()>) -> String {
    let mut r = Render::unbounded();
    let _ = write(&mut r);
    r.finish()
}

/// The text `write` makes, within the budget of the evaluation of `run`.
fn budgeted(run: &Rc<Run>, write: impl FnOnce(&mut Render) -> Result<()>) -> Result<String> {
    let mut r = Render::budgeted(run);
    write(&mut r)?;
    Ok(r.finish())
}

// ---------------------------------------------------------------------------
// Equality and hashing (Python semantics: 1 == 1.0 == True)

fn num_eq(a: &Value, b: &Value) -> Option<bool> {
    use Value::*;
    Some(match (a, b) {
        (Int(x), Int(y)) => x == y,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Bool(y)) | (Bool(y), Int(x)) => *x == *y as i64,
        (Float(x), Float(y)) => x == y,
        (Int(x), Float(y)) | (Float(y), Int(x)) => (*x as f64) == *y && (*y as i64) == *x,
        (Bool(x), Float(y)) | (Float(y), Bool(x)) => (*x as i64 as f64) == *y,
        (BigInt(x), BigInt(y)) => x == y,
        (BigInt(_), Int(_)) | (Int(_), BigInt(_)) | (BigInt(_), Bool(_)) | (Bool(_), BigInt(_)) => {
            false
        }
        (BigInt(x), Float(y)) | (Float(y), BigInt(x)) => x.to_f64() == Some(*y) && y.fract() == 0.0,
        _ => return None,
    })
}

/// The address of a list, dict or set (the same for other values); unique
/// among the containers of values alive together.
fn container_address(v: &Value) -> Address {
    match v {
        Value::List(l) => l.address(),
        Value::Dict(d) => d.address(),
        Value::Set(s) => Address::of(Rc::as_ptr(s)),
        _ => Address::of(std::ptr::null::<u8>()),
    }
}

/// Pairs of shared containers found equal during one comparison.
type EqMemo = Option<std::collections::HashSet<(Address, Address)>>;

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        eq_in(self, other, &mut None)
    }
}

fn eq_in(a: &Value, b: &Value, memo: &mut EqMemo) -> bool {
    use Value::*;
    if let Some(r) = num_eq(a, b) {
        return r;
    }
    match (a, b) {
        (Null, Null) => true,
        (Str(x), Str(y)) => x == y,
        (List(x), List(y)) => {
            self::List::ptr_eq(x, y)
                || (x.len() == y.len()
                    && containers_eq(a, b, memo, |memo| {
                        x.iter().zip(y.iter()).all(|(p, q)| eq_in(p, q, memo))
                    }))
        }
        (Dict(x), Dict(y)) => {
            self::Dict::ptr_eq(x, y)
                || (x.len() == y.len()
                    && containers_eq(a, b, memo, |memo| {
                        x.iter()
                            .all(|(k, v)| y.get(k).is_some_and(|w| eq_in(v, w, memo)))
                    }))
        }
        (Set(x), Set(y)) => {
            Rc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && containers_eq(a, b, memo, |_| x.iter().all(|v| y.contains(v))))
        }
        (DateTime(x), DateTime(y)) => x.eq_instant(y),
        (TimeDelta(x), TimeDelta(y)) => x == y,
        (Tz(x), Tz(y)) => x == y,
        (Regex(x), Regex(y)) => x.pattern == y.pattern && x.flags == y.flags,
        (Iter(_), Iter(_))
        | (Func(_), Func(_))
        | (Context(_), Context(_))
        | (Object(_), Object(_)) => a.ptr_id() == b.ptr_id(),
        _ => false,
    }
}

/// Compare the items of two containers of the same size (`items`), once per
/// pair of shared containers (see [`Value::shared_address`]).
fn containers_eq(
    a: &Value,
    b: &Value,
    memo: &mut EqMemo,
    items: impl FnOnce(&mut EqMemo) -> bool,
) -> bool {
    let key = match (a.shared_address(), b.shared_address()) {
        (None, None) => None,
        _ => Some((container_address(a), container_address(b))),
    };
    if let (Some(k), Some(m)) = (key, memo.as_ref()) {
        if m.contains(&k) {
            return true;
        }
    }
    let equal = deep(|| items(memo));
    if let (true, Some(k)) = (equal, key) {
        memo.get_or_insert_with(Default::default).insert(k);
    }
    equal
}

impl Eq for Value {}

/// A fast keyed hasher for value hashes: keyed per process, so crafted keys
/// cannot be made to collide (these hashes feed every dict and set).
fn value_hasher() -> ahash::AHasher {
    use std::hash::BuildHasher;
    static STATE: std::sync::OnceLock<ahash::RandomState> = std::sync::OnceLock::new();
    STATE.get_or_init(ahash::RandomState::new).build_hasher()
}

/// The hash of a string value, from its text.
pub(crate) fn str_hash(s: &str) -> u64 {
    let mut h = value_hasher();
    s.hash(&mut h);
    h.finish()
}

fn hash_i64(i: i64) -> u64 {
    // Python-like: equal numbers hash equal across int/float/bool.
    let mut h = value_hasher();
    i.hash(&mut h);
    h.finish()
}

/// Hashes of the shared containers met in one hash (see [`Value::shared_address`]).
type HashMemo = Option<std::collections::HashMap<Address, u64>>;

fn value_hash(v: &Value) -> u64 {
    hash_in(v, &mut None)
}

fn hash_in(v: &Value, memo: &mut HashMemo) -> u64 {
    if !matches!(v, Value::List(_) | Value::Dict(_) | Value::Set(_)) {
        return hash_item(v, memo);
    }
    let shared = v.shared_address();
    if let (Some(p), Some(m)) = (shared, memo.as_ref()) {
        if let Some(h) = m.get(&p) {
            return *h;
        }
    }
    let h = deep(|| hash_item(v, memo));
    if let Some(p) = shared {
        memo.get_or_insert_with(Default::default).insert(p, h);
    }
    h
}

fn hash_item(v: &Value, memo: &mut HashMemo) -> u64 {
    use Value::*;
    match v {
        Null => 0x9e37_79b9,
        Bool(b) => hash_i64(*b as i64),
        Int(i) => hash_i64(*i),
        BigInt(b) => {
            let mut h = value_hasher();
            b.hash(&mut h);
            h.finish()
        }
        Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9.2e18 {
                hash_i64(*f as i64)
            } else if f.fract() == 0.0 && f.is_finite() {
                let b = num_bigint::BigInt::from(*f as i128);
                let mut h = value_hasher();
                b.hash(&mut h);
                h.finish()
            } else {
                let mut h = value_hasher();
                f.to_bits().hash(&mut h);
                h.finish()
            }
        }
        Str(s) => str_hash(s),
        List(l) => {
            let mut h = value_hasher();
            h.write_usize(l.len());
            for x in l.iter() {
                h.write_u64(hash_in(x, memo));
            }
            h.finish()
        }
        // Dicts and sets: the same whatever the order of their items.
        Dict(d) => {
            let mut acc: u64 = 0xd1c7;
            for (k, x) in d.iter() {
                let mut h = value_hasher();
                h.write_u64(hash_in(k, memo));
                h.write_u64(hash_in(x, memo));
                acc ^= h.finish();
            }
            acc
        }
        Set(s) => {
            let mut acc: u64 = 0x5e7;
            for x in s.iter() {
                let mut h = value_hasher();
                h.write_u64(hash_in(x, memo));
                acc ^= h.finish();
            }
            acc
        }
        DateTime(d) => hash_i64(d.utc_micros()),
        TimeDelta(t) => hash_i64(*t),
        Tz(o) => hash_i64(*o as i64 ^ 0x7a),
        Regex(r) => {
            let mut h = value_hasher();
            r.pattern.hash(&mut h);
            h.finish()
        }
        _ => v.ptr_id() as u64,
    }
}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(value_hash(self));
    }
}

/// Python ordering for the types YAQL's comparison operators accept
/// (numbers, strings, datetimes, timespans). `None` when not comparable.
pub fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Float(x), Float(y)) => x.partial_cmp(y),
        (Int(x), Float(y)) => (*x as f64).partial_cmp(y),
        (Float(x), Int(y)) => x.partial_cmp(&(*y as f64)),
        (BigInt(_), _) | (_, BigInt(_)) if a.is_number() && b.is_number() => {
            match (a.to_bigint(), b.to_bigint()) {
                (Some(x), Some(y)) => Some(x.cmp(&y)),
                _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
            }
        }
        (Str(x), Str(y)) => Some(x.cmp(y)),
        (DateTime(x), DateTime(y)) => Some(x.utc_micros().cmp(&y.utc_micros())),
        (TimeDelta(x), TimeDelta(y)) => Some(x.cmp(y)),
        (Null, Null) => Some(Ordering::Equal),
        (Null, _) => Some(Ordering::Less),
        (_, Null) => Some(Ordering::Greater),
        _ => None,
    }
}

/// Error for values that cannot be compared: no overload of the comparison
/// operator `op` (`#operator_<`, ...) takes them, as in the reference.
pub fn not_comparable(op: &str, a: &Value, b: &Value) -> Error {
    Error::new(
        crate::error::ErrorKind::NoMatchingFunction,
        format!(
            "No function \"{op}\" matches the arguments ({}, {})",
            a.type_name(),
            b.type_name()
        ),
    )
}

/// The decimal text of an integer, refused past
/// [`MAX_INT_DIGITS`] digits (the conversion's time grows
/// with the square of the length and cannot be interrupted).
pub fn int_text(b: &BigInt) -> Result<String> {
    let digits = decimal_digits(b.bits());
    if digits > MAX_INT_DIGITS {
        return Err(int_digits_error(digits));
    }
    Ok(b.to_string())
}

/// An integer parsed from decimal `text` (an optional sign, then digits),
/// refused past [`MAX_INT_DIGITS`] digits; `None` when it
/// is not an integer.
pub fn parse_int_text(text: &str) -> Option<Result<BigInt>> {
    let digits = text.trim_start_matches(['+', '-']).len();
    if digits > MAX_INT_DIGITS {
        return text[text.len() - digits..]
            .bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| Err(int_digits_error(digits)));
    }
    parse_decimal(text).map(Ok)
}

fn int_digits_error(digits: usize) -> Error {
    Error::value_err(format!(
        "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {digits} digits"
    ))
}

/// Run a step of a walk over a value's nesting with enough stack: values can
/// nest far deeper than the thread's stack allows one frame per level, so
/// more stack is taken from the heap when little is left.
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    crate::stack::maybe_grow(64 * 1024, 1024 * 1024, f)
}

/// Nested containers are released one level at a time: the derived drop
/// recurses once per level, and a list nested a million deep (easy to build
/// with `aggregate` or a loop) would overflow the stack.
impl Drop for Value {
    #[inline]
    fn drop(&mut self) {
        let sole = match self {
            Value::List(l) => l.holders() == 1,
            Value::Dict(d) => d.holders() == 1,
            _ => false,
        };
        if sole {
            release_nested(self);
        }
    }
}

/// Drop the containers under a list or dict held by nothing else, outside in.
fn release_nested(v: &mut Value) {
    let mut nested = Vec::new();
    detach_nested(v, &mut nested);
    while let Some(mut v) = nested.pop() {
        detach_nested(&mut v, &mut nested);
    }
}

/// Move the containers directly inside `v` into `out` (leaving null), when
/// `v` itself is held by nothing else; so `v` drops without recursing. Dict keys and set members stay (they cannot
/// change in place).
fn detach_nested(v: &mut Value, out: &mut Vec<Value>) {
    // Shared ones too: `[$l, $l]` holds one list twice, and the second
    // release of it would otherwise recurse into it.
    fn take(x: &mut Value, out: &mut Vec<Value>) {
        if matches!(x, Value::List(_) | Value::Dict(_)) {
            out.push(std::mem::replace(x, Value::Null));
        }
    }
    match v {
        Value::List(l) => {
            if let Some(items) = l.sole_items() {
                items.iter_mut().for_each(|x| take(x, out));
            }
        }
        Value::Dict(d) => {
            if let Some(values) = d.sole_values() {
                values.for_each(|x| take(x, out));
            }
        }
        _ => {}
    }
}
