//! Mobile push: platform applications and their endpoints, stored and answered as AWS does.
//! Nothing is pushed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::RequestContext;

use crate::error::{invalid_parameter, malformed_arn, SnsError};

/// The platforms SNS pushes to.
const PLATFORMS: &[&str] = &[
    "ADM",
    "APNS",
    "APNS_SANDBOX",
    "APNS_VOIP",
    "APNS_VOIP_SANDBOX",
    "BAIDU",
    "GCM",
    "MACOS",
    "MACOS_SANDBOX",
    "MPNS",
    "WNS",
];

/// A platform application as stored, keyed by `PLATFORM/NAME`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct AppRecord {
    pub(crate) platform: String,
    pub(crate) name: String,
    pub(crate) attributes: BTreeMap<String, String>,
}

/// An endpoint as stored, keyed by its application's key and its id.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct EndpointRecord {
    pub(crate) id: String,
    /// `Token`, `Enabled`, `CustomUserData`.
    pub(crate) attributes: BTreeMap<String, String>,
}

/// Checks an application's name and platform, in AWS's words.
pub(crate) fn check_application(name: &str, platform: &str) -> Result<(), SnsError> {
    if name.is_empty() {
        return Err(invalid_parameter(" Reason: cannot be empty"));
    }
    if name.len() > 256 {
        return Err(invalid_parameter(format!(
            "{name} Reason: must be at most 256 characters long"
        )));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        return Err(invalid_parameter(format!(
            "{name} Reason: must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', '_', '-', and '.'"
        )));
    }
    if !PLATFORMS.contains(&platform) {
        return Err(invalid_parameter(format!(
            "Platform Reason: {platform} is not supported"
        )));
    }
    Ok(())
}

/// Credentials come in pairs.
pub(crate) fn check_credentials(attributes: &BTreeMap<String, String>) -> Result<(), SnsError> {
    match (
        attributes.contains_key("PlatformPrincipal"),
        attributes.contains_key("PlatformCredential"),
    ) {
        (true, false) => Err(invalid_parameter(
            "Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential",
        )),
        (false, true) => Err(invalid_parameter(
            "Attributes Reason: PlatformCredential attribute provided without PlatformPrincipal",
        )),
        _ => Ok(()),
    }
}

/// An application's attributes as AWS answers them: its credentials are never shown.
pub(crate) fn shown_application_attributes(record: &AppRecord) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = record
        .attributes
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "PlatformCredential" | "PlatformPrincipal"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.entry("Enabled".into()).or_insert_with(|| "true".into());
    out
}

/// Checks endpoint attributes: `CustomUserData` (2048 bytes at most), `Enabled`, `Token`.
pub(crate) fn check_endpoint_attributes(attributes: &BTreeMap<String, String>) -> Result<(), SnsError> {
    for (name, value) in attributes {
        match name.as_str() {
            "CustomUserData" if value.len() > 2048 => {
                return Err(invalid_parameter(
                    "Attributes Reason: Invalid value for attribute: CustomUserData: must be at most 2048 bytes long in UTF-8 encoding",
                ))
            }
            "CustomUserData" | "Enabled" | "Token" => {}
            _ => return Err(invalid_parameter(format!("Attributes Reason: Invalid attribute name: {name}"))),
        }
    }
    Ok(())
}

/// The key of the application a `PlatformApplicationArn` names (`app/PLATFORM/NAME`).
pub(crate) fn application_key(ctx: &RequestContext, arn: &str) -> Result<String, SnsError> {
    let parts: Vec<&str> = arn.split(':').collect();
    if parts.len() < 6 {
        return Err(malformed_arn("PlatformApplicationArn", arn));
    }
    match parts[5].strip_prefix("app/") {
        Some(key) if parts[2] == "sns" && parts[3] == ctx.region && key.split('/').count() == 2 => Ok(key.to_owned()),
        _ => Err(invalid_parameter("PlatformApplicationArn")),
    }
}

/// The application key and endpoint id an `EndpointArn` names (`endpoint/PLATFORM/NAME/ID`).
pub(crate) fn endpoint_key(ctx: &RequestContext, arn: &str) -> Result<(String, String), SnsError> {
    let parts: Vec<&str> = arn.split(':').collect();
    if parts.len() < 6 {
        return Err(malformed_arn("EndpointArn", arn));
    }
    let relative: Vec<&str> = parts[5].split('/').collect();
    if relative.len() != 4 || relative[0] != "endpoint" {
        return Err(invalid_parameter(
            "EndpointArn Reason: Wrong number of slashes in relative portion of the ARN.",
        ));
    }
    if parts[2] != "sns" || parts[3] != ctx.region {
        return Err(invalid_parameter("EndpointArn"));
    }
    Ok((format!("{}/{}", relative[1], relative[2]), relative[3].to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_core::clock::Clock;

    #[test]
    fn names_and_platforms_are_checked_in_aws_words() {
        assert_eq!(
            check_application("", "ADM").unwrap_err().0.message,
            "Invalid parameter:  Reason: cannot be empty"
        );
        assert!(check_application("@name", "ADM")
            .unwrap_err()
            .0
            .message
            .starts_with("Invalid parameter: @name Reason: must contain only"));
        assert_eq!(
            check_application("a", "AAA").unwrap_err().0.message,
            "Invalid parameter: Platform Reason: AAA is not supported"
        );
        assert!(check_application("my.app-1", "GCM").is_ok());
    }

    #[test]
    fn endpoint_arns_need_their_four_parts() {
        let ctx = RequestContext::unsigned("000000000000", "us-east-1", Clock::system());
        let (app, id) = endpoint_key(&ctx, "arn:aws:sns:us-east-1:000000000000:endpoint/ADM/app/abc").unwrap();
        assert_eq!((app.as_str(), id.as_str()), ("ADM/app", "abc"));
        let e = endpoint_key(&ctx, "arn:aws:sns:us-east-1:000000000000:endpoint/ADM/app").unwrap_err();
        assert!(e.0.message.contains("Wrong number of slashes"));
        let mut attrs = BTreeMap::from([("PlatformPrincipal".to_owned(), "x".to_owned())]);
        assert!(check_endpoint_attributes(&attrs)
            .unwrap_err()
            .0
            .message
            .ends_with("Invalid attribute name: PlatformPrincipal"));
        assert!(check_credentials(&attrs).is_err());
        attrs.insert("PlatformCredential".into(), "y".into());
        assert!(check_credentials(&attrs).is_ok());
    }
}
