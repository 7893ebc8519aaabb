//! Overload resolution: which registered function a call means (arity,
//! named arguments, parameter types, layers, laziness), as the reference
//! resolves it, and the call itself.

use super::node::{CodeArg, CodeArgs, NodeId};
use super::site::{DirectSite, Site, SiteCand};
use super::{eval, ArgVec, CallArg, Lambda, Runtime};
use crate::error::{Error, ErrorKind, Result};
use crate::func::context::Context;
use crate::func::context::{Cand, Layers};
use crate::func::{
    ArgKernel, ArgList, ArgValue, Args, Call, DefaultValue, PType, Param, Signature,
};
use crate::parser::{Expr, ExprKind};
use crate::value::Value;
use smallvec::SmallVec;
use std::ptr::NonNull;
use std::rc::Rc;
use std::sync::Arc;

/// Positional argument after keyword translation.
#[derive(Clone)]
pub(super) enum PosArg<'a> {
    Val(Value),
    Expr(&'a Arc<Expr>),
    /// An argument of compiled code: its tree and its node, run by the
    /// evaluation's compiled form (see `code.rs`).
    Code(&'a Arc<Expr>, NodeId),
    Omitted,
    Rule(&'a Arc<Expr>, &'a Arc<Expr>),
    /// A rule of compiled code: its key's and its value's nodes.
    RuleCode(NodeId, NodeId),
    /// A rule whose value is already known (`call()` with keyword values
    /// to a function that takes rules); boxed to keep arguments small.
    RuleValue(Rc<(Arc<Expr>, Value)>),
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
type BoundLayer<'a> = SmallVec<[(Cand<'a>, Binding); 2]>;
type Masks = SmallVec<[u32; 6]>;

fn param_at(f: &Signature, slot_index: usize) -> &Param {
    if slot_index < f.params.len() {
        &f.params[slot_index]
    } else {
        &f.kwonly[slot_index - f.params.len()]
    }
}

fn static_ok(p: &Param, a: &PosArg, rt: &Runtime) -> bool {
    let code;
    let a = match a {
        PosArg::Code(e, _) => {
            code = PosArg::Expr(e);
            &code
        }
        a => a,
    };
    match a {
        PosArg::Rule(..) | PosArg::RuleCode(..) | PosArg::RuleValue(..) => {
            matches!(p.ty, PType::Rule | PType::Lambda)
        }
        PosArg::Omitted => false,
        _ if p.ty == PType::Rule => false,
        PosArg::Expr(e) if p.ty == PType::Keyword => matches!(e.kind, ExprKind::Keyword(_)),
        PosArg::Val(_) if p.ty == PType::Keyword => false,
        PosArg::Expr(e) if p.ty.is_const() => {
            super::const_value(e).is_some_and(|v| p.accepts_const(&v))
        }
        PosArg::Val(_) if p.ty.is_const() => false,
        _ if p.ty.is_lazy() => true,
        PosArg::Expr(e) => match super::const_value(e) {
            Some(v) => p.accepts(&v, rt),
            None => true,
        },
        PosArg::Val(v) => p.accepts(v, rt),
        PosArg::Code(..) => true,
    }
}

