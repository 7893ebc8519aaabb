//! The `Version:` of a UI definition: MAJOR.MINOR, 1.0 to 2.4.

use std::fmt;

/// A Dynamic UI format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FormatVersion {
    pub major: u32,
    pub minor: u32,
}

impl FormatVersion {
    pub const fn new(major: u32, minor: u32) -> FormatVersion {
        FormatVersion { major, minor }
    }

    /// The newest format understood (also the version of a file without `Version:`).
    pub const LATEST: FormatVersion = FormatVersion::new(2, 4);
    /// 2.2: the application name is asked on the last form and set in the header.
    pub const APP_NAME: FormatVersion = FormatVersion::new(2, 2);
    /// 2.3: `password` fields take `confirmInput`, `regexpValidator` and `validators`.
    pub const PASSWORD_VALIDATORS: FormatVersion = FormatVersion::new(2, 3);
    /// 2.4: `Parameters`, `ref()`, dictionary choices.
    pub const PARAMETERS: FormatVersion = FormatVersion::new(2, 4);

    /// Read `2`, `2.2`, `"2.4"` or `2.4.0` (a third segment must be 0).
    pub fn parse(text: &str) -> Option<FormatVersion> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = match parts.next() {
            Some(m) => m.parse().ok()?,
            None => 0,
        };
        match parts.next() {
            None => {}
            Some("0") if parts.next().is_none() => {}
            Some(_) => return None,
        }
        Some(FormatVersion { major, minor })
    }

    /// Why this version cannot be processed, if it cannot: formats of
    /// another major family than 1 or 2, or newer than [`Self::LATEST`].
    pub fn unsupported(self) -> Option<String> {
        if self.major == 0 || self.major > FormatVersion::LATEST.major {
            return Some(format!(
                "unsupported Dynamic UI format version {self}: versions 1.0 to {} are supported",
                FormatVersion::LATEST
            ));
        }
        if self > FormatVersion::LATEST {
            return Some(format!(
                "unsupported Dynamic UI format version {self}: newer than the latest supported {}",
                FormatVersion::LATEST
            ));
        }
        None
    }
}

impl Default for FormatVersion {
    fn default() -> Self {
        FormatVersion::LATEST
    }
}

impl fmt::Display for FormatVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::FormatVersion;

    #[test]
    fn versions_read_and_compare() {
        assert_eq!(FormatVersion::parse("2"), Some(FormatVersion::new(2, 0)));
        assert_eq!(FormatVersion::parse("2.3"), Some(FormatVersion::new(2, 3)));
        assert_eq!(
            FormatVersion::parse("2.4.0"),
            Some(FormatVersion::new(2, 4))
        );
        assert_eq!(FormatVersion::parse("2.x"), None);
        assert!(FormatVersion::new(2, 2) >= FormatVersion::APP_NAME);
        assert!(FormatVersion::new(1, 0).unsupported().is_none());
        assert!(FormatVersion::new(2, 5).unsupported().is_some());
        assert!(FormatVersion::new(3, 0).unsupported().is_some());
    }
}
