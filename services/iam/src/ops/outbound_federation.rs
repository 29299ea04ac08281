//! Outbound web identity federation: the account switch that lets STS's
//! `GetWebIdentityToken` issue JWTs for AWS principals, and the issuer those tokens name.
//! The switch is kept here; STS does not read it yet.

use stratus_core::id::uuid;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::service::IamService;
use crate::store::{load_account, ACCOUNT, ACCOUNT_KEY};

fn disabled() -> IamError {
    IamError::FeatureDisabled("Outbound web identity federation is disabled for this account.".into())
}

pub(crate) async fn enable_outbound_web_identity_federation(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<EnableOutboundWebIdentityFederationResponse, IamError> {
    let fresh = format!("https://{}.tokens.sts.global.api.aws", uuid());
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        let issuer = match account.outbound_federation.take() {
            Some((_, true)) => {
                return Err(IamError::FeatureEnabled(
                    "Outbound web identity federation is already enabled for this account.".into(),
                ))
            }
            // Enabled again, the account keeps its issuer.
            Some((issuer, false)) => issuer,
            None => fresh,
        };
        account.outbound_federation = Some((issuer.clone(), true));
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(EnableOutboundWebIdentityFederationResponse {
            issuer_identifier: Some(issuer),
        })
    })
    .await
}

pub(crate) async fn disable_outbound_web_identity_federation(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        match account.outbound_federation.as_mut() {
            Some((_, on)) if *on => *on = false,
            _ => return Err(disabled()),
        }
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn get_outbound_web_identity_federation_info(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<GetOutboundWebIdentityFederationInfoResponse, IamError> {
    match load_account(&iam.reader(&ctx.account_id)?)?.outbound_federation {
        Some((issuer, true)) => Ok(GetOutboundWebIdentityFederationInfoResponse {
            issuer_identifier: Some(issuer),
            jwt_vending_enabled: true,
        }),
        _ => Err(disabled()),
    }
}