fn bind(f: &Signature, pos: &[PosArg], kw: &[(Rc<str>, PosArg)], rt: &Runtime) -> Option<Binding> {
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
            // The reference hands an omitted argument to `*args` as its "no
            // value" marker, which only a parameter taking any object
            // accepts; vetro has no such value and passes null.
            if matches!(a, PosArg::Omitted) {
                if p.ty != PType::Any {
                    return None;
                }
                rest.push(i);
                continue;
            }
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
    for (k, (name, a)) in kw.iter().enumerate() {
        let a = a.clone();
        let idx = f.params.iter().position(|p| *p.name == **name).or_else(|| {
            f.kwonly
                .iter()
                .position(|p| *p.name == **name)
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
    f: &Signature,
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
            Some(v) => p.accepts(v, rt),
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
fn masks(f: &Signature, b: &Binding, npos: usize, nkw: usize) -> SmallVec<[u32; 6]> {
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
pub(super) fn more_specific(a: &[u32], b: &[u32]) -> bool {
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

fn no_matching(name: &str, method: bool, layers: &Layers, vals: &[Option<Value>]) -> Error {
    let cands: Vec<String> = layers.iter().flatten().map(|f| f.signature()).collect();
    let e = Error::new(
        kind_for(method, false),
        format!(
            "No {} \"{}\" matches the arguments ({}); candidates: {}",
            if method { "method" } else { "function" },
            name,
            describe_values(vals),
            cands.join("; ")
        ),
    );
    with_receiver(e, method, vals)
}

/// A resolution error of a method call with the call's receiver (the first
/// argument), when its value is known.
fn with_receiver(e: Error, method: bool, vals: &[Option<Value>]) -> Error {
    match vals.first() {
        Some(Some(recv)) if method => e.with_receiver(recv.clone()),
        _ => e,
    }
}

pub(super) fn call_args(
    ctx: &Rc<Context>,
    name: &str,
    args: ArgVec,
    method: bool,
) -> Result<Value> {
    let layers = ctx.candidates(name, method);
    if layers.is_empty() {
        return no_candidates(ctx, name, args, method);
    }
    let nokw = takes_rules(&layers, method, name, first_value(&args))?;
    let mut pos = PosVec::new();
    let mut kw = KwVec::new();
    translate_named(args, nokw, &mut pos, &mut kw)?;
    call_translated(ctx, name, &layers, &pos, &kw, method)
}

/// A call of compiled code whose arguments are not all positional
/// (`recv`: a method's receiver; `tree`: an argument node's tree): as
/// [`call_args`], with the arguments' nodes run by the compiled form
/// instead of their trees walked.
pub(super) fn call_code_args<'a>(
    ctx: &Rc<Context>,
    name: &str,
    recv: Option<Value>,
    args: &'a CodeArgs,
    tree: impl Fn(NodeId) -> &'a Arc<Expr>,
    method: bool,
) -> Result<Value> {
    let layers = ctx.candidates(name, method);
    if layers.is_empty() {
        let mut all = ArgVec::new();
        all.extend(recv.map(CallArg::Val));
        all.extend(args.call_args());
        return no_candidates(ctx, name, all, method);
    }
    let nokw = takes_rules(&layers, method, name, recv.as_ref())?;
    let mut pos = PosVec::new();
    let mut kw = KwVec::new();
    pos.extend(recv.map(PosArg::Val));
    for a in args.mixed.iter() {
        match *a {
            CodeArg::Pos(id) => pos.push(PosArg::Code(tree(id), id)),
            CodeArg::Omitted => pos.push(PosArg::Omitted),
            CodeArg::Named(k, v) if nokw => pos.push(PosArg::RuleCode(k, v)),
            CodeArg::Named(k, v) => kw.push((keyword_name(tree(k))?, PosArg::Code(tree(v), v))),
        }
    }
    call_translated(ctx, name, &layers, &pos, &kw, method)
}

/// Whether the candidates take `key => value` rules instead of keyword
/// arguments (all must agree).
fn takes_rules(layers: &Layers, method: bool, name: &str, recv: Option<&Value>) -> Result<bool> {
    let nokw = layers[0][0].nokw;
    if layers.iter().flatten().any(|f| f.nokw != nokw) {
        return Err(ambiguous_call(method, name, &[recv.cloned()]));
    }
    Ok(nokw)
}

/// The name of a keyword argument `key => value`.
fn keyword_name(key: &Expr) -> Result<Rc<str>> {
    match &key.kind {
        ExprKind::Keyword(name) => Ok(Rc::from(&**name)),
        _ => Err(Error::new(
            ErrorKind::MappingTranslation,
            "Named argument name must be a keyword",
        )),
    }
}

/// The call once named arguments are keywords or rules.
fn call_translated(
    ctx: &Rc<Context>,
    name: &str,
    layers: &Layers,
    pos: &[PosArg],
    kw: &[(Rc<str>, PosArg)],
    method: bool,
) -> Result<Value> {
    if kw.is_empty()
        && pos.len() <= 64
        && !pos.iter().any(|a| matches!(a, PosArg::Omitted))
        && layers.iter().flatten().all(|f| f.kwonly.is_empty())
    {
        return simple_call(ctx, name, layers, pos, method);
    }
    general_call(ctx, name, layers, pos, kw, method)
}

pub(super) type PosVec<'a> = SmallVec<[PosArg<'a>; 4]>;
type KwVec<'a> = SmallVec<[(Rc<str>, PosArg<'a>); 2]>;

/// No layer defines `name`: the host's method fallback for its objects,
/// else an unknown function/method error.
fn no_candidates(ctx: &Rc<Context>, name: &str, args: ArgVec, method: bool) -> Result<Value> {
    if method {
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
    let e = Error::new(
        kind_for(method, true),
        format!(
            "Unknown {} \"{}\"",
            if method { "method" } else { "function" },
            name
        ),
    );
    Err(with_receiver(e, method, &[first_value(&args).cloned()]))
}

/// The first argument when it is a value already (a method's receiver).
fn first_value<'v>(args: &'v ArgVec) -> Option<&'v Value> {
    match args.first() {
        Some(CallArg::Val(v)) => Some(v),
        _ => None,
    }
}

/// Named arguments become keyword arguments, or `key => value` rules for
/// functions that take no keywords (`nokw`).
#[inline]
fn translate_named<'a>(
    args: ArgVec<'a>,
    nokw: bool,
    pos: &mut PosVec<'a>,
    kw: &mut KwVec<'a>,
) -> Result<()> {
    for a in args {
        match a {
            CallArg::Val(v) => pos.push(PosArg::Val(v)),
            CallArg::Expr(e) => pos.push(PosArg::Expr(e)),
            CallArg::Omitted => pos.push(PosArg::Omitted),
            CallArg::NamedValue(k, v) if !nokw => kw.push((k, PosArg::Val(v))),
            CallArg::NamedValue(k, v) => {
                pos.push(PosArg::RuleValue(Rc::new((
                    Arc::new(Expr::detached(ExprKind::Keyword(Arc::from(&*k)))),
                    v,
                ))));
            }
            CallArg::Named(k, v) if nokw => pos.push(PosArg::Rule(k, v)),
            CallArg::Named(k, v) => kw.push((keyword_name(k)?, PosArg::Expr(v))),
        }
    }
    Ok(())
}

