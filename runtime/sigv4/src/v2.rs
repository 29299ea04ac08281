//! S3's Signature Version 2: `Authorization: AWS AKID:signature`, or the presigned
//! `AWSAccessKeyId`, `Expires` and `Signature` parameters; the signature is the base64
//! HMAC-SHA1 of the method, `Content-MD5`, `Content-Type`, the date (or `Expires`), the
//! `x-amz-` headers and the resource with its sub-resources (Amazon S3 User Guide, "Signing
//! and authenticating REST requests").

use base64::Engine as _;

use crate::canonical::percent_decode;
use crate::crypto::{constant_time_eq, hmac_sha1};
use crate::error::{Error, Mismatch};
use crate::request::Request;
use crate::signature::{Body, Text, Verified};
use crate::time::parse_http_date;

const MAX_SKEW_SECS: i64 = 15 * 60;

/// The query parameters S3 signs as part of the resource, sorted.
const SUBRESOURCES: &[&str] = &[
    "accelerate",
    "acl",
    "analytics",
    "cors",
    "delete",
    "encryption",
    "intelligent-tiering",
    "inventory",
    "legal-hold",
    "lifecycle",
    "location",
    "logging",
    "metrics",
    "notification",
    "object-lock",
    "ownershipControls",
    "partNumber",
    "policy",
    "policyStatus",
    "publicAccessBlock",
    "replication",
    "requestPayment",
    "response-cache-control",
    "response-content-disposition",
    "response-content-encoding",
    "response-content-language",
    "response-content-type",
    "response-expires",
    "restore",
    "retention",
    "select",
    "select-type",
    "tagging",
    "torrent",
    "uploadId",
    "uploads",
    "versionId",
    "versioning",
    "versions",
    "website",
];

/// A SigV2 signature as read from the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts<'a> {
    pub(crate) access_key_id: Text<'a>,
    signature: Text<'a>,
    /// `Expires` (seconds since the epoch), for a presigned request.
    pub(crate) expires: Option<(Text<'a>, i64)>,
}

/// Reads `AWS AKID:signature`.
pub(crate) fn parse_header(auth: &str) -> Result<Parts<'_>, Error> {
    let rest = auth["AWS".len()..].trim_start();
    match rest.rsplit_once(':') {
        Some((key, signature)) if !key.trim().is_empty() => Ok(Parts {
            access_key_id: Text::Borrowed(key.trim()),
            signature: Text::Borrowed(signature.trim()),
            expires: None,
        }),
        _ => Err(Error::unsupported_type(auth)),
    }
}

/// Reads `AWSAccessKeyId`, `Signature` and `Expires`; `None` when the parameters are another
/// service's (a query API's SigV2 names a `SignatureVersion`, which S3's never does).
pub(crate) fn parse_query<'a>(request: &Request<'a>) -> Result<Option<Parts<'a>>, Error> {
    let (mut key, mut signature, mut expires, mut version) = (None, None, None, false);
    for (name, value) in request.params() {
        match &*name {
            "AWSAccessKeyId" => key = key.or(Some(value)),
            "Signature" => signature = signature.or(Some(value)),
            "Expires" => expires = expires.or(Some(value)),
            "SignatureVersion" => version = true,
            _ => {}
        }
    }
    if version {
        return Err(Error::unsupported_type(
            "SignatureVersion (query API Signature Version 2)",
        ));
    }
    let (Some(key), Some(signature), Some(expires)) = (key, signature, expires) else {
        return Err(Error::query_parameters(
            "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters",
        ));
    };
    let seconds = expires
        .parse()
        .map_err(|_| Error::query_parameters("Invalid date (should be seconds since epoch)"))?;
    Ok(Some(Parts {
        access_key_id: key,
        signature,
        expires: Some((expires, seconds)),
    }))
}

