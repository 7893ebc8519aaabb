//! Namespace prefixes of a class file and type-name resolution (`ns:Name`,
//! `:Name`, dotted full names, bare names in the `=` namespace).

use indexmap::IndexMap;

#[derive(Clone, Debug, Default, PartialEq)]
/// The namespace prefixes of a class file (`Namespaces:`).
pub struct Namespaces {
    /// prefix -> namespace; `=` is the current namespace. Empty means "none".
    pub(crate) map: IndexMap<String, String>,
}

#[derive(Clone, Debug, PartialEq)]
/// A type name whose namespace prefix the file does not declare.
pub struct UnknownPrefix(
    /// The prefix.
    pub String,
);

impl Namespaces {
    /// Resolve a type name written in this scope to a full class name.
    pub fn resolve(&self, name: &str) -> Result<String, UnknownPrefix> {
        let name = name.trim();
        if let Some((prefix, rest)) = name.split_once(':') {
            let prefix = if prefix.is_empty() { "=" } else { prefix };
            let ns = match self.map.get(prefix) {
                Some(ns) => ns.as_str(),
                None if prefix == "=" => "",
                None => return Err(UnknownPrefix(prefix.to_string())),
            };
            return Ok(join(ns, rest));
        }
        if name.contains('.') {
            return Ok(name.to_string());
        }
        let ns = self.map.get("=").map_or("", |s| s.as_str());
        Ok(join(ns, name))
    }
}

fn join(ns: &str, name: &str) -> String {
    if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_every_form() {
        let mut ns = Namespaces::default();
        ns.map.insert("=".into(), "a.b".into());
        ns.map.insert("std".into(), "io.murano".into());
        ns.map.insert("py".into(), "".into());
        assert_eq!(ns.resolve("Foo").unwrap(), "a.b.Foo");
        assert_eq!(ns.resolve(":Foo").unwrap(), "a.b.Foo");
        assert_eq!(ns.resolve("std:Object").unwrap(), "io.murano.Object");
        assert_eq!(ns.resolve("x.y.Z").unwrap(), "x.y.Z");
        assert_eq!(ns.resolve("py:LookupError").unwrap(), "LookupError");
        assert!(ns.resolve("zz:Q").is_err());
    }
}