/// The candidates whose parameters can take the arguments before any is
/// evaluated, per layer, and the argument positions they take lazily (all
/// candidates must agree on those).
fn bind_layers<'a>(
    layers: &Layers<'a>,
    pos: &[PosArg],
    kw: &[(Rc<str>, PosArg)],
    rt: &Runtime,
    method: bool,
    name: &str,
) -> Result<(SmallVec<[BoundLayer<'a>; 2]>, Idx)> {
    let mut bound: SmallVec<[BoundLayer<'a>; 2]> = SmallVec::new();
    let mut lazy: Option<Idx> = None;
    for layer in layers {
        let mut l = BoundLayer::new();
        for f in layer {
            if let Some(b) = bind(f, pos, kw, rt) {
                match &lazy {
                    None => lazy = Some(b.lazy.clone()),
                    Some(z) if *z != b.lazy => {
                        return Err(ambiguous_call(method, name, &known_values(pos)))
                    }
                    _ => {}
                }
                l.push((f.clone(), b));
            }
        }
        if !l.is_empty() {
            bound.push(l);
        }
    }
    match lazy {
        Some(lazy) => Ok((bound, lazy)),
        None => {
            let got = known_values(pos);
            Err(no_matching(name, method, layers, &got))
        }
    }
}

/// The most specific candidate of the first layer with one that accepts
/// the evaluated arguments.
fn pick_winner<'a, 'b>(
    bound: &'b [BoundLayer<'a>],
    pvals: &[Option<Value>],
    kvals: &[Option<Value>],
    rt: &Runtime,
    method: bool,
    name: &str,
) -> Result<Option<(&'b Cand<'a>, &'b Binding)>> {
    let mut winner: Option<(&'b Cand<'a>, &Binding, Masks)> = None;
    for layer in bound {
        for (f, b) in layer {
            if !dyn_ok(f, b, pvals, kvals, rt) {
                continue;
            }
            let m = masks(f, b, pvals.len(), kvals.len());
            match &winner {
                None => winner = Some((f, b, m)),
                Some((_, _, wm)) => {
                    if more_specific(wm, &m) {
                        continue;
                    } else if more_specific(&m, wm) {
                        winner = Some((f, b, m));
                    } else {
                        return Err(ambiguous_call(method, name, pvals));
                    }
                }
            }
        }
        if winner.is_some() {
            break;
        }
    }
    Ok(winner.map(|(f, b, _)| (f, b)))
}

/// Resolution in general: keywords, defaults, omitted arguments, rules.
fn general_call(
    ctx: &Rc<Context>,
    name: &str,
    layers: &Layers,
    pos: &[PosArg],
    kw: &[(Rc<str>, PosArg)],
    method: bool,
) -> Result<Value> {
    let rt = ctx.rt.clone();
    let (bound, lazy) = bind_layers(layers, pos, kw, &rt, method, name)?;
    // Evaluate non-lazy arguments once, left to right.
    let mut pvals: SmallVec<[Option<Value>; 4]> = SmallVec::new();
    for (i, a) in pos.iter().enumerate() {
        pvals.push(eager_value(ctx, a, lazy.contains(&i))?);
    }
    let mut kvals: SmallVec<[Option<Value>; 2]> = SmallVec::new();
    for (k, (_, a)) in kw.iter().enumerate() {
        kvals.push(eager_value(ctx, a, lazy.contains(&(1000 + k)))?);
    }
    let Some((f, b)) = pick_winner(&bound, &pvals, &kvals, &rt, method, name)? else {
        return Err(no_matching(name, method, layers, &pvals));
    };
    let args = bound_args(ctx, f, b, pos, kw, &pvals, &kvals)?;
    f.call(&Call { ctx, name }, args)
}

/// One argument in the form its parameter asks for.
fn arg_value(ctx: &Rc<Context>, p: &Param, a: &PosArg, v: &Option<Value>) -> Result<ArgValue> {
    let lambda = |e: &Arc<Expr>| Lambda::new(e.clone(), ctx.clone());
    Ok(match (p.ty, a) {
        (PType::Lambda | PType::Expr | PType::Rule, PosArg::Rule(k, v)) => {
            ArgValue::Rule(Box::new((lambda(k), lambda(v))))
        }
        (PType::Lambda | PType::Expr | PType::Rule, PosArg::RuleCode(k, v)) => {
            ArgValue::Rule(Box::new((code_lambda(ctx, *k), code_lambda(ctx, *v))))
        }
        (PType::Lambda | PType::Expr | PType::Rule, PosArg::RuleValue(rule)) => ArgValue::Rule(
            Box::new((lambda(&rule.0), Lambda::constant(rule.1.clone(), ctx))),
        ),
        (PType::Lambda | PType::Expr, PosArg::Expr(e)) => ArgValue::Lazy(lambda(e)),
        (PType::Lambda | PType::Expr, PosArg::Code(_, id)) => ArgValue::Lazy(code_lambda(ctx, *id)),
        (PType::Lambda | PType::Expr, PosArg::Val(v)) => {
            ArgValue::Lazy(Lambda::constant(v.clone(), ctx))
        }
        (PType::Lambda | PType::Expr | PType::Rule, _) => ArgValue::Missing,
        (t, a) if t.is_const() => const_arg(a),
        (PType::Keyword, PosArg::Expr(e) | PosArg::Code(e, _)) => match &e.kind {
            ExprKind::Keyword(k) => ArgValue::Keyword(k.clone()),
            _ => ArgValue::Missing,
        },
        (PType::Keyword, _) => ArgValue::Missing,
        (PType::Iterable | PType::NonSetIterable, _) => {
            ArgValue::Value(ctx.rt.limit(v.clone().unwrap_or(Value::Null))?)
        }
        _ => ArgValue::Value(v.clone().unwrap_or(Value::Null)),
    })
}

/// The argument of a constant parameter: the literal's value.
fn const_arg(a: &PosArg) -> ArgValue {
    match a {
        PosArg::Expr(e) | PosArg::Code(e, _) => {
            ArgValue::Value(super::const_value(e).unwrap_or(Value::Null))
        }
        _ => ArgValue::Missing,
    }
}

/// The arguments of the chosen overload: parameters, `*args`, `**kwargs`.
fn bound_args(
    ctx: &Rc<Context>,
    f: &Signature,
    b: &Binding,
    pos: &[PosArg],
    kw: &[(Rc<str>, PosArg)],
    pvals: &[Option<Value>],
    kvals: &[Option<Value>],
) -> Result<Args> {
    let default_of = |p: &Param| match &p.default {
        Some(DefaultValue::Value(v)) => ArgValue::Value(Value::from(v)),
        _ => ArgValue::Missing,
    };
    let mut out_pos = ArgList::with_capacity(b.slots.len());
    for (j, s) in b.slots.iter().enumerate() {
        let p = param_at(f, j);
        out_pos.push(match s {
            Slot::Pos(i) => arg_value(ctx, p, &pos[*i], &pvals[*i])?,
            Slot::Kw(k) => arg_value(ctx, p, &kw[*k].1, &kvals[*k])?,
            _ => default_of(p),
        });
    }
    let mut rest = Vec::with_capacity(b.rest.len());
    if let Some(p) = &f.varargs {
        for i in &b.rest {
            rest.push(arg_value(ctx, p, &pos[*i], &pvals[*i])?);
        }
    }
    let mut kwout = Vec::new();
    if let Some(p) = &f.kwargs {
        for k in &b.kwrest {
            kwout.push((kw[*k].0.clone(), arg_value(ctx, p, &kw[*k].1, &kvals[*k])?));
        }
    }
    Ok(Args {
        pos: out_pos,
        rest,
        kw: kwout,
    })
}

/// The argument values known without evaluating anything (for error messages).
fn known_values(pos: &[PosArg]) -> Vec<Option<Value>> {
    pos.iter()
        .map(|a| match a {
            PosArg::Val(v) => Some(v.clone()),
            PosArg::Expr(e) | PosArg::Code(e, _) => super::const_value(e),
            _ => None,
        })
        .collect()
}

/// More than one overload fits equally well (`vals`: the arguments' values
/// known, for the receiver).
fn ambiguous_call(method: bool, name: &str, vals: &[Option<Value>]) -> Error {
    let (kind, what) = match method {
        true => (ErrorKind::AmbiguousMethod, "method"),
        false => (ErrorKind::AmbiguousFunction, "function"),
    };
    with_receiver(
        Error::new(kind, format!("Ambiguous {what} \"{name}\"")),
        method,
        vals,
    )
}

pub(super) fn param_for(f: &Signature, i: usize) -> Option<&Param> {
    f.params.get(i).or(f.varargs.as_ref())
}

/// Does `f` take `n` positional arguments (no keywords)?
fn arity_ok(f: &Signature, n: usize) -> bool {
    if n > f.params.len() && f.varargs.is_none() {
        return false;
    }
    f.params[n.min(f.params.len())..]
        .iter()
        .all(|p| p.default.is_some())
}

/// The lazy argument positions of `f` (a bit each) if its arity and
/// parameters fit the arguments known before the call (`None`: a value known
/// only when the call runs), for the compile stage.
pub(super) fn pre_filter(f: &Signature, pos: &[Option<&Arc<Expr>>], rt: &Runtime) -> Option<u64> {
    if !arity_ok(f, pos.len()) {
        return None;
    }
    let mut lz = 0u64;
    for (i, a) in pos.iter().enumerate() {
        let p = param_for(f, i)?;
        if let Some(e) = a {
            if !static_ok(p, &PosArg::Expr(e), rt) {
                return None;
            }
        }
        if p.ty.is_lazy() {
            lz |= 1 << i;
        }
    }
    Some(lz)
}

/// A call through its compiled site (see `compile.rs`): the site's
/// overloads, those that take a value argument (a receiver) filtered now,
/// resolved as [`simple_call`] does without collecting candidates again.
/// What the site cannot decide (no overload fits, laziness disagrees) goes
/// the general way, which reports it.
pub(super) fn site_call<'a>(
    ctx: &Rc<Context>,
    name: &str,
    site: &Site,
    recv: Option<Value>,
    exprs: impl Iterator<Item = &'a Arc<Expr>>,
    method: bool,
) -> Result<Value> {
    let mut pos = PosVec::new();
    if let Some(r) = recv {
        pos.push(PosArg::Val(r));
    }
    pos.extend(exprs.map(PosArg::Expr));
    resolve_site(ctx, name, site, pos, method)
}

