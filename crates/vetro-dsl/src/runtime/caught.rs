//! Exceptions as MuranoPL objects: the `io.murano.Exception` object a
//! `Catch ... As` binds, and the error behind one (a `Throw`'s `Cause`).

use super::objects::ObjectStore;
use super::program::Program;
use super::types::*;
use vetro_yaql::Value;

/// The `io.murano.Exception` object a `Catch ... As` binds.
pub(super) fn exception_object(
    program: &Program,
    objects: &ObjectStore,
    e: &Exc,
    name: &str,
) -> Result<Value, Exc> {
    let class = program.class("io.murano.Exception")?;
    let st_class = program.class("io.murano.StackTrace")?;
    let frames: Vec<Value> = e
        .frames()
        .iter()
        .map(|f| {
            let mut loc = vetro_yaql::value::Dict::new();
            loc.insert(Value::str("file"), Value::str(&f.file));
            loc.insert(Value::str("line"), Value::Int(f.line as i64));
            loc.insert(Value::str("column"), Value::Int(f.column as i64));
            let mut d = vetro_yaql::value::Dict::new();
            d.insert(Value::str("instruction"), Value::str(&f.instruction));
            d.insert(Value::str("location"), Value::dict(loc));
            d.insert(Value::str("methodName"), Value::str(&f.method));
            d.insert(Value::str("typeName"), Value::str(&f.class));
            Value::dict(d)
        })
        .collect();
    let st = Object::new(objects.gen_id(), st_class, None);
    st.initialized.set(true);
    st.props
        .borrow_mut()
        .insert("frames".into(), Value::list(frames));
    let obj = Object::new(objects.gen_id(), class, None);
    obj.initialized.set(true);
    {
        let mut p = obj.props.borrow_mut();
        p.insert("name".into(), Value::str(name));
        p.insert("message".into(), Value::str(&e.message()));
        p.insert(
            "extra".into(),
            match e {
                Exc::Mpl(m) => m.extra.clone(),
                _ => Value::dict(Default::default()),
            },
        );
        p.insert("stackTrace".into(), st.value());
        p.insert("nativeException".into(), Value::Null);
        p.insert("cause".into(), Value::Null);
    }
    objects.bind_exception(&obj.id, e.clone());
    Ok(obj.value())
}

/// The error an exception object was made from (the cause a `Throw`
/// names).
pub(super) fn exception_of(objects: &ObjectStore, v: &Value) -> Option<Exc> {
    let (o, _) = as_object(v)?;
    objects.exception_of(&o.id)
}
