//! Integers of any size to and from text, as Python's `int` has them, with
//! one bound on their length.
//!
//! Converting between a big integer and decimal text is the one operation on
//! integers whose time grows faster than its input and that no evaluation
//! limit can interrupt, so every engine refuses integers of more than
//! [`MAX_INT_DIGITS`] decimal digits where they meet text: in a YAQL literal,
//! in `int()`/`str()`, in a YAML or JSON scalar. Python 3.11 and later refuse
//! conversions past 4,300 digits for the same reason.
//!
//! ```
//! use vetro_pycompat::int::{decimal_digits, parse_decimal, radix_to_decimal};
//!
//! let n = parse_decimal("-1_000_000_000_000_000_000_000").unwrap();
//! assert_eq!(n.to_string(), "-1000000000000000000000");
//! assert_eq!(radix_to_decimal("ff", 16).unwrap(), "255");
//! assert_eq!(decimal_digits(64), 20);
//! assert!(parse_decimal("12a").is_none());
//! ```

use num_bigint::{BigInt, BigUint, Sign};
use std::sync::OnceLock;

/// The most decimal digits an integer may have where it is read from or
/// written as text.
pub const MAX_INT_DIGITS: usize = 1_000_000;

/// At most how many decimal digits an integer of `bits` bits has (the
/// estimate is one too many at times, never too few).
pub fn decimal_digits(bits: u64) -> usize {
    (bits as f64 * std::f64::consts::LOG10_2) as usize + 1
}

/// Decimal text to an integer: an optional `+` or `-`, then digits, with
/// `_` ignored anywhere after the first digit (as in `1_000`; num-bigint
/// reads the same texts). `None` when `text` is not such a number. The
/// caller bounds the length: this takes about 0.2 s for a million digits.
pub fn parse_decimal(text: &str) -> Option<BigInt> {
    let (sign, body) = match text.as_bytes().first()? {
        b'-' => (Sign::Minus, &text[1..]),
        b'+' => (Sign::Plus, &text[1..]),
        _ => (Sign::Plus, text),
    };
    if body.starts_with('_') {
        return None;
    }
    let mut digits = Vec::with_capacity(body.len());
    for b in body.bytes() {
        match b {
            b'0'..=b'9' => digits.push(b - b'0'),
            b'_' => {}
            _ => return None,
        }
    }
    if digits.is_empty() {
        return None;
    }
    Some(BigInt::from_biguint(sign, from_decimal_digits(&digits)))
}

/// Digits in `radix` (2 to 36, no sign) as decimal text. Refused when the
/// value would have more than [`MAX_INT_DIGITS`] decimal digits (leading
/// zeros count: strip them first), or when a character is no digit of
/// `radix`.
pub fn radix_to_decimal(digits: &str, radix: u32) -> Result<String, RadixError> {
    let bits = digits.len() as f64 * f64::from(radix).log2();
    let decimal = decimal_digits(bits.ceil() as u64);
    if decimal > MAX_INT_DIGITS {
        return Err(RadixError::TooLong { digits: decimal });
    }
    BigUint::parse_bytes(digits.as_bytes(), radix)
        .map(|n| n.to_string())
        .ok_or(RadixError::NotADigit)
}

/// Why [`radix_to_decimal`] gave no text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RadixError {
    /// The value would have about this many decimal digits.
    TooLong {
        digits: usize,
    },
    NotADigit,
}

/// Digits up to this many are read one after another; longer runs are split
/// in two halves joined by one multiplication, which num-bigint does in
/// less than quadratic time.
const DIRECT_DIGITS: usize = 2048;

/// Decimal digit values, most significant first.
fn from_decimal_digits(digits: &[u8]) -> BigUint {
    if digits.len() <= DIRECT_DIGITS {
        return BigUint::from_radix_be(digits, 10).unwrap_or_default();
    }
    // The low part's length is DIRECT_DIGITS times a power of two, so the
    // powers of ten it needs repeat and are kept.
    let mut level = 0;
    while DIRECT_DIGITS << (level + 1) < digits.len() {
        level += 1;
    }
    let (high, low) = digits.split_at(digits.len() - (DIRECT_DIGITS << level));
    from_decimal_digits(high) * power_of_ten_at(level) + from_decimal_digits(low)
}

/// 10 ** (DIRECT_DIGITS * 2 ** level), computed once for the process and
/// then shared by every thread (each level is the square of the one below).
fn power_of_ten_at(level: usize) -> &'static BigUint {
    const LEVELS: usize = usize::BITS as usize;
    static POWERS: [OnceLock<BigUint>; LEVELS] = [const { OnceLock::new() }; LEVELS];
    POWERS[level].get_or_init(|| match level {
        0 => BigUint::from(10u32).pow(DIRECT_DIGITS as u32),
        _ => {
            let below = power_of_ten_at(level - 1);
            below * below
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_numbers_read_as_num_bigint_reads_them() {
        let mut text = String::new();
        for i in 0..20_000 {
            text.push(char::from(b'0' + (i * 7 % 10) as u8));
            for len in [1, 2047, 2048, 2049, 4096, 4097, 9000, 20_000] {
                if text.len() == len {
                    let expected: BigInt = text.parse().unwrap();
                    assert_eq!(parse_decimal(&text), Some(expected.clone()), "{len} digits");
                    assert_eq!(parse_decimal(&format!("-{text}")), Some(-expected));
                }
            }
        }
    }

    #[test]
    fn signs_and_underscores() {
        assert_eq!(parse_decimal("+1_0").unwrap(), BigInt::from(10));
        assert_eq!(parse_decimal("-0").unwrap(), BigInt::from(0));
        for bad in ["", "-", "+", "_1", "-_1", "1.0", "1e3", " 1", "--1", "0x1"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn other_radixes() {
        assert_eq!(radix_to_decimal("777", 8), Ok("511".into()));
        assert_eq!(radix_to_decimal("1011", 2), Ok("11".into()));
        assert_eq!(radix_to_decimal("12", 2), Err(RadixError::NotADigit));
        let long = "f".repeat(900_000);
        assert!(matches!(
            radix_to_decimal(&long, 16),
            Err(RadixError::TooLong { digits }) if digits > MAX_INT_DIGITS
        ));
    }
}
