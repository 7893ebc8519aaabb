//! The choices of select fields: from the cloud's catalog (flavors, images,
//! key pairs, zones, networks, security groups, volumes, DNS zones) and from
//! the applications already in the environment, as the dashboard listed them.

use crate::field::FieldKind;
use serde::Serialize;
use serde_json::{json, Value as Json};
use vetro_dsl::cloud::CloudCatalog;

/// An application already in the environment (for fields whose type is a class).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExistingApp {
    pub id: String,
    pub name: String,
    /// Its class and every class it extends.
    pub classes: Vec<String>,
}

/// What the cloud and the environment offer to the forms.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    pub cloud: CloudCatalog,
    pub apps: Vec<ExistingApp>,
}

/// One option of a select field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Choice {
    /// The value the field takes (a string, or `[network, subnet]`).
    pub value: Json,
    pub label: String,
    /// Offered but not selectable (an image that is not active).
    pub enabled: bool,
    /// Other names a typed answer may use (an image's name, a flavor's id).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

impl Choice {
    fn new(value: impl Into<Json>, label: impl Into<String>) -> Choice {
        Choice {
            value: value.into(),
            label: label.into(),
            enabled: true,
            aliases: Vec::new(),
        }
    }
}

/// Field options that shape the choices (already evaluated).
#[derive(Clone, Debug, Default)]
pub struct ChoiceOptions {
    /// `choices` of a `choice` field.
    pub choices: Option<Json>,
    pub image_type: Option<String>,
    /// `requirements` of a flavor field: min/max vcpus, disk, memory.
    pub requirements: Option<Json>,
    pub include_volumes: bool,
    pub include_snapshots: bool,
    pub include_subnets: bool,
    pub allow_auto: bool,
    /// A regular expression network names must match.
    pub filter: Option<String>,
    pub murano_networks_exclude: bool,
    pub empty_value_message: Option<String>,
}

/// The choices of a select field and the value the dashboard preselected.
pub fn choices(
    kind: &FieldKind,
    o: &ChoiceOptions,
    inv: &Inventory,
) -> (Vec<Choice>, Option<Json>) {
    match kind {
        FieldKind::Choice => (static_choices(o.choices.as_ref()), None),
        FieldKind::Flavor => flavors(o, &inv.cloud),
        FieldKind::Image => (images(o, &inv.cloud), None),
        FieldKind::KeyPair => {
            let mut keys = inv.cloud.keypairs.clone();
            keys.sort();
            let initial = (keys.len() == 1).then(|| Json::String(keys[0].clone()));
            let mut out = vec![Choice::new("", "No keypair")];
            out.extend(keys.iter().map(|k| Choice::new(k.as_str(), k.as_str())));
            (out, initial)
        }
        FieldKind::AZone => {
            let mut zones: Vec<&str> = inv
                .cloud
                .zones
                .iter()
                .filter(|z| z.available)
                .map(|z| z.name.as_str())
                .collect();
            zones.sort();
            if zones.is_empty() {
                return (
                    vec![Choice::new("", "No availability zones available")],
                    None,
                );
            }
            (zones.into_iter().map(|z| Choice::new(z, z)).collect(), None)
        }
        FieldKind::Network => (networks(o, &inv.cloud), None),
        FieldKind::SecurityGroup => {
            let mut groups: Vec<&String> = inv
                .cloud
                .security_groups
                .iter()
                .filter(|g| !g.starts_with("murano--"))
                .collect();
            groups.sort();
            let mut out = vec![Choice::new("", "Application default security group")];
            out.extend(
                groups
                    .into_iter()
                    .map(|g| Choice::new(g.as_str(), g.as_str())),
            );
            (out, None)
        }
        FieldKind::Volume => (volumes(o, &inv.cloud), None),
        FieldKind::Zone => {
            let mut zones = inv.cloud.dns_zones.clone();
            zones.sort();
            let first = if zones.is_empty() {
                "No DNS zones available"
            } else {
                "No DNS zone"
            };
            let mut out = vec![Choice::new("", first)];
            out.extend(zones.iter().map(|z| Choice::new(z.as_str(), z.as_str())));
            (out, None)
        }
        FieldKind::Domain => {
            let mut out = vec![Choice::new("", "Not in domain")];
            out.extend(apps_of(&["io.murano.windows.ActiveDirectory".into()], inv));
            (out, None)
        }
        FieldKind::App(types) => {
            let found = apps_of(types, inv);
            let initial = (found.len() == 1).then(|| found[0].value.clone());
            let empty = o
                .empty_value_message
                .clone()
                .unwrap_or_else(|| "Select Application".into());
            let mut out = vec![Choice::new("", empty)];
            out.extend(found);
            (out, initial)
        }
        _ => (Vec::new(), None),
    }
}

