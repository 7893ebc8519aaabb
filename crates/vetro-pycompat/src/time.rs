//! Python `datetime` and `timedelta` behaviour: construction with Python's
//! range checks, `str()`/`repr()`/`isoformat()`, `strftime` and `strptime`
//! (C locale), and the lenient ISO-8601 reading of `dateutil`.
//!
//! The calendar and the conversions of each format directive are jiff's;
//! only what Python does differently from jiff (`%f`, `%y`, `%z`, `%Z`,
//! unknown directives, default fields of `strptime`) is written here.

use jiff::civil;
use jiff::fmt::strtime::{BrokenDownTime, Config, PosixCustom};
use jiff::SignedDuration;
use std::fmt;

pub const US_PER_SEC: i64 = 1_000_000;
pub const US_PER_DAY: i64 = 86_400 * US_PER_SEC;

const EPOCH: civil::DateTime = civil::DateTime::constant(1970, 1, 1, 0, 0, 0, 0);

/// A Python `ValueError` raised by a datetime operation (its message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeError(pub String);

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimeError {}

pub type Result<T> = std::result::Result<T, TimeError>;

fn err<T>(message: impl Into<String>) -> Result<T> {
    Err(TimeError(message.into()))
}

/// A point in time: wall-clock microseconds since 1970-01-01 (as if UTC)
/// plus the UTC offset in seconds (`None` for a naive datetime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTime {
    pub local: i64,
    pub offset: Option<i32>,
}

/// Broken-down fields of a datetime.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub micro: i64,
}

impl Parts {
    /// 1900-01-01 00:00:00, the fields `strptime` starts from.
    pub const MIDNIGHT: Parts = Parts {
        year: 1900,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        micro: 0,
    };
}

/// Days in a month of the proleptic Gregorian calendar (0 for a bad month).
pub fn days_in_month(year: i64, month: i64) -> i64 {
    match (i16::try_from(year), i8::try_from(month)) {
        (Ok(y), Ok(m)) => civil::Date::new(y, m, 1).map_or(0, |d| d.days_in_month() as i64),
        _ => 0,
    }
}

/// Is `year` a leap year?
pub fn is_leap(year: i64) -> bool {
    days_in_month(year, 2) == 29
}

fn check_parts(p: &Parts) -> Result<civil::DateTime> {
    if !(1..=9999).contains(&p.year) {
        return err(format!("year {} is out of range", p.year));
    }
    if !(1..=12).contains(&p.month) {
        return err("month must be in 1..12");
    }
    if p.day < 1 || p.day > days_in_month(p.year, p.month) {
        return err("day is out of range for month");
    }
    if !(0..24).contains(&p.hour) {
        return err("hour must be in 0..23");
    }
    if !(0..60).contains(&p.minute) {
        return err("minute must be in 0..59");
    }
    if !(0..60).contains(&p.second) {
        return err("second must be in 0..59");
    }
    if !(0..1_000_000).contains(&p.micro) {
        return err("microsecond must be in 0..999999");
    }
    // Every field is in range now, so the narrowing casts are exact.
    civil::DateTime::new(
        p.year as i16,
        p.month as i8,
        p.day as i8,
        p.hour as i8,
        p.minute as i8,
        p.second as i8,
        (p.micro * 1000) as i32,
    )
    .or_else(|e| err(e.to_string()))
}

impl DateTime {
    /// Build from fields with the range checks of Python's `datetime()`.
    pub fn from_parts(p: Parts, offset: Option<i32>) -> Result<DateTime> {
        let dt = check_parts(&p)?;
        let local = dt.duration_since(EPOCH).as_micros() as i64;
        Ok(DateTime { local, offset })
    }

