//! Reflection (`typeinfo()`): type, method, argument, property, package and
//! version objects with their properties and methods.

use super::types::CallKind;
use super::types::*;
use super::Rt;
use crate::syntax::{ArgUsage, ClassUsage, MethodUsage, PropUsage};
use std::any::Any;
use std::rc::{Rc, Weak};
use vetro_yaql::{HostObject, Value};

/// A reflection object.
pub(super) enum Reflect {
    Type(Rc<Class>),
    Method(Rc<Class>, String),
    Arg(Rc<Class>, String, usize),
    Prop(Rc<Class>, String),
    Package(Rc<Class>),
    Version(String),
}

/// Reflection objects keep a handle to their runtime for property reads.
pub(super) struct ReflectHandle {
    rt: Weak<Rt>,
    pub(super) r: Reflect,
}

impl HostObject for ReflectHandle {
    fn type_name(&self) -> &str {
        match &self.r {
            Reflect::Type(_) => "TypeInfo",
            Reflect::Method(..) => "MethodInfo",
            Reflect::Arg(..) => "ArgumentInfo",
            Reflect::Prop(..) => "PropertyInfo",
            Reflect::Package(_) => "PackageInfo",
            Reflect::Version(_) => "Version",
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn get_property(&self, name: &str) -> Option<vetro_yaql::Result<Value>> {
        let rt = self.rt.upgrade()?;
        Some(rt.reflect_get(&self.r, name).map_err(|e| rt.smuggle(e)))
    }
    fn to_str(&self) -> String {
        match &self.r {
            Reflect::Version(v) => v.clone(),
            Reflect::Type(c) => c.name.clone(),
            Reflect::Method(_, m) => m.clone(),
            Reflect::Prop(_, p) => p.clone(),
            Reflect::Package(c) => c.pkg.name.clone(),
            Reflect::Arg(c, m, i) => c
                .def
                .methods
                .get(m)
                .and_then(|m| m.args.get(*i))
                .map(|a| a.name.clone())
                .unwrap_or_default(),
        }
    }
}

pub(super) fn as_reflect(v: &Value) -> Option<&ReflectHandle> {
    match v {
        Value::Object(h) => h.as_any().downcast_ref::<ReflectHandle>(),
        _ => None,
    }
}

fn prop_usage(u: PropUsage) -> &'static str {
    match u {
        PropUsage::In => "In",
        PropUsage::Out => "Out",
        PropUsage::InOut => "InOut",
        PropUsage::Const => "Const",
        PropUsage::Runtime => "Runtime",
        PropUsage::Config => "Config",
        PropUsage::Static => "Static",
    }
}

impl Rt {
    pub(super) fn reflect(&self, r: Reflect) -> Value {
        if let Reflect::Type(c) = &r {
            return self.objects.type_info(&c.name, || {
                Value::Object(Rc::new(ReflectHandle {
                    rt: self.me.clone(),
                    r: Reflect::Type(c.clone()),
                }))
            });
        }
        Value::Object(Rc::new(ReflectHandle {
            rt: self.me.clone(),
            r,
        }))
    }

