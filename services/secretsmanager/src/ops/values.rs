//! Secret values and their versions: get (one, or a batch), put, list the versions, and
//! move staging labels.

use std::collections::BTreeSet;

use stratus_core::paging::{PageSize, Token};
use stratus_core::value::DateTime;
use stratus_core::RequestContext;
use stratus_gen_secrets_manager::*;

use crate::crypt::{Plain, DEFAULT_KEY};
use crate::error::{exists, invalid_parameter, invalid_request, not_found, SmError};
use crate::ops::secrets::{listed, secret_page};
use crate::ops::{check_cross_account, load, modify, not_deleted, page, principal, token, writable};
use crate::secret::{day_of, SecretRecord, Version, CURRENT};
use crate::service::SecretsService;
use crate::store::SECRETS;

const VERSION_LISTING: Token = Token::for_listing("secretsmanager:ListSecretVersionIds");
const VERSION_PAGE: PageSize = PageSize {
    min: 1,
    max: 100,
    default: 100,
};
const BATCH_PAGE: PageSize = PageSize {
    min: 1,
    max: 20,
    default: 20,
};

pub(crate) fn version_exists() -> SmError {
    exists("You can't modify an existing version, you can only create a new version.")
}

/// Whether version `id` of `secret` already holds a value: `Some(true)` if it is `value`,
/// `Some(false)` if another, `None` if there is no such version or it has no value yet.
pub(crate) async fn existing_value(
    sm: &SecretsService,
    ctx: &RequestContext,
    secret: &SecretRecord,
    id: &str,
    value: &Plain,
) -> Result<Option<bool>, SmError> {
    let Some(sealed) = secret.version(id).and_then(|v| v.value.as_ref()) else {
        return Ok(None);
    };
    Ok(Some(sm.open(secret, id, sealed, &principal(ctx)).await? == *value))
}

/// The version GetSecretValue's `VersionId` and `VersionStage` pick (`AWSCURRENT` when
/// neither is given), in AWS's words when none fits.
fn pick<'s>(secret: &'s SecretRecord, version_id: Option<&str>, stage: Option<&str>) -> Result<&'s Version, SmError> {
    let version = match version_id {
        Some(id) => {
            let version = secret.version(id).ok_or_else(|| {
                not_found(format!(
                    "Secrets Manager can't find the specified secret value for VersionId: {id}"
                ))
            })?;
            if stage.is_some_and(|stage| !version.stages.contains(stage)) {
                return Err(invalid_request(
                    "You provided a VersionStage that is not associated to the provided VersionId.",
                ));
            }
            version
        }
        None => {
            let stage = stage.unwrap_or(CURRENT);
            secret.staged(stage).ok_or_else(|| {
                not_found(format!(
                    "Secrets Manager can't find the specified secret value for staging label: {stage}"
                ))
            })?
        }
    };
    if version.value.is_none() {
        return Err(not_found(format!(
            "Secrets Manager can't find the specified secret value for VersionId: {}",
            version.id
        )));
    }
    Ok(version)
}

/// One value read, with the access date noted (a write only when the day changes).
pub(crate) async fn read_value(
    sm: &SecretsService,
    ctx: &RequestContext,
    secret: &SecretRecord,
    version_id: Option<&str>,
    stage: Option<&str>,
) -> Result<GetSecretValueResponse, SmError> {
    not_deleted(secret)?;
    check_cross_account(ctx, secret)?;
    let version = pick(secret, version_id, stage)?;
    let sealed = version.value.as_ref().expect("pick answers versions with a value");
    let (secret_string, secret_binary) = sm
        .open(secret, &version.id, sealed, &principal(ctx))
        .await?
        .into_parts();
    let today = day_of(sm.now_ms());
    if secret.last_accessed_ms != Some(today) || version.last_accessed_ms != Some(today) {
        let (name, id) = (secret.name.clone(), version.id.clone());
        sm.transact(&secret.account, &secret.region, move |tx| {
            if let Some(mut stored) = SECRETS.get(&*tx, &name)? {
                stored.last_accessed_ms = Some(today);
                if let Some(v) = stored.version_mut(&id) {
                    v.last_accessed_ms = Some(today);
                }
                SECRETS.put(tx, name.as_str(), &stored)?;
            }
            Ok(())
        })
        .await?;
    }
    Ok(GetSecretValueResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name.clone()),
        version_id: Some(version.id.clone()),
        secret_binary,
        secret_string,
        version_stages: Some(version.stages.iter().cloned().collect()),
        created_date: Some(DateTime::from_millis(version.created_ms)),
    })
}

pub(crate) async fn get_secret_value(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: GetSecretValueRequest,
) -> Result<GetSecretValueResponse, SmError> {
    let (_, secret) = load(sm, ctx, &input.secret_id)?;
    read_value(
        sm,
        ctx,
        &secret,
        input.version_id.as_deref(),
        input.version_stage.as_deref(),
    )
    .await
}