    /// Is the wall-clock time within Python's years 1 to 9999?
    pub fn in_python_range(&self) -> bool {
        // 0001-01-01 and 10000-01-01 in microseconds since 1970-01-01.
        const MIN: i64 = -62_135_596_800 * US_PER_SEC;
        const MAX: i64 = 253_402_300_800 * US_PER_SEC;
        (MIN..MAX).contains(&self.local)
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

    /// Python's `==`: aware datetimes compare instants, naive ones wall
    /// clocks, and an aware one never equals a naive one.
    pub fn eq_instant(&self, other: &DateTime) -> bool {
        match (self.offset, other.offset) {
            (Some(_), Some(_)) => self.utc_micros() == other.utc_micros(),
            (None, None) => self.local == other.local,
            _ => false,
        }
    }

    /// The wall-clock time as a jiff civil datetime (`None` out of range).
    pub fn civil(&self) -> Option<civil::DateTime> {
        EPOCH
            .checked_add(SignedDuration::from_micros(self.local))
            .ok()
    }

    pub fn parts(&self) -> Parts {
        let Some(dt) = self.civil() else {
            return Parts::default();
        };
        Parts {
            year: dt.year() as i64,
            month: dt.month() as i64,
            day: dt.day() as i64,
            hour: dt.hour() as i64,
            minute: dt.minute() as i64,
            second: dt.second() as i64,
            micro: (dt.subsec_nanosecond() / 1000) as i64,
        }
    }

    /// Day of the week, Monday = 0 (Python's `weekday()`).
    pub fn weekday(&self) -> i64 {
        self.civil()
            .map_or(0, |d| d.weekday().to_monday_zero_offset() as i64)
    }

    /// Day of the year, 1 = January 1st.
    pub fn day_of_year(&self) -> i64 {
        self.civil().map_or(1, |d| d.day_of_year() as i64)
    }

    fn offset_str(&self, colon: bool) -> String {
        self.offset.map_or(String::new(), |o| offset_str(o, colon))
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

    /// `str(datetime)`.
    pub fn to_py_str(&self) -> String {
        self.iso(' ')
    }

    /// `repr(datetime)`.
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
        match self.offset {
            Some(0) => s.push_str(", tzinfo=datetime.timezone.utc"),
            Some(o) => s.push_str(&format!(
                ", tzinfo=datetime.timezone({})",
                timedelta_repr(o as i64 * US_PER_SEC)
            )),
            None => {}
        }
        s.push(')');
        s
    }

    /// Python's `strftime` in the C locale.
    pub fn strftime(&self, fmt: &str) -> String {
        let Some(dt) = self.civil() else {
            return fmt.to_string();
        };
        let tm = BrokenDownTime::from(dt);
        let config = Config::new().custom(PosixCustom::new());
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
            match d {
                'f' => out.push_str(&format!("{:06}", p.micro)),
                'y' => out.push_str(&format!("{:02}", p.year % 100)),
                'z' => out.push_str(&self.offset_str(false)),
                'Z' => match self.offset {
                    Some(0) => out.push_str("UTC"),
                    Some(o) => out.push_str(&format!("UTC{}", offset_str(o, true))),
                    None => {}
                },
                '%' => out.push('%'),
                'a' | 'A' | 'b' | 'B' | 'h' | 'c' | 'C' | 'd' | 'D' | 'e' | 'F' | 'G' | 'H'
                | 'I' | 'j' | 'm' | 'M' | 'p' | 'R' | 'S' | 'T' | 'u' | 'U' | 'V' | 'w' | 'W'
                | 'x' | 'X' | 'Y' => {
                    let spec = format!("%{d}");
                    match tm.to_string_with_config(&config, &spec) {
                        Ok(s) => out.push_str(&s),
                        Err(_) => out.push_str(&spec),
                    }
                }
                other => {
                    out.push('%');
                    out.push(other);
                }
            }
        }
        out
    }
}

fn offset_str(o: i32, colon: bool) -> String {
    let sign = if o < 0 { '-' } else { '+' };
    let a = o.unsigned_abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    let sep = if colon { ":" } else { "" };
    if s != 0 {
        format!("{sign}{h:02}{sep}{m:02}{sep}{s:02}")
    } else {
        format!("{sign}{h:02}{sep}{m:02}")
    }
}

