//! Who signed a request and for which service: the parts of AWS Signature Version 4 (and the
//! access key of Version 2) that routing and caller identity need, and when a presigned
//! request expires. Signatures are not verified — Stratus accepts any credentials, as the
//! brief asks of a local AWS — but an expired presigned URL is refused, as AWS refuses it.
//!
//! ```
//! use stratus_server::sigv4::Signer;
//! let auth = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, \
//!             SignedHeaders=host;x-amz-date, Signature=5d67";
//! let signer = Signer::from_authorization(auth).unwrap();
//! assert_eq!((signer.access_key_id, signer.service), ("AKIDEXAMPLE", Some("iam")));
//! ```

use stratus_core::calendar::parse_amz_date;
use stratus_protocol::urlencoded;

/// The signer of a request, borrowed from its header or query parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signer<'r> {
    /// The access key id the request was signed with (its credential's first part).
    pub access_key_id: &'r str,
    /// The credential scope's region (SigV4 only).
    pub region: Option<&'r str>,
    /// The credential scope's signing name, e.g. `sts` (SigV4 only).
    pub service: Option<&'r str>,
    /// When a presigned request stops being valid (seconds since the epoch): SigV4's
    /// `X-Amz-Date` plus `X-Amz-Expires`, or SigV2's `Expires`.
    pub expires_at: Option<i64>,
}

/// The longest a SigV4 presigned URL may be valid: a week.
const MAX_PRESIGNED_SECONDS: i64 = 604_800;

/// Why presigned query parameters cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresignError(pub &'static str);

