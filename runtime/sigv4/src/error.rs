//! Why a signature was refused: one [`Error`] whose [`ErrorKind`] says what went wrong and
//! whose fields carry what AWS puts in its answer, worded per [`Dialect`] (S3's XML errors
//! differ in code and message from the query and JSON protocols'). The crate encodes no
//! response; [`Error::code`], [`Error::status`], [`Error::message`] and [`Error::details`]
//! are what an encoder needs.

use stratus_core::calendar::format_amz_date;

/// Whose words to answer in: S3's, or those of the other AWS protocols (query, JSON, REST-JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Amazon S3's error codes and messages.
    S3,
    /// The codes and messages the query and JSON services share (STS, SQS, DynamoDB, …).
    Aws,
}

/// What was wrong with a request's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The signature is well formed but is not the one the secret gives.
    SignatureDoesNotMatch,
    /// The `Authorization` header lacks a part (see [`Error::missing`]).
    IncompleteSignature,
    /// No secret is known for the access key id (S3's `InvalidAccessKeyId`, elsewhere
    /// `InvalidClientTokenId`).
    UnknownAccessKey,
    /// The request's date is more than 15 minutes from the server's.
    RequestTimeTooSkewed,
    /// A presigned request used after its expiry.
    RequestExpired,
    /// A part of the `Authorization` header or credential scope is malformed, or the scope
    /// names the wrong region or date.
    AuthorizationHeaderMalformed,
    /// Presigned query parameters are missing or malformed.
    AuthorizationQueryParametersError,
    /// SigV4a (`AWS4-ECDSA-P256-SHA256`), recognised but not verified by Stratus.
    UnsupportedAlgorithm,
    /// An `Authorization` header in no scheme AWS knows.
    UnsupportedAuthorizationType,
    /// Neither `x-amz-date` nor `Date` gives a usable time.
    MissingDate,
    /// The body does not hash to the signed `x-amz-content-sha256`.
    ContentSha256Mismatch,
    /// `x-amz-content-sha256` is neither a hash nor a payload marker S3 knows.
    InvalidContentSha256,
    /// S3 requires `x-amz-content-sha256` on header-signed SigV4 requests.
    MissingContentSha256,
    /// S3 refuses a header-signed request with `x-amz-` headers the signature leaves out
    /// (see [`Error::unsigned_headers`]).
    HeadersNotSigned,
}

/// What S3 reports of a signature that does not match: the strings it signed, so the client
/// can see where its canonicalisation differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The access key id the request names.
    pub access_key_id: String,
    /// The signature the request carries, as sent.
    pub signature_provided: String,
    /// The string the server signed.
    pub string_to_sign: String,
    /// The canonical request the string to sign hashes (SigV4 requests; not SigV2, chunks or
    /// trailers).
    pub canonical_request: Option<String>,
}

impl Mismatch {
    /// [`Mismatch::string_to_sign`] as S3's `StringToSignBytes`: two hex digits a byte,
    /// separated by spaces.
    pub fn string_to_sign_bytes(&self) -> String {
        spaced_hex(self.string_to_sign.as_bytes())
    }

    /// [`Mismatch::canonical_request`] as S3's `CanonicalRequestBytes`.
    pub fn canonical_request_bytes(&self) -> Option<String> {
        self.canonical_request.as_deref().map(|c| spaced_hex(c.as_bytes()))
    }
}

fn spaced_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&stratus_core::hex::encode(&[*b]));
    }
    out
}

/// A refused signature: its kind and what AWS's answer carries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}", self.code(Dialect::Aws), self.message(Dialect::Aws))]
pub struct Error {
    kind: ErrorKind,
    fields: Box<Fields>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Fields {
    reason: Option<String>,
    mismatch: Option<Mismatch>,
    missing: Vec<&'static str>,
    authorization: Option<String>,
    skew: Option<(i64, i64)>,
    server_time: Option<String>,
    expires: Option<String>,
    region: Option<(String, String)>,
    content_sha256: Option<(String, String)>,
    unsigned_headers: Vec<String>,
}

const SKEW_LIMIT_MS: &str = "900000";

impl Error {
    fn new(kind: ErrorKind) -> Error {
        Error {
            kind,
            fields: Box::default(),
        }
    }

    pub(crate) fn mismatch(mismatch: Mismatch) -> Error {
        let mut e = Error::new(ErrorKind::SignatureDoesNotMatch);
        e.fields.mismatch = Some(mismatch);
        e
    }

    pub(crate) fn incomplete(missing: Vec<&'static str>, authorization: &str) -> Error {
        let mut e = Error::new(ErrorKind::IncompleteSignature);
        e.fields.missing = missing;
        e.fields.authorization = Some(authorization.to_string());
        e
    }