/// Python `str(timedelta)` of a span in microseconds.
pub fn timedelta_str(us: i64) -> String {
    let days = us.div_euclid(US_PER_DAY);
    let rem = us.rem_euclid(US_PER_DAY);
    let secs = rem / US_PER_SEC;
    let micro = rem % US_PER_SEC;
    let mut s = String::new();
    if days != 0 {
        let plural = if days.abs() != 1 { "s" } else { "" };
        s.push_str(&format!("{days} day{plural}, "));
    }
    s.push_str(&format!(
        "{}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    ));
    if micro != 0 {
        s.push_str(&format!(".{micro:06}"));
    }
    s
}

/// Python `repr(timedelta)` of a span in microseconds.
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

/// What `strptime` has read so far.
struct Reading<'t> {
    text: &'t str,
    pos: usize,
    parts: Parts,
    pm: Option<bool>,
    offset: Option<i32>,
}

impl Reading<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    /// Read one directive with jiff, merging the fields it sets.
    fn jiff(&mut self, directive: char) -> Option<()> {
        let spec = format!("%{directive}");
        let (tm, used) = BrokenDownTime::parse_prefix(&spec, self.rest()).ok()?;
        self.pos += used;
        let p = &mut self.parts;
        if let Some(y) = tm.year() {
            p.year = y as i64;
        }
        if let Some(m) = tm.month() {
            p.month = m as i64;
        }
        if let Some(d) = tm.day() {
            p.day = d as i64;
        }
        if let Some(h) = tm.hour() {
            p.hour = h as i64;
        }
        if let Some(m) = tm.minute() {
            p.minute = m as i64;
        }
        if let Some(s) = tm.second() {
            p.second = s as i64;
        }
        if let Some(m) = tm.meridiem() {
            self.pm = Some(m == jiff::fmt::strtime::Meridiem::PM);
        }
        Some(())
    }

    /// `%f`: one to six digits, a fraction of a second.
    fn micros(&mut self) -> Option<()> {
        let digits = self
            .rest()
            .bytes()
            .take(6)
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            return None;
        }
        let v: i64 = self.rest()[..digits].parse().ok()?;
        self.parts.micro = v * 10i64.pow(6 - digits as u32);
        self.pos += digits;
        Some(())
    }

    /// `%z`: `Z`, `+HHMM`, `+HH:MM` or `+HH:MM:SS`.
    fn offset(&mut self) -> Option<()> {
        if self.rest().starts_with(['Z', 'z']) {
            self.pos += 1;
            self.offset = Some(0);
            return Some(());
        }
        let sign = match self.rest().as_bytes().first()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.pos += 1;
        let mut fields = Vec::new();
        while fields.len() < 3 {
            let two = self.rest().get(..2).unwrap_or("");
            if two.len() < 2 || !two.bytes().all(|b| b.is_ascii_digit()) {
                if fields.len() >= 2 {
                    break;
                }
                return None;
            }
            fields.push(two.parse::<i32>().ok()?);
            self.pos += 2;
            if self.rest().starts_with(':') && fields.len() < 3 {
                self.pos += 1;
            }
        }
        let secs =
            fields[0] * 3600 + fields.get(1).unwrap_or(&0) * 60 + fields.get(2).unwrap_or(&0);
        self.offset = Some(sign * secs);
        Some(())
    }
}

