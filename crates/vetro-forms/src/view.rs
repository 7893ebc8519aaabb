//! Forms as a front end shows them: every attribute evaluated against the
//! data of the earlier steps, the dashboard's defaults applied, choices listed.

use crate::choices::{choices, Choice, ChoiceOptions, Inventory};
use crate::eval::{EvalError, Evaluator};
use crate::field::{Check, Field, FieldKind, Form, Key};
use crate::tpl::Tpl;
use serde::Serialize;
use serde_json::Value as Json;

/// A regular expression a browser may check before submitting.
#[derive(Clone, Debug, Serialize)]
pub struct ClientRegexp {
    /// Python syntax (mostly what JavaScript accepts).
    pub pattern: String,
    pub message: String,
}

/// One field, ready to render.
#[derive(Clone, Debug, Serialize)]
pub struct FieldView {
    pub name: String,
    /// `string`, `text`, `password`, `integer`, `boolean`, `choice`,
    /// `flavor`, `image`, `keypair`, `azone`, `network`, `securitygroup`,
    /// `volume`, `zone`, `floatingip`, `clusterip`, `domain`,
    /// `databaselist`, or `app` (another application, see `app_types`).
    pub kind: &'static str,
    /// For `app`: the classes an application must have.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub app_types: Vec<String>,
    pub label: String,
    pub description: Option<String>,
    pub description_title: Option<String>,
    pub help_text: Option<String>,
    pub required: bool,
    pub hidden: bool,
    /// The value the field starts with (`null`: empty).
    pub initial: Json,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_value: Option<i64>,
    pub max_value: Option<i64>,
    /// Regular expressions the value must contain a match of.
    pub regexps: Vec<ClientRegexp>,
    /// For select fields: the options, in order.
    pub choices: Option<Vec<Choice>>,
    /// For passwords: the dashboard asks twice.
    pub confirm_input: bool,
    /// Messages replacing the default ones (`required`, `invalid`).
    #[serde(skip)]
    pub messages: ErrorMessages,
}

/// `errorMessages` of a field.
#[derive(Clone, Debug, Default)]
pub struct ErrorMessages {
    pub required: Option<String>,
    pub invalid: Option<String>,
}

/// One step of the wizard, ready to render.
#[derive(Clone, Debug, Serialize)]
pub struct FormView {
    pub name: String,
    /// 0-based position in the wizard.
    pub index: usize,
    pub fields: Vec<FieldView>,
}