/// `[[key, label], ...]` or (2.4) `{key: label}`.
fn static_choices(spec: Option<&Json>) -> Vec<Choice> {
    let label = |v: &Json| match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    match spec {
        Some(Json::Array(items)) => items
            .iter()
            .filter_map(|i| match i.as_array().map(Vec::as_slice) {
                Some([k, l]) => Some(Choice::new(k.clone(), label(l))),
                Some([k]) => Some(Choice::new(k.clone(), label(k))),
                _ => None,
            })
            .collect(),
        Some(Json::Object(m)) => m
            .iter()
            .map(|(k, l)| Choice::new(k.as_str(), label(l)))
            .collect(),
        _ => Vec::new(),
    }
}

fn flavors(o: &ChoiceOptions, cloud: &CloudCatalog) -> (Vec<Choice>, Option<Json>) {
    let req = |k: &str| {
        o.requirements
            .as_ref()
            .and_then(|r| r.get(k))
            .and_then(Json::as_u64)
    };
    let fits = |value: u32, min: &str, max: &str| {
        let v = u64::from(value);
        req(min).is_none_or(|m| v >= m) && req(max).is_none_or(|m| v <= m)
    };
    let mut list: Vec<_> = cloud
        .flavors
        .iter()
        .filter(|f| {
            fits(f.vcpus, "min_vcpus", "max_vcpus")
                && fits(f.disk_gb, "min_disk", "max_disk")
                && fits(f.ram_mb, "min_memory_mb", "max_memory_mb")
        })
        .collect();
    list.sort_by(|a, b| a.name.cmp(&b.name));
    let initial = list
        .iter()
        .find(|f| f.name.contains("medium"))
        .map(|f| Json::String(f.name.clone()));
    let out = list
        .into_iter()
        .map(|f| Choice {
            aliases: vec![f.id.clone()],
            ..Choice::new(f.name.as_str(), f.name.as_str())
        })
        .collect();
    (out, initial)
}

fn images(o: &ChoiceOptions, cloud: &CloudCatalog) -> Vec<Choice> {
    let mut out: Vec<Choice> = cloud
        .images
        .iter()
        .filter_map(|img| {
            let murano_type = img.murano_type.as_deref()?;
            if let Some(wanted) = o.image_type.as_deref() {
                let prefix = format!("{wanted}.");
                if murano_type != wanted && !murano_type.starts_with(&prefix) {
                    return None;
                }
            }
            let title = img.title.clone().unwrap_or_else(|| img.name.clone());
            let active = img.status == "active";
            Some(Choice {
                value: Json::String(img.id.clone()),
                label: if active {
                    title
                } else {
                    format!("{title} ({})", img.status)
                },
                enabled: active,
                aliases: vec![img.name.clone()],
            })
        })
        .collect();
    out.sort_by(|a, b| a.label.cmp(&b.label));
    match out.len() {
        0 => vec![Choice::new("", "No images available")],
        1 => out,
        _ => {
            out.insert(0, Choice::new("", "Select Image"));
            out
        }
    }
}

fn networks(o: &ChoiceOptions, cloud: &CloudCatalog) -> Vec<Choice> {
    let filter = o
        .filter
        .as_deref()
        .and_then(|f| fancy_regex::Regex::new(f).ok());
    let mut out = Vec::new();
    if o.allow_auto {
        out.push(Choice::new(json!([null, null]), "Auto"));
    }
    for net in cloud.networks.iter().filter(|n| !n.external) {
        if let Some(re) = &filter {
            if !re.is_match(&net.name).unwrap_or(false) {
                continue;
            }
        }
        if o.murano_networks_exclude && net.name.starts_with("murano-") {
            continue;
        }
        if o.include_subnets {
            for s in &net.subnets {
                out.push(Choice::new(
                    json!([net.id, s.id]),
                    format!("{}: {} {}", net.name, s.cidr, s.name),
                ));
            }
        } else {
            out.push(Choice::new(json!([net.id, null]), net.name.as_str()));
        }
    }
    out
}

