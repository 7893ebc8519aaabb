//! Reports built on a validation: errors grouped by object, each with the
//! property values its proof rests on, and the timing of an incremental
//! re-validation.

use crate::datalog::ast::{Literal, Term};
use crate::datalog::explain::explain_all;
use crate::datalog::{Engine, PolicyError, PolicyKind};
use crate::enforce::{Session, Violation, RULES_POLICY};
use crate::facts::{Decomposition, Row, Table};
use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

/// The errors of one object.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectErrors {
    pub object: String,
    /// The object's type (`?` when the model does not give one).
    pub type_name: String,
    pub errors: Vec<ObjectError>,
}

/// One error with the properties its proof uses: (object, property, value).
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectError {
    pub message: String,
    pub properties: Vec<(String, String, String)>,
}

fn error_atom(v: &Violation) -> Literal {
    Literal {
        negated: false,
        modal: None,
        module: None,
        table: "predeploy_errors".into(),
        args: [&v.env, &v.object, &v.message]
            .iter()
            .map(|s| Term::Str(s.to_string()))
            .collect(),
        named: Vec::new(),
        span: Default::default(),
    }
}

/// Groups consecutive errors of the same object (`found` comes sorted by object).
pub fn group_by_object(
    found: &[Violation],
    d: &Decomposition,
    engine: &mut Engine,
) -> Result<Vec<ObjectErrors>, PolicyError> {
    let types: HashMap<&str, &str> = d
        .rows
        .iter()
        .filter(|r| r.table == Table::Objects)
        .map(|r| (r.values[0].as_str(), r.values[2].as_str()))
        .collect();
    let atoms: Vec<Literal> = found.iter().map(error_atom).collect();
    let proofs = explain_all(engine, RULES_POLICY, &atoms)?;
    let mut out: Vec<ObjectErrors> = Vec::new();
    for (v, proof) in found.iter().zip(proofs) {
        let mut properties: Vec<(String, String, String)> = Vec::new();
        for (table, values) in proof.iter().flat_map(|p| p.facts()) {
            if let ("murano:properties", [o, name, value]) = (table, values) {
                let key = (o.clone(), name.clone(), value.clone());
                if !properties.contains(&key) {
                    properties.push(key);
                }
            }
        }
        let error = ObjectError {
            message: v.message.clone(),
            properties,
        };
        match out.last_mut() {
            Some(group) if group.object == v.object => group.errors.push(error),
            _ => out.push(ObjectErrors {
                object: v.object.clone(),
                type_name: types.get(v.object.as_str()).unwrap_or(&"?").to_string(),
                errors: vec![error],
            }),
        }
    }
    Ok(out)
}

impl fmt::Display for ObjectErrors {
    /// `object (type)`, then each error and the property values it uses.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.object, self.type_name)?;
        for e in &self.errors {
            writeln!(f, "  error: {}", e.message)?;
            for (o, name, value) in &e.properties {
                if *o == self.object {
                    writeln!(f, "    {name} = {value}")?;
                } else {
                    writeln!(f, "    {o}: {name} = {value}")?;
                }
            }
        }
        Ok(())
    }
}

/// How long the steps of an incremental re-validation took.
#[derive(Clone, Debug)]
pub struct IncrementalTiming {
    pub materialized: Duration,
    pub object: String,
    pub rows_changed: usize,
    pub maintained: Duration,
    pub restored: Duration,
    pub listed: Duration,
    pub errors: usize,
}

/// Materializes the validation, changes one property of the last object that
/// has properties, propagates the change, changes it back, and lists the errors.
/// `None` when the model has no property to change.
pub fn measure_incremental(
    d: &Decomposition,
    rules: &str,
    kind: PolicyKind,
) -> Result<Option<IncrementalTiming>, PolicyError> {
    let t0 = Instant::now();
    let mut session = Session::new(d, rules, kind)?;
    let materialized = t0.elapsed();
    let Some(last) = d.rows.iter().rev().find(|r| r.table == Table::Properties) else {
        return Ok(None);
    };
    let object = last.values[0].clone();
    let removed: Vec<Row> = d
        .rows
        .iter()
        .filter(|r| r.table == Table::Properties && r.values[0] == object)
        .cloned()
        .collect();
    let mut added = removed.clone();
    if let Some(r) = added.first_mut() {
        r.values[2].push_str("-changed");
    }
    let t1 = Instant::now();
    session.update(&removed, &added);
    let maintained = t1.elapsed();
    let t2 = Instant::now();
    session.update(&added, &removed);
    let restored = t2.elapsed();
    let t3 = Instant::now();
    let errors = session.violations()?.len();
    Ok(Some(IncrementalTiming {
        materialized,
        object,
        rows_changed: removed.len() + added.len(),
        maintained,
        restored,
        listed: t3.elapsed(),
        errors,
    }))
}

impl fmt::Display for IncrementalTiming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "incremental: materialized in {:.1} ms; object {} changed ({} rows): maintained in {:.3} ms, \
             listing all {} errors {:.3} ms; restored in {:.3} ms",
            ms(self.materialized),
            self.object,
            self.rows_changed,
            ms(self.maintained),
            self.errors,
            ms(self.listed),
            ms(self.restored),
        )
    }
}
