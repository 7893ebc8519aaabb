//! Contracts: data shapes (lists, dicts, literals) and the contract functions
//! (`int()`, `string()`, `class()`, `check()`, ...) evaluated with `$` = value.

use super::limits::SessionLimits;
use super::reg::TypeRef;
use super::types::*;
use super::walk::Walk;
use super::{FrameInfo, Rt, FRAME_VAR};
use crate::engine_fn;
use crate::syntax::data::Data;
use std::rc::Rc;
use vetro_yaql::value::List;
use vetro_yaql::{Call, EngineBuilder, Lambda, Value};

const OWNER_VAR: &str = "#cowner";

impl Rt {
    /// Check (and transform) `value` against a contract written in `class`.
    pub(super) fn check_contract(
        &self,
        spec: &Data,
        value: Value,
        class: &Rc<Class>,
        owner: Option<&Rc<Object>>,
        label: &dyn Fn() -> String,
    ) -> Result<Value, Exc> {
        let mut walk = Walk::bounded_by_caller(&self.limits);
        self.contract(spec, value, class, owner, &mut walk)
            .map_err(|e| match e {
                Exc::Native(n, f)
                    if n.class == EngineExc::ContractViolationException
                        && !n.message.starts_with('[') =>
                {
                    Exc::Native(
                        Rc::new(NativeErr {
                            class: n.class.clone(),
                            message: format!("[{}] {}", label(), n.message),
                        }),
                        f,
                    )
                }
                other => other,
            })
    }

    /// The contract's nesting bounds the recursion; `walk` counts the items
    /// checked, as a value sharing its parts (`[$l, $l]` in a loop) checked
    /// against nested list contracts has exponentially many.
    fn contract(
        &self,
        spec: &Data,
        value: Value,
        class: &Rc<Class>,
        owner: Option<&Rc<Object>>,
        walk: &mut Walk<'_>,
    ) -> Result<Value, Exc> {
        match spec {
            Data::Null => Ok(value),
            Data::Expr(e) => {
                // Lazy values go through YAQL, which also materialises them.
                if !matches!(value, Value::Iter(_)) {
                    if let Some(plan) = self.program.contract_plan(e) {
                        return self.run_plan(&plan, value, class, owner);
                    }
                }
                let yaql = self.program.contracts_for(class);
                let ctx = yaql.context();
                ctx.set("1", value);
                let this = match owner {
                    Some(o) => o.value(),
                    None => class.type_value(),
                };
                ctx.set(
                    FRAME_VAR,
                    Value::Object(Rc::new(FrameInfo {
                        class: class.clone(),
                        this: this.clone(),
                    })),
                );
                if let Some(o) = owner {
                    ctx.set(OWNER_VAR, o.value());
                }
                ctx.set("this", this);
                self.eval_expr(e, &ctx, yaql)
            }
            Data::List(items, _) => self.list_contract(items, value, class, owner, walk),
            Data::Map(entries, _) => self.dict_contract(entries, value, class, owner, walk),
            literal => {
                let yaql = self.program.contracts_for(class);
                let want = self.eval_data(literal, yaql.host_context(), yaql)?;
                if want == value {
                    Ok(value)
                } else {
                    Err(Exc::contract(format!(
                        "Value {} is not equal to {}",
                        self.limits.py_str(&value)?,
                        self.limits.py_str(&want)?
                    )))
                }
            }
        }
    }

    fn list_contract(
        &self,
        items: &[Data],
        value: Value,
        class: &Rc<Class>,
        owner: Option<&Rc<Object>>,
        walk: &mut Walk<'_>,
    ) -> Result<Value, Exc> {
        let list: Vec<Value> = match &value {
            Value::Null => Vec::new(),
            Value::List(_) | Value::Set(_) | Value::Iter(_) => self.items(&value)?,
            other => vec![other.clone()],
        };
        let mut specs: Vec<&Data> = items.iter().collect();
        let mut counts = Vec::new();
        while let Some(Data::Int(n)) = specs.last() {
            counts.insert(0, *n);
            specs.pop();
        }
        let len = list.len() as i64;
        match counts.as_slice() {
            [min] if len < *min => {
                return Err(Exc::contract(format!(
                    "Array length {len} must not be less than {min}"
                )))
            }
            [min, max, ..] if len < *min || len > *max => {
                return Err(Exc::contract(format!(
                    "Array length {len} is not within [{min}..{max}] range"
                )))
            }
            _ => {}
        }
        if specs.is_empty() {
            return Ok(Value::list(list));
        }
        let mut out = Vec::with_capacity(list.len());
        for (i, v) in list.into_iter().enumerate() {
            let spec = specs[i.min(specs.len() - 1)];
            walk.tick()?;
            out.push(self.contract(spec, v, class, owner, walk)?);
        }
        Ok(Value::list(out))
    }

