//! Signature verification, when asked for (`--verify-signatures`): a request is served only if
//! it is signed with a secret Stratus knows, as AWS serves it — or refused with AWS's error in
//! the request's protocol.
//!
//! Secrets come from the identity the key stands for (IAM users' keys, STS's sessions, whose
//! session token must come with them) and, for the keys every local tool uses, the default
//! pair: `test` (or a 12-digit account id) with the secret `test`. Unsigned requests are
//! served only where AWS serves them: to operations the model lets be called unsigned
//! (`AssumeRoleWithWebIdentity`), and to S3, which serves them as an anonymous caller.
//!
//! The chunk and trailer signatures of an aws-chunked payload are checked by its service as it
//! decodes it ([`ChunkSignatures`]); the hash of a plain body that streams (over 1 MiB) is not
//! checked yet.

use std::time::{Duration, UNIX_EPOCH};

use stratus_core::schema::{Operation, Protocol, Service};
use stratus_core::service::Identity;
use stratus_core::{AwsError, ChunkSignatures};
use stratus_protocol::Request;
use stratus_sigv4::{Body, Dialect, Payload, Signature, SigningKeys};

use crate::identity::{in_protocol, refusal, Refusal};

/// The secret of the keys that name no identity: `test`, and 12-digit account ids.
const DEFAULT_SECRET: &str = "test";

/// Where a request's signature is checked: the service and operation it was routed to.
pub(crate) struct Target<'a> {
    pub(crate) service: &'static Service,
    pub(crate) operation: &'static Operation,
    pub(crate) protocol: Protocol,
    /// The bucket a virtual-hosted S3 request's `Host` names.
    pub(crate) host_bucket: Option<&'a str>,
}

/// Checks the signature of `req` (whose body is `req.body`, unless it streams) for `target`,
/// with the secret of `identity` or the default pair's, at `now_millis`. A verified
/// aws-chunked payload answers the chain of its chunk signatures, for the service to check
/// as it decodes the payload.
pub(crate) fn check(
    req: &Request<'_>,
    streams: bool,
    target: &Target<'_>,
    identity: Option<&Identity>,
    now_millis: i64,
    keys: &SigningKeys,
) -> Result<Option<Box<dyn ChunkSignatures>>, AwsError> {
    let s3 = target.service.departures.bare_xml_errors;
    let headers: Vec<(&str, &[u8])> = req
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()))
        .chain(authority(req).map(|host| ("host", host.as_bytes())))
        .collect();
    let signed = stratus_sigv4::Request {
        method: req.method.as_str(),
        path: req.uri.path(),
        query: req.uri.query().unwrap_or_default(),
        headers: &headers,
        payload: if streams {
            Payload::Deferred
        } else {
            Payload::Body(req.body)
        },
        host_bucket: target.host_bucket,
    };
    let refused = |e: stratus_sigv4::Error| refusal_of(target.service, target.protocol, &e);
    let Some(signature) = Signature::parse(&signed).map_err(refused)? else {
        return match s3 || target.operation.unsigned {
            true => Ok(None),
            false => Err(in_protocol(
                target.service,
                target.protocol,
                "MissingAuthenticationToken",
                "Request is missing Authentication Token".to_owned(),
                403,
            )),
        };
    };
    let key = signature.access_key_id();
    let secret = match identity {
        Some(identity) => Some(identity.secret_access_key.as_str()),
        None if is_default_key(key) => Some(DEFAULT_SECRET),
        None => None,
    };
    let now = UNIX_EPOCH + Duration::from_millis(u64::try_from(now_millis).unwrap_or(0));
    let verified = signature.verify(&signed, secret, now, keys).map_err(refused)?;
    let expected_token = identity.and_then(|i| i.session_token.as_deref());
    if expected_token.is_some() && verified.security_token.as_deref() != expected_token {
        return Err(match s3 {
            true => AwsError::new(
                "InvalidToken",
                "The provided token is malformed or otherwise invalid.",
                400,
            ),
            false => refusal(target.service, target.protocol, Refusal::InvalidKey),
        });
    }
    Ok(match verified.body {
        Body::SignedChunks(chain) => Some(Box::new(SignedChunks {
            chain,
            service: target.service,
            protocol: target.protocol,
        })),
        Body::Checked | Body::Unsigned | Body::UnsignedChunks | Body::MustHash(_) => None,
    })
}

/// AWS's answer to a refused signature, in the words of `service` and `protocol`.
fn refusal_of(service: &Service, protocol: Protocol, e: &stratus_sigv4::Error) -> AwsError {
    let s3 = service.departures.bare_xml_errors;
    let dialect = if s3 { Dialect::S3 } else { Dialect::Aws };
    let mut error = in_protocol(
        service,
        protocol,
        e.code(dialect),
        e.message(dialect),
        e.status(dialect),
    );
    if s3 {
        error.details = e.details().into_boxed_slice();
    }
    error
}

/// The chunk signatures of a verified aws-chunked payload, refused in its service's words.
struct SignedChunks {
    chain: stratus_sigv4::ChunkSignatures,
    service: &'static Service,
    protocol: Protocol,
}

impl ChunkSignatures for SignedChunks {
    fn expects_trailer(&self) -> bool {
        self.chain.expects_trailer()
    }

    fn chunk(&mut self, sha256: [u8; 32], signature: &str) -> Result<(), AwsError> {
        self.chain
            .verify_chunk_digest(sha256, signature)
            .map_err(|e| refusal_of(self.service, self.protocol, &e))
    }

    fn trailer(&mut self, trailers: &[(&str, &str)], signature: &str) -> Result<(), AwsError> {
        self.chain
            .verify_trailer(trailers, signature)
            .map_err(|e| refusal_of(self.service, self.protocol, &e))
    }
}

/// Whether `key` is one of the keys that sign with the default secret.
fn is_default_key(key: &str) -> bool {
    key == "test" || stratus_core::arn::is_account_id(key)
}

/// HTTP/2's `:authority`, which SigV4 signs as `host`, when the request has no `Host` header.
fn authority<'r>(req: &Request<'r>) -> Option<&'r str> {
    if req.headers.contains_key(http::header::HOST) {
        return None;
    }
    req.uri.authority().map(|a| a.as_str())
}
