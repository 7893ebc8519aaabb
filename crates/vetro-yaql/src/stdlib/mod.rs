//! The standard library, one module per family of the reference.

pub mod boolean;
pub mod branching;
pub mod collections;
pub mod common;
pub mod datetime;
pub mod format;
pub mod int_work;
pub mod legacy;
pub mod math;
pub mod queries;
pub mod regex;
pub mod strings;
pub mod system;

use crate::error::Result;
use crate::func::context::{Context, Layer};
use crate::func::{Args, Call, Form, FunctionDef};
use crate::value::Value;
use crate::EngineOptions;
use std::cell::RefCell;
use std::rc::Rc;

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

/// The engine options that change which functions the library has (the
/// others are read when a function runs).
#[derive(Clone, Copy, PartialEq, Eq)]
struct LibraryShape {
    delegates: bool,
    format: bool,
    no_sets: bool,
    group_by_agg_fallback: bool,
    legacy_context: bool,
}

impl LibraryShape {
    fn of(opts: &EngineOptions) -> LibraryShape {
        LibraryShape {
            delegates: opts.delegates,
            format: opts.format,
            no_sets: opts.no_sets,
            group_by_agg_fallback: opts.group_by_agg_fallback.unwrap_or(true),
            legacy_context: opts.legacy_context,
        }
    }
}

/// The standard layer and the legacy layer above it, when there is one.
type LibraryLayers = (Option<Rc<Layer>>, Option<Rc<Layer>>);

thread_local! {
    /// Library layers built on this thread, one per shape (32 at most).
    /// Building one parses a thousand signatures; sharing it makes a new
    /// engine cheap.
    static LIBRARIES: RefCell<Vec<(LibraryShape, LibraryLayers)>> = const { RefCell::new(Vec::new()) };
}

/// Give `root` the standard library and, with `legacy_context`, a child
/// holding the legacy layer; returns the context the library ends in. The
/// function definitions are shared with the other engines of this thread
/// built with the same options.
pub fn install_library(root: &Rc<Context>, opts: &EngineOptions) -> Rc<Context> {
    let shape = LibraryShape::of(opts);
    let cached = LIBRARIES.with(|l| {
        l.borrow()
            .iter()
            .find(|(s, _)| *s == shape)
            .map(|(_, layers)| layers.clone())
    });
    let lib = if opts.legacy_context {
        root.child()
    } else {
        root.clone()
    };
    if let Some((standard, legacy)) = cached {
        root.install_layer(standard);
        if opts.legacy_context {
            lib.install_layer(legacy);
        }
        return lib;
    }
    register_standard(root, opts);
    if opts.legacy_context {
        legacy::register(&lib, opts);
    }
    let layers = (
        root.shared_layer(),
        opts.legacy_context.then(|| lib.shared_layer()).flatten(),
    );
    LIBRARIES.with(|l| l.borrow_mut().push((shape, layers)));
    lib
}

/// Register the standard library (`yaql.create_context()`). Every option
/// read here must be part of [`LibraryShape`], which keys the shared copies.
fn register_standard(ctx: &Context, opts: &EngineOptions) {
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
