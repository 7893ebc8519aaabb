//! `date_time`: datetime and timespan construction, arithmetic, properties.

use super::Reg;
use crate::datetime::{parse_free, parse_iso, strptime, DateTime, Parts, US_PER_DAY, US_PER_SEC};
use crate::error::{Error, ErrorKind, Result};
use crate::func::params::{Number, Optional, PyInt, TimeDelta};
use crate::value::Value;
use crate::yaql_fn;

fn overflow() -> Error {
    Error::new(ErrorKind::Overflow, "date value out of range")
}

fn check_range(d: DateTime) -> Result<Value> {
    if !d.in_python_range() {
        return Err(overflow());
    }
    Ok(Value::DateTime(d))
}

/// Round half to even to an integer number of microseconds.
fn round_us(x: f64) -> Result<i64> {
    if !x.is_finite() {
        return Err(Error::new(
            ErrorKind::Overflow,
            "cannot convert float to timedelta",
        ));
    }
    let r = x.round();
    let r = if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    };
    Ok(r as i64)
}

fn td_mul(TimeDelta(t): TimeDelta, n: &Value) -> Result<Value> {
    match n {
        Value::Int(i) => t
            .checked_mul(*i)
            .map(Value::TimeDelta)
            .ok_or_else(|| Error::new(ErrorKind::Overflow, "timedelta overflow")),
        _ => Ok(Value::TimeDelta(round_us(
            t as f64 * n.as_f64().unwrap_or(0.0),
        )?)),
    }
}

fn utc_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

fn offset_secs(v: Option<TimeDelta>) -> Result<i32> {
    match v {
        Some(TimeDelta(t)) => {
            if t.abs() >= US_PER_DAY {
                return Err(Error::value_err("offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)"));
            }
            Ok((t / US_PER_SEC) as i32)
        }
        None => Ok(0),
    }
}

/// `d` moved by `by` microseconds, within Python's range.
fn shifted(d: DateTime, by: i64) -> Result<Value> {
    check_range(DateTime {
        local: d.local + by,
        offset: d.offset,
    })
}

fn cmp_reg(r: &Reg, name: &str, want: [bool; 3]) {
    let pick = move |o: std::cmp::Ordering| match o {
        std::cmp::Ordering::Less => want[0],
        std::cmp::Ordering::Equal => want[1],
        std::cmp::Ordering::Greater => want[2],
    };
    r.add_def(
        yaql_fn!(Function name, |_c| (dt1: DateTime, dt2: DateTime) {
            Ok(pick(dt1.utc_micros().cmp(&dt2.utc_micros())))
        }),
    );
    r.add_def(
        yaql_fn!(Function name, |_c| (ts1: TimeDelta, ts2: TimeDelta) {
            Ok(pick(ts1.0.cmp(&ts2.0)))
        }),
    );
}

pub fn register(r: &Reg) {
    arithmetic(r);
    construction(r);
    timespans_and_zones(r);
    properties(r);
}