impl<'r> Signer<'r> {
    /// Reads an `Authorization` header: `AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/SERVICE/aws4_request, …`
    /// or SigV2's `AWS KEY:SIGNATURE`.
    pub fn from_authorization(header: &'r str) -> Option<Signer<'r>> {
        if let Some(rest) = header.strip_prefix("AWS4-HMAC-SHA256") {
            let credential = rest
                .split(',')
                .map(str::trim)
                .find_map(|part| part.strip_prefix("Credential="))?;
            return Signer::from_credential(credential);
        }
        let key = header.strip_prefix("AWS ")?.split(':').next()?.trim();
        (!key.is_empty()).then_some(Signer {
            access_key_id: key,
            region: None,
            service: None,
            expires_at: None,
        })
    }

    /// Reads a credential scope `KEY/DATE/REGION/SERVICE/aws4_request` (also the presigned
    /// `X-Amz-Credential` query parameter, once percent-decoded).
    pub fn from_credential(credential: &'r str) -> Option<Signer<'r>> {
        let mut parts = credential.split('/');
        let key = parts.next().filter(|k| !k.is_empty())?;
        let _date = parts.next()?;
        let region = parts.next()?;
        let service = parts.next()?;
        Some(Signer {
            access_key_id: key,
            region: Some(region),
            service: Some(service),
            expires_at: None,
        })
    }

    /// Reads the signer from query parameters: presigned SigV4 (`X-Amz-Credential`, with
    /// `X-Amz-Date` and `X-Amz-Expires`) or SigV2 (`AWSAccessKeyId`, with `Expires`). `Err`
    /// when the expiry parameters are unusable, with AWS's message.
    pub fn from_query(
        params: impl IntoIterator<Item = (&'r str, &'r str)>,
    ) -> Result<Option<Signer<'r>>, PresignError> {
        let (mut v4, mut v2, mut date, mut expires, mut v2_expires) = (None, None, None, None, None);
        for (k, v) in params {
            match k {
                "X-Amz-Credential" => {
                    let scoped = v.split('/').count() == 5 && v.ends_with("/aws4_request");
                    v4 = Some(Signer::from_credential(v).filter(|_| scoped).ok_or(PresignError(
                        "Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".",
                    ))?);
                }
                "AWSAccessKeyId" if !v.is_empty() => {
                    v2 = Some(Signer {
                        access_key_id: v,
                        region: None,
                        service: None,
                        expires_at: None,
                    })
                }
                "X-Amz-Date" => date = Some(v),
                "X-Amz-Expires" => expires = Some(v),
                "Expires" => v2_expires = Some(v),
                _ => {}
            }
        }
        if let Some(mut signer) = v4 {
            if let Some(expires) = expires {
                let seconds: i64 = expires
                    .parse()
                    .map_err(|_| PresignError("X-Amz-Expires should be a number"))?;
                if seconds < 0 {
                    return Err(PresignError("X-Amz-Expires must be non-negative"));
                }
                if seconds > MAX_PRESIGNED_SECONDS {
                    return Err(PresignError(
                        "X-Amz-Expires must be less than a week (in seconds) that is 604800",
                    ));
                }
                let signed = date.and_then(parse_amz_date).ok_or(PresignError(
                    "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
                ))?;
                signer.expires_at = Some(signed + seconds);
            }
            return Ok(Some(signer));
        }
        Ok(v2.map(|mut signer| {
            signer.expires_at = v2_expires.and_then(|e| e.parse().ok());
            signer
        }))
    }

    /// Whether the request was presigned and has expired at `now` (seconds since the epoch).
    pub fn expired(&self, now: i64) -> bool {
        self.expires_at.is_some_and(|at| now > at)
    }
}

/// The query parameters of a presigned SigV4 URL that are its signature, not headers.
const V4_QUERY_AUTH: [&str; 6] = [
    "x-amz-algorithm",
    "x-amz-credential",
    "x-amz-date",
    "x-amz-expires",
    "x-amz-signedheaders",
    "x-amz-signature",
];

/// The standard headers a presigned URL may carry as query parameters.
const QUERY_HEADERS: [&str; 5] = [
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
    "content-md5",
];

/// Moves into `parts`' headers the headers a presigned URL carries as query parameters, as S3
/// reads them: botocore's `s3` (SigV2) signer puts an object's metadata there, and a SigV4
/// presigned URL may sign `If-None-Match` so. `x-amz-*` and the conditions are taken; a header
/// the request sends itself wins.
pub(crate) fn lift_presigned_headers(parts: &mut http::request::Parts) {
    // Asked of every request: only a query that can hold a signature is decoded.
    let Some(query) = parts.uri.query().filter(|q| q.contains("Signature=")) else {
        return;
    };
    let pairs: Vec<_> = urlencoded::pairs(query).filter_map(Result::ok).collect();
    let named = |param: &str| pairs.iter().any(|(k, _)| k == param);
    let v2 = named("AWSAccessKeyId") && named("Signature");
    let v4 = named("X-Amz-Credential") && named("X-Amz-Signature");
    if !v2 && !v4 {
        return;
    }
    for (name, value) in &pairs {
        let name = name.to_ascii_lowercase();
        let header = (name.starts_with("x-amz-") && !V4_QUERY_AUTH.contains(&name.as_str()))
            || QUERY_HEADERS.contains(&name.as_str());
        if !header {
            continue;
        }
        let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(name.as_bytes()),
            http::HeaderValue::from_bytes(value.as_bytes()),
        ) else {
            continue;
        };
        parts.headers.entry(name).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigv4_header() {
        let s = Signer::from_authorization(
            "AWS4-HMAC-SHA256 Credential=ASIAXYZ/20240101/eu-west-1/dynamodb/aws4_request,SignedHeaders=host,Signature=ab",
        )
        .unwrap();
        assert_eq!(s.access_key_id, "ASIAXYZ");
        assert_eq!(s.region, Some("eu-west-1"));
        assert_eq!(s.service, Some("dynamodb"));
    }

    #[test]
    fn sigv2_header_and_query() {
        let s = Signer::from_authorization("AWS AKIAEXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=").unwrap();
        assert_eq!((s.access_key_id, s.service), ("AKIAEXAMPLE", None));
        let q = Signer::from_query([("Action", "ListUsers"), ("AWSAccessKeyId", "AKIA2")])
            .unwrap()
            .unwrap();
        assert_eq!((q.access_key_id, q.expires_at), ("AKIA2", None));
        let p = Signer::from_query([("X-Amz-Credential", "AKIA3/20240101/us-east-1/s3/aws4_request")])
            .unwrap()
            .unwrap();
        assert_eq!(p.service, Some("s3"));
        let v2 = Signer::from_query([("AWSAccessKeyId", "AKIA2"), ("Expires", "1700000000")])
            .unwrap()
            .unwrap();
        assert_eq!(v2.expires_at, Some(1_700_000_000));
        assert!(v2.expired(1_700_000_001) && !v2.expired(1_700_000_000));
    }

    // The limits of a SigV4 presigned URL (AWS S3 API reference, "Authenticating Requests:
    // Using Query Parameters"): X-Amz-Expires from 1 second to 7 days after X-Amz-Date.
    #[test]
    fn presigned_expiry() {
        let presigned = |expires: &'static str| {
            Signer::from_query([
                ("X-Amz-Credential", "AKIA/20260101/us-east-1/s3/aws4_request"),
                ("X-Amz-Date", "20260101T000010Z"),
                ("X-Amz-Expires", expires),
            ])
        };
        // 2026-01-01T00:00:10Z is 1767225610 (date -d 2026-01-01T00:00:10Z +%s).
        assert_eq!(
            presigned("3600").unwrap().unwrap().expires_at,
            Some(1_767_225_610 + 3600)
        );
        assert!(presigned("604800").is_ok());
        assert_eq!(
            presigned("604801").unwrap_err().0,
            "X-Amz-Expires must be less than a week (in seconds) that is 604800"
        );
        assert_eq!(presigned("soon").unwrap_err().0, "X-Amz-Expires should be a number");
        for date in [
            "2026-01-01T00:00:10Z",
            "20261301T000000Z",
            "20260101T0000Z",
            "2026010xT000000Z",
        ] {
            let bad = Signer::from_query([
                ("X-Amz-Credential", "AKIA/20260101/us-east-1/s3/aws4_request"),
                ("X-Amz-Date", date),
                ("X-Amz-Expires", "60"),
            ]);
            assert!(bad.is_err(), "{date}");
        }
    }

