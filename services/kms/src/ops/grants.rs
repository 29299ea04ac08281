//! CreateGrant, ListGrants, ListRetirableGrants, RetireGrant and RevokeGrant.

use stratus_core::paging::Token;
use stratus_core::{hex, AwsError, RequestContext, Unit};
use stratus_gen_kms::*;

use crate::crypto;
use crate::error::{dry_run, not_found, validation, KmsError};
use crate::grants::{check_grant_tokens, read_token, token, GrantRecord};
use crate::lookup::{find_key, Scope};
use crate::ops::page;
use crate::service::KmsService;
use crate::store::{grant_key, key_prefix, GRANTS};

const GRANT_LISTING: Token = Token::for_listing("kms:ListGrants");
const RETIRABLE_LISTING: Token = Token::for_listing("kms:ListRetirableGrants");

fn grant_not_found() -> KmsError {
    not_found("Grant id not found")
}

pub(crate) async fn create_grant(
    kms: &KmsService,
    ctx: &RequestContext,
    input: CreateGrantRequest,
) -> Result<CreateGrantResponse, KmsError> {
    let scope = Scope::of(ctx);
    check_grant_tokens(input.grant_tokens.as_deref())?;
    if input.grantee_principal.is_none() && input.grantee_service_principal.is_none() {
        return Err(validation("GranteePrincipal is required."));
    }
    let store = kms.store(&scope.account, &scope.region)?;
    let key = find_key(&*store, &scope, &input.key_id)?;
    if key.state == "PendingDeletion" {
        return Err(key.state_error());
    }
    let constraints = input.constraints.unwrap_or_default();
    if constraints.encryption_context_subset.is_some() && constraints.encryption_context_equals.is_some() {
        return Err(validation(
            "EncryptionContextSubset and EncryptionContextEquals cannot both be specified.",
        ));
    }
    if input.dry_run == Some(true) {
        return Err(dry_run());
    }
    let grant = GrantRecord {
        id: hex::encode(&crypto::random_bytes(32)),
        name: input.name,
        key_id: key.id.clone(),
        key_arn: key.arn.clone(),
        grantee: input.grantee_principal,
        grantee_service: input.grantee_service_principal,
        retiring: input.retiring_principal,
        retiring_service: input.retiring_service_principal,
        operations: input.operations.iter().map(|o| o.as_str().to_owned()).collect(),
        context_subset: constraints.encryption_context_subset,
        context_equals: constraints.encryption_context_equals,
        source_arn: constraints.source_arn,
        created_ms: kms.now_ms(),
        issuing_account: format!("arn:{}:iam::{}:root", scope.partition(), scope.account),
    };
    let grant = kms
        .transact(&scope.account, &scope.region, move |tx| {
            // A named grant asked for again, the same, is the grant already made.
            if grant.name.is_some() {
                for (_, existing) in GRANTS.scan_prefix(tx, key_prefix(&grant.key_id))? {
                    let same = GrantRecord {
                        id: existing.id.clone(),
                        created_ms: existing.created_ms,
                        ..grant.clone()
                    };
                    if existing == same {
                        return Ok(existing);
                    }
                }
            }
            GRANTS.put(tx, grant_key(&grant.key_id, &grant.id), &grant)?;
            Ok(grant)
        })
        .await?;
    Ok(CreateGrantResponse {
        grant_token: Some(token(&grant.key_id, &grant.id)),
        grant_id: Some(grant.id),
    })
}

pub(crate) async fn list_grants(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListGrantsRequest,
) -> Result<ListGrantsResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let key = find_key(&*store, &scope, &input.key_id)?;
    let grants = GRANTS
        .scan_prefix(&*store, key_prefix(&key.id))?
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| input.grant_id.as_ref().is_none_or(|id| *id == g.id))
        .filter(|g| {
            input
                .grantee_principal
                .as_ref()
                .is_none_or(|p| g.grantee.as_ref() == Some(p))
        })
        .filter(|g| {
            input
                .grantee_service_principal
                .as_ref()
                .is_none_or(|p| g.grantee_service.as_ref() == Some(p))
        })
        .map(|g| (g.id.clone(), g.entry()))
        .collect();
    let (grants, next) = page(grants, &GRANT_LISTING, input.marker.as_deref(), input.limit)?;
    Ok(ListGrantsResponse {
        grants: Some(grants),
        truncated: next.is_some(),
        next_marker: next,
    })
}

pub(crate) async fn list_retirable_grants(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListRetirableGrantsRequest,
) -> Result<ListGrantsResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let grants = GRANTS
        .scan_prefix(&*store, [])?
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| {
            (input.retiring_principal.is_some() && g.retiring == input.retiring_principal)
                || (input.retiring_service_principal.is_some()
                    && g.retiring_service == input.retiring_service_principal)
        })
        .map(|g| (format!("{}:{}", g.key_id, g.id), g.entry()))
        .collect();
    let (grants, next) = page(grants, &RETIRABLE_LISTING, input.marker.as_deref(), input.limit)?;
    Ok(ListGrantsResponse {
        grants: Some(grants),
        truncated: next.is_some(),
        next_marker: next,
    })
}

/// Deletes the grant `grant_id` of the key `key_id` names.
async fn delete_grant(kms: &KmsService, scope: &Scope, key_id: String, grant_id: String) -> Result<(), KmsError> {
    let scope = scope.clone();
    kms.transact(&scope.account.clone(), &scope.region.clone(), move |tx| {
        let key = find_key(tx, &scope, &key_id)?;
        let at = grant_key(&key.id, &grant_id);
        if GRANTS.get(tx, &at)?.is_none() {
            return Err(grant_not_found());
        }
        GRANTS.delete(tx, at);
        Ok(())
    })
    .await
}

pub(crate) async fn retire_grant(
    kms: &KmsService,
    ctx: &RequestContext,
    input: RetireGrantRequest,
) -> Result<Unit, KmsError> {
    let scope = Scope::of(ctx);
    let (key_id, grant_id) = match (input.grant_token, input.key_id, input.grant_id) {
        (Some(t), _, _) => read_token(&t)
            .ok_or_else(|| KmsError(AwsError::new("InvalidGrantTokenException", "Invalid grant token", 400)))?,
        (None, Some(k), Some(g)) => (k, g),
        _ => return Err(validation("Grant token OR (grant ID, key ID) must be specified")),
    };
    if input.dry_run == Some(true) {
        return Err(dry_run());
    }
    delete_grant(kms, &scope, key_id, grant_id).await?;
    Ok(Unit {})
}

pub(crate) async fn revoke_grant(
    kms: &KmsService,
    ctx: &RequestContext,
    input: RevokeGrantRequest,
) -> Result<Unit, KmsError> {
    if input.dry_run == Some(true) {
        let scope = Scope::of(ctx);
        find_key(&*kms.store(&scope.account, &scope.region)?, &scope, &input.key_id)?;
        return Err(dry_run());
    }
    delete_grant(kms, &Scope::of(ctx), input.key_id, input.grant_id).await?;
    Ok(Unit {})
}
