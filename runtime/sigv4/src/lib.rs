//! Verifies AWS request signatures: SigV4 in the `Authorization` header or presigned in the
//! query string, the chunk and trailer signatures of aws-chunked bodies, and S3's SigV2
//! (header and presigned). SigV4a (`AWS4-ECDSA-P256-SHA256`) is recognised and refused.
//!
//! The crate is pure: no I/O, no clock (the time is passed in), nothing async. A server
//! verifies a request in two steps, so it looks the secret up only for a request that names a
//! key:
//!
//! 1. [`Signature::parse`] reads who signed it (`Ok(None)`: anonymous);
//! 2. [`Signature::verify`] checks it with the secret found for
//!    [`Signature::access_key_id`] (`None`: no such key), at the current time, deriving
//!    signing keys through a [`SigningKeys`] cache the server holds.
//!
//! A refusal is an [`Error`] whose [`ErrorKind`] says why and which carries what AWS puts in
//! its answer — per [`Dialect`], S3's code and message or the other protocols', and for S3's
//! `SignatureDoesNotMatch` the string to sign and canonical request ([`Mismatch`]). A
//! verified request says, in [`Verified::body`], what its body must still satisfy: a hash to
//! match once read, or the [`ChunkSignatures`] of an aws-chunked body.
//!
//! ```
//! use std::time::{Duration, UNIX_EPOCH};
//! use stratus_sigv4::{Body, ErrorKind, Payload, Request, Signature, SigningKeys};
//!
//! // The GET Object example of the Amazon S3 API Reference ("Signature Calculations for the
//! // Authorization Header: Transferring Payload in a Single Chunk").
//! let auth = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,\
//!             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,\
//!             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
//! let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
//! let headers: &[(&str, &[u8])] = &[
//!     ("Host", b"examplebucket.s3.amazonaws.com"),
//!     ("Range", b"bytes=0-9"),
//!     ("x-amz-content-sha256", empty.as_bytes()),
//!     ("x-amz-date", b"20130524T000000Z"),
//!     ("Authorization", auth.as_bytes()),
//! ];
//! let request = Request {
//!     method: "GET",
//!     path: "/test.txt",
//!     query: "",
//!     headers,
//!     payload: Payload::Body(b""),
//!     host_bucket: None,
//! };
//! let keys = SigningKeys::new(); // one for the server, shared by every request
//! let now = UNIX_EPOCH + Duration::from_secs(1_369_353_600); // 2013-05-24T00:00:00Z
//!
//! let signature = Signature::parse(&request)?.expect("the request is signed");
//! let secret = (signature.access_key_id() == "AKIAIOSFODNN7EXAMPLE")
//!     .then_some("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
//! let verified = signature.verify(&request, secret, now, &keys)?;
//! assert_eq!(verified.access_key_id, "AKIAIOSFODNN7EXAMPLE");
//! assert!(matches!(verified.body, Body::Checked));
//!
//! // The same request for another object does not verify; S3 would show what it signed.
//! let other = Request { path: "/test.txt2", ..request };
//! let refused = signature.verify(&other, secret, now, &keys).unwrap_err();
//! assert_eq!(refused.kind(), ErrorKind::SignatureDoesNotMatch);
//! assert!(refused.signature_mismatch().unwrap().canonical_request.as_deref().unwrap().contains("/test.txt2"));
//! # Ok::<(), stratus_sigv4::Error>(())
//! ```

#![warn(missing_docs, unreachable_pub)]

mod canonical;
mod chunked;
mod crypto;
mod error;
mod request;
mod signature;
mod signing_key;
mod time;
mod v2;
mod v4;

pub use chunked::ChunkSignatures;
pub use error::{Dialect, Error, ErrorKind, Mismatch};
pub use request::{Payload, Request};
pub use signature::{Body, Scope, Signature, Verified, Version};
pub use signing_key::{derive as derive_signing_key, SigningKeys};
