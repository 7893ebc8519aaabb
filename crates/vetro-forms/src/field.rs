//! The typed model of a form: fields, their types and attributes, validators.

use crate::tpl::{Tpl, Yaql};
use indexmap::IndexMap;
use vetro_diag::Span;

/// What a field asks for, which decides its widget, its choices and how a
/// submitted value is cleaned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// One line of text.
    String,
    /// Several lines of text.
    Text,
    /// A secret; checked for strength unless the field has its own validators.
    Password,
    Integer,
    Boolean,
    /// One of the field's `choices`.
    Choice,
    /// A flavor of the cloud (the value is the flavor's name).
    Flavor,
    /// An image prepared for Murano (filtered by `imageType`).
    Image,
    /// A key pair (or none).
    KeyPair,
    /// An availability zone.
    AZone,
    /// A network and subnet, as `[network_id, subnet_id]` (`[null, null]`: the environment's).
    Network,
    /// A security group (or the application's default).
    SecurityGroup,
    /// A volume or volume snapshot.
    Volume,
    /// A DNS zone (or none).
    Zone,
    /// A boolean (old name, kept by the dashboard for compatibility).
    FloatingIp,
    /// An IPv4 address.
    ClusterIp,
    /// An Active Directory application of the environment (or none).
    Domain,
    /// A comma-separated list of database names, cleaned into a list.
    DatabaseList,
    /// Another application of the environment whose class is one of these
    /// (or a subclass): the value is its object id.
    App(Vec<String>),
}

impl FieldKind {
    /// The field type as written in `type:`; a name with a dot (or a list
    /// of names) is an application class; `None` for an unknown plain word.
    pub fn from_name(name: &str) -> Option<FieldKind> {
        Some(match name {
            "string" => FieldKind::String,
            "text" => FieldKind::Text,
            "password" => FieldKind::Password,
            "integer" => FieldKind::Integer,
            "boolean" => FieldKind::Boolean,
            "choice" => FieldKind::Choice,
            "flavor" => FieldKind::Flavor,
            "image" => FieldKind::Image,
            "keypair" => FieldKind::KeyPair,
            "azone" => FieldKind::AZone,
            "network" => FieldKind::Network,
            "securitygroup" => FieldKind::SecurityGroup,
            "volume" => FieldKind::Volume,
            "zone" => FieldKind::Zone,
            "floatingip" => FieldKind::FloatingIp,
            "clusterip" => FieldKind::ClusterIp,
            "domain" => FieldKind::Domain,
            "databaselist" => FieldKind::DatabaseList,
            n if n.contains('.') => FieldKind::App(vec![n.to_string()]),
            _ => return None,
        })
    }

    /// The name a front end keys its widget on (`app` for application references).
    pub fn name(&self) -> &'static str {
        match self {
            FieldKind::String => "string",
            FieldKind::Text => "text",
            FieldKind::Password => "password",
            FieldKind::Integer => "integer",
            FieldKind::Boolean => "boolean",
            FieldKind::Choice => "choice",
            FieldKind::Flavor => "flavor",
            FieldKind::Image => "image",
            FieldKind::KeyPair => "keypair",
            FieldKind::AZone => "azone",
            FieldKind::Network => "network",
            FieldKind::SecurityGroup => "securitygroup",
            FieldKind::Volume => "volume",
            FieldKind::Zone => "zone",
            FieldKind::FloatingIp => "floatingip",
            FieldKind::ClusterIp => "clusterip",
            FieldKind::Domain => "domain",
            FieldKind::DatabaseList => "databaselist",
            FieldKind::App(_) => "app",
        }
    }

    /// The field types known by name (application classes aside).
    pub const NAMES: &'static [&'static str] = &[
        "string",
        "text",
        "password",
        "integer",
        "boolean",
        "choice",
        "flavor",
        "image",
        "keypair",
        "azone",
        "network",
        "securitygroup",
        "volume",
        "zone",
        "floatingip",
        "clusterip",
        "domain",
        "databaselist",
    ];

    /// Whether the value is picked from a list of choices.
    pub fn is_select(&self) -> bool {
        matches!(
            self,
            FieldKind::Choice
                | FieldKind::Flavor
                | FieldKind::Image
                | FieldKind::KeyPair
                | FieldKind::AZone
                | FieldKind::Network
                | FieldKind::SecurityGroup
                | FieldKind::Volume
                | FieldKind::Zone
                | FieldKind::Domain
                | FieldKind::App(_)
        )
    }

    /// Whether the field is a boolean checkbox (never required).
    pub fn is_boolean(&self) -> bool {
        matches!(self, FieldKind::Boolean | FieldKind::FloatingIp)
    }
}

