//! Package versions and the version ranges of `Require:` and `classVersion`,
//! with Murano's rules: a manifest version is coerced (`1` is `1.0.0`); a
//! range written with a partial version is widened to the versions it
//! names (`==1` is every 1.x.y, `<=1.2` is everything before 1.3.0), and an
//! empty range means `==0`, the 0.x.y versions.

use std::cmp::Ordering;
use std::fmt;

/// A semantic version: `MAJOR.MINOR.PATCH[-PRERELEASE]` (build metadata is
/// dropped; it takes no part in ordering).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<PreId>,
}

/// One dot-separated prerelease identifier: numbers sort before words.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum PreId {
    Num(u64),
    Text(String),
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                // A release sorts after its prereleases.
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => self.pre.cmp(&other.pre),
            })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, id) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match id {
                PreId::Num(n) => write!(f, "{n}")?,
                PreId::Text(t) => f.write_str(t)?,
            }
        }
        Ok(())
    }
}

/// A version as written, with the parts it leaves out (`1`, `1.2`).
struct Partial {
    major: u64,
    minor: Option<u64>,
    patch: Option<u64>,
    pre: Vec<PreId>,
}

fn number(part: &str, text: &str) -> Result<u64, String> {
    let ok = !part.is_empty()
        && part.bytes().all(|b| b.is_ascii_digit())
        && (part == "0" || !part.starts_with('0'));
    ok.then(|| part.parse().ok())
        .flatten()
        .ok_or_else(|| format!("invalid version {text:?}: {part:?} is not a version number"))
}

fn parse_partial(text: &str) -> Result<Partial, String> {
    let core_pre = text.split_once('+').map_or(text, |(v, _build)| v);
    let (core, pre) = match core_pre.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (core_pre, None),
    };
    let mut nums = core.split('.');
    let major = number(nums.next().unwrap_or(""), text)?;
    let minor = nums.next().map(|p| number(p, text)).transpose()?;
    let patch = nums.next().map(|p| number(p, text)).transpose()?;
    if nums.next().is_some() {
        return Err(format!("invalid version {text:?}: more than three numbers"));
    }
    let pre = match pre {
        None => Vec::new(),
        Some(p) => p
            .split('.')
            .map(|id| match id.parse::<u64>() {
                Ok(n) if id.bytes().all(|b| b.is_ascii_digit()) => Ok(PreId::Num(n)),
                _ if !id.is_empty()
                    && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') =>
                {
                    Ok(PreId::Text(id.to_string()))
                }
                _ => Err(format!("invalid version {text:?}: bad prerelease {p:?}")),
            })
            .collect::<Result<_, _>>()?,
    };
    if patch.is_none() && !pre.is_empty() {
        return Err(format!(
            "invalid version {text:?}: a prerelease needs all three numbers"
        ));
    }
    Ok(Partial {
        major,
        minor,
        patch,
        pre,
    })
}

impl Version {
    pub(super) fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: Vec::new(),
        }
    }

    /// A manifest's `Version:`, coerced as Murano did: missing numbers are
    /// zeros (`2` is `2.0.0`), an empty one is `0.0.0`.
    pub fn coerce(text: &str) -> Result<Version, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Version::new(0, 0, 0));
        }
        let p = parse_partial(text)?;
        Ok(Version {
            major: p.major,
            minor: p.minor.unwrap_or(0),
            patch: p.patch.unwrap_or(0),
            pre: p.pre,
        })
    }

    /// The lowest prerelease of this version (`1.2.0-0`), the bound that
    /// keeps every 1.1.x prerelease and release below it.
    fn lowest(mut self) -> Version {
        self.pre = vec![PreId::Num(0)];
        self
    }
}

/// A comparison of a range, after widening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Ge => ">=",
            Op::Gt => ">",
        }
    }
}

/// A version range: every clause must hold; no clause is any version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionSpec {
    clauses: Vec<(Op, Version)>,
}

