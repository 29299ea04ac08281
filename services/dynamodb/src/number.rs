//! DynamoDB numbers: exact decimals of up to 38 significant digits whose magnitude lies in
//! 1E-130 ..= 9.9999999999999999999999999999999999999E+125 (or zero).
//!
//! A [`Number`] is normalised on parse, so `0.10`, `0.1` and `1e-1` are the same value and
//! print the same way, as DynamoDB returns them: plain notation, no exponent, trailing zeros
//! trimmed.
//!
//! ```
//! use stratus_service_dynamodb::number::Number;
//! let a: Number = "0.10".parse().unwrap();
//! let b: Number = "1e-1".parse().unwrap();
//! assert_eq!(a, b);
//! assert_eq!(a.to_string(), "0.1");
//! assert_eq!(a.add(&b).unwrap().to_string(), "0.2");
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Most significant digits a number may carry.
pub const MAX_DIGITS: u32 = 38;
/// Largest adjusted exponent (the exponent of the leading digit).
const MAX_ADJUSTED_EXPONENT: i64 = 125;
/// Smallest adjusted exponent.
const MIN_ADJUSTED_EXPONENT: i64 = -130;

/// Why a string is not a DynamoDB number; `Display` is AWS's ValidationException message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("The parameter cannot be converted to a numeric value")]
    Empty,
    #[error("The parameter cannot be converted to a numeric value: {0}")]
    NotNumeric(String),
    #[error("Attempting to store more than 38 significant digits in a Number")]
    TooPrecise,
    #[error("Number overflow. Attempting to store a number with magnitude larger than supported range")]
    Overflow,
    #[error("Number underflow. Attempting to store a number with magnitude smaller than supported range")]
    Underflow,
}

/// A normalised DynamoDB number: `±mantissa × 10^exponent`, the mantissa without trailing
/// zeros (so every value has exactly one representation) and zero never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Number {
    negative: bool,
    mantissa: u128,
    exponent: i32,
}

impl Number {
    pub const ZERO: Number = Number {
        negative: false,
        mantissa: 0,
        exponent: 0,
    };

    /// Builds and range-checks a number from an unnormalised mantissa and exponent.
    fn normalised(negative: bool, mut mantissa: u128, mut exponent: i64) -> Result<Number, NumberError> {
        if mantissa == 0 {
            return Ok(Number::ZERO);
        }
        while mantissa.is_multiple_of(10) {
            mantissa /= 10;
            exponent += 1;
        }
        let digits = digit_count(mantissa);
        if digits > MAX_DIGITS {
            return Err(NumberError::TooPrecise);
        }
        let adjusted = exponent + i64::from(digits) - 1;
        if adjusted > MAX_ADJUSTED_EXPONENT {
            return Err(NumberError::Overflow);
        }
        if adjusted < MIN_ADJUSTED_EXPONENT {
            return Err(NumberError::Underflow);
        }
        Ok(Number {
            negative,
            mantissa,
            exponent: exponent as i32,
        })
    }

    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// The significant digits, without leading or trailing zeros (`0` has none).
    pub fn significant_digits(&self) -> u32 {
        if self.mantissa == 0 {
            0
        } else {
            digit_count(self.mantissa)
        }
    }

    /// The exponent of the leading digit: 2 for 123, -1 for 0.5.
    pub fn adjusted_exponent(&self) -> i32 {
        self.exponent + self.significant_digits() as i32 - 1
    }

    /// The significant digits, most significant first, as values 0..=9.
    pub fn digits(&self) -> impl Iterator<Item = u8> {
        let count = self.significant_digits();
        let mantissa = self.mantissa;
        (0..count).rev().map(move |i| ((mantissa / 10u128.pow(i)) % 10) as u8)
    }

