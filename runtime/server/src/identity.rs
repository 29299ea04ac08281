//! Who signed a request: the identity an access key stands for, and the errors AWS's request
//! front end answers when the credentials themselves are refused, in each protocol's words.
//!
//! A key of AWS's form (`AKIA…`, `ASIA…`) names its account; the gateway asks the key
//! directories (IAM's users' keys, STS's sessions') what it stands for there. Any other key
//! (`test`, a 12-digit account id) and a key no directory knows sign as the account's root;
//! a key of AWS's form that none knows is remembered, until a directory issues a key
//! ([`UnknownKeys`]).

use std::sync::Arc;

use stratus_core::access_key;
use stratus_core::schema::{Protocol, Service};
use stratus_core::service::{Identity, KeyDirectory};
use stratus_core::AwsError;

use crate::unknown_keys::UnknownKeys;

/// The front end's errors are Coral's, not the service's: JSON answers name this namespace.
const FRONT_END_NAMESPACE: &str = "com.amazon.coral.service";

/// The identity `access_key_id` stands for (in the partition of `region`), if a directory
/// issued it; refused (in the words
/// of `service`) when the key was made inactive or its session has expired at `now_secs`.
pub(crate) fn identify(
    directories: &[Arc<dyn KeyDirectory>],
    unknown: &UnknownKeys,
    access_key_id: Option<&str>,
    region: &str,
    now_secs: u64,
    service: &Service,
    protocol: Protocol,
) -> Result<Option<Identity>, AwsError> {
    let Some(key) = access_key_id else {
        return Ok(None);
    };
    let Some(account) = access_key::account_of(key) else {
        return Ok(None);
    };
    if directories.is_empty() {
        return Ok(None);
    }
    // Read before the directories are asked: see `unknown_keys`.
    let issued = UnknownKeys::issued(directories);
    if unknown.knows_unknown(key, issued) {
        return Ok(None);
    }
    for directory in directories {
        let Some(identity) = directory.identify(&account, region, key)? else {
            continue;
        };
        if !identity.active {
            return Err(refusal(service, protocol, Refusal::InvalidKey));
        }
        if identity.expires.is_some_and(|expires| now_secs >= expires) {
            return Err(refusal(service, protocol, Refusal::ExpiredToken));
        }
        return Ok(Some(identity));
    }
    unknown.remember(key, issued);
    Ok(None)
}

/// Why the front end refuses a request's credentials before any service sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The key is unknown, inactive, or its session token is missing or wrong.
    InvalidKey,
    /// The session's credentials have expired.
    ExpiredToken,
}

/// AWS's answer to `refusal` from `service`: S3's words for S3, the query services' for the
/// Query protocols, and Coral's `…Exception` names in the JSON protocols.
pub(crate) fn refusal(service: &Service, protocol: Protocol, refusal: Refusal) -> AwsError {
    let s3 = service.departures.bare_xml_errors;
    let (code, message, status) = match refusal {
        Refusal::InvalidKey if s3 => (
            "InvalidAccessKeyId",
            "The AWS Access Key Id you provided does not exist in our records.",
            403,
        ),
        Refusal::InvalidKey => (
            "InvalidClientTokenId",
            "The security token included in the request is invalid.",
            403,
        ),
        Refusal::ExpiredToken if s3 => ("ExpiredToken", "The provided token has expired.", 400),
        Refusal::ExpiredToken => (
            "ExpiredToken",
            "The security token included in the request is expired",
            403,
        ),
    };
    in_protocol(service, protocol, code, message.to_owned(), status)
}

/// An error the front end words with the Query protocols' `code`, answered in `protocol`: as
/// it is in XML; in JSON under Coral's namespace, with the name AWS's JSON services give it
/// (`UnrecognizedClientException` for `InvalidClientTokenId`, `…Exception` for the others) —
/// except in a service that keeps its Query codes (SQS).
pub(crate) fn in_protocol(service: &Service, protocol: Protocol, code: &str, message: String, status: u16) -> AwsError {
    let json_status = match protocol {
        Protocol::AwsQuery | Protocol::Ec2Query | Protocol::RestXml => return AwsError::new(code, message, status),
        Protocol::RestJson1 => 403,
        Protocol::AwsJson1_0 | Protocol::AwsJson1_1 | Protocol::RpcV2Cbor => 400,
    };
    if service.query_compatible {
        return AwsError::new(format!("{FRONT_END_NAMESPACE}#{code}"), message, status);
    }
    let json_code = match code {
        "InvalidClientTokenId" => "UnrecognizedClientException".to_owned(),
        "SignatureDoesNotMatch" | "RequestExpired" => "InvalidSignatureException".to_owned(),
        other => format!("{other}Exception"),
    };
    AwsError::new(format!("{FRONT_END_NAMESPACE}#{json_code}"), message, json_status)
}
