//! Rotation: automatic (EnableKeyRotation, on the scheduler) and on demand, and the list of
//! rotations. Older material stays with the key, so what it encrypted still decrypts.

use stratus_core::paging::Token;
use stratus_core::value::DateTime;
use stratus_core::{RequestContext, Unit};
use stratus_gen_kms::*;

use crate::crypto::{self, Family};
use crate::error::{invalid_state, limit_exceeded, unsupported, validation, KmsError};
use crate::keys::{KeyRecord, Material, Rotation};
use crate::lookup::{find_key, Scope};
use crate::ops::keys::update;
use crate::ops::page;
use crate::service::KmsService;

const ROTATION_LISTING: Token = Token::for_listing("kms:ListKeyRotations");
/// AWS's limit of on-demand rotations per key.
const MAX_ON_DEMAND: u32 = 10;
const DAY_MS: i64 = 86_400_000;

/// Automatic rotation is for symmetric keys whose material KMS made.
fn check_rotatable(key: &KeyRecord) -> Result<(), KmsError> {
    key.check_enabled()?;
    if key.family()? != Family::Symmetric || key.is_external() || key.manager == "AWS" {
        return Err(unsupported(format!(
            "{} key spec is {} and origin is {}, which is not valid for this operation.",
            key.arn, key.spec, key.origin
        )));
    }
    Ok(())
}

/// Gives the key new material, rotated now by `how` (`AUTOMATIC` or `ON_DEMAND`).
pub(crate) fn rotate(key: &mut KeyRecord, now: i64, how: &str) {
    let secret = crypto::generate(Family::Symmetric);
    key.materials.push(Material::new(&secret, Some((now, how.to_owned()))));
}

pub(crate) async fn enable_key_rotation(
    kms: &KmsService,
    ctx: &RequestContext,
    input: EnableKeyRotationRequest,
) -> Result<Unit, KmsError> {
    let days = input.rotation_period_in_days.unwrap_or(365);
    if !(90..=2560).contains(&days) {
        return Err(validation(format!(
            "1 validation error detected: Value '{days}' at 'rotationPeriodInDays' failed to satisfy constraint: Member must have value {}",
            if days < 90 { "greater than or equal to 90" } else { "less than or equal to 2560" }
        )));
    }
    let next = kms.now_ms() + i64::from(days) * DAY_MS;
    update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        check_rotatable(key)?;
        key.rotation = Some(Rotation {
            period_days: days,
            next_ms: next,
        });
        Ok(())
    })
    .await?;
    kms.schedule_due(next);
    Ok(Unit {})
}

pub(crate) async fn disable_key_rotation(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DisableKeyRotationRequest,
) -> Result<Unit, KmsError> {
    update(kms, &Scope::of(ctx), &input.key_id, |key| {
        check_rotatable(key)?;
        key.rotation = None;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn get_key_rotation_status(
    kms: &KmsService,
    ctx: &RequestContext,
    input: GetKeyRotationStatusRequest,
) -> Result<GetKeyRotationStatusResponse, KmsError> {
    let scope = Scope::of(ctx);
    let key = find_key(&*kms.store(&scope.account, &scope.region)?, &scope, &input.key_id)?;
    key.check_not_pending_deletion()?;
    if key.family()? != Family::Symmetric || key.is_external() {
        return Err(unsupported(format!(
            "{} key spec is {} and origin is {}, which is not valid for this operation.",
            key.arn, key.spec, key.origin
        )));
    }
    Ok(GetKeyRotationStatusResponse {
        key_rotation_enabled: key.rotation.is_some(),
        key_id: Some(key.arn),
        rotation_period_in_days: key.rotation.as_ref().map(|r| r.period_days),
        next_rotation_date: key.rotation.as_ref().map(|r| DateTime::from_millis(r.next_ms)),
        on_demand_rotation_start_date: None,
    })
}

pub(crate) async fn rotate_key_on_demand(
    kms: &KmsService,
    ctx: &RequestContext,
    input: RotateKeyOnDemandRequest,
) -> Result<RotateKeyOnDemandResponse, KmsError> {
    let now = kms.now_ms();
    let (key, ()) = update(kms, &Scope::of(ctx), &input.key_id, move |key| {
        key.check_enabled()?;
        if key.family()? != Family::Symmetric || key.manager == "AWS" {
            return Err(unsupported(""));
        }
        if key.on_demand_rotations >= MAX_ON_DEMAND {
            return Err(limit_exceeded(format!(
                "The on-demand rotations limit has been reached for the given keyId. No more on-demand rotations can be performed for this key: {}",
                key.arn
            )));
        }
        if key.is_external() {
            let Some(mut pending) = key.pending_material.take() else {
                return Err(invalid_state(format!(
                    "No available key material pending rotation for the key: {}.",
                    key.arn
                )));
            };
            pending.rotated = Some((now, "ON_DEMAND".into()));
            key.materials.push(pending);
        } else {
            rotate(key, now, "ON_DEMAND");
        }
        key.on_demand_rotations += 1;
        Ok(())
    })
    .await?;
    Ok(RotateKeyOnDemandResponse { key_id: Some(key.arn) })
}

pub(crate) async fn list_key_rotations(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListKeyRotationsRequest,
) -> Result<ListKeyRotationsResponse, KmsError> {
    let scope = Scope::of(ctx);
    let key = find_key(&*kms.store(&scope.account, &scope.region)?, &scope, &input.key_id)?;
    if key.family()? != Family::Symmetric {
        return Err(unsupported(format!(
            "{} key spec is {} which is not valid for this operation.",
            key.arn, key.spec
        )));
    }
    let current = key.current().map(|m| m.id.clone());
    let rotations = key
        .materials
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let (at, how) = m.rotated.as_ref()?;
            Some((
                format!("{i:05}"),
                RotationsListEntry {
                    key_id: Some(key.arn.clone()),
                    key_material_id: Some(m.id.clone()),
                    key_material_description: m.description.clone(),
                    import_state: key.is_external().then_some(ImportState::Imported),
                    key_material_state: Some(if current.as_ref() == Some(&m.id) {
                        KeyMaterialState::Current
                    } else {
                        KeyMaterialState::NonCurrent
                    }),
                    expiration_model: key
                        .is_external()
                        .then_some(ExpirationModelType::KeyMaterialDoesNotExpire),
                    valid_to: m.valid_to_ms.map(DateTime::from_millis),
                    rotation_date: Some(DateTime::from_millis(*at)),
                    rotation_type: Some(RotationType::from_wire(how)),
                },
            ))
        })
        .collect();
    let (rotations, next) = page(rotations, &ROTATION_LISTING, input.marker.as_deref(), input.limit)?;
    Ok(ListKeyRotationsResponse {
        rotations: Some(rotations),
        truncated: next.is_some(),
        next_marker: next,
    })
}