    pub(crate) fn unknown_key(access_key_id: &str) -> Error {
        let mut e = Error::new(ErrorKind::UnknownAccessKey);
        e.fields.mismatch = Some(Mismatch {
            access_key_id: access_key_id.to_string(),
            signature_provided: String::new(),
            string_to_sign: String::new(),
            canonical_request: None,
        });
        e
    }

    pub(crate) fn skewed(request_time: i64, server_time: i64) -> Error {
        let mut e = Error::new(ErrorKind::RequestTimeTooSkewed);
        e.fields.skew = Some((request_time, server_time));
        e
    }

    pub(crate) fn expired(expires: i64, server_time: i64, x_amz_expires: Option<&str>) -> Error {
        let mut e = Error::new(ErrorKind::RequestExpired);
        e.fields.expires = Some(stratus_core::calendar::format_iso8601(expires));
        e.fields.server_time = Some(stratus_core::calendar::format_iso8601(server_time));
        e.fields.reason = x_amz_expires.map(str::to_string);
        e
    }

    pub(crate) fn malformed(reason: impl Into<String>) -> Error {
        let mut e = Error::new(ErrorKind::AuthorizationHeaderMalformed);
        e.fields.reason = Some(reason.into());
        e
    }

    pub(crate) fn wrong_region(expected: &str, found: &str) -> Error {
        let mut e = Error::malformed(format!("the region '{found}' is wrong; expecting '{expected}'"));
        e.fields.region = Some((expected.to_string(), found.to_string()));
        e
    }

    pub(crate) fn query_parameters(reason: impl Into<String>) -> Error {
        let mut e = Error::new(ErrorKind::AuthorizationQueryParametersError);
        e.fields.reason = Some(reason.into());
        e
    }

    pub(crate) fn sigv4a() -> Error {
        Error::new(ErrorKind::UnsupportedAlgorithm)
    }

    pub(crate) fn unsupported_type(authorization: &str) -> Error {
        let mut e = Error::new(ErrorKind::UnsupportedAuthorizationType);
        e.fields.authorization = Some(authorization.to_string());
        e
    }

    pub(crate) fn missing_date() -> Error {
        Error::new(ErrorKind::MissingDate)
    }

    pub(crate) fn content_mismatch(client: &str, computed: &str) -> Error {
        let mut e = Error::new(ErrorKind::ContentSha256Mismatch);
        e.fields.content_sha256 = Some((client.to_string(), computed.to_string()));
        e
    }

    pub(crate) fn invalid_content_sha256() -> Error {
        Error::new(ErrorKind::InvalidContentSha256)
    }

    pub(crate) fn missing_content_sha256() -> Error {
        Error::new(ErrorKind::MissingContentSha256)
    }

    pub(crate) fn headers_not_signed(names: Vec<String>) -> Error {
        let mut e = Error::new(ErrorKind::HeadersNotSigned);
        e.fields.unsigned_headers = names;
        e
    }

    /// The `x-amz-` headers present but not signed, of a [`ErrorKind::HeadersNotSigned`].
    pub fn unsigned_headers(&self) -> &[String] {
        &self.fields.unsigned_headers
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The strings signed, for a [`ErrorKind::SignatureDoesNotMatch`].
    pub fn signature_mismatch(&self) -> Option<&Mismatch> {
        (self.kind == ErrorKind::SignatureDoesNotMatch)
            .then_some(self.fields.mismatch.as_ref())
            .flatten()
    }

    /// The parts an incomplete `Authorization` header lacks (`Credential`, `Signature`,
    /// `SignedHeaders`, `Date`), in AWS's order.
    pub fn missing(&self) -> &[&'static str] {
        &self.fields.missing
    }

    /// The request's and the server's time (seconds since the epoch) of a
    /// [`ErrorKind::RequestTimeTooSkewed`].
    pub fn skew(&self) -> Option<(i64, i64)> {
        self.fields.skew
    }

    /// The region a request should have been scoped to and the one it was (S3's
    /// `AuthorizationHeaderMalformed`).
    pub fn region(&self) -> Option<(&str, &str)> {
        self.fields.region.as_ref().map(|(e, f)| (e.as_str(), f.as_str()))
    }

    /// The error code AWS answers with.
    pub fn code(&self, dialect: Dialect) -> &'static str {
        use ErrorKind::*;
        let s3 = dialect == Dialect::S3;
        match self.kind {
            SignatureDoesNotMatch => "SignatureDoesNotMatch",
            IncompleteSignature if s3 => "AuthorizationHeaderMalformed",
            IncompleteSignature => "IncompleteSignature",
            UnknownAccessKey if s3 => "InvalidAccessKeyId",
            UnknownAccessKey => "InvalidClientTokenId",
            RequestTimeTooSkewed if s3 => "RequestTimeTooSkewed",
            RequestTimeTooSkewed => "SignatureDoesNotMatch",
            RequestExpired if s3 => "AccessDenied",
            RequestExpired => "RequestExpired",
            AuthorizationHeaderMalformed if s3 => "AuthorizationHeaderMalformed",
            AuthorizationHeaderMalformed => "IncompleteSignature",
            AuthorizationQueryParametersError if s3 => "AuthorizationQueryParametersError",
            AuthorizationQueryParametersError => "IncompleteSignature",
            UnsupportedAlgorithm if s3 => "NotImplemented",
            UnsupportedAlgorithm => "IncompleteSignature",
            UnsupportedAuthorizationType if s3 => "InvalidArgument",
            UnsupportedAuthorizationType => "IncompleteSignature",
            MissingDate if s3 => "AccessDenied",
            MissingDate => "IncompleteSignature",
            ContentSha256Mismatch if s3 => "XAmzContentSHA256Mismatch",
            ContentSha256Mismatch => "SignatureDoesNotMatch",
            InvalidContentSha256 => "InvalidArgument",
            MissingContentSha256 => "InvalidRequest",
            HeadersNotSigned if s3 => "AccessDenied",
            HeadersNotSigned => "SignatureDoesNotMatch",
        }
    }