/// A field attribute, by its name with camel case folded to snake case
/// (`minLength` and `min_length` are one attribute, as in the dashboard).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Label,
    Description,
    DescriptionTitle,
    HelpText,
    Hidden,
    Required,
    Initial,
    MinLength,
    MaxLength,
    MinValue,
    MaxValue,
    RegexpValidator,
    Validators,
    ErrorMessages,
    Choices,
    ConfirmInput,
    ImageType,
    Requirements,
    IncludeVolumes,
    IncludeSnapshots,
    IncludeSubnets,
    Filter,
    MuranoNetworks,
    AllowAuto,
    EmptyValueMessage,
    /// Presentation hints for the dashboard's widgets (kept, not used).
    WidgetMedia,
    WidgetAttrs,
    Widget,
    /// Any other attribute (the dashboard passed it to Django, which refused it).
    Other(String),
}

impl Key {
    pub fn from_name(name: &str) -> Key {
        match decamelize(name).as_str() {
            "label" => Key::Label,
            "description" => Key::Description,
            "description_title" => Key::DescriptionTitle,
            "help_text" => Key::HelpText,
            "hidden" => Key::Hidden,
            "required" => Key::Required,
            "initial" => Key::Initial,
            "min_length" => Key::MinLength,
            "max_length" => Key::MaxLength,
            "min_value" => Key::MinValue,
            "max_value" => Key::MaxValue,
            "regexp_validator" => Key::RegexpValidator,
            "validators" => Key::Validators,
            "error_messages" => Key::ErrorMessages,
            "choices" => Key::Choices,
            "confirm_input" => Key::ConfirmInput,
            "image_type" => Key::ImageType,
            "requirements" => Key::Requirements,
            "include_volumes" => Key::IncludeVolumes,
            "include_snapshots" => Key::IncludeSnapshots,
            "include_subnets" => Key::IncludeSubnets,
            "filter" => Key::Filter,
            "murano_networks" => Key::MuranoNetworks,
            "allow_auto" => Key::AllowAuto,
            "empty_value_message" => Key::EmptyValueMessage,
            "widget_media" => Key::WidgetMedia,
            "widget_attrs" => Key::WidgetAttrs,
            "widget" => Key::Widget,
            other => Key::Other(other.to_string()),
        }
    }
}

/// `minLength` -> `min_length`, `include_snapshots` unchanged.
pub fn decamelize(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// One attribute as written.
#[derive(Clone, Debug)]
pub struct Attr {
    /// The key as written in the file.
    pub written: String,
    pub value: Tpl,
    /// The value's position.
    pub span: Span,
}

/// A regular expression of `regexpValidator` (Python syntax; `/re/flags`
/// also accepted). It matches anywhere in the value, as Django's did.
#[derive(Clone, Debug)]
pub struct Regexp {
    pub source: String,
    pub re: fancy_regex::Regex,
}

impl Regexp {
    /// Compile `pattern` or `/pattern/flags` (flags `i`, `m`, `s`, `x`;
    /// others are ignored as Python ignored unknown flag letters).
    pub fn compile(text: &str) -> Result<Regexp, String> {
        let (pattern, flags) = match text.strip_prefix('/').and_then(|r| r.rsplit_once('/')) {
            Some((p, f)) if f.chars().all(|c| c.is_ascii_alphabetic()) => (p, f),
            _ => (text, ""),
        };
        let inline: String = flags
            .chars()
            .map(|c| c.to_ascii_lowercase())
            .filter(|c| "imsx".contains(*c))
            .collect();
        let full = if inline.is_empty() {
            pattern.to_string()
        } else {
            format!("(?{inline}){pattern}")
        };
        let re = fancy_regex::RegexBuilder::new(&full)
            .backtrack_limit(100_000)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Regexp {
            source: text.to_string(),
            re,
        })
    }

    /// Whether the pattern is found in `value` (a pattern too costly to
    /// decide counts as not found).
    pub fn found(&self, value: &str) -> bool {
        self.re.is_match(value).unwrap_or(false)
    }
}

/// What a validator checks.
#[derive(Clone, Debug)]
pub enum Check {
    /// A YAQL expression that must be true (`$` is the field's value for a
    /// field validator, the forms' data for a form validator).
    Yaql(Yaql),
    /// A regular expression the value must contain a match of.
    Regexp(Regexp),
}

/// One entry of `validators`.
#[derive(Clone, Debug)]
pub struct Validator {
    pub check: Check,
    pub message: Option<Tpl>,
    pub span: Span,
}

/// One field of a form.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub kind: FieldKind,
    /// The whole field mapping.
    pub span: Span,
    /// The `type:` value.
    pub kind_span: Span,
    /// Every attribute but `name`, `type`, `regexpValidator` and `validators`.
    pub attrs: IndexMap<Key, Attr>,
    /// `regexpValidator`, then each of `validators`, in that order.
    pub validators: Vec<Validator>,
}

impl Field {
    pub fn attr(&self, key: &Key) -> Option<&Attr> {
        self.attrs.get(key)
    }
}

/// One step of the wizard.
#[derive(Clone, Debug)]
pub struct Form {
    pub name: String,
    pub span: Span,
    pub fields: Vec<Field>,
    /// Form-level validators (`$` is every form's data so far).
    pub validators: Vec<Validator>,
    /// `region:` of the form, kept for front ends with several regions.
    pub region: Option<Tpl>,
}

impl Form {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}
