//! The statement executor: expressions, assignments and block constructs.

use super::caught;
use super::types::*;
use super::Rt;
use crate::syntax::data::{Data, Expr};
use crate::syntax::grow::{operand_var, GrowKind, Growth};
use crate::syntax::{Block, Stmt, StmtKind};
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::parser::{Arg, Expr as Ast, ExprKind};
use vetro_yaql::{Context, Session, Value};

/// How a statement ended.
pub(super) enum Flow {
    Next,
    Return(Value),
    Break,
    Continue,
}

/// Per-method executor state.
struct Scope<'a> {
    ctx: &'a Rc<Context>,
    class: &'a Rc<Class>,
    /// The YAQL engine of the class.
    yaql: &'a Session,
    /// Exceptions being handled (innermost last), for `Rethrow`.
    caught: Vec<Exc>,
}

/// One step of an assignment target path.
enum Seg {
    Key(String),
    Index(Arc<Ast>),
}

impl Rt {
    pub(super) fn exec_method_body(
        &self,
        body: &Block,
        ctx: &Rc<Context>,
        class: &Rc<Class>,
    ) -> Result<Flow, Exc> {
        let mut scope = Scope {
            ctx,
            class,
            yaql: self.program.engine_for(class),
            caught: Vec::new(),
        };
        self.exec_block(body, &mut scope)
    }

