//! Secrets themselves: create, describe, update, delete (with a recovery window or at once),
//! restore, and list.

use std::collections::BTreeSet;

use stratus_core::paging::{PageSize, Token};
use stratus_core::value::DateTime;
use stratus_core::RequestContext;
use stratus_gen_secrets_manager::*;

use crate::crypt::Plain;
use crate::error::{exists, invalid_parameter, invalid_request, secret_not_found, SmError};
use crate::filters;
use crate::names::{check_name, new_suffix, SecretRef};
use crate::ops::tags::{check_tags, tag_pairs};
use crate::ops::{check_cross_account, describe, list_entry, load, modify, page, principal, token, writable};
use crate::secret::{arn_of, days, SecretRecord, Version, CURRENT};
use crate::service::SecretsService;
use crate::store::SECRETS;

const SECRET_LISTING: Token = Token::for_listing("secretsmanager:ListSecrets");
const LIST_PAGE: PageSize = PageSize {
    min: 1,
    max: 100,
    default: 100,
};
/// DeleteSecret's default recovery window, in days.
const DEFAULT_RECOVERY_DAYS: i64 = 30;

/// An empty description is no description: AWS leaves the field out.
fn description(given: Option<String>) -> Option<String> {
    given.filter(|d| !d.is_empty())
}

pub(crate) async fn create_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: CreateSecretRequest,
) -> Result<CreateSecretResponse, SmError> {
    check_name(&input.name)?;
    let value = Plain::from_input(input.secret_string, input.secret_binary)?;
    let version_id = match &value {
        Some(_) => Some(token(input.client_request_token, false)?),
        None => None,
    };
    let tags = tag_pairs(input.tags.unwrap_or_default());
    check_tags(&tags)?;
    let now = sm.now_ms();
    let mut secret = SecretRecord {
        name: input.name.clone(),
        suffix: new_suffix(),
        account: ctx.account_id.clone(),
        region: ctx.region.clone(),
        description: description(input.description),
        kms_key_id: input.kms_key_id,
        created_ms: now,
        last_changed_ms: now,
        tags: (!tags.is_empty()).then_some(tags),
        ..SecretRecord::default()
    };
    if let (Some(value), Some(id)) = (&value, &version_id) {
        let sealed = sm.seal(&secret, None, id, value, &principal(ctx)).await?;
        secret.add_version(
            Version {
                id: id.clone(),
                created_ms: now,
                value: Some(sealed),
                key: secret.kms_key_id.clone(),
                ..Version::default()
            },
            &BTreeSet::from([CURRENT.to_owned()]),
        );
    }
    let stored = secret.clone();
    sm.transact(&ctx.account_id, &ctx.region, move |tx| {
        if let Some(existing) = SECRETS.get(&*tx, &stored.name)? {
            if existing.is_deleted() {
                return Err(invalid_request(
                    "You can't create this secret because a secret with this name is already scheduled for deletion.",
                ));
            }
            return Err(exists(format!(
                "The operation failed because the secret {} already exists.",
                stored.name
            )));
        }
        SECRETS.put(tx, stored.name.as_str(), &stored)?;
        Ok(())
    })
    .await?;
    let replication_status = match input.add_replica_regions {
        Some(regions) if !regions.is_empty() => {
            let at = SecretRef::parse(ctx, &secret.name)?;
            sm.add_replicas(&at, regions, input.force_overwrite_replica_secret)
                .await?
                .replication_status
        }
        _ => None,
    };
    Ok(CreateSecretResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
        version_id,
        replication_status,
    })
}

pub(crate) async fn describe_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: DescribeSecretRequest,
) -> Result<DescribeSecretResponse, SmError> {
    let (_, secret) = load(sm, ctx, &input.secret_id)?;
    Ok(describe(&secret))
}

pub(crate) async fn update_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: UpdateSecretRequest,
) -> Result<UpdateSecretResponse, SmError> {
    let value = Plain::from_input(input.secret_string, input.secret_binary)?;
    // AWS asks for the token before it looks for the secret.
    let version_id = match &value {
        Some(_) => Some(token(input.client_request_token, false)?),
        None => None,
    };
    let (at, current) = load(sm, ctx, &input.secret_id)?;
    writable(&current)?;
    if value.is_some() {
        check_cross_account(ctx, &current)?;
    }
    let key = input.kms_key_id.clone().or(current.kms_key_id.clone());
    let sealed = match (&value, &version_id) {
        (Some(value), Some(id)) => match crate::ops::values::existing_value(sm, ctx, &current, id, value).await? {
            // The same request again: nothing changes.
            Some(true) => None,
            Some(false) => return Err(crate::ops::values::version_exists()),
            None => Some(sm.seal(&current, key.as_deref(), id, value, &principal(ctx)).await?),
        },
        _ => None,
    };
    let now = sm.now_ms();
    let new_description = input.description.map(|d| description(Some(d)));
    let id = version_id.clone();
    let (secret, ()) = modify(sm, &at, move |secret| {
        writable(secret)?;
        if let Some(d) = new_description {
            secret.description = d;
        }
        if input.kms_key_id.is_some() {
            secret.kms_key_id = input.kms_key_id;
        }
        if let (Some(sealed), Some(id)) = (sealed, id) {
            secret.add_version(
                Version {
                    id,
                    created_ms: now,
                    value: Some(sealed),
                    key: key.clone(),
                    ..Version::default()
                },
                &BTreeSet::from([CURRENT.to_owned()]),
            );
        }
        secret.last_changed_ms = now;
        Ok(())
    })
    .await?;
    Ok(UpdateSecretResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
        version_id,
    })
}

