//! Verifying a typical header-signed request: a DynamoDB `GetItem` (JSON body, hashed here)
//! and an S3 `PutObject` whose body streams (hash declared in `x-amz-content-sha256`).
//!
//! `cargo bench -p stratus-sigv4 --bench verify`. The requests are signed once by the AWS
//! signer (`aws-sigv4`); the measured call is parse + verify, as the gateway would run it for
//! every request, with the signing key cached (`SigningKeys`) and, for comparison, derived
//! afresh every time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    sign, PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings,
    UriPathNormalizationMode,
};
use aws_smithy_runtime_api::client::identity::Identity;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use stratus_sigv4::{Payload, Request, Signature, SigningKeys};

const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

struct Signed {
    path: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

fn signed(service: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Signed {
    let identity: Identity = Credentials::new("AKIDEXAMPLE", SECRET, None, None, "bench").into();
    let mut settings = SigningSettings::default();
    let s3 = service == "s3";
    if s3 {
        settings.percent_encoding_mode = PercentEncodingMode::Single;
        settings.uri_path_normalization_mode = UriPathNormalizationMode::Disabled;
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    }
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region("us-east-1")
        .name(service)
        .time(now())
        .settings(settings)
        .build()
        .unwrap()
        .into();
    let host = format!("{service}.us-east-1.amazonaws.com");
    let mut all: Vec<(&str, &str)> = vec![("host", &host)];
    all.extend_from_slice(headers);
    let uri = format!("https://{host}{path}");
    let signable = SignableRequest::new(method, uri, all.iter().copied(), SignableBody::Bytes(body)).unwrap();
    let (instructions, _) = sign(signable, &params).unwrap().into_parts();
    let mut out: Vec<(String, Vec<u8>)> = all
        .iter()
        .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec()))
        .collect();
    out.extend(
        instructions
            .headers()
            .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec())),
    );
    Signed {
        path: path.to_string(),
        headers: out,
        body: body.to_vec(),
    }
}

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_710_074_096)
}

fn verify(signed: &Signed, payload: Payload<'_>, keys: &SigningKeys) {
    let headers: Vec<(&str, &[u8])> = signed.headers.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
    let request = Request {
        method: "POST",
        path: &signed.path,
        query: "",
        headers: &headers,
        payload,
        host_bucket: None,
    };
    let signature = Signature::parse(&request).unwrap().unwrap();
    signature.verify(&request, Some(SECRET), now(), keys).unwrap();
}

fn bench(c: &mut Criterion) {
    let get_item = signed(
        "dynamodb",
        "POST",
        "/",
        &[
            ("content-type", "application/x-amz-json-1.0"),
            ("x-amz-target", "DynamoDB_20120810.GetItem"),
            ("user-agent", "aws-sdk-rust/1.0 os/linux lang/rust/1.90"),
        ],
        br#"{"TableName":"Music","Key":{"Artist":{"S":"No One You Know"},"SongTitle":{"S":"Call Me Today"}},"ConsistentRead":true}"#,
    );
    let cached = SigningKeys::new();
    let uncached = SigningKeys::with_capacity(0);
    c.bench_function("verify dynamodb GetItem (key cached)", |b| {
        b.iter(|| verify(black_box(&get_item), Payload::Body(&get_item.body), &cached))
    });
    c.bench_function("verify dynamodb GetItem (key derived)", |b| {
        b.iter(|| verify(black_box(&get_item), Payload::Body(&get_item.body), &uncached))
    });

    c.bench_function("derive signing key", |b| {
        b.iter(|| stratus_sigv4::derive_signing_key(black_box(SECRET), "20240310", "us-east-1", "dynamodb"))
    });
    c.bench_function("SigningKeys::get, cached", |b| {
        b.iter(|| cached.get(black_box(SECRET), "20240310", "us-east-1", "dynamodb"))
    });

    let mut put = signed(
        "s3",
        "PUT",
        "/bucket/photos/2024/03/puppy.jpg",
        &[("content-type", "image/jpeg"), ("content-length", "65536")],
        &[7u8; 65_536],
    );
    put.body.clear();
    c.bench_function("verify s3 PutObject, body deferred (key cached)", |b| {
        b.iter(|| {
            let headers: Vec<(&str, &[u8])> = put.headers.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
            let request = Request {
                method: "PUT",
                path: &put.path,
                query: "",
                headers: &headers,
                payload: Payload::Deferred,
                host_bucket: None,
            };
            let signature = Signature::parse(black_box(&request)).unwrap().unwrap();
            signature.verify(&request, Some(SECRET), now(), &cached).unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