    pub(super) fn reflect_get(&self, r: &Reflect, name: &str) -> Result<Value, Exc> {
        let missing = || {
            Exc::engine(
                EngineExc::NoPropertyFound,
                format!("Property \"{name}\" is not found"),
            )
        };
        Ok(match r {
            Reflect::Type(c) => match name {
                "name" => Value::str(&c.name),
                "usage" => Value::str(if c.def.usage == ClassUsage::Meta {
                    "Meta"
                } else {
                    "Class"
                }),
                "version" => self.reflect(Reflect::Version(c.pkg.version.clone())),
                "package" => self.reflect(Reflect::Package(c.clone())),
                "type" => c.type_value(),
                "ancestors" => Value::list(
                    c.ancestors
                        .iter()
                        .map(|a| self.reflect(Reflect::Type(a.clone())))
                        .collect(),
                ),
                "methods" => {
                    let mut seen = Vec::new();
                    let mut out = Vec::new();
                    for k in c.mro() {
                        for m in k.def.methods.keys() {
                            if !seen.contains(m) {
                                seen.push(m.clone());
                                out.push(self.reflect(Reflect::Method(k.clone(), m.clone())));
                            }
                        }
                    }
                    Value::list(out)
                }
                "properties" => {
                    let mut seen = Vec::new();
                    let mut out = Vec::new();
                    for k in c.mro() {
                        for p in k.def.properties.keys() {
                            if !seen.contains(p) {
                                seen.push(p.clone());
                                out.push(self.reflect(Reflect::Prop(k.clone(), p.clone())));
                            }
                        }
                    }
                    Value::list(out)
                }
                "meta" => self.class_meta(c)?,
                "inherited" => Value::Bool(c.def.inherited),
                "cardinality" => Value::str(if c.def.cardinality_many {
                    "Many"
                } else {
                    "One"
                }),
                "targets" => Value::list(c.def.applies.iter().map(|s| Value::str(s)).collect()),
                _ => return Err(missing()),
            },
            Reflect::Method(c, m) => {
                let def = c.def.methods.get(m).ok_or_else(missing)?;
                match name {
                    "name" => Value::str(m),
                    "declaringType" => self.reflect(Reflect::Type(c.clone())),
                    "arguments" => Value::list(
                        (0..def.args.len())
                            .map(|i| self.reflect(Reflect::Arg(c.clone(), m.clone(), i)))
                            .collect(),
                    ),
                    "usage" => Value::str(match def.usage {
                        MethodUsage::Runtime => "Runtime",
                        MethodUsage::Action => "Action",
                        MethodUsage::Static => "Static",
                        MethodUsage::Extension => "Extension",
                    }),
                    "scope" => Value::str(if def.public { "Public" } else { "Session" }),
                    "meta" => self.method_meta(c, m)?,
                    _ => return Err(missing()),
                }
            }
            Reflect::Arg(c, m, i) => {
                let def = c
                    .def
                    .methods
                    .get(m)
                    .and_then(|d| d.args.get(*i))
                    .ok_or_else(missing)?;
                match name {
                    "name" => Value::str(&def.name),
                    "hasDefault" => Value::Bool(def.default.is_some()),
                    "usage" => Value::str(match def.usage {
                        ArgUsage::Standard => "Standard",
                        ArgUsage::VarArgs => "VarArgs",
                        ArgUsage::KwArgs => "KwArgs",
                    }),
                    "declaringMethod" => self.reflect(Reflect::Method(c.clone(), m.clone())),
                    "meta" => self.meta_list(c, &def.meta)?,
                    _ => return Err(missing()),
                }
            }
            Reflect::Prop(c, p) => {
                let def = c.def.properties.get(p).ok_or_else(missing)?;
                match name {
                    "name" => Value::str(p),
                    "hasDefault" => Value::Bool(def.default.is_some()),
                    "usage" => Value::str(prop_usage(def.usage)),
                    "declaringType" => self.reflect(Reflect::Type(c.clone())),
                    "meta" => self.prop_meta(c, p)?,
                    _ => return Err(missing()),
                }
            }
            Reflect::Package(c) => match name {
                "name" => Value::str(&c.pkg.name),
                "version" => self.reflect(Reflect::Version(c.pkg.version.clone())),
                "meta" => Value::list(Vec::new()),
                "types" => Value::list(
                    self.program
                        .source()
                        .defs
                        .iter()
                        .filter(|(_, (_, p))| p.name == c.pkg.name)
                        .map(|(n, _)| Value::str(n))
                        .collect(),
                ),
                _ => return Err(missing()),
            },
            Reflect::Version(v) => {
                let parts: Vec<i64> = v.split('.').map(|x| x.parse().unwrap_or(0)).collect();
                let at = |i: usize| Value::Int(parts.get(i).copied().unwrap_or(0));
                match name {
                    "major" => at(0),
                    "minor" => at(1),
                    "patch" => at(2),
                    _ => return Err(missing()),
                }
            }
        })
    }

