//! The request bodies: one type each, which the handler reads (through
//! [`crate::body::JsonBody`]) and the route's annotation names, so the API
//! description shows what the handler accepts. A body that does not fit its
//! type is a 400 naming the field. Parts of object models are free-form
//! JSON ([`ModelValue`], [`ModelObject`]). Answers are typed in [`crate::views`].

use crate::body::name::{CategoryName, Name};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// Any JSON value: a part of an object model, as the route's path addresses it.
#[derive(Deserialize, ToSchema)]
#[serde(transparent)]
pub struct ModelValue(pub Value);

/// An object of an object model (an application, with its `?` header), free-form.
#[derive(Clone, Deserialize, Serialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = Object)]
pub struct ModelObject(pub Map<String, Value>);

/// A new environment. `region`, `defaultNetworks` and `regionConfigs` go
/// into its model as given; without `defaultNetworks` it gets Murano's
/// default, a Neutron network of its own.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentCreate {
    pub name: Name,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// `{"environment": network object, "flat": network object or null}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub default_networks: Option<Map<String, Value>>,
    /// Settings by region name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub region_configs: Option<Map<String, Value>>,
}

impl EnvironmentCreate {
    /// The settings for the new environment's model, as an object of the
    /// given ones (the name too).
    pub fn settings(&self) -> Value {
        // Strings and JSON objects: nothing that cannot be JSON.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A name: an environment's new name, or the name of a template's copy.
#[derive(Deserialize, ToSchema)]
pub struct NewName {
    pub name: Name,
}

#[derive(Deserialize, ToSchema)]
pub struct TemplateCreate {
    pub name: Name,
    pub description_text: Option<String>,
    /// Whether other projects see it (and may clone it); false when absent.
    pub is_public: Option<bool>,
    /// The applications the template's environments start with.
    pub services: Option<Vec<ModelObject>>,
}

/// The parts of a template to change; absent (or null) ones stay as they are.
#[derive(Deserialize, ToSchema)]
pub struct TemplateUpdate {
    pub name: Option<Name>,
    pub description_text: Option<String>,
    pub is_public: Option<bool>,
    pub services: Option<Vec<ModelObject>>,
}

#[derive(Deserialize, ToSchema)]
pub struct CategoryCreate {
    pub name: CategoryName,
}

/// The kinds of JSON-patch operations (RFC 6902).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PatchKind {
    Add,
    Remove,
    Replace,
    Move,
    Copy,
    Test,
}

impl PatchKind {
    /// The name as a patch writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            PatchKind::Add => "add",
            PatchKind::Remove => "remove",
            PatchKind::Replace => "replace",
            PatchKind::Move => "move",
            PatchKind::Copy => "copy",
            PatchKind::Test => "test",
        }
    }
}

/// One change to a package, as Murano's catalog takes it: `add`, `replace`
/// or `remove` the strings of `value` in `/tags` or `/categories`, or
/// `replace` `/is_public`, `/enabled`, `/name` or `/description`.
#[derive(Deserialize, ToSchema)]
pub struct PackagePatchOp {
    pub op: PatchKind,
    pub path: String,
    #[serde(default)]
    #[schema(value_type = Value)]
    pub value: Value,
}

/// One JSON-patch operation (RFC 6902) on an environment's model, at a
/// JSON pointer inside `Objects`.
#[derive(Deserialize, ToSchema)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum ModelPatchOp {
    Add {
        path: String,
        #[schema(value_type = Value)]
        value: Value,
    },
    Remove {
        path: String,
    },
    Replace {
        path: String,
        #[schema(value_type = Value)]
        value: Value,
    },
    Move {
        from: String,
        path: String,
    },
    Copy {
        from: String,
        path: String,
    },
    Test {
        path: String,
        #[schema(value_type = Value)]
        value: Value,
    },
}

/// A static method to call: `className.methodName(parameters)`, from the
/// package `packageName` (by default the one providing the class) in the
/// versions `classVersion` allows (by default `=0`).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaticAction {
    pub class_name: Name,
    pub method_name: Name,
    pub package_name: Option<String>,
    pub class_version: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub parameters: Option<Map<String, Value>>,
}

/// The arguments of an action, by parameter name.
#[derive(Deserialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = Object)]
pub struct ActionArguments(pub Map<String, Value>);

#[derive(Deserialize, ToSchema)]
pub struct PolicyUpdate {
    /// Congress (Datalog) rules defining `predeploy_errors(eid, oid, msg)`; null clears.
    #[serde(deserialize_with = "Option::deserialize")]
    #[schema(required = true)]
    pub policy: Option<String>,
}

