//! Access key ids as AWS writes them: a four-letter kind (`AKIA` for a user's long-term key,
//! `ASIA` for temporary credentials) and sixteen base-32 characters that carry the owning
//! account.
//!
//! AWS encodes the account in bits 1–40 of the first six bytes the sixteen characters decode
//! to (STS's `GetAccessKeyInfo` reads it back without a lookup; the layout is public since
//! Tal Be'ery's "A short note on AWS KEY ID", 2023). Stratus's keys follow it, so the gateway
//! finds the store of a key's account from the key alone.
//!
//! ```
//! use stratus_core::access_key::{account_of, new_key_id};
//! let key = new_key_id("AKIA", "123456789012");
//! assert_eq!(account_of(&key).as_deref(), Some("123456789012"));
//! assert_eq!(account_of("ASIAY34FZKBOKMUTVV7A").as_deref(), Some("609629065308"));
//! ```

use crate::id::random_u64;

/// RFC 4648 base 32, the alphabet of the sixteen characters.
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Where the account sits in the 80 bits the characters decode to: bits 7–46 of the top 48.
const ACCOUNT_SHIFT: u32 = 32 + 7;
const ACCOUNT_MASK: u128 = ((1 << 40) - 1) << ACCOUNT_SHIFT;

/// A new access key id of `kind` (`AKIA`, `ASIA`) for the 12-digit `account`; the bits that
/// do not carry the account are random.
pub fn new_key_id(kind: &str, account: &str) -> String {
    let account = u128::from(account.parse::<u64>().unwrap_or(0) & ((1 << 40) - 1));
    let random = (u128::from(random_u64()) << 16 | u128::from(random_u64() & 0xffff)) & ((1 << 80) - 1);
    let bits = (random & !ACCOUNT_MASK) | (account << ACCOUNT_SHIFT);
    let mut key = String::with_capacity(kind.len() + 16);
    key.push_str(kind);
    for i in (0..16).rev() {
        key.push(BASE32[((bits >> (5 * i)) & 31) as usize] as char);
    }
    key
}

/// The 12-digit account an access key id of AWS's form names, if `key` has that form: four
/// letters and sixteen base-32 characters.
pub fn account_of(key: &str) -> Option<String> {
    let bytes = key.as_bytes();
    if bytes.len() != 20 || !bytes[..4].iter().all(u8::is_ascii_uppercase) {
        return None;
    }
    let mut bits = 0u128;
    for &c in &bytes[4..] {
        let value = BASE32.iter().position(|&b| b == c)?;
        bits = bits << 5 | value as u128;
    }
    let account = (bits & ACCOUNT_MASK) >> ACCOUNT_SHIFT;
    Some(format!("{account:012}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_carry_their_account() {
        for account in ["000000000000", "000000000001", "123456789012", "999999999999"] {
            for kind in ["AKIA", "ASIA"] {
                let key = new_key_id(kind, account);
                assert_eq!(key.len(), 20, "{key}");
                assert!(key.starts_with(kind));
                assert!(key[4..].bytes().all(|c| BASE32.contains(&c)), "{key}");
                assert_eq!(account_of(&key).as_deref(), Some(account), "{key}");
            }
        }
        assert_ne!(new_key_id("AKIA", "123456789012"), new_key_id("AKIA", "123456789012"));
    }

    #[test]
    fn keys_not_of_aws_form_name_no_account() {
        for key in [
            "test",
            "AKIA",
            "123456789012",
            "akiaY34FZKBOKMUTVV7A",
            "ASIAY34FZKBOKMUTVV70",
            "ASIAY34FZKBOKMUTVV7AB",
        ] {
            assert_eq!(account_of(key), None, "{key}");
        }
    }
}
