//! Pre-deploy enforcement: what Murano's model policy enforcer asked Congress
//! to do. The decomposed model becomes the `murano` policy, the user's rules
//! the `murano_system` policy, and every `predeploy_errors(env, obj, msg)` is reported.

use crate::datalog::ast::{Literal, Term};
use crate::datalog::value::Value;
use crate::datalog::{Engine, PolicyError, PolicyKind};
use crate::facts::{Decomposition, Table};

/// Name of the policy holding the decomposed model.
pub const MODEL_POLICY: &str = "murano";
/// Name of the policy holding the user's rules.
pub const RULES_POLICY: &str = "murano_system";

/// One `predeploy_errors` atom.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub env: String,
    pub object: String,
    pub message: String,
    /// The atom in canonical text form.
    pub atom: String,
}

/// An engine with the model loaded as the `murano` policy.
pub fn model_engine(d: &Decomposition) -> Engine {
    let mut engine = Engine::new();
    engine.create_policy(MODEL_POLICY, PolicyKind::Database);
    for t in Table::ALL {
        let arity = match t {
            Table::States | Table::Connected | Table::ParentTypes => 2,
            _ => 3,
        };
        engine.declare_arity(MODEL_POLICY, t.name(), arity);
    }
    let mut by_table: Vec<Vec<crate::datalog::value::Tuple>> = vec![Vec::new(); Table::ALL.len()];
    for row in &d.rows {
        let values: crate::datalog::value::Tuple = row
            .values
            .iter()
            .map(|v| Value::Str(engine.syms.intern(v)))
            .collect();
        if let Some(i) = Table::ALL.iter().position(|t| *t == row.table) {
            by_table[i].push(values);
        }
    }
    for (t, rows) in Table::ALL.iter().zip(by_table) {
        engine.insert_rows(MODEL_POLICY, t.name(), rows);
    }
    engine
}

/// Loads the rules; errors are the policy's compile errors.
pub fn load_rules(engine: &mut Engine, text: &str, kind: PolicyKind) -> Result<(), PolicyError> {
    engine.create_policy(RULES_POLICY, kind);
    engine.insert_text(RULES_POLICY, text).map(|_| ())
}

fn errors_query() -> Literal {
    Literal {
        negated: false,
        modal: None,
        module: None,
        table: "predeploy_errors".into(),
        args: ["eid", "oid", "msg"]
            .iter()
            .map(|v| Term::Var(v.to_string()))
            .collect(),
        named: Vec::new(),
        span: Default::default(),
    }
}

/// Every `predeploy_errors` atom, sorted by object then message.
pub fn violations(engine: &mut Engine) -> Result<Vec<Violation>, PolicyError> {
    let q = errors_query();
    let rows = engine.query(RULES_POLICY, &q)?;
    let text = |v: &Value, e: &Engine| match v {
        Value::Str(s) => e.syms.get(*s).to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => vetro_pycompat::repr::float_repr(*f),
    };
    let mut out: Vec<Violation> = rows
        .iter()
        .map(|r| Violation {
            env: text(&r[0], engine),
            object: text(&r[1], engine),
            message: text(&r[2], engine),
            atom: engine.render(&q, r),
        })
        .collect();
    out.sort_by(|a, b| (&a.object, &a.message, &a.env).cmp(&(&b.object, &b.message, &b.env)));
    Ok(out)
}

/// Decomposition plus rules in one step.
pub fn validate(
    d: &Decomposition,
    rules: &str,
    kind: PolicyKind,
) -> Result<Vec<Violation>, PolicyError> {
    let mut engine = model_engine(d);
    load_rules(&mut engine, rules, kind)?;
    violations(&mut engine)
}

/// A validation that stays materialized: model rows can change and the
/// errors are maintained incrementally instead of recomputed.
pub struct Session {
    pub engine: Engine,
}

fn row_change(
    engine: &mut Engine,
    row: &crate::facts::Row,
    insert: bool,
) -> (
    crate::datalog::policy::PredKey,
    crate::datalog::value::Tuple,
    bool,
) {
    let key = crate::datalog::policy::PredKey {
        policy: MODEL_POLICY.to_string(),
        key: crate::datalog::policy::TableKey::plain(row.table.name()),
    };
    let t: crate::datalog::value::Tuple = row
        .values
        .iter()
        .map(|v| Value::Str(engine.syms.intern(v)))
        .collect();
    (key, t, insert)
}

impl Session {
    /// Loads the model and rules and materializes `predeploy_errors`.
    pub fn new(d: &Decomposition, rules: &str, kind: PolicyKind) -> Result<Session, PolicyError> {
        let mut engine = model_engine(d);
        load_rules(&mut engine, rules, kind)?;
        engine.materialize(RULES_POLICY, &errors_query())?;
        Ok(Session { engine })
    }

    /// Removes and adds model rows (e.g. the rows of one changed object).
    pub fn update(&mut self, removed: &[crate::facts::Row], added: &[crate::facts::Row]) {
        let mut changes = Vec::with_capacity(removed.len() + added.len());
        for r in removed {
            changes.push(row_change(&mut self.engine, r, false));
        }
        for r in added {
            changes.push(row_change(&mut self.engine, r, true));
        }
        self.engine.apply_rows(&changes);
    }

    pub fn violations(&mut self) -> Result<Vec<Violation>, PolicyError> {
        violations(&mut self.engine)
    }
}