/// The `__metadata__` part of a package upload: what to use instead of the
/// manifest's name, description and tags, and the package's categories and flags.
#[derive(Default, Deserialize, ToSchema)]
pub struct PackageMetadata {
    pub name: Option<String>,
    pub description: Option<String>,
    pub tags: Option<Vec<String>>,
    pub categories: Option<Vec<String>>,
    /// Whether other projects see it (needs the publish privilege).
    pub is_public: Option<bool>,
    pub enabled: Option<bool>,
}

/// A package upload (`multipart/form-data`): the zip archive and, optionally,
/// its metadata as JSON.
#[derive(ToSchema)]
pub struct PackageUpload {
    #[schema(format = Binary, value_type = String)]
    pub file: Vec<u8>,
    #[schema(rename = "__metadata__")]
    pub metadata: Option<PackageMetadata>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::from_value;
    use serde::de::DeserializeOwned;
    use serde_json::json;

    fn refused<T: DeserializeOwned>(body: Value) -> String {
        match from_value::<T>(&body, "the request body") {
            Ok(_) => panic!("{body} fits"),
            Err(e) => {
                assert_eq!(e.status, 400, "{}", e.message);
                e.message
            }
        }
    }

    #[test]
    fn a_body_that_does_not_fit_is_refused_naming_the_field() {
        let cases = [
            (
                refused::<EnvironmentCreate>(json!({})),
                "'name' is required",
            ),
            (
                refused::<EnvironmentCreate>(json!({"name": 5})),
                "'name' must be a string",
            ),
            (
                refused::<EnvironmentCreate>(json!({"name": " "})),
                "'name' must have 1 to 255 characters and not be blank",
            ),
            (
                refused::<EnvironmentCreate>(json!({"name": "e", "defaultNetworks": []})),
                "'defaultNetworks' must be an object",
            ),
            (
                refused::<NewName>(json!([])),
                "the request body must be an object",
            ),
            (
                refused::<NewName>(Value::Null),
                "the request body must be an object",
            ),
            (
                refused::<CategoryCreate>(json!({"name": "x".repeat(81)})),
                "'name' must have 1 to 80 characters and not be blank",
            ),
            (
                refused::<TemplateCreate>(json!({"name": "t", "is_public": "yes"})),
                "'is_public' must be true or false",
            ),
            (
                refused::<TemplateUpdate>(json!({"services": [{}, 3]})),
                "'services[1]' must be an object",
            ),
            (
                refused::<Vec<PackagePatchOp>>(json!([{"op": "drop", "path": "/tags"}])),
                "'[0].op' must be one of add, remove, replace, move, copy, test",
            ),
            (
                refused::<Vec<PackagePatchOp>>(json!({"op": "add"})),
                "the request body must be a list",
            ),
            (
                refused::<Vec<ModelPatchOp>>(json!([{"op": "add", "path": "/name"}])),
                "'[0].value' is required",
            ),
            (
                refused::<Vec<ModelPatchOp>>(json!([{"op": 0, "path": "/name"}])),
                "'[0].op' must be a string",
            ),
            (
                refused::<Vec<ModelPatchOp>>(json!([{"path": "/name"}])),
                "'[0].op' is required",
            ),
            (refused::<PolicyUpdate>(json!({})), "'policy' is required"),
            (
                refused::<StaticAction>(json!({"className": "a.B"})),
                "'methodName' is required",
            ),
            (
                refused::<StaticAction>(
                    json!({"className": "a.B", "methodName": "m", "parameters": [1]}),
                ),
                "'parameters' must be an object",
            ),
            (
                refused::<Option<ActionArguments>>(json!("x")),
                "the request body must be an object",
            ),
            (
                refused::<Option<PackageMetadata>>(json!({"tags": ["a", 1]})),
                "'tags[1]' must be a string",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn optional_parts_may_be_absent_or_null() {
        let fit = |v: Value| from_value::<EnvironmentCreate>(&v, "the request body");
        let env = fit(json!({"name": "e", "region": null, "extra": 1})).unwrap();
        assert_eq!(env.settings(), json!({"name": "e"}));
        let env = fit(json!({"name": "e", "region": "r1", "defaultNetworks": {"flat": null}}));
        assert_eq!(
            env.unwrap().settings(),
            json!({"name": "e", "region": "r1", "defaultNetworks": {"flat": null}})
        );
        let clear = from_value::<PolicyUpdate>(&json!({"policy": null}), "").unwrap();
        assert_eq!(clear.policy, None);
        let none = from_value::<Option<ActionArguments>>(&Value::Null, "").unwrap();
        assert!(none.is_none());
        let ops = json!([{"op": "move", "from": "/a", "path": "/b"}]);
        let ops = from_value::<Vec<ModelPatchOp>>(&ops, "").unwrap();
        assert!(
            matches!(&ops[..], [ModelPatchOp::Move { from, path }] if from == "/a" && path == "/b")
        );
    }
}
