//! The policy gate: before the engine runs, the model is decomposed into the
//! `murano:*` tables (parent types from the task's packages) and the
//! project's Congress rules are asked for `predeploy_errors`.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use vetro_dsl::package::Package;
use vetro_policy::datalog::PolicyKind;
use vetro_policy::enforce;
use vetro_policy::facts::{decompose, ClassHierarchy, DecomposeOptions, MValue};

/// One object the policy refuses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub object_id: String,
    pub message: String,
}

const OBJECT: &str = "io.murano.Object";

/// Murano's `murano_system` policy is nonrecursive.
const RULES_KIND: PolicyKind = PolicyKind::Nonrecursive;

/// Whether `rules` load as a policy (for validating a policy when it is set).
pub fn check_rules(rules: &str) -> Result<(), String> {
    let mut engine = vetro_policy::datalog::Engine::new();
    enforce::load_rules(&mut engine, rules, RULES_KIND).map_err(|e| e.to_string())
}

/// The class hierarchy of `packages`: every class under its parents, and
/// classes without parents under `io.murano.Object`.
pub fn hierarchy(packages: &[Package]) -> ClassHierarchy {
    let mut h = ClassHierarchy::new();
    for p in packages {
        for c in p.classes.values() {
            if c.extends.is_empty() {
                if c.name != OBJECT {
                    h.add_edge(&c.name, OBJECT);
                }
            } else {
                for parent in &c.extends {
                    h.add_edge(&c.name, parent);
                }
            }
        }
    }
    h
}

/// The `predeploy_errors` of `objects` (the model's root object, engine form
/// with `applications`) under `rules`; `Err` when the model or rules do not load.
pub fn violations(
    objects: &Json,
    rules: &str,
    classes: ClassHierarchy,
    project: Option<&str>,
) -> Result<Vec<Violation>, String> {
    let model = MValue::from_json(objects);
    let opts = DecomposeOptions {
        tenant: project.map(str::to_string),
        classes,
    };
    let d = decompose(&model, &opts).map_err(|d| d.message)?;
    let found = enforce::validate(&d, rules, RULES_KIND)
        .map_err(|e| format!("the policy does not load: {e}"))?;
    Ok(found
        .into_iter()
        .filter(|v| v.env == d.env_id)
        .map(|v| Violation {
            object_id: v.object,
            message: v.message,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_name_objects_and_use_parent_types() {
        let model = serde_json::json!({
            "?": {"id": "env", "type": "io.murano.Environment"},
            "applications": [{"?": {"id": "app", "type": "t.App"}, "flavor": "m1.huge"}]
        });
        let rules = r#"
predeploy_errors(eid, oid, "m1.huge is not allowed") :-
    murano:objects(oid, eid, type), murano:parent_types(oid, "t.Base"),
    murano:properties(oid, "flavor", "m1.huge")
"#;
        let mut h = ClassHierarchy::new();
        h.add_edge("t.App", "t.Base");
        let v = violations(&model, rules, h, Some("p1")).unwrap();
        assert_eq!(
            v,
            [Violation {
                object_id: "app".into(),
                message: "m1.huge is not allowed".into()
            }]
        );
        assert!(violations(&model, rules, ClassHierarchy::new(), None)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn bad_rules_are_reported() {
        assert!(check_rules("predeploy_errors(a, b, c) :- ").is_err());
        assert!(check_rules("p(x) :- q(x)").is_ok());
    }
}