/// The dashboard's default label: the name with `_` as spaces, capitalized.
pub fn default_label(name: &str) -> String {
    let text = name.replace('_', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// Default strength rule of a password without validators of its own.
pub const PASSWORD_HELP: &str =
    "Enter a complex password with at least one letter, one number and one special character";

pub(crate) struct Ctx<'e, 'a> {
    pub eval: &'e Evaluator<'a>,
    pub data: &'e Json,
    pub inventory: &'e Inventory,
}

impl Ctx<'_, '_> {
    fn value(&self, f: &Field, key: &Key) -> Result<Option<Json>, EvalError> {
        match f.attr(key) {
            None => Ok(None),
            Some(a) => self.eval.tpl(&a.value, self.data).map(Some),
        }
    }

    /// A text attribute; an expression that fails shows its source text
    /// (a description that merely looks like YAQL stays readable).
    fn text(&self, f: &Field, key: &Key) -> Option<String> {
        let a = f.attr(key)?;
        let v = match self.eval.tpl(&a.value, self.data) {
            Ok(v) => v,
            Err(_) => match &a.value {
                Tpl::Expr(y) => Json::String(y.text.clone()),
                _ => return None,
            },
        };
        match v {
            Json::Null => None,
            Json::String(s) => Some(s),
            other => Some(other.to_string()),
        }
    }

    fn flag(&self, f: &Field, key: &Key, default: bool) -> Result<bool, EvalError> {
        Ok(match self.value(f, key)? {
            None | Some(Json::Null) => default,
            Some(Json::Bool(b)) => b,
            Some(other) => crate::eval::truthy_json(&other),
        })
    }

    fn int(&self, f: &Field, key: &Key) -> Result<Option<i64>, EvalError> {
        Ok(self.value(f, key)?.and_then(|v| v.as_i64()))
    }

    pub fn field(&self, f: &Field) -> Result<FieldView, EvalError> {
        let boolean = f.kind.is_boolean();
        let password = f.kind == FieldKind::Password;
        let custom_validators = !f.validators.is_empty();
        let mut view = FieldView {
            name: f.name.clone(),
            kind: f.kind.name(),
            app_types: match &f.kind {
                FieldKind::App(t) => t.clone(),
                FieldKind::Domain => vec!["io.murano.windows.ActiveDirectory".into()],
                _ => Vec::new(),
            },
            label: self
                .text(f, &Key::Label)
                .unwrap_or_else(|| default_label(&f.name)),
            description: self.text(f, &Key::Description),
            description_title: self.text(f, &Key::DescriptionTitle),
            help_text: self.text(f, &Key::HelpText),
            required: !boolean && self.flag(f, &Key::Required, true)?,
            hidden: self.flag(f, &Key::Hidden, false)?,
            initial: self.value(f, &Key::Initial)?.unwrap_or(Json::Null),
            min_length: self.int(f, &Key::MinLength)?.map(|n| n.max(0) as u64),
            max_length: self.int(f, &Key::MaxLength)?.map(|n| n.max(0) as u64),
            min_value: self.int(f, &Key::MinValue)?,
            max_value: self.int(f, &Key::MaxValue)?,
            regexps: Vec::new(),
            choices: None,
            confirm_input: password && self.flag(f, &Key::ConfirmInput, true)?,
            messages: self.messages(f)?,
        };
        if password && !custom_validators {
            view.min_length = view.min_length.or(Some(7));
            view.max_length = view.max_length.or(Some(255));
            if view.help_text.is_none() {
                view.help_text = Some(PASSWORD_HELP.into());
            }
        }
        if boolean && view.initial.is_null() {
            view.initial = Json::Bool(false);
        }
        for (i, v) in f.validators.iter().enumerate() {
            if let Check::Regexp(re) = &v.check {
                let message = match &v.message {
                    Some(m) => self
                        .eval
                        .tpl(m, self.data)?
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    None if i == 0 => view.messages.invalid.clone().unwrap_or_default(),
                    None => String::new(),
                };
                view.regexps.push(ClientRegexp {
                    pattern: re.source.clone(),
                    message,
                });
            }
        }
        if f.kind.is_select() {
            let (list, preselected) = choices(&f.kind, &self.choice_options(f)?, self.inventory);
            if view.initial.is_null() {
                view.initial = preselected
                    .or_else(|| list.first().map(|c| c.value.clone()))
                    .unwrap_or(Json::Null);
            }
            view.choices = Some(list);
        }
        Ok(view)
    }

    fn messages(&self, f: &Field) -> Result<ErrorMessages, EvalError> {
        let m = self.value(f, &Key::ErrorMessages)?.unwrap_or(Json::Null);
        let get = |k: &str| m.get(k).and_then(Json::as_str).map(str::to_string);
        Ok(ErrorMessages {
            required: get("required"),
            invalid: get("invalid"),
        })
    }

    fn choice_options(&self, f: &Field) -> Result<ChoiceOptions, EvalError> {
        let string = |v: Option<Json>| v.and_then(|v| v.as_str().map(str::to_string));
        Ok(ChoiceOptions {
            choices: self.value(f, &Key::Choices)?,
            image_type: string(self.value(f, &Key::ImageType)?),
            requirements: self.value(f, &Key::Requirements)?,
            include_volumes: self.flag(f, &Key::IncludeVolumes, true)?,
            include_snapshots: self.flag(f, &Key::IncludeSnapshots, true)?,
            include_subnets: self.flag(f, &Key::IncludeSubnets, true)?,
            allow_auto: self.flag(f, &Key::AllowAuto, true)?,
            filter: string(self.value(f, &Key::Filter)?),
            murano_networks_exclude: string(self.value(f, &Key::MuranoNetworks)?).as_deref()
                == Some("exclude"),
            empty_value_message: string(self.value(f, &Key::EmptyValueMessage)?),
        })
    }

    pub fn form(&self, form: &Form, index: usize) -> Result<FormView, EvalError> {
        Ok(FormView {
            name: form.name.clone(),
            index,
            fields: form
                .fields
                .iter()
                .map(|f| self.field(f))
                .collect::<Result<_, _>>()?,
        })
    }
}
