//! An engine's function library: layers of [`SharedDef`]s, fixed once the
//! engine is built and shared by every thread that evaluates with it.

use super::{SharedDef, Signature};
use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use std::sync::Arc;

/// The functions of one layer (the standard library, the legacy layer, a
/// host's functions).
#[derive(Clone, Default)]
pub struct SharedLayer {
    funcs: HashMap<Arc<str>, Vec<Arc<SharedDef>>>,
    /// Names whose candidates in this layer hide all outer layers.
    exclusive: HashSet<Arc<str>>,
}

impl SharedLayer {
    pub fn register(&mut self, f: SharedDef) {
        self.funcs
            .entry(f.name.clone())
            .or_default()
            .push(Arc::new(f));
    }

    /// Make `name` exclusive: layers below are not consulted for it.
    pub fn set_exclusive(&mut self, name: &str) {
        self.exclusive.insert(Arc::from(name));
    }

    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty() && self.exclusive.is_empty()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&[Arc<SharedDef>]> {
        self.funcs.get(name).map(Vec::as_slice)
    }

    pub(crate) fn hides_below(&self, name: &str) -> bool {
        !self.exclusive.is_empty() && self.exclusive.contains(name)
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &Arc<str>> {
        self.funcs.keys()
    }

    /// Every signature of `name` in this layer.
    pub fn signatures(&self, name: &str) -> impl Iterator<Item = &Signature> {
        self.get(name).unwrap_or(&[]).iter().map(|d| &d.sig)
    }
}

/// The layers of an engine, innermost (the host's) first.
#[derive(Clone, Default)]
pub struct Library {
    pub(crate) layers: Vec<Arc<SharedLayer>>,
}

impl Library {
    pub fn new(layers: Vec<Arc<SharedLayer>>) -> Library {
        Library { layers }
    }

    pub fn layers(&self) -> &[Arc<SharedLayer>] {
        &self.layers
    }
}
