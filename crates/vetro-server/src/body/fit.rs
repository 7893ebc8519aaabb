//! A parsed JSON body into the type a handler asks for, with Murano-style
//! messages naming the field that does not fit (`'name' is required`,
//! `'tags[1]' must be a string`). serde_json's own deserializer reports
//! neither the field nor the kind of problem, so this one walks the
//! [`Value`] itself and keeps both.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::Value;
use std::fmt;

/// One step into a body: an object's key or a list's index.
#[derive(Debug)]
enum Step {
    Key(String),
    Index(usize),
}

#[derive(Debug)]
enum Problem {
    /// A required field is absent (the path ends with it).
    Missing,
    /// The value is not of the type expected (serde's description of it).
    Type(String),
    /// A value of the right type that a field's own rule refuses (its message).
    Refused(String),
    /// A word that is not one of the allowed ones.
    NotOneOf(&'static [&'static str]),
}

/// Where a body does not fit its type, and how.
#[derive(Debug)]
pub struct Misfit {
    /// From the body's top, outermost first (built innermost first).
    path: Vec<Step>,
    problem: Problem,
}

impl Misfit {
    fn new(problem: Problem) -> Misfit {
        Misfit {
            path: Vec::new(),
            problem,
        }
    }

    fn under(mut self, step: Step) -> Misfit {
        self.path.insert(0, step);
        self
    }

    /// The message, `whole` naming the value itself ("the request body").
    pub fn message(&self, whole: &str) -> String {
        let mut at = String::new();
        for step in &self.path {
            match step {
                Step::Key(k) if at.is_empty() => at.push_str(k),
                Step::Key(k) => {
                    at.push('.');
                    at.push_str(k);
                }
                Step::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        let subject = if at.is_empty() {
            whole.to_string()
        } else {
            format!("'{at}'")
        };
        match &self.problem {
            Problem::Missing => format!("{subject} is required"),
            Problem::Type(expected) => format!("{subject} must be {}", plain(expected)),
            Problem::Refused(why) => format!("{subject} {why}"),
            Problem::NotOneOf(words) => format!("{subject} must be one of {}", words.join(", ")),
        }
    }
}

/// serde's names for the JSON shapes, as a JSON API's user says them.
fn plain(expected: &str) -> &str {
    match expected {
        "a boolean" => "true or false",
        "a sequence" => "a list",
        "a map" => "an object",
        e if e.starts_with("struct ") || e.contains("tagged enum ") => "an object",
        e => e,
    }
}

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message("the value"))
    }
}

impl std::error::Error for Misfit {}

impl de::Error for Misfit {
    fn custom<T: fmt::Display>(msg: T) -> Misfit {
        Misfit::new(Problem::Refused(msg.to_string()))
    }
    fn invalid_type(_: de::Unexpected, expected: &dyn de::Expected) -> Misfit {
        Misfit::new(Problem::Type(expected.to_string()))
    }
    fn invalid_value(_: de::Unexpected, expected: &dyn de::Expected) -> Misfit {
        Misfit::new(Problem::Type(expected.to_string()))
    }
    fn invalid_length(_: usize, expected: &dyn de::Expected) -> Misfit {
        Misfit::new(Problem::Type(expected.to_string()))
    }
    fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Misfit {
        Misfit::new(Problem::NotOneOf(expected))
    }
    fn missing_field(field: &'static str) -> Misfit {
        Misfit::new(Problem::Missing).under(Step::Key(field.to_string()))
    }
}

/// `value` as a `T`.
pub fn fit<'de, T: de::Deserialize<'de>>(value: &'de Value) -> Result<T, Misfit> {
    T::deserialize(At(value))
}

/// A deserializer of one JSON value.
struct At<'de>(&'de Value);

impl<'de> de::Deserializer<'de> for At<'de> {
    type Error = Misfit;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misfit> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (None, Some(i)) => visitor.visit_i64(i),
                (None, None) => visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visitor.visit_seq(Items {
                items: items.iter().enumerate(),
            }),
            Value::Object(fields) => visitor.visit_map(Fields {
                fields: fields.iter(),
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misfit> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Misfit> {
        visitor.visit_newtype_struct(self)
    }

    /// Enums of words (`"add"`); the body's enums have no data in their variants.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Misfit> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(Misfit::new(Problem::NotOneOf(variants))),
        }
    }

    /// Names (an operation's `op`) are strings, never a variant's index.
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misfit> {
        match self.0 {
            Value::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(Misfit::new(Problem::Type("a string".into()))),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misfit> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
    }
}

struct Items<'de> {
    items: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Misfit;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Misfit> {
        match self.items.next() {
            Some((i, v)) => seed
                .deserialize(At(v))
                .map(Some)
                .map_err(|e| e.under(Step::Index(i))),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Fields<'de> {
    fields: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
}

impl<'de> MapAccess<'de> for Fields<'de> {
    type Error = Misfit;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Misfit> {
        let Some((key, value)) = self.fields.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        let key: de::value::BorrowedStrDeserializer<'de, Misfit> =
            de::value::BorrowedStrDeserializer::new(key);
        seed.deserialize(key).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Misfit> {
        let (key, value) = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("has a value without a key"))?;
        seed.deserialize(At(value))
            .map_err(|e| e.under(Step::Key(key.to_string())))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}