/// Python's `strptime` (C locale). Fields the format does not set default to
/// 1900-01-01 00:00:00; the result is naive unless the format has `%z`.
pub fn strptime(text: &str, fmt: &str) -> Result<DateTime> {
    let bad = || TimeError(format!("time data {text:?} does not match format {fmt:?}"));
    let mut r = Reading {
        text,
        pos: 0,
        parts: Parts::MIDNIGHT,
        pm: None,
        offset: None,
    };
    let mut f = fmt.chars();
    while let Some(c) = f.next() {
        let ok = match c {
            '%' => match f.next().ok_or_else(bad)? {
                'f' => r.micros(),
                'z' => r.offset(),
                '%' => r.rest().starts_with('%').then(|| r.pos += 1),
                d @ ('Y' | 'y' | 'm' | 'd' | 'H' | 'I' | 'M' | 'S' | 'p' | 'B' | 'b' | 'h'
                | 'A' | 'a') => r.jiff(d),
                _ => None,
            },
            c if c.is_whitespace() => {
                let ws = r.rest().len() - r.rest().trim_start().len();
                r.pos += ws;
                Some(())
            }
            c => r.rest().starts_with(c).then(|| r.pos += c.len_utf8()),
        };
        ok.ok_or_else(bad)?;
    }
    if !r.rest().is_empty() {
        return err(format!("unconverted data remains: {}", r.rest()));
    }
    let mut p = r.parts;
    if let Some(pm) = r.pm {
        p.hour %= 12;
        if pm {
            p.hour += 12;
        }
    }
    DateTime::from_parts(p, r.offset)
}