/// A compiled function call of two argument expressions with a direct
/// overload: both are evaluated, and the direct body runs when their kinds
/// pick it; other values are resolved among the site's overloads.
pub(super) fn direct_call(
    ctx: &Rc<Context>,
    name: &str,
    site: &Site,
    direct: &DirectSite,
    a: &Expr,
    b: &Expr,
) -> Result<Value> {
    let x = eval(a, ctx)?;
    let y = eval(b, ctx)?;
    if direct.takes(&x, &y) {
        return direct.call(&x, &y);
    }
    direct_call_values(ctx, name, site, x, y)
}

/// A call of two evaluated values that the site's direct overload does
/// not take: resolved among the site's overloads.
#[cold]
pub(super) fn direct_call_values(
    ctx: &Rc<Context>,
    name: &str,
    site: &Site,
    x: Value,
    y: Value,
) -> Result<Value> {
    let pos = [PosArg::Val(x), PosArg::Val(y)].into_iter().collect();
    resolve_site(ctx, name, site, pos, false)
}

pub(super) fn resolve_site(
    ctx: &Rc<Context>,
    name: &str,
    site: &Site,
    pos: PosVec,
    method: bool,
) -> Result<Value> {
    let rt = &ctx.rt;
    // Which overloads take the value arguments, as bits per layer.
    let mut alive: SmallVec<[u64; 2]> = SmallVec::new();
    let mut lazy: Option<u64> = None;
    let mut agree = true;
    for layer in &site.layers {
        let mut bits = 0u64;
        for (j, c) in layer.iter().enumerate() {
            let ok = site.fixed
                || pos.iter().enumerate().all(|(i, a)| match a {
                    PosArg::Val(_) => param_for(&c.def, i).is_some_and(|p| static_ok(p, a, rt)),
                    _ => true,
                });
            if ok {
                bits |= 1 << j;
                match lazy {
                    None => lazy = Some(c.lazy),
                    Some(z) => agree &= z == c.lazy,
                }
            }
        }
        alive.push(bits);
    }
    let Some(lazy) = lazy.filter(|_| agree) else {
        let args = pos
            .into_iter()
            .map(|a| match a {
                PosArg::Val(v) => CallArg::Val(v),
                PosArg::Expr(e) | PosArg::Code(e, _) => CallArg::Expr(e),
                _ => CallArg::Omitted,
            })
            .collect();
        return call_args(ctx, name, args, method);
    };
    let mut vals = eval_positional(ctx, &pos, lazy)?;
    let mut winner: Option<&SiteCand> = None;
    for (layer, bits) in site.layers.iter().zip(&alive) {
        for (j, c) in layer.iter().enumerate() {
            if bits & (1 << j) == 0 || !fits_values(&c.def, &vals, rt) {
                continue;
            }
            match winner {
                None => winner = Some(c),
                Some(w) if more_specific(&w.masks, &c.masks) => {}
                Some(w) if more_specific(&c.masks, &w.masks) => winner = Some(c),
                Some(_) => return Err(ambiguous_call(method, name, &vals)),
            }
        }
        if winner.is_some() {
            break;
        }
    }
    let Some(c) = winner else {
        // The error lists every overload in scope, as the general way does.
        let all = ctx.candidates(name, method);
        return Err(no_matching(name, method, &all, &vals));
    };
    let args = positional_args(ctx, &c.def, &pos, &mut vals)?;
    (c.def.body)(&Call { ctx, name }, args)
}

