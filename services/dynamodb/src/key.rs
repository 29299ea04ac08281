//! An order-preserving byte encoding of key attribute values, so a byte-ordered store scans
//! items in DynamoDB's sort order: strings by UTF-8 bytes, numbers by value, binaries by
//! unsigned bytes.
//!
//! Encodings are self-delimiting, so a partition key and a sort key can be concatenated into
//! one storage key and still sort by (partition, sort):
//!
//! - `S` and `B`: the bytes with `00` escaped as `00 FF`, then the terminator `00 01` (a
//!   [`stratus_storage::tuple`] byte-string part);
//! - `N`: a sign byte (`01` negative, `02` zero, `03` positive); for non-zero numbers the
//!   leading digit's exponent offset by 130 (one byte, as the range is -130..=125), the
//!   digits as bytes `1..=10`, and the terminator `00`. Negative numbers invert every byte
//!   after the sign, so larger magnitudes sort first.
//!
//! ```
//! use stratus_service_dynamodb::key::{decode, encode, KeyType};
//! use stratus_service_dynamodb::AttributeValue;
//! let nine = encode(&AttributeValue::N("9".into())).unwrap();
//! let ten = encode(&AttributeValue::N("10".into())).unwrap();
//! assert!(nine < ten);
//! assert_eq!(decode(KeyType::N, &ten).unwrap(), (AttributeValue::N("10".into()), ten.len()));
//! ```

use stratus_storage::tuple;

use crate::number::{Number, NumberError};
use crate::AttributeValue;

