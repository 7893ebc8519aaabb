//! Every command of the README's "Using vetro" block for the YAML, YAQL,
//! TOSCA and policy parts runs from a clone and succeeds.

use assert_cmd::Command;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Splits a command line as a POSIX shell would for quotes; `#` starts a comment.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// The `vetro ...` lines of the first shell block after "## Using vetro".
fn readme_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("## Using vetro")
        .nth(1)
        .expect("README has a Using vetro section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the section has a code block");
    block
        .lines()
        .map(words)
        .filter(|w| w.first().map(String::as_str) == Some("vetro"))
        .collect()
}

#[test]
fn readme_commands_of_the_data_parts_run() {
    let commands = readme_commands();
    let mut ran = 0;
    for words in &commands {
        if !matches!(words[1].as_str(), "yaml" | "yaql" | "tosca" | "policy") {
            continue;
        }
        let out = Command::cargo_bin("vetro")
            .unwrap()
            .current_dir(root())
            .args(&words[1..])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{}` exited {:?}: {}",
            words.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !out.stdout.is_empty(),
            "`{}` printed nothing",
            words.join(" ")
        );
        ran += 1;
    }
    assert!(ran >= 4, "only {ran} README commands of these parts found");
}

#[test]
fn words_follow_shell_quoting() {
    assert_eq!(
        words("vetro yaql '$.a > 1' --data x.json   # comment"),
        vec!["vetro", "yaql", "$.a > 1", "--data", "x.json"]
    );
}