    fn dict_contract(
        &self,
        entries: &[(Data, Data)],
        value: Value,
        class: &Rc<Class>,
        owner: Option<&Rc<Object>>,
        walk: &mut Walk<'_>,
    ) -> Result<Value, Exc> {
        let dict = match &value {
            Value::Null => vetro_yaql::value::Dict::new(),
            Value::Dict(d) => d.clone(),
            other => {
                return Err(Exc::contract(format!(
                    "Value {} is not of a dictionary type",
                    self.limits.py_str(other)?
                )))
            }
        };
        if entries.is_empty() {
            return Ok(Value::dict(dict));
        }
        let exprs: Vec<&(Data, Data)> = entries
            .iter()
            .filter(|(k, _)| k.as_expr().is_some())
            .collect();
        if exprs.len() > 1 {
            return Err(Exc::engine(
                EngineExc::DslContractSyntaxError,
                "Dictionary contract cannot have more than one expression key",
            ));
        }
        let mut out = vetro_yaql::value::Dict::new();
        let mut literal_keys = Vec::new();
        for (k, spec) in entries {
            if k.as_expr().is_some() {
                continue;
            }
            let yaql = self.program.contracts_for(class);
            let key = self.eval_data(k, yaql.host_context(), yaql)?;
            let v = dict.get(&key).cloned().unwrap_or(Value::Null);
            walk.tick()?;
            let v = self.contract(spec, v, class, owner, walk)?;
            literal_keys.push(key.clone());
            out.insert(key, v);
        }
        if let Some((kspec, vspec)) = exprs.first() {
            for (k, v) in &dict {
                if literal_keys.contains(k) {
                    continue;
                }
                walk.tick()?;
                let k2 = self.contract(kspec, k.clone(), class, owner, walk)?;
                let v2 = self.contract(vspec, v.clone(), class, owner, walk)?;
                out.insert(k2, v2);
            }
        }
        Ok(Value::dict(out))
    }
}

fn owner_of(c: &Call) -> Option<Rc<Object>> {
    c.ctx
        .get(OWNER_VAR)
        .and_then(|v| as_object(&v).map(|(o, _)| o))
}

/// Register the contract functions in a class set's contract engine (see
/// `engines.rs`).
pub(super) fn register_contract_functions(layer: &mut EngineBuilder) {
    layer.register(engine_fn!(Method "int", |rt, _c| (value: &Value) {
        int_contract(value, &rt.limits)
    }));
    layer.register(engine_fn!(Method "string", |rt, _c| (value: &Value) {
        string_contract(value, &rt.limits)
    }));
    layer.register(engine_fn!(Method "bool", |_rt, _c| (value: &Value) {
        Ok(bool_contract(value))
    }));
    layer.register(engine_fn!(Method "notNull", |_rt, _c| (value: &Value) {
        not_null_contract(value)
    }));
    layer.register(engine_fn!(Method "check", |rt, _c| (
        value: Value,
        predicate: &Lambda,
        msg: Option<&str> = Null,
    ) {
        if predicate.call1(value.clone()).map_err(|e| rt.unsmuggle(e))?.truthy() {
            return Ok(value);
        }
        Err(Exc::contract(match msg {
            None => format!("Value {} doesn't match predicate", rt.limits.py_str(&value)?),
            Some(m) => m.to_string(),
        }))
    }));
    layer.register(engine_fn!(Method "class", |rt, c| (
        value: Value,
        name: TypeRef,
        defaultName: Option<TypeRef> = Null,
        versionSpec: Option<&str> = Null,
    ) {
        let Some(t) = instance_types(rt, c, &value, &name, defaultName)? else {
            return Ok(value);
        };
        let owner = contract_owner(rt, c);
        rt.class_contract(value, &t.scope, &t.want, &t.default, owner)
    }));
    layer.register(engine_fn!(Method "template", |rt, c| (
        value: Value,
        type_: TypeRef,
        defaultType: Option<TypeRef> = Null,
        versionSpec: Option<&str> = Null,
        excludeProperties: Option<&List> = Null,
    ) {
        let Some(t) = instance_types(rt, c, &value, &type_, defaultType)? else {
            return Ok(value);
        };
        let exclude = excludeProperties.map_or(Value::Null, |l| Value::List(l.clone()));
        let owner = contract_owner(rt, c);
        rt.template_value(&value, &t.scope, &t.want, &t.default, &exclude, owner)
    }));
    for (name, wanted) in [("owned", true), ("notOwned", false)] {
        layer.register(engine_fn!(Method name, |rt, c| (value: Value) {
            if value.is_null() {
                return Ok(value);
            }
            let held = match (as_object(&value), owner_of(c)) {
                (Some((o, _)), Some(me)) => o.owned_by(&me),
                _ => false,
            };
            if held == wanted {
                Ok(value)
            } else {
                Err(Exc::contract(format!(
                    "Object {} violates {name}() contract",
                    rt.limits.py_str(&value)?
                )))
            }
        }));
    }
}