fn volumes(o: &ChoiceOptions, cloud: &CloudCatalog) -> Vec<Choice> {
    let mut out: Vec<Choice> = cloud
        .volumes
        .iter()
        .filter(|v| {
            if v.snapshot {
                o.include_snapshots
            } else {
                o.include_volumes
            }
        })
        .map(|v| Choice::new(v.id.as_str(), v.name.as_str()))
        .collect();
    out.sort_by(|a, b| a.label.cmp(&b.label));
    let first = if out.is_empty() {
        "No volumes available"
    } else {
        "Select volume"
    };
    out.insert(0, Choice::new("", first));
    out
}

fn apps_of(types: &[String], inv: &Inventory) -> Vec<Choice> {
    inv.apps
        .iter()
        .filter(|a| a.classes.iter().any(|c| types.contains(c)))
        .map(|a| Choice::new(a.id.as_str(), a.name.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv() -> Inventory {
        Inventory {
            cloud: vetro_dsl::cloud::simulator::catalog(),
            apps: vec![ExistingApp {
                id: "db-1".into(),
                name: "MySQL".into(),
                classes: vec!["com.example.MySql".into(), "io.murano.Application".into()],
            }],
        }
    }

    #[test]
    fn flavors_meet_requirements_and_medium_is_preselected() {
        let o = ChoiceOptions {
            requirements: Some(json!({"min_vcpus": 2})),
            ..ChoiceOptions::default()
        };
        let (list, initial) = choices(&FieldKind::Flavor, &o, &inv());
        let names: Vec<_> = list.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(names, ["m1.large", "m1.medium", "m1.xlarge"]);
        assert_eq!(initial, Some(json!("m1.medium")));
    }

    #[test]
    fn images_are_filtered_by_type() {
        let o = ChoiceOptions {
            image_type: Some("windows".into()),
            ..ChoiceOptions::default()
        };
        let (list, _) = choices(&FieldKind::Image, &o, &inv());
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].value, json!("sim-image-windows-2019"));
        let (all, _) = choices(&FieldKind::Image, &ChoiceOptions::default(), &inv());
        assert_eq!(all[0].value, json!(""), "several images: a blank first");
        assert_eq!(all.len(), 4, "cirros has no Murano metadata");
    }

    #[test]
    fn networks_offer_auto_and_each_subnet() {
        let o = ChoiceOptions {
            allow_auto: true,
            include_subnets: true,
            ..ChoiceOptions::default()
        };
        let (list, _) = choices(&FieldKind::Network, &o, &inv());
        assert_eq!(list[0].value, json!([null, null]));
        assert!(list
            .iter()
            .any(|c| c.value == json!(["sim-net-private", "sim-subnet-private"])));
        assert!(!list.iter().any(|c| c.label.starts_with("public")));
    }

    #[test]
    fn application_fields_list_the_environment_apps_of_their_class() {
        let (list, initial) = choices(
            &FieldKind::App(vec!["com.example.MySql".into()]),
            &ChoiceOptions::default(),
            &inv(),
        );
        assert_eq!(list.len(), 2);
        assert_eq!(initial, Some(json!("db-1")));
        let (none, _) = choices(
            &FieldKind::App(vec!["com.example.Other".into()]),
            &ChoiceOptions::default(),
            &inv(),
        );
        assert_eq!(none.len(), 1);
    }

    #[test]
    fn static_choices_take_pairs_and_mappings() {
        let o = ChoiceOptions {
            choices: Some(json!([["a", "A"], ["b", "B"]])),
            ..ChoiceOptions::default()
        };
        assert_eq!(choices(&FieldKind::Choice, &o, &inv()).0.len(), 2);
        let o = ChoiceOptions {
            choices: Some(json!({"x": "X"})),
            ..ChoiceOptions::default()
        };
        assert_eq!(
            choices(&FieldKind::Choice, &o, &inv()).0[0].value,
            json!("x")
        );
    }
}
