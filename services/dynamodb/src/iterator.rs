//! DynamoDB Streams' opaque strings: stream ARNs, shard ids, sequence numbers and shard
//! iterators.
//!
//! - A stream ARN is `arn:PARTITION:dynamodb:REGION:ACCOUNT:table/TABLE/stream/LABEL`.
//! - A stream has one shard, `shardId-` + its creation time in milliseconds (20 digits) + `-`
//!   + 8 hex digits derived from table and label, the shape of AWS's shard ids.
//! - Sequence numbers are the stream's record counter as 21 decimal digits (AWS's are decimal
//!   strings of 21 to 40 digits).
//! - A shard iterator is, as AWS's look, `STREAM_ARN|1|BASE64`: the payload holds the next
//!   sequence number to read and when the iterator was issued (iterators expire after 15
//!   minutes), and a digest over all of it, so an edited or made-up iterator is refused rather
//!   than misread.

use sha2::{Digest, Sha256};
use stratus_core::arn::Arn;

/// How long an iterator stays usable: AWS's 15 minutes.
pub const ITERATOR_LIFETIME_MS: i64 = 15 * 60 * 1000;

/// The ARN of stream `label` of table `table`.
pub fn stream_arn(region: &str, account: &str, table: &str, label: &str) -> String {
    Arn::new("dynamodb", region, account, &format!("table/{table}/stream/{label}")).to_string()
}

/// The table and label a stream ARN of this account and region names; `None` for anything
/// else.
pub fn parse_stream_arn(arn: &str, region: &str, account: &str) -> Option<(String, String)> {
    let arn = Arn::parse(arn).ok().filter(|a| a.is_in("dynamodb", region, account))?;
    let (table, label) = arn.resource.strip_prefix("table/")?.split_once("/stream/")?;
    let valid = |s: &str| !s.is_empty() && !s.contains('/');
    (valid(table) && valid(label)).then(|| (table.to_owned(), label.to_owned()))
}

/// The id of the one shard of stream `label` of table `table`, created at `created_ms`.
pub fn shard_id(table: &str, label: &str, created_ms: i64) -> String {
    let digest = Sha256::digest(format!("{table}\0{label}").as_bytes());
    format!(
        "shardId-{:020}-{}",
        created_ms.max(0),
        stratus_core::hex::encode(&digest[..4])
    )
}

/// A sequence number as the wire spells it.
pub fn format_sequence(sequence: u64) -> String {
    format!("{sequence:021}")
}

/// The counter a sequence number spells: decimal digits only, within `u64`.
pub fn parse_sequence(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = text.trim_start_matches('0');
    if digits.is_empty() {
        return Some(0);
    }
    digits.parse().ok()
}

/// A position in a stream's shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardIterator {
    pub stream_arn: String,
    /// The sequence number of the next record to read.
    pub next: u64,
    pub issued_ms: i64,
}

const VERSION: u8 = 1;

fn check(arn: &str, payload: &[u8]) -> [u8; 8] {
    let mut hasher = Sha256::new();
    hasher.update(arn.as_bytes());
    hasher.update([0]);
    hasher.update(payload);
    let digest = hasher.finalize();
    digest[..8].try_into().expect("8 bytes")
}

impl ShardIterator {
    pub fn encode(&self) -> String {
        let mut payload = vec![VERSION];
        payload.extend_from_slice(&self.next.to_be_bytes());
        payload.extend_from_slice(&self.issued_ms.to_be_bytes());
        let check = check(&self.stream_arn, &payload);
        payload.extend_from_slice(&check);
        format!("{}|1|{}", self.stream_arn, aws_smithy_types::base64::encode(&payload))
    }

    /// The iterator `text` spells; `None` for anything that is not one of ours, unaltered.
    pub fn decode(text: &str) -> Option<ShardIterator> {
        let mut parts = text.rsplitn(3, '|');
        let (blob, one, arn) = (parts.next()?, parts.next()?, parts.next()?);
        if one != "1" || arn.is_empty() {
            return None;
        }
        let payload = aws_smithy_types::base64::decode(blob).ok()?;
        if payload.len() != 25 || payload[0] != VERSION {
            return None;
        }
        let (body, digest) = payload.split_at(17);
        if check(arn, body) != digest {
            return None;
        }
        Some(ShardIterator {
            stream_arn: arn.to_owned(),
            next: u64::from_be_bytes(body[1..9].try_into().ok()?),
            issued_ms: i64::from_be_bytes(body[9..17].try_into().ok()?),
        })
    }

