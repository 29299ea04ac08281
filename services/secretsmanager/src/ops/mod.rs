//! The operations, one function each, by area, and what they share: finding the secret a
//! `SecretId` names, changing it in one transaction, and describing it.

pub(crate) mod password;
pub(crate) mod policies;
pub(crate) mod replication;
pub(crate) mod rotation;
pub(crate) mod secrets;
pub(crate) mod tags;
pub(crate) mod values;

use stratus_core::paging::{take_page, Token};
use stratus_core::value::DateTime;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_secrets_manager::*;

use crate::error::{invalid_request, marked_for_deletion, missing_token, on_replica, secret_not_found, SmError};
use crate::names::SecretRef;
use crate::secret::SecretRecord;
use crate::service::SecretsService;
use crate::store::SECRETS;

/// The principal a request acts as, for KMS: its signer, or the account's root.
pub(crate) fn principal(ctx: &RequestContext) -> String {
    match &ctx.principal {
        Some(p) => p.arn.clone(),
        None => format!(
            "arn:{}:iam::{}:root",
            stratus_core::arn::partition_of(&ctx.region),
            ctx.account_id
        ),
    }
}

/// A fresh version id, for versions Secrets Manager makes itself (scheduled rotations).
pub(crate) fn new_token() -> String {
    stratus_core::id::uuid()
}

/// The `ClientRequestToken` a request that makes a version must carry (SDKs fill it in).
pub(crate) fn token(given: Option<String>, code_is_parameter: bool) -> Result<String, SmError> {
    given.ok_or_else(|| missing_token(code_is_parameter))
}

/// The secret `secret_id` names and where, read inline.
pub(crate) fn load(
    sm: &SecretsService,
    ctx: &RequestContext,
    secret_id: &str,
) -> Result<(SecretRef, SecretRecord), SmError> {
    let at = SecretRef::parse(ctx, secret_id)?;
    let secret = load_at(sm, &at)?;
    Ok((at, secret))
}

/// The secret `at` names, read inline.
pub(crate) fn load_at(sm: &SecretsService, at: &SecretRef) -> Result<SecretRecord, SmError> {
    let store = sm.store(&at.account, &at.region)?;
    at.find(&*store)?.ok_or_else(secret_not_found)
}

/// Refuses a secret waiting for deletion.
pub(crate) fn not_deleted(secret: &SecretRecord) -> Result<(), SmError> {
    if secret.is_deleted() {
        return Err(marked_for_deletion());
    }
    Ok(())
}

/// Refuses a write on a replica (its primary's region writes it) or a deleted secret.
pub(crate) fn writable(secret: &SecretRecord) -> Result<(), SmError> {
    not_deleted(secret)?;
    if secret.primary_region.as_deref().is_some_and(|p| p != secret.region) {
        return Err(on_replica());
    }
    Ok(())
}

/// Refuses reading or writing the value of another account's secret under the default key,
/// which no other account may use.
pub(crate) fn check_cross_account(ctx: &RequestContext, secret: &SecretRecord) -> Result<(), SmError> {
    if secret.account != ctx.account_id && secret.kms_key_id.is_none() {
        return Err(invalid_request(
            "You can't access a secret from a different AWS account if you encrypt the secret with the default KMS service key.",
        ));
    }
    Ok(())
}

/// Changes the secret `at` names in one transaction: `change` sees it as stored and says
/// what to answer. Replicas follow the primary after the commit.
pub(crate) async fn modify<R, F>(sm: &SecretsService, at: &SecretRef, change: F) -> Result<(SecretRecord, R), SmError>
where
    R: Send + 'static,
    F: FnOnce(&mut SecretRecord) -> Result<R, SmError> + Send + 'static,
{
    let target = at.clone();
    let (secret, answer) = sm
        .transact(&at.account, &at.region, move |tx| {
            let mut secret = target.find(&*tx)?.ok_or_else(secret_not_found)?;
            let answer = change(&mut secret)?;
            SECRETS.put(tx, secret.name.as_str(), &secret)?;
            Ok((secret, answer))
        })
        .await?;
    sm.sync_replicas(&secret).await;
    Ok((secret, answer))
}

