//! Objects: the record an object is stored as, ETags, byte ranges and conditional requests.
//!
//! An object's body is a blob in the S3 store, named by the object record (a fresh name for
//! every write, so a reader holding the old record still finds the old body until the writer
//! deletes it after committing).

use std::collections::BTreeMap;

#[cfg(test)]
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use stratus_core::tags::{TagRules, TagViolation};
use stratus_core::{AwsError, DateTime};

use crate::checksum::Checksum;
use crate::encryption::KmsEncryption;
use crate::error::S3Error;

/// An object as stored.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub(crate) struct ObjectRecord {
    pub key: String,
    pub size: u64,
    /// The ETag with its quotes, as S3 sends it.
    pub etag: String,
    /// Milliseconds since the epoch.
    pub last_modified_ms: i64,
    pub blob: String,
    #[serde(default)]
    pub headers: ContentHeaders,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    #[serde(default)]
    pub storage_class: Option<String>,
    /// The version id; `None` is the null version (every object of a never-versioned bucket,
    /// and those written while versioning was suspended).
    #[serde(default)]
    pub version_id: Option<String>,
    /// Whether this version is a delete marker (no body, no blob).
    #[serde(default)]
    pub delete_marker: bool,
    /// The version's place among its key's versions (higher is newer); 0 while the bucket
    /// has never been versioned.
    #[serde(default)]
    pub seq: u64,
    /// The object's ACL grants as stored (JSON of the model's `Grants`), when set.
    #[serde(default)]
    pub acl: Option<String>,
    /// The object's additional checksum (none for objects stored before checksums were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<Checksum>,
    /// The parts of an object completed from a multipart upload, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<StoredPart>,
    /// Object Lock retention (`GOVERNANCE` or `COMPLIANCE`) and its end, milliseconds since
    /// the epoch (see [`crate::lock`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_until_ms: Option<i64>,
    /// The legal hold: on, off, or never set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_hold: Option<bool>,
    /// SSE-KMS set by UpdateObjectEncryption; none is SSE-S3 (see [`crate::encryption`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kms: Option<KmsEncryption>,
    /// SSE-C: the base64 MD5 of the key the client wrote the version under, which every
    /// read must bring (see [`crate::customer_key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_key_md5: Option<String>,
    /// When the copy RestoreObject made of an archived version expires, milliseconds since
    /// the epoch (see [`crate::ops::restore`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_expiry_ms: Option<i64>,
    /// `x-amz-website-redirect-location`, as the write set it (reads answer it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_redirect_location: Option<String>,
}

/// One part of a multipart object, as GetObjectAttributes lists it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct StoredPart {
    pub number: i32,
    pub size: u64,
    /// The part's checksum (base64) in the object's checksum algorithm, when it has one.
    #[serde(default)]
    pub checksum: Option<String>,
}

/// The content headers an object keeps and returns.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub(crate) struct ContentHeaders {
    pub content_type: Option<String>,
    pub cache_control: Option<String>,
    pub content_disposition: Option<String>,
    pub content_encoding: Option<String>,
    pub content_language: Option<String>,
    pub expires: Option<String>,
}

impl ObjectRecord {
    /// The version id as S3 reports it: `null` for the null version.
    pub(crate) fn version_label(&self) -> &str {
        self.version_id.as_deref().unwrap_or("null")
    }

    /// The `x-amz-version-id` S3 answers with: only for objects of a bucket that has had
    /// versioning configured.
    pub(crate) fn version_header(&self) -> Option<String> {
        (self.seq > 0).then(|| self.version_label().to_owned())
    }

    /// A delete marker for `key`.
    pub(crate) fn marker(key: String, now_ms: i64) -> ObjectRecord {
        ObjectRecord {
            key,
            size: 0,
            etag: String::new(),
            last_modified_ms: now_ms,
            blob: String::new(),
            headers: ContentHeaders::default(),
            metadata: BTreeMap::new(),
            tags: BTreeMap::new(),
            storage_class: None,
            version_id: None,
            delete_marker: true,
            seq: 0,
            acl: None,
            ..ObjectRecord::default()
        }
    }

