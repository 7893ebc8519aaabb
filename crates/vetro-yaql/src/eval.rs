//! The evaluator: expression walking, lambdas and function resolution
//! (overloads by arity and types, layers, laziness), as the reference does it.

use crate::context::Context;
use crate::error::{Error, ErrorKind, Result};
use crate::func::{ArgValue, Args, Call, DefaultValue, FunctionDef, PType, Param};
use crate::iter::{limited, too_large, LazyIter};
use crate::parser::Expr;
use crate::value::Value;
use smallvec::SmallVec;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::time::{Duration, Instant};

/// Engine options (the reference's `yaql.*` options plus vetro's limits).
#[derive(Clone, Debug)]
pub struct Options {
    /// `yaql.limitIterators`: maximum items per collection (-1: none).
    pub limit_iterators: i64,
    /// `yaql.memoryQuota`: approximate bytes a result may take (-1: none).
    pub memory_quota: i64,
    pub convert_tuples_to_lists: bool,
    pub convert_sets_to_lists: bool,
    pub iterable_dicts: bool,
    /// Convert the result on output (`yaql.convertOutputData`).
    pub convert_output_data: bool,
    /// Maximum evaluation nesting depth (recursion limit).
    pub max_depth: usize,
    /// Wall-clock limit of one evaluation.
    pub timeout: Option<Duration>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            limit_iterators: -1,
            memory_quota: -1,
            convert_tuples_to_lists: true,
            convert_sets_to_lists: false,
            iterable_dicts: false,
            convert_output_data: true,
            max_depth: 2000,
            timeout: None,
        }
    }
}

/// Hard cap on a single string or list built by repetition, even without a quota.
const MAX_BUILD_BYTES: usize = 1 << 28;

/// Per-evaluation state: options, depth counter, deadline.
pub struct Runtime {
    pub opts: Options,
    depth: Cell<usize>,
    deadline: Option<Instant>,
    ticks: Cell<u32>,
}

impl Runtime {
    pub fn new(opts: Options) -> Runtime {
        let deadline = opts.timeout.map(|t| Instant::now() + t);
        Runtime {
            opts,
            depth: Cell::new(0),
            deadline,
            ticks: Cell::new(0),
        }
    }

    /// The `limitIterators` check on a value passed as an iterable.
    pub fn limit(&self, v: Value) -> Result<Value> {
        let lim = self.opts.limit_iterators;
        if lim < 0 {
            return Ok(v);
        }
        let lim = lim as usize;
        let len = match &v {
            Value::List(l) => l.len(),
            Value::Set(s) => s.len(),
            Value::Dict(d) => d.len(),
            Value::Iter(it) => return Ok(Value::Iter(limited(it.clone(), lim))),
            _ => 0,
        };
        if len > lim {
            return Err(too_large());
        }
        Ok(v)
    }

    fn enter(&self) -> Result<()> {
        let d = self.depth.get() + 1;
        if d > self.opts.max_depth {
            return Err(Error::new(
                ErrorKind::Recursion,
                "maximum recursion depth exceeded",
            ));
        }
        self.depth.set(d);
        if let Some(deadline) = self.deadline {
            let t = self.ticks.get().wrapping_add(1);
            self.ticks.set(t);
            if t.is_multiple_of(256) && Instant::now() > deadline {
                self.depth.set(d - 1);
                return Err(Error::new(
                    ErrorKind::Timeout,
                    "evaluation time limit exceeded",
                ));
            }
        }
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }

    /// Refuse to build something of about `bytes` bytes over the memory quota.
    pub fn check_bytes(&self, bytes: usize) -> Result<()> {
        let q = self.opts.memory_quota;
        if (q > 0 && bytes as i64 > q) || bytes > MAX_BUILD_BYTES {
            return Err(Error::new(
                ErrorKind::MemoryQuota,
                "Expression consumed too much memory",
            ));
        }
        Ok(())
    }

    /// Check the memory quota against a value's approximate size.
    pub fn check_memory(&self, v: &Value) -> Result<()> {
        if self.opts.memory_quota > 0 && approx_size(v) as i64 > self.opts.memory_quota {
            return Err(Error::new(
                ErrorKind::MemoryQuota,
                "Expression consumed too much memory",
            ));
        }
        Ok(())
    }
}

/// A rough lower bound of the memory a value takes (for `memoryQuota`).
pub fn approx_size(v: &Value) -> usize {
    match v {
        Value::Str(s) => 49 + s.len(),
        Value::List(l) => 40 + 8 * l.len() + l.iter().map(approx_size).sum::<usize>(),
        Value::Dict(d) => {
            64 + 24 * d.len()
                + d.iter()
                    .map(|(k, v)| approx_size(k) + approx_size(v))
                    .sum::<usize>()
        }
        Value::Set(s) => 200 + 16 * s.len() + s.iter().map(approx_size).sum::<usize>(),
        Value::BigInt(b) => 24 + (b.bits() as usize).div_ceil(8),
        _ => 24,
    }
}