    /// Builds a number from digits (most significant first) and the leading digit's exponent;
    /// the inverse of [`Number::digits`] and [`Number::adjusted_exponent`].
    pub fn from_digits(negative: bool, digits: &[u8], adjusted_exponent: i32) -> Result<Number, NumberError> {
        if digits.len() > MAX_DIGITS as usize || digits.iter().any(|&d| d > 9) {
            return Err(NumberError::TooPrecise);
        }
        let mantissa = digits.iter().fold(0u128, |m, &d| m * 10 + u128::from(d));
        let exponent = i64::from(adjusted_exponent) - digits.len() as i64 + 1;
        Number::normalised(negative, mantissa, exponent)
    }

    pub fn negate(&self) -> Number {
        Number {
            negative: !self.negative && !self.is_zero(),
            ..*self
        }
    }

    /// The exact sum; fails when it needs more than 38 digits or leaves the range.
    pub fn add(&self, other: &Number) -> Result<Number, NumberError> {
        if self.is_zero() {
            return Ok(*other);
        }
        if other.is_zero() {
            return Ok(*self);
        }
        let (high, low) = if self.exponent >= other.exponent {
            (self, other)
        } else {
            (other, self)
        };
        let shift = (high.exponent - low.exponent) as u32;
        // With distinct exponents the lowest non-zero digit of the result is the low operand's,
        // so an aligned mantissa past u128 already means more than 38 significant digits.
        let aligned = 10u128
            .checked_pow(shift)
            .and_then(|scale| high.mantissa.checked_mul(scale))
            .ok_or(NumberError::TooPrecise)?;
        let (negative, mantissa) = if high.negative == low.negative {
            (
                high.negative,
                aligned.checked_add(low.mantissa).ok_or(NumberError::TooPrecise)?,
            )
        } else if aligned >= low.mantissa {
            (high.negative, aligned - low.mantissa)
        } else {
            (low.negative, low.mantissa - aligned)
        };
        Number::normalised(negative, mantissa, i64::from(low.exponent))
    }

    pub fn sub(&self, other: &Number) -> Result<Number, NumberError> {
        self.add(&other.negate())
    }

    fn cmp_magnitude(&self, other: &Number) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        self.adjusted_exponent().cmp(&other.adjusted_exponent()).then_with(|| {
            // Same leading exponent: compare the digit strings left-aligned.
            let (a, b) = (self.significant_digits(), other.significant_digits());
            let width = a.max(b);
            let left = self.mantissa * 10u128.pow(width - a);
            let right = other.mantissa * 10u128.pow(width - b);
            left.cmp(&right)
        })
    }
}

fn digit_count(mut n: u128) -> u32 {
    let mut count = 1;
    while n >= 10 {
        n /= 10;
        count += 1;
    }
    count
}

impl Ord for Number {
    fn cmp(&self, other: &Number) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, other: &Number) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Parses Java `BigDecimal` syntax, which DynamoDB accepts: an optional sign, digits with an
/// optional point (`5.`, `.5`), an optional exponent (`e`/`E`, optional sign).
impl FromStr for Number {
    type Err = NumberError;

