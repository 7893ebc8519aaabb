//! The standard library, one module per family of the reference.

pub mod boolean;
pub mod branching;
pub mod collections;
pub mod common;
pub mod datetime;
pub mod format;
pub mod legacy;
pub mod math;
pub mod queries;
pub mod regex;
pub mod strings;
pub mod system;

use crate::error::Result;
use crate::func::context::Context;
use crate::func::{Args, Call, Form, FunctionDef};
use crate::value::Value;
use crate::EngineOptions;

/// Registration helper.
pub struct Reg<'a> {
    pub ctx: &'a Context,
}

impl Reg<'_> {
    /// A function (`f(x)` form only).
    pub fn f(&self, name: &str, sig: &str, body: impl Fn(&Call, Args) -> Result<Value> + 'static) {
        self.ctx
            .register(FunctionDef::new(name, Form::Function, sig, body));
    }
    /// A method (`x.f()` form only; the receiver is the first parameter).
    pub fn m(&self, name: &str, sig: &str, body: impl Fn(&Call, Args) -> Result<Value> + 'static) {
        self.ctx
            .register(FunctionDef::new(name, Form::Method, sig, body));
    }
    /// Both forms.
    pub fn mf(&self, name: &str, sig: &str, body: impl Fn(&Call, Args) -> Result<Value> + 'static) {
        self.ctx
            .register(FunctionDef::new(name, Form::Both, sig, body));
    }
}

/// Register the standard library (`yaql.create_context()`).
pub fn register_standard(ctx: &Context, opts: &EngineOptions) {
    let r = Reg { ctx };
    system::register(&r, opts);
    common::register(&r);
    boolean::register(&r);
    math::register(&r);
    strings::register(&r);
    collections::register(&r, opts);
    queries::register(&r, opts);
    regex::register(&r);
    branching::register(&r);
    datetime::register(&r);
    if opts.format {
        format::register(&r);
    }
}
