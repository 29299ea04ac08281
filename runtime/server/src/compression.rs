//! Request bodies the client compressed: the SDKs gzip an operation's body when the model
//! gives it Smithy's `@requestCompression` trait (CloudWatch's PutMetricData, from 10 KiB) and
//! say so in `Content-Encoding`. Only the RPC protocols' bodies are inflated: there the body is
//! the serialized input, so an encoding can only be that compression; a REST body may be a
//! payload whose `Content-Encoding` is the client's own metadata (an S3 object's).

use std::io::Read;

use bytes::Bytes;
use stratus_core::schema::Protocol;
use stratus_core::AwsError;

/// Whether `headers` say the body is gzip-compressed.
pub(crate) fn gzipped(headers: &http::HeaderMap) -> bool {
    headers
        .get_all(http::header::CONTENT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| coding.trim().eq_ignore_ascii_case("gzip"))
}

/// Whether a `protocol` request's body is its serialized input, which a `Content-Encoding`
/// can only have compressed.
pub(crate) fn inflates(protocol: Protocol) -> bool {
    !matches!(protocol, Protocol::RestJson1 | Protocol::RestXml)
}

/// The inflated form of the gzip `body`, refused past `limit` bytes as a body that large
/// would have been.
pub(crate) fn gunzip(body: &[u8], limit: usize) -> Result<Bytes, AwsError> {
    let mut inflated = Vec::with_capacity(body.len().saturating_mul(4).min(limit));
    let read = flate2::read::MultiGzDecoder::new(body)
        .take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(&mut inflated);
    match read {
        Err(_) => Err(AwsError::new(
            "SerializationException",
            "The request body is not valid gzip, as its Content-Encoding says it is",
            400,
        )),
        Ok(_) if inflated.len() > limit => Err(AwsError::new(
            "RequestEntityTooLarge",
            "Request body is larger than Stratus accepts",
            413,
        )),
        Ok(_) => Ok(inflated.into()),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn a_gzipped_body_inflates_to_what_was_compressed() {
        let form = b"Action=PutMetricData&Version=2010-08-01&Namespace=App".repeat(300);
        assert_eq!(gunzip(&gzip(&form), 1 << 20).unwrap(), Bytes::from(form));
    }

    #[test]
    fn bytes_that_are_not_gzip_are_refused_as_a_malformed_body() {
        let error = gunzip(b"Action=PutMetricData", 1 << 20).unwrap_err();
        assert_eq!(
            (error.code.as_str(), error.http_status),
            ("SerializationException", 400)
        );
        let mut truncated = gzip(b"some metric data");
        truncated.truncate(truncated.len() - 6);
        assert_eq!(gunzip(&truncated, 1 << 20).unwrap_err().http_status, 400);
    }

    #[test]
    fn a_body_inflating_past_the_limit_is_refused_without_inflating_it_all() {
        let bomb = gzip(&vec![0u8; 8 << 20]);
        let error = gunzip(&bomb, 1 << 20).unwrap_err();
        assert_eq!((error.code.as_str(), error.http_status), ("RequestEntityTooLarge", 413));
    }

    #[test]
    fn content_encoding_names_gzip_in_any_case_and_among_others() {
        let mut headers = http::HeaderMap::new();
        assert!(!gzipped(&headers));
        headers.insert(http::header::CONTENT_ENCODING, "aws-chunked, GZIP".parse().unwrap());
        assert!(gzipped(&headers));
        headers.insert(http::header::CONTENT_ENCODING, "identity".parse().unwrap());
        assert!(!gzipped(&headers));
    }
}
