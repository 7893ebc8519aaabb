//! Datetimes and timespans: civil-calendar arithmetic, Python `str()`,
//! `strftime`/`strptime` subsets and a lenient ISO-8601 parser.

use crate::error::{Error, Result};

pub const US_PER_SEC: i64 = 1_000_000;
pub const US_PER_DAY: i64 = 86_400 * US_PER_SEC;

/// A point in time: wall-clock microseconds since 1970-01-01 (as if UTC) plus
/// the UTC offset in seconds (`None` for a naive datetime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTime {
    pub local: i64,
    pub offset: Option<i32>,
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of days since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Broken-down fields of a datetime.
#[derive(Clone, Copy, Debug, Default)]
pub struct Parts {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub micro: i64,
}

impl DateTime {
    /// Build from fields; validates ranges like Python's `datetime()`.
    pub fn from_parts(p: Parts, offset: Option<i32>) -> Result<DateTime> {
        if !(1..=9999).contains(&p.year) {
            return Err(Error::value_err(format!("year {} is out of range", p.year)));
        }
        if !(1..=12).contains(&p.month) {
            return Err(Error::value_err("month must be in 1..12"));
        }
        if p.day < 1 || p.day > days_in_month(p.year, p.month) {
            return Err(Error::value_err("day is out of range for month"));
        }
        if !(0..24).contains(&p.hour) {
            return Err(Error::value_err("hour must be in 0..23"));
        }
        if !(0..60).contains(&p.minute) {
            return Err(Error::value_err("minute must be in 0..59"));
        }
        if !(0..60).contains(&p.second) {
            return Err(Error::value_err("second must be in 0..59"));
        }
        if !(0..1_000_000).contains(&p.micro) {
            return Err(Error::value_err("microsecond must be in 0..999999"));
        }
        let days = days_from_civil(p.year, p.month, p.day);
        let local =
            days * US_PER_DAY + (p.hour * 3600 + p.minute * 60 + p.second) * US_PER_SEC + p.micro;
        Ok(DateTime { local, offset })
    }

    pub fn from_utc(utc: i64, offset: i32) -> DateTime {
        DateTime {
            local: utc + offset as i64 * US_PER_SEC,
            offset: Some(offset),
        }
    }

    pub fn utc_micros(&self) -> i64 {
        self.local - self.offset.unwrap_or(0) as i64 * US_PER_SEC
    }

    pub fn eq_instant(&self, other: &DateTime) -> bool {
        match (self.offset, other.offset) {
            (Some(_), Some(_)) => self.utc_micros() == other.utc_micros(),
            (None, None) => self.local == other.local,
            _ => false,
        }
    }

