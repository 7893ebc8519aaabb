//! Names in request bodies: text of 1 to a bound of characters, not blank,
//! checked as the body is read and described with that bound.

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident, $max:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// The most characters it may have.
            pub const MAX: usize = $max;

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = String;
            fn try_from(s: String) -> Result<$name, String> {
                if s.trim().is_empty() || s.chars().count() > $max {
                    Err(format!("must have 1 to {} characters and not be blank", $max))
                } else {
                    Ok($name(s))
                }
            }
        }

        impl From<$name> for String {
            fn from(n: $name) -> String {
                n.0
            }
        }

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some(concat!("1 to ", $max, " characters, not blank")))
                    .min_length(Some(1))
                    .max_length(Some($max))
                    .pattern(Some("\\S"))
                    .into()
            }
        }

        impl ToSchema for $name {}
    };
}

name_type!(
    /// The name of an environment, a template or a class.
    Name,
    255
);

name_type!(
    /// The name of a category.
    CategoryName,
    80
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_and_long_names_are_refused() {
        assert!(Name::try_from("web".to_string()).is_ok());
        assert!(Name::try_from(" \t".to_string()).is_err());
        assert!(Name::try_from("é".repeat(255)).is_ok());
        assert!(Name::try_from("é".repeat(256)).is_err());
        assert!(CategoryName::try_from("x".repeat(81)).is_err());
    }
}
