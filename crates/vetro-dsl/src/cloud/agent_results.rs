//! What the simulator's agents answer. The simulator runs no script, so an
//! `agent.call` gets what the user says the instance's scripts would have
//! returned: a list of rules (YAML or JSON), the first one that matches the
//! execution plan answering it.
//!
//! ```yaml
//! - plan: Check OS Distribution      # the plan's Name
//!   result: Ubuntu 14.04.5 LTS
//! - script: Get-DnsListeningIpAddress # a script or command of the plan
//!   result: [10.0.0.4]
//! - script: deploy.sh
//!   error: disk full                  # the call fails with this message
//! ```
//!
//! A rule matches by `plan` (the plan's `Name`), by `script` (a name under
//! the plan's `Scripts`, a script's `EntryPoint` file, a file of a format 1
//! plan's `Scripts` list or a `Name` of its `Commands`), by both, or, naming
//! neither, every plan. `result` is what `agent.call` returns (what the
//! plan's `Body` would return; for a format 1 plan, the last command's
//! result); `error` makes the call fail. A plan no rule matches is answered
//! with its own `Result` member, else null.

use serde_json::Value as Json;
use std::path::Path;
use vetro_diag::{SourceMap, Span};
use vetro_yaml::{LoadOptions, Node};

/// How a rule answers.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Answer {
    Result(Json),
    Error(String),
}

#[derive(Clone, Debug, PartialEq)]
struct Rule {
    plan: Option<String>,
    script: Option<String>,
    answer: Answer,
    /// `FILE:LINE:COLUMN` of the rule, for messages.
    at: String,
    used: bool,
}

/// The rules of an agent results file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentResults {
    rules: Vec<Rule>,
}

fn position(sources: &SourceMap, span: Span) -> String {
    format!("{}:{}:{}", sources.name(span.file), span.line, span.col)
}

impl AgentResults {
    /// Read the rules of file `path` (`-`: standard input).
    pub fn load(path: &Path) -> Result<AgentResults, String> {
        let mut sources = SourceMap::new();
        let id = vetro_yaml::read_source(path, &mut sources, vetro_yaml::DEFAULT_MAX_INPUT)
            .map_err(|d| d.message)?;
        Self::from_source(&sources, id)
    }

    /// The rules of `text`, named `name` in messages.
    #[cfg(test)]
    pub(super) fn parse(name: &str, text: &str) -> Result<AgentResults, String> {
        let mut sources = SourceMap::new();
        let id = sources.add(name, text);
        Self::from_source(&sources, id)
    }

    fn from_source(sources: &SourceMap, id: vetro_diag::FileId) -> Result<AgentResults, String> {
        let docs = vetro_yaml::load_str(sources, id, &LoadOptions::default()).map_err(|d| {
            let first = d.first();
            match first.and_then(|d| d.span) {
                Some(s) => format!("{}: {}", position(sources, s), first.unwrap().message),
                None => first.map(|d| d.message.clone()).unwrap_or_default(),
            }
        })?;
        let Some(doc) = docs.first() else {
            return Ok(AgentResults::default());
        };
        let bad = |n: &Node, msg: &str| format!("{}: {msg}", position(sources, n.span));
        if doc.kind == vetro_yaml::NodeKind::Null {
            return Ok(AgentResults::default());
        }
        let Some(items) = doc.as_seq() else {
            return Err(bad(doc, "agent results: expected a list of rules"));
        };
        let mut rules = Vec::with_capacity(items.len());
        for item in items {
            rules.push(rule(item, &bad, position(sources, item.span))?);
        }
        Ok(AgentResults { rules })
    }

    /// The answer of the first rule matching `plan`, if one does.
    pub(super) fn answer(&mut self, plan: &Json) -> Option<Answer> {
        let name = plan.get("Name").and_then(Json::as_str);
        let scripts = script_names(plan);
        let rule = self.rules.iter_mut().find(|r| {
            r.plan.as_deref().is_none_or(|p| Some(p) == name)
                && r.script
                    .as_deref()
                    .is_none_or(|s| scripts.iter().any(|n| n == s))
        })?;
        rule.used = true;
        Some(rule.answer.clone())
    }

    /// Rules no plan has matched yet (`FILE:LINE:COLUMN: what it names`), to
    /// warn of a misspelt plan or script.
    pub(super) fn unused(&self) -> Vec<String> {
        self.rules
            .iter()
            .filter(|r| !r.used)
            .map(|r| {
                let what = match (&r.plan, &r.script) {
                    (Some(p), Some(s)) => format!("plan {p:?}, script {s:?}"),
                    (Some(p), None) => format!("plan {p:?}"),
                    (None, Some(s)) => format!("script {s:?}"),
                    (None, None) => "every plan".into(),
                };
                format!("{}: {what}", r.at)
            })
            .collect()
    }
}

