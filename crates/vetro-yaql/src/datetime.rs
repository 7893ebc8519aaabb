//! Datetimes and timespans, with Python's behaviour from `vetro-pycompat`
//! (its errors become YAQL `ValueError`s through `From`).

pub use vetro_pycompat::dateparse::parse_free;
pub use vetro_pycompat::time::{
    parse_iso, strptime, timedelta_repr, timedelta_str, DateTime, Parts, US_PER_DAY, US_PER_SEC,
};
