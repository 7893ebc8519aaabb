//! Property reads and writes with the usage and access rules.

use super::types::*;
use super::Rt;
use crate::syntax::PropUsage;
use std::rc::Rc;
use vetro_yaql::Value;

impl Rt {
    /// `$obj.name` / `:Class.name` as seen from code of `caller` (None: external).
    pub(super) fn get_property(
        &self,
        recv: &Value,
        name: &str,
        caller: Option<&Rc<Class>>,
    ) -> Result<Value, Exc> {
        if let Some(r) = super::reflect::as_reflect(recv) {
            return self.reflect_get(&r.r, name);
        }
        if let Some(class) = as_type(recv) {
            return self.get_static(&class, name);
        }
        let Some((obj, _)) = as_object(recv) else {
            return Err(Exc::engine(
                EngineExc::NoPropertyFound,
                format!("Property {name} is not found"),
            ));
        };
        if let Some((decl, p)) = obj.class.first_property(name) {
            if p.usage == PropUsage::Static {
                return self.get_static(decl, name);
            }
            return match obj.props.borrow().get(name) {
                Some(v) => Ok(v.clone()),
                None => Err(uninitialized(name, &obj.class.name)),
            };
        }
        match caller {
            Some(c) if c.compatible(&obj.class) => {
                if let Some(v) = obj
                    .private
                    .borrow()
                    .get(&(c.name.clone(), name.to_string()))
                {
                    return Ok(v.clone());
                }
                Err(uninitialized(name, &c.name))
            }
            _ => Err(Exc::engine(
                EngineExc::PropertyReadError,
                format!(
                    "Property \"{name}\" in class \"{}\" cannot be read",
                    obj.class.name
                ),
            )),
        }
    }

    fn static_decl(
        &self,
        class: &Rc<Class>,
        name: &str,
    ) -> Result<(Rc<Class>, std::sync::Arc<crate::syntax::PropertyDef>), Exc> {
        match class.first_property(name) {
            Some((d, p)) if p.usage == PropUsage::Static => Ok((d.clone(), p.clone())),
            _ => Err(Exc::engine(
                EngineExc::NoPropertyFound,
                format!("Property \"{name}\" is not found in class {}", class.name),
            )),
        }
    }

    /// A static property (initialised lazily from its Default).
    pub(super) fn get_static(&self, class: &Rc<Class>, name: &str) -> Result<Value, Exc> {
        let (decl, p) = self.static_decl(class, name)?;
        if let Some(v) = self.objects.static_value(&decl.name, name) {
            return Ok(v);
        }
        let ctx = self.program.frame_context(&decl, &decl.type_value());
        let v = match &p.default {
            Some(d) => self.eval_data(d, &ctx, self.program.engine_for(&decl))?,
            None => Value::Null,
        };
        let v = self.check_contract(&p.contract, v, &decl, None, &|| {
            format!("{}.{name}", decl.name)
        })?;
        self.objects.set_static(&decl.name, name, v.clone());
        Ok(v)
    }

    /// Write a property. `init` is true while the object is being initialised.
    pub(super) fn set_property(
        &self,
        recv: &Value,
        name: &str,
        value: Value,
        caller: Option<&Rc<Class>>,
        init: bool,
    ) -> Result<(), Exc> {
        if let Some(class) = as_type(recv) {
            let (decl, p) = self.static_decl(&class, name)?;
            let v = self.check_contract(&p.contract, value, &decl, None, &|| {
                format!("{}.{name}", decl.name)
            })?;
            self.objects.set_static(&decl.name, name, v);
            return Ok(());
        }
        let Some((obj, _)) = as_object(recv) else {
            return Err(Exc::engine(
                EngineExc::NoWriteAccessError,
                format!("Cannot set property {name}"),
            ));
        };
        if let Some((decl, p)) = obj.class.first_property(name) {
            if p.usage == PropUsage::Static {
                let v = self.check_contract(&p.contract, value, decl, None, &|| {
                    format!("{}.{name}", decl.name)
                })?;
                self.objects.set_static(&decl.name, name, v);
                return Ok(());
            }
            if !init && !obj.initializing.get() {
                let allowed = matches!(caller, Some(c) if c.compatible(&obj.class))
                    && !matches!(p.usage, PropUsage::In | PropUsage::Const);
                if !allowed {
                    return Err(Exc::engine(
                        EngineExc::NoWriteAccessError,
                        format!(
                            "Property \"{name}\" in class \"{}\" cannot be written",
                            obj.class.name
                        ),
                    ));
                }
            }
            let v = self.check_contract(&p.contract, value, decl, Some(&obj), &|| {
                format!("{}.{name}", decl.name)
            })?;
            obj.props.borrow_mut().insert(name.to_string(), v);
            return Ok(());
        }
        match caller {
            Some(c) if c.compatible(&obj.class) => {
                obj.private
                    .borrow_mut()
                    .insert((c.name.clone(), name.to_string()), value);
                Ok(())
            }
            _ => Err(Exc::engine(
                EngineExc::PropertyWriteError,
                format!(
                    "Property \"{name}\" in class \"{}\" cannot be written",
                    obj.class.name
                ),
            )),
        }
    }
}

fn uninitialized(name: &str, class: &str) -> Exc {
    Exc::engine(
        EngineExc::UninitializedPropertyAccessError,
        format!("Access to uninitialized property \"{name}\" in class \"{class}\" is forbidden"),
    )
}