pub(crate) fn verify(parts: &Parts<'_>, request: &Request<'_>, secret: &str, now: i64) -> Result<Verified, Error> {
    let amz_date = request.header("x-amz-date");
    let date_header = request.header("date");
    match &parts.expires {
        Some((_, expires)) if now > *expires => return Err(Error::expired(*expires, now, None)),
        Some(_) => {}
        None => {
            let time = amz_date
                .or(date_header)
                .and_then(parse_http_date)
                .ok_or_else(Error::missing_date)?;
            if (now - time).abs() > MAX_SKEW_SECS {
                return Err(Error::skewed(time, now));
            }
        }
    }
    let provided = base64::engine::general_purpose::STANDARD
        .decode(parts.signature.trim())
        .ok();
    // The date line: `Expires` when presigned; otherwise `Date`, blank when `x-amz-date` is
    // sent (it is then signed among the x-amz- headers). AWS's own examples also sign
    // `x-amz-date`'s value in the date line instead, and older clients send both; each
    // reading is tried, the documented one first.
    let mut readings: Vec<(String, bool)> = Vec::new();
    match (&parts.expires, amz_date) {
        (Some((text, _)), _) => readings.push((text.to_string(), true)),
        (None, None) => readings.push((date_header.unwrap_or("").trim().to_string(), true)),
        (None, Some(amz)) => {
            readings.push((String::new(), true));
            readings.push((date_header.unwrap_or("").trim().to_string(), true));
            readings.push((amz.trim().to_string(), false));
        }
    }
    let mut first = None;
    for (date_line, sign_amz_date) in readings {
        let string_to_sign = string_to_sign(request, &date_line, sign_amz_date, parts.expires.is_some());
        let expected = hmac_sha1(secret.as_bytes(), string_to_sign.as_bytes());
        if provided.as_deref().is_some_and(|p| constant_time_eq(p, &expected)) {
            return Ok(Verified {
                access_key_id: parts.access_key_id.to_string(),
                security_token: request
                    .header("x-amz-security-token")
                    .map(str::to_string)
                    .or_else(|| request.param("x-amz-security-token").map(|t| t.into_owned())),
                body: Body::Unsigned,
            });
        }
        first.get_or_insert(string_to_sign);
    }
    Err(Error::mismatch(Mismatch {
        access_key_id: parts.access_key_id.to_string(),
        signature_provided: parts.signature.to_string(),
        string_to_sign: first.unwrap_or_default(),
        canonical_request: None,
    }))
}

/// The SigV2 string to sign, with `date_line` in the date's place.
fn string_to_sign(request: &Request<'_>, date_line: &str, sign_amz_date: bool, presigned: bool) -> String {
    let mut out = String::with_capacity(128 + request.path.len());
    out.push_str(request.method);
    out.push('\n');
    out.push_str(request.header("content-md5").unwrap_or("").trim());
    out.push('\n');
    out.push_str(request.header("content-type").unwrap_or("").trim());
    out.push('\n');
    out.push_str(date_line);
    out.push('\n');
    amz_headers_into(&mut out, request, sign_amz_date, presigned);
    resource_into(&mut out, request);
    out
}

/// `CanonicalizedAmzHeaders`: every `x-amz-` header, lower-cased and sorted, repeated ones
/// joined with commas, `name:value\n` each. A presigned request's `x-amz-security-token`
/// parameter is signed as if it were a header.
fn amz_headers_into(out: &mut String, request: &Request<'_>, sign_amz_date: bool, presigned: bool) {
    let mut headers: Vec<(String, String)> = Vec::new();
    for (name, value) in request.headers {
        let name = name.to_ascii_lowercase();
        if !name.starts_with("x-amz-") || (!sign_amz_date && name == "x-amz-date") {
            continue;
        }
        let value = String::from_utf8_lossy(value).trim().to_string();
        match headers.iter_mut().find(|(n, _)| *n == name) {
            Some((_, joined)) => {
                joined.push(',');
                joined.push_str(&value);
            }
            None => headers.push((name, value)),
        }
    }
    if presigned && !headers.iter().any(|(n, _)| n == "x-amz-security-token") {
        if let Some(token) = request.param("x-amz-security-token") {
            headers.push(("x-amz-security-token".into(), token.into_owned()));
        }
    }
    headers.sort();
    for (name, value) in headers {
        out.push_str(&name);
        out.push(':');
        out.push_str(&value);
        out.push('\n');
    }
}

/// `CanonicalizedResource`: `/bucket` for a virtual-hosted request, the path as sent, and the
/// sub-resources among the query parameters, sorted, values decoded.
fn resource_into(out: &mut String, request: &Request<'_>) {
    if let Some(bucket) = request.host_bucket {
        out.push('/');
        out.push_str(bucket);
    }
    out.push_str(if request.path.is_empty() { "/" } else { request.path });
    let mut subresources: Vec<(String, Option<String>)> = request
        .query
        .split('&')
        .filter_map(|param| {
            let (name, value) = match param.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (param, None),
            };
            let name = String::from_utf8_lossy(&percent_decode(name.as_bytes())).into_owned();
            SUBRESOURCES.contains(&name.as_str()).then(|| {
                let value = value.map(|v| String::from_utf8_lossy(&percent_decode(v.as_bytes())).into_owned());
                (name, value)
            })
        })
        .collect();
    subresources.sort();
    for (i, (name, value)) in subresources.iter().enumerate() {
        out.push(if i == 0 { '?' } else { '&' });
        out.push_str(name);
        if let Some(value) = value {
            out.push('=');
            out.push_str(value);
        }
    }
}
