//! Python `re` pattern syntax: a pattern is checked as Python's parser
//! checks it (the same errors: nothing to repeat, multiple repeat, bad
//! escapes, misplaced global flags, group names) and written in
//! fancy-regex's syntax, where the two read the same text differently
//! (`{,n}`, a literal `{`, `[` or `&&` inside a set, `\<`, octal escapes).
//!
//! Verbose patterns (whitespace and comments ignored) are only translated
//! (`\Z`), not checked.

use crate::error::{Error, ErrorKind, Result};

/// Python's `re.VERBOSE`.
pub const VERBOSE: u32 = 64;

/// Python's largest repeat count plus one.
const MAXREPEAT: u64 = 4_294_967_295;

/// What the current alternative ends with, for a quantifier that follows.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Nothing: the start of the pattern, of a group or of an alternative.
    Nothing,
    /// An anchor (`^`, `$`, `\A`, `\b`...), which Python does not repeat.
    Anchor,
    /// Something repeatable.
    Item,
    /// A quantifier, which may still take a `?` or `+` suffix.
    Repeat,
    /// A quantifier with its suffix.
    Suffixed,
}

/// Where an open group opened.
struct Open {
    at: usize,
}

/// Check `p` as Python does and write it in fancy-regex's syntax.
pub fn translate(p: &str, flags: u32) -> Result<String> {
    let cs: Vec<char> = p.chars().collect();
    if flags & VERBOSE != 0 || verbose_at_start(&cs) {
        return Ok(p.replace("\\Z", "\\z"));
    }
    let mut t = Translator {
        cs: &cs,
        i: 0,
        out: String::with_capacity(p.len() + 8),
        last: Last::Nothing,
        open: Vec::new(),
        first_branch: true,
        names: Vec::new(),
        groups: 0,
    };
    t.run()?;
    Ok(t.out)
}

fn verbose_at_start(cs: &[char]) -> bool {
    if cs.len() < 3 || cs[0] != '(' || cs[1] != '?' {
        return false;
    }
    let flags = cs[2..].iter().take_while(|c| "aiLmsux".contains(**c));
    flags.clone().any(|&c| c == 'x') && cs.get(2 + flags.count()) == Some(&')')
}

fn error(message: impl std::fmt::Display, at: usize) -> Error {
    Error::new(ErrorKind::Regex, format!("{message} at position {at}"))
}

struct Translator<'a> {
    cs: &'a [char],
    i: usize,
    out: String,
    last: Last,
    open: Vec<Open>,
    /// Whether this is the first alternative at the top level.
    first_branch: bool,
    /// The named groups, in order.
    names: Vec<String>,
    groups: usize,
}