/// A lambda over argument node `id` of the compiled form `ctx`'s
/// evaluation runs (with the node's kernel, when it has one).
fn code_lambda(ctx: &Rc<Context>, id: NodeId) -> Lambda {
    let kernel = super::compiled(ctx).and_then(|c| c.kernel(id));
    let kernel = kernel.map(|k| NonNull::from(k) as NonNull<dyn ArgKernel>);
    Lambda::compiled(ctx.clone(), id, kernel)
}

/// The values of positional arguments not taken lazily (`lazy`: a bit per
/// position), evaluated left to right.
fn eval_positional(
    ctx: &Rc<Context>,
    pos: &[PosArg],
    lazy: u64,
) -> Result<SmallVec<[Option<Value>; 4]>> {
    let mut vals = SmallVec::new();
    for (i, a) in pos.iter().enumerate() {
        vals.push(eager_value(ctx, a, lazy & (1 << i) != 0)?);
    }
    Ok(vals)
}

/// The value of an argument, evaluated now unless its parameter takes it
/// lazily (`None`: lazy, or not a value: a rule, a keyword left out).
#[inline(always)]
fn eager_value(ctx: &Rc<Context>, a: &PosArg, lazy: bool) -> Result<Option<Value>> {
    Ok(match a {
        PosArg::Val(v) => Some(v.clone()),
        _ if lazy => None,
        PosArg::Expr(e) => Some(eval(e, ctx)?),
        PosArg::Code(e, id) => Some(super::run_node(e, *id, ctx)?),
        _ => None,
    })
}