    #[test]
    fn garbage_is_none() {
        for h in [
            "",
            "Bearer x",
            "AWS4-HMAC-SHA256",
            "AWS4-HMAC-SHA256 Credential=",
            "AWS4-HMAC-SHA256 Credential=K/D",
            "AWS :",
        ] {
            assert_eq!(Signer::from_authorization(h), None, "{h}");
        }
    }

    #[test]
    fn a_mangled_presigned_credential_is_refused() {
        // A credential whose slashes were encoded twice (AWS's recorded refusal).
        let mangled = Signer::from_query([("X-Amz-Credential", "AKIA%2F20260101%2Fus-east-1%2Fs3%2Faws4_request")]);
        assert!(mangled
            .unwrap_err()
            .0
            .starts_with("Error parsing the X-Amz-Credential parameter"));
        assert!(Signer::from_query([("X-Amz-Credential", "AKIA/20260101/us-east-1/s3/other")]).is_err());
    }

    #[test]
    fn presigned_query_headers_become_headers() {
        let lifted = |uri: &str, sent: &[(&str, &str)]| {
            let mut builder = http::Request::builder().uri(uri);
            for (k, v) in sent {
                builder = builder.header(*k, *v);
            }
            let (mut parts, ()) = builder.body(()).unwrap().into_parts();
            lift_presigned_headers(&mut parts);
            parts.headers
        };
        let v2 = lifted(
            "/b/k?AWSAccessKeyId=A&Signature=s&Expires=1&x-amz-meta-foo=caf%C3%A9",
            &[],
        );
        assert_eq!(v2["x-amz-meta-foo"].as_bytes(), "café".as_bytes());
        let v4 = lifted(
            "/b/k?X-Amz-Credential=A%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=s&X-Amz-Date=20260101T000000Z&If-None-Match=%2A",
            &[("if-none-match", "\"sent\"")],
        );
        assert_eq!(v4["if-none-match"], "\"sent\"");
        assert!(!v4.contains_key("x-amz-date") && !v4.contains_key("x-amz-signature"));
        let unsigned = lifted("/b/k?x-amz-meta-foo=bar&If-Match=x", &[]);
        assert!(unsigned.is_empty());
        let v4 = lifted("/b/k?X-Amz-Credential=A&X-Amz-Signature=s&If-None-Match=%2A", &[]);
        assert_eq!(v4["if-none-match"], "*");
    }
}
