//! Signature Version 4: reading the `Authorization` header or the presigned `X-Amz-*` query
//! parameters, rebuilding the canonical request and string to sign, and comparing signatures
//! (AWS General Reference, "Signature Version 4 signing process"; Amazon S3 API Reference,
//! "Authenticating Requests (AWS Signature Version 4)").

use stratus_core::calendar::{format_amz_date, parse_amz_date};
use stratus_core::hex;

use crate::canonical::{canonical_query_into, canonical_uri_into, header_value_into};
use crate::chunked::ChunkSignatures;
use crate::crypto::{constant_time_eq, hmac_sha256, sha256, unhex32};
use crate::error::{Error, Mismatch};
use crate::request::{Payload, Request};
use crate::signature::{Body, Scope, Text, Verified};
use crate::signing_key::SigningKeys;
use crate::time::parse_http_date;

/// How far a header-signed request's date may be from the server's: 15 minutes.
const MAX_SKEW_SECS: i64 = 15 * 60;
/// The longest a presigned URL may be valid: a week.
const MAX_PRESIGNED_SECS: i64 = 604_800;

/// A SigV4 signature as read from the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts<'a> {
    /// `AKID/date/region/service/aws4_request`, checked to have that shape.
    credential: Text<'a>,
    signed_headers: Text<'a>,
    signature: Text<'a>,
    /// The request time as signed, `yyyyMMdd'T'HHmmss'Z'`, and in seconds.
    timestamp: Text<'a>,
    time: i64,
    pub(crate) presigned: Option<Presigned<'a>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Presigned<'a> {
    /// `X-Amz-Expires` in seconds, as sent and parsed (S3 requires it; other services' query
    /// signatures may omit it).
    expires: Option<(Text<'a>, i64)>,
}

impl<'a> Parts<'a> {
    fn credential_part(&self, i: usize) -> &str {
        self.credential.split('/').nth(i).unwrap_or("")
    }

    pub(crate) fn access_key_id(&self) -> &str {
        self.credential_part(0)
    }

    pub(crate) fn scope(&self) -> Scope<'_> {
        Scope {
            date: self.credential_part(1),
            region: self.credential_part(2),
            service: self.credential_part(3),
        }
    }

    fn scope_text(&self) -> &str {
        let akid = self.access_key_id();
        &self.credential[akid.len() + 1..]
    }
}

/// Reads `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`.
pub(crate) fn parse_header<'a>(request: &Request<'a>, auth: &'a str) -> Result<Parts<'a>, Error> {
    let rest = &auth["AWS4-HMAC-SHA256".len()..];
    let (mut credential, mut signed_headers, mut signature) = (None, None, None);
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, value)) = part.split_once('=') else {
            return Err(Error::malformed(format!(
                "'{part}' not a valid key=value pair (missing equal-sign) in Authorization header: '{auth}'"
            )));
        };
        match name.trim() {
            "Credential" => credential = Some(value.trim()),
            "SignedHeaders" => signed_headers = Some(value.trim()),
            "Signature" => signature = Some(value.trim()),
            _ => {}
        }
    }
    let date = match request.header("x-amz-date") {
        Some(amz) => Some(parse_amz_date(amz.trim()).map(|t| (Text::Borrowed(amz.trim()), t))),
        None => request
            .header("date")
            .map(|d| parse_http_date(d).map(|t| (Text::Owned(format_amz_date(t)), t))),
    };
    let mut missing = Vec::new();
    for (name, present) in [
        ("Credential", credential.is_some()),
        ("Signature", signature.is_some()),
        ("SignedHeaders", signed_headers.is_some()),
        ("Date", date.is_some()),
    ] {
        if !present {
            missing.push(name);
        }
    }
    if !missing.is_empty() {
        return Err(Error::incomplete(missing, auth));
    }
    let (timestamp, time) = date.flatten().ok_or_else(Error::missing_date)?;
    let credential = check_credential(credential.unwrap_or_default())?;
    Ok(Parts {
        credential: Text::Borrowed(credential),
        signed_headers: Text::Borrowed(signed_headers.unwrap_or_default()),
        signature: Text::Borrowed(signature.unwrap_or_default()),
        timestamp,
        time,
        presigned: None,
    })
}

