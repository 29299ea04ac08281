//! What is refused before any signature is computed, and how AWS words it.

use std::time::{Duration, UNIX_EPOCH};

use stratus_sigv4::{Dialect, ErrorKind, Payload, Request, Signature, SigningKeys};

fn parse(headers: &[(&str, &[u8])], query: &str) -> Result<Option<ErrorKind>, stratus_sigv4::Error> {
    let request = Request {
        method: "GET",
        path: "/",
        query,
        headers,
        payload: Payload::Body(b""),
        host_bucket: None,
    };
    Signature::parse(&request).map(|s| s.map(|_| ErrorKind::SignatureDoesNotMatch))
}

const DATE: (&str, &[u8]) = ("x-amz-date", b"20130524T000000Z");

#[test]
fn anonymous_requests_have_no_signature() {
    assert_eq!(parse(&[("host", b"h")], "list-type=2"), Ok(None));
    assert_eq!(parse(&[], ""), Ok(None));
}

#[test]
fn incomplete_authorization_headers_list_what_is_missing() {
    let auth = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20130524/us-east-1/sts/aws4_request";
    let e = parse(&[("Authorization", auth.as_bytes()), DATE], "").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::IncompleteSignature);
    assert_eq!(e.missing(), ["Signature", "SignedHeaders"]);
    assert_eq!(
        e.message(Dialect::Aws),
        format!(
            "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' \
             parameter. Authorization={auth}"
        )
    );
    assert_eq!(e.code(Dialect::Aws), "IncompleteSignature");
    assert_eq!(e.code(Dialect::S3), "AuthorizationHeaderMalformed");
    assert_eq!(
        e.message(Dialect::S3),
        "The authorization header is malformed; the authorization header requires three components: Credential, \
         SignedHeaders, and Signature."
    );

    let e = parse(&[("Authorization", b"AWS4-HMAC-SHA256 ")], "").unwrap_err();
    assert_eq!(e.missing(), ["Credential", "Signature", "SignedHeaders", "Date"]);
    assert!(e.message(Dialect::Aws).contains(
        "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization="
    ));
}

#[test]
fn malformed_parts() {
    let no_equals = parse(&[("Authorization", b"AWS4-HMAC-SHA256 Credential"), DATE], "").unwrap_err();
    assert!(no_equals
        .message(Dialect::S3)
        .contains("not a valid key=value pair (missing equal-sign)"));
    let credential =
        b"AWS4-HMAC-SHA256 Credential=AKID/2013/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00";
    let e = parse(&[("Authorization", credential), DATE], "").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AuthorizationHeaderMalformed);
    assert!(e.message(Dialect::S3).contains("the Credential is mal-formed"));
    let terminal =
        b"AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws5_request, SignedHeaders=host, Signature=00";
    let e = parse(&[("Authorization", terminal), DATE], "").unwrap_err();
    assert!(e.message(Dialect::S3).contains("incorrect terminal \"aws5_request\""));
    let bad_date =
        b"AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00";
    let e = parse(&[("Authorization", bad_date), ("x-amz-date", b"yesterday")], "").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MissingDate);
    assert_eq!(e.code(Dialect::S3), "AccessDenied");
}

