//! What a diagnostic reports, under its stable identifier.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The kind of a [`crate::Diagnostic`]: its stable identifier (`error[KIND]`
/// in text, `kind` in JSON). The kinds that decide what a program does with
/// a problem (a command's exit status, whether a file is read at all) are
/// variants; every other kind is a part's own label for a problem of the
/// input (`yaml-syntax`, `duplicate-key`, a policy or spec error class).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The input could not be read (no such file, no permission, a read error).
    Io,
    /// The command line asked for something that cannot be done.
    Usage,
    /// The input is not text in the encoding it must have (UTF-8).
    Encoding,
    /// The input is not well-formed YAML (or JSON); parts that need one
    /// document fold their own reading problems into it.
    YamlSyntax,
    /// Any other problem of the input, by its part's identifier.
    Input(Cow<'static, str>),
}

impl Kind {
    /// The kind with this identifier: `io`, `usage` and `encoding` are their
    /// variants (and `yaml-syntax`), anything else is [`Kind::Input`].
    pub fn named(name: impl Into<Cow<'static, str>>) -> Kind {
        let name = name.into();
        match &*name {
            "io" => Kind::Io,
            "usage" => Kind::Usage,
            "encoding" => Kind::Encoding,
            "yaml-syntax" => Kind::YamlSyntax,
            _ => Kind::Input(name),
        }
    }

    /// The stable identifier.
    pub fn as_str(&self) -> &str {
        match self {
            Kind::Io => "io",
            Kind::Usage => "usage",
            Kind::Encoding => "encoding",
            Kind::YamlSyntax => "yaml-syntax",
            Kind::Input(name) => name,
        }
    }
}

impl From<&'static str> for Kind {
    fn from(name: &'static str) -> Kind {
        Kind::named(name)
    }
}

impl From<String> for Kind {
    fn from(name: String) -> Kind {
        Kind::named(name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Comparing with an identifier, as tests do.
impl PartialEq<str> for Kind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_are_variants_and_text_round_trips() {
        assert_eq!(Kind::from("io"), Kind::Io);
        assert_eq!(Kind::from("usage".to_string()), Kind::Usage);
        assert_eq!(Kind::from("encoding"), Kind::Encoding);
        assert_eq!(Kind::from("yaml-syntax"), Kind::YamlSyntax);
        let k = Kind::from("duplicate-key");
        assert_eq!(k, Kind::Input("duplicate-key".into()));
        for k in [Kind::Io, Kind::Usage, Kind::Encoding, Kind::YamlSyntax, k] {
            assert_eq!(Kind::named(k.as_str().to_string()), k);
            assert_eq!(serde_json::to_value(&k).unwrap(), k.as_str());
        }
    }
}