    /// The HTTP status AWS answers with.
    pub fn status(&self, dialect: Dialect) -> u16 {
        match self.code(dialect) {
            "SignatureDoesNotMatch"
            | "InvalidAccessKeyId"
            | "InvalidClientTokenId"
            | "AccessDenied"
            | "RequestTimeTooSkewed" => 403,
            "NotImplemented" => 501,
            _ => 400,
        }
    }

    /// AWS's message.
    pub fn message(&self, dialect: Dialect) -> String {
        use ErrorKind::*;
        let s3 = dialect == Dialect::S3;
        let f = &self.fields;
        match self.kind {
            SignatureDoesNotMatch if s3 => "The request signature we calculated does not match the signature you \
                provided. Check your key and signing method."
                .into(),
            SignatureDoesNotMatch => "The request signature we calculated does not match the signature you \
                provided. Check your AWS Secret Access Key and signing method. Consult the service documentation \
                for details."
                .into(),
            IncompleteSignature if s3 => "The authorization header is malformed; the authorization header requires \
                three components: Credential, SignedHeaders, and Signature."
                .into(),
            IncompleteSignature => {
                let mut message = String::new();
                for part in &f.missing {
                    if *part == "Date" {
                        message.push_str(
                            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ",
                        );
                    } else {
                        message.push_str(&format!("Authorization header requires '{part}' parameter. "));
                    }
                }
                message.push_str("Authorization=");
                message.push_str(f.authorization.as_deref().unwrap_or(""));
                message
            }
            UnknownAccessKey if s3 => "The AWS Access Key Id you provided does not exist in our records.".into(),
            UnknownAccessKey => "The security token included in the request is invalid.".into(),
            RequestTimeTooSkewed if s3 => {
                "The difference between the request time and the current time is too large.".into()
            }
            RequestTimeTooSkewed => {
                let (request, server) = self.skew().unwrap_or((0, 0));
                let (r, s) = (format_amz_date(request), format_amz_date(server));
                if request > server {
                    let limit = format_amz_date(server + 900);
                    format!("Signature not yet current: {r} is still later than {limit} ({s} + 15 min.)")
                } else {
                    let limit = format_amz_date(server - 900);
                    format!("Signature expired: {r} is now earlier than {limit} ({s} - 15 min.)")
                }
            }
            RequestExpired => "Request has expired".into(),
            AuthorizationHeaderMalformed => format!(
                "The authorization header is malformed; {}",
                f.reason.as_deref().unwrap_or("")
            ),
            AuthorizationQueryParametersError => f.reason.clone().unwrap_or_default(),
            UnsupportedAlgorithm => "Stratus does not verify SigV4a (AWS4-ECDSA-P256-SHA256) signatures; sign the \
                request with SigV4 (AWS4-HMAC-SHA256)."
                .into(),
            UnsupportedAuthorizationType if s3 => "Unsupported Authorization Type".into(),
            UnsupportedAuthorizationType => format!(
                "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' \
                 parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header requires \
                 existence of either a 'X-Amz-Date' or a 'Date' header. Authorization={}",
                f.authorization.as_deref().unwrap_or("")
            ),
            MissingDate if s3 => "AWS authentication requires a valid Date or x-amz-date header".into(),
            MissingDate => {
                "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.".into()
            }
            ContentSha256Mismatch => {
                "The provided 'x-amz-content-sha256' header does not match what was computed.".into()
            }
            InvalidContentSha256 => {
                "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, \
                STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, \
                STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD, STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER or a valid \
                sha256 value."
                    .into()
            }
            MissingContentSha256 => "Missing required header for this request: x-amz-content-sha256".into(),
            HeadersNotSigned => "There were headers present in the request which were not signed".into(),
        }
    }

