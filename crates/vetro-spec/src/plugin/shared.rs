//! The shared groups every plugin can include by title (InfraRed's built-in
//! groups): "Debug Options", "Ansible options", "Inventory", "Common options"
//! and "Answers file".

use crate::model::{Action, Group, OptionSpec, PluginKeys};
use serde_json::Value;

fn option(name: &str, help: &str) -> OptionSpec {
    OptionSpec {
        name: name.to_string(),
        help: help.to_string(),
        plugin: PluginKeys {
            shared: true,
            ..PluginKeys::default()
        },
        ..OptionSpec::default()
    }
}

fn group(title: &str, options: Vec<OptionSpec>) -> Group {
    Group {
        title: title.to_string(),
        options,
    }
}

/// The built-in shared groups, in InfraRed's order.
pub fn builtin_groups() -> Vec<Group> {
    let debug = OptionSpec {
        short: Some('d'),
        action: Action::StoreTrue,
        ..option("debug", "Run in DEBUG mode")
    };
    let mut verbose = OptionSpec {
        short: Some('v'),
        action: Action::Count,
        default: Some(Value::from(0)),
        ..option("verbose", "Control Ansible verbosity level")
    };
    verbose.plugin.default_env = Some("ANSIBLE_VERBOSITY".to_string());
    let ansible_args = OptionSpec {
        type_name: Some("AdditionalArgs".to_string()),
        ..option(
            "ansible-args",
            "Extra arguments for ansible-playbook, separated with \";\".\n\
             For example, --ansible-args=\"tags=tagging,overcloud;forks=500\"",
        )
    };
    let inventory = OptionSpec {
        type_name: Some("Inventory".to_string()),
        ..option("inventory", "Inventory file")
    };
    let dry_run = OptionSpec {
        action: Action::StoreTrue,
        ..option(
            "dry-run",
            "Only generate the vars, skip the playbook execution stage",
        )
    };
    let extra_vars = OptionSpec {
        short: Some('e'),
        action: Action::Append,
        type_name: Some("str".to_string()),
        ..option(
            "extra-vars",
            "Extra variables to be merged last: KEY=VALUE, KEY=@FILE or @FILE",
        )
    };
    let output = OptionSpec {
        short: Some('o'),
        type_name: Some("str".to_string()),
        ..option(
            "output",
            "File to dump the generated vars into (default: stdout)",
        )
    };
    let from_file = OptionSpec {
        action: Action::ReadConfig,
        ..option("from-file", "Read arguments from an answers (INI) file")
    };
    let generate = OptionSpec {
        action: Action::GenerateConfig,
        ..option(
            "generate-answers-file",
            "Write an answers (INI) file with the default values and exit",
        )
    };
    vec![
        group("Debug Options", vec![debug]),
        group("Ansible options", vec![verbose, ansible_args]),
        group("Inventory", vec![inventory]),
        group("Common options", vec![dry_run, extra_vars, output]),
        group("Answers file", vec![from_file, generate]),
    ]
}