    pub(crate) fn last_modified(&self) -> DateTime {
        // S3 reports modification times to the second.
        DateTime::from_secs(self.last_modified_ms.div_euclid(1000))
    }
}

/// The ETag of a body uploaded whole: its MD5 in hex, quoted.
#[cfg(test)]
pub(crate) fn etag(body: &[u8]) -> String {
    format!("\"{}\"", stratus_core::hex::encode(&Md5::digest(body)))
}

/// The MD5 a `Content-MD5` header (base64) states, or `InvalidDigest`.
pub(crate) fn content_md5(header: &str) -> Result<Vec<u8>, AwsError> {
    base64_decode(header.trim())
        .filter(|digest| digest.len() == 16)
        .ok_or_else(|| S3Error::invalid_digest().with_detail("Content-MD5", header))
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|&a| a == c)? as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// An inclusive byte range of an object (all of it when `None`), and the object's part count
/// when a part was asked for.
pub(crate) type ReadRange = (Option<(u64, u64)>, Option<i32>);

/// The bytes a read asks for — a `Range` header or a `partNumber` — and, for a part of a
/// multipart object, how many parts it has. AWS answers both with `206` and a `Content-Range`;
/// a single-part object has one part (S3 API reference, GetObject: "partNumber").
pub(crate) fn read_range(
    range: Option<&str>,
    part_number: Option<i32>,
    record: &ObjectRecord,
) -> Result<ReadRange, AwsError> {
    let Some(number) = part_number else {
        return Ok((byte_range(range, record.size)?, None));
    };
    if range.is_some() {
        return Err(S3Error::invalid_request(
            "Cannot specify both Range header and partNumber query parameter",
        ));
    }
    let not_satisfiable = || {
        AwsError::new("InvalidPartNumber", "The requested partnumber is not satisfiable", 416)
            .with_detail("ActualPartCount", record.parts.len().max(1).to_string())
            .with_detail("PartNumberRequested", number.to_string())
    };
    if record.parts.is_empty() {
        return match number {
            1 if record.size > 0 => Ok((Some((0, record.size - 1)), None)),
            1 => Ok((None, None)),
            _ => Err(not_satisfiable()),
        };
    }
    let index = usize::try_from(number)
        .ok()
        .filter(|n| (1..=record.parts.len()).contains(n))
        .ok_or_else(not_satisfiable)?;
    let start: u64 = record.parts[..index - 1].iter().map(|p| p.size).sum();
    let size = record.parts[index - 1].size;
    let count = i32::try_from(record.parts.len()).unwrap_or(i32::MAX);
    Ok((Some((start, start + size.max(1) - 1)), Some(count)))
}

/// The byte range a `Range` header asks of an object of `size` bytes: `Ok(None)` for the
/// whole object (no header, or one S3 ignores), `InvalidRange` for an unsatisfiable one.
pub(crate) fn byte_range(header: Option<&str>, size: u64) -> Result<Option<(u64, u64)>, AwsError> {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return Ok(None);
    };
    // S3 ignores a header asking for several ranges and sends the whole object.
    if spec.contains(',') {
        return Ok(None);
    }
    let Some((first, last)) = spec.split_once('-') else {
        return Ok(None);
    };
    let (first, last) = (first.trim(), last.trim());
    let range = match (first.parse::<u64>(), last.parse::<u64>()) {
        (Ok(start), Ok(end)) if start <= end => (start, end.min(size.saturating_sub(1))),
        (Ok(_), Ok(_)) => return Ok(None),
        (Ok(start), Err(_)) if last.is_empty() => (start, size.saturating_sub(1)),
        (Err(_), Ok(suffix)) if first.is_empty() => {
            if suffix == 0 {
                return Err(S3Error::invalid_range(header.unwrap_or_default(), size));
            }
            (size.saturating_sub(suffix), size.saturating_sub(1))
        }
        _ => return Ok(None),
    };
    if range.0 >= size {
        return Err(S3Error::invalid_range(header.unwrap_or_default(), size));
    }
    Ok(Some(range))
}

