//! `date_time`: datetime and timespan construction, arithmetic, properties.

use super::Reg;
use crate::datetime::{parse_free, parse_iso, strptime, DateTime, Parts, US_PER_DAY, US_PER_SEC};
use crate::error::{Error, ErrorKind, Result};
use crate::value::Value;

fn dt(v: &Value) -> DateTime {
    match v {
        Value::DateTime(d) => *d,
        _ => DateTime {
            local: 0,
            offset: Some(0),
        },
    }
}

fn td(v: &Value) -> i64 {
    match v {
        Value::TimeDelta(t) => *t,
        _ => 0,
    }
}

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

fn td_mul(t: i64, n: &Value) -> Result<Value> {
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

fn offset_secs(v: Option<&Value>) -> Result<i32> {
    match v {
        Some(Value::TimeDelta(t)) => {
            if t.abs() >= US_PER_DAY {
                return Err(Error::value_err("offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)"));
            }
            Ok((t / US_PER_SEC) as i32)
        }
        _ => Ok(0),
    }
}

fn cmp_reg(r: &Reg, name: &str, want: [bool; 3]) {
    let pick = move |o: std::cmp::Ordering| -> Value {
        Value::Bool(match o {
            std::cmp::Ordering::Less => want[0],
            std::cmp::Ordering::Equal => want[1],
            std::cmp::Ordering::Greater => want[2],
        })
    };
    r.f(name, "dt1:DateTime, dt2:DateTime", move |_, a| {
        Ok(pick(dt(a.v(0)).utc_micros().cmp(&dt(a.v(1)).utc_micros())))
    });
    r.f(name, "ts1:TimeDelta, ts2:TimeDelta", move |_, a| {
        Ok(pick(td(a.v(0)).cmp(&td(a.v(1)))))
    });
}

pub fn register(r: &Reg) {
    arithmetic_and_construction(r);
    timespans_zones_and_properties(r);
}

/// Datetime/timespan arithmetic, `datetime()`, `format`, `isDatetime`.
fn arithmetic_and_construction(r: &Reg) {
    r.f("#operator_*", "n:Number, ts:TimeDelta", |_, a| {
        td_mul(td(a.v(1)), a.v(0))
    });
    r.f("#operator_*", "ts:TimeDelta, n:Number", |_, a| {
        td_mul(td(a.v(0)), a.v(1))
    });
    r.f("#operator_+", "dt:DateTime, ts:TimeDelta", |_, a| {
        let d = dt(a.v(0));
        check_range(DateTime {
            local: d.local + td(a.v(1)),
            offset: d.offset,
        })
    });
    r.f("#operator_+", "ts:TimeDelta, dt:DateTime", |_, a| {
        let d = dt(a.v(1));
        check_range(DateTime {
            local: d.local + td(a.v(0)),
            offset: d.offset,
        })
    });
    r.f("#operator_+", "ts1:TimeDelta, ts2:TimeDelta", |_, a| {
        Ok(Value::TimeDelta(td(a.v(0)) + td(a.v(1))))
    });
    r.f("#operator_-", "dt1:DateTime, dt2:DateTime", |_, a| {
        let (x, y) = (dt(a.v(0)), dt(a.v(1)));
        if x.offset.is_some() != y.offset.is_some() {
            return Err(Error::type_err(
                "can't subtract offset-naive and offset-aware datetimes",
            ));
        }
        Ok(Value::TimeDelta(x.utc_micros() - y.utc_micros()))
    });
    r.f("#operator_-", "dt:DateTime, ts:TimeDelta", |_, a| {
        let d = dt(a.v(0));
        check_range(DateTime {
            local: d.local - td(a.v(1)),
            offset: d.offset,
        })
    });
    r.f("#operator_-", "ts1:TimeDelta, ts2:TimeDelta", |_, a| {
        Ok(Value::TimeDelta(td(a.v(0)) - td(a.v(1))))
    });
    r.f("#operator_/", "ts1:TimeDelta, ts2:TimeDelta", |_, a| {
        let d = td(a.v(1));
        if d == 0 {
            return Err(Error::new(ErrorKind::ZeroDivision, "division by zero"));
        }
        Ok(Value::Float(td(a.v(0)) as f64 / d as f64))
    });
    r.f("#operator_/", "ts:TimeDelta, n:Number", |_, a| {
        let n = a.v(1).as_f64().unwrap_or(0.0);
        if n == 0.0 {
            return Err(Error::new(ErrorKind::ZeroDivision, "division by zero"));
        }
        Ok(Value::TimeDelta(round_us(td(a.v(0)) as f64 / n)?))
    });
    cmp_reg(r, "#operator_<", [true, false, false]);
    cmp_reg(r, "#operator_<=", [true, true, false]);
    cmp_reg(r, "#operator_>", [false, false, true]);
    cmp_reg(r, "#operator_>=", [false, true, true]);
    r.f("#unary_operator_+", "ts:TimeDelta", |_, a| {
        Ok(a.v(0).clone())
    });
    r.f("#unary_operator_-", "ts:TimeDelta", |_, a| {
        Ok(Value::TimeDelta(-td(a.v(0))))
    });
    r.f("datetime", "string:String, format:String?=null", |_, a| {
        let d = match a.v(1) {
            Value::Str(f) => strptime(a.str(0), f)?,
            // dateutil's reading: ISO forms first, then free-form text with
            // the missing fields from today.
            _ => match parse_iso(a.str(0)) {
                Ok(d) => d,
                Err(_) => parse_free(a.str(0), DateTime::from_utc(utc_now(), 0).parts())?,
            },
        };
        Ok(Value::DateTime(DateTime {
            local: d.local,
            offset: Some(d.offset.unwrap_or(0)),
        }))
    });
    r.f(
        "datetime",
        "timestamp:Number, offset:TimeDelta=nv",
        |_, a| {
            let ts = a.v(0).as_f64().unwrap_or(0.0);
            let off = offset_secs(a.opt(1))?;
            let utc = round_us(ts * 1e6)?;
            check_range(DateTime::from_utc(utc, off))
        },
    );
    r.f(
        "datetime",
        "year:int, month:int, day:int, hour:int=0, minute:int=0, second:int=0, microsecond:int=0, offset:TimeDelta=nv",
        |_, a| {
            let p = Parts {
                year: a.int(0)?,
                month: a.int(1)?,
                day: a.int(2)?,
                hour: a.int(3)?,
                minute: a.int(4)?,
                second: a.int(5)?,
                micro: a.int(6)?,
            };
            let off = offset_secs(a.opt(7))?;
            Ok(Value::DateTime(DateTime::from_parts(p, Some(off))?))
        },
    );
    r.m("format", "dt:DateTime, format:String", |_, a| {
        Ok(Value::from(dt(a.v(0)).strftime(a.str(1))))
    });
    r.f("isDatetime", "value:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::DateTime(_))))
    });
}