/// A lenient ISO-8601 reader covering what `dateutil.parser.parse` accepts
/// for numeric dates: `2015-8-29`, `8/29/2015`, `20080903`,
/// `2008-09-03T20:56:35.45+03:00`.
pub fn parse_iso(text: &str) -> Result<DateTime> {
    let bad = || TimeError(format!("Unknown string format: {text}"));
    let s = text.trim();
    let (date, rest) = match s.find(['T', ' ']) {
        Some(i) => (&s[..i], s[i + 1..].trim()),
        None => (s, ""),
    };
    let mut p = read_date(date).ok_or_else(bad)?;
    let mut offset = None;
    if !rest.is_empty() {
        let (time, tz) = match rest.find(['Z', 'z', '+', '-']) {
            Some(i) => (&rest[..i], rest[i..].trim()),
            None => (rest, ""),
        };
        read_time(time, &mut p).ok_or_else(bad)?;
        if !tz.is_empty() {
            offset = Some(read_offset(tz).ok_or_else(bad)?);
        }
    }
    DateTime::from_parts(p, offset)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `YYYY-M-D`, `M/D/YYYY`, `YYYY/M/D` or `YYYYMMDD`.
fn read_date(date: &str) -> Option<Parts> {
    let mut p = Parts::default();
    let sep = if date.contains('-') {
        '-'
    } else if date.contains('/') {
        '/'
    } else {
        if date.len() != 8 || !all_digits(date) {
            return None;
        }
        p.year = date[..4].parse().ok()?;
        p.month = date[4..6].parse().ok()?;
        p.day = date[6..].parse().ok()?;
        return Some(p);
    };
    let fields: Vec<&str> = date.split(sep).collect();
    if fields.len() != 3 || !fields.iter().all(|x| all_digits(x)) {
        return None;
    }
    let n: Vec<i64> = fields.iter().map(|x| x.parse().unwrap_or(0)).collect();
    if fields[0].len() == 4 {
        (p.year, p.month, p.day) = (n[0], n[1], n[2]);
    } else if sep == '/' {
        (p.month, p.day, p.year) = (n[0], n[1], n[2]);
    } else {
        return None;
    }
    Some(p)
}

/// `HH[:MM[:SS]][.ffffff]` or `HHMMSS[.ffffff]`.
fn read_time(time: &str, p: &mut Parts) -> Option<()> {
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
        .map(|f| f.trim().parse::<i64>().ok())
        .collect::<Option<_>>()?;
    p.hour = *nums.first().unwrap_or(&0);
    p.minute = *nums.get(1).unwrap_or(&0);
    p.second = *nums.get(2).unwrap_or(&0);
    if let Some(fr) = frac {
        let digits: String = fr.chars().take(6).collect();
        if !all_digits(&digits) {
            return None;
        }
        p.micro = digits.parse::<i64>().ok()? * 10i64.pow(6 - digits.len() as u32);
    }
    Some(())
}

/// `Z`, `+HH`, `+HHMM` or `+HH:MM`, in seconds.
fn read_offset(tz: &str) -> Option<i32> {
    if tz.eq_ignore_ascii_case("z") {
        return Some(0);
    }
    let sign = if tz.starts_with('-') { -1 } else { 1 };
    let body: String = tz.get(1..)?.chars().filter(|c| *c != ':').collect();
    if (body.len() != 4 && body.len() != 2) || !all_digits(&body) {
        return None;
    }
    let h: i32 = body[..2].parse().ok()?;
    let m: i32 = if body.len() == 4 {
        body[2..].parse().ok()?
    } else {
        0
    };
    Some(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, offset: Option<i32>) -> DateTime {
        let p = Parts {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            micro: 0,
        };
        DateTime::from_parts(p, offset).unwrap()
    }

    #[test]
    fn calendar_round_trips() {
        let d = dt(2000, 2, 29, 23, 59, 58, None);
        assert_eq!(d.parts().day, 29);
        assert_eq!(d.weekday(), 1);
        assert_eq!(d.day_of_year(), 60);
        assert_eq!(dt(1970, 1, 1, 0, 0, 0, None).local, 0);
        assert_eq!(dt(1, 1, 1, 0, 0, 0, None).parts().year, 1);
        assert!(dt(1, 1, 1, 0, 0, 0, None).in_python_range());
        let mut last = dt(9999, 12, 31, 23, 59, 59, None);
        last.local += 999_999;
        assert!(last.in_python_range());
        last.local += 1;
        assert!(!last.in_python_range());
        assert!(DateTime::from_parts(
            Parts {
                year: 2001,
                month: 2,
                day: 29,
                ..Parts::MIDNIGHT
            },
            None
        )
        .is_err());
    }

    #[test]
    fn strftime_as_python_in_the_c_locale() {
        let d = dt(2025, 7, 1, 17, 30, 5, Some(3 * 3600));
        assert_eq!(d.strftime("%c"), "Tue Jul  1 17:30:05 2025");
        assert_eq!(d.strftime("%x %X"), "07/01/25 17:30:05");
        assert_eq!(
            d.strftime("%d.%m.%y %I%p %j %f"),
            "01.07.25 05PM 182 000000"
        );
        assert_eq!(d.strftime("%z %Z %Q %%"), "+0300 UTC+03:00 %Q %");
        assert_eq!(dt(1900, 1, 1, 0, 0, 0, None).strftime("%y%z%Z"), "00");
    }

    #[test]
    fn strptime_as_python() {
        let d = strptime(
            "29 Feb 2024 7:05:01.5 pm +05:30",
            "%d %b %Y %I:%M:%S.%f %p %z",
        )
        .unwrap();
        assert_eq!(d.iso('T'), "2024-02-29T19:05:01.500000+05:30");
        let d = strptime("12:00", "%H:%M").unwrap();
        assert_eq!(d.iso(' '), "1900-01-01 12:00:00");
        assert!(strptime("2024-01-01x", "%Y-%m-%d")
            .unwrap_err()
            .0
            .contains("unconverted data remains: x"));
        assert!(strptime("2024", "%d").is_err());
    }

    #[test]
    fn iso_forms() {
        assert_eq!(
            parse_iso("2015-8-29").unwrap().iso(' '),
            "2015-08-29 00:00:00"
        );
        assert_eq!(
            parse_iso("20080903T205635.45+0300").unwrap().iso('T'),
            "2008-09-03T20:56:35.450000+03:00"
        );
        assert!(parse_iso("2015-13-01").is_err());
    }

    #[test]
    fn timedeltas() {
        assert_eq!(timedelta_str(-1), "-1 day, 23:59:59.999999");
        assert_eq!(
            timedelta_repr(90 * US_PER_SEC),
            "datetime.timedelta(seconds=90)"
        );
    }
}
