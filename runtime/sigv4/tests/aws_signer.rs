//! The strongest check there is: requests signed by the official AWS signer (`aws-sigv4`, the
//! AWS SDK for Rust's) verify, and changing any one byte they sign makes them fail.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    sign, PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SignatureLocation, SigningSettings,
    UriPathNormalizationMode,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use stratus_sigv4::{Body, ErrorKind, Payload, Request, Signature, SigningKeys};

const AKID: &str = "AKIDEXAMPLE";
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
/// 2024-03-10T12:34:56Z.
const SIGNED_AT: u64 = 1_710_074_096;

/// What to sign.
struct Case {
    name: &'static str,
    method: &'static str,
    service: &'static str,
    /// Path and query, as sent.
    target: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    body: &'static [u8],
    payload: Signed,
    presign: bool,
    token: Option<&'static str>,
}

#[derive(Clone, Copy, PartialEq)]
enum Signed {
    Body,
    Unsigned,
    Precomputed,
    StreamingTrailer,
    UnsignedTrailer,
}

fn case(name: &'static str, method: &'static str, service: &'static str, target: &'static str) -> Case {
    Case {
        name,
        method,
        service,
        target,
        headers: Vec::new(),
        body: b"",
        payload: Signed::Body,
        presign: false,
        token: None,
    }
}

/// A request as it arrives: the parts the verifier borrows.
struct Wire {
    method: String,
    path: String,
    query: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

impl Wire {
    fn verify(&self, payload: Payload<'_>, now: SystemTime) -> Result<stratus_sigv4::Verified, stratus_sigv4::Error> {
        let headers: Vec<(&str, &[u8])> = self.headers.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
        let request = Request {
            method: &self.method,
            path: &self.path,
            query: &self.query,
            headers: &headers,
            payload,
            host_bucket: None,
        };
        let signature = Signature::parse(&request)?.expect("signed");
        let secret = (signature.access_key_id() == AKID).then_some(SECRET);
        signature.verify(&request, secret, now, &SigningKeys::new())
    }