    /// The elements S3's error document carries beside `Code` and `Message`, in its order.
    pub fn details(&self) -> Vec<(&'static str, String)> {
        use ErrorKind::*;
        let f = &self.fields;
        let mut out = Vec::new();
        match self.kind {
            SignatureDoesNotMatch => {
                if let Some(m) = &f.mismatch {
                    out.push(("AWSAccessKeyId", m.access_key_id.clone()));
                    out.push(("StringToSign", m.string_to_sign.clone()));
                    out.push(("SignatureProvided", m.signature_provided.clone()));
                    out.push(("StringToSignBytes", m.string_to_sign_bytes()));
                    if let Some(c) = &m.canonical_request {
                        out.push(("CanonicalRequest", c.clone()));
                        out.push(("CanonicalRequestBytes", m.canonical_request_bytes().unwrap_or_default()));
                    }
                }
            }
            UnknownAccessKey => {
                if let Some(m) = &f.mismatch {
                    out.push(("AWSAccessKeyId", m.access_key_id.clone()));
                }
            }
            RequestTimeTooSkewed => {
                if let Some((request, server)) = f.skew {
                    out.push(("RequestTime", format_amz_date(request)));
                    out.push(("ServerTime", stratus_core::calendar::format_iso8601(server)));
                    out.push(("MaxAllowedSkewMilliseconds", SKEW_LIMIT_MS.to_string()));
                }
            }
            RequestExpired => {
                if let Some(x) = &f.reason {
                    out.push(("X-Amz-Expires", x.clone()));
                }
                if let (Some(e), Some(s)) = (&f.expires, &f.server_time) {
                    out.push(("Expires", e.clone()));
                    out.push(("ServerTime", s.clone()));
                }
            }
            AuthorizationHeaderMalformed => {
                if let Some((expected, _)) = &f.region {
                    out.push(("Region", expected.clone()));
                }
            }
            UnsupportedAuthorizationType => {
                out.push(("ArgumentName", "Authorization".into()));
                out.push(("ArgumentValue", f.authorization.clone().unwrap_or_default()));
            }
            ContentSha256Mismatch => {
                if let Some((client, computed)) = &f.content_sha256 {
                    out.push(("ClientComputedContentSHA256", client.clone()));
                    out.push(("S3ComputedContentSHA256", computed.clone()));
                }
            }
            HeadersNotSigned => out.push(("HeadersNotSigned", f.unsigned_headers.join(", "))),
            _ => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incomplete_lists_missing_parts() {
        let e = Error::incomplete(vec!["Signature", "SignedHeaders"], "AWS4-HMAC-SHA256 Credential=AKID");
        assert_eq!(
            e.message(Dialect::Aws),
            "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' \
             parameter. Authorization=AWS4-HMAC-SHA256 Credential=AKID"
        );
        assert_eq!(e.code(Dialect::S3), "AuthorizationHeaderMalformed");
        assert_eq!(e.status(Dialect::Aws), 400);
    }

    #[test]
    fn s3_mismatch_details() {
        let e = Error::mismatch(Mismatch {
            access_key_id: "AKID".into(),
            signature_provided: "00".into(),
            string_to_sign: "AB".into(),
            canonical_request: Some("c\n".into()),
        });
        assert_eq!(e.status(Dialect::S3), 403);
        let details = e.details();
        assert!(details.contains(&("StringToSignBytes", "41 42".into())));
        assert!(details.contains(&("CanonicalRequestBytes", "63 0a".into())));
    }

    #[test]
    fn skew_messages() {
        let e = Error::skewed(0, 3600);
        assert_eq!(e.skew(), Some((0, 3600)));
        assert_eq!(
            e.message(Dialect::Aws),
            "Signature expired: 19700101T000000Z is now earlier than 19700101T004500Z (19700101T010000Z - 15 min.)"
        );
        assert_eq!(e.details()[1], ("ServerTime", "1970-01-01T01:00:00Z".into()));
        assert_eq!(e.details()[2], ("MaxAllowedSkewMilliseconds", "900000".into()));
    }
}