/// `timespan()`, `now`, time zones, `replace`, the properties of datetimes and timespans.
fn timespans_zones_and_properties(r: &Reg) {
    let dprop = |name: &str, f: fn(&DateTime) -> Value| {
        r.f(&format!("#property#{name}"), "obj:DateTime", move |_, a| {
            Ok(f(&dt(a.v(0))))
        });
    };
    let tprop = |name: &str, f: fn(i64) -> Value| {
        r.f(
            &format!("#property#{name}"),
            "obj:TimeDelta",
            move |_, a| Ok(f(td(a.v(0)))),
        );
    };
    r.f("isTimespan", "value:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::TimeDelta(_))))
    });
    r.f("localtz", "", |_, _| Ok(Value::TimeDelta(0)));
    r.f("utctz", "", |_, _| Ok(Value::TimeDelta(0)));
    r.f("now", "offset:TimeDelta?=nv", |_, a| {
        let off = offset_secs(a.opt(0))?;
        Ok(Value::DateTime(DateTime::from_utc(utc_now(), off)))
    });
    r.m(
        "replace",
        "dt:DateTime, year:int?=null, month:int?=null, day:int?=null, hour:int?=null, minute:int?=null, second:int?=null, microsecond:int?=null, offset:TimeDelta?=null",
        |_, a| {
            let d = dt(a.v(0));
            let mut p = d.parts();
            let pick = |i: usize, cur: i64| match a.v(i) {
                Value::Null => Ok(cur),
                _ => a.int(i),
            };
            p.year = pick(1, p.year)?;
            p.month = pick(2, p.month)?;
            p.day = pick(3, p.day)?;
            p.hour = pick(4, p.hour)?;
            p.minute = pick(5, p.minute)?;
            p.second = pick(6, p.second)?;
            p.micro = pick(7, p.micro)?;
            let off = match a.v(8) {
                Value::TimeDelta(_) => Some(offset_secs(Some(a.v(8)))?),
                _ => d.offset,
            };
            Ok(Value::DateTime(DateTime::from_parts(p, off)?))
        },
    );
    r.f(
        "timespan",
        "days:int=0, hours:int=0, minutes:int=0, seconds:Integer=0, milliseconds:Integer=0, microseconds:Integer=0",
        |_, a| {
            let t = a.int(0)? as i128 * US_PER_DAY as i128
                + a.int(1)? as i128 * 3_600_000_000
                + a.int(2)? as i128 * 60_000_000
                + a.int(3)? as i128 * 1_000_000
                + a.int(4)? as i128 * 1000
                + a.int(5)? as i128;
            let max = 999_999_999i128 * US_PER_DAY as i128;
            if t.abs() > max {
                return Err(Error::new(ErrorKind::Overflow, "timedelta out of range"));
            }
            Ok(Value::TimeDelta(t as i64))
        },
    );
    // Properties.
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