/// The conditions of a read (`If-Match`, `If-None-Match`, `If-Modified-Since`,
/// `If-Unmodified-Since`).
pub(crate) struct ReadConditions<'a> {
    pub if_match: Option<&'a str>,
    pub if_none_match: Option<&'a str>,
    pub if_modified_since: Option<&'a DateTime>,
    pub if_unmodified_since: Option<&'a DateTime>,
    /// The time of the request, milliseconds since the epoch: an `If-Modified-Since` after it
    /// is ignored, as S3 ignores one in the future.
    pub now_ms: i64,
}

impl ReadConditions<'_> {
    /// RFC 7232's evaluation order, as S3 applies it: `If-Match` then `If-Unmodified-Since`
    /// (412), `If-None-Match` then `If-Modified-Since` (304).
    pub(crate) fn check(&self, object: &ObjectRecord) -> Result<(), AwsError> {
        let modified = object.last_modified().secs();
        match self.if_match {
            Some(tags) if !etag_matches(tags, &object.etag) => return Err(S3Error::condition_failed("If-Match")),
            Some(_) => {}
            None => {
                if self.if_unmodified_since.is_some_and(|t| modified > t.secs()) {
                    return Err(S3Error::condition_failed("If-Unmodified-Since"));
                }
            }
        }
        match self.if_none_match {
            Some(tags) if etag_matches(tags, &object.etag) => return Err(S3Error::not_modified()),
            Some(_) => {}
            None => {
                let since = self
                    .if_modified_since
                    .filter(|t| t.secs() <= self.now_ms.div_euclid(1000));
                if since.is_some_and(|t| modified <= t.secs()) {
                    return Err(S3Error::not_modified());
                }
            }
        }
        Ok(())
    }
}

/// Whether an `If-Match`/`If-None-Match` list (`*`, or ETags quoted or not) names `etag`.
pub(crate) fn etag_matches(list: &str, etag: &str) -> bool {
    let bare = etag.trim_matches('"');
    list.split(',')
        .map(|t| t.trim().trim_start_matches("W/").trim_matches('"'))
        .any(|t| t == "*" || t == bare)
}

/// Parses an `x-amz-tagging` header (URL-encoded `k=v&k2=v2`).
pub(crate) fn parse_tagging_header(header: &str) -> Result<BTreeMap<String, String>, AwsError> {
    let mut tags = BTreeMap::new();
    for pair in header.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(k, true).ok_or_else(|| S3Error::invalid_argument("The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates."))?;
        let value = percent_decode(v, true).ok_or_else(|| S3Error::invalid_argument("The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates."))?;
        if tags.insert(key, value).is_some() {
            return Err(S3Error::invalid_argument(
                "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates.",
            ));
        }
    }
    check_tags(&tags, 10)?;
    Ok(tags)
}

