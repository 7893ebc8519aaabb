//! The standard library, one module per family of the reference.

pub mod boolean;
pub mod branching;
pub mod collections;
pub mod common;
pub mod datetime;
pub(crate) mod fallible_sort;
pub mod format;
pub mod grouping;
pub mod int_work;
pub mod key_index;
pub mod legacy;
pub mod math;
pub mod ordering;
mod pyre;
pub mod queries;
pub mod regex;
pub mod strings;
pub mod system;

use crate::func::library::SharedLayer;
use crate::func::SharedDef;
use crate::EngineOptions;
use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Registration helper: collects one layer of the library.
#[derive(Default)]
pub struct Reg {
    layer: RefCell<SharedLayer>,
}

impl Reg {
    /// Add one function (built with [`crate::yaql_fn!`]).
    pub fn add_def(&self, def: impl Into<SharedDef>) {
        self.layer.borrow_mut().register(def.into());
    }
    /// Make `name` exclusive in this layer (the layers below are not
    /// consulted for it).
    pub fn set_exclusive(&self, name: &str) {
        self.layer.borrow_mut().set_exclusive(name);
    }

    fn finish(self) -> Arc<SharedLayer> {
        Arc::new(self.layer.into_inner())
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

/// The library's layers, innermost first: the legacy layer when there is
/// one, then the standard one.
type LibraryLayers = Vec<Arc<SharedLayer>>;

/// Libraries built so far, one per shape (32 at most), shared by every
/// engine of the process: building one parses a thousand signatures,
/// sharing it makes a new engine cheap.
static LIBRARIES: Mutex<Vec<(LibraryShape, LibraryLayers)>> = Mutex::new(Vec::new());

/// The standard library for `opts` and, with `legacy_context`, the legacy
/// layer above it (innermost first).
pub fn library_layers(opts: &EngineOptions) -> LibraryLayers {
    let shape = LibraryShape::of(opts);
    let cached = LIBRARIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(s, _)| *s == shape)
        .map(|(_, layers)| layers.clone());
    if let Some(layers) = cached {
        return layers;
    }
    let mut layers = Vec::new();
    if opts.legacy_context {
        let r = Reg::default();
        legacy::register(&r, opts);
        layers.push(r.finish());
    }
    let r = Reg::default();
    register_standard(&r, opts);
    layers.push(r.finish());
    LIBRARIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((shape, layers.clone()));
    layers
}

/// Register the standard library (`yaql.create_context()`). Every option
/// read here must be part of [`LibraryShape`], which keys the shared copies.
fn register_standard(r: &Reg, opts: &EngineOptions) {
    system::register(r, opts);
    common::register(r);
    boolean::register(r);
    math::register(r);
    strings::register(r);
    collections::register(r, opts);
    queries::register(r, opts);
    regex::register(r);
    branching::register(r);
    datetime::register(r);
    if opts.format {
        format::register(r);
    }
}