/// Does `f` accept the evaluated values (lazy parameters take anything)?
fn fits_values(f: &Signature, vals: &[Option<Value>], rt: &Runtime) -> bool {
    vals.iter()
        .enumerate()
        .all(|(i, v)| match (v, param_for(f, i)) {
            (Some(v), Some(p)) if !p.ty.is_lazy() => p.accepts(v, rt),
            _ => true,
        })
}

type Alive = SmallVec<[SmallVec<[bool; 8]>; 2]>;

/// Resolution for calls with only positional arguments (the common case),
/// without building general bindings.
fn simple_call<'a>(
    ctx: &Rc<Context>,
    name: &str,
    layers: &Layers<'a>,
    pos: &[PosArg],
    method: bool,
) -> Result<Value> {
    let (alive, lazy) = static_filter(layers, pos, &ctx.rt, method, name)?;
    let none_fits = |vals: &[Option<Value>]| no_matching(name, method, layers, vals);
    call_alive(ctx, name, layers, &alive, lazy, pos, method, &none_fits)
}

/// Which candidates can take the arguments before any is evaluated, and
/// the positions they take lazily (all must agree).
fn static_filter(
    layers: &Layers,
    pos: &[PosArg],
    rt: &Runtime,
    method: bool,
    name: &str,
) -> Result<(Alive, u64)> {
    let n = pos.len();
    let mut lazy: Option<u64> = None;
    let mut any = false;
    let ambiguous = || ambiguous_call(method, name, &known_values(pos));
    // static filter: bit set of surviving candidates per layer
    let mut alive: Alive = SmallVec::new();
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
                    if !static_ok(p, a, rt) {
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
        return Err(no_matching(name, method, layers, &got));
    };
    Ok((alive, lazy))
}

