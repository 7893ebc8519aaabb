//! Method mocks of the test framework (`inject()` in `vetro test`): a call
//! of a mocked method on an object of the mocked class runs the mock instead.
//!
//! As the reference test runner, a mock is keyed by the exact class name of
//! the receiver (an object given to `inject` stands for its class) and it
//! replaces calls made from MuranoPL code only: the runner's own calls of
//! test methods are never mocked.

use super::types::{Class, Exc, Object};
use super::Rt;
use crate::syntax::MethodDef;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::{Context, Lambda, Value};

/// What runs in place of a mocked method.
#[derive(Clone)]
pub(crate) enum Mock {
    /// A method of the test class, run on the test object.
    Method {
        this: Rc<Object>,
        decl: Rc<Class>,
        method: Arc<MethodDef>,
    },
    /// An expression evaluated where `inject` was called: `$` is the object
    /// that called `inject`, the call's arguments follow (`$2`...),
    /// `originalMethod()` runs the method that was replaced and
    /// `withOriginal(name => expr, ...)` evaluates expressions where the
    /// replaced call was made.
    Expr { this: Value, expr: Lambda },
}

/// The call a running expression mock replaced (for `originalMethod()`
/// and `withOriginal()`).
#[derive(Clone)]
pub(crate) struct Replaced {
    pub(crate) recv: Value,
    pub(crate) method: String,
    pub(crate) args: Vec<Value>,
    pub(crate) kwargs: Vec<(String, Value)>,
    /// The context the call was made in (the calling method's when it was
    /// not made from an expression).
    pub(crate) site: Rc<Context>,
}

/// The session's mocks by (class, method), with the replaced calls running.
#[derive(Default)]
pub(super) struct Mocks {
    table: RefCell<HashMap<(String, String), Mock>>,
    running: RefCell<Vec<Replaced>>,
}

impl Mocks {
    /// Mock `method` of `class`; a later mock of the same method replaces
    /// an earlier one.
    pub(super) fn inject(&self, class: &str, method: &str, mock: Mock) {
        self.table
            .borrow_mut()
            .insert((class.to_string(), method.to_string()), mock);
    }

    /// The mock of `method` for a receiver of exactly `class`.
    pub(super) fn find(&self, class: &str, method: &str) -> Option<Mock> {
        let table = self.table.borrow();
        if table.is_empty() {
            return None;
        }
        table.get(&(class.to_string(), method.to_string())).cloned()
    }

    /// The innermost call an expression mock is replacing.
    pub(super) fn replaced(&self) -> Option<Replaced> {
        self.running.borrow().last().cloned()
    }
}

impl Rt {
    /// Run `mock` for a call of `method` on `recv` made in `site`.
    pub(super) fn run_mock(
        &self,
        mock: Mock,
        site: Option<&Rc<Context>>,
        recv: &Value,
        method: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, Exc> {
        match mock {
            Mock::Method { this, decl, method } => {
                self.invoke(&decl, &method, this.value(), Some(this), args, kwargs)
            }
            Mock::Expr { this, expr } => {
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push(this);
                all.extend(args.iter().cloned());
                let kw: Vec<(Rc<str>, Value)> = kwargs
                    .iter()
                    .map(|(k, v)| (Rc::from(k.as_str()), v.clone()))
                    .collect();
                let site = match site {
                    Some(s) => s.clone(),
                    None => self
                        .frames
                        .top_context()
                        .unwrap_or_else(|| self.program.yaql().context()),
                };
                self.mocks.running.borrow_mut().push(Replaced {
                    recv: recv.clone(),
                    method: method.to_string(),
                    args,
                    kwargs,
                    site,
                });
                let r = expr.call_kw(&all, &kw);
                self.mocks.running.borrow_mut().pop();
                r.map_err(|e| self.unsmuggle(e))
            }
        }
    }
}