impl Translator<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.cs.get(self.i + ahead).copied()
    }

    fn run(&mut self) -> Result<()> {
        while let Some(c) = self.peek(0) {
            let at = self.i;
            self.i += 1;
            match c {
                '\\' => {
                    self.last = self.escape(at, false)?;
                }
                '[' => {
                    self.set(at)?;
                    self.last = Last::Item;
                }
                '(' => self.group(at)?,
                ')' => {
                    if self.open.pop().is_none() {
                        return Err(error("unbalanced parenthesis", at));
                    }
                    self.out.push(')');
                    self.last = Last::Item;
                }
                '|' => {
                    self.out.push('|');
                    self.last = Last::Nothing;
                    if self.open.is_empty() {
                        self.first_branch = false;
                    }
                }
                '.' => {
                    self.out.push('.');
                    self.last = Last::Item;
                }
                '^' | '$' => {
                    self.out.push(c);
                    self.last = Last::Anchor;
                }
                '*' | '+' | '?' => {
                    if matches!(c, '?' | '+') && self.last == Last::Repeat {
                        self.last = Last::Suffixed;
                    } else {
                        self.repeatable(at)?;
                        self.last = Last::Repeat;
                    }
                    self.out.push(c);
                }
                '{' => match self.braces()? {
                    Some(quantifier) => {
                        self.repeatable(at)?;
                        self.out.push_str(&quantifier);
                        self.last = Last::Repeat;
                    }
                    None => {
                        self.out.push_str("\\{");
                        self.last = Last::Item;
                    }
                },
                _ => {
                    literal(&mut self.out, c);
                    self.last = Last::Item;
                }
            }
        }
        match self.open.last() {
            Some(o) => Err(error("missing ), unterminated subpattern", o.at)),
            None => Ok(()),
        }
    }

    /// A quantifier at `at` needs something repeatable before it.
    fn repeatable(&self, at: usize) -> Result<()> {
        match self.last {
            Last::Nothing | Last::Anchor => Err(error("nothing to repeat", at)),
            Last::Repeat | Last::Suffixed => Err(error("multiple repeat", at)),
            Last::Item => Ok(()),
        }
    }

    /// After a `{`: a quantifier (`{n}`, `{m,}`, `{,n}`, `{m,n}`) as
    /// fancy-regex writes it, or None when Python reads the brace as a
    /// literal (then nothing is consumed).
    fn braces(&mut self) -> Result<Option<String>> {
        let start = self.i;
        if self.peek(0) == Some('}') {
            return Ok(None);
        }
        let digits = |t: &mut Self| {
            let from = t.i;
            while t.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                t.i += 1;
            }
            t.cs[from..t.i].iter().collect::<String>()
        };
        let lo = digits(self);
        let hi = if self.peek(0) == Some(',') {
            self.i += 1;
            Some(digits(self))
        } else {
            None
        };
        if self.peek(0) != Some('}') {
            self.i = start;
            return Ok(None);
        }
        self.i += 1;
        let count = |s: &str| -> Result<Option<u64>> {
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<u64>() {
                Ok(n) if n < MAXREPEAT => Ok(Some(n)),
                _ => Err(Error::new(
                    ErrorKind::Overflow,
                    "the repetition number is too large",
                )),
            }
        };
        let lo = count(&lo)?.unwrap_or(0);
        let Some(hi) = hi else {
            return Ok(Some(format!("{{{lo}}}")));
        };
        match count(&hi)? {
            Some(hi) if hi < lo => Err(error("min repeat greater than max repeat", start)),
            Some(hi) => Ok(Some(format!("{{{lo},{hi}}}"))),
            None => Ok(Some(format!("{{{lo},}}"))),
        }
    }

    /// An escape whose `\` is at `at` (in a set when `in_set`): what it
    /// leaves the alternative ending with.
    fn escape(&mut self, at: usize, in_set: bool) -> Result<Last> {
        let Some(c) = self.peek(0) else {
            return Err(error("bad escape (end of pattern)", at));
        };
        self.i += 1;
        match c {
            // In a set every digit escape is octal; outside, `\0` and three
            // octal digits are, other digits a group reference.
            '0'..='7' if c == '0' || in_set || self.octal_ahead() => {
                // Up to three octal digits: one read, up to two more.
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.i += 1;
                        }
                        None => break,
                    }
                }
                if value > 0o377 {
                    let text: String = self.cs[at..self.i].iter().collect();
                    return Err(error(
                        format!("octal escape value {text} outside of range 0-0o377"),
                        at,
                    ));
                }
                self.out.push_str(&format!("\\x{{{value:x}}}"));
                Ok(Last::Item)
            }
            '1'..='9' if in_set => Err(error(format!("bad escape \\{c}"), at)),
            '1'..='9' => {
                self.out.push('\\');
                self.out.push(c);
                if let Some(d) = self.peek(0).filter(char::is_ascii_digit) {
                    self.out.push(d);
                    self.i += 1;
                }
                Ok(Last::Item)
            }
            'A' | 'Z' | 'B' if !in_set => {
                self.out.push_str(if c == 'Z' {
                    "\\z"
                } else if c == 'A' {
                    "\\A"
                } else {
                    "\\B"
                });
                Ok(Last::Anchor)
            }
            'b' if in_set => {
                self.out.push_str("\\x08");
                Ok(Last::Item)
            }
            'b' => {
                self.out.push_str("\\b");
                Ok(Last::Anchor)
            }
            'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'a' | 'f' | 'n' | 'r' | 't' | 'v' => {
                self.out.push('\\');
                self.out.push(c);
                Ok(Last::Item)
            }
            'x' | 'u' | 'U' => {
                let width = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let digits: String = self.cs[self.i..]
                    .iter()
                    .take(width)
                    .take_while(|d| d.is_ascii_hexdigit())
                    .collect();
                if digits.len() < width {
                    let text: String = self.cs[at..self.i + digits.len()].iter().collect();
                    return Err(error(format!("incomplete escape {text}"), at));
                }
                self.i += width;
                let value = u32::from_str_radix(&digits, 16).unwrap_or(u32::MAX);
                if char::from_u32(value).is_none() {
                    let text: String = self.cs[at..self.i].iter().collect();
                    return Err(error(format!("bad escape {text}"), at));
                }
                self.out.push_str(&format!("\\x{{{value:x}}}"));
                Ok(Last::Item)
            }
            // `\N{name}` is left to the regex engine (which refuses it).
            'N' => {
                self.out.push_str("\\N");
                Ok(Last::Item)
            }
            c if c.is_ascii_alphanumeric() => Err(error(format!("bad escape \\{c}"), at)),
            c => {
                literal(&mut self.out, c);
                Ok(Last::Item)
            }
        }
    }

    /// Whether the digit just read and the two after it are octal digits
    /// (a three-digit octal escape rather than a group reference).
    fn octal_ahead(&self) -> bool {
        let octal = |c: Option<char>| c.is_some_and(|c| ('0'..='7').contains(&c));
        octal(self.cs.get(self.i - 1).copied()) && octal(self.peek(0)) && octal(self.peek(1))
    }

    /// A set, its `[` at `at`.
    fn set(&mut self, at: usize) -> Result<()> {
        self.out.push('[');
        if self.peek(0) == Some('^') {
            self.out.push('^');
            self.i += 1;
        }
        let mut first = true;
        loop {
            let Some(c) = self.peek(0) else {
                return Err(error("unterminated character set", at));
            };
            let here = self.i;
            self.i += 1;
            match c {
                ']' if !first => break,
                '\\' => {
                    self.escape(here, true)?;
                }
                // Literal in Python; set syntax (nested sets, POSIX
                // classes, set operations) in fancy-regex.
                '[' | ']' | '&' | '~' => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                c => self.out.push(c),
            }
            first = false;
        }
        self.out.push(']');
        Ok(())
    }

    /// A group or extension, its `(` at `at`.
    fn group(&mut self, at: usize) -> Result<()> {
        if self.peek(0) != Some('?') {
            self.groups += 1;
            return self.enter(at, "(");
        }
        self.i += 1;
        let Some(c) = self.peek(0) else {
            return Err(error("unexpected end of pattern", self.i));
        };
        self.i += 1;
        match c {
            ':' | '>' | '=' | '!' => self.enter(at, &format!("(?{c}")),
            '<' => match self.peek(0) {
                Some(d @ ('=' | '!')) => {
                    self.i += 1;
                    self.enter(at, &format!("(?<{d}"))
                }
                d => {
                    let shown = d.map(String::from).unwrap_or_default();
                    Err(error(format!("unknown extension ?<{shown}"), at + 1))
                }
            },
            '#' => {
                while let Some(d) = self.peek(0) {
                    self.i += 1;
                    if d == ')' {
                        return Ok(());
                    }
                }
                Err(error("missing ), unterminated comment", at))
            }
            'P' => self.named(at),
            '(' => {
                // A conditional: `(?(group)yes|no)`, left to the engine.
                self.enter(at, "(?(")
            }
            c if "aiLmsux-".contains(c) => self.flags(at, c),
            c => Err(error(format!("unknown extension ?{c}"), at + 1)),
        }
    }

    /// `(?P<name>...)` or `(?P=name)`, after the `P`.
    fn named(&mut self, at: usize) -> Result<()> {
        let kind = self.peek(0);
        let close = match kind {
            Some('<') => '>',
            Some('=') => ')',
            _ => {
                let shown = kind.map(String::from).unwrap_or_default();
                return Err(error(format!("unknown extension ?P{shown}"), at + 1));
            }
        };
        self.i += 1;
        let from = self.i;
        while self.peek(0).is_some_and(|c| c != close) {
            self.i += 1;
        }
        let name: String = self.cs[from..self.i].iter().collect();
        if self.peek(0).is_none() {
            return Err(error(format!("missing {close}, unterminated name"), from));
        }
        self.i += 1;
        if name.is_empty() {
            return Err(error("missing group name", from));
        }
        if !is_identifier(&name) {
            return Err(error(format!("bad character in group name '{name}'"), from));
        }
        if close == ')' {
            if !self.names.contains(&name) {
                return Err(error(format!("unknown group name '{name}'"), from));
            }
            self.out.push_str(&format!("(?P={name})"));
            self.last = Last::Item;
            return Ok(());
        }
        self.groups += 1;
        if let Some(was) = self.names.iter().position(|n| *n == name) {
            return Err(error(
                format!(
                    "redefinition of group name '{name}' as group {}; was group {}",
                    self.groups,
                    was + 1
                ),
                from,
            ));
        }
        self.names.push(name.clone());
        self.enter(at, &format!("(?P<{name}>"))
    }

    /// Inline flags after `(?`, the first of them `c`: global (`(?i)`),
    /// allowed only at the start of the pattern, or scoped (`(?i:...)`).
    fn flags(&mut self, at: usize, c: char) -> Result<()> {
        let mut text = String::from(c);
        while let Some(d) = self.peek(0).filter(|d| "aiLmsux-".contains(*d)) {
            text.push(d);
            self.i += 1;
        }
        // fancy-regex knows i, m, s and x (Unicode is its default).
        let kept: String = text.chars().filter(|d| "imsx-".contains(*d)).collect();
        match self.peek(0) {
            Some(')') => {
                self.i += 1;
                if !self.open.is_empty() || !self.first_branch || self.last != Last::Nothing {
                    return Err(error("global flags not at the start of the expression", at));
                }
                if !kept.is_empty() && kept != "-" {
                    self.out.push_str(&format!("(?{kept})"));
                }
                Ok(())
            }
            Some(':') => {
                self.i += 1;
                self.enter(at, &format!("(?{kept}:"))
            }
            _ => Err(error("missing -, : or )", self.i)),
        }
    }

    /// Open a group written as `text`.
    fn enter(&mut self, at: usize, text: &str) -> Result<()> {
        self.open.push(Open { at });
        self.out.push_str(text);
        self.last = Last::Nothing;
        Ok(())
    }
}

/// Python's `str.isidentifier()`, near enough: a letter or `_`, then
/// letters, digits or `_`.
fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && cs.all(|c| c == '_' || c.is_alphanumeric())
}

/// A character that stands for itself, escaped where fancy-regex would
/// read it otherwise (`<` and `>` stay bare: escaped they are anchors).
fn literal(out: &mut String, c: char) {
    if "\\.+*?()|[]{}^$#&-~".contains(c) {
        out.push('\\');
    }
    out.push(c);
}
