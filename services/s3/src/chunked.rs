//! aws-chunked bodies (`Content-Encoding: aws-chunked`, `x-amz-content-sha256:
//! STREAMING-…`): the SDKs frame a streamed upload as chunks, each `<hex size>[;chunk-signature=
//! <sig>]\r\n<data>\r\n`, ended by a zero-size chunk and optional trailer lines
//! (`x-amz-checksum-crc32:<base64>\r\n`, `x-amz-trailer-signature:<sig>\r\n`) and an empty line
//! (AWS's "Signature Version 4 streaming" and "Checking object integrity" guides; botocore's
//! `AwsChunkedWrapper` writes `0\r\nname:value\r\n\r\n`).
//!
//! The gateway hands S3 the whole body, so decoding is a pass over a slice: it never panics
//! and never allocates more than the input's size, whatever the input. Chunk signatures are not
//! verified (no request signature is).

use stratus_core::AwsError;

use crate::checksum::Algorithm;

/// A decoded body and its trailer headers (names lower-cased).
#[derive(Debug, PartialEq)]
pub struct Decoded {
    pub body: Vec<u8>,
    pub trailers: Vec<(String, String)>,
}

/// The longest chunk header or trailer line accepted (a signature extension is ~100 bytes).
const MAX_LINE: usize = 4096;

fn incomplete() -> AwsError {
    AwsError::new("IncompleteBody", "The request body terminated unexpectedly", 400)
}

fn malformed_trailer() -> AwsError {
    AwsError::new(
        "MalformedTrailerError",
        "The request contained trailing data that was not well-formed or did not conform to our published schema.",
        400,
    )
}

/// The line at the start of `input` (without its CRLF) and what follows it.
fn line(input: &[u8]) -> Option<(&[u8], &[u8])> {
    let window = &input[..input.len().min(MAX_LINE + 2)];
    let end = window.windows(2).position(|w| w == b"\r\n")?;
    Some((&input[..end], &input[end + 2..]))
}

/// A chunk header's size: hex digits before an optional `;extension`.
fn chunk_size(header: &[u8]) -> Option<usize> {
    let digits = header.split(|&b| b == b';').next().unwrap_or_default();
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let text = std::str::from_utf8(digits).ok()?;
    usize::from_str_radix(text, 16).ok()
}

/// Whether `body` starts as an aws-chunked body does: a chunk header with a hex size and a
/// chunk signature. Used where the request's `Content-Encoding` is not modelled (UploadPart).
pub fn looks_signed(body: &[u8]) -> bool {
    line(body).is_some_and(|(header, _)| {
        chunk_size(header).is_some() && header.windows(17).any(|w| w == b";chunk-signature=")
    })
}

/// Decodes an aws-chunked body.
pub fn decode(input: &[u8]) -> Result<Decoded, AwsError> {
    let mut body = Vec::with_capacity(input.len());
    let mut rest = input;
    loop {
        let (header, after) = line(rest).ok_or_else(incomplete)?;
        let size = chunk_size(header).ok_or_else(incomplete)?;
        if size == 0 {
            rest = after;
            break;
        }
        if after.len() < size || !after[size..].starts_with(b"\r\n") {
            return Err(incomplete());
        }
        body.extend_from_slice(&after[..size]);
        rest = &after[size + 2..];
    }
    let mut trailers = Vec::new();
    // Trailer lines up to an empty line; a body that ends right after them is accepted too.
    while !rest.is_empty() {
        let (text, after) = match line(rest) {
            Some(found) => found,
            None if rest.len() <= MAX_LINE => (rest, &b""[..]),
            None => return Err(malformed_trailer()),
        };
        rest = after;
        if text.is_empty() {
            if !rest.is_empty() {
                return Err(malformed_trailer());
            }
            break;
        }
        let text = std::str::from_utf8(text).map_err(|_| malformed_trailer())?;
        let (name, value) = text.split_once(':').ok_or_else(malformed_trailer)?;
        let name = name.trim();
        if name.is_empty() {
            return Err(malformed_trailer());
        }
        trailers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    Ok(Decoded { body, trailers })
}

/// Whether a `Content-Encoding` names aws-chunked.
pub fn declared(content_encoding: Option<&str>) -> bool {
    content_encoding.is_some_and(|e| e.split(',').any(|c| c.trim().eq_ignore_ascii_case("aws-chunked")))
}

/// A `Content-Encoding` without aws-chunked (which S3 does not store), if anything is left.
pub fn stored_encoding(content_encoding: Option<String>) -> Option<String> {
    let e = content_encoding?;
    if !declared(Some(&e)) {
        return Some(e);
    }
    let rest: Vec<&str> = e
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("aws-chunked"))
        .collect();
    (!rest.is_empty()).then(|| rest.join(","))
}

