//! Free-form date reading as `dateutil.parser.parse` does it with its
//! default settings (month before day, no fuzzy mode): `29 Aug 2015 10:00`,
//! `Aug 29, 2015`, `Saturday, August 29 2015 10:00 PM`, `29-Aug-15`,
//! `10:30` (today). Fields the text does not give come from `today` at
//! midnight; a day past the end of the month is clipped to it.

use crate::time::{days_in_month, DateTime, Parts, Result, TimeError};

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
/// Words dateutil skips between fields.
const JUMP: [&str; 11] = [
    "at", "on", "and", "ad", "m", "t", "of", "st", "nd", "rd", "th",
];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(String),
    Word(String),
    Sym(char),
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            // Seconds (a number after `:`) keep their decimal fraction; elsewhere
            // a dot separates date fields (2015.08.29).
            let seconds = out.last() == Some(&Tok::Sym(':'));
            if seconds && i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push(Tok::Num(chars[start..i].iter().collect()));
        } else if c.is_alphabetic() {
            while i < chars.len() && chars[i].is_alphabetic() {
                i += 1;
            }
            out.push(Tok::Word(chars[start..i].iter().collect()));
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Sym(c));
            }
            i += 1;
        }
    }
    out
}

fn month_of(word: &str) -> Option<i64> {
    let w = word.to_ascii_lowercase();
    if w == "sept" {
        return Some(9);
    }
    MONTHS
        .iter()
        .position(|m| w.len() >= 3 && (w == *m || (w.len() == 3 && m.starts_with(&w))))
        .map(|i| i as i64 + 1)
}

fn is_weekday(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    WEEKDAYS
        .iter()
        .any(|d| w == *d || (w.len() == 3 && d.starts_with(&w)) || (w == "tues" && *d == "tuesday"))
}

/// Up to three date numbers, with which of them is known to be the month
/// (a name) or the year (more than two digits).
#[derive(Default)]
struct Ymd {
    values: Vec<i64>,
    month_at: Option<usize>,
    year_at: Option<usize>,
    century_given: bool,
}

impl Ymd {
    fn push_number(&mut self, digits: &str) -> Option<()> {
        let v: i64 = digits.parse().ok()?;
        if digits.len() > 2 {
            self.century_given = true;
            self.year_at = Some(self.values.len());
        } else if v > 100 {
            self.year_at = Some(self.values.len());
        }
        self.push(v)
    }

    fn push_month(&mut self, month: i64) -> Option<()> {
        self.month_at = Some(self.values.len());
        self.push(month)
    }

    fn push(&mut self, v: i64) -> Option<()> {
        (self.values.len() < 3).then(|| self.values.push(v))
    }

    /// `(year, month, day)` as dateutil resolves them (month first).
    fn resolve(&self) -> Option<(Option<i64>, Option<i64>, Option<i64>)> {
        let v = &self.values;
        let (mut y, mut m, mut d) = (None, None, None);
        let known = [self.year_at, self.month_at].iter().flatten().count();
        if !v.is_empty() && (v.len() == known || (v.len() == 3 && known == 2)) {
            // Every place is known but at most one: fill the rest by elimination.
            for (i, &x) in v.iter().enumerate() {
                if Some(i) == self.year_at {
                    y = Some(x);
                } else if Some(i) == self.month_at {
                    m = Some(x);
                } else {
                    d = Some(x);
                }
            }
            return Some((y, m, d));
        }
        match (v.len(), self.month_at) {
            (0, _) => {}
            (1, _) | (2, Some(_)) => {
                let other = match self.month_at {
                    Some(i) => {
                        m = Some(v[i]);
                        (v.len() == 2).then(|| v[1 - i])
                    }
                    None => Some(v[0]),
                };
                if let Some(o) = other {
                    if o > 31 {
                        y = Some(o);
                    } else {
                        d = Some(o);
                    }
                }
            }
            (2, None) => {
                if v[0] > 31 {
                    (y, m) = (Some(v[0]), Some(v[1]));
                } else if v[1] > 31 {
                    (m, y) = (Some(v[0]), Some(v[1]));
                } else {
                    (m, d) = (Some(v[0]), Some(v[1]));
                }
            }
            (3, Some(0)) => {
                if v[1] > 31 {
                    (m, y, d) = (Some(v[0]), Some(v[1]), Some(v[2]));
                } else {
                    (m, d, y) = (Some(v[0]), Some(v[1]), Some(v[2]));
                }
            }
            (3, Some(1)) => {
                if v[0] > 31 {
                    (y, m, d) = (Some(v[0]), Some(v[1]), Some(v[2]));
                } else {
                    (d, m, y) = (Some(v[0]), Some(v[1]), Some(v[2]));
                }
            }
            (3, Some(_)) => {
                if v[1] > 31 {
                    (d, y, m) = (Some(v[0]), Some(v[1]), Some(v[2]));
                } else {
                    (y, d, m) = (Some(v[0]), Some(v[1]), Some(v[2]));
                }
            }
            (3, None) => {
                if v[0] > 31 || self.year_at == Some(0) {
                    (y, m, d) = (Some(v[0]), Some(v[1]), Some(v[2]));
                } else if v[0] > 12 {
                    (d, m, y) = (Some(v[0]), Some(v[1]), Some(v[2]));
                } else {
                    (m, d, y) = (Some(v[0]), Some(v[1]), Some(v[2]));
                }
            }
            _ => return None,
        }
        Some((y, m, d))
    }
}