    /// Methods of reflection objects.
    pub(super) fn reflect_call(
        &self,
        r: &Reflect,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, Exc> {
        match (r, name) {
            (Reflect::Type(c), "ancestors") => {
                self.reflect_get(&Reflect::Type(c.clone()), "ancestors")
            }
            (Reflect::Prop(c, p), "getValue") => {
                let target = args.first().cloned().unwrap_or(Value::Null);
                let recv = if target.is_null() {
                    c.type_value()
                } else {
                    target
                };
                self.get_property(&recv, p, Some(c))
            }
            (Reflect::Prop(c, p), "setValue") => {
                let target = args.first().cloned().unwrap_or(Value::Null);
                let recv = if target.is_null() {
                    c.type_value()
                } else {
                    target
                };
                let v = args.get(1).cloned().unwrap_or(Value::Null);
                self.set_property(&recv, p, v, Some(c), true)?;
                Ok(Value::Null)
            }
            (Reflect::Method(c, m), "invoke") => {
                let mut it = args.into_iter();
                let target = it.next().unwrap_or(Value::Null);
                let recv = match as_object(&target) {
                    Some((o, _)) => o.cast_value(c.clone()),
                    None => c.type_value(),
                };
                self.call_method(&recv, m, it.collect(), kwargs, CallKind::Expression)
            }
            _ => Err(Exc::engine(
                EngineExc::NoMethodRegisteredException,
                format!("Method \"{name}\" is not found"),
            )),
        }
    }
}

impl Rt {
    /// Meta objects declared by one `Meta:` block of `class`.
    fn meta_objects(
        &self,
        class: &Rc<Class>,
        meta: &crate::syntax::Data,
    ) -> Result<Vec<Rc<Object>>, Exc> {
        use crate::syntax::Data;
        let entries: Vec<&Data> = match meta {
            Data::List(items, _) => items.iter().collect(),
            Data::Null => Vec::new(),
            other => vec![other],
        };
        let mut out = Vec::new();
        for e in entries {
            let pairs: Vec<(String, Data)> = match e {
                Data::Map(m, _) => m
                    .iter()
                    .map(|(k, v)| (k.key_text().unwrap_or_default().to_string(), v.clone()))
                    .collect(),
                other => vec![(other.key_text().unwrap_or_default().to_string(), Data::Null)],
            };
            for (name, props) in pairs {
                let mc = self.program.resolve_type(class, &name)?;
                let ctx = self.program.frame_context(class, &class.type_value());
                let values = match &self.eval_data(&props, &ctx, self.program.engine_for(class))? {
                    Value::Dict(d) => d.clone(),
                    _ => Default::default(),
                };
                out.push(self.new_object(&mc, None, Value::Null, &values)?);
            }
        }
        Ok(out)
    }

    /// Own meta first, then inherited ones (`Inherited: true`; a `One` meta
    /// only when the list does not have that very meta class yet: a subclass
    /// of it is a different meta).
    fn merge_meta(&self, decls: Vec<(Rc<Class>, crate::syntax::Data)>) -> Result<Value, Exc> {
        let mut out: Vec<Rc<Object>> = Vec::new();
        for (i, (c, m)) in decls.iter().enumerate() {
            for o in self.meta_objects(c, m)? {
                if i > 0 {
                    let d = &o.class.def;
                    if !d.inherited {
                        continue;
                    }
                    if !d.cardinality_many && out.iter().any(|x| x.class.name == o.class.name) {
                        continue;
                    }
                }
                out.push(o);
            }
        }
        Ok(Value::list(out.iter().map(|o| o.value()).collect()))
    }

    pub(super) fn meta_list(
        &self,
        class: &Rc<Class>,
        meta: &crate::syntax::Data,
    ) -> Result<Value, Exc> {
        self.merge_meta(vec![(class.clone(), meta.clone())])
    }

    pub(super) fn class_meta(&self, class: &Rc<Class>) -> Result<Value, Exc> {
        self.merge_meta(
            class
                .mro()
                .into_iter()
                .map(|c| (c.clone(), c.def.meta.clone()))
                .collect(),
        )
    }

    pub(super) fn prop_meta(&self, class: &Rc<Class>, name: &str) -> Result<Value, Exc> {
        self.merge_meta(
            class
                .mro()
                .into_iter()
                .filter_map(|c| {
                    c.def
                        .properties
                        .get(name)
                        .map(|p| (c.clone(), p.meta.clone()))
                })
                .collect(),
        )
    }

    pub(super) fn method_meta(&self, class: &Rc<Class>, name: &str) -> Result<Value, Exc> {
        self.merge_meta(
            class
                .mro()
                .into_iter()
                .filter_map(|c| c.def.methods.get(name).map(|m| (c.clone(), m.meta.clone())))
                .collect(),
        )
    }
}
