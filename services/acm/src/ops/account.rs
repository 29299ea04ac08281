//! The account's ACM configuration in a region: how early expiry events are sent.

use stratus_core::{RequestContext, Unit};
use stratus_gen_acm::*;

use crate::error::AcmError;
use crate::service::AcmService;
use crate::store::{AccountConfiguration, ACCOUNT, CONFIGURATION};

pub(crate) async fn get_account_configuration(
    acm: &AcmService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<GetAccountConfigurationResponse, AcmError> {
    let configuration = CONFIGURATION
        .get(&*acm.store(&ctx.account_id, &ctx.region)?, ACCOUNT)?
        .unwrap_or_default();
    Ok(GetAccountConfigurationResponse {
        expiry_events: Some(ExpiryEventsConfiguration {
            days_before_expiry: Some(configuration.days_before_expiry),
        }),
    })
}

/// The model bounds `DaysBeforeExpiry` (1 or more) and requires the idempotency token, so
/// what is left is to keep the setting.
pub(crate) async fn put_account_configuration(
    acm: &AcmService,
    ctx: &RequestContext,
    input: PutAccountConfigurationRequest,
) -> Result<Unit, AcmError> {
    let Some(days) = input.expiry_events.and_then(|e| e.days_before_expiry) else {
        return Ok(Unit);
    };
    acm.transact(&ctx.account_id, &ctx.region, move |tx| {
        CONFIGURATION.put(
            tx,
            ACCOUNT,
            &AccountConfiguration {
                days_before_expiry: days,
            },
        )?;
        Ok(Unit)
    })
    .await
}