/// What the text gave.
#[derive(Default)]
struct Fields {
    ymd: Ymd,
    hour: Option<i64>,
    minute: Option<i64>,
    second: Option<i64>,
    micro: Option<i64>,
    offset: Option<i32>,
    pm: Option<bool>,
}

/// Seconds with an optional fraction (`05.25`) into seconds and microseconds.
fn seconds(text: &str) -> Option<(i64, i64)> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let s = whole.parse().ok()?;
    let digits: String = frac.chars().take(6).collect();
    let us = if digits.is_empty() {
        0
    } else {
        digits.parse::<i64>().ok()? * 10i64.pow(6 - digits.len() as u32)
    };
    Some((s, us))
}

struct Reader {
    toks: Vec<Tok>,
    at: usize,
    f: Fields,
}

impl Reader {
    fn peek(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.at + k)
    }

    fn sym(&self, k: usize) -> Option<char> {
        match self.peek(k) {
            Some(Tok::Sym(c)) => Some(*c),
            _ => None,
        }
    }

    fn read(&mut self) -> Option<()> {
        while let Some(t) = self.peek(0).cloned() {
            match t {
                Tok::Num(n) => self.number(&n)?,
                Tok::Word(w) => self.word(&w)?,
                Tok::Sym('+' | '-') if self.f.hour.is_some() && self.f.offset.is_none() => {
                    self.offset()?
                }
                Tok::Sym(',' | '.' | '-' | '/' | '\'' | ';') => self.at += 1,
                Tok::Sym(_) => return None,
            }
        }
        Some(())
    }

    fn number(&mut self, n: &str) -> Option<()> {
        self.at += 1;
        let len = n.len();
        if n.contains('.') {
            return None;
        }
        if self.sym(0) == Some(':') && self.f.hour.is_none() {
            // HH:MM[:SS[.ffffff]]
            self.f.hour = Some(n.parse().ok()?);
            let Some(Tok::Num(m)) = self.peek(1).cloned() else {
                return None;
            };
            self.f.minute = Some(m.parse().ok()?);
            self.at += 2;
            if self.sym(0) == Some(':') {
                let Some(Tok::Num(s)) = self.peek(1).cloned() else {
                    return None;
                };
                let (s, us) = seconds(&s)?;
                (self.f.second, self.f.micro) = (Some(s), Some(us));
                self.at += 2;
            }
            return Some(());
        }
        if self.f.ymd.values.is_empty() && (len == 6 || len == 8) && self.sym(0).is_none() {
            // YYMMDD or YYYYMMDD
            let (y, rest) = n.split_at(len - 4);
            self.f.ymd.push_number(y)?;
            self.f.ymd.push_number(&rest[..2])?;
            return self.f.ymd.push_number(&rest[2..]);
        }
        if let Some(sep @ ('-' | '/' | '.')) = self.sym(0) {
            // A date written with separators: 29-Aug-2015, 8/29/15, 2015.08.29.
            self.f.ymd.push_number(n)?;
            for _ in 0..2 {
                if self.sym(0) != Some(sep) {
                    break;
                }
                match self.peek(1).cloned() {
                    Some(Tok::Num(x)) => self.f.ymd.push_number(&x)?,
                    Some(Tok::Word(w)) => self.f.ymd.push_month(month_of(&w)?)?,
                    _ => break,
                }
                self.at += 2;
            }
            return Some(());
        }
        if let Some(Tok::Word(w)) = self.peek(0) {
            if let Some(pm) = am_pm(w) {
                self.f.hour = Some(n.parse().ok()?);
                self.f.pm = Some(pm);
                self.at += 1;
                return Some(());
            }
        }
        if len > 4 {
            return None;
        }
        self.f.ymd.push_number(n)
    }

    fn word(&mut self, w: &str) -> Option<()> {
        self.at += 1;
        let lower = w.to_ascii_lowercase();
        if let Some(m) = month_of(w) {
            self.f.ymd.push_month(m)?;
            // Aug-29-2015, Aug/2015
            for _ in 0..2 {
                match (self.sym(0), self.peek(1).cloned()) {
                    (Some('-' | '/'), Some(Tok::Num(x))) => {
                        self.f.ymd.push_number(&x)?;
                        self.at += 2;
                    }
                    _ => break,
                }
            }
        } else if is_weekday(w) || JUMP.contains(&lower.as_str()) {
        } else if let Some(pm) = am_pm(w) {
            self.f.hour?;
            self.f.pm = Some(pm);
        } else if matches!(lower.as_str(), "utc" | "gmt" | "z") {
            self.f.offset = Some(0);
        } else if self.f.hour.is_some()
            && self.f.offset.is_none()
            && w.len() <= 5
            && w.chars().all(|c| c.is_ascii_uppercase())
        {
            // A time zone name it does not know: dateutil reads the time as naive.
        } else {
            return None;
        }
        Some(())
    }

    /// `+HHMM`, `+HH:MM` or `+HH` after the time.
    fn offset(&mut self) -> Option<()> {
        let sign = if self.sym(0) == Some('-') { -1 } else { 1 };
        let Some(Tok::Num(n)) = self.peek(1).cloned() else {
            return None;
        };
        self.at += 2;
        let (h, m): (i64, i64) = match n.len() {
            4 => (n[..2].parse().ok()?, n[2..].parse().ok()?),
            1 | 2 if self.sym(0) == Some(':') => {
                let Some(Tok::Num(m)) = self.peek(1).cloned() else {
                    return None;
                };
                self.at += 2;
                (n.parse().ok()?, m.parse().ok()?)
            }
            1 | 2 => (n.parse().ok()?, 0),
            _ => return None,
        };
        // Python's time zones hold offsets under a day; the digits may say
        // anything (`+0:58166816`), so anything else is no offset.
        let seconds = sign * (h * 3600 + m * 60);
        if seconds.abs() >= 86_400 {
            return None;
        }
        self.f.offset = Some(seconds as i32);
        Some(())
    }
}