    fn exec_block(&self, block: &Block, s: &mut Scope<'_>) -> Result<Flow, Exc> {
        for stmt in block {
            match self.exec_stmt(stmt, s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn mark(&self, stmt: &Stmt) {
        self.frames
            .mark_statement(stmt.span.line, stmt.span.col, &stmt.text);
    }

    fn exec_stmt(&self, stmt: &Stmt, s: &mut Scope<'_>) -> Result<Flow, Exc> {
        self.mark(stmt);
        self.limits.charge_step()?;
        let ctx = s.ctx;
        match &stmt.kind {
            StmtKind::Eval(d) => {
                self.eval_data(d, ctx, s.yaql)?;
                Ok(Flow::Next)
            }
            StmtKind::Assign {
                growth: Some(g),
                value,
                ..
            } => {
                self.grow(g, value, ctx, s.yaql)?;
                Ok(Flow::Next)
            }
            StmtKind::Assign { target, value, .. } => {
                let v = self.eval_data(value, ctx, s.yaql)?;
                self.mark(stmt);
                self.assign(target, v, s)?;
                Ok(Flow::Next)
            }
            StmtKind::Return(d) => Ok(Flow::Return(self.eval_data(d, ctx, s.yaql)?)),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.eval_data(cond, ctx, s.yaql)?.truthy() {
                    self.exec_block(then, s)
                } else if let Some(b) = otherwise {
                    self.exec_block(b, s)
                } else {
                    Ok(Flow::Next)
                }
            }
            StmtKind::While { cond, body } => {
                while self.eval_expr(cond, ctx, s.yaql)?.truthy() {
                    match self.exec_block(body, s)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                Ok(Flow::Next)
            }
            StmtKind::For { var, source, body } => {
                let coll = self.eval_data(source, ctx, s.yaql)?;
                for item in self.items(&coll)? {
                    ctx.set(var, item);
                    match self.exec_block(body, s)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                Ok(Flow::Next)
            }
            StmtKind::Repeat { count, body } => {
                let n = self.eval_data(count, ctx, s.yaql)?.as_i64().unwrap_or(0);
                for _ in 0..n.max(0) {
                    match self.exec_block(body, s)? {
                        Flow::Break => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                Ok(Flow::Next)
            }
            StmtKind::Break => Ok(Flow::Break),
            StmtKind::Continue => Ok(Flow::Continue),
            StmtKind::Match {
                value,
                cases,
                default,
            } => {
                let v = self.eval_data(value, ctx, s.yaql)?;
                for (k, b) in cases {
                    if self.eval_data(k, ctx, s.yaql)? == v {
                        return self.exec_block(b, s);
                    }
                }
                match default {
                    Some(b) => self.exec_block(b, s),
                    None => Ok(Flow::Next),
                }
            }
            StmtKind::Switch { cases, default } => {
                let mut any = false;
                for (k, b) in cases {
                    if self.eval_data(k, ctx, s.yaql)?.truthy() {
                        any = true;
                        match self.exec_block(b, s)? {
                            Flow::Next => {}
                            other => return Ok(other),
                        }
                    }
                }
                match default {
                    Some(b) if !any => self.exec_block(b, s),
                    _ => Ok(Flow::Next),
                }
            }
            StmtKind::Parallel { branches, limit } => {
                self.exec_parallel(branches, limit.as_ref(), s)
            }
            StmtKind::Do(b) => self.exec_block(b, s),
            StmtKind::Throw {
                names,
                message,
                extra,
                cause,
            } => Err(self.throw(names, message, extra, cause, s)?),
            StmtKind::Try {
                body,
                catches,
                otherwise,
                finally,
            } => self.exec_try(body, catches, otherwise.as_ref(), finally.as_ref(), s),
            StmtKind::Rethrow => match s.caught.last() {
                Some(e) => Err(e.to_mpl()),
                None => Err(Exc::engine(
                    EngineExc::DslInvalidOperationError,
                    "Rethrow must be inside Catch",
                )),
            },
        }
    }

    /// `Parallel`: every branch as a green thread, at most `limit` at once;
    /// all run to their end and the first failure is raised.
    fn exec_parallel(
        &self,
        branches: &[Block],
        limit: Option<&Data>,
        s: &mut Scope<'_>,
    ) -> Result<Flow, Exc> {
        let ctx = s.ctx;
        let limit = match limit {
            Some(l) => self
                .eval_data(l, ctx, s.yaql)?
                .as_i64()
                .map(|n| n.max(1) as usize),
            None => None,
        };
        let Some(rt) = self.me.upgrade() else {
            return Ok(Flow::Next);
        };
        let tasks: Vec<super::green::Task> = branches
            .iter()
            .map(|b| {
                let (rt, ctx, class, b) = (rt.clone(), ctx.clone(), s.class.clone(), b.clone());
                Box::new(move || rt.exec_method_body(&b, &ctx, &class).map(|_| Value::Null))
                    as super::green::Task
            })
            .collect();
        // Every branch runs to its end; the first failure is raised.
        match self
            .run_green(tasks, limit)
            .into_iter()
            .find_map(Result::err)
        {
            Some(e) => Err(e),
            None => Ok(Flow::Next),
        }
    }

    /// `Try` with its `Catch` clauses, `Else` and `Finally`.
    fn exec_try(
        &self,
        body: &Block,
        catches: &[crate::syntax::CatchClause],
        otherwise: Option<&Block>,
        finally: Option<&Block>,
        s: &mut Scope<'_>,
    ) -> Result<Flow, Exc> {
        let r = match self.exec_block(body, s) {
            Ok(Flow::Next) => match otherwise {
                Some(b) => self.exec_block(b, s),
                None => Ok(Flow::Next),
            },
            Ok(flow) => Ok(flow),
            Err(e) => self.handle(e, catches, s),
        };
        match finally {
            Some(f) => match self.exec_block(f, s)? {
                Flow::Next => r,
                other => Ok(other),
            },
            None => r,
        }
    }

    fn handle(
        &self,
        e: Exc,
        catches: &[crate::syntax::CatchClause],
        s: &mut Scope<'_>,
    ) -> Result<Flow, Exc> {
        if super::limits::is_limit_error(&e) {
            return Err(e);
        }
        let names = e.names();
        for c in catches {
            let mut matched = None;
            if c.with.is_empty() {
                matched = names.first().cloned();
            } else {
                for w in &c.with {
                    // The reference resolves the names as written: an entry
                    // that parses as YAQL (`py:KeyError`) is not evaluated.
                    let raw = match w {
                        Data::Str(text) => text.to_string(),
                        Data::Expr(e) => e.text.to_string(),
                        other => self.limits.py_str(&self.eval_data(other, s.ctx, s.yaql)?)?,
                    };
                    let full = s.class.def.namespaces.resolve(&raw).unwrap_or(raw);
                    if names.contains(&full) {
                        matched = Some(full);
                        break;
                    }
                }
            }
            let Some(name) = matched else { continue };
            if let Some(var) = &c.var {
                let obj = caught::exception_object(&self.program, &self.objects, &e, &name)?;
                s.ctx.set(var, obj);
            }
            s.caught.push(e.clone());
            let r = self.exec_block(&c.body, s);
            s.caught.pop();
            return r;
        }
        Err(e)
    }

    fn throw(
        &self,
        names: &Data,
        message: &Data,
        extra: &Data,
        cause: &Data,
        s: &Scope<'_>,
    ) -> Result<Exc, Exc> {
        let raw = self.eval_data(names, s.ctx, s.yaql)?;
        let list = match &raw {
            Value::List(l) => l
                .iter()
                .map(|n| self.limits.py_str(n))
                .collect::<Result<Vec<_>, Exc>>()?,
            other => vec![self.limits.py_str(other)?],
        };
        let mut resolved = Vec::new();
        for n in list {
            resolved.push(s.class.def.namespaces.resolve(&n).unwrap_or(n));
        }
        let message = match self.eval_data(message, s.ctx, s.yaql)? {
            Value::Null => String::new(),
            v => self.limits.py_str(&v)?,
        };
        let extra = match self.eval_data(extra, s.ctx, s.yaql)? {
            Value::Null => Value::dict(Default::default()),
            v => v,
        };
        let cause = match self.eval_data(cause, s.ctx, s.yaql)? {
            Value::Null => None,
            v => caught::exception_of(&self.objects, &v),
        };
        Ok(Exc::Mpl(Rc::new(MplErr {
            names: resolved,
            message,
            extra,
            frames: self.frames.trace(),
            native: None,
            cause,
        })))
    }

    /// Items of a collection for `For` (dicts give their keys).
    pub(crate) fn items(&self, v: &Value) -> Result<Vec<Value>, Exc> {
        Ok(match v {
            Value::Null => Vec::new(),
            Value::List(l) => l.to_vec(),
            Value::Dict(d) => d.keys().cloned().collect(),
            Value::Set(s) => s.iter().cloned().collect(),
            other => match vetro_yaql::iter::iterate(other, true) {
                Some(mut it) => it.collect_vec().map_err(|e| self.unsmuggle(e))?,
                None => vec![other.clone()],
            },
        })
    }

    // ----- assignments -----

    /// `$l: $l + [$x]`, `$d: $d + {...}`, `$l: $l.append($x)`: the
    /// variable's own list or dict is extended, in place when nothing else
    /// holds it (copied first otherwise, so values stay immutable to YAQL).
    /// A variable holding anything else takes the assignment as written
    /// (`value`, evaluated once); so do operands that are not a list or dict
    /// to add, with the operands evaluated once.
    fn grow(&self, g: &Growth, value: &Data, ctx: &Rc<Context>, yaql: &Session) -> Result<(), Exc> {
        let growable = matches!(
            (g.kind, ctx.get(&g.var)),
            (_, Some(Value::List(_))) | (GrowKind::Concat, Some(Value::Dict(_)))
        );
        if !growable {
            let v = self.eval_data(value, ctx, yaql)?;
            ctx.set(&g.var, v);
            return Ok(());
        }
        let mut operands = Vec::with_capacity(g.operands.len());
        for o in &g.operands {
            operands.push(self.eval_expr(o, ctx, yaql)?);
        }
        let engine = yaql;
        // Results the operator would refuse (more items than
        // `yaql.limitIterators`, too large to build) take the general path,
        // which raises its error.
        let fits = |len: usize| {
            let limit = engine.opts.yaql.limit_iterators;
            (limit < 0 || len as i64 <= limit)
                && len.saturating_mul(vetro_yaql::limits::ITEM_BYTES)
                    < vetro_yaql::limits::MAX_BUILD_BYTES
        };
        let (list, dict) = match &ctx.get(&g.var) {
            Some(Value::List(l)) => (Some(l.clone()), None),
            Some(Value::Dict(d)) => (None, Some(d.clone())),
            _ => (None, None),
        };
        let grown = match (g.kind, list, dict, operands.as_mut_slice()) {
            (GrowKind::Concat, Some(mut l), _, [Value::List(extra)])
                if fits(l.len() + extra.len()) =>
            {
                ctx.set(&g.var, Value::Null); // the variable lets go of it
                l.extend(extra.iter());
                Value::List(l)
            }
            (GrowKind::Concat, _, Some(mut d), [Value::Dict(extra)])
                if fits(d.len() + extra.len()) =>
            {
                ctx.set(&g.var, Value::Null);
                let m = &mut d;
                for (k, v) in extra.iter() {
                    m.insert(k.clone(), v.clone());
                }
                Value::Dict(d)
            }
            (GrowKind::Append, Some(mut l), _, extra) if fits(l.len() + extra.len()) => {
                ctx.set(&g.var, Value::Null);
                let extra = extra.iter_mut().map(|v| std::mem::replace(v, Value::Null));
                l.extend(extra);
                Value::List(l)
            }
            _ => {
                let scope = ctx.child();
                for (i, v) in operands.into_iter().enumerate() {
                    scope.set(&operand_var(i), v);
                }
                self.eval_expr(&g.general, &scope, yaql)?
            }
        };
        ctx.set(&g.var, grown);
        Ok(())
    }

    fn assign(&self, target: &Expr, value: Value, s: &Scope<'_>) -> Result<(), Exc> {
        let (parsed, target) = (&target.parsed, &*target.text);
        let mut segs = Vec::new();
        let mut node: &Ast = &parsed.ast;
        loop {
            match &node.kind {
                ExprKind::Dot { recv, rhs, .. } => match &rhs.kind {
                    ExprKind::Keyword(k) => {
                        segs.push(Seg::Key(k.to_string()));
                        node = recv;
                    }
                    _ => return Err(invalid_lhs(target)),
                },
                ExprKind::Call { name, args, .. } if &**name == "#indexer" && args.len() == 2 => {
                    let (Arg::Pos(base), Arg::Pos(idx)) = (&args[0], &args[1]) else {
                        return Err(invalid_lhs(target));
                    };
                    segs.push(Seg::Index(idx.clone()));
                    node = base;
                }
                ExprKind::Wrap(inner) => node = inner,
                _ => break,
            }
        }
        segs.reverse();
        let ctx = s.ctx;
        if let ExprKind::Var(name) = &node.kind {
            let name = &**name;
            if segs.is_empty() {
                if name == "1" || name == "this" {
                    return Err(invalid_lhs(target));
                }
                ctx.set(name, value);
                return Ok(());
            }
            let base = ctx.get(name).unwrap_or(Value::Null);
            if is_object_like(&base) {
                return self.assign_into_object(&base, &segs, value, s);
            }
            let new = self.set_path(base, &segs, value, s)?;
            ctx.set(name, new);
            return Ok(());
        }
        let base = self
            .program
            .yaql()
            .evaluate_in(
                &vetro_yaql::Expression::from_tree(Arc::from(target), Arc::new(node.clone())),
                ctx,
            )
            .map_err(|e| self.unsmuggle(e))?;
        if is_object_like(&base) && !segs.is_empty() {
            return self.assign_into_object(&base, &segs, value, s);
        }
        Err(invalid_lhs(target))
    }

    fn seg_key(&self, seg: &Seg, s: &Scope<'_>) -> Result<Value, Exc> {
        Ok(match seg {
            Seg::Key(k) => Value::str(k),
            Seg::Index(e) => vetro_yaql::eval::eval(e, s.ctx).map_err(|e| self.unsmuggle(e))?,
        })
    }

    fn assign_into_object(
        &self,
        obj: &Value,
        segs: &[Seg],
        value: Value,
        s: &Scope<'_>,
    ) -> Result<(), Exc> {
        let prop = match &self.seg_key(&segs[0], s)? {
            Value::Str(p) => p.to_string(),
            other => self.limits.py_str(other)?,
        };
        if segs.len() == 1 {
            return self.set_property(obj, &prop, value, Some(s.class), false);
        }
        let current = match self.get_property(obj, &prop, Some(s.class)) {
            Ok(v) => v,
            Err(e) if e.is(EngineExc::UninitializedPropertyAccessError) => {
                Value::dict(Default::default())
            }
            Err(e) => return Err(e),
        };
        if is_object_like(&current) {
            return self.assign_into_object(&current, &segs[1..], value, s);
        }
        let new = self.set_path(current, &segs[1..], value, s)?;
        self.set_property(obj, &prop, new, Some(s.class), false)
    }

    /// A copy of `base` with the value at `segs` replaced.
    fn set_path(
        &self,
        base: Value,
        segs: &[Seg],
        value: Value,
        s: &Scope<'_>,
    ) -> Result<Value, Exc> {
        let Some(first) = segs.first() else {
            return Ok(value);
        };
        let key = self.seg_key(first, s)?;
        match &base {
            Value::List(l) if key.as_i64().is_some() => {
                let mut items = l.to_vec();
                let i = key.as_i64().unwrap_or(0);
                let len = items.len() as i64;
                let idx = if i < 0 { i + len } else { i };
                if idx < 0 || idx >= len {
                    return Err(Exc::engine(
                        EngineExc::IndexError,
                        "list index out of range",
                    ));
                }
                let cur = items[idx as usize].clone();
                items[idx as usize] = self.set_path(cur, &segs[1..], value, s)?;
                Ok(Value::list(items))
            }
            Value::Dict(d) => {
                let mut m = d.clone();
                let cur = m
                    .get(&key)
                    .cloned()
                    .unwrap_or(Value::dict(Default::default()));
                let new = self.set_path(cur, &segs[1..], value, s)?;
                m.insert(key, new);
                Ok(Value::dict(m))
            }
            Value::Null => {
                let mut m = vetro_yaql::value::Dict::new();
                let new = self.set_path(Value::dict(Default::default()), &segs[1..], value, s)?;
                m.insert(key, new);
                Ok(Value::dict(m))
            }
            other if is_object_like(other) => {
                self.assign_into_object(other, segs, value, s)?;
                Ok(base)
            }
            _ => Err(Exc::engine(
                EngineExc::InvalidLhsTargetError,
                "Invalid assignment target",
            )),
        }
    }
}

/// Names of the variables a block can assign (GC roots of a running method).
pub(super) fn var_names(block: &Block, out: &mut Vec<String>) {
    for s in block {
        match &s.kind {
            StmtKind::Assign { target, .. } => {
                if let Some(rest) = target.text.strip_prefix('$') {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.push(name);
                    }
                }
            }
            StmtKind::If {
                then, otherwise, ..
            } => {
                var_names(then, out);
                if let Some(b) = otherwise {
                    var_names(b, out);
                }
            }
            StmtKind::While { body, .. } | StmtKind::Repeat { body, .. } | StmtKind::Do(body) => {
                var_names(body, out)
            }
            StmtKind::For { var, body, .. } => {
                out.push(var.clone());
                var_names(body, out);
            }
            StmtKind::Match { cases, default, .. } | StmtKind::Switch { cases, default } => {
                for (_, b) in cases {
                    var_names(b, out);
                }
                if let Some(b) = default {
                    var_names(b, out);
                }
            }
            StmtKind::Parallel { branches, .. } => branches.iter().for_each(|b| var_names(b, out)),
            StmtKind::Try {
                body,
                catches,
                otherwise,
                finally,
            } => {
                var_names(body, out);
                for c in catches {
                    if let Some(v) = &c.var {
                        out.push(v.clone());
                    }
                    var_names(&c.body, out);
                }
                for b in [otherwise, finally].into_iter().flatten() {
                    var_names(b, out);
                }
            }
            _ => {}
        }
    }
}

fn is_object_like(v: &Value) -> bool {
    as_object(v).is_some() || as_type(v).is_some()
}

fn invalid_lhs(target: &str) -> Exc {
    Exc::engine(
        EngineExc::InvalidLhsTargetError,
        format!("Invalid assignment target {target}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::ClassSource;
    use crate::syntax::grow::growth;

    /// Run `$target: value` as a growth over `start` in `$l` (and `$m` when
    /// `shared`, holding the same list): the list `$l` holds after it.
    fn grow_once(value: &str, start: Value, shared: bool) -> (Value, Value) {
        let rt = Rt::new(ClassSource::default(), serde_json::Value::Null);
        let target = Expr::parse("$l", Default::default()).expect("parses");
        let value = Expr::parse(value, Default::default()).expect("parses");
        let g = growth(&target, &value).expect("a growth");
        let ctx = rt.program.yaql().context();
        let value = Data::Expr(value);
        ctx.set("l", start.clone());
        if shared {
            ctx.set("m", start);
        } else {
            drop(start);
        }
        rt.grow(&g, &value, &ctx, rt.program.yaql()).expect("grows");
        (
            ctx.get("l").expect("set"),
            ctx.get("m").unwrap_or(Value::Null),
        )
    }

    fn list_ptr(v: &Value) -> usize {
        match v {
            Value::List(l) => l.buffer_address(),
            other => panic!("not a list: {other:?}"),
        }
    }

    #[test]
    fn an_unshared_list_grows_in_place() {
        // Room for the new items: written into the same buffer (a buffer
        // without room would move as a whole, as a vector does).
        let mut items = Vec::with_capacity(2);
        items.push(Value::Int(1));
        let start = Value::list(items);
        let before = list_ptr(&start);
        let (after, _) = grow_once("$l + [2]", start, false);
        assert_eq!(list_ptr(&after), before);
        assert_eq!(after, Value::list(vec![Value::Int(1), Value::Int(2)]));
        let start = Value::list(Vec::with_capacity(2));
        let before = list_ptr(&start);
        let (after, _) = grow_once("$l.append(3, 4)", start, false);
        assert_eq!(list_ptr(&after), before);
        assert_eq!(after, Value::list(vec![Value::Int(3), Value::Int(4)]));
    }

    #[test]
    fn a_shared_list_grows_and_its_other_holder_keeps_it() {
        // No room left in the buffer: the items are copied once, with room.
        let start = Value::list(vec![Value::Int(1)]);
        let before = list_ptr(&start);
        let (after, other) = grow_once("$l + [2]", start, true);
        assert_ne!(list_ptr(&after), before);
        assert_eq!(list_ptr(&other), before);
        assert_eq!(other, Value::list(vec![Value::Int(1)]));
        assert_eq!(after, Value::list(vec![Value::Int(1), Value::Int(2)]));
        // Room left: the new item goes into the shared buffer, and the
        // other holder still sees its own items only.
        let mut items = Vec::with_capacity(4);
        items.push(Value::Int(1));
        let start = Value::list(items);
        let before = list_ptr(&start);
        let (after, other) = grow_once("$l.append(2, 3)", start, true);
        assert_eq!(list_ptr(&after), before);
        assert_eq!(other, Value::list(vec![Value::Int(1)]));
        assert_eq!(after, Value::list((1..=3).map(Value::Int).collect()));
    }
}