    fn check(&self, now: SystemTime) -> Result<stratus_sigv4::Verified, stratus_sigv4::Error> {
        self.verify(Payload::Body(&self.body), now)
    }
}

fn settings(s3: bool, presign: bool) -> SigningSettings {
    let mut settings = SigningSettings::default();
    if s3 {
        settings.percent_encoding_mode = PercentEncodingMode::Single;
        settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    }
    if presign {
        settings.signature_location = SignatureLocation::QueryParams;
        settings.expires_in = Some(Duration::from_secs(900));
    }
    settings
}

/// Signs `case` with the AWS signer and returns it as it would arrive.
fn sign_with_aws(case: &Case) -> Wire {
    let s3 = case.service == "s3";
    let identity: Identity = Credentials::new(AKID, SECRET, case.token.map(str::to_string), None, "test").into();
    let settings = settings(s3, case.presign);
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name(case.service)
        .time(UNIX_EPOCH + Duration::from_secs(SIGNED_AT))
        .settings(settings)
        .build()
        .unwrap()
        .into();
    let host = format!("{}.us-east-1.amazonaws.com", case.service);
    let mut headers = vec![("host", host.clone())];
    headers.extend(case.headers.iter().map(|(n, v)| (*n, v.to_string())));
    let precomputed = hex(&sha2_256(case.body));
    let body = match case.payload {
        Signed::Body => SignableBody::Bytes(case.body),
        Signed::Unsigned => SignableBody::UnsignedPayload,
        Signed::Precomputed => SignableBody::Precomputed(precomputed),
        Signed::StreamingTrailer => SignableBody::StreamingSignedPayloadTrailer,
        Signed::UnsignedTrailer => SignableBody::StreamingUnsignedPayloadTrailer,
    };
    let uri = format!("https://{host}{}", case.target);
    let signable = SignableRequest::new(
        case.method,
        uri.clone(),
        headers.iter().map(|(n, v)| (*n, v.as_str())),
        body,
    )
    .unwrap();
    let (instructions, _) = sign(signable, &params).unwrap().into_parts();
    let mut request = http::Request::builder().method(case.method).uri(&uri);
    for (n, v) in &headers {
        request = request.header(*n, v);
    }
    let mut request = request.body(()).unwrap();
    instructions.apply_to_request_http1x(&mut request);
    Wire {
        method: case.method.to_string(),
        path: request.uri().path().to_string(),
        query: request.uri().query().unwrap_or("").to_string(),
        headers: request
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
            .collect(),
        body: case.body.to_vec(),
    }
}

fn sha2_256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn cases() -> Vec<Case> {
    let mut all = vec![
        case("iam query GET", "GET", "iam", "/?Action=ListUsers&Version=2010-05-08"),
        case(
            "odd query strings",
            "GET",
            "execute-api",
            "/?b=2&a=1&a=0&empty=&flag&sp%20ace=x%2By&plus=a+b&tilde=~&uni=%C3%A9&star=*&sl=%2F",
        ),
        case(
            "encoded and dotted path",
            "GET",
            "execute-api",
            "/foo%20bar/baz%2Fqux/./x/../y//z/",
        ),
        case("empty path", "GET", "sts", "/"),
    ];
    let mut form = case("POST form body", "POST", "sqs", "/");
    form.headers = vec![("content-type", "application/x-www-form-urlencoded; charset=utf-8")];
    form.body = b"Action=SendMessage&MessageBody=hello%20world&QueueUrl=http%3A%2F%2Fq";
    all.push(form);
    let mut json = case("JSON with folded header spaces and a token", "POST", "dynamodb", "/");
    json.headers = vec![
        ("content-type", "application/x-amz-json-1.0"),
        ("x-amz-target", "DynamoDB_20120810.GetItem"),
        ("x-amz-meta-note", "  several   spaces  between   words "),
    ];
    json.body = br#"{"TableName":"t","Key":{"k":{"S":"v"}}}"#;
    json.token = Some("FQoGZXIvYXdzEXAMPLETOKEN+/=");
    all.push(json);
    let mut put = case(
        "S3 PUT, single encoding",
        "PUT",
        "s3",
        "/bucket/my%20key/with%2Bplus/caf%C3%A9//double/./dot",
    );
    put.headers = vec![("content-type", "text/plain"), ("x-amz-meta-a", "b  c")];
    put.body = b"hello, world";
    all.push(put);
    let mut unsigned = case(
        "S3 UNSIGNED-PAYLOAD",
        "PUT",
        "s3",
        "/bucket/key?partNumber=1&uploadId=abc%3D%3D",
    );
    unsigned.body = b"some bytes";
    unsigned.payload = Signed::Unsigned;
    all.push(unsigned);
    let mut get = case(
        "S3 GET with query",
        "GET",
        "s3",
        "/bucket?list-type=2&prefix=a%2Fb%20c&max-keys=5",
    );
    get.token = Some("s3-session-token");
    all.push(get);
    let mut presigned = case(
        "S3 presigned GET",
        "GET",
        "s3",
        "/bucket/photos/puppy%20%281%29.jpg?versionId=3",
    );
    presigned.presign = true;
    presigned.payload = Signed::Unsigned;
    all.push(presigned);
    let mut presigned_token = case("S3 presigned PUT with a token", "PUT", "s3", "/bucket/k");
    presigned_token.presign = true;
    presigned_token.payload = Signed::Unsigned;
    presigned_token.token = Some("presign/token+value=");
    all.push(presigned_token);
    let mut sts = case(
        "STS presigned",
        "GET",
        "sts",
        "/?Action=GetCallerIdentity&Version=2011-06-15",
    );
    sts.presign = true;
    all.push(sts);
    let mut precomputed = case("S3 precomputed hash", "PUT", "s3", "/bucket/precomputed");
    precomputed.body = b"precomputed body";
    precomputed.payload = Signed::Precomputed;
    all.push(precomputed);
    let mut unsigned_trailer = case("S3 STREAMING-UNSIGNED-PAYLOAD-TRAILER", "PUT", "s3", "/bucket/streamed");
    unsigned_trailer.payload = Signed::UnsignedTrailer;
    unsigned_trailer.headers = vec![
        ("content-encoding", "aws-chunked"),
        ("x-amz-decoded-content-length", "5"),
        ("x-amz-trailer", "x-amz-checksum-crc32"),
    ];
    all.push(unsigned_trailer);
    all
}

fn at(offset: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(SIGNED_AT + offset)
}

/// `text` with the byte at `i` changed (to another character that keeps the text ASCII).
fn flip(text: &[u8], i: usize) -> Vec<u8> {
    let mut out = text.to_vec();
    out[i] = if out[i] == b'x' { b'y' } else { b'x' };
    out
}

/// Positions to tamper with: the first, middle and last byte.
fn positions(len: usize) -> Vec<usize> {
    let mut p = vec![0, len / 2, len.saturating_sub(1)];
    p.dedup();
    p.into_iter().filter(|&i| i < len).collect()
}

#[test]
fn aws_signed_requests_verify() {
    for case in cases() {
        let wire = sign_with_aws(&case);
        let verified = wire
            .check(at(60))
            .unwrap_or_else(|e| panic!("{}: {e}\n{:?}", case.name, e.signature_mismatch()));
        assert_eq!(verified.access_key_id, AKID, "{}", case.name);
        assert_eq!(verified.security_token.as_deref(), case.token, "{}", case.name);
        match case.payload {
            Signed::Unsigned => assert!(matches!(verified.body, Body::Unsigned), "{}", case.name),
            Signed::UnsignedTrailer => assert!(matches!(verified.body, Body::UnsignedChunks), "{}", case.name),
            _ => assert!(matches!(verified.body, Body::Checked), "{}", case.name),
        }
    }
}

#[test]
fn one_changed_byte_fails() {
    let tampered = std::cell::Cell::new(0);
    for case in cases() {
        let wire = sign_with_aws(&case);
        let refused = |w: &Wire, what: &str| match w.check(at(60)) {
            Ok(_) => panic!("{}: changing {what} still verified", case.name),
            Err(e) => {
                tampered.set(tampered.get() + 1);
                e
            }
        };
        let expect_mismatch = |w: &Wire, what: &str| {
            let e = refused(w, what);
            assert_eq!(e.kind(), ErrorKind::SignatureDoesNotMatch, "{}: {what}: {e}", case.name);
        };
        let mut w = sign_with_aws(&case);
        w.method = String::from_utf8(flip(wire.method.as_bytes(), 1)).unwrap();
        expect_mismatch(&w, "the method");
        for i in positions(wire.path.len()).into_iter().skip(1) {
            let mut w = sign_with_aws(&case);
            w.path = String::from_utf8(flip(wire.path.as_bytes(), i)).unwrap();
            expect_mismatch(&w, &format!("path byte {i}"));
        }
        // Every query parameter's value (the presigned ones included, which fail one way or
        // another), and the names of the request's own.
        for (start, param) in split_params(&wire.query) {
            let (name, value) = param.split_once('=').unwrap_or((param, ""));
            let auth_param = name.starts_with("X-Amz-");
            let mut targets: Vec<usize> = (0..value.len()).map(|i| start + name.len() + 1 + i).take(1).collect();
            if !auth_param {
                targets.push(start);
            }
            for i in targets {
                let mut w = sign_with_aws(&case);
                w.query = String::from_utf8(flip(wire.query.as_bytes(), i)).unwrap();
                if auth_param {
                    refused(&w, &format!("query byte {i} ({name})"));
                } else {
                    expect_mismatch(&w, &format!("query byte {i} ({name})"));
                }
            }
        }
        for (h, (name, value)) in wire.headers.iter().enumerate() {
            if name == "authorization" || value.is_empty() {
                continue;
            }
            for i in positions(value.len()) {
                let mut w = sign_with_aws(&case);
                w.headers[h].1 = flip(value, i);
                if value[i] == b' ' {
                    continue; // a space changed to a letter changes the value; covered elsewhere
                }
                if name == "x-amz-date" || name == "x-amz-content-sha256" {
                    refused(&w, &format!("header {name}"));
                } else {
                    expect_mismatch(&w, &format!("header {name} byte {i}"));
                }
            }
        }
        if let Some((h, (_, auth))) = wire.headers.iter().enumerate().find(|(_, (n, _))| n == "authorization") {
            let mut w = sign_with_aws(&case);
            let last = auth.len() - 1;
            w.headers[h].1 = flip(auth, last);
            expect_mismatch(&w, "the signature");
        }
        if !wire.body.is_empty() && !matches!(case.payload, Signed::Unsigned | Signed::UnsignedTrailer) {
            let mut w = sign_with_aws(&case);
            w.body = flip(&wire.body, wire.body.len() / 2);
            let e = refused(&w, "the body");
            let expected = if case.service == "s3" {
                ErrorKind::ContentSha256Mismatch
            } else {
                ErrorKind::SignatureDoesNotMatch
            };
            assert_eq!(e.kind(), expected, "{}: body", case.name);
        }
    }
    // Every case contributes its method, path, query, headers, signature and body.
    assert!(tampered.get() > 150, "only {} changes tried", tampered.get());
}

/// Each `name=value` of a raw query with the offset it starts at.
fn split_params(query: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for param in query.split('&') {
        if !param.is_empty() {
            out.push((start, param));
        }
        start += param.len() + 1;
    }
    out
}

#[test]
fn time_limits() {
    let mut header_signed = case("time", "GET", "sts", "/?Action=GetCallerIdentity&Version=2011-06-15");
    let wire = sign_with_aws(&header_signed);
    assert!(wire.check(at(15 * 60)).is_ok());
    let e = wire.check(at(15 * 60 + 1)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RequestTimeTooSkewed);
    assert_eq!(e.skew(), Some((SIGNED_AT as i64, SIGNED_AT as i64 + 901)));
    let early = wire.verify(Payload::Body(b""), UNIX_EPOCH + Duration::from_secs(SIGNED_AT - 901));
    assert_eq!(early.unwrap_err().kind(), ErrorKind::RequestTimeTooSkewed);

    header_signed.presign = true;
    let presigned = sign_with_aws(&header_signed);
    assert!(presigned.check(at(900)).is_ok());
    let e = presigned.check(at(901)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RequestExpired);
    assert_eq!(e.message(stratus_sigv4::Dialect::S3), "Request has expired");
    assert_eq!(e.code(stratus_sigv4::Dialect::S3), "AccessDenied");
}

#[test]
fn unknown_key_and_deferred_body() {
    let mut put = case("deferred", "PUT", "s3", "/bucket/key");
    put.body = b"streamed later";
    let wire = sign_with_aws(&put);
    let headers: Vec<(&str, &[u8])> = wire.headers.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
    let request = Request {
        method: "PUT",
        path: &wire.path,
        query: &wire.query,
        headers: &headers,
        payload: Payload::Deferred,
        host_bucket: None,
    };
    let signature = Signature::parse(&request).unwrap().unwrap();
    let keys = SigningKeys::new();
    let e = signature.verify(&request, None, at(0), &keys).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnknownAccessKey);
    assert_eq!(e.code(stratus_sigv4::Dialect::S3), "InvalidAccessKeyId");
    assert_eq!(e.code(stratus_sigv4::Dialect::Aws), "InvalidClientTokenId");
    match signature.verify(&request, Some(SECRET), at(0), &keys).unwrap().body {
        Body::MustHash(hash) => assert_eq!(hash, sha2_256(b"streamed later")),
        other => panic!("{other:?}"),
    }
    assert_eq!(signature.check_region("us-east-1"), Ok(()));
    let wrong = signature.check_region("eu-west-1").unwrap_err();
    assert_eq!(wrong.kind(), ErrorKind::AuthorizationHeaderMalformed);
    assert_eq!(
        wrong.message(stratus_sigv4::Dialect::S3),
        "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-west-1'"
    );
    assert_eq!(wrong.details(), vec![("Region", "eu-west-1".to_string())]);
}