/// The calling class, the type `class()` or `template()` wants and the
/// type of a model without one.
struct InstanceTypes {
    scope: Rc<Class>,
    want: Rc<Class>,
    default: Rc<Class>,
}

/// The types of `class()` or `template()`; none for a null value or
/// outside a method (the value passes as it is).
fn instance_types(
    rt: &Rt,
    c: &Call,
    value: &Value,
    want: &TypeRef,
    default: Option<TypeRef>,
) -> Result<Option<InstanceTypes>, Exc> {
    if value.is_null() {
        return Ok(None);
    }
    let Some((scope, _)) = Rt::frame_of(c.ctx) else {
        return Ok(None);
    };
    let want = rt.program.type_arg(&scope, want.0)?;
    let default = match default {
        None => want.clone(),
        Some(d) => rt.program.type_arg(&scope, d.0)?,
    };
    Ok(Some(InstanceTypes {
        scope,
        want,
        default,
    }))
}

/// The owner a model that a contract loads gets (none for a call from
/// outside the session).
fn contract_owner(rt: &Rt, c: &Call) -> Option<Rc<Object>> {
    if rt.loading.external_call() {
        None
    } else {
        owner_of(c)
    }
}

/// `int()`: integers, and what converts to one (digit strings, floats, bools).
pub(super) fn int_contract(v: &Value, limits: &SessionLimits) -> Result<Value, Exc> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(_) | Value::BigInt(_) => v.clone(),
        Value::Bool(b) => Value::Int(*b as i64),
        Value::Float(f) if f.is_finite() => Value::Int(f.trunc() as i64),
        Value::Str(s) => match s.trim().parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => {
                return Err(Exc::contract(format!(
                    "Value {} violates int() contract",
                    limits.repr(v)?
                )))
            }
        },
        other => {
            return Err(Exc::contract(format!(
                "Value {} violates int() contract",
                limits.repr(other)?
            )))
        }
    })
}

/// `string()`: strings, scalars as their text, objects as their id.
pub(super) fn string_contract(v: &Value, limits: &SessionLimits) -> Result<Value, Exc> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Str(_) => v.clone(),
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => Value::str(&v.py_str()),
        other => match as_object(other) {
            Some((o, _)) => Value::str(&o.id),
            None => {
                return Err(Exc::contract(format!(
                    "Value {} violates string() contract",
                    limits.repr(other)?
                )))
            }
        },
    })
}

/// `bool()`: the truth of any non-null value.
pub(super) fn bool_contract(v: &Value) -> Value {
    if v.is_null() {
        Value::Null
    } else {
        Value::Bool(v.truthy())
    }
}

pub(super) fn not_null_contract(v: &Value) -> Result<Value, Exc> {
    if v.is_null() {
        Err(Exc::contract("null value violates notNull() contract"))
    } else {
        Ok(v.clone())
    }
}

impl Rt {
    /// `class(want, default)` on a non-null value: an object, an id, or a model
    /// to load (owned by `owner`).
    pub(super) fn class_contract(
        &self,
        v: Value,
        scope: &Rc<Class>,
        want: &Rc<Class>,
        default: &Rc<Class>,
        owner: Option<Rc<Object>>,
    ) -> Result<Value, Exc> {
        let obj = match &v {
            Value::Dict(_) => self.load_model_value(&v, owner, scope, Some(default), false)?,
            Value::Str(id) => match self.lookup_or_load(id, scope) {
                Some(o) => o,
                None => {
                    return Err(Exc::engine(
                        EngineExc::NoObjectFoundError,
                        format!("Object \"{id}\" is not found in object store"),
                    ))
                }
            },
            other => match as_object(other) {
                Some((o, _)) => o,
                None => {
                    return Err(Exc::contract(format!(
                        "Value {} is not an object",
                        self.limits.py_str(other)?
                    )))
                }
            },
        };
        if !obj.class.is_a(&want.name) {
            return Err(Exc::contract(format!(
                "Object of type {} is not compatible with requested type {}",
                obj.class.name, want.name
            )));
        }
        Ok(obj.value())
    }
}
