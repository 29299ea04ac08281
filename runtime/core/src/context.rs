//! What a service handler knows about the request it is serving.

use std::fmt;
use std::io::Read;
use std::sync::{Mutex, PoisonError};

use crate::clock::Clock;
use crate::error::AwsError;

/// A body read as it arrives or as it is sent, rather than held in memory. It blocks while it
/// waits for the network, so read it on a blocking thread (`tokio::task::spawn_blocking`).
pub type BodyReader = Box<dyn Read + Send>;

/// The request's account, region and identity.
#[derive(Debug)]
pub struct RequestContext {
    /// The 12-digit account the request is served in: its signer's, else the configured one.
    pub account_id: String,
    /// The region the request was signed for, else the configured one.
    pub region: String,
    /// The request's id (a UUID), which the answer carries in its protocol's request id.
    pub request_id: String,
    /// The access key id the request was signed with, if it was signed.
    pub access_key_id: Option<String>,
    /// Who signed: the IAM user or session whose key IAM or STS issued; `None` for the
    /// account's root, which any other key (`test`, a 12-digit account id) signs as.
    pub principal: Option<Principal>,
    /// The address the request came from (`aws:SourceIp`), when it came over a socket.
    pub source_ip: Option<std::net::IpAddr>,
    /// The request's `X-Amzn-Trace-Id` header (an AWS X-Ray trace), which the work a service
    /// hands on carries: SQS's `AWSTraceHeader`, S3's notifications.
    pub trace_header: Option<String>,
    /// The `Host` the client addressed (`127.0.0.1:4566`), so that URLs a service returns (SQS
    /// queue URLs) work as given.
    pub host: Option<String>,
    /// Bodies that stream past the input and output values (S3 object bodies).
    pub streams: Streams,
    /// How the request's payload is framed, for an operation whose payload is `@streaming`.
    pub framing: PayloadFraming,
    /// The time the request is served at: read it, never the system's clock.
    pub clock: Clock,
    /// Headers the answer carries that the output's shape does not bind, which the service
    /// adds while serving (S3's `x-amz-bucket-region` on listings).
    pub answer_headers: AnswerHeaders,
}

/// Headers a service adds to a successful answer beyond its output's.
#[derive(Debug, Default)]
pub struct AnswerHeaders(Mutex<Vec<(&'static str, String)>>);

impl AnswerHeaders {
    /// Adds header `name` (lower case) with `value` to the answer.
    pub fn add(&self, name: &'static str, value: impl Into<String>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((name, value.into()));
    }

    /// The headers added, in order.
    pub fn take(&self) -> Vec<(&'static str, String)> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl RequestContext {
    /// A request served in `account_id` and `region` as the account's root, unsigned, at
    /// `clock`'s time: what a service's own tests and benches call it with.
    pub fn unsigned(account_id: &str, region: &str, clock: Clock) -> RequestContext {
        RequestContext {
            account_id: account_id.to_owned(),
            region: region.to_owned(),
            request_id: crate::id::uuid(),
            access_key_id: None,
            principal: None,
            source_ip: None,
            trace_header: None,
            host: None,
            streams: Streams::default(),
            framing: PayloadFraming::default(),
            clock,
            answer_headers: AnswerHeaders::default(),
        }
    }
}

/// What kind of identity signs with an access key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrincipalKind {
    /// The account's root (temporary credentials from the root's `GetSessionToken`).
    Root,
    /// An IAM user, with its own key or its `GetSessionToken` credentials.
    User,
    /// A session of an IAM role (`AssumeRole` and its web identity and SAML forms).
    AssumedRole,
    /// A federated user (`GetFederationToken`).
    FederatedUser,
}

/// The identity a request was signed as, in IAM's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The kind of identity.
    pub kind: PrincipalKind,
    /// Its ARN, as `GetCallerIdentity` answers it and `aws:PrincipalArn` names it:
    /// `arn:aws:iam::ACCOUNT:user/PATH/NAME`, `arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`.
    pub arn: String,
    /// `aws:userid`: the user's `AIDA…` id, `AROA…:SESSION` for a role session,
    /// `ACCOUNT:NAME` for a federated user, the account id for the root.
    pub user_id: String,
    /// Whether the key is temporary (STS's `ASIA…`) rather than a user's own.
    pub temporary: bool,
}

/// The headers of an `aws-chunked` (SigV4 streaming) upload. They describe how the payload is
/// framed on the wire rather than what the operation is asked to do, so no model binds them
/// (UploadPart's does not even bind `Content-Encoding`); the gateway copies them for operations
/// with a `@streaming` payload, and leaves them empty for every other request.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PayloadFraming {
    /// `Content-Encoding`: `aws-chunked`, possibly among others.
    pub content_encoding: Option<String>,
    /// `x-amz-content-sha256`: `STREAMING-…` for an aws-chunked payload.
    pub content_sha256: Option<String>,
    /// `x-amz-decoded-content-length`: the size of the payload once decoded.
    pub decoded_content_length: Option<String>,
    /// `x-amz-trailer`: the header the payload's trailer carries.
    pub trailer: Option<String>,
}

