//! PutParameter: create, or overwrite as a new version, with AWS's rules for types, data
//! types, allowed patterns, tiers and their limits, policies, tags and the 100 versions kept.

use std::collections::BTreeMap;

use stratus_core::pattern::{translate, Anchoring};
use stratus_core::RequestContext;
use stratus_gen_ssm::{ParameterTier, PutParameterRequest, PutParameterResult};

use crate::error::{refuse, validation, SsmError};
use crate::names::{arn, check_new, key_of};
use crate::ops::principal_arn;
use crate::ops::settings::{value_of, DEFAULT_TIER};
use crate::ops::tags::{check_tags, tag_map};
use crate::policies::{self, Policy};
use crate::records::{
    adjust_count, expiration_key, version_key, ParameterRecord, VersionRecord, COUNTS, EXPIRATIONS, PARAMETERS,
    VERSIONS,
};
use crate::secure::DEFAULT_KEY;
use crate::service::SsmService;

/// AWS keeps a parameter's last 100 versions.
const MAX_VERSIONS: i64 = 100;
const STANDARD_VALUE_BYTES: usize = 4096;
const ADVANCED_VALUE_BYTES: usize = 8192;
/// Parameters per account and region, per tier.
const MAX_STANDARD: u64 = 10_000;
const MAX_ADVANCED: u64 = 100_000;

const STANDARD: &str = "Standard";
const ADVANCED: &str = "Advanced";

/// The tier a parameter gets: the one asked for (Intelligent-Tiering choosing Standard while
/// the value, policies and the standard quota allow: `needs_advanced`), else the one it has,
/// else Standard.
fn resolve_tier(
    asked: Option<&ParameterTier>,
    current: Option<&str>,
    size: usize,
    needs_advanced: bool,
) -> &'static str {
    match asked {
        Some(ParameterTier::Advanced) => ADVANCED,
        Some(ParameterTier::IntelligentTiering) => {
            if size > STANDARD_VALUE_BYTES || needs_advanced || current == Some(ADVANCED) {
                ADVANCED
            } else {
                STANDARD
            }
        }
        Some(_) => STANDARD,
        None if current == Some(ADVANCED) => ADVANCED,
        None => STANDARD,
    }
}

/// Checks the value against the tier it is to be stored in.
fn check_tier(tier: &str, current: Option<&str>, size: usize, policies: bool) -> Result<(), SsmError> {
    if tier == STANDARD && current == Some(ADVANCED) {
        return Err(validation(
            "This parameter uses the advanced-parameter tier. You can't downgrade a parameter from the \
             advanced-parameter tier to the standard-parameter tier. If necessary, you can delete the advanced \
             parameter and recreate it as a standard parameter.",
        ));
    }
    if tier == STANDARD && size > STANDARD_VALUE_BYTES {
        return Err(validation(
            "Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger \
             parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see \
             https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html",
        ));
    }
    if size > ADVANCED_VALUE_BYTES {
        return Err(validation(
            "Advanced tier parameters support a maximum parameter value of 8192 characters.",
        ));
    }
    if tier == STANDARD && policies {
        return Err(validation(
            "Parameter policies are supported only for parameters in the advanced-parameter tier.",
        ));
    }
    Ok(())
}

/// Checks a data type and what it asks of the value.
fn check_data_type(data_type: &str, kind: &str, value: &str) -> Result<(), SsmError> {
    match data_type {
        "text" | "aws:ssm:integration" => Ok(()),
        "aws:ec2:image" => {
            if kind != "String" {
                return Err(validation(format!(
                    "Parameter type {kind} doesn't support the data type aws:ec2:image."
                )));
            }
            let hex = value.strip_prefix("ami-").unwrap_or_default();
            if !matches!(hex.len(), 8 | 17) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(validation(format!(
                    "Parameter value, {value}, is not a valid image ID for data type aws:ec2:image."
                )));
            }
            Ok(())
        }
        other => Err(validation(format!(
            "The following data type is not supported: {other} (Data type names are all lowercase.)"
        ))),
    }
}

/// Checks `value` against an `AllowedPattern` (a Java regular expression, matching the whole value).
fn check_pattern(pattern: &str, value: &str) -> Result<(), SsmError> {
    let matcher = translate(pattern, Anchoring::FullMatch)
        .ok()
        .and_then(|t| t.compile().ok())
        .ok_or_else(|| {
            refuse(
                "InvalidAllowedPatternException",
                "The request does not meet the regular expression requirement.",
            )
        })?;
    if !matcher.is_match(value) {
        return Err(refuse(
            "ParameterPatternMismatchException",
            format!("Parameter value, cannot be validated against allowedPattern: {pattern}"),
        ));
    }
    Ok(())
}

