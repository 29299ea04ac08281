//! SigV4's signing key — four HMACs chained from the secret over the scope's date, region and
//! service — and [`SigningKeys`], a cache of them: a client signs many requests with one key a
//! day, so the server derives it once.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::crypto::hmac_sha256;

/// The SigV4 signing key of `secret` for the scope `date/region/service/aws4_request`.
pub fn derive(secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
    let mut first = Vec::with_capacity(4 + secret.len());
    first.extend_from_slice(b"AWS4");
    first.extend_from_slice(secret.as_bytes());
    let k_date = hmac_sha256(&first, date.as_bytes());
    let k_region = hmac_sha256(&k_date, region.as_bytes());
    let k_service = hmac_sha256(&k_region, service.as_bytes());
    hmac_sha256(&k_service, b"aws4_request")
}

/// Signing keys already derived, by secret and scope. Share one between requests (it is
/// `Sync`); it holds at most its capacity of keys, and forgets them all when full (keys change
/// daily, so the working set is small and rebuilds in one request each).
#[derive(Debug)]
pub struct SigningKeys {
    keys: Mutex<HashMap<String, [u8; 32]>>,
    capacity: usize,
}

impl Default for SigningKeys {
    fn default() -> SigningKeys {
        SigningKeys::with_capacity(1024)
    }
}

impl SigningKeys {
    /// A cache of up to 1024 keys.
    pub fn new() -> SigningKeys {
        SigningKeys::default()
    }

    /// A cache of up to `capacity` keys; `0` derives every key afresh.
    pub fn with_capacity(capacity: usize) -> SigningKeys {
        SigningKeys {
            keys: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    /// The signing key of `secret` for `date/region/service`, derived at most once while cached.
    pub fn get(&self, secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
        if self.capacity == 0 {
            return derive(secret, date, region, service);
        }
        let mut id = String::with_capacity(secret.len() + date.len() + region.len() + service.len() + 3);
        for (i, part) in [secret, date, region, service].into_iter().enumerate() {
            if i > 0 {
                id.push('\0');
            }
            id.push_str(part);
        }
        if let Some(key) = self.keys.lock().unwrap_or_else(PoisonError::into_inner).get(&id) {
            return *key;
        }
        let key = derive(secret, date, region, service);
        let mut keys = self.keys.lock().unwrap_or_else(PoisonError::into_inner);
        if keys.len() >= self.capacity {
            keys.clear();
        }
        keys.insert(id, key);
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_core::hex;

    // AWS General Reference, "Examples of how to derive a signing key for Signature Version 4".
    #[test]
    fn documented_signing_key() {
        let key = derive(
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            "20120215",
            "us-east-1",
            "iam",
        );
        assert_eq!(
            hex::encode(&key),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
        );
    }

    #[test]
    fn cache_returns_the_derived_key() {
        let keys = SigningKeys::with_capacity(1);
        let a = keys.get("s", "20240101", "us-east-1", "s3");
        assert_eq!(a, derive("s", "20240101", "us-east-1", "s3"));
        assert_eq!(keys.get("s", "20240101", "us-east-1", "s3"), a);
        let b = keys.get("s", "20240102", "us-east-1", "s3");
        assert_ne!(a, b);
        assert_eq!(keys.get("s", "20240101", "us-east-1", "s3"), a);
        assert_eq!(SigningKeys::with_capacity(0).get("s", "20240101", "us-east-1", "s3"), a);
    }
}