/// Reads the presigned `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
/// `X-Amz-SignedHeaders` and `X-Amz-Signature` parameters.
pub(crate) fn parse_query<'a>(request: &Request<'a>) -> Result<Parts<'a>, Error> {
    let required = || {
        Error::query_parameters(
            "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, \
             X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.",
        )
    };
    let (mut credential, mut date, mut expires, mut signed_headers, mut signature) = (None, None, None, None, None);
    for (name, value) in request.params() {
        let slot = match &*name {
            "X-Amz-Credential" => &mut credential,
            "X-Amz-Date" => &mut date,
            "X-Amz-Expires" => &mut expires,
            "X-Amz-SignedHeaders" => &mut signed_headers,
            "X-Amz-Signature" => &mut signature,
            _ => continue,
        };
        slot.get_or_insert(value);
    }
    let (Some(credential), Some(date), Some(signed_headers), Some(signature)) =
        (credential, date, signed_headers, signature)
    else {
        return Err(required());
    };
    let time = parse_amz_date(&date).ok_or_else(|| {
        Error::query_parameters("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
    })?;
    check_credential(&credential)?;
    let service = credential.split('/').nth(3).unwrap_or("");
    let expires = match expires {
        Some(text) => {
            let seconds: i64 = text
                .parse()
                .map_err(|_| Error::query_parameters("X-Amz-Expires should be a number"))?;
            if seconds < 0 {
                return Err(Error::query_parameters("X-Amz-Expires must be non-negative"));
            }
            if seconds > MAX_PRESIGNED_SECS {
                return Err(Error::query_parameters(
                    "X-Amz-Expires must be less than a week (in seconds) that is 604800",
                ));
            }
            Some((text, seconds))
        }
        None if is_s3(service) => return Err(required()),
        None => None,
    };
    Ok(Parts {
        credential,
        signed_headers,
        signature,
        timestamp: date,
        time,
        presigned: Some(Presigned { expires }),
    })
}

/// `credential` if it is `AKID/yyyyMMdd/region/service/aws4_request`.
fn check_credential(credential: &str) -> Result<&str, Error> {
    let parts: Vec<&str> = credential.split('/').collect();
    let shaped = parts.len() == 5
        && parts[..4].iter().all(|p| !p.is_empty())
        && parts[1].len() == 8
        && parts[1].bytes().all(|d| d.is_ascii_digit());
    if !shaped {
        return Err(Error::malformed(
            "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".",
        ));
    }
    if parts[4] != "aws4_request" {
        return Err(Error::malformed(format!(
            "incorrect terminal \"{}\". This endpoint uses \"aws4_request\".",
            parts[4]
        )));
    }
    Ok(credential)
}

/// Whether `service` signs as S3 does: paths encoded once and not normalised, and the
/// payload hash always taken from `x-amz-content-sha256`.
fn is_s3(service: &str) -> bool {
    matches!(service, "s3" | "s3express" | "s3-object-lambda" | "s3-outposts")
}

/// What the canonical request's last line is, and what the body must satisfy after.
enum PayloadLine<'r> {
    /// A marker or hash the request declared, signed as it is.
    Declared(&'r str, Declared),
    /// The body's hash, computed here.
    Computed(String),
}

enum Declared {
    Unsigned,
    Streaming { trailer: bool },
    UnsignedStreaming,
    Hash([u8; 32]),
    Opaque,
}

fn payload_line<'r>(parts: &Parts<'_>, request: &Request<'r>, s3: bool) -> Result<PayloadLine<'r>, Error> {
    if let Some(declared) = request.header("x-amz-content-sha256") {
        let kind = match declared {
            "UNSIGNED-PAYLOAD" => Declared::Unsigned,
            "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" => Declared::Streaming { trailer: false },
            "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" => Declared::Streaming { trailer: true },
            "STREAMING-UNSIGNED-PAYLOAD-TRAILER" => Declared::UnsignedStreaming,
            v if v.starts_with("STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD") => return Err(Error::sigv4a()),
            v => match unhex32(v) {
                Some(hash) => Declared::Hash(hash),
                None if s3 => return Err(Error::invalid_content_sha256()),
                None => Declared::Opaque,
            },
        };
        return Ok(PayloadLine::Declared(declared, kind));
    }
    if s3 {
        return match parts.presigned {
            Some(_) => Ok(PayloadLine::Declared("UNSIGNED-PAYLOAD", Declared::Unsigned)),
            None => Err(Error::missing_content_sha256()),
        };
    }
    match request.payload {
        Payload::Body(body) => Ok(PayloadLine::Computed(hex::encode(&sha256(body)))),
        Payload::Sha256(hash) => Ok(PayloadLine::Computed(hex::encode(&hash))),
        Payload::Deferred => Err(Error::missing_content_sha256()),
    }
}

/// Builds the canonical request of `request` as `parts` signed it.
fn canonical_request(parts: &Parts<'_>, request: &Request<'_>, s3: bool, payload: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + request.path.len() + request.query.len());
    out.extend_from_slice(request.method.as_bytes());
    out.push(b'\n');
    canonical_uri_into(&mut out, request.path, s3);
    out.push(b'\n');
    let skip = parts.presigned.as_ref().map(|_| "X-Amz-Signature");
    canonical_query_into(&mut out, request.query, skip);
    out.push(b'\n');
    for name in parts.signed_headers.split(';') {
        out.extend(name.bytes().map(|b| b.to_ascii_lowercase()));
        out.push(b':');
        for (i, value) in request.header_values(name).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            header_value_into(&mut out, value);
        }
        out.push(b'\n');
    }
    out.push(b'\n');
    out.extend(parts.signed_headers.bytes().map(|b| b.to_ascii_lowercase()));
    out.push(b'\n');
    out.extend_from_slice(payload.as_bytes());
    out
}