pub(crate) async fn delete_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: DeleteSecretRequest,
) -> Result<DeleteSecretResponse, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    let force = input.force_delete_without_recovery.unwrap_or(false);
    if force && input.recovery_window_in_days.is_some() {
        return Err(invalid_parameter(
            "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
        ));
    }
    let window = input.recovery_window_in_days.unwrap_or(DEFAULT_RECOVERY_DAYS);
    if !(7..=30).contains(&window) {
        return Err(invalid_parameter(
            "The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).",
        ));
    }
    let now = sm.now_ms();
    let target = at.clone();
    let deleted = sm
        .transact(&at.account, &at.region, move |tx| {
            let Some(mut secret) = target.find(&*tx)? else {
                return Ok(None);
            };
            if secret.primary_region.as_deref().is_some_and(|p| p != secret.region) {
                return Err(crate::error::on_replica());
            }
            if !secret.replicas.is_empty() {
                return Err(invalid_request(
                    "You can't delete secret because it has replica Regions. Remove the replicas with RemoveRegionsFromReplication first.",
                ));
            }
            if force {
                SECRETS.delete(tx, secret.name.as_bytes().to_vec());
                return Ok(Some((secret, now)));
            }
            if secret.is_deleted() {
                return Err(invalid_request(
                    "You tried to perform the operation on a secret that's currently marked deleted.",
                ));
            }
            let due = now + days(window);
            secret.deleted_ms = Some(now);
            secret.deletion_due_ms = Some(due);
            SECRETS.put(tx, secret.name.as_str(), &secret)?;
            Ok(Some((secret, due)))
        })
        .await?;
    match deleted {
        Some((secret, due)) => {
            if !force {
                sm.schedule_due(due);
            }
            Ok(DeleteSecretResponse {
                arn: Some(secret.arn()),
                name: Some(secret.name),
                deletion_date: Some(DateTime::from_millis(due)),
            })
        }
        // AWS answers a forced deletion of a secret that is not there as if it were.
        None if force => Ok(DeleteSecretResponse {
            arn: Some(arn_of(&at.region, &at.account, at.name(), &new_suffix())),
            name: Some(at.name().to_owned()),
            deletion_date: Some(DateTime::from_millis(now)),
        }),
        None => Err(secret_not_found()),
    }
}

pub(crate) async fn restore_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: RestoreSecretRequest,
) -> Result<RestoreSecretResponse, SmError> {
    let at = SecretRef::parse(ctx, &input.secret_id)?;
    let (secret, ()) = modify(sm, &at, |secret| {
        secret.deleted_ms = None;
        secret.deletion_due_ms = None;
        Ok(())
    })
    .await?;
    Ok(RestoreSecretResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
    })
}

/// The secrets a listing shows, filtered and in `order`, from the store of the caller's
/// account and region.
pub(crate) fn listed(
    sm: &SecretsService,
    ctx: &RequestContext,
    filters: Option<Vec<Filter>>,
    include_deleted: bool,
    order: &SortOrderType,
) -> Result<Vec<SecretRecord>, SmError> {
    let matchers = filters::parse(filters.unwrap_or_default())?;
    let store = sm.store(&ctx.account_id, &ctx.region)?;
    let mut secrets: Vec<SecretRecord> = SECRETS
        .scan_prefix(&*store, [])?
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| (include_deleted || !s.is_deleted()) && filters::matches(&matchers, s))
        .collect();
    secrets.sort_by(|a, b| (a.created_ms, &a.name).cmp(&(b.created_ms, &b.name)));
    if *order != SortOrderType::Asc {
        secrets.reverse();
    }
    Ok(secrets)
}

/// The page of `secrets` after `next_token`, and the token of the next page.
pub(crate) fn secret_page(
    secrets: Vec<SecretRecord>,
    next_token: Option<&str>,
    size: usize,
) -> Result<(Vec<SecretRecord>, Option<String>), SmError> {
    page(secrets, &SECRET_LISTING, next_token, size, |s| &s.name)
}

pub(crate) async fn list_secrets(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: ListSecretsRequest,
) -> Result<ListSecretsResponse, SmError> {
    let size = LIST_PAGE.clamp(input.max_results);
    let order = input.sort_order.unwrap_or(SortOrderType::Desc);
    let secrets = listed(
        sm,
        ctx,
        input.filters,
        input.include_planned_deletion.unwrap_or(false),
        &order,
    )?;
    let (listed, next_token) = secret_page(secrets, input.next_token.as_deref(), size)?;
    Ok(ListSecretsResponse {
        secret_list: Some(listed.iter().map(list_entry).collect()),
        next_token,
    })
}
