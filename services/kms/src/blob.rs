//! The ciphertext blob of a symmetric key: it names its key and key material, so Decrypt
//! needs no KeyId and a rotated key still decrypts what its older material encrypted.
//!
//! ```text
//! version (1) | key id length (1) | key id | material id (32) | nonce (12) | AES-GCM ciphertext and tag
//! ```
//!
//! Everything before the ciphertext, and the encryption context, is the GCM additional
//! data: a blob whose header was edited, or decrypted with another context, fails its tag.

use std::collections::BTreeMap;

use crate::crypto::{NONCE_LEN, TAG_LEN};

const VERSION: u8 = 1;
/// The bytes of a material id.
pub(crate) const MATERIAL_ID_LEN: usize = 32;
/// The longest key id (`mrk-` and 32 hex digits is the longest KMS makes).
const MAX_KEY_ID: usize = 64;

/// A decoded blob, borrowing the bytes it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blob<'a> {
    pub(crate) key_id: &'a str,
    pub(crate) material_id: [u8; MATERIAL_ID_LEN],
    pub(crate) nonce: [u8; NONCE_LEN],
    /// The header, which is part of the additional data.
    pub(crate) header: &'a [u8],
    pub(crate) sealed: &'a [u8],
}

/// The header of a blob for `key_id`'s material `material_id`, with `nonce`.
pub(crate) fn header(key_id: &str, material_id: &[u8; MATERIAL_ID_LEN], nonce: &[u8; NONCE_LEN]) -> Vec<u8> {
    debug_assert!(!key_id.is_empty() && key_id.len() <= MAX_KEY_ID);
    let mut out = Vec::with_capacity(2 + key_id.len() + MATERIAL_ID_LEN + NONCE_LEN);
    out.push(VERSION);
    out.push(key_id.len() as u8);
    out.extend_from_slice(key_id.as_bytes());
    out.extend_from_slice(material_id);
    out.extend_from_slice(nonce);
    out
}

/// Reads a blob; `None` for anything that is not one (the caller answers
/// `InvalidCiphertextException`).
pub(crate) fn decode(bytes: &[u8]) -> Option<Blob<'_>> {
    let (&version, rest) = bytes.split_first()?;
    if version != VERSION {
        return None;
    }
    let (&id_len, rest) = rest.split_first()?;
    let id_len = usize::from(id_len);
    if id_len == 0 || id_len > MAX_KEY_ID || rest.len() < id_len + MATERIAL_ID_LEN + NONCE_LEN + TAG_LEN {
        return None;
    }
    let (key_id, rest) = rest.split_at(id_len);
    let key_id = std::str::from_utf8(key_id).ok()?;
    let (material_id, rest) = rest.split_at(MATERIAL_ID_LEN);
    let (nonce, sealed) = rest.split_at(NONCE_LEN);
    let header_len = 2 + id_len + MATERIAL_ID_LEN + NONCE_LEN;
    Some(Blob {
        key_id,
        material_id: material_id.try_into().ok()?,
        nonce: nonce.try_into().ok()?,
        header: &bytes[..header_len],
        sealed,
    })
}

/// The additional data of a blob: its header, then each context pair, length-prefixed, in
/// key order (the map's), so that equal contexts give equal bytes whatever order they came in.
pub(crate) fn additional_data(header: &[u8], context: &BTreeMap<String, String>) -> Vec<u8> {
    let mut out = header.to_vec();
    for (k, v) in context {
        for part in [k, v] {
            out.extend_from_slice(&(part.len() as u32).to_be_bytes());
            out.extend_from_slice(part.as_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{mutate, Rng};

    use super::*;

    fn sample() -> Vec<u8> {
        let mut blob = header(
            "1234abcd-12ab-34cd-56ef-1234567890ab",
            &[9; MATERIAL_ID_LEN],
            &[3; NONCE_LEN],
        );
        blob.extend_from_slice(&[0xAA; TAG_LEN + 5]);
        blob
    }

    #[test]
    fn reads_back_what_it_writes() {
        let bytes = sample();
        let blob = decode(&bytes).unwrap();
        assert_eq!(blob.key_id, "1234abcd-12ab-34cd-56ef-1234567890ab");
        assert_eq!(blob.material_id, [9; MATERIAL_ID_LEN]);
        assert_eq!(blob.sealed.len(), TAG_LEN + 5);
        assert_eq!(blob.header.len() + blob.sealed.len(), bytes.len());
    }

    #[test]
    fn refuses_truncations() {
        let bytes = sample();
        for n in 0..bytes.len() - 5 {
            assert_eq!(decode(&bytes[..n]), None, "{n} bytes");
        }
    }

    /// Property: random bytes and mutations of a real blob never panic the decoder, and
    /// whatever it accepts holds together (seeded, so a failure reproduces).
    #[test]
    fn never_panics_on_random_or_mutated_bytes() {
        let seed = sample();
        let tokens: &[&[u8]] = &[
            &[VERSION],
            &[0],
            &[0xFF],
            &[64],
            &[65],
            b"mrk-",
            b"\xc3\xa9",
            b"\xff\xfe",
        ];
        let mut rng = Rng(0x6b6d_735f_626c_6f62);
        for _ in 0..20_000 {
            let bytes = if rng.below(2) == 0 {
                mutate(&mut rng, &seed, tokens)
            } else {
                (0..rng.below(120)).map(|_| rng.next_u64() as u8).collect()
            };
            if let Some(blob) = decode(&bytes) {
                assert!(blob.sealed.len() >= TAG_LEN);
                assert_eq!(blob.header.len() + blob.sealed.len(), bytes.len());
            }
        }
    }

    #[test]
    fn context_order_does_not_matter_but_content_does() {
        let a: BTreeMap<String, String> = [("b".into(), "2".into()), ("a".into(), "1".into())].into();
        let b: BTreeMap<String, String> = [("a".into(), "1".into()), ("b".into(), "2".into())].into();
        assert_eq!(additional_data(b"h", &a), additional_data(b"h", &b));
        let c: BTreeMap<String, String> = [("a".into(), "1b".into()), ("".into(), "2".into())].into();
        assert_ne!(additional_data(b"h", &a), additional_data(b"h", &c));
    }
}