pub(crate) async fn put_parameter(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: PutParameterRequest,
) -> Result<PutParameterResult, SsmError> {
    check_new(&input.name)?;
    let overwrite = input.overwrite == Some(true);
    if overwrite && input.tags.as_ref().is_some_and(|t| !t.is_empty()) {
        return Err(validation(
            "Invalid request: tags and overwrite can't be used together. To create a parameter with tags, please \
             remove overwrite flag. To update tags for an existing parameter, please use AddTagsToResource or \
             RemoveTagsFromResource.",
        ));
    }
    if input.value.is_empty() {
        return Err(validation(
            "1 validation error detected: Value '' at 'value' failed to satisfy constraint: Member must have length \
             greater than or equal to 1.",
        ));
    }
    let tags = tag_map(input.tags.unwrap_or_default());
    check_tags(&tags)?;
    let key = key_of(&input.name);
    let store = ssm.store_of(ctx)?;
    let head = PARAMETERS.get(&*store, &key)?;
    if head.is_some() && !overwrite {
        return Err(already_exists());
    }
    let current = head.as_ref().map(|h| &h.current);
    let kind = match (&input.r#type, current) {
        (Some(kind), _) => kind.as_str().to_owned(),
        (None, Some(c)) => c.kind.clone(),
        (None, None) => return Err(validation("A parameter type is required when you create a parameter.")),
    };
    if !matches!(kind.as_str(), "String" | "StringList" | "SecureString") {
        return Err(refuse(
            "UnsupportedParameterType",
            format!("The following parameter type is not supported: {kind}."),
        ));
    }
    let data_type = input
        .data_type
        .or_else(|| current.map(|c| c.data_type.clone()))
        .unwrap_or_else(|| "text".into());
    check_data_type(&data_type, &kind, &input.value)?;
    let allowed_pattern = input
        .allowed_pattern
        .or_else(|| current.and_then(|c| c.allowed_pattern.clone()));
    if let Some(pattern) = allowed_pattern.as_deref().filter(|p| !p.is_empty()) {
        check_pattern(pattern, &input.value)?;
    }
    let policies: Vec<Policy> = match &input.policies {
        Some(text) => policies::parse(text)?,
        None => current.map(|c| c.policies.clone()).unwrap_or_default(),
    };
    let size = input.value.len();
    let current_tier = current.map(|c| c.tier.as_str());
    // A new parameter without a tier gets the account's default tier.
    let asked = match (input.tier, current) {
        (None, None) => Some(ParameterTier::from_wire(&value_of(&*store, DEFAULT_TIER)?)),
        (asked, _) => asked,
    };
    // Intelligent-Tiering also upgrades once the account's standard parameters are all used.
    let standard_full = COUNTS.get(&*store, STANDARD)?.unwrap_or(0) >= MAX_STANDARD && current.is_none();
    let tier = resolve_tier(
        asked.as_ref(),
        current_tier,
        size,
        !policies.is_empty() || standard_full,
    );
    check_tier(tier, current_tier, size, !policies.is_empty())?;
    let key_id = (kind == "SecureString").then(|| {
        input
            .key_id
            .clone()
            .or_else(|| {
                current
                    .filter(|c| c.kind == "SecureString")
                    .and_then(|c| c.key_id.clone())
            })
            .unwrap_or_else(|| DEFAULT_KEY.to_owned())
    });
    let principal = principal_arn(ctx);
    let value = match &key_id {
        Some(key_id) => {
            let arn = arn(&ctx.region, &ctx.account_id, &input.name);
            ssm.seal(ctx, &principal, key_id, &arn, &input.value).await?
        }
        None => input.value,
    };
    let description = input
        .description
        .or_else(|| current.and_then(|c| c.description.clone()));
    let expires = policies::expiry(&policies);
    let name = input.name;
    let now = ssm.now_ms();
    let version = ssm
        .transact(ctx, move |tx| {
            let head = PARAMETERS.get(tx, &key)?;
            if head.is_some() && !overwrite {
                return Err(already_exists());
            }
            let version = head.as_ref().map_or(1, |h| h.current.version + 1);
            let record = VersionRecord {
                version,
                kind,
                value,
                key_id,
                description,
                allowed_pattern,
                data_type,
                tier: tier.to_owned(),
                policies,
                modified_ms: now,
                modified_by: principal,
            };
            let head = match head {
                Some(mut head) => {
                    if head.current.tier != tier {
                        adjust_count(tx, &head.current.tier, -1)?;
                        check_count(tx, tier)?;
                    }
                    if let Some(at) = policies::expiry(&head.current.policies) {
                        EXPIRATIONS.delete(tx, expiration_key(at, &key));
                    }
                    if version - head.oldest + 1 > MAX_VERSIONS {
                        drop_oldest(tx, &key, &mut head)?;
                    }
                    head.current = record;
                    head
                }
                None => {
                    check_count(tx, tier)?;
                    ParameterRecord {
                        name,
                        current: record,
                        oldest: 1,
                        tags,
                        labels: BTreeMap::new(),
                    }
                }
            };
            if let Some(at) = expires {
                EXPIRATIONS.put(tx, expiration_key(at, &key), &key)?;
            }
            VERSIONS.put(tx, version_key(&key, version), &head.current)?;
            PARAMETERS.put(tx, key.as_bytes().to_vec(), &head)?;
            Ok(version)
        })
        .await?;
    if let Some(at) = expires {
        ssm.expire_by(at);
    }
    Ok(PutParameterResult {
        version,
        tier: Some(ParameterTier::from_wire(tier)),
    })
}