/// Chunk and trailer signatures made by the AWS signer's `sign_chunk` and `sign_trailer`.
#[test]
fn aws_signed_chunks_and_trailer_verify() {
    let mut put = case("chunked", "PUT", "s3", "/bucket/chunked");
    put.payload = Signed::StreamingTrailer;
    put.headers = vec![
        ("content-encoding", "aws-chunked"),
        ("x-amz-decoded-content-length", "70000"),
        ("x-amz-trailer", "x-amz-checksum-crc32"),
    ];
    let wire = sign_with_aws(&put);
    let verified = wire.verify(Payload::Deferred, at(1)).unwrap();
    let Body::SignedChunks(mut chain) = verified.body else {
        panic!("{:?}", verified.body);
    };
    assert!(chain.expects_trailer());
    let identity: Identity = Credentials::new(AKID, SECRET, None, None, "test").into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name("s3")
        .time(UNIX_EPOCH + Duration::from_secs(SIGNED_AT))
        .settings(())
        .build()
        .unwrap();
    let mut previous = chain.previous_signature();
    let data = vec![b'z'; 70_000];
    let chunks = [&data[..65_536], &data[65_536..], &[][..]];
    let mut tamper_check = chain.clone();
    for chunk in chunks {
        let bytes = bytes_of(chunk);
        let signature = aws_sigv4::sign::v4::sign_chunk(&bytes, &previous, &params)
            .unwrap()
            .signature()
            .to_string();
        chain.verify_chunk(chunk, &signature).unwrap();
        previous = signature;
    }
    let mut trailers = aws_smithy_runtime_api::http::Headers::new();
    trailers.insert("x-amz-checksum-crc32", "sOO8/Q==");
    let signature = aws_sigv4::sign::v4::sign_trailer(&trailers, &previous, &params)
        .unwrap()
        .signature()
        .to_string();
    let mut bad_trailer = chain.clone();
    chain
        .verify_trailer(&[("x-amz-checksum-crc32", "sOO8/Q==")], &signature)
        .unwrap();
    let e = bad_trailer
        .verify_trailer(&[("x-amz-checksum-crc32", "sOO8/Q=x")], &signature)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::SignatureDoesNotMatch);
    assert!(e
        .signature_mismatch()
        .unwrap()
        .string_to_sign
        .starts_with("AWS4-HMAC-SHA256-TRAILER\n"));

    // A changed chunk, or the right chunks out of order, fail.
    let first = aws_sigv4::sign::v4::sign_chunk(&bytes_of(chunks[0]), &tamper_check.previous_signature(), &params)
        .unwrap()
        .signature()
        .to_string();
    let mut changed = chunks[0].to_vec();
    changed[100] = b'y';
    assert!(tamper_check.clone().verify_chunk(&changed, &first).is_err());
    let second = aws_sigv4::sign::v4::sign_chunk(&bytes_of(chunks[1]), &first, &params)
        .unwrap()
        .signature()
        .to_string();
    assert!(tamper_check.clone().verify_chunk(chunks[1], &second).is_err());
    tamper_check.verify_chunk(chunks[0], &first).unwrap();
    tamper_check.verify_chunk(chunks[1], &second).unwrap();
}

fn bytes_of(chunk: &[u8]) -> bytes::Bytes {
    bytes::Bytes::copy_from_slice(chunk)
}