/// One rule from its node.
fn rule(item: &Node, bad: &dyn Fn(&Node, &str) -> String, at: String) -> Result<Rule, String> {
    let Some(map) = item.as_map() else {
        return Err(bad(
            item,
            "an agent result rule is a mapping (plan, script, result or error)",
        ));
    };
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None => Ok(None),
            Some(v) => match v.as_str() {
                Some(s) => Ok(Some(s.to_string())),
                None => Err(bad(v, &format!("`{key}` is a string"))),
            },
        }
    };
    for (k, _) in map.iter() {
        if !matches!(k.as_str(), Some("plan" | "script" | "result" | "error")) {
            return Err(bad(
                k,
                "unknown key in an agent result rule (plan, script, result, error)",
            ));
        }
    }
    let answer = match (map.get("result"), text("error")?) {
        (Some(_), Some(_)) => return Err(bad(item, "a rule has `result` or `error`, not both")),
        (Some(v), None) => Answer::Result(vetro_yaml::to_json(v)),
        (None, Some(e)) => Answer::Error(e),
        (None, None) => return Err(bad(item, "a rule needs `result` or `error`")),
    };
    Ok(Rule {
        plan: text("plan")?,
        script: text("script")?,
        answer,
        at,
        used: false,
    })
}

/// Every name a rule's `script` can match in `plan`.
fn script_names(plan: &Json) -> Vec<String> {
    let mut names = Vec::new();
    let mut add = |v: Option<&Json>| {
        if let Some(s) = v.and_then(Json::as_str) {
            names.push(s.to_string());
        }
    };
    match plan.get("Scripts") {
        Some(Json::Object(scripts)) => {
            for (name, s) in scripts {
                add(Some(&Json::String(name.clone())));
                add(s.get("EntryPoint"));
            }
        }
        Some(Json::Array(files)) => files.iter().for_each(|f| add(Some(f))),
        _ => {}
    }
    for c in plan
        .get("Commands")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        add(c.get("Name"));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RULES: &str = "\
- plan: Check OS Distribution
  result: Ubuntu 14.04.5 LTS
- script: Get-DnsListeningIpAddress
  result: [10.0.0.4]
- plan: Deploy
  script: deploy.sh
  error: disk full
- result: {done: true}
";

    #[test]
    fn the_first_matching_rule_answers() {
        let mut r = AgentResults::parse("r.yaml", RULES).unwrap();
        let v2 = json!({"Name": "Check OS Distribution", "FormatVersion": "2.0.0",
            "Scripts": {"checkOS": {"Type": "Application", "EntryPoint": "checkOS.sh"}}});
        assert_eq!(
            r.answer(&v2),
            Some(Answer::Result(json!("Ubuntu 14.04.5 LTS")))
        );
        let v1 = json!({"Scripts": ["Get-DnsListeningIpAddress.ps1"],
            "Commands": [{"Name": "Get-DnsListeningIpAddress", "Arguments": {}}]});
        assert_eq!(r.answer(&v1), Some(Answer::Result(json!(["10.0.0.4"]))));
        // Both keys must match: the entry point alone falls through to the
        // rule naming neither.
        let deploy = json!({"Name": "Deploy", "Scripts": {"d": {"EntryPoint": "deploy.sh"}}});
        assert_eq!(r.answer(&deploy), Some(Answer::Error("disk full".into())));
        let other = json!({"Name": "Other", "Scripts": {"d": {"EntryPoint": "deploy.sh"}}});
        assert_eq!(
            r.answer(&other),
            Some(Answer::Result(json!({"done": true})))
        );
        assert!(r.unused().is_empty());
    }

    #[test]
    fn no_rule_no_answer_and_unused_rules_are_listed() {
        let mut r = AgentResults::parse("r.json", r#"[{"plan": "A", "result": 1}]"#).unwrap();
        assert_eq!(r.answer(&json!({"Name": "B"})), None);
        assert_eq!(r.unused(), vec!["r.json:1:2: plan \"A\"".to_string()]);
        assert_eq!(
            AgentResults::parse("e.yaml", "").unwrap(),
            AgentResults::default()
        );
    }

    #[test]
    fn bad_rules_are_errors_with_their_position() {
        let cases = [
            (
                "plan: x\n",
                "e.yaml:1:1: agent results: expected a list of rules",
            ),
            (
                "- plan: x\n",
                "e.yaml:1:3: a rule needs `result` or `error`",
            ),
            (
                "- plan: x\n  result: 1\n  error: y\n",
                "e.yaml:1:3: a rule has `result` or `error`, not both",
            ),
            (
                "- plan: [x]\n  result: 1\n",
                "e.yaml:1:9: `plan` is a string",
            ),
            (
                "- scripts: x\n  result: 1\n",
                "e.yaml:1:3: unknown key in an agent result rule",
            ),
            ("- 7\n", "e.yaml:1:3: an agent result rule is a mapping"),
        ];
        for (text, want) in cases {
            let e = AgentResults::parse("e.yaml", text).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        let e = AgentResults::parse("e.yaml", "- [unclosed\n").unwrap_err();
        assert!(e.starts_with("e.yaml:"), "{e}");
    }
}
