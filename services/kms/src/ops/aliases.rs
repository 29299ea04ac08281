//! CreateAlias, UpdateAlias, DeleteAlias and ListAliases.

use stratus_core::paging::Token;
use stratus_core::value::DateTime;
use stratus_core::{RequestContext, Unit};
use stratus_gen_kms::*;

use crate::aliases::{check_name, AliasRecord};
use crate::error::{alias_not_found, already_exists, not_authorized, KmsError};
use crate::lookup::{find_key, Scope};
use crate::ops::page;
use crate::service::KmsService;
use crate::store::{ALIASES, KEYS};

const ALIAS_LISTING: Token = Token::for_listing("kms:ListAliases");

pub(crate) async fn create_alias(
    kms: &KmsService,
    ctx: &RequestContext,
    input: CreateAliasRequest,
) -> Result<Unit, KmsError> {
    let scope = Scope::of(ctx);
    check_name(&input.alias_name)?;
    let now = kms.now_ms();
    kms.transact(&scope.account.clone(), &scope.region.clone(), move |tx| {
        if ALIASES.get(tx, &input.alias_name)?.is_some() {
            return Err(already_exists(format!(
                "An alias with the name {} already exists",
                scope.alias_arn(&input.alias_name)
            )));
        }
        let key = find_key(tx, &scope, &input.target_key_id)?;
        if key.state == "PendingDeletion" {
            return Err(key.state_error());
        }
        ALIASES.put(
            tx,
            input.alias_name.as_str(),
            &AliasRecord {
                target: key.id,
                created_ms: now,
                updated_ms: now,
            },
        )?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn update_alias(
    kms: &KmsService,
    ctx: &RequestContext,
    input: UpdateAliasRequest,
) -> Result<Unit, KmsError> {
    let scope = Scope::of(ctx);
    check_name(&input.alias_name)?;
    let now = kms.now_ms();
    kms.transact(&scope.account.clone(), &scope.region.clone(), move |tx| {
        let mut alias = ALIASES
            .get(tx, &input.alias_name)?
            .ok_or_else(|| alias_not_found(&scope.alias_arn(&input.alias_name)))?;
        let key = find_key(tx, &scope, &input.target_key_id)?;
        let current = KEYS.get(tx, &alias.target)?;
        if current.is_some_and(|c| c.key_usage() != key.key_usage() || c.spec != key.spec) {
            return Err(crate::error::validation(format!(
                "{} key usage or key spec differs from the alias's current key.",
                key.arn
            )));
        }
        alias.target = key.id;
        alias.updated_ms = now;
        ALIASES.put(tx, input.alias_name.as_str(), &alias)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn delete_alias(
    kms: &KmsService,
    ctx: &RequestContext,
    input: DeleteAliasRequest,
) -> Result<Unit, KmsError> {
    let scope = Scope::of(ctx);
    if input.alias_name.starts_with(crate::aliases::MANAGED_PREFIX) {
        return Err(not_authorized("Cannot delete alias with prefix 'alias/aws/'"));
    }
    kms.transact(&scope.account.clone(), &scope.region.clone(), move |tx| {
        if ALIASES.get(tx, &input.alias_name)?.is_none() {
            return Err(alias_not_found(&scope.alias_arn(&input.alias_name)));
        }
        ALIASES.delete(tx, input.alias_name.as_str());
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_aliases(
    kms: &KmsService,
    ctx: &RequestContext,
    input: ListAliasesRequest,
) -> Result<ListAliasesResponse, KmsError> {
    let scope = Scope::of(ctx);
    let store = kms.store(&scope.account, &scope.region)?;
    let only = match &input.key_id {
        Some(k) => Some(find_key(&*store, &scope, k)?.id),
        None => None,
    };
    let aliases = ALIASES
        .scan_prefix(&*store, [])?
        .into_iter()
        .filter_map(|(name, a)| {
            let name = String::from_utf8(name).ok()?;
            if only.as_ref().is_some_and(|id| *id != a.target) {
                return None;
            }
            Some((
                name.clone(),
                AliasListEntry {
                    alias_arn: Some(scope.alias_arn(&name)),
                    alias_name: Some(name),
                    target_key_id: Some(a.target),
                    creation_date: Some(DateTime::from_millis(a.created_ms)),
                    last_updated_date: Some(DateTime::from_millis(a.updated_ms)),
                },
            ))
        })
        .collect();
    let (aliases, next) = page(aliases, &ALIAS_LISTING, input.marker.as_deref(), input.limit)?;
    Ok(ListAliasesResponse {
        aliases: Some(aliases),
        truncated: next.is_some(),
        next_marker: next,
    })
}