/// The streamed request payload, when the gateway streams it instead of decoding it into the
/// input (the input's `@streaming` payload member is then empty), and the streamed response
/// payload a service may set instead of its output's.
#[derive(Default)]
pub struct Streams {
    request: Mutex<Option<BodyReader>>,
    response: Mutex<Option<BodyReader>>,
    chunk_signatures: Mutex<Option<Box<dyn ChunkSignatures>>>,
}

/// The chain of signatures an aws-chunked payload carries (SigV4 streaming), checked as the
/// service decodes it: the gateway sets it when it has verified the request's own signature
/// (`--verify-signatures`), and it answers each refusal as the protocol's error.
pub trait ChunkSignatures: Send {
    /// Whether the payload must end in a signed trailer (`…-PAYLOAD-TRAILER`).
    fn expects_trailer(&self) -> bool;

    /// Checks the next chunk (the last one is empty), by its SHA-256, against its
    /// `chunk-signature`.
    fn chunk(&mut self, sha256: [u8; 32], signature: &str) -> Result<(), AwsError>;

    /// Checks the trailer's header lines against its `x-amz-trailer-signature`.
    fn trailer(&mut self, trailers: &[(&str, &str)], signature: &str) -> Result<(), AwsError>;
}

impl Streams {
    /// Streams whose request payload is `body`.
    pub fn with_request(body: BodyReader) -> Streams {
        Streams {
            request: Mutex::new(Some(body)),
            ..Streams::default()
        }
    }

    /// Has the service check the chunk signatures of the request's aws-chunked payload.
    pub fn set_chunk_signatures(&self, signatures: Box<dyn ChunkSignatures>) {
        *self.chunk_signatures.lock().unwrap_or_else(PoisonError::into_inner) = Some(signatures);
    }

    /// The chunk signatures to check the request's aws-chunked payload against, once.
    pub fn take_chunk_signatures(&self) -> Option<Box<dyn ChunkSignatures>> {
        self.chunk_signatures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Whether the request's payload streams (and has not been taken yet).
    pub fn has_request(&self) -> bool {
        self.request.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }

    /// The streamed request payload, once.
    pub fn take_request(&self) -> Option<BodyReader> {
        self.request.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Answers with `body` as the payload; the output must bind its length to
    /// `Content-Length`.
    pub fn set_response(&self, body: BodyReader) {
        *self.response.lock().unwrap_or_else(PoisonError::into_inner) = Some(body);
    }

    /// The streamed response payload, once.
    pub fn take_response(&self) -> Option<BodyReader> {
        self.response.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl fmt::Debug for Streams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let present = |slot: &Mutex<Option<BodyReader>>| slot.lock().is_ok_and(|s| s.is_some());
        f.debug_struct("Streams")
            .field("request", &present(&self.request))
            .field("response", &present(&self.response))
            .finish()
    }
}