impl fmt::Display for VersionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.clauses.is_empty() {
            return f.write_str("*");
        }
        for (i, (op, v)) in self.clauses.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}{v}", op.text())?;
        }
        Ok(())
    }
}

/// The operator a clause starts with and the version after it.
fn split_op(item: &str) -> (&str, &str) {
    let end = item
        .find(|c: char| c.is_ascii_digit() || c == '*')
        .unwrap_or(item.len());
    item.split_at(end)
}

impl VersionSpec {
    /// Every version.
    pub fn any() -> VersionSpec {
        VersionSpec {
            clauses: Vec::new(),
        }
    }

    /// Exactly `v`.
    pub fn exactly(v: &Version) -> VersionSpec {
        VersionSpec {
            clauses: vec![(Op::Eq, v.clone())],
        }
    }

    /// A range as written in `Require:`, `classVersion` or a type string
    /// (`None` or empty: `==0`). Whitespace is ignored; a range that starts
    /// with a digit means `==`; clauses are separated by commas.
    pub fn parse(text: Option<&str>) -> Result<VersionSpec, String> {
        let compact: String = text
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let compact = if compact.is_empty() {
            "0".to_string()
        } else {
            compact
        };
        let mut clauses = Vec::new();
        for item in compact.split(',') {
            clauses.extend(Self::clause(item, text.unwrap_or_default())?);
        }
        Ok(VersionSpec { clauses })
    }

    /// One clause widened into full-version comparisons.
    fn clause(item: &str, whole: &str) -> Result<Vec<(Op, Version)>, String> {
        let bad = |why: &str| format!("invalid version range {whole:?}: {why}");
        let (op, version) = split_op(item);
        if version == "*" && op.is_empty() {
            return Ok(Vec::new());
        }
        let op = match op {
            "" | "=" | "==" => Op::Eq,
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "!=" => Op::Ne,
            "^" | "~" | "~=" => return Self::compatible(op, version, whole),
            other => return Err(bad(&format!("unknown operator {other:?}"))),
        };
        let p = parse_partial(version).map_err(|e| bad(&e))?;
        if let Some(patch) = p.patch {
            let v = Version {
                major: p.major,
                minor: p.minor.unwrap_or(0),
                patch,
                pre: p.pre,
            };
            return Ok(vec![(op, v)]);
        }
        // A partial version names every version that starts with it.
        let low = Version::new(p.major, p.minor.unwrap_or(0), 0);
        let next = match p.minor {
            None => Version::new(p.major + 1, 0, 0),
            Some(minor) => Version::new(p.major, minor + 1, 0),
        };
        Ok(match op {
            Op::Eq => vec![(Op::Ge, low), (Op::Lt, next.lowest())],
            Op::Ge => vec![(Op::Ge, low)],
            Op::Lt => vec![(Op::Lt, low.lowest())],
            Op::Le => vec![(Op::Lt, next.lowest())],
            // Murano widens `>` and `!=` alike: past the versions named.
            Op::Gt | Op::Ne => vec![(Op::Ge, next.lowest())],
        })
    }

    /// `^V` (same major; same minor under 1.0), `~V` and `~=V` (same minor).
    fn compatible(op: &str, version: &str, whole: &str) -> Result<Vec<(Op, Version)>, String> {
        let v = Version::coerce(version)
            .map_err(|e| format!("invalid version range {whole:?}: {e}"))?;
        let upper = if op == "^" && v.major > 0 {
            Version::new(v.major + 1, 0, 0)
        } else {
            Version::new(v.major, v.minor + 1, 0)
        };
        Ok(vec![(Op::Ge, v), (Op::Lt, upper.lowest())])
    }

    /// Whether `v` is in the range.
    pub fn matches(&self, v: &Version) -> bool {
        self.clauses.iter().all(|(op, bound)| match op {
            Op::Lt => v < bound,
            Op::Le => v <= bound,
            Op::Eq => v == bound,
            Op::Ne => v != bound,
            Op::Ge => v >= bound,
            Op::Gt => v > bound,
        })
    }

