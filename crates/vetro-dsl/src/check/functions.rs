//! The function tables of the engine, taken from a runtime with no classes:
//! the YAQL standard library plus the MuranoPL engine functions and those
//! of test sessions (host layer), and the contract functions (contract
//! layer, a child of the host layer).

use crate::runtime::{ClassSource, Rt};
use std::rc::Rc;

pub(super) struct Functions {
    rt: Rc<Rt>,
}

impl Functions {
    pub(super) fn new() -> Functions {
        Functions {
            rt: Rt::new(
                ClassSource {
                    session_hooks: vec![std::sync::Arc::new(crate::testing::register_functions)],
                    ..ClassSource::default()
                },
                serde_json::Value::Null,
            ),
        }
    }

    /// Whether a method body can call `name` as a YAQL or engine function.
    pub(super) fn is_engine_function(&self, name: &str) -> bool {
        self.rt.has_engine_function(name)
    }

    /// Whether a contract expression can call `name` (contract functions and
    /// everything the engine knows).
    pub(super) fn is_contract_function(&self, name: &str) -> bool {
        self.rt.has_contract_function(name)
    }
}

impl Default for Functions {
    fn default() -> Self {
        Self::new()
    }
}
