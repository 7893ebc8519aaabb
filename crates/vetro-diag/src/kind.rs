//! What a diagnostic reports, under its stable identifier.

use serde::{Serialize, Serializer};
use std::fmt;

/// The kind of a [`crate::Diagnostic`]: its stable identifier (`error[KIND]`
/// in text, `kind` in JSON). The kinds that decide what a program does with
/// a problem (a command's exit status, whether a file is read at all) are
/// variants; every other kind belongs to one part, which lists its kinds once
/// in an enum (see [`kinds!`](crate::kinds)) and hands them over as
/// [`Kind::Part`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// Any other problem of the input, by its part's own kind.
    Part(PartLabel),
}

/// A part's enum of diagnostic kinds: each variant has one stable label.
/// [`kinds!`](crate::kinds) declares such an enum with its labels.
pub trait PartKind: Copy {
    /// The stable identifier of this kind (`duplicate-key`, `unknown-type`).
    fn label(self) -> &'static str;
}

/// The label of a [`Kind::Part`]: made only from a [`PartKind`], so every
/// label is written once, in its part's enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PartLabel(&'static str);

impl PartLabel {
    pub fn of(kind: impl PartKind) -> PartLabel {
        PartLabel(kind.label())
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl Kind {
    /// The kind of a part's own problem.
    pub fn part(kind: impl PartKind) -> Kind {
        Kind::Part(PartLabel::of(kind))
    }

    /// The stable identifier.
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::Io => "io",
            Kind::Usage => "usage",
            Kind::Encoding => "encoding",
            Kind::YamlSyntax => "yaml-syntax",
            Kind::Part(label) => label.as_str(),
        }
    }
}

/// Declares a part's diagnostic kinds: an enum whose variants each carry
/// their stable label, with `label()`, `Display`, [`PartKind`] and the
/// conversion into [`Kind`].
///
/// ```
/// vetro_diag::kinds! {
///     /// Problems of a greeting.
///     pub enum GreetingKind {
///         /// The greeting names nobody.
///         NoName = "no-name",
///     }
/// }
/// let d = vetro_diag::Diagnostic::error(GreetingKind::NoName, "hello, who?");
/// assert_eq!(d.kind.as_str(), "no-name");
/// assert_eq!(d.kind, GreetingKind::NoName);
/// ```
#[macro_export]
macro_rules! kinds {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $label:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// The stable identifier.
            pub const fn label(self) -> &'static str {
                match self {
                    $( $name::$variant => $label ),+
                }
            }
        }

        impl $crate::PartKind for $name {
            fn label(self) -> &'static str {
                $name::label(self)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.label())
            }
        }

        impl ::std::convert::From<$name> for $crate::Kind {
            fn from(kind: $name) -> $crate::Kind {
                $crate::Kind::part(kind)
            }
        }
    };
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

/// Comparing with a part's kind, as tests do.
impl<K: PartKind> PartialEq<K> for Kind {
    fn eq(&self, other: &K) -> bool {
        *self == Kind::part(*other)
    }
}

/// Comparing with an identifier, as tests of the output do.
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

    crate::kinds! {
        enum Sample {
            DuplicateKey = "duplicate-key",
            Other = "other",
        }
    }

    #[test]
    fn part_kinds_carry_their_labels() {
        let k = Kind::from(Sample::DuplicateKey);
        assert_eq!(k, Kind::Part(PartLabel::of(Sample::DuplicateKey)));
        assert_eq!(k, Sample::DuplicateKey);
        assert_ne!(k, Sample::Other);
        assert_eq!(k, "duplicate-key");
        assert_eq!(Sample::Other.to_string(), "other");
        for (k, label) in [
            (Kind::Io, "io"),
            (Kind::Usage, "usage"),
            (Kind::Encoding, "encoding"),
            (Kind::YamlSyntax, "yaml-syntax"),
            (k, "duplicate-key"),
        ] {
            assert_eq!(k.as_str(), label);
            assert_eq!(serde_json::to_value(k).unwrap(), label);
        }
    }
}