    /// The highest of `versions` in the range.
    pub(super) fn select<'a>(
        &self,
        versions: impl IntoIterator<Item = &'a Version>,
    ) -> Option<&'a Version> {
        versions.into_iter().filter(|v| self.matches(v)).max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::coerce(s).unwrap()
    }

    fn spec(s: &str) -> VersionSpec {
        VersionSpec::parse(Some(s)).unwrap()
    }

    #[test]
    fn versions_coerce_and_order() {
        assert_eq!(v("2").to_string(), "2.0.0");
        assert_eq!(v("1.2").to_string(), "1.2.0");
        assert_eq!(v("").to_string(), "0.0.0");
        assert!(v("1.0.0-0") < v("1.0.0"));
        assert!(v("1.0.0-alpha") < v("1.0.0-alpha.1"));
        assert!(v("1.0.0-2") < v("1.0.0-alpha"));
        assert!(v("0.9.9") < v("1.0.0-0"));
        assert!(v("1.10.0") > v("1.9.0"));
        assert_eq!(v("1.2.3+build.7"), v("1.2.3"));
        assert!(Version::coerce("1.x").is_err());
        assert!(Version::coerce("01.2").is_err());
        assert!(Version::coerce("1.2.3.4").is_err());
    }

    #[test]
    fn an_empty_range_is_the_zero_major() {
        let s = VersionSpec::parse(None).unwrap();
        assert_eq!(s.to_string(), ">=0.0.0,<1.0.0-0");
        assert!(s.matches(&v("0.0.0")) && s.matches(&v("0.7.1")));
        assert!(!s.matches(&v("1.0.0")));
        assert_eq!(VersionSpec::parse(Some("  ")).unwrap(), s);
    }

    #[test]
    fn partial_versions_widen_as_murano_does() {
        assert_eq!(spec("1").to_string(), ">=1.0.0,<2.0.0-0");
        assert_eq!(spec("=1.2").to_string(), ">=1.2.0,<1.3.0-0");
        assert_eq!(spec(">1").to_string(), ">=2.0.0-0");
        assert_eq!(spec("<=1.2").to_string(), "<1.3.0-0");
        assert_eq!(spec("<2").to_string(), "<2.0.0-0");
        assert_eq!(spec("!=1").to_string(), ">=2.0.0-0");
        assert_eq!(spec(">= 1.5, < 3").to_string(), ">=1.5.0,<3.0.0-0");
        assert_eq!(spec("==1.2.3").to_string(), "==1.2.3");
        assert_eq!(spec("*").to_string(), "*");
        assert!(spec("<2").matches(&v("1.99.0")) && !spec("<2").matches(&v("2.0.0-rc1")));
    }

    #[test]
    fn full_versions_compare_exactly() {
        assert!(spec(">1.2.3").matches(&v("1.2.4")));
        assert!(!spec(">1.2.3").matches(&v("1.2.3")));
        assert!(spec("!=1.2.3").matches(&v("1.2.4")));
        assert!(spec("<=1.2.3").matches(&v("1.2.3")));
        assert!(spec("^1.2.3").matches(&v("1.9.0")) && !spec("^1.2.3").matches(&v("2.0.0")));
        assert!(spec("~1.2.3").matches(&v("1.2.9")) && !spec("~1.2.3").matches(&v("1.3.0")));
    }

    #[test]
    fn select_takes_the_highest_match() {
        let have = [v("0.0.0"), v("1.0.0"), v("1.4.2"), v("2.0.0")];
        assert_eq!(spec("1").select(&have), Some(&v("1.4.2")));
        assert_eq!(
            VersionSpec::parse(None).unwrap().select(&have),
            Some(&v("0.0.0"))
        );
        assert_eq!(spec(">=3").select(&have), None);
        assert_eq!(VersionSpec::any().select(&have), Some(&v("2.0.0")));
    }

    #[test]
    fn bad_ranges_say_why() {
        for bad in ["=>1", "1.a", "1.2.3.4", "1-beta", "~>1"] {
            let e = VersionSpec::parse(Some(bad)).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
    }
}