fn date(ms: i64) -> DateTime {
    DateTime::from_millis(ms)
}

/// DescribeSecret's answer for `secret`: every field AWS fills, and only those.
pub(crate) fn describe(secret: &SecretRecord) -> DescribeSecretResponse {
    let rotation = secret.rotation.as_ref();
    let primary = secret
        .primary_region
        .clone()
        .or_else(|| (!secret.replicas.is_empty()).then(|| secret.region.clone()));
    DescribeSecretResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name.clone()),
        description: secret.description.clone(),
        kms_key_id: secret.kms_key_id.clone(),
        rotation_enabled: rotation.map(|r| r.enabled),
        rotation_lambda_arn: rotation.and_then(|r| r.lambda_arn.clone()),
        rotation_rules: rotation.map(|r| RotationRulesType {
            automatically_after_days: r.after_days,
            duration: r.duration.clone(),
            schedule_expression: r.schedule.clone(),
        }),
        last_rotated_date: rotation.and_then(|r| r.last_rotated_ms).map(date),
        last_changed_date: Some(date(secret.last_changed_ms)),
        last_accessed_date: secret.last_accessed_ms.map(date),
        deleted_date: secret.deleted_ms.map(date),
        next_rotation_date: rotation.filter(|r| r.enabled).and_then(|r| r.next_ms).map(date),
        tags: secret.tags.as_ref().map(|tags| {
            tags.iter()
                .map(|(k, v)| Tag {
                    key: Some(k.clone()),
                    value: Some(v.clone()),
                })
                .collect()
        }),
        version_ids_to_stages: secret.stages_by_version(),
        owning_service: None,
        created_date: Some(date(secret.created_ms)),
        primary_region: primary,
        replication_status: replication::statuses(secret),
    }
}

/// ListSecrets' entry for a secret: DescribeSecret's fields under ListSecrets' names.
pub(crate) fn list_entry(secret: &SecretRecord) -> SecretListEntry {
    let d = describe(secret);
    SecretListEntry {
        arn: d.arn,
        name: d.name,
        description: d.description,
        kms_key_id: d.kms_key_id,
        rotation_enabled: d.rotation_enabled,
        rotation_lambda_arn: d.rotation_lambda_arn,
        rotation_rules: d.rotation_rules,
        last_rotated_date: d.last_rotated_date,
        last_changed_date: d.last_changed_date,
        last_accessed_date: d.last_accessed_date,
        deleted_date: d.deleted_date,
        next_rotation_date: d.next_rotation_date,
        tags: d.tags,
        secret_versions_to_stages: d.version_ids_to_stages,
        owning_service: d.owning_service,
        created_date: d.created_date,
        primary_region: d.primary_region,
    }
}

/// The page of `items` (in listing order) after the one `next_token` names, and the token of
/// the next page: tokens name the last item of a page by `key`.
pub(crate) fn page<T>(
    items: Vec<T>,
    listing: &Token,
    next_token: Option<&str>,
    size: usize,
    key: impl Fn(&T) -> &str,
) -> Result<(Vec<T>, Option<String>), SmError> {
    let skip = match next_token {
        Some(token) => {
            let after = listing.decode_str(token).map_err(|_| {
                SmError(AwsError::new(
                    "InvalidNextTokenException",
                    "The NextToken value is invalid.",
                    400,
                ))
            })?;
            items
                .iter()
                .position(|item| key(item) == after)
                .map_or(items.len(), |i| i + 1)
        }
        None => 0,
    };
    let (page, more) = take_page(items.into_iter().skip(skip), size);
    let next = more
        .then(|| page.last().map(|item| listing.encode_str(key(item))))
        .flatten();
    Ok((page, next))
}