pub(crate) async fn put_secret_value(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: PutSecretValueRequest,
) -> Result<PutSecretValueResponse, SmError> {
    // AWS asks for the token before it looks for the secret.
    let id = token(input.client_request_token, false)?;
    let (at, current) = load(sm, ctx, &input.secret_id)?;
    writable(&current)?;
    let value = Plain::from_input(input.secret_string, input.secret_binary)?
        .ok_or_else(|| invalid_request("You must provide either SecretString or SecretBinary."))?;
    check_cross_account(ctx, &current)?;
    let stages: BTreeSet<String> = match input.version_stages {
        Some(stages) if !stages.is_empty() => stages.into_iter().collect(),
        _ => BTreeSet::from([CURRENT.to_owned()]),
    };
    let sealed = match existing_value(sm, ctx, &current, &id, &value).await? {
        Some(true) => None,
        Some(false) => return Err(version_exists()),
        None => Some(sm.seal(&current, None, &id, &value, &principal(ctx)).await?),
    };
    let now = sm.now_ms();
    let version_id = id.clone();
    let (secret, ()) = modify(sm, &at, move |secret| {
        writable(secret)?;
        let key = secret.kms_key_id.clone();
        match (sealed, secret.version(&id).is_some()) {
            // A version a rotation started, whose value the rotation function now puts.
            (Some(sealed), true) => {
                if let Some(v) = secret.version_mut(&id) {
                    v.value = Some(sealed);
                }
                for stage in &stages {
                    secret.attach(stage, &id);
                }
            }
            (Some(sealed), false) => secret.add_version(
                Version {
                    id: id.clone(),
                    created_ms: now,
                    value: Some(sealed),
                    key,
                    ..Version::default()
                },
                &stages,
            ),
            // The same value again under the same token: nothing changes.
            (None, _) => return Ok(()),
        }
        secret.last_changed_ms = now;
        Ok(())
    })
    .await?;
    let stages = secret.version(&version_id).map(|v| v.stages.iter().cloned().collect());
    Ok(PutSecretValueResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name.clone()),
        version_id: Some(version_id),
        version_stages: stages,
    })
}

pub(crate) async fn batch_get_secret_value(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: BatchGetSecretValueRequest,
) -> Result<BatchGetSecretValueResponse, SmError> {
    let by_filters = input.filters.is_some();
    if by_filters == input.secret_id_list.is_some() {
        return Err(invalid_parameter(
            "Either 'SecretIdList' or 'Filters' must be provided, but not both.",
        ));
    }
    let mut values = Vec::new();
    let mut errors = Vec::new();
    let mut next_token = None;
    if let Some(ids) = input.secret_id_list {
        for id in ids {
            let got = match load(sm, ctx, &id) {
                Ok((_, secret)) => read_value(sm, ctx, &secret, None, None).await,
                Err(e) => Err(e),
            };
            match got {
                Ok(value) => values.push(entry(value)),
                Err(e) => errors.push(APIErrorType {
                    secret_id: Some(id),
                    error_code: Some(e.0.code.clone()),
                    message: Some(e.0.message.clone()),
                }),
            }
        }
    } else {
        let secrets = listed(sm, ctx, input.filters, false, &SortOrderType::Asc)?;
        let size = BATCH_PAGE.clamp(input.max_results);
        let (secrets, next) = secret_page(secrets, input.next_token.as_deref(), size)?;
        next_token = next;
        for secret in secrets {
            match read_value(sm, ctx, &secret, None, None).await {
                Ok(value) => values.push(entry(value)),
                Err(e) => errors.push(APIErrorType {
                    secret_id: Some(secret.name.clone()),
                    error_code: Some(e.0.code.clone()),
                    message: Some(e.0.message.clone()),
                }),
            }
        }
    }
    Ok(BatchGetSecretValueResponse {
        secret_values: Some(values),
        next_token,
        errors: Some(errors),
    })
}

fn entry(v: GetSecretValueResponse) -> SecretValueEntry {
    SecretValueEntry {
        arn: v.arn,
        name: v.name,
        version_id: v.version_id,
        secret_binary: v.secret_binary,
        secret_string: v.secret_string,
        version_stages: v.version_stages,
        created_date: v.created_date,
    }
}

pub(crate) async fn list_secret_version_ids(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: ListSecretVersionIdsRequest,
) -> Result<ListSecretVersionIdsResponse, SmError> {
    let (_, secret) = load(sm, ctx, &input.secret_id)?;
    let size = VERSION_PAGE.clamp(input.max_results);
    let deprecated = input.include_deprecated.unwrap_or(false);
    let versions: Vec<&Version> = secret
        .versions
        .iter()
        .filter(|v| deprecated || !v.stages.is_empty())
        .collect();
    let (shown, next_token) = page(versions, &VERSION_LISTING, input.next_token.as_deref(), size, |v| &v.id)?;
    let versions = shown
        .into_iter()
        .map(|v| SecretVersionsListEntry {
            version_id: Some(v.id.clone()),
            version_stages: (!v.stages.is_empty()).then(|| v.stages.iter().cloned().collect()),
            last_accessed_date: v.last_accessed_ms.map(DateTime::from_millis),
            created_date: Some(DateTime::from_millis(v.created_ms)),
            kms_key_ids: Some(vec![match &v.key {
                Some(key) if key != DEFAULT_KEY => key.clone(),
                _ => "DefaultEncryptionKey".to_owned(),
            }]),
        })
        .collect();
    Ok(ListSecretVersionIdsResponse {
        versions: Some(versions),
        next_token,
        arn: Some(secret.arn()),
        name: Some(secret.name),
    })
}

pub(crate) async fn update_secret_version_stage(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: UpdateSecretVersionStageRequest,
) -> Result<UpdateSecretVersionStageResponse, SmError> {
    let (at, _) = load(sm, ctx, &input.secret_id)?;
    let now = sm.now_ms();
    let (secret, ()) = modify(sm, &at, move |secret| {
        writable(secret)?;
        secret.move_stage(
            &input.version_stage,
            input.remove_from_version_id.as_deref(),
            input.move_to_version_id.as_deref(),
        )?;
        secret.last_changed_ms = now;
        Ok(())
    })
    .await?;
    Ok(UpdateSecretVersionStageResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
    })
}