/// A write's payload: its body, decoded when it came aws-chunked, and the checksum its
/// trailer carried.
pub struct Payload {
    pub body: Vec<u8>,
    pub trailer: Option<(Algorithm, String)>,
}

impl Payload {
    /// The payload of a body that is aws-chunked when `declared` says so (its
    /// `Content-Encoding`), when it starts with a signed chunk, or when the request names a
    /// checksum algorithm but sends no value in a header (so the value must be in a trailer).
    pub fn new(body: Vec<u8>, declared: bool, trailer_expected: bool) -> Result<Payload, AwsError> {
        let decoded = if declared || looks_signed(&body) {
            Some(decode(&body)?)
        } else if trailer_expected {
            decode(&body).ok()
        } else {
            None
        };
        let Some(decoded) = decoded else {
            return Ok(Payload { body, trailer: None });
        };
        let mut trailer = None;
        for (name, value) in decoded.trailers {
            let Some(algorithm) = name.strip_prefix("x-amz-checksum-") else {
                continue;
            };
            let algorithm = Algorithm::from_name(algorithm).ok_or_else(malformed_trailer)?;
            if trailer.replace((algorithm, value)).is_some() {
                return Err(AwsError::new(
                    "InvalidRequest",
                    "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.",
                    400,
                ));
            }
        }
        Ok(Payload {
            body: decoded.body,
            trailer,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_test_support::{mutate, Rng};

    const SIGNED: &[u8] = b"5;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\nhello\r\n6;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n world\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n";
    const TRAILER: &[u8] = b"b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";

    #[test]
    fn decodes_signed_chunks() {
        let d = decode(SIGNED).unwrap();
        assert_eq!(d.body, b"hello world");
        assert!(d.trailers.is_empty());
        assert!(looks_signed(SIGNED));
        assert!(!looks_signed(TRAILER));
    }

    // botocore's AwsChunkedWrapper framing (httpchecksum.py).
    #[test]
    fn decodes_trailers() {
        let d = decode(TRAILER).unwrap();
        assert_eq!(d.body, b"hello world");
        assert_eq!(d.trailers, vec![("x-amz-checksum-crc32".into(), "DUoRhQ==".into())]);
        let signed_trailer = b"0\r\nx-amz-checksum-sha256:abc=\r\nx-amz-trailer-signature:123\r\n\r\n";
        assert_eq!(decode(signed_trailer).unwrap().trailers.len(), 2);
        // No final empty line.
        assert_eq!(decode(b"0\r\nx-amz-checksum-crc32:AAAAAA==").unwrap().trailers.len(), 1);
        assert_eq!(decode(b"0\r\n").unwrap().body, b"");
    }

    #[test]
    fn refuses_malformed_bodies() {
        for bad in [
            &b""[..],
            b"zz\r\nhello\r\n0\r\n\r\n",
            b"5\r\nhel",
            b"5\r\nhelloXX0\r\n\r\n",
            b"ffffffffffffffffff\r\n",
            b"0\r\nno-colon\r\n\r\n",
            b"0\r\n\r\ngarbage",
        ] {
            assert!(decode(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn payloads() {
        let p = Payload::new(TRAILER.to_vec(), true, false).unwrap();
        assert_eq!(p.body, b"hello world");
        assert_eq!(p.trailer, Some((Algorithm::Crc32, "DUoRhQ==".to_string())));
        // Detected without a Content-Encoding: a signed chunk, or a trailer the request expects.
        assert_eq!(
            Payload::new(SIGNED.to_vec(), false, false).unwrap().body,
            b"hello world"
        );
        assert_eq!(
            Payload::new(TRAILER.to_vec(), false, true).unwrap().body,
            b"hello world"
        );
        assert_eq!(Payload::new(TRAILER.to_vec(), false, false).unwrap().body, TRAILER);
        assert_eq!(stored_encoding(Some("aws-chunked".into())), None);
        assert_eq!(stored_encoding(Some("gzip, aws-chunked".into())), Some("gzip".into()));
        assert_eq!(stored_encoding(Some("gzip".into())), Some("gzip".into()));
    }

    // Seeded random mutations of real framings: the decoder answers every one without
    // panicking, and a body it accepts is never longer than its input.
    #[test]
    fn never_panics_on_mutations() {
        let tokens: &[&[u8]] = &[b"\r\n", b";", b":", b"0", b"ffffffff", b"chunk-signature=", b"\r\n\r\n"];
        let mut rng = Rng(0x5eed_c4a7);
        for i in 0..20_000 {
            let seed = if i % 2 == 0 { SIGNED } else { TRAILER };
            let input = mutate(&mut rng, seed, tokens);
            if let Ok(d) = decode(&input) {
                assert!(d.body.len() <= input.len());
            }
            let _ = looks_signed(&input);
        }
    }
}
