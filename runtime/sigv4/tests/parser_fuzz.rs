//! Property test: reading and verifying signatures never panics, whatever the Authorization
//! header, presigned query, path, dates or chunk signatures. Inputs are seeded mutations of
//! real signatures, so a failure reproduces from the printed seed.

use std::time::{Duration, UNIX_EPOCH};

use stratus_sigv4::{Body, ChunkSignatures, Payload, Request, Signature, SigningKeys};
use stratus_test_support::{mutate, Rng};

const TOKENS: &[&[u8]] = &[
    b"AWS4-HMAC-SHA256",
    b"AWS4-ECDSA-P256-SHA256",
    b"AWS ",
    b"Credential=",
    b"SignedHeaders=",
    b"Signature=",
    b"/",
    b",",
    b";",
    b":",
    b"=",
    b"&",
    b"%",
    b"%2F",
    b"%zz",
    b"+",
    b" ",
    b"X-Amz-Expires=",
    b"X-Amz-Date=",
    b"99999999999999999999",
    b"-1",
    b"aws4_request",
    b"\xc3\xa9",
    b"\xff",
    b"..",
];

const HEADERS: &[&[u8]] = &[
    b"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    b"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20130524/us-east-1/sts/aws4_request,SignedHeaders=host;x-amz-date,Signature=00",
    b"AWS AKIAIOSFODNN7EXAMPLE:bWq2s1WEIj+Ydj0vQ697zp+IXMU=",
];

const QUERIES: &[&[u8]] = &[
    b"X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    b"AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1175139620&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D",
    b"list-type=2&prefix=a%2Fb&acl&versionId=3",
];

#[test]
fn parsing_and_verifying_never_panic() {
    let seed = 0x5167_4a11_f00d_0001;
    let mut rng = Rng(seed);
    let keys = SigningKeys::with_capacity(8);
    let now = UNIX_EPOCH + Duration::from_secs(1_369_353_600);
    let (mut parsed, mut refused) = (0, 0);
    for i in 0..20_000 {
        let header_seed = HEADERS[rng.below(HEADERS.len())];
        let header = mutate(&mut rng, header_seed, TOKENS);
        let query_seed = QUERIES[rng.below(QUERIES.len())];
        let query_bytes = mutate(&mut rng, query_seed, TOKENS);
        let query = String::from_utf8_lossy(&query_bytes);
        let path_bytes = mutate(&mut rng, b"/bucket/a%20b/./c/../d//e", TOKENS);
        let path = String::from_utf8_lossy(&path_bytes);
        let date = mutate(&mut rng, b"20130524T000000Z", TOKENS);
        let content = mutate(&mut rng, b"STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", TOKENS);
        let mut headers: Vec<(&str, &[u8])> = vec![
            ("host", b"examplebucket.s3.amazonaws.com"),
            ("x-amz-date", &date),
            ("x-amz-content-sha256", &content),
            ("date", b"Tue, 27 Mar 2007 19:36:42 +0000"),
        ];
        // Half the requests are presigned only.
        if i % 2 == 0 {
            headers.push(("authorization", &header));
        }
        let request = Request {
            method: "PUT",
            path: &path,
            query: &query,
            headers: &headers,
            payload: if i % 3 == 0 {
                Payload::Deferred
            } else {
                Payload::Body(b"body")
            },
            host_bucket: (i % 5 == 0).then_some("examplebucket"),
        };
        match Signature::parse(&request) {
            Ok(Some(signature)) => {
                parsed += 1;
                let _ = signature.access_key_id();
                let _ = signature.scope();
                let _ = signature.check_region("us-east-1");
                match signature.verify(&request, Some("secret"), now, &keys) {
                    Ok(verified) => {
                        if let Body::SignedChunks(mut chain) = verified.body {
                            let sig = mutate(
                                &mut rng,
                                b"ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
                                TOKENS,
                            );
                            let _ = chain.verify_chunk(b"data", &String::from_utf8_lossy(&sig));
                        }
                    }
                    Err(e) => {
                        for dialect in [stratus_sigv4::Dialect::S3, stratus_sigv4::Dialect::Aws] {
                            let _ = (e.code(dialect), e.status(dialect), e.message(dialect));
                        }
                        let _ = e.details();
                    }
                }
            }
            Ok(None) => {}
            Err(e) => {
                refused += 1;
                let _ = (e.message(stratus_sigv4::Dialect::Aws), e.details());
            }
        }
    }
    // Both paths were exercised.
    assert!(
        parsed > 1000 && refused > 1000,
        "seed {seed:#x}: parsed {parsed}, refused {refused}"
    );

    let mut chain = ChunkSignatures::new(
        [7; 32],
        "AKID",
        "20130524T000000Z",
        "20130524/us-east-1/s3/aws4_request",
        [1; 32],
        true,
    );
    for _ in 0..2_000 {
        let sig = mutate(
            &mut rng,
            b"0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
            TOKENS,
        );
        let name = mutate(&mut rng, b"x-amz-checksum-crc32", TOKENS);
        let sig = String::from_utf8_lossy(&sig);
        let name = String::from_utf8_lossy(&name);
        assert!(chain.verify_trailer(&[(&name, "sOO8/Q==")], &sig).is_err());
    }
}
