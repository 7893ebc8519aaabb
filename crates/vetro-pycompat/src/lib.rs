//! What vetro's engines need to behave like Python where their reference
//! implementations are Python programs:
//!
//! * [`repr`]: `repr()`/`str()` of floats and strings;
//! * [`int`]: integers of any size to and from text, within one bound on
//!   their length;
//! * [`time`]: `datetime`/`timedelta` values with Python's `str()`,
//!   `repr()`, `strftime` and `strptime`, the calendar and the formats done
//!   by [`jiff`];
//! * [`dateparse`]: free-form dates read as `dateutil.parser.parse` reads
//!   them.
//!
//! ```
//! use vetro_pycompat::repr::{float_repr, str_repr};
//! use vetro_pycompat::time::{DateTime, Parts};
//!
//! assert_eq!(float_repr(1e16), "1e+16");
//! assert_eq!(float_repr(0.1 + 0.2), "0.30000000000000004");
//! assert_eq!(str_repr("it's"), "\"it's\"");
//!
//! let d = DateTime::from_parts(Parts { year: 2024, month: 2, day: 29, ..Parts::MIDNIGHT }, Some(0)).unwrap();
//! assert_eq!(d.to_py_str(), "2024-02-29 00:00:00+00:00");
//! assert_eq!(d.strftime("%A %d %B %Y"), "Thursday 29 February 2024");
//! ```

pub mod dateparse;
pub mod int;
pub mod repr;
pub mod time;