    pub fn parts(&self) -> Parts {
        let days = self.local.div_euclid(US_PER_DAY);
        let rem = self.local.rem_euclid(US_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let secs = rem / US_PER_SEC;
        Parts {
            year,
            month,
            day,
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
            micro: rem % US_PER_SEC,
        }
    }

    /// Monday = 0.
    pub fn weekday(&self) -> i64 {
        (self.local.div_euclid(US_PER_DAY) + 3).rem_euclid(7)
    }

    fn offset_str(&self, colon: bool) -> String {
        match self.offset {
            None => String::new(),
            Some(o) => {
                let sign = if o < 0 { '-' } else { '+' };
                let a = o.abs();
                let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
                let sep = if colon { ":" } else { "" };
                if s != 0 {
                    format!("{sign}{h:02}{sep}{m:02}{sep}{s:02}")
                } else {
                    format!("{sign}{h:02}{sep}{m:02}")
                }
            }
        }
    }

    /// `isoformat(sep)`.
    pub fn iso(&self, sep: char) -> String {
        let p = self.parts();
        let mut s = format!(
            "{:04}-{:02}-{:02}{sep}{:02}:{:02}:{:02}",
            p.year, p.month, p.day, p.hour, p.minute, p.second
        );
        if p.micro != 0 {
            s.push_str(&format!(".{:06}", p.micro));
        }
        s.push_str(&self.offset_str(true));
        s
    }

    pub fn to_py_str(&self) -> String {
        self.iso(' ')
    }

    pub fn to_py_repr(&self) -> String {
        let p = self.parts();
        let mut s = format!(
            "datetime.datetime({}, {}, {}, {}, {}",
            p.year, p.month, p.day, p.hour, p.minute
        );
        if p.second != 0 || p.micro != 0 {
            s.push_str(&format!(", {}", p.second));
        }
        if p.micro != 0 {
            s.push_str(&format!(", {}", p.micro));
        }
        if let Some(o) = self.offset {
            if o == 0 {
                s.push_str(", tzinfo=datetime.timezone.utc");
            } else {
                s.push_str(&format!(
                    ", tzinfo=datetime.timezone({})",
                    timedelta_repr(o as i64 * US_PER_SEC)
                ));
            }
        }
        s.push(')');
        s
    }

    /// Python `strftime` for the common directives.
    pub fn strftime(&self, fmt: &str) -> String {
        let p = self.parts();
        let mut out = String::new();
        let mut chars = fmt.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let Some(d) = chars.next() else {
                out.push('%');
                break;
            };
            let wd = self.weekday() as usize;
            let doy = days_from_civil(p.year, p.month, p.day) - days_from_civil(p.year, 1, 1) + 1;
            match d {
                'Y' => out.push_str(&format!("{:04}", p.year)),
                'y' => out.push_str(&format!("{:02}", p.year % 100)),
                'm' => out.push_str(&format!("{:02}", p.month)),
                'd' => out.push_str(&format!("{:02}", p.day)),
                'H' => out.push_str(&format!("{:02}", p.hour)),
                'I' => out.push_str(&format!("{:02}", (p.hour + 11) % 12 + 1)),
                'M' => out.push_str(&format!("{:02}", p.minute)),
                'S' => out.push_str(&format!("{:02}", p.second)),
                'f' => out.push_str(&format!("{:06}", p.micro)),
                'p' => out.push_str(if p.hour < 12 { "AM" } else { "PM" }),
                'j' => out.push_str(&format!("{:03}", doy)),
                'A' => out.push_str(WEEKDAYS[wd]),
                'a' => out.push_str(&WEEKDAYS[wd][..3]),
                'B' => out.push_str(MONTHS[(p.month - 1) as usize]),
                'b' | 'h' => out.push_str(&MONTHS[(p.month - 1) as usize][..3]),
                'w' => out.push_str(&((wd + 1) % 7).to_string()),
                'z' => out.push_str(&self.offset_str(false)),
                'Z' => {
                    if let Some(o) = self.offset {
                        if o == 0 {
                            out.push_str("UTC");
                        } else {
                            out.push_str(&format!("UTC{}", self.offset_str(true)));
                        }
                    }
                }
                'c' => out.push_str(&self.strftime("%a %b %e %H:%M:%S %Y")),
                'e' => out.push_str(&format!("{:2}", p.day)),
                'x' => out.push_str(&self.strftime("%m/%d/%y")),
                'X' => out.push_str(&self.strftime("%H:%M:%S")),
                'D' => out.push_str(&self.strftime("%m/%d/%y")),
                'F' => out.push_str(&self.strftime("%Y-%m-%d")),
                'T' => out.push_str(&self.strftime("%H:%M:%S")),
                '%' => out.push('%'),
                other => {
                    out.push('%');
                    out.push(other);
                }
            }
        }
        out
    }
}

