//! The spec model: a command's parsers, their groups and options, as read
//! from the merged `.spec` documents.

use serde_json::Value;
use vetro_diag::Span;

/// What an option does with the command line (argparse's `action`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    #[default]
    Store,
    StoreTrue,
    StoreFalse,
    StoreConst,
    Count,
    Append,
    ReadConfig,
    GenerateConfig,
}

impl Action {
    pub fn parse(text: &str) -> Option<Action> {
        Some(match text {
            "store" => Action::Store,
            "store_true" => Action::StoreTrue,
            "store_false" => Action::StoreFalse,
            "store_const" => Action::StoreConst,
            "count" => Action::Count,
            "append" => Action::Append,
            "read-config" => Action::ReadConfig,
            "generate-config" => Action::GenerateConfig,
            _ => return None,
        })
    }

    /// Options that take no value on the command line.
    pub fn is_flag(self) -> bool {
        matches!(
            self,
            Action::StoreTrue | Action::StoreFalse | Action::StoreConst | Action::Count
        )
    }
}

/// argparse's `nargs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nargs {
    /// `'?'`: zero or one value.
    Optional,
    /// `'*'`.
    ZeroOrMore,
    /// `'+'`.
    OneOrMore,
    /// A fixed count.
    Exactly(usize),
}

/// A `required_when: "NAME == VALUE"` condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub option: String,
    pub value: String,
}

/// Keys only the plugin format (`plugin.spec`) has.
#[derive(Clone, Debug, Default)]
pub struct PluginKeys {
    /// Put the value at this top-level variable instead of the nested path.
    pub ansible_variable: Option<String>,
    /// The older option this one replaces.
    pub deprecates: Option<String>,
    /// `ListOfFileNames`: the folder (inside the plugin) whose file names are the allowed values.
    pub lookup_dir: Option<String>,
    /// `required_when` conditions; all of them must hold.
    pub required_when: Vec<crate::when::WhenExpr>,
    /// `length`, `minimum`, `maximum` checks of the value.
    pub length: Option<usize>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    /// The option comes from a built-in shared group (a control option unless its type nests).
    pub shared: bool,
    /// An integer environment variable that replaces the spec default (`ANSIBLE_VERBOSITY`).
    pub default_env: Option<String>,
}

/// One option of a parser.
#[derive(Clone, Debug, Default)]
pub struct OptionSpec {
    pub name: String,
    pub short: Option<char>,
    pub help: String,
    pub required: bool,
    /// The spec default with its YAML type.
    pub default: Option<Value>,
    pub choices: Vec<String>,
    pub action: Action,
    pub nargs: Option<Nargs>,
    pub constant: Option<Value>,
    /// The `type` name as written (`Value`, `int`, `YamlFile`, ...).
    pub type_name: Option<String>,
    pub silent: Vec<String>,
    pub required_when: Option<Condition>,
    pub metavar: Option<String>,
    /// Where the option is defined.
    pub span: Span,
    /// Plugin-format keys (empty for settings-tree specs).
    pub plugin: PluginKeys,
}

impl OptionSpec {
    /// Integer conversion applies to environment and INI values of these.
    pub fn is_integer(&self) -> bool {
        self.action == Action::Count || matches!(self.type_name.as_deref(), Some("int" | "Int"))
    }

    /// The environment variable read for this option (`multi-word` -> `MULTI_WORD`).
    pub fn env_name(&self) -> String {
        self.name.to_uppercase().replace('-', "_")
    }

    /// The default argparse would give: the spec default, or `false`/`true`
    /// for `store_true`/`store_false` without one.
    pub fn effective_default(&self) -> Option<Value> {
        match (&self.default, self.action) {
            (Some(Value::Null), _) => None,
            (Some(v), _) => Some(v.clone()),
            (None, Action::StoreTrue) => Some(Value::Bool(false)),
            (None, Action::StoreFalse) => Some(Value::Bool(true)),
            _ => None,
        }
    }
}

/// A titled group of options (a help heading).
#[derive(Clone, Debug)]
pub struct Group {
    pub title: String,
    pub options: Vec<OptionSpec>,
}

/// One parser: the command-level parser or a subcommand.
#[derive(Clone, Debug, Default)]
pub struct ParserSpec {
    pub name: String,
    pub help: String,
    pub description: String,
    /// Own groups in order, then the included shared groups.
    pub groups: Vec<Group>,
    /// Options outside any group (shown in the generic group).
    pub options: Vec<OptionSpec>,
}

impl ParserSpec {
    /// Every option in spec order (groups first, then plain options); a
    /// name defined twice keeps its first definition.
    pub fn all_options(&self) -> Vec<&OptionSpec> {
        let mut seen = std::collections::HashSet::new();
        self.groups
            .iter()
            .flat_map(|g| g.options.iter())
            .chain(self.options.iter())
            .filter(|o| seen.insert(o.name.as_str()))
            .collect()
    }

    pub fn option(&self, name: &str) -> Option<&OptionSpec> {
        self.groups
            .iter()
            .flat_map(|g| g.options.iter())
            .chain(self.options.iter())
            .find(|o| o.name == name)
    }

    /// Every long option name, `help` included.
    pub fn long_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.all_options().iter().map(|o| o.name.clone()).collect();
        names.push("help".to_string());
        names
    }
}

/// A command: its command-level parser and its subcommands.
#[derive(Clone, Debug, Default)]
pub struct CommandSpec {
    pub name: String,
    pub main: ParserSpec,
    pub subcommands: Vec<ParserSpec>,
}

impl CommandSpec {
    pub fn subcommand(&self, name: &str) -> Option<&ParserSpec> {
        self.subcommands.iter().find(|s| s.name == name)
    }
}
