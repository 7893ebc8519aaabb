//! What the checks of one topology share: the names it declares and the
//! node template a value belongs to.

use super::{entries, Cx};
use crate::catalog::Merged;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use vetro_yaml::Node;

/// Names declared in a topology, for reference checks.
#[derive(Default)]
pub struct Topo<'d> {
    pub inputs: HashSet<&'d str>,
    /// Node template name → its node type (None if the type is unknown).
    pub nodes: HashMap<&'d str, Option<usize>>,
    pub rels: HashMap<&'d str, Option<usize>>,
    pub groups: HashSet<&'d str>,
    /// Group name → its group type.
    pub group_types: HashMap<&'d str, Option<usize>>,
    /// Property definitions of a node type's capability (the capability
    /// type's, refined by the capability definition), computed once.
    pub(crate) cap_props: RefCell<HashMap<(usize, String), Merged>>,
}

impl Topo<'_> {
    pub(crate) fn capability_properties(
        &self,
        cx: &Cx,
        t: usize,
        cap: &str,
        ct: usize,
        cdef: &Node,
    ) -> Merged {
        let key = (t, cap.to_string());
        if let Some(m) = self.cap_props.borrow().get(&key) {
            return m.clone();
        }
        let mut defs = (*cx.cat.merged(ct, "properties")).clone();
        for (n, _, d) in entries(cdef.get("properties")) {
            defs.insert(n, d.clone());
        }
        let defs = Rc::new(defs);
        self.cap_props.borrow_mut().insert(key, defs.clone());
        defs
    }
}

/// The node template a value belongs to: its type and its definition.
#[derive(Clone, Copy)]
pub struct This<'a> {
    pub ty: usize,
    pub tpl: &'a Node,
}