/// Python `str(timedelta)`.
pub fn timedelta_str(us: i64) -> String {
    let days = us.div_euclid(US_PER_DAY);
    let rem = us.rem_euclid(US_PER_DAY);
    let secs = rem / US_PER_SEC;
    let micro = rem % US_PER_SEC;
    let mut s = String::new();
    if days != 0 {
        s.push_str(&format!(
            "{} day{}, ",
            days,
            if days.abs() != 1 { "s" } else { "" }
        ));
    }
    s.push_str(&format!(
        "{}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    ));
    if micro != 0 {
        s.push_str(&format!(".{:06}", micro));
    }
    s
}

/// Python `repr(timedelta)`.
pub fn timedelta_repr(us: i64) -> String {
    let days = us.div_euclid(US_PER_DAY);
    let rem = us.rem_euclid(US_PER_DAY);
    let secs = rem / US_PER_SEC;
    let micro = rem % US_PER_SEC;
    let mut parts = Vec::new();
    if days != 0 {
        parts.push(format!("days={days}"));
    }
    if secs != 0 {
        parts.push(format!("seconds={secs}"));
    }
    if micro != 0 {
        parts.push(format!("microseconds={micro}"));
    }
    if parts.is_empty() {
        return "datetime.timedelta(0)".into();
    }
    format!("datetime.timedelta({})", parts.join(", "))
}

fn month_from_name(s: &str) -> Option<i64> {
    let l = s.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| {
            let ml = m.to_ascii_lowercase();
            ml == l || (l.len() == 3 && ml.starts_with(&l))
        })
        .map(|i| i as i64 + 1)
}

/// Python `strptime` for the common directives. Naive results have no offset.
pub fn strptime(text: &str, fmt: &str) -> Result<DateTime> {
    let bad = || {
        Error::value_err(format!(
            "time data {:?} does not match format {:?}",
            text, fmt
        ))
    };
    let t: Vec<char> = text.chars().collect();
    let mut i = 0usize;
    let mut p = Parts {
        year: 1900,
        month: 1,
        day: 1,
        ..Parts::default()
    };
    let mut pm: Option<bool> = None;
    let mut offset: Option<i32> = None;
    let mut f = fmt.chars().peekable();
    let num = |i: &mut usize, max: usize| -> Option<i64> {
        let start = *i;
        while *i < t.len() && *i - start < max && t[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == start {
            return None;
        }
        t[start..*i].iter().collect::<String>().parse().ok()
    };
    let word = |i: &mut usize| -> String {
        let start = *i;
        while *i < t.len() && t[*i].is_alphabetic() {
            *i += 1;
        }
        t[start..*i].iter().collect()
    };
    while let Some(c) = f.next() {
        if c == '%' {
            let d = f.next().ok_or_else(bad)?;
            match d {
                'Y' => p.year = num(&mut i, 4).ok_or_else(bad)?,
                'y' => {
                    let y = num(&mut i, 2).ok_or_else(bad)?;
                    p.year = if y < 69 { 2000 + y } else { 1900 + y };
                }
                'm' => p.month = num(&mut i, 2).ok_or_else(bad)?,
                'd' => p.day = num(&mut i, 2).ok_or_else(bad)?,
                'H' | 'I' => p.hour = num(&mut i, 2).ok_or_else(bad)?,
                'M' => p.minute = num(&mut i, 2).ok_or_else(bad)?,
                'S' => p.second = num(&mut i, 2).ok_or_else(bad)?,
                'f' => {
                    let start = i;
                    let v = num(&mut i, 6).ok_or_else(bad)?;
                    p.micro = v * 10i64.pow(6 - (i - start) as u32);
                }
                'p' => {
                    let w = word(&mut i).to_ascii_uppercase();
                    pm = Some(match w.as_str() {
                        "AM" => false,
                        "PM" => true,
                        _ => return Err(bad()),
                    });
                }
                'B' | 'b' | 'h' => {
                    p.month = month_from_name(&word(&mut i)).ok_or_else(bad)?;
                }
                'A' | 'a' => {
                    let w = word(&mut i).to_ascii_lowercase();
                    if !WEEKDAYS.iter().any(|d| {
                        let dl = d.to_ascii_lowercase();
                        dl == w || (w.len() == 3 && dl.starts_with(&w))
                    }) {
                        return Err(bad());
                    }
                }
                'z' => {
                    if i < t.len() && t[i] == 'Z' {
                        i += 1;
                        offset = Some(0);
                    } else {
                        let sign = match t.get(i) {
                            Some('+') => 1,
                            Some('-') => -1,
                            _ => return Err(bad()),
                        };
                        i += 1;
                        let h = num(&mut i, 2).ok_or_else(bad)?;
                        if t.get(i) == Some(&':') {
                            i += 1;
                        }
                        let m = num(&mut i, 2).ok_or_else(bad)?;
                        offset = Some(sign * (h * 3600 + m * 60) as i32);
                    }
                }
                '%' => {
                    if t.get(i) != Some(&'%') {
                        return Err(bad());
                    }
                    i += 1;
                }
                _ => return Err(bad()),
            }
        } else if c.is_whitespace() {
            while i < t.len() && t[i].is_whitespace() {
                i += 1;
            }
        } else {
            if t.get(i) != Some(&c) {
                return Err(bad());
            }
            i += 1;
        }
    }
    if i != t.len() {
        return Err(Error::value_err(format!(
            "unconverted data remains: {}",
            t[i..].iter().collect::<String>()
        )));
    }
    if let Some(pm) = pm {
        if p.hour == 12 {
            p.hour = 0;
        }
        if pm {
            p.hour += 12;
        }
    }
    DateTime::from_parts(p, offset)
}

/// A lenient ISO-8601 parser covering what `dateutil.parser.parse` accepts
/// for numeric dates: `2015-8-29`, `20080903`, `2008-09-03T20:56:35.45+03:00`.
pub fn parse_iso(text: &str) -> Result<DateTime> {
    let bad = || Error::value_err(format!("Unknown string format: {}", text));
    let s = text.trim();
    let (date, rest) = match s.find(['T', ' ']) {
        Some(i) => (&s[..i], s[i + 1..].trim()),
        None => (s, ""),
    };
    let mut p = Parts::default();
    if date.contains('-') || date.contains('/') {
        let sep = if date.contains('-') { '-' } else { '/' };
        let parts: Vec<&str> = date.split(sep).collect();
        if parts.len() != 3
            || parts
                .iter()
                .any(|x| x.is_empty() || !x.chars().all(|c| c.is_ascii_digit()))
        {
            return Err(bad());
        }
        let n: Vec<i64> = parts.iter().map(|x| x.parse().unwrap_or(0)).collect();
        if parts[0].len() == 4 {
            (p.year, p.month, p.day) = (n[0], n[1], n[2]);
        } else if sep == '/' {
            (p.month, p.day, p.year) = (n[0], n[1], n[2]);
        } else {
            return Err(bad());
        }
    } else if date.len() == 8 && date.chars().all(|c| c.is_ascii_digit()) {
        p.year = date[..4].parse().map_err(|_| bad())?;
        p.month = date[4..6].parse().map_err(|_| bad())?;
        p.day = date[6..].parse().map_err(|_| bad())?;
    } else {
        return Err(bad());
    }
    let mut offset = None;
    if !rest.is_empty() {
        let (time, tz) = match rest.find(['Z', 'z', '+', '-']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (hms, frac) = match time.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (time, None),
        };
        let fields: Vec<&str> = if hms.contains(':') {
            hms.split(':').collect()
        } else {
            hms.as_bytes()
                .chunks(2)
                .map(|c| std::str::from_utf8(c).unwrap_or(""))
                .collect()
        };
        let nums: Vec<i64> = fields
            .iter()
            .map(|f| f.trim().parse::<i64>().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        p.hour = *nums.first().unwrap_or(&0);
        p.minute = *nums.get(1).unwrap_or(&0);
        p.second = *nums.get(2).unwrap_or(&0);
        if let Some(fr) = frac {
            let digits: String = fr.chars().take(6).collect();
            if !digits.chars().all(|c| c.is_ascii_digit()) || digits.is_empty() {
                return Err(bad());
            }
            p.micro =
                digits.parse::<i64>().map_err(|_| bad())? * 10i64.pow(6 - digits.len() as u32);
        }
        let tz = tz.trim();
        if tz.eq_ignore_ascii_case("z") {
            offset = Some(0);
        } else if !tz.is_empty() {
            let sign = if tz.starts_with('-') { -1 } else { 1 };
            let body: String = tz[1..].chars().filter(|c| *c != ':').collect();
            if body.len() != 4 && body.len() != 2 {
                return Err(bad());
            }
            let h: i32 = body[..2].parse().map_err(|_| bad())?;
            let m: i32 = if body.len() == 4 {
                body[2..].parse().map_err(|_| bad())?
            } else {
                0
            };
            offset = Some(sign * (h * 3600 + m * 60));
        }
    }
    DateTime::from_parts(p, offset)
}