/// Datetime/timespan arithmetic and comparisons.
fn arithmetic(r: &Reg) {
    r.add_def(yaql_fn!(Function "#operator_*", |_c| (n: Number, ts: TimeDelta) { td_mul(ts, &n) }));
    r.add_def(yaql_fn!(Function "#operator_*", |_c| (ts: TimeDelta, n: Number) { td_mul(ts, &n) }));
    r.add_def(
        yaql_fn!(Function "#operator_+", |_c| (dt: DateTime, ts: TimeDelta) { shifted(dt, ts.0) }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_+", |_c| (ts: TimeDelta, dt: DateTime) { shifted(dt, ts.0) }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_+", |_c| (ts1: TimeDelta, ts2: TimeDelta) {
            Ok(Value::TimeDelta(ts1.0 + ts2.0))
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_-", |_c| (dt1: DateTime, dt2: DateTime) {
            if dt1.offset.is_some() != dt2.offset.is_some() {
                return Err(Error::type_err(
                    "can't subtract offset-naive and offset-aware datetimes",
                ));
            }
            Ok(Value::TimeDelta(dt1.utc_micros() - dt2.utc_micros()))
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_-", |_c| (dt: DateTime, ts: TimeDelta) { shifted(dt, -ts.0) }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_-", |_c| (ts1: TimeDelta, ts2: TimeDelta) {
            Ok(Value::TimeDelta(ts1.0 - ts2.0))
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_/", |_c| (ts1: TimeDelta, ts2: TimeDelta) {
            if ts2.0 == 0 {
                return Err(Error::new(ErrorKind::ZeroDivision, "division by zero"));
            }
            Ok(ts1.0 as f64 / ts2.0 as f64)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_/", |_c| (ts: TimeDelta, n: Number) {
            let n = n.as_f64().ok_or_else(|| Error::type_err("number expected"))?;
            if n == 0.0 {
                return Err(Error::new(ErrorKind::ZeroDivision, "division by zero"));
            }
            Ok(Value::TimeDelta(round_us(ts.0 as f64 / n)?))
        }),
    );
    cmp_reg(r, "#operator_<", [true, false, false]);
    cmp_reg(r, "#operator_<=", [true, true, false]);
    cmp_reg(r, "#operator_>", [false, false, true]);
    cmp_reg(r, "#operator_>=", [false, true, true]);
    r.add_def(
        yaql_fn!(Function "#unary_operator_+", |_c| (ts: TimeDelta) { Ok(Value::TimeDelta(ts.0)) }),
    );
    r.add_def(yaql_fn!(Function "#unary_operator_-", |_c| (ts: TimeDelta) { Ok(Value::TimeDelta(-ts.0)) }));
}

/// `datetime()` from text, a timestamp or parts; `format`, `isDatetime`.
fn construction(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "datetime", |_c| (string: &str, format: Option<&str> = Null) {
            let d = match format {
                Some(f) => strptime(string, f)?,
                // dateutil's reading: ISO forms first, then free-form text with
                // the missing fields from today.
                None => match parse_iso(string) {
                    Ok(d) => d,
                    Err(_) => parse_free(string, DateTime::from_utc(utc_now(), 0).parts())?,
                },
            };
            Ok(Value::DateTime(DateTime {
                local: d.local,
                offset: Some(d.offset.unwrap_or(0)),
            }))
        }),
    );
    r.add_def(yaql_fn!(Function "datetime", |_c| (timestamp: Number, offset: Optional<TimeDelta> = NoValue) {
        let ts = timestamp.as_f64().ok_or_else(|| Error::type_err("number expected"))?;
        let utc = round_us(ts * 1e6)?;
        check_range(DateTime::from_utc(utc, offset_secs(offset.0)?))
    }));
    r.add_def(yaql_fn!(Function "datetime", |_c| (
        year: PyInt,
        month: PyInt,
        day: PyInt,
        hour: PyInt = 0,
        minute: PyInt = 0,
        second: PyInt = 0,
        microsecond: PyInt = 0,
        offset: Optional<TimeDelta> = NoValue,
    ) {
        let p = Parts {
            year: year.index()?,
            month: month.index()?,
            day: day.index()?,
            hour: hour.index()?,
            minute: minute.index()?,
            second: second.index()?,
            micro: microsecond.index()?,
        };
        Ok(Value::DateTime(DateTime::from_parts(p, Some(offset_secs(offset.0)?))?))
    }));
    r.add_def(
        yaql_fn!(Method "format", |_c| (dt: DateTime, format: &str) { Ok(dt.strftime(format)) }),
    );
    r.add_def(yaql_fn!(Function "isDatetime", |_c| (value: &Value) {
        Ok(matches!(value, Value::DateTime(_)))
    }));
}

