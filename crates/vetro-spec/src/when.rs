//! `required_when` conditions of the plugin format: comparisons such as
//! `images-task == import`, joined by `and`/`or` (`and` binds tighter).
//!
//! Both sides compare as text after YAML 1.1 normalisation, the way InfraRed
//! evaluates them: `yes`, `True` and a boolean `true` all read `True`; `007`
//! reads `7`; an option that has no value makes the whole condition false.

use vetro_yaml::{resolve_plain, Resolved, YamlVersion};

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

impl Op {
    fn parse(token: &str) -> Option<Op> {
        Some(match token {
            "==" => Op::Eq,
            "!=" => Op::Ne,
            "<" => Op::Lt,
            ">" => Op::Gt,
            "<=" => Op::Le,
            ">=" => Op::Ge,
            _ => return None,
        })
    }

    fn holds(self, a: &str, b: &str) -> bool {
        match self {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Lt => a < b,
            Op::Gt => a > b,
            Op::Le => a <= b,
            Op::Ge => a >= b,
        }
    }
}

/// `LEFT OP RIGHT`; each side is an option name or a literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub left: String,
    pub op: Op,
    pub right: String,
}

/// A condition: any of the `and` chains holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhenExpr {
    pub text: String,
    pub any_of: Vec<Vec<Comparison>>,
}

/// The value of one side of a comparison.
pub enum Operand {
    /// Not an option name: the token is a literal.
    Literal,
    /// An option without a value.
    Unset,
    /// An option's value in Python's text form.
    Value(String),
}

impl WhenExpr {
    /// Parse `A == B [and|or C != D ...]`; tokens are separated by spaces.
    pub fn parse(text: &str) -> Result<WhenExpr, String> {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let mut any_of = vec![Vec::new()];
        let mut i = 0;
        loop {
            let (Some(left), Some(op), Some(right)) =
                (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2))
            else {
                return Err(format!(
                    "'{text}' is not a condition like 'OPTION == VALUE' (joined by 'and'/'or', tokens separated by spaces)"
                ));
            };
            let op = Op::parse(op)
                .ok_or_else(|| format!("'{text}': '{op}' is not one of ==, !=, <, >, <=, >="))?;
            let chain = any_of.last_mut().expect("one chain at least");
            chain.push(Comparison {
                left: left.to_string(),
                op,
                right: right.to_string(),
            });
            i += 3;
            match tokens.get(i) {
                None => break,
                Some(&"and") => {}
                Some(&"or") => any_of.push(Vec::new()),
                Some(other) => {
                    return Err(format!(
                        "'{text}': expected 'and' or 'or' after a comparison, found '{other}'"
                    ))
                }
            }
            i += 1;
        }
        Ok(WhenExpr {
            text: text.to_string(),
            any_of,
        })
    }

    /// The option names the condition reads (left sides).
    pub fn subjects(&self) -> impl Iterator<Item = &str> {
        self.any_of.iter().flatten().map(|c| c.left.as_str())
    }

    /// Evaluate with `lookup` giving each token's meaning.
    pub fn holds(&self, lookup: &dyn Fn(&str) -> Operand) -> bool {
        let side = |token: &str| match lookup(token) {
            Operand::Literal => Some(normalise(token)),
            Operand::Unset => None,
            Operand::Value(v) => Some(normalise(&v)),
        };
        let mut sides = Vec::new();
        for cmp in self.any_of.iter().flatten() {
            match (side(&cmp.left), side(&cmp.right)) {
                (Some(a), Some(b)) => sides.push((a, b)),
                _ => return false,
            }
        }
        let mut k = 0;
        self.any_of.iter().any(|chain| {
            let start = k;
            k += chain.len();
            chain
                .iter()
                .zip(&sides[start..k])
                .all(|(cmp, (a, b))| cmp.op.holds(a, b))
        })
    }
}

/// Python's `str(yaml.safe_load(text))` for scalars.
pub fn normalise(text: &str) -> String {
    match resolve_plain(text, YamlVersion::V1_1) {
        Resolved::Null => "None".to_string(),
        Resolved::Bool(true) => "True".to_string(),
        Resolved::Bool(false) => "False".to_string(),
        Resolved::Int(i) => i.to_string(),
        Resolved::BigInt(s) => s,
        // An integer too long to convert is compared as written.
        Resolved::Float(_) | Resolved::Str | Resolved::IntTooLong { .. } => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, values: &[(&str, Option<&str>)]) -> bool {
        let expr = WhenExpr::parse(text).unwrap();
        expr.holds(&|t: &str| match values.iter().find(|(n, _)| *n == t) {
            None => Operand::Literal,
            Some((_, None)) => Operand::Unset,
            Some((_, Some(v))) => Operand::Value(v.to_string()),
        })
    }

    #[test]
    fn yaml_normalised_comparison() {
        assert!(eval("skip == True", &[("skip", Some("yes"))]));
        assert!(!eval("skip == True", &[("skip", Some("False"))]));
        assert!(!eval("skip == True", &[("skip", None)]));
        assert!(eval("task == import", &[("task", Some("import"))]));
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let v = [("a", Some("1")), ("b", Some("2"))];
        assert!(eval("a == 9 and b == 9 or a == 1", &v));
        assert!(!eval("a == 1 and b == 9", &v));
    }

    #[test]
    fn malformed() {
        assert!(WhenExpr::parse("a==b").is_err());
        assert!(WhenExpr::parse("a =~ b").is_err());
        assert!(WhenExpr::parse("a == b nor c == d").is_err());
    }
}