pub(crate) fn verify(
    parts: &Parts<'_>,
    request: &Request<'_>,
    secret: &str,
    now: i64,
    keys: &SigningKeys,
) -> Result<Verified, Error> {
    let scope = parts.scope();
    let s3 = is_s3(scope.service);
    if parts.timestamp.get(..8) != Some(scope.date) {
        return Err(Error::malformed(
            "Invalid credential date. Date is not the same as X-Amz-Date.",
        ));
    }
    match &parts.presigned {
        Some(presigned) => {
            if let Some((text, seconds)) = &presigned.expires {
                if now > parts.time + seconds {
                    return Err(Error::expired(parts.time + seconds, now, Some(text)));
                }
            }
            if parts.time - now > MAX_SKEW_SECS {
                return Err(Error::skewed(parts.time, now));
            }
        }
        None if (now - parts.time).abs() > MAX_SKEW_SECS => return Err(Error::skewed(parts.time, now)),
        None => {}
    }
    if s3 && parts.presigned.is_none() {
        check_amz_headers_signed(parts, request)?;
    }
    let line = payload_line(parts, request, s3)?;
    let payload_text = match &line {
        PayloadLine::Declared(text, _) => text,
        PayloadLine::Computed(text) => text.as_str(),
    };
    let canonical = canonical_request(parts, request, s3, payload_text);
    let mut string_to_sign = Vec::with_capacity(128 + parts.credential.len());
    for part in ["AWS4-HMAC-SHA256", &parts.timestamp, parts.scope_text()] {
        string_to_sign.extend_from_slice(part.as_bytes());
        string_to_sign.push(b'\n');
    }
    hex::append(&mut string_to_sign, &sha256(&canonical));
    let key = keys.get(secret, scope.date, scope.region, scope.service);
    let expected = hmac_sha256(&key, &string_to_sign);
    let provided = unhex32(&parts.signature);
    if !provided.is_some_and(|p| constant_time_eq(&p, &expected)) {
        return Err(Error::mismatch(Mismatch {
            access_key_id: parts.access_key_id().to_string(),
            signature_provided: parts.signature.to_string(),
            string_to_sign: String::from_utf8_lossy(&string_to_sign).into_owned(),
            canonical_request: Some(String::from_utf8_lossy(&canonical).into_owned()),
        }));
    }
    let body = match line {
        PayloadLine::Computed(_) => Body::Checked,
        PayloadLine::Declared(_, Declared::Unsigned) => Body::Unsigned,
        PayloadLine::Declared(_, Declared::Opaque) => Body::Checked,
        PayloadLine::Declared(_, Declared::UnsignedStreaming) => Body::UnsignedChunks,
        PayloadLine::Declared(_, Declared::Streaming { trailer }) => Body::SignedChunks(ChunkSignatures::new(
            key,
            parts.access_key_id(),
            &parts.timestamp,
            parts.scope_text(),
            expected,
            trailer,
        )),
        PayloadLine::Declared(text, Declared::Hash(claimed)) => match request.payload {
            Payload::Deferred => Body::MustHash(claimed),
            Payload::Body(body) => check_content(text, claimed, sha256(body))?,
            Payload::Sha256(computed) => check_content(text, claimed, computed)?,
        },
    };
    let security_token = request
        .header("x-amz-security-token")
        .map(str::to_string)
        .or_else(|| request.param("X-Amz-Security-Token").map(|t| t.into_owned()));
    Ok(Verified {
        access_key_id: parts.access_key_id().to_string(),
        security_token,
        body,
    })
}

/// S3 signs every `x-amz-` header of a header-signed request; one left out is refused, so it
/// cannot be added by someone who does not hold the secret.
fn check_amz_headers_signed(parts: &Parts<'_>, request: &Request<'_>) -> Result<(), Error> {
    let mut unsigned: Vec<String> = Vec::new();
    for (name, _) in request.headers {
        let lower = name.to_ascii_lowercase();
        let signed = parts.signed_headers.split(';').any(|s| s.eq_ignore_ascii_case(&lower));
        if lower.starts_with("x-amz-") && !signed && !unsigned.contains(&lower) {
            unsigned.push(lower);
        }
    }
    if unsigned.is_empty() {
        Ok(())
    } else {
        Err(Error::headers_not_signed(unsigned))
    }
}

fn check_content(text: &str, claimed: [u8; 32], computed: [u8; 32]) -> Result<Body, Error> {
    if claimed == computed {
        Ok(Body::Checked)
    } else {
        Err(Error::content_mismatch(text, &hex::encode(&computed)))
    }
}