#[test]
fn sigv4a_is_recognised_and_refused() {
    let header = b"AWS4-ECDSA-P256-SHA256 Credential=AKID/20130524/s3/aws4_request, SignedHeaders=host;x-amz-region-set, Signature=3045";
    let e = parse(&[("Authorization", header), DATE], "").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedAlgorithm);
    assert!(e.message(Dialect::S3).contains("SigV4a (AWS4-ECDSA-P256-SHA256)"));
    assert_eq!((e.code(Dialect::S3), e.status(Dialect::S3)), ("NotImplemented", 501));
    let e = parse(&[], "X-Amz-Algorithm=AWS4-ECDSA-P256-SHA256&X-Amz-Credential=x").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedAlgorithm);

    // A SigV4 header over a SigV4a-streamed body.
    let auth = b"AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, \
        SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=00";
    let headers: &[(&str, &[u8])] = &[
        ("Authorization", auth),
        DATE,
        ("x-amz-content-sha256", b"STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD"),
    ];
    let request = Request {
        method: "PUT",
        path: "/b/k",
        query: "",
        headers,
        payload: Payload::Deferred,
        host_bucket: None,
    };
    let signature = Signature::parse(&request).unwrap().unwrap();
    let now = UNIX_EPOCH + Duration::from_secs(1_369_353_600);
    let e = signature
        .verify(&request, Some("secret"), now, &SigningKeys::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedAlgorithm);
}

#[test]
fn unknown_schemes() {
    let e = parse(&[("Authorization", b"Bearer abc")], "").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedAuthorizationType);
    assert_eq!(e.code(Dialect::S3), "InvalidArgument");
    assert_eq!(e.message(Dialect::S3), "Unsupported Authorization Type");
    assert_eq!(
        e.details(),
        vec![
            ("ArgumentName", "Authorization".into()),
            ("ArgumentValue", "Bearer abc".into())
        ]
    );
    assert!(e.message(Dialect::Aws).ends_with("Authorization=Bearer abc"));
    let e = parse(&[], "X-Amz-Algorithm=HMAC-MD5").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AuthorizationQueryParametersError);
    // SigV2 of the query APIs (SignatureVersion=2) is not S3's.
    let e = parse(&[], "AWSAccessKeyId=AKID&SignatureVersion=2&Signature=x&Timestamp=t").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::UnsupportedAuthorizationType);
}

#[test]
fn presigned_parameters() {
    let base = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20130524%2Fus-east-1%2Fs3%2Faws4_request\
                &X-Amz-Date=20130524T000000Z&X-Amz-SignedHeaders=host&X-Amz-Signature=00";
    let e = parse(&[], base).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AuthorizationQueryParametersError);
    assert_eq!(
        e.message(Dialect::S3),
        "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, \
         X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters."
    );
    assert!(parse(&[], &format!("{base}&X-Amz-Expires=60")).unwrap().is_some());
    let week = parse(&[], &format!("{base}&X-Amz-Expires=604801")).unwrap_err();
    assert_eq!(
        week.message(Dialect::S3),
        "X-Amz-Expires must be less than a week (in seconds) that is 604800"
    );
    // Other services' query signatures may leave the expiry out.
    let sts = base.replace("%2Fs3%2F", "%2Fsts%2F");
    assert!(parse(&[], &sts).unwrap().is_some());
}

#[test]
fn s3_refuses_unsigned_amz_headers() {
    let auth = b"AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, \
        SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=00";
    let headers: &[(&str, &[u8])] = &[
        ("Authorization", auth),
        ("Host", b"b.s3.amazonaws.com"),
        DATE,
        ("x-amz-content-sha256", b"UNSIGNED-PAYLOAD"),
        ("X-Amz-Acl", b"public-read"),
        ("x-amz-meta-a", b"1"),
    ];
    let request = Request {
        method: "PUT",
        path: "/k",
        query: "",
        headers,
        payload: Payload::Deferred,
        host_bucket: None,
    };
    let signature = Signature::parse(&request).unwrap().unwrap();
    let now = UNIX_EPOCH + Duration::from_secs(1_369_353_600);
    let e = signature
        .verify(&request, Some("secret"), now, &SigningKeys::new())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::HeadersNotSigned);
    assert_eq!(e.unsigned_headers(), ["x-amz-acl", "x-amz-meta-a"]);
    assert_eq!((e.code(Dialect::S3), e.status(Dialect::S3)), ("AccessDenied", 403));
    assert_eq!(
        e.details(),
        vec![("HeadersNotSigned", "x-amz-acl, x-amz-meta-a".to_string())]
    );
}
