//! Reading the signature a request carries — an `Authorization` header or presigned query
//! parameters, SigV4 or S3's SigV2 — and verifying it with the signer's secret.

use std::borrow::Cow;
use std::time::SystemTime;

use crate::chunked::ChunkSignatures;
use crate::error::Error;
use crate::request::Request;
use crate::signing_key::SigningKeys;
use crate::{v2, v4};

const V4_ALGORITHM: &str = "AWS4-HMAC-SHA256";
const V4A_ALGORITHM: &str = "AWS4-ECDSA-P256-SHA256";

/// The signature a request carries, read but not yet verified: enough to name the signer, so
/// the server can look up the secret and call [`Signature::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature<'a> {
    pub(crate) form: Form<'a>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Form<'a> {
    V4(v4::Parts<'a>),
    V2(v2::Parts<'a>),
}

/// Which signing scheme a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Signature Version 4 (`AWS4-HMAC-SHA256`).
    V4,
    /// S3's Signature Version 2 (`AWS AKID:signature`, HMAC-SHA1).
    V2,
}

/// The credential scope of a SigV4 signature: `date/region/service/aws4_request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope<'s> {
    /// `yyyyMMdd`.
    pub date: &'s str,
    /// The region, e.g. `us-east-1`.
    pub region: &'s str,
    /// The signing name, e.g. `s3` or `sts`.
    pub service: &'s str,
}

/// A signature that verified.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The access key id that signed.
    pub access_key_id: String,
    /// The `x-amz-security-token` that was signed, if any: the caller checks it belongs to
    /// the key.
    pub security_token: Option<String>,
    /// What the body must still satisfy.
    pub body: Body,
}

/// What the body of a verified request must still satisfy.
#[derive(Debug, Clone)]
pub enum Body {
    /// Nothing more: its hash was checked (or it was covered by the signature itself).
    Checked,
    /// Nothing: the request declared `UNSIGNED-PAYLOAD`.
    Unsigned,
    /// It must hash (SHA-256) to this, once read ([`Payload::Deferred`](crate::Payload::Deferred)).
    MustHash([u8; 32]),
    /// It is aws-chunked with signed chunks: check each one with these.
    SignedChunks(ChunkSignatures),
    /// It is aws-chunked with unsigned chunks and an unsigned trailer
    /// (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`): only its checksum can be checked.
    UnsignedChunks,
}

impl<'a> Signature<'a> {
    /// Reads the signature of `request`: `Ok(None)` for an anonymous request, `Err` for one
    /// whose signature cannot be read (with AWS's reason), SigV4a included.
    pub fn parse(request: &Request<'a>) -> Result<Option<Signature<'a>>, Error> {
        if let Some(auth) = request.header("authorization") {
            let scheme = auth.split([' ', ',']).next().unwrap_or("");
            return match scheme {
                V4_ALGORITHM => v4::parse_header(request, auth).map(|p| Some(Signature { form: Form::V4(p) })),
                V4A_ALGORITHM => Err(Error::sigv4a()),
                "AWS" => v2::parse_header(auth).map(|p| Some(Signature { form: Form::V2(p) })),
                _ => Err(Error::unsupported_type(auth)),
            };
        }
        if let Some(algorithm) = request.param("X-Amz-Algorithm") {
            return match &*algorithm {
                V4_ALGORITHM => v4::parse_query(request).map(|p| Some(Signature { form: Form::V4(p) })),
                V4A_ALGORITHM => Err(Error::sigv4a()),
                _ => Err(Error::query_parameters(
                    "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256 and AWS4-ECDSA-P256-SHA256\"",
                )),
            };
        }
        if request.param("AWSAccessKeyId").is_some() {
            return v2::parse_query(request).map(|p| p.map(|p| Signature { form: Form::V2(p) }));
        }
        Ok(None)
    }

    /// The access key id the request names (to look its secret up).
    pub fn access_key_id(&self) -> &str {
        match &self.form {
            Form::V4(p) => p.access_key_id(),
            Form::V2(p) => &p.access_key_id,
        }
    }

    /// The scheme the request was signed with.
    pub fn version(&self) -> Version {
        match self.form {
            Form::V4(_) => Version::V4,
            Form::V2(_) => Version::V2,
        }
    }

    /// Whether the signature came in the query string rather than the `Authorization` header.
    pub fn is_presigned(&self) -> bool {
        match &self.form {
            Form::V4(p) => p.presigned.is_some(),
            Form::V2(p) => p.expires.is_some(),
        }
    }

    /// The SigV4 credential scope (`None` for SigV2).
    pub fn scope(&self) -> Option<Scope<'_>> {
        match &self.form {
            Form::V4(p) => Some(p.scope()),
            Form::V2(_) => None,
        }
    }

    /// Checks the scope names `region`: S3 refuses a request scoped to another region than
    /// the bucket's with `AuthorizationHeaderMalformed` (SigV2 carries no region).
    pub fn check_region(&self, region: &str) -> Result<(), Error> {
        match self.scope() {
            Some(scope) if scope.region != region => Err(Error::wrong_region(region, scope.region)),
            _ => Ok(()),
        }
    }

    /// Verifies the signature of `request` (the one it was parsed from) with `secret`, the
    /// secret access key the server holds for [`Signature::access_key_id`] (`None` when it
    /// knows no such key), at `now`. Signing keys are taken from, and kept in, `keys`.
    pub fn verify(
        &self,
        request: &Request<'_>,
        secret: Option<&str>,
        now: SystemTime,
        keys: &SigningKeys,
    ) -> Result<Verified, Error> {
        let secret = secret.ok_or_else(|| Error::unknown_key(self.access_key_id()))?;
        let now = crate::time::epoch_secs(now);
        match &self.form {
            Form::V4(p) => v4::verify(p, request, secret, now, keys),
            Form::V2(p) => v2::verify(p, request, secret, now),
        }
    }
}

/// A borrowed-or-owned string from the request.
pub(crate) type Text<'a> = Cow<'a, str>;