/// An unevaluated argument with the context it is evaluated in.
#[derive(Clone)]
pub struct Lambda {
    pub expr: Rc<Expr>,
    pub ctx: Rc<Context>,
}

impl Lambda {
    /// Evaluate with `$1..$n` bound to `args` (and `$` = `$1`) in a child context.
    pub fn call(&self, args: &[Value]) -> Result<Value> {
        if args.is_empty() {
            return eval(&self.expr, &self.ctx);
        }
        let ctx = self.ctx.child();
        for (i, a) in args.iter().enumerate() {
            ctx.set_arg(i + 1, a.clone());
        }
        eval(&self.expr, &ctx)
    }

    /// Call with one argument (the common case).
    pub fn call1(&self, arg: Value) -> Result<Value> {
        let ctx = self.ctx.child();
        ctx.set_arg(1, arg);
        eval(&self.expr, &ctx)
    }

    /// Call with positional and named arguments.
    pub fn call_kw(&self, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value> {
        let ctx = self.ctx.child();
        for (i, a) in args.iter().enumerate() {
            ctx.set_arg(i + 1, a.clone());
        }
        for (k, v) in kw {
            ctx.set(k, v.clone());
        }
        eval(&self.expr, &ctx)
    }

    /// Evaluate as is, in its own context.
    pub fn eval(&self) -> Result<Value> {
        eval(&self.expr, &self.ctx)
    }

    /// Evaluate in another context.
    pub fn eval_in(&self, ctx: &Rc<Context>) -> Result<Value> {
        eval(&self.expr, ctx)
    }

    /// A lambda over a plain value (for calls made with values).
    pub fn constant(v: Value, ctx: &Rc<Context>) -> Lambda {
        Lambda {
            expr: Rc::new(Expr::Const(v)),
            ctx: ctx.clone(),
        }
    }
}

/// Evaluate an expression in a context.
pub fn eval(e: &Expr, ctx: &Rc<Context>) -> Result<Value> {
    match e {
        Expr::Const(v) => Ok(v.clone()),
        Expr::Keyword(k) => Ok(Value::Str(k.clone())),
        Expr::Var(name) => Ok(ctx.get(name).unwrap_or(Value::Null)),
        _ => {
            let rt = ctx.rt.clone();
            rt.enter()?;
            // Grow the stack on demand so deep expressions hit the recursion
            // limit instead of overflowing whatever thread the host uses.
            let r = stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || eval_call(e, ctx));
            rt.leave();
            r
        }
    }
}

fn eval_call(e: &Expr, ctx: &Rc<Context>) -> Result<Value> {
    match e {
        Expr::Call { name, args } => {
            let cargs: ArgVec = args.iter().map(CallArg::from_arg).collect();
            call_args(ctx, name, cargs, false)
        }
        Expr::Method {
            recv,
            name,
            args,
            safe,
        } => {
            let r = eval(recv, ctx)?;
            if *safe && r.is_null() {
                return Ok(Value::Null);
            }
            if let Value::Context(c2) = &r {
                if ctx.has_function(crate::stdlib::legacy::CONTEXT_DOT) {
                    let recv = c2.get("1").unwrap_or(Value::Null);
                    let mut cargs = vec![CallArg::Val(recv)];
                    cargs.extend(args.iter().map(CallArg::from_arg));
                    return call_function(c2, name, cargs, true);
                }
            }
            let mut cargs = ArgVec::new();
            cargs.push(CallArg::Val(r));
            cargs.extend(args.iter().map(CallArg::from_arg));
            call_args(ctx, name, cargs, true)
        }
        Expr::Dot { recv, rhs, safe } => {
            let r = eval(recv, ctx)?;
            if *safe && r.is_null() {
                return Ok(Value::Null);
            }
            let mut cargs = ArgVec::new();
            cargs.push(CallArg::Val(r));
            cargs.push(CallArg::Expr(rhs.clone()));
            call_args(ctx, "#operator_.", cargs, false)
        }
        Expr::Wrap(inner) => eval(inner, ctx),
        _ => eval(e, ctx),
    }
}

/// An argument of a call before resolution.
#[derive(Clone)]
pub enum CallArg {
    Val(Value),
    Expr(Rc<Expr>),
    Omitted,
    Named(Rc<Expr>, Rc<Expr>),
}

