//! Checks every parser of a spec must pass, whatever its format: option names
//! and short forms are unique within the parser and never clash with the
//! built-in `-h/--help`.

use crate::error::{ErrorClass, Result, SpecError};
use crate::model::{OptionSpec, ParserSpec};
use std::collections::HashMap;

/// The spec position of an option, unless it is built in (shared groups).
fn located(err: SpecError, opt: &OptionSpec) -> SpecError {
    if opt.plugin.shared {
        err
    } else {
        err.with_span(opt.span)
    }
}

fn origin(opt: &OptionSpec) -> &'static str {
    if opt.plugin.shared {
        " (by an included shared group)"
    } else {
        ""
    }
}

/// Unique names and shorts, no `help` option and no `short: h`.
pub fn check_parser(parser: &ParserSpec, what: &str) -> Result<()> {
    let mut names: HashMap<&str, &OptionSpec> = HashMap::new();
    let mut shorts: HashMap<char, &OptionSpec> = HashMap::new();
    let all = parser
        .groups
        .iter()
        .flat_map(|g| g.options.iter())
        .chain(parser.options.iter());
    for opt in all {
        if opt.name == "help" {
            return Err(located(
                SpecError::new(
                    ErrorClass::SpecError,
                    format!(
                        "{what}: an option cannot be called 'help' (it is the built-in -h/--help)"
                    ),
                ),
                opt,
            ));
        }
        if opt.short == Some('h') {
            return Err(located(
                SpecError::new(
                    ErrorClass::SpecError,
                    format!(
                        "{what}: option '{}' cannot use short 'h' (it is the built-in -h/--help)",
                        opt.name
                    ),
                ),
                opt,
            ));
        }
        if let Some(first) = names.insert(&opt.name, opt) {
            let (at, other) = if opt.plugin.shared {
                (first, opt)
            } else {
                (opt, first)
            };
            let mut err = SpecError::new(
                ErrorClass::SpecError,
                format!(
                    "{what}: option '{}' is defined twice{}",
                    opt.name,
                    origin(other)
                ),
            );
            if !other.plugin.shared && !at.plugin.shared {
                err = err.with_note(format!("first defined at line {}", other.span.line));
            }
            return Err(located(err, at));
        }
        if let Some(c) = opt.short {
            if let Some(first) = shorts.insert(c, opt) {
                let (at, other) = if opt.plugin.shared {
                    (first, opt)
                } else {
                    (opt, first)
                };
                let err = SpecError::new(
                    ErrorClass::SpecError,
                    format!(
                        "{what}: short '-{c}' of option '{}' is already used by option '{}'{}",
                        at.name,
                        other.name,
                        origin(other)
                    ),
                );
                return Err(located(err, at));
            }
        }
    }
    Ok(())
}