/// Decodes `%XX` escapes; `+` is a space where `form` (URL query encoding, as in
/// `x-amz-tagging`), a plus sign elsewhere (paths, as in `x-amz-copy-source`).
pub(crate) fn percent_decode(text: &str, form: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' if form => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// S3's tag rules: at most `max` tags (10 on objects, 50 on buckets), keys of 1 to 128 and
/// values of at most 256 characters.
pub(crate) fn check_tags(tags: &BTreeMap<String, String>, max: usize) -> Result<(), AwsError> {
    let rules = TagRules {
        max,
        reserved_prefix: None,
    };
    stratus_core::tags::check(tags, rules).map_err(|violation| match violation {
        TagViolation::TooMany { max, .. } => S3Error::invalid_tag(format!("Object tags cannot be greater than {max}")),
        TagViolation::KeyLength(_) | TagViolation::ReservedPrefix(_) => {
            S3Error::invalid_tag("The TagKey you have provided is invalid")
        }
        TagViolation::ValueLength(_) => S3Error::invalid_tag("The TagValue you have provided is invalid"),
    })
}

/// The source bucket, key and version of a copy: `bucket/key`, URL-encoded (a `+` is a
/// space, as clients that form-encode send it and AWS reads it), with an optional leading
/// slash (or scheme and host) and an optional `?versionId=` suffix.
pub(crate) fn copy_source(source: &str) -> Result<(String, String, Option<String>), AwsError> {
    // A path-style URL of the source is taken too, as AWS took `https://s3.amazonaws.com/b/k`
    // (recorded in LocalStack's test_s3_timestamp_precision).
    let source = match source
        .strip_prefix("https://")
        .or_else(|| source.strip_prefix("http://"))
    {
        Some(rest) => rest.split_once('/').map_or("", |(_, path)| path),
        None => source,
    };
    let (path, version_id) = match source.split_once("?versionId=") {
        Some((p, v)) => (p, Some(v.to_owned())),
        None => (source, None),
    };
    let decoded = percent_decode(path.trim_start_matches('/'), true)
        .ok_or_else(|| S3Error::invalid_argument("Invalid copy source encoding"))?;
    match decoded.split_once('/') {
        Some((bucket, key)) if !bucket.is_empty() && !key.is_empty() => {
            Ok((bucket.to_owned(), key.to_owned(), version_id))
        }
        // AWS's document names the header twice, as its name and as its value.
        _ => Err(S3Error::invalid_argument("Invalid copy source object key")
            .with_detail("ArgumentName", "x-amz-copy-source")
            .with_detail("ArgumentValue", "x-amz-copy-source")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(etag: &str, modified_secs: i64) -> ObjectRecord {
        ObjectRecord {
            key: "k".into(),
            size: 10,
            etag: etag.into(),
            last_modified_ms: modified_secs * 1000,
            blob: "b".into(),
            headers: ContentHeaders::default(),
            metadata: BTreeMap::new(),
            tags: BTreeMap::new(),
            storage_class: None,
            version_id: None,
            delete_marker: false,
            seq: 0,
            acl: None,
            ..ObjectRecord::default()
        }
    }

    #[test]
    fn etags_and_digests() {
        assert_eq!(etag(b""), "\"d41d8cd98f00b204e9800998ecf8427e\"");
        // base64 of the MD5 of "hello".
        assert_eq!(
            content_md5("XUFAKrxLKna5cZ2REBfFkg==").unwrap(),
            Md5::digest(b"hello").to_vec()
        );
        assert_eq!(content_md5("not base64!").unwrap_err().code, "InvalidDigest");
        assert_eq!(content_md5("AAAA").unwrap_err().code, "InvalidDigest");
    }

    // GetObject's partNumber (S3 API reference): a part's bytes and the part count; a
    // single-part object is its own part 1; a part that does not exist is 416.
    #[test]
    fn part_ranges() {
        let part = |number, size| StoredPart {
            number,
            size,
            checksum: None,
        };
        let multipart = ObjectRecord {
            size: 12,
            parts: vec![part(1, 5), part(2, 5), part(3, 2)],
            ..ObjectRecord::default()
        };
        assert_eq!(read_range(None, Some(2), &multipart).unwrap(), (Some((5, 9)), Some(3)));
        assert_eq!(
            read_range(None, Some(3), &multipart).unwrap(),
            (Some((10, 11)), Some(3))
        );
        for wrong in [0, 4, -1] {
            assert_eq!(
                read_range(None, Some(wrong), &multipart).unwrap_err().code,
                "InvalidPartNumber"
            );
        }
        assert_eq!(
            read_range(Some("bytes=0-1"), Some(1), &multipart).unwrap_err().code,
            "InvalidRequest"
        );
        let single = ObjectRecord {
            size: 7,
            ..ObjectRecord::default()
        };
        assert_eq!(read_range(None, Some(1), &single).unwrap(), (Some((0, 6)), None));
        assert_eq!(
            read_range(None, Some(2), &single).unwrap_err().code,
            "InvalidPartNumber"
        );
        assert_eq!(
            read_range(Some("bytes=2-3"), None, &single).unwrap(),
            (Some((2, 3)), None)
        );
    }

    // RFC 7233 byte ranges as S3 serves them, suffix ranges included.
    #[test]
    fn ranges() {
        assert_eq!(byte_range(None, 10).unwrap(), None);
        assert_eq!(byte_range(Some("bytes=0-4"), 10).unwrap(), Some((0, 4)));
        assert_eq!(byte_range(Some("bytes=5-"), 10).unwrap(), Some((5, 9)));
        assert_eq!(byte_range(Some("bytes=-3"), 10).unwrap(), Some((7, 9)));
        assert_eq!(byte_range(Some("bytes=-30"), 10).unwrap(), Some((0, 9)));
        assert_eq!(byte_range(Some("bytes=2-100"), 10).unwrap(), Some((2, 9)));
        assert_eq!(byte_range(Some("bytes=10-"), 10).unwrap_err().code, "InvalidRange");
        assert_eq!(byte_range(Some("bytes=0-1,3-4"), 10).unwrap(), None);
        assert_eq!(byte_range(Some("items=0-1"), 10).unwrap(), None);
    }

    #[test]
    fn conditions() {
        let o = object("\"abc\"", 1000);
        let at = |s| DateTime::from_secs(s);
        let check = |m: Option<&str>, n: Option<&str>, ms: Option<i64>, us: Option<i64>| {
            let (ms, us) = (ms.map(at), us.map(at));
            ReadConditions {
                if_match: m,
                if_none_match: n,
                if_modified_since: ms.as_ref(),
                if_unmodified_since: us.as_ref(),
                now_ms: 5_000_000,
            }
            .check(&o)
            .map_err(|e| e.http_status)
        };
        assert_eq!(check(Some("\"abc\""), None, None, None), Ok(()));
        assert_eq!(check(Some("abc"), None, None, None), Ok(()));
        assert_eq!(check(Some("\"xyz\""), None, None, None), Err(412));
        assert_eq!(check(None, Some("*"), None, None), Err(304));
        assert_eq!(check(None, None, Some(1000), None), Err(304));
        assert_eq!(check(None, None, Some(999), None), Ok(()));
        // An If-Modified-Since in the future is ignored.
        assert_eq!(check(None, None, Some(6_000), None), Ok(()));
        assert_eq!(check(None, None, None, Some(999)), Err(412));
        // If-Match that holds overrides If-Unmodified-Since.
        assert_eq!(check(Some("*"), None, None, Some(999)), Ok(()));
    }

    #[test]
    fn tagging_header() {
        let tags = parse_tagging_header("a=1&b%20c=d+e").unwrap();
        assert_eq!(tags["a"], "1");
        assert_eq!(tags["b c"], "d e");
        assert!(parse_tagging_header("a=1&a=2").is_err());
    }

    #[test]
    fn copy_sources() {
        assert_eq!(copy_source("b/k").unwrap(), ("b".into(), "k".into(), None));
        assert_eq!(
            copy_source("/b/a%20b/c?versionId=null").unwrap(),
            ("b".into(), "a b/c".into(), Some("null".into()))
        );
        assert_eq!(copy_source("b%2Fa+b%2B").unwrap(), ("b".into(), "a b+".into(), None));
        assert_eq!(
            copy_source("https://s3.amazonaws.com/b/k").unwrap(),
            ("b".into(), "k".into(), None)
        );
        assert!(copy_source("http://host-only").is_err());
        assert!(copy_source("b").is_err());
    }
}
