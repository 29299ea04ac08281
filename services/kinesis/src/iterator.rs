//! Shard iterators: opaque to the client, sealed against editing ([`Token`]), and valid for
//! five minutes after they are issued (API reference, GetShardIterator: "A shard iterator
//! expires 5 minutes after it is returned to the requester").
//!
//! One carries the stream (its name and creation time, so a stream deleted and created again
//! does not read its predecessor's iterators), the shard, the counter reading continues at,
//! when it was issued, and a random nonce: two iterators are never the same text, as AWS's
//! never are.

use stratus_core::paging::Token;
use stratus_core::AwsError;

use crate::error::{invalid_argument, KinesisError};

const ITERATORS: Token = Token::for_listing("kinesis:ShardIterator");

/// How long an iterator may be used, in milliseconds.
pub(crate) const LIFETIME_MS: i64 = 5 * 60 * 1000;

/// Where a shard iterator points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShardIterator {
    pub stream: String,
    pub stream_created_ms: i64,
    pub shard: u32,
    /// Reading continues at the first record whose counter is at least this.
    pub from_counter: u64,
    pub issued_ms: i64,
    pub nonce: u64,
}

impl ShardIterator {
    pub(crate) fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(36 + self.stream.len());
        bytes.extend_from_slice(&self.nonce.to_be_bytes());
        bytes.extend_from_slice(&self.stream_created_ms.to_be_bytes());
        bytes.extend_from_slice(&self.shard.to_be_bytes());
        bytes.extend_from_slice(&self.from_counter.to_be_bytes());
        bytes.extend_from_slice(&self.issued_ms.to_be_bytes());
        bytes.extend_from_slice(self.stream.as_bytes());
        ITERATORS.encode(&bytes)
    }

    /// The iterator `text` is, if Stratus issued it. Surrounding double quotes are ignored,
    /// as AWS ignores them.
    pub(crate) fn decode(text: &str) -> Option<ShardIterator> {
        let text = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
        let bytes = ITERATORS.decode(text).ok()?;
        let (nonce, rest) = bytes.split_first_chunk::<8>()?;
        let (created, rest) = rest.split_first_chunk::<8>()?;
        let (shard, rest) = rest.split_first_chunk::<4>()?;
        let (from, rest) = rest.split_first_chunk::<8>()?;
        let (issued, name) = rest.split_first_chunk::<8>()?;
        Some(ShardIterator {
            stream: String::from_utf8(name.to_vec()).ok()?,
            stream_created_ms: i64::from_be_bytes(*created),
            shard: u32::from_be_bytes(*shard),
            from_counter: u64::from_be_bytes(*from),
            issued_ms: i64::from_be_bytes(*issued),
            nonce: u64::from_be_bytes(*nonce),
        })
    }

    /// Refuses an iterator used more than five minutes after it was issued, in AWS's words.
    pub(crate) fn check_fresh(&self, now_ms: i64) -> Result<(), KinesisError> {
        if now_ms - self.issued_ms <= LIFETIME_MS {
            return Ok(());
        }
        Err(AwsError::new(
            "ExpiredIteratorException",
            format!(
                "Iterator expired. The iterator was created at time {} while right now it is {} \
                 which is further in the future than the tolerated delay of {LIFETIME_MS} milliseconds.",
                self.issued_ms, now_ms
            ),
            400,
        )
        .into())
    }
}

pub(crate) fn invalid_iterator() -> KinesisError {
    invalid_argument("Invalid ShardIterator.")
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{mutate, Rng};

    use super::*;

    fn sample() -> ShardIterator {
        ShardIterator {
            stream: "orders".into(),
            stream_created_ms: 1_700_000_000_000,
            shard: 3,
            from_counter: 12,
            issued_ms: 1_700_000_100_000,
            nonce: 99,
        }
    }

    #[test]
    fn iterators_round_trip_with_or_without_quotes() {
        let text = sample().encode();
        assert_eq!(ShardIterator::decode(&text), Some(sample()));
        assert_eq!(ShardIterator::decode(&format!("\"{text}\"")), Some(sample()));
        // The longest stream name still fits the model's 512 characters.
        let long = ShardIterator {
            stream: "s".repeat(128),
            ..sample()
        };
        assert!(long.encode().len() <= 512);
    }

    #[test]
    fn iterators_expire_after_five_minutes() {
        let it = sample();
        assert!(it.check_fresh(it.issued_ms + LIFETIME_MS).is_ok());
        assert!(it.check_fresh(it.issued_ms + LIFETIME_MS + 1).is_err());
    }

    #[test]
    fn edited_iterators_are_refused_and_never_panic() {
        let seed = sample().encode();
        let mut rng = Rng(29);
        for _ in 0..5000 {
            let edited = mutate(&mut rng, seed.as_bytes(), &[b"0", b"f", b"\"", b"\xff"]);
            if let Ok(text) = std::str::from_utf8(&edited) {
                if text != seed {
                    let _ = ShardIterator::decode(text);
                }
            }
        }
        assert_eq!(ShardIterator::decode("AAAA"), None);
        assert_eq!(ShardIterator::decode(""), None);
    }
}