/// The three types a key attribute may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KeyType {
    S,
    N,
    B,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("key attributes must be of type S, N or B, not {0}")]
    NotScalar(&'static str),
    #[error("{0}")]
    Number(#[from] NumberError),
    #[error("the stored key is malformed")]
    Malformed,
}

const NEGATIVE: u8 = 0x01;
const ZERO: u8 = 0x02;
const POSITIVE: u8 = 0x03;
const EXPONENT_OFFSET: i32 = 130;

/// The encoding of one key value.
pub fn encode(value: &AttributeValue) -> Result<Vec<u8>, KeyError> {
    let mut out = Vec::new();
    encode_into(value, &mut out)?;
    Ok(out)
}

/// Appends the encoding of `value` to `out`.
pub fn encode_into(value: &AttributeValue, out: &mut Vec<u8>) -> Result<(), KeyError> {
    match value {
        AttributeValue::S(text) => tuple::push_bytes(out, text.as_bytes()),
        AttributeValue::B(bytes) => tuple::push_bytes(out, bytes),
        AttributeValue::N(text) => encode_number(&text.parse()?, out),
        other => return Err(KeyError::NotScalar(crate::value::type_name(other))),
    }
    Ok(())
}

fn encode_number(number: &Number, out: &mut Vec<u8>) {
    if number.is_zero() {
        out.push(ZERO);
        return;
    }
    let flip = if number.is_negative() { 0xff } else { 0 };
    out.push(if number.is_negative() { NEGATIVE } else { POSITIVE });
    out.push((number.adjusted_exponent() + EXPONENT_OFFSET) as u8 ^ flip);
    out.extend(number.digits().map(|d| (d + 1) ^ flip));
    out.push(flip);
}

/// Decodes one key value of type `kind` from the front of `bytes`, returning it and the
/// number of bytes it took.
pub fn decode(kind: KeyType, bytes: &[u8]) -> Result<(AttributeValue, usize), KeyError> {
    match kind {
        KeyType::S => {
            let (raw, used) = decode_bytes(bytes)?;
            let text = String::from_utf8(raw).map_err(|_| KeyError::Malformed)?;
            Ok((AttributeValue::S(text), used))
        }
        KeyType::B => {
            let (raw, used) = decode_bytes(bytes)?;
            Ok((AttributeValue::B(raw), used))
        }
        KeyType::N => {
            let (number, used) = decode_number(bytes)?;
            Ok((AttributeValue::N(number.to_string()), used))
        }
    }
}

fn decode_bytes(bytes: &[u8]) -> Result<(Vec<u8>, usize), KeyError> {
    tuple::read_bytes(bytes).ok_or(KeyError::Malformed)
}

fn decode_number(bytes: &[u8]) -> Result<(Number, usize), KeyError> {
    let negative = match bytes.first() {
        Some(&ZERO) => return Ok((Number::ZERO, 1)),
        Some(&NEGATIVE) => true,
        Some(&POSITIVE) => false,
        _ => return Err(KeyError::Malformed),
    };
    let flip = if negative { 0xff } else { 0 };
    let exponent = i32::from(*bytes.get(1).ok_or(KeyError::Malformed)? ^ flip) - EXPONENT_OFFSET;
    let mut digits = [0u8; crate::number::MAX_DIGITS as usize];
    for (count, &byte) in bytes[2..].iter().enumerate() {
        let digit = byte ^ flip;
        if digit == 0 {
            let number = Number::from_digits(negative, &digits[..count], exponent).map_err(|_| KeyError::Malformed)?;
            return Ok((number, 2 + count + 1));
        }
        if count == digits.len() || digit > 10 {
            return Err(KeyError::Malformed);
        }
        digits[count] = digit - 1;
    }
    Err(KeyError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::compare;
    use std::cmp::Ordering;
    use stratus_test_support::Rng;

    fn random_number(rng: &mut Rng) -> AttributeValue {
        let digits: String = (0..1 + rng.below(38))
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect();
        let sign = if rng.below(2) == 0 { "-" } else { "" };
        let exponent = rng.below(200) as i64 - 100;
        AttributeValue::N(format!("{sign}{digits}e{exponent}"))
    }

    fn random_bytes(rng: &mut Rng) -> Vec<u8> {
        // A small alphabet with 0x00 and 0xff makes shared prefixes and escapes common.
        let alphabet = [0u8, 1, 0x7f, 0x80, 0xff, b'a'];
        (0..rng.below(6)).map(|_| alphabet[rng.below(alphabet.len())]).collect()
    }

    fn random_string(rng: &mut Rng) -> AttributeValue {
        let alphabet = ["\0", "a", "b", "Z", "é", "\u{ffff}", "😀"];
        AttributeValue::S((0..rng.below(5)).map(|_| alphabet[rng.below(alphabet.len())]).collect())
    }

    fn assert_order_preserved(a: &AttributeValue, b: &AttributeValue) {
        let (ea, eb) = (encode(a).unwrap(), encode(b).unwrap());
        assert_eq!(ea.cmp(&eb), compare(a, b).unwrap(), "{a:?} vs {b:?}");
    }

    #[test]
    fn byte_order_is_dynamodb_order_for_random_pairs() {
        let mut rng = Rng(0x5eed_1234);
        for _ in 0..20_000 {
            let (a, b) = match rng.below(3) {
                0 => {
                    let number = random_number(&mut rng);
                    let other = if rng.below(4) == 0 {
                        number.clone()
                    } else {
                        random_number(&mut rng)
                    };
                    (number, other)
                }
                1 => (
                    AttributeValue::B(random_bytes(&mut rng)),
                    AttributeValue::B(random_bytes(&mut rng)),
                ),
                _ => (random_string(&mut rng), random_string(&mut rng)),
            };
            if matches!(&a, AttributeValue::N(t) if t.parse::<Number>().is_err())
                || matches!(&b, AttributeValue::N(t) if t.parse::<Number>().is_err())
            {
                continue;
            }
            assert_order_preserved(&a, &b);
        }
    }

    #[test]
    fn composite_keys_sort_by_partition_then_sort_key() {
        let composite = |pk: &str, sk: &str| {
            let mut key = encode(&AttributeValue::S(pk.into())).unwrap();
            encode_into(&AttributeValue::N(sk.into()), &mut key).unwrap();
            key
        };
        assert!(composite("a", "100") < composite("a\0", "-5"));
        assert!(composite("a", "-1") < composite("a", "0"));
        assert!(composite("a", "9") < composite("ab", "-100"));
    }

    #[test]
    fn decodes_what_it_encodes() {
        let mut rng = Rng(99);
        for _ in 0..2_000 {
            let (value, kind) = match rng.below(3) {
                0 => (random_number(&mut rng), KeyType::N),
                1 => (AttributeValue::B(random_bytes(&mut rng)), KeyType::B),
                _ => (random_string(&mut rng), KeyType::S),
            };
            let Ok(mut encoded) = encode(&value) else { continue };
            let length = encoded.len();
            encoded.extend_from_slice(b"trailing");
            let (decoded, used) = decode(kind, &encoded).unwrap();
            assert_eq!(used, length);
            assert_eq!(compare(&decoded, &value), Some(Ordering::Equal));
        }
    }

    #[test]
    fn numbers_decode_to_canonical_text() {
        let encoded = encode(&AttributeValue::N("0.10".into())).unwrap();
        assert_eq!(decode(KeyType::N, &encoded).unwrap().0, AttributeValue::N("0.1".into()));
    }

    #[test]
    fn refuses_non_key_types_and_garbage() {
        assert_eq!(encode(&AttributeValue::Bool(true)), Err(KeyError::NotScalar("BOOL")));
        assert_eq!(decode(KeyType::S, b"abc"), Err(KeyError::Malformed));
        assert_eq!(decode(KeyType::S, &[0xff, 0xfe, 0, 1]), Err(KeyError::Malformed));
        assert_eq!(decode(KeyType::N, &[POSITIVE, 200, 5]), Err(KeyError::Malformed));
        assert_eq!(decode(KeyType::N, &[9]), Err(KeyError::Malformed));
    }
}