fn already_exists() -> SsmError {
    refuse(
        "ParameterAlreadyExists",
        "The parameter already exists. To overwrite this value, set the overwrite option in the request to true.",
    )
}

/// Counts one more parameter of `tier`, refusing one past the tier's limit.
fn check_count(tx: &mut stratus_storage::Tx<'_>, tier: &str) -> Result<(), SsmError> {
    let max = if tier == ADVANCED { MAX_ADVANCED } else { MAX_STANDARD };
    if adjust_count(tx, tier, 1)? > max {
        return Err(refuse(
            "ParameterLimitExceeded",
            format!(
                "You have reached the maximum number of {} parameters for this AWS account and Region ({max}).",
                tier.to_ascii_lowercase()
            ),
        ));
    }
    Ok(())
}

/// Makes room for a new version by deleting the oldest, unless a label holds it.
fn drop_oldest(tx: &mut stratus_storage::Tx<'_>, key: &str, head: &mut ParameterRecord) -> Result<(), SsmError> {
    if head.labels.values().any(|v| *v == head.oldest) {
        return Err(refuse(
            "ParameterMaxVersionLimitExceeded",
            format!(
                "You attempted to create a new version of {} by calling the PutParameter API with the overwrite \
                 flag. Version {}, the oldest version, can't be deleted because it has a label associated with \
                 it. Move the label to another version of the parameter, and try again.",
                head.name, head.oldest
            ),
        ));
    }
    VERSIONS.delete(tx, version_key(key, head.oldest));
    head.oldest += 1;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intelligent_tiering_picks_standard_while_it_fits() {
        let it = Some(&ParameterTier::IntelligentTiering);
        assert_eq!(resolve_tier(it, None, 10, false), STANDARD);
        assert_eq!(resolve_tier(it, None, 5000, false), ADVANCED);
        assert_eq!(resolve_tier(it, None, 10, true), ADVANCED);
        assert_eq!(resolve_tier(None, Some(ADVANCED), 10, false), ADVANCED);
        assert_eq!(resolve_tier(None, None, 10, false), STANDARD);
    }

    #[test]
    fn tier_limits() {
        assert!(check_tier(STANDARD, None, 4096, false).is_ok());
        assert!(check_tier(STANDARD, None, 4097, false)
            .unwrap_err()
            .0
            .message
            .starts_with("Standard tier"));
        assert!(check_tier(ADVANCED, None, 8193, false).is_err());
        assert!(check_tier(STANDARD, Some(ADVANCED), 1, false)
            .unwrap_err()
            .0
            .message
            .contains("downgrade"));
        assert!(check_tier(STANDARD, None, 1, true).is_err());
    }

    #[test]
    fn data_types_and_patterns() {
        check_data_type("aws:ec2:image", "String", "ami-12345678").unwrap();
        check_data_type("aws:ec2:image", "String", "ami-0123456789abcdef0").unwrap();
        assert!(check_data_type("aws:ec2:image", "String", "ami-xyz").is_err());
        assert!(check_data_type("aws:ec2:image", "StringList", "ami-12345678").is_err());
        assert!(check_data_type("Text", "String", "x")
            .unwrap_err()
            .0
            .message
            .contains("all lowercase"));
        // The user guide's example: `\d{1,4}` refuses 10000.
        check_pattern(r"\d{1,4}", "1000").unwrap();
        assert_eq!(
            check_pattern(r"\d{1,4}", "10000").unwrap_err().0.code,
            "ParameterPatternMismatchException"
        );
        assert_eq!(
            check_pattern("(", "x").unwrap_err().0.code,
            "InvalidAllowedPatternException"
        );
    }
}