    /// Whether the iterator has outlived its 15 minutes at `now_ms`.
    pub fn expired(&self, now_ms: i64) -> bool {
        now_ms.saturating_sub(self.issued_ms) > ITERATOR_LIFETIME_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/T/stream/2024-01-02T03:04:05.678";

    fn iterator() -> ShardIterator {
        ShardIterator {
            stream_arn: ARN.into(),
            next: 42,
            issued_ms: 1_700_000_000_000,
        }
    }

    #[test]
    fn iterators_round_trip_and_look_like_aws_ones() {
        let text = iterator().encode();
        assert!(text.starts_with(&format!("{ARN}|1|")));
        assert!(text.len() <= 2048, "the model's length limit");
        assert_eq!(ShardIterator::decode(&text), Some(iterator()));
    }

    #[test]
    fn garbage_and_altered_iterators_are_refused_without_panicking() {
        let good = iterator().encode();
        let (head, blob) = good.rsplit_once('|').unwrap();
        let mut flipped = aws_smithy_types::base64::decode(blob).unwrap();
        flipped[3] ^= 1;
        let altered = format!("{head}|{}", aws_smithy_types::base64::encode(&flipped));
        let other_arn = good.replace("table/T/", "table/U/");
        for text in [
            "",
            "|",
            "||",
            "x|1|",
            "garbage",
            "arn|2|AAAA",
            "arn|1|not base64!",
            "arn|1|AAAA",
            "\u{1F600}|1|\u{1F600}",
            &good[..good.len() - 4],
            &altered,
            &other_arn,
        ] {
            assert_eq!(ShardIterator::decode(text), None, "{text:?}");
        }
    }

    #[test]
    fn iterators_expire_after_fifteen_minutes() {
        let it = iterator();
        assert!(!it.expired(it.issued_ms + ITERATOR_LIFETIME_MS));
        assert!(it.expired(it.issued_ms + ITERATOR_LIFETIME_MS + 1));
    }

    #[test]
    fn stream_arns_name_table_and_label_in_their_own_scope_only() {
        let arn = stream_arn("us-east-1", "000000000000", "T", "2024-01-02T03:04:05.678");
        assert_eq!(arn, ARN);
        assert_eq!(
            parse_stream_arn(&arn, "us-east-1", "000000000000"),
            Some(("T".into(), "2024-01-02T03:04:05.678".into()))
        );
        assert_eq!(parse_stream_arn(&arn, "eu-west-1", "000000000000"), None);
        let china = stream_arn("cn-north-1", "000000000000", "T", "L");
        assert_eq!(china, "arn:aws-cn:dynamodb:cn-north-1:000000000000:table/T/stream/L");
        assert!(parse_stream_arn(&china, "cn-north-1", "000000000000").is_some());
        let wrong_partition = china.replace("aws-cn", "aws");
        assert_eq!(parse_stream_arn(&wrong_partition, "cn-north-1", "000000000000"), None);
        assert_eq!(parse_stream_arn(&arn, "us-east-1", "111111111111"), None);
        assert_eq!(
            parse_stream_arn(
                "arn:aws:dynamodb:us-east-1:000000000000:table/T",
                "us-east-1",
                "000000000000"
            ),
            None
        );
        assert_eq!(parse_stream_arn("fake-stream", "us-east-1", "000000000000"), None);
    }

    #[test]
    fn sequence_numbers_are_21_digits() {
        assert_eq!(format_sequence(7), "000000000000000000007");
        assert_eq!(parse_sequence("000000000000000000007"), Some(7));
        assert_eq!(parse_sequence(&format_sequence(u64::MAX)), Some(u64::MAX));
        assert_eq!(parse_sequence("99999999999999999999999999"), None);
        assert_eq!(parse_sequence("00000000000000000000x"), None);
        assert_eq!(parse_sequence(""), None);
    }

    #[test]
    fn shard_ids_have_aws_shape() {
        let id = shard_id("T", "L", 1_700_000_000_000);
        assert!(id.starts_with("shardId-00000001700000000000-"), "{id}");
        assert_eq!(id.len(), "shardId-00000001700000000000-abcdef12".len());
    }
}
