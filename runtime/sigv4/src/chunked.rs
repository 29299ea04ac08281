//! The signatures inside an aws-chunked body (`x-amz-content-sha256:
//! STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER]`): each chunk's signature signs the chunk's
//! hash and the signature before it, starting from the request's own ("seed") signature, so
//! chunks can be neither changed nor reordered; a trailer's signature signs its header lines
//! the same way (Amazon S3 API Reference, "Signature calculations for the Authorization
//! header: transferring payload in multiple chunks" and "… trailing headers").
//!
//! ```text
//! AWS4-HMAC-SHA256-PAYLOAD\n<timestamp>\n<scope>\n<previous signature>\n<sha256("")>\n<sha256(chunk)>
//! AWS4-HMAC-SHA256-TRAILER\n<timestamp>\n<scope>\n<previous signature>\n<sha256(trailer lines)>
//! ```

use stratus_core::hex;

use crate::crypto::{constant_time_eq, hmac_sha256, sha256, unhex32};
use crate::error::{Error, Mismatch};

const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// The chain of chunk signatures of one aws-chunked body, from the request's seed signature.
/// Feed it each chunk (the last one empty) and then, for a `-TRAILER` body, the trailer.
#[derive(Debug, Clone)]
pub struct ChunkSignatures {
    key: [u8; 32],
    access_key_id: String,
    timestamp: String,
    scope: String,
    previous: [u8; 32],
    trailer: bool,
}

impl ChunkSignatures {
    /// The chain of a body signed with `signing_key` under `timestamp` (`yyyyMMdd'T'HHmmss'Z'`)
    /// and `scope` (`date/region/service/aws4_request`), starting from `seed`, the request's
    /// signature. [`Verified::body`](crate::Verified::body) builds it for a verified request.
    pub fn new(
        signing_key: [u8; 32],
        access_key_id: &str,
        timestamp: &str,
        scope: &str,
        seed: [u8; 32],
        trailer: bool,
    ) -> ChunkSignatures {
        ChunkSignatures {
            key: signing_key,
            access_key_id: access_key_id.to_string(),
            timestamp: timestamp.to_string(),
            scope: scope.to_string(),
            previous: seed,
            trailer,
        }
    }

    /// Whether the body ends in a signed trailer (`…-PAYLOAD-TRAILER`).
    pub fn expects_trailer(&self) -> bool {
        self.trailer
    }

    /// Checks the next chunk, whole; see [`ChunkSignatures::verify_chunk_digest`] for one
    /// hashed as it streams.
    pub fn verify_chunk(&mut self, data: &[u8], signature: &str) -> Result<(), Error> {
        self.verify_chunk_digest(sha256(data), signature)
    }

    /// Checks the next chunk by its SHA-256 against its `chunk-signature` (hex).
    pub fn verify_chunk_digest(&mut self, chunk_sha256: [u8; 32], signature: &str) -> Result<(), Error> {
        let mut tail = Vec::with_capacity(64 + 1 + 64);
        tail.extend_from_slice(EMPTY_SHA256.as_bytes());
        tail.push(b'\n');
        hex::append(&mut tail, &chunk_sha256);
        self.advance("AWS4-HMAC-SHA256-PAYLOAD", &tail, signature)
    }

    /// Checks the trailer's `x-amz-trailer-signature` (hex) over its header lines, as sent
    /// (names in any case and order; values are trimmed).
    pub fn verify_trailer(&mut self, trailers: &[(&str, &str)], signature: &str) -> Result<(), Error> {
        let mut sorted: Vec<(String, &str)> = trailers
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v.trim()))
            .collect();
        sorted.sort();
        let mut lines = Vec::new();
        for (name, value) in &sorted {
            lines.extend_from_slice(name.as_bytes());
            lines.push(b':');
            lines.extend_from_slice(value.as_bytes());
            lines.push(b'\n');
        }
        let mut tail = Vec::with_capacity(64);
        hex::append(&mut tail, &sha256(&lines));
        self.advance("AWS4-HMAC-SHA256-TRAILER", &tail, signature)
    }

    fn advance(&mut self, algorithm: &str, tail: &[u8], provided: &str) -> Result<(), Error> {
        let mut string_to_sign = Vec::with_capacity(algorithm.len() + self.timestamp.len() + self.scope.len() + 200);
        for part in [algorithm.as_bytes(), self.timestamp.as_bytes(), self.scope.as_bytes()] {
            string_to_sign.extend_from_slice(part);
            string_to_sign.push(b'\n');
        }
        hex::append(&mut string_to_sign, &self.previous);
        string_to_sign.push(b'\n');
        string_to_sign.extend_from_slice(tail);
        let expected = hmac_sha256(&self.key, &string_to_sign);
        let provided_bytes = unhex32(provided.trim());
        if provided_bytes.is_some_and(|p| constant_time_eq(&p, &expected)) {
            self.previous = expected;
            return Ok(());
        }
        Err(Error::mismatch(Mismatch {
            access_key_id: self.access_key_id.clone(),
            signature_provided: provided.to_string(),
            string_to_sign: String::from_utf8_lossy(&string_to_sign).into_owned(),
            canonical_request: None,
        }))
    }

    /// The last signature checked (the seed before any chunk), hex.
    pub fn previous_signature(&self) -> String {
        hex::encode(&self.previous)
    }
}