fn am_pm(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "am" | "a" => Some(false),
        "pm" | "p" => Some(true),
        _ => None,
    }
}

/// A two-digit year into the century that puts it within 50 years of
/// `this_year`.
fn full_year(year: i64, this_year: i64) -> i64 {
    let mut y = year + this_year / 100 * 100;
    if y >= this_year + 50 {
        y -= 100;
    } else if y < this_year - 50 {
        y += 100;
    }
    y
}

/// Read `text` as dateutil's parser would, taking missing fields from
/// `today` (its time of day is ignored: missing time fields are zero).
pub fn parse_free(text: &str, today: Parts) -> Result<DateTime> {
    let bad = || TimeError(format!("Unknown string format: {text}"));
    let mut r = Reader {
        toks: tokens(text),
        at: 0,
        f: Fields::default(),
    };
    if r.toks.is_empty() {
        return Err(TimeError(
            "String does not contain a date: ".to_string() + text,
        ));
    }
    r.read().ok_or_else(bad)?;
    let f = r.f;
    let (y, m, d) = f.ymd.resolve().ok_or_else(bad)?;
    let year = match y {
        Some(y) if y < 100 && !f.ymd.century_given => full_year(y, today.year),
        Some(y) => y,
        None => today.year,
    };
    let month = m.unwrap_or(today.month);
    let mut hour = f.hour.unwrap_or(0);
    if let Some(pm) = f.pm {
        if hour > 12 {
            return Err(bad());
        }
        hour = hour % 12 + if pm { 12 } else { 0 };
    }
    let parts = Parts {
        year,
        month,
        day: d.unwrap_or_else(|| today.day.min(days_in_month(year, month).max(1))),
        hour,
        minute: f.minute.unwrap_or(0),
        second: f.second.unwrap_or(0),
        micro: f.micro.unwrap_or(0),
    };
    DateTime::from_parts(parts, f.offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: Parts = Parts {
        year: 2026,
        month: 12,
        day: 2,
        hour: 0,
        minute: 0,
        second: 0,
        micro: 0,
    };

    fn at(text: &str) -> (i64, i64, i64, i64, i64, i64, Option<i32>) {
        let d = parse_free(text, TODAY).unwrap_or_else(|e| panic!("{text}: {e}"));
        let p = d.parts();
        (p.year, p.month, p.day, p.hour, p.minute, p.second, d.offset)
    }

    #[test]
    fn reads_dates_with_month_names() {
        assert_eq!(at("29 Aug 2015 10:00"), (2015, 8, 29, 10, 0, 0, None));
        assert_eq!(at("Aug 29, 2015"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(
            at("Saturday, August 29 2015 10:00 PM"),
            (2015, 8, 29, 22, 0, 0, None)
        );
        assert_eq!(at("29-Aug-15"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(at("Sept 3 2008"), (2008, 9, 3, 0, 0, 0, None));
        assert_eq!(at("3rd of September 2008"), (2008, 9, 3, 0, 0, 0, None));
    }

    #[test]
    fn reads_numeric_dates_month_first() {
        assert_eq!(at("8/29/2015"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(at("29/8/2015"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(at("2015.08.29"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(at("20150829"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(at("01/02/03"), (2003, 1, 2, 0, 0, 0, None));
    }

    #[test]
    fn missing_fields_come_from_today() {
        assert_eq!(at("10:30"), (2026, 12, 2, 10, 30, 0, None));
        assert_eq!(at("Feb 2010"), (2010, 2, 2, 0, 0, 0, None));
        let last = Parts { day: 31, ..TODAY };
        let d = parse_free("Feb 2010", last).unwrap().parts();
        assert_eq!((d.month, d.day), (2, 28));
    }

    #[test]
    fn reads_times_and_offsets() {
        assert_eq!(
            at("2015-08-29 10:00:05 UTC"),
            (2015, 8, 29, 10, 0, 5, Some(0))
        );
        assert_eq!(
            at("Aug 29 2015 10:00 +0300"),
            (2015, 8, 29, 10, 0, 0, Some(10_800))
        );
        assert_eq!(
            at("Aug 29 2015 10:00 -03:30"),
            (2015, 8, 29, 10, 0, 0, Some(-12_600))
        );
        assert_eq!(at("Aug 29 2015 12 am"), (2015, 8, 29, 0, 0, 0, None));
        assert_eq!(at("Aug 29 2015 10:00 EST"), (2015, 8, 29, 10, 0, 0, None));
        let d = parse_free("10:00:05.25", TODAY).unwrap();
        assert_eq!(d.parts().micro, 250_000);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for text in [
            "hello",
            "Aug 29 2015 13 pm",
            "1 2 3 4",
            "",
            "10:",
            "29 Aug 2015 !",
        ] {
            assert!(parse_free(text, TODAY).is_err(), "{text}");
        }
        // An offset of a day or more (found by fuzzing: `+0:58166816`
        // overflowed) is no offset, so the text is not a date.
        for text in ["Aug 29 2015 10:00 +0:58166816", "Aug 29 2015 10:00 -24:00"] {
            assert!(parse_free(text, TODAY).is_err(), "{text}");
        }
        assert_eq!(at("Aug 29 2015 10:00 -23:59").6, Some(-86_340));
        assert_eq!(
            parse_free("hello", TODAY).unwrap_err().0,
            "Unknown string format: hello"
        );
    }
}