    fn from_str(text: &str) -> Result<Number, NumberError> {
        let not_numeric = || NumberError::NotNumeric(text.to_owned());
        if text.is_empty() {
            return Err(NumberError::Empty);
        }
        let bytes = text.as_bytes();
        let mut at = 0;
        let negative = match bytes[0] {
            b'-' => {
                at = 1;
                true
            }
            b'+' => {
                at = 1;
                false
            }
            _ => false,
        };
        let mut mantissa: u128 = 0;
        let mut digits = 0u32;
        // Zeros seen after the last non-zero digit, not yet multiplied into the mantissa.
        let mut pending_zeros = 0u32;
        let mut fraction_digits = 0i64;
        let mut seen_digit = false;
        let mut seen_point = false;
        while at < bytes.len() {
            match bytes[at] {
                b'0'..=b'9' => {
                    seen_digit = true;
                    let digit = bytes[at] - b'0';
                    if seen_point {
                        fraction_digits += 1;
                    }
                    if digit == 0 {
                        if digits > 0 {
                            pending_zeros += 1;
                        }
                    } else {
                        if digits + pending_zeros + 1 > MAX_DIGITS {
                            return Err(NumberError::TooPrecise);
                        }
                        mantissa = mantissa * 10u128.pow(pending_zeros + 1) + u128::from(digit);
                        digits += pending_zeros + 1;
                        pending_zeros = 0;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                b'e' | b'E' => break,
                _ => return Err(not_numeric()),
            }
            at += 1;
        }
        if !seen_digit {
            return Err(not_numeric());
        }
        let mut exponent: i64 = 0;
        if at < bytes.len() {
            let rest = &text[at + 1..];
            let unsigned = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return Err(not_numeric());
            }
            // Saturate: anything this far out is out of range whatever the digits say.
            let magnitude = unsigned
                .bytes()
                .fold(0i64, |e, b| (e * 10 + i64::from(b - b'0')).min(1 << 40));
            exponent = if rest.starts_with('-') { -magnitude } else { magnitude };
        }
        Number::normalised(
            negative,
            mantissa,
            exponent + i64::from(pending_zeros) - fraction_digits,
        )
    }
}

/// Plain notation, as DynamoDB returns numbers: `100`, `0.001`, `-1.5`.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        if self.negative {
            f.write_str("-")?;
        }
        let digits = self.mantissa.to_string();
        if self.exponent >= 0 {
            f.write_str(&digits)?;
            for _ in 0..self.exponent {
                f.write_str("0")?;
            }
            return Ok(());
        }
        let fraction = (-self.exponent) as usize;
        if fraction >= digits.len() {
            f.write_str("0.")?;
            for _ in 0..fraction - digits.len() {
                f.write_str("0")?;
            }
            f.write_str(&digits)
        } else {
            let (whole, part) = digits.split_at(digits.len() - fraction);
            write!(f, "{whole}.{part}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Number {
        text.parse().unwrap()
    }

    #[test]
    fn equal_values_print_alike() {
        for text in ["0.10", "0.1", "1e-1", "1E-1", ".1", "+0.1", "0.100000", "10e-2"] {
            assert_eq!(n(text).to_string(), "0.1", "{text}");
        }
        assert_eq!(n("100").to_string(), "100");
        assert_eq!(n("1e2").to_string(), "100");
        assert_eq!(n("5.").to_string(), "5");
        assert_eq!(n("-0").to_string(), "0");
        assert_eq!(n("-0.0e5").to_string(), "0");
        assert_eq!(n("-1.50").to_string(), "-1.5");
        assert_eq!(n("0.00012300").to_string(), "0.000123");
        assert_eq!(n("12.034").to_string(), "12.034");
        assert_eq!(n("1e-130").to_string(), format!("0.{}1", "0".repeat(129)));
    }

    // The messages and limits below are the ones dynalite records from DynamoDB
    // (mhart/dynalite test/scan.js, "empty/invalid numbers").
    #[test]
    fn refuses_what_aws_refuses() {
        assert_eq!("".parse::<Number>(), Err(NumberError::Empty));
        for bad in [
            "b", "1e", "1.2.3", "--1", "e5", ".", "1e+", " 1", "NaN", "Infinity", "0x10", "1_000",
        ] {
            assert_eq!(bad.parse::<Number>(), Err(NumberError::NotNumeric(bad.into())), "{bad}");
        }
        assert_eq!(
            NumberError::NotNumeric("b".into()).to_string(),
            "The parameter cannot be converted to a numeric value: b"
        );
        assert_eq!(
            "123456789012345678901234567890123456789".parse::<Number>(),
            Err(NumberError::TooPrecise)
        );
        assert_eq!(
            "-1.23456789012345678901234567890123456789".parse::<Number>(),
            Err(NumberError::TooPrecise)
        );
        assert_eq!("1e126".parse::<Number>(), Err(NumberError::Overflow));
        assert_eq!("-1e126".parse::<Number>(), Err(NumberError::Overflow));
        assert_eq!("1e-131".parse::<Number>(), Err(NumberError::Underflow));
        assert_eq!("-1e-131".parse::<Number>(), Err(NumberError::Underflow));
        assert_eq!("1e99999999999999999999".parse::<Number>(), Err(NumberError::Overflow));
        assert_eq!(
            NumberError::TooPrecise.to_string(),
            "Attempting to store more than 38 significant digits in a Number"
        );
    }

    #[test]
    fn accepts_the_range_edges() {
        let max = format!("9.{}E+125", "9".repeat(37));
        assert_eq!(n(&max).significant_digits(), 38);
        assert_eq!(n("1e-130").adjusted_exponent(), -130);
        // Trailing zeros are not significant: 38 ones then 88 zeros is in range.
        assert_eq!(
            n(&format!("{}{}", "1".repeat(38), "0".repeat(88))).significant_digits(),
            38
        );
        assert_eq!(n(&format!("0.{}1", "0".repeat(100))).adjusted_exponent(), -101);
    }

    #[test]
    fn orders_numerically() {
        let sorted = [
            "-1e10", "-10", "-1.5", "-1", "-0.001", "0", "1e-130", "0.5", "1", "1.0001", "2", "10", "1e125",
        ];
        for pair in sorted.windows(2) {
            assert!(n(pair[0]) < n(pair[1]), "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(n("1.0").cmp(&n("1")), Ordering::Equal);
    }

    #[test]
    fn adds_and_subtracts_exactly() {
        assert_eq!(n("0.1").add(&n("0.2")).unwrap().to_string(), "0.3");
        assert_eq!(n("1.5").add(&n("0.5")).unwrap().to_string(), "2");
        assert_eq!(n("5").sub(&n("7")).unwrap().to_string(), "-2");
        assert_eq!(n("-5").add(&n("5")).unwrap().to_string(), "0");
        assert_eq!(
            n("1e40")
                .sub(&n(&format!("9.{}e39", "9".repeat(37))))
                .unwrap()
                .to_string(),
            "100"
        );
        assert_eq!(n("0").sub(&n("3")).unwrap().to_string(), "-3");
        assert_eq!(n("1e18").add(&n("1e-19")).unwrap().significant_digits(), 38);
    }

    #[test]
    fn arithmetic_that_leaves_the_range_fails() {
        assert_eq!(n("1e30").add(&n("1e-30")), Err(NumberError::TooPrecise));
        assert_eq!(
            n("1e125").add(&n(&format!("9.{}e125", "9".repeat(37)))),
            Err(NumberError::TooPrecise)
        );
        assert_eq!(n("9e125").add(&n("9e125")), Err(NumberError::Overflow));
        assert_eq!(n("1e-130").sub(&n("1.1e-130")), Err(NumberError::Underflow));
    }

    fn random(rng: &mut stratus_test_support::Rng) -> Number {
        let digits: String = (0..1 + rng.below(20))
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect();
        let sign = if rng.below(2) == 0 { "-" } else { "" };
        format!("{sign}{digits}e{}", rng.below(40) as i64 - 20).parse().unwrap()
    }

    #[test]
    fn arithmetic_agrees_with_ordering_and_printing() {
        let mut rng = stratus_test_support::Rng(42);
        for _ in 0..20_000 {
            let (a, b) = (random(&mut rng), random(&mut rng));
            assert_eq!(a.to_string().parse::<Number>(), Ok(a));
            let Ok(sum) = a.add(&b) else { continue };
            assert_eq!(b.add(&a), Ok(sum));
            assert_eq!(sum.sub(&b), Ok(a), "{a} + {b} = {sum}");
            let difference = a.sub(&b).unwrap();
            let expected = if difference.is_zero() {
                Ordering::Equal
            } else if difference.is_negative() {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            assert_eq!(a.cmp(&b), expected, "{a} vs {b}");
        }
    }

    #[test]
    fn digits_round_trip() {
        for text in ["123.45", "-0.001", "1e100", "7"] {
            let number = n(text);
            let digits: Vec<u8> = number.digits().collect();
            let back = Number::from_digits(number.is_negative(), &digits, number.adjusted_exponent()).unwrap();
            assert_eq!(back, number);
        }
    }
}