/// `timespan()`, `now`, time zones, `replace`.
fn timespans_and_zones(r: &Reg) {
    r.add_def(yaql_fn!(Function "isTimespan", |_c| (value: &Value) {
        Ok(matches!(value, Value::TimeDelta(_)))
    }));
    r.add_def(yaql_fn!(Function "localtz", |_c| () { Ok(Value::TimeDelta(0)) }));
    r.add_def(yaql_fn!(Function "utctz", |_c| () { Ok(Value::TimeDelta(0)) }));
    r.add_def(
        yaql_fn!(Function "now", |_c| (offset: Option<TimeDelta> = NoValue) {
            Ok(Value::DateTime(DateTime::from_utc(utc_now(), offset_secs(offset)?)))
        }),
    );
    r.add_def(yaql_fn!(Method "replace", |_c| (
        dt: DateTime,
        year: Option<PyInt> = Null,
        month: Option<PyInt> = Null,
        day: Option<PyInt> = Null,
        hour: Option<PyInt> = Null,
        minute: Option<PyInt> = Null,
        second: Option<PyInt> = Null,
        microsecond: Option<PyInt> = Null,
        offset: Option<TimeDelta> = Null,
    ) {
        let mut p = dt.parts();
        let pick = |v: Option<PyInt>, cur: i64| v.map_or(Ok(cur), |v| v.index());
        p.year = pick(year, p.year)?;
        p.month = pick(month, p.month)?;
        p.day = pick(day, p.day)?;
        p.hour = pick(hour, p.hour)?;
        p.minute = pick(minute, p.minute)?;
        p.second = pick(second, p.second)?;
        p.micro = pick(microsecond, p.micro)?;
        let off = match offset {
            Some(_) => Some(offset_secs(offset)?),
            None => dt.offset,
        };
        Ok(Value::DateTime(DateTime::from_parts(p, off)?))
    }));
    r.add_def(yaql_fn!(Function "timespan", |_c| (
        days: PyInt = 0,
        hours: PyInt = 0,
        minutes: PyInt = 0,
        seconds: i64 = 0,
        milliseconds: i64 = 0,
        microseconds: i64 = 0,
    ) {
        let t = days.index()? as i128 * US_PER_DAY as i128
            + hours.index()? as i128 * 3_600_000_000
            + minutes.index()? as i128 * 60_000_000
            + seconds as i128 * 1_000_000
            + milliseconds as i128 * 1000
            + microseconds as i128;
        let max = 999_999_999i128 * US_PER_DAY as i128;
        if t.abs() > max {
            return Err(Error::new(ErrorKind::Overflow, "timedelta out of range"));
        }
        Ok(Value::TimeDelta(t as i64))
    }));
}

/// The properties of datetimes and timespans (`$.year`, `$.days`...).
fn properties(r: &Reg) {
    let dprop = |name: &str, f: fn(&DateTime) -> Value| {
        let name = format!("#property#{name}");
        r.add_def(yaql_fn!(Function &name, |_c| (obj: DateTime) { Ok(f(&obj)) }));
    };
    let tprop = |name: &str, f: fn(i64) -> Value| {
        let name = format!("#property#{name}");
        r.add_def(yaql_fn!(Function &name, |_c| (obj: TimeDelta) { Ok(f(obj.0)) }));
    };
    dprop("year", |d| Value::Int(d.parts().year));
    dprop("month", |d| Value::Int(d.parts().month));
    dprop("day", |d| Value::Int(d.parts().day));
    dprop("hour", |d| Value::Int(d.parts().hour));
    dprop("minute", |d| Value::Int(d.parts().minute));
    dprop("second", |d| Value::Int(d.parts().second));
    dprop("microsecond", |d| Value::Int(d.parts().micro));
    dprop("weekday", |d| Value::Int(d.weekday()));
    dprop("offset", |d| {
        Value::TimeDelta(d.offset.unwrap_or(0) as i64 * US_PER_SEC)
    });
    dprop("timestamp", |d| Value::Float(d.utc_micros() as f64 / 1e6));
    dprop("date", |d| {
        Value::DateTime(DateTime {
            local: d.local.div_euclid(US_PER_DAY) * US_PER_DAY,
            offset: d.offset,
        })
    });
    dprop("time", |d| Value::TimeDelta(d.local.rem_euclid(US_PER_DAY)));
    dprop("utc", |d| {
        Value::DateTime(DateTime {
            local: d.local - d.offset.unwrap_or(0) as i64 * US_PER_SEC,
            offset: d.offset,
        })
    });
    tprop("days", |t| Value::Float(t as f64 / US_PER_DAY as f64));
    tprop("hours", |t| Value::Float(t as f64 / 3.6e9));
    tprop("minutes", |t| Value::Float(t as f64 / 6e7));
    tprop("seconds", |t| Value::Float(t as f64 / 1e6));
    tprop("milliseconds", |t| Value::Float(t as f64 / 1e3));
    tprop("microseconds", Value::Int);
}
