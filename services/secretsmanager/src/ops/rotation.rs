//! RotateSecret and CancelRotateSecret.

use std::collections::BTreeSet;

use stratus_core::{AwsError, RequestContext};
use stratus_gen_secrets_manager::*;
use stratus_storage::Tx;

use crate::error::{invalid_request, SmError};
use crate::ops::{load, modify, token, writable};
use crate::rotation::{can_invoke, check_rules, next_rotation, RotationRun};
use crate::secret::{Rotation, SecretRecord, Version, PENDING};
use crate::service::SecretsService;

/// Starts a rotation of `secret` in `tx`: the new version `token`, labelled `AWSPENDING`
/// and without a value, and the run in the outbox (wake it after the commit).
pub(crate) fn start_rotation(
    sm: &SecretsService,
    tx: &mut Tx<'_>,
    secret: &mut SecretRecord,
    token: String,
    test_only: bool,
    now: i64,
) -> Result<(), SmError> {
    let Some(rotation) = secret.rotation.as_mut() else {
        return Ok(());
    };
    let Some(lambda_arn) = rotation.lambda_arn.clone() else {
        return Ok(());
    };
    // The scheduled rotation after this one counts from now.
    rotation.next_ms = next_rotation(rotation, now);
    if !test_only && secret.version(&token).is_none() {
        secret.add_version(
            Version {
                id: token.clone(),
                created_ms: now,
                key: secret.kms_key_id.clone(),
                ..Version::default()
            },
            &BTreeSet::from([PENDING.to_owned()]),
        );
    }
    sm.shared.rotations.put(
        tx,
        RotationRun {
            name: secret.name.clone(),
            arn: secret.arn(),
            token,
            lambda_arn,
            test_only,
        },
    )?;
    Ok(())
}

pub(crate) async fn rotate_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: RotateSecretRequest,
) -> Result<RotateSecretResponse, SmError> {
    let token = token(input.client_request_token, true)?;
    let (at, current) = load(sm, ctx, &input.secret_id)?;
    writable(&current)?;
    let mut rotation = current.rotation.clone().unwrap_or_default();
    if let Some(arn) = input.rotation_lambda_arn {
        rotation.lambda_arn = Some(arn);
    }
    if let Some(rules) = input.rotation_rules {
        rotation.after_days = rules.automatically_after_days;
        rotation.duration = rules.duration;
        rotation.schedule = rules.schedule_expression;
        check_rules(&rotation)?;
    }
    let Some(lambda_arn) = rotation.lambda_arn.clone() else {
        return Err(invalid_request(
            "No Lambda rotation function ARN is associated with this secret.",
        ));
    };
    if !can_invoke(sm, &at, &current.arn(), &lambda_arn).await {
        return Err(SmError(AwsError::new(
            "AccessDeniedException",
            "Secrets Manager cannot invoke the specified Lambda function. Ensure that the function policy grants access to the principal secretsmanager.amazonaws.com.",
            400,
        )));
    }
    rotation.enabled = true;
    let immediately = input.rotate_immediately.unwrap_or(true);
    let now = sm.now_ms();
    let service = sm.clone();
    let version = token.clone();
    let target = at.clone();
    let secret = sm
        .transact(&at.account, &at.region, move |tx| {
            let mut secret = target.find(&*tx)?.ok_or_else(crate::error::secret_not_found)?;
            writable(&secret)?;
            rotation.next_ms = next_rotation(&rotation, now);
            secret.rotation = Some(rotation);
            start_rotation(&service, tx, &mut secret, version, !immediately, now)?;
            crate::store::SECRETS.put(tx, secret.name.as_str(), &secret)?;
            Ok(secret)
        })
        .await?;
    sm.shared.rotations.wake(&at.account, &at.region);
    if let Some(due) = crate::due::due_of(&secret) {
        sm.schedule_due(due);
    }
    Ok(RotateSecretResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
        version_id: immediately.then_some(token),
    })
}

pub(crate) async fn cancel_rotate_secret(
    sm: &SecretsService,
    ctx: &RequestContext,
    input: CancelRotateSecretRequest,
) -> Result<CancelRotateSecretResponse, SmError> {
    let (at, _) = load(sm, ctx, &input.secret_id)?;
    let (secret, pending) = modify(sm, &at, |secret| {
        writable(secret)?;
        let rotation: &mut Rotation = secret
            .rotation
            .as_mut()
            .filter(|r| r.enabled)
            .ok_or_else(|| invalid_request("Secret does not have rotation enabled."))?;
        rotation.enabled = false;
        rotation.next_ms = None;
        Ok(secret.staged(PENDING).map(|v| v.id.clone()))
    })
    .await?;
    Ok(CancelRotateSecretResponse {
        arn: Some(secret.arn()),
        name: Some(secret.name),
        version_id: pending,
    })
}