impl CallArg {
    fn from_arg(a: &crate::parser::Arg) -> CallArg {
        match a {
            crate::parser::Arg::Pos(e) => CallArg::Expr(e.clone()),
            crate::parser::Arg::Omitted => CallArg::Omitted,
            crate::parser::Arg::Named(k, v) => CallArg::Named(k.clone(), v.clone()),
        }
    }
}

/// Call a function by name with evaluated positional values.
pub fn call_values(ctx: &Rc<Context>, name: &str, args: Vec<Value>, method: bool) -> Result<Value> {
    call_function(
        ctx,
        name,
        args.into_iter().map(CallArg::Val).collect(),
        method,
    )
}

/// Positional argument after keyword translation.
#[derive(Clone)]
enum PosArg {
    Val(Value),
    Expr(Rc<Expr>),
    Omitted,
    Rule(Rc<Expr>, Rc<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Pos(usize),
    Kw(usize),
    Default,
    Empty,
}

struct Binding {
    /// params then kwonly
    slots: SmallVec<[Slot; 6]>,
    rest: Idx,
    kwrest: Idx,
    /// lazy argument positions: positional index, or 1000 + keyword index
    lazy: Idx,
}

type Idx = SmallVec<[usize; 4]>;
type BoundLayer = SmallVec<[(Rc<FunctionDef>, Binding); 2]>;
type Masks = SmallVec<[u32; 6]>;
type ArgVec = SmallVec<[CallArg; 4]>;

fn param_at(f: &FunctionDef, slot_index: usize) -> &Param {
    if slot_index < f.params.len() {
        &f.params[slot_index]
    } else {
        &f.kwonly[slot_index - f.params.len()]
    }
}

fn static_ok(p: &Param, a: &PosArg, rt: &crate::eval::Runtime) -> bool {
    match a {
        PosArg::Rule(..) => matches!(p.ty, PType::Rule | PType::Lambda),
        PosArg::Omitted => false,
        _ if p.ty == PType::Rule => false,
        PosArg::Expr(e) if p.ty == PType::Keyword => matches!(**e, Expr::Keyword(_)),
        PosArg::Val(_) if p.ty == PType::Keyword => false,
        _ if p.ty.is_lazy() => true,
        PosArg::Expr(e) => match e.const_value() {
            Some(v) => p.ty.accepts(&v, p.nullable, rt),
            None => true,
        },
        PosArg::Val(v) => p.ty.accepts(v, p.nullable, rt),
    }
}

fn bind(
    f: &FunctionDef,
    pos: &[PosArg],
    kw: &[(Rc<str>, Rc<Expr>)],
    rt: &Runtime,
) -> Option<Binding> {
    let np = f.params.len();
    let mut slots: SmallVec<[Slot; 6]> = SmallVec::from_elem(Slot::Empty, np + f.kwonly.len());
    let mut rest = Idx::new();
    let mut kwrest = Idx::new();
    let mut lazy = Idx::new();
    for (i, a) in pos.iter().enumerate() {
        if i < np {
            let p = &f.params[i];
            if matches!(a, PosArg::Omitted) {
                p.default.as_ref()?;
                slots[i] = Slot::Default;
                continue;
            }
            if !static_ok(p, a, rt) {
                return None;
            }
            if p.ty.is_lazy() {
                lazy.push(i);
            }
            slots[i] = Slot::Pos(i);
        } else if let Some(p) = &f.varargs {
            if !static_ok(p, a, rt) {
                return None;
            }
            if p.ty.is_lazy() {
                lazy.push(i);
            }
            rest.push(i);
        } else {
            return None;
        }
    }
    for (k, (name, e)) in kw.iter().enumerate() {
        let a = PosArg::Expr(e.clone());
        let idx = f.params.iter().position(|p| p.name == *name).or_else(|| {
            f.kwonly
                .iter()
                .position(|p| p.name == *name)
                .map(|i| i + np)
        });
        match idx {
            Some(j) => {
                if slots[j] != Slot::Empty {
                    return None;
                }
                let p = param_at(f, j);
                if !static_ok(p, &a, rt) {
                    return None;
                }
                if p.ty.is_lazy() {
                    lazy.push(1000 + k);
                }
                slots[j] = Slot::Kw(k);
            }
            None => match &f.kwargs {
                Some(p) => {
                    if !static_ok(p, &a, rt) {
                        return None;
                    }
                    if p.ty.is_lazy() {
                        lazy.push(1000 + k);
                    }
                    kwrest.push(k);
                }
                None => return None,
            },
        }
    }
    for (j, s) in slots.iter_mut().enumerate() {
        if *s == Slot::Empty {
            let p = param_at(f, j);
            p.default.as_ref()?;
            *s = Slot::Default;
        }
    }
    Some(Binding {
        slots,
        rest,
        kwrest,
        lazy,
    })
}

fn dyn_ok(
    f: &FunctionDef,
    b: &Binding,
    pos: &[Option<Value>],
    kwv: &[Option<Value>],
    rt: &Runtime,
) -> bool {
    let check = |p: &Param, v: &Option<Value>| -> bool {
        if p.ty.is_lazy() {
            return true;
        }
        match v {
            Some(v) => p.ty.accepts(v, p.nullable, rt),
            None => true,
        }
    };
    for (j, s) in b.slots.iter().enumerate() {
        let p = param_at(f, j);
        let ok = match s {
            Slot::Pos(i) => check(p, &pos[*i]),
            Slot::Kw(k) => check(p, &kwv[*k]),
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    if let Some(p) = &f.varargs {
        if !b.rest.iter().all(|i| check(p, &pos[*i])) {
            return false;
        }
    }
    if let Some(p) = &f.kwargs {
        if !b.kwrest.iter().all(|k| check(p, &kwv[*k])) {
            return false;
        }
    }
    true
}

/// Masks of the parameter types receiving each argument (to rank overloads).
fn masks(f: &FunctionDef, b: &Binding, npos: usize, nkw: usize) -> SmallVec<[u32; 6]> {
    let mut m: SmallVec<[u32; 6]> = SmallVec::from_elem(crate::func::mask::ALL, npos + nkw);
    for (j, s) in b.slots.iter().enumerate() {
        let p = param_at(f, j);
        match s {
            Slot::Pos(i) => m[*i] = p.ty.mask(p.nullable),
            Slot::Kw(k) => m[npos + *k] = p.ty.mask(p.nullable),
            _ => {}
        }
    }
    if let Some(p) = &f.varargs {
        for i in &b.rest {
            m[*i] = p.ty.mask(p.nullable);
        }
    }
    if let Some(p) = &f.kwargs {
        for k in &b.kwrest {
            m[npos + *k] = p.ty.mask(p.nullable);
        }
    }
    m
}

/// Is `a` a specialization of `b` (every argument type narrower or equal, one strictly)?
fn more_specific(a: &[u32], b: &[u32]) -> bool {
    let mut strict = false;
    for (x, y) in a.iter().zip(b) {
        if x & !y != 0 {
            return false;
        }
        if x != y {
            strict = true;
        }
    }
    strict
}

fn kind_for(method: bool, no_fn: bool) -> ErrorKind {
    match (method, no_fn) {
        (true, true) => ErrorKind::NoMethod,
        (false, true) => ErrorKind::NoFunction,
        (true, false) => ErrorKind::NoMatchingMethod,
        (false, false) => ErrorKind::NoMatchingFunction,
    }
}

fn describe_values(pos: &[Option<Value>]) -> String {
    pos.iter()
        .map(|v| match v {
            Some(v) => v.type_name().to_string(),
            None => "<expr>".to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn no_matching(name: &str, method: bool, layers: &crate::context::Layers, got: &str) -> Error {
    let cands: Vec<String> = layers.iter().flatten().map(|f| f.signature()).collect();
    Error::new(
        kind_for(method, false),
        format!(
            "No {} \"{}\" matches the arguments ({}); candidates: {}",
            if method { "method" } else { "function" },
            name,
            got,
            cands.join("; ")
        ),
    )
}

/// Resolve and call `name` with unevaluated arguments (`method`: receiver first).
pub fn call_function(
    ctx: &Rc<Context>,
    name: &str,
    args: Vec<CallArg>,
    method: bool,
) -> Result<Value> {
    call_args(ctx, name, SmallVec::from_vec(args), method)
}

fn call_args(ctx: &Rc<Context>, name: &str, args: ArgVec, method: bool) -> Result<Value> {
    let layers = ctx.candidates(name, method);
    if layers.is_empty() && method {
        if let Some(CallArg::Val(Value::Object(_))) = args.first() {
            if let Some(f) = ctx.method_fallback() {
                let mut args = args.into_vec();
                let recv = match args.remove(0) {
                    CallArg::Val(v) => v,
                    _ => Value::Null,
                };
                return f(ctx, name, recv, args);
            }
        }
    }
    if layers.is_empty() {
        return Err(Error::new(
            kind_for(method, true),
            format!(
                "Unknown {} \"{}\"",
                if method { "method" } else { "function" },
                name
            ),
        ));
    }
    let ambiguous = || ambiguous_call(method, name);
    let nokw = layers[0][0].nokw;
    if layers.iter().flatten().any(|f| f.nokw != nokw) {
        return Err(ambiguous());
    }
    // Translate named arguments.
    let mut pos: SmallVec<[PosArg; 4]> = SmallVec::new();
    let mut kw: SmallVec<[(Rc<str>, Rc<Expr>); 2]> = SmallVec::new();
    for a in args {
        match a {
            CallArg::Val(v) => pos.push(PosArg::Val(v)),
            CallArg::Expr(e) => pos.push(PosArg::Expr(e)),
            CallArg::Omitted => pos.push(PosArg::Omitted),
            CallArg::Named(k, v) => {
                if nokw {
                    pos.push(PosArg::Rule(k, v));
                } else if let Expr::Keyword(name) = &*k {
                    kw.push((name.clone(), v));
                } else {
                    return Err(Error::new(
                        ErrorKind::MappingTranslation,
                        "Named argument name must be a keyword",
                    ));
                }
            }
        }
    }
    if kw.is_empty()
        && pos.len() <= 64
        && pos
            .iter()
            .all(|a| matches!(a, PosArg::Val(_) | PosArg::Expr(_)))
        && layers.iter().flatten().all(|f| f.kwonly.is_empty())
    {
        return simple_call(ctx, name, &layers, &pos, method);
    }
    // Static filter.
    let rt = ctx.rt.clone();
    let mut bound: SmallVec<[BoundLayer; 2]> = SmallVec::new();
    let mut lazy: Option<Idx> = None;
    for layer in &layers {
        let mut l = SmallVec::<[(Rc<FunctionDef>, Binding); 2]>::new();
        for f in layer {
            if let Some(b) = bind(f, &pos, &kw, &rt) {
                match &lazy {
                    None => lazy = Some(b.lazy.clone()),
                    Some(z) if *z != b.lazy => return Err(ambiguous()),
                    _ => {}
                }
                l.push((f.clone(), b));
            }
        }
        if !l.is_empty() {
            bound.push(l);
        }
    }
    let Some(lazy) = lazy else {
        let got = known_values(&pos);
        return Err(no_matching(name, method, &layers, &describe_values(&got)));
    };
    // Evaluate non-lazy arguments once, left to right.
    let mut pvals: SmallVec<[Option<Value>; 4]> = SmallVec::new();
    for (i, a) in pos.iter().enumerate() {
        pvals.push(match a {
            PosArg::Val(v) => Some(v.clone()),
            PosArg::Expr(e) if !lazy.contains(&i) => Some(eval(e, ctx)?),
            _ => None,
        });
    }
    let mut kvals: SmallVec<[Option<Value>; 2]> = SmallVec::new();
    for (k, (_, e)) in kw.iter().enumerate() {
        kvals.push(if lazy.contains(&(1000 + k)) {
            None
        } else {
            Some(eval(e, ctx)?)
        });
    }
    // Dynamic check, layer by layer.
    let mut winner: Option<(&Rc<FunctionDef>, &Binding, Masks)> = None;
    for layer in &bound {
        for (f, b) in layer {
            if !dyn_ok(f, b, &pvals, &kvals, &rt) {
                continue;
            }
            let m = masks(f, b, pos.len(), kw.len());
            match &winner {
                None => winner = Some((f, b, m)),
                Some((_, _, wm)) => {
                    if more_specific(wm, &m) {
                        continue;
                    } else if more_specific(&m, wm) {
                        winner = Some((f, b, m));
                    } else {
                        return Err(ambiguous());
                    }
                }
            }
        }
        if winner.is_some() {
            break;
        }
    }
    let Some((f, b, _)) = winner else {
        return Err(no_matching(name, method, &layers, &describe_values(&pvals)));
    };
    // Build the arguments.
    let make = |p: &Param, a: &PosArg, v: &Option<Value>| -> Result<ArgValue> {
        Ok(match p.ty {
            PType::Lambda | PType::Expr => match a {
                PosArg::Rule(k, v) => ArgValue::Rule(
                    Lambda {
                        expr: k.clone(),
                        ctx: ctx.clone(),
                    },
                    Lambda {
                        expr: v.clone(),
                        ctx: ctx.clone(),
                    },
                ),
                PosArg::Expr(e) => ArgValue::Lazy(Lambda {
                    expr: e.clone(),
                    ctx: ctx.clone(),
                }),
                PosArg::Val(v) => ArgValue::Lazy(Lambda::constant(v.clone(), ctx)),
                _ => ArgValue::Missing,
            },
            PType::Keyword => match a {
                PosArg::Expr(e) => match &**e {
                    Expr::Keyword(k) => ArgValue::Keyword(k.clone()),
                    _ => ArgValue::Missing,
                },
                _ => ArgValue::Missing,
            },
            PType::Rule => match a {
                PosArg::Rule(k, v) => ArgValue::Rule(
                    Lambda {
                        expr: k.clone(),
                        ctx: ctx.clone(),
                    },
                    Lambda {
                        expr: v.clone(),
                        ctx: ctx.clone(),
                    },
                ),
                _ => ArgValue::Missing,
            },
            PType::Iterable => ArgValue::Value(rt.limit(v.clone().unwrap_or(Value::Null))?),
            _ => ArgValue::Value(v.clone().unwrap_or(Value::Null)),
        })
    };
    let default_of = |p: &Param| match &p.default {
        Some(DefaultValue::Value(v)) => ArgValue::Value(v.clone()),
        _ => ArgValue::Missing,
    };
    let mut out_pos = Vec::with_capacity(b.slots.len());
    for (j, s) in b.slots.iter().enumerate() {
        let p = param_at(f, j);
        out_pos.push(match s {
            Slot::Pos(i) => make(p, &pos[*i], &pvals[*i])?,
            Slot::Kw(k) => make(p, &PosArg::Expr(kw[*k].1.clone()), &kvals[*k])?,
            _ => default_of(p),
        });
    }
    let mut rest = Vec::with_capacity(b.rest.len());
    if let Some(p) = &f.varargs {
        for i in &b.rest {
            rest.push(make(p, &pos[*i], &pvals[*i])?);
        }
    }
    let mut kwout = Vec::new();
    if let Some(p) = &f.kwargs {
        for k in &b.kwrest {
            kwout.push((
                kw[*k].0.clone(),
                make(p, &PosArg::Expr(kw[*k].1.clone()), &kvals[*k])?,
            ));
        }
    }
    let call = Call { ctx, name };
    (f.body)(
        &call,
        Args {
            pos: out_pos,
            rest,
            kw: kwout,
        },
    )
}

/// Output conversion (`#finalize`): materialise lazy sequences recursively,
/// applying the `limitIterators` check, and convert sets as configured.
/// The argument values known without evaluating anything (for error messages).
fn known_values(pos: &[PosArg]) -> Vec<Option<Value>> {
    pos.iter()
        .map(|a| match a {
            PosArg::Val(v) => Some(v.clone()),
            PosArg::Expr(e) => e.const_value(),
            _ => None,
        })
        .collect()
}

fn ambiguous_call(method: bool, name: &str) -> Error {
    let (kind, what) = match method {
        true => (ErrorKind::AmbiguousMethod, "method"),
        false => (ErrorKind::AmbiguousFunction, "function"),
    };
    Error::new(kind, format!("Ambiguous {what} \"{name}\""))
}

pub fn finalize(v: Value, rt: &Runtime) -> Result<Value> {
    Ok(settle(&v, rt)?.unwrap_or(v))
}

/// Rebuild `items` only from the first one that changes: `None` when none does.
fn settle_items<'a>(
    items: impl ExactSizeIterator<Item = &'a Value>,
    rt: &Runtime,
) -> Result<Option<Vec<Value>>> {
    let mut out: Option<Vec<Value>> = None;
    let n = items.len();
    let mut seen: Vec<&Value> = Vec::new();
    for x in items {
        match (settle(x, rt)?, &mut out) {
            (Some(new), Some(out)) => out.push(new),
            (Some(new), None) => {
                let mut v = Vec::with_capacity(n);
                v.extend(seen.drain(..).cloned());
                v.push(new);
                out = Some(v);
            }
            (None, Some(out)) => out.push(x.clone()),
            (None, None) => seen.push(x),
        }
    }
    Ok(out)
}

/// Large lists already found in output form, so that a workflow growing a
/// list of lists (`$l: $l + [...]`) does not walk every inner list again at
/// each step. Entries hold a `Weak`: while one exists the allocation is not
/// reused for another list, and the list cannot be changed in place.
type FinalKey = (usize, bool, bool, i64);

thread_local! {
    static FINAL_LISTS: RefCell<HashMap<FinalKey, Weak<Vec<Value>>>> =
        RefCell::new(HashMap::new());
}

const FINAL_MIN_LEN: usize = 64;
const FINAL_CAPACITY: usize = 1 << 16;

fn final_key(l: &Rc<Vec<Value>>, rt: &Runtime) -> FinalKey {
    let o = &rt.opts;
    (
        Rc::as_ptr(l) as usize,
        o.convert_sets_to_lists,
        o.convert_tuples_to_lists,
        o.limit_iterators,
    )
}

fn known_final(l: &Rc<Vec<Value>>, rt: &Runtime) -> bool {
    l.len() >= FINAL_MIN_LEN
        && FINAL_LISTS.with(|m| {
            m.borrow()
                .get(&final_key(l, rt))
                .and_then(Weak::upgrade)
                .is_some_and(|known| Rc::ptr_eq(&known, l))
        })
}

fn remember_final(l: &Rc<Vec<Value>>, rt: &Runtime) {
    if l.len() < FINAL_MIN_LEN {
        return;
    }
    FINAL_LISTS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= FINAL_CAPACITY {
            m.retain(|_, w| w.strong_count() > 0);
            if m.len() >= FINAL_CAPACITY {
                m.clear();
            }
        }
        m.insert(final_key(l, rt), Rc::downgrade(l));
    });
}

/// The output form of a value, or `None` when it already is one (so a large
/// value that is already final is walked, not copied).
fn settle(v: &Value, rt: &Runtime) -> Result<Option<Value>> {
    let lim = rt.opts.limit_iterators;
    let check = |n: usize| -> Result<()> {
        if lim >= 0 && n as i64 > lim {
            Err(too_large())
        } else {
            Ok(())
        }
    };
    Ok(match v {
        Value::List(l) => {
            check(l.len())?;
            if known_final(l, rt) {
                return Ok(None);
            }
            let settled = settle_items(l.iter(), rt)?;
            if settled.is_none() {
                remember_final(l, rt);
            }
            settled.map(Value::list)
        }
        Value::Iter(it) => {
            let mut out = Vec::new();
            while let Some(x) = it.next()? {
                out.push(finalize(x, rt)?);
                check(out.len())?;
                if out.len().is_multiple_of(4096) {
                    rt.check_bytes(out.len() * std::mem::size_of::<Value>())?;
                }
            }
            Some(Value::list(out))
        }
        Value::Dict(d) => {
            check(d.len())?;
            let mut changed = false;
            let mut entries = Vec::with_capacity(d.len());
            for (k, x) in d.iter() {
                let k2 = settle(k, rt)?;
                unhashable_check(k2.as_ref().unwrap_or(k), k, rt)?;
                let x2 = settle(x, rt)?;
                changed |= k2.is_some() || x2.is_some();
                entries.push((k2, x2));
            }
            changed.then(|| {
                let out: crate::value::Dict = d
                    .iter()
                    .zip(entries)
                    .map(|((k, x), (k2, x2))| {
                        (
                            k2.unwrap_or_else(|| k.clone()),
                            x2.unwrap_or_else(|| x.clone()),
                        )
                    })
                    .collect();
                Value::dict(out)
            })
        }
        Value::Set(s) => {
            check(s.len())?;
            if rt.opts.convert_sets_to_lists {
                let items = settle_items(s.iter(), rt)?;
                Some(Value::list(
                    items.unwrap_or_else(|| s.iter().cloned().collect()),
                ))
            } else {
                let mut changed = false;
                let mut out = crate::value::Set::with_capacity(s.len());
                for x in s.iter() {
                    let x2 = settle(x, rt)?;
                    unhashable_check(x2.as_ref().unwrap_or(x), x, rt)?;
                    changed |= x2.is_some();
                    out.insert(x2.unwrap_or_else(|| x.clone()));
                }
                changed.then(|| Value::set(out))
            }
        }
        _ => None,
    })
}

/// After output conversion, lists (unless tuples are kept), dicts and sets
/// are mutable Python objects and cannot be set members or dict keys.
fn unhashable_check(converted: &Value, original: &Value, rt: &Runtime) -> Result<()> {
    let bad = match converted {
        Value::List(_) => rt.opts.convert_tuples_to_lists || matches!(original, Value::Iter(_)),
        Value::Dict(_) | Value::Set(_) => true,
        _ => false,
    };
    if bad {
        return Err(Error::type_err(format!(
            "unhashable type: '{}'",
            converted.type_name()
        )));
    }
    Ok(())
}

/// A lazy iterator over a vector (helper for the library).
pub fn lazy_vec(v: Vec<Value>) -> Value {
    let mut it = v.into_iter();
    Value::Iter(LazyIter::from_fn(move || Ok(it.next())))
}

fn param_for(f: &FunctionDef, i: usize) -> Option<&Param> {
    f.params.get(i).or(f.varargs.as_ref())
}

/// Does `f` take `n` positional arguments (no keywords)?
fn arity_ok(f: &FunctionDef, n: usize) -> bool {
    if n > f.params.len() && f.varargs.is_none() {
        return false;
    }
    f.params[n.min(f.params.len())..]
        .iter()
        .all(|p| p.default.is_some())
}

/// Resolution for calls with only positional arguments (the common case),
/// without building general bindings.
fn simple_call(
    ctx: &Rc<Context>,
    name: &str,
    layers: &crate::context::Layers,
    pos: &[PosArg],
    method: bool,
) -> Result<Value> {
    let rt = ctx.rt.clone();
    let n = pos.len();
    let mut lazy: Option<u64> = None;
    let mut any = false;
    let ambiguous = || ambiguous_call(method, name);
    // static filter: bit set of surviving candidates per layer
    let mut alive: SmallVec<[SmallVec<[bool; 8]>; 2]> = SmallVec::new();
    for layer in layers {
        let mut l: SmallVec<[bool; 8]> = SmallVec::new();
        for f in layer {
            let mut ok = arity_ok(f, n);
            let mut lz = 0u64;
            if ok {
                for (i, a) in pos.iter().enumerate() {
                    let Some(p) = param_for(f, i) else {
                        ok = false;
                        break;
                    };
                    if !static_ok(p, a, &rt) {
                        ok = false;
                        break;
                    }
                    if p.ty.is_lazy() {
                        lz |= 1 << i;
                    }
                }
            }
            if ok {
                any = true;
                match lazy {
                    None => lazy = Some(lz),
                    Some(z) if z != lz => return Err(ambiguous()),
                    _ => {}
                }
            }
            l.push(ok);
        }
        alive.push(l);
    }
    let Some(lazy) = lazy.filter(|_| any) else {
        let got = known_values(pos);
        return Err(no_matching(name, method, layers, &describe_values(&got)));
    };
    let mut vals: SmallVec<[Option<Value>; 4]> = SmallVec::new();
    for (i, a) in pos.iter().enumerate() {
        vals.push(match a {
            PosArg::Val(v) => Some(v.clone()),
            PosArg::Expr(e) if lazy & (1 << i) == 0 => Some(eval(e, ctx)?),
            _ => None,
        });
    }
    let mut winner: Option<&Rc<FunctionDef>> = None;
    for (layer, alive) in layers.iter().zip(&alive) {
        for (f, ok) in layer.iter().zip(alive) {
            if !*ok {
                continue;
            }
            let fits = (0..n).all(|i| match (&vals[i], param_for(f, i)) {
                (Some(v), Some(p)) if !p.ty.is_lazy() => p.ty.accepts(v, p.nullable, &rt),
                _ => true,
            });
            if !fits {
                continue;
            }
            match winner {
                None => winner = Some(f),
                Some(w) => {
                    let mw: SmallVec<[u32; 6]> = (0..n)
                        .map(|i| param_for(w, i).map(|p| p.ty.mask(p.nullable)).unwrap_or(0))
                        .collect();
                    let mf: SmallVec<[u32; 6]> = (0..n)
                        .map(|i| param_for(f, i).map(|p| p.ty.mask(p.nullable)).unwrap_or(0))
                        .collect();
                    if more_specific(&mw, &mf) {
                        continue;
                    } else if more_specific(&mf, &mw) {
                        winner = Some(f);
                    } else {
                        return Err(ambiguous());
                    }
                }
            }
        }
        if winner.is_some() {
            break;
        }
    }
    let Some(f) = winner else {
        return Err(no_matching(name, method, layers, &describe_values(&vals)));
    };
    let mut out_pos = Vec::with_capacity(f.params.len());
    let mut rest = Vec::new();
    for i in 0..n.max(f.params.len()) {
        let arg = if i < n {
            let p = param_for(f, i).ok_or_else(|| Error::type_err("argument"))?;
            match p.ty {
                PType::Lambda | PType::Expr => match &pos[i] {
                    PosArg::Expr(e) => ArgValue::Lazy(Lambda {
                        expr: e.clone(),
                        ctx: ctx.clone(),
                    }),
                    PosArg::Val(v) => ArgValue::Lazy(Lambda::constant(v.clone(), ctx)),
                    _ => ArgValue::Missing,
                },
                PType::Keyword => match &pos[i] {
                    PosArg::Expr(e) => match &**e {
                        Expr::Keyword(k) => ArgValue::Keyword(k.clone()),
                        _ => ArgValue::Missing,
                    },
                    _ => ArgValue::Missing,
                },
                PType::Iterable => {
                    ArgValue::Value(rt.limit(vals[i].take().unwrap_or(Value::Null))?)
                }
                _ => ArgValue::Value(vals[i].take().unwrap_or(Value::Null)),
            }
        } else {
            match &f.params[i].default {
                Some(DefaultValue::Value(v)) => ArgValue::Value(v.clone()),
                _ => ArgValue::Missing,
            }
        };
        if i < f.params.len() {
            out_pos.push(arg);
        } else {
            rest.push(arg);
        }
    }
    let call = Call { ctx, name };
    (f.body)(
        &call,
        Args {
            pos: out_pos,
            rest,
            kw: Vec::new(),
        },
    )
}