/// Evaluate the arguments not taken lazily, pick the most specific
/// candidate of the first layer with one that accepts them, and call it.
#[allow(clippy::too_many_arguments)]
fn call_alive<'a>(
    ctx: &Rc<Context>,
    name: &str,
    layers: &Layers<'a>,
    alive: &Alive,
    lazy: u64,
    pos: &[PosArg],
    method: bool,
    none_fits: &dyn Fn(&[Option<Value>]) -> Error,
) -> Result<Value> {
    let rt = &ctx.rt;
    let n = pos.len();
    let mut vals = eval_positional(ctx, pos, lazy)?;
    let mut winner: Option<&Cand<'a>> = None;
    for (layer, alive) in layers.iter().zip(alive.iter()) {
        for (f, ok) in layer.iter().zip(alive) {
            if !*ok {
                continue;
            }
            if !fits_values(f, &vals, rt) {
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
                        return Err(ambiguous_call(method, name, &vals));
                    }
                }
            }
        }
        if winner.is_some() {
            break;
        }
    }
    let Some(f) = winner else {
        return Err(none_fits(&vals));
    };
    let args = positional_args(ctx, f, pos, &mut vals)?;
    f.call(&Call { ctx, name }, args)
}

/// The arguments of `f` for positional arguments `pos` whose values not
/// taken lazily are `vals` (taken from there), with defaults for the rest.
fn positional_args(
    ctx: &Rc<Context>,
    f: &Signature,
    pos: &[PosArg],
    vals: &mut [Option<Value>],
) -> Result<Args> {
    let rt = &ctx.rt;
    let n = pos.len();
    let mut out_pos = ArgList::new();
    let mut rest = Vec::new();
    for i in 0..n.max(f.params.len()) {
        let arg = if i < n {
            let p = param_for(f, i).ok_or_else(|| Error::type_err("argument"))?;
            match p.ty {
                PType::Lambda | PType::Expr | PType::Rule => arg_value(ctx, p, &pos[i], &None)?,
                PType::Keyword => match &pos[i] {
                    PosArg::Expr(e) | PosArg::Code(e, _) => match &e.kind {
                        ExprKind::Keyword(k) => ArgValue::Keyword(k.clone()),
                        _ => ArgValue::Missing,
                    },
                    _ => ArgValue::Missing,
                },
                t if t.is_const() => const_arg(&pos[i]),
                PType::Iterable | PType::NonSetIterable => {
                    ArgValue::Value(rt.limit(vals[i].take().unwrap_or(Value::Null))?)
                }
                _ => ArgValue::Value(vals[i].take().unwrap_or(Value::Null)),
            }
        } else {
            match &f.params[i].default {
                Some(DefaultValue::Value(v)) => ArgValue::Value(Value::from(v)),
                _ => ArgValue::Missing,
            }
        };
        if i < f.params.len() {
            out_pos.push(arg);
        } else {
            rest.push(arg);
        }
    }
    Ok(Args {
        pos: out_pos,
        rest,
        kw: Vec::new(),
    })
}
