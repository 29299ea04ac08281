//! OpenID Connect identity providers (EKS clusters, GitHub Actions…): registered by URL,
//! named by `arn:aws:iam::ACCOUNT:oidc-provider/HOST/PATH`, with their audiences (client ids)
//! and certificate thumbprints. Tokens are not verified against them.

use stratus_core::arn::Arn;
use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::records::{date, wire_tags, OidcProviderRecord, Scope};
use crate::service::{now, scope, IamService};
use crate::store::{all, OIDC_PROVIDERS};
use crate::tagging::{merged, tag_page, without};

/// Thumbprints a provider may have (IAM's quota).
const MAX_THUMBPRINTS: usize = 5;
/// Client ids a provider may have (IAM's quota).
const MAX_CLIENT_IDS: usize = 100;

/// A provider's URL as its key and ARN carry it: without `https://`.
fn key_of(url: &str) -> &str {
    url.strip_prefix("https://").unwrap_or(url)
}

fn arn(scope: &Scope, key: &str) -> String {
    Arn::global("iam", &scope.region, &scope.account, &format!("oidc-provider/{key}")).to_string()
}

/// The key of the provider `arn` names in the account, or AWS's refusal.
fn key_from_arn(scope: &Scope, provider_arn: &str) -> Result<String, IamError> {
    let not_found = || IamError::NoSuchEntity(format!("OpenIDConnect Provider not found for arn {provider_arn}"));
    let parsed =
        Arn::parse(provider_arn).map_err(|_| IamError::Validation("Invalid ARN:  Could not be parsed!".into()))?;
    if parsed.account != scope.account || parsed.service != "iam" {
        return Err(not_found());
    }
    parsed
        .resource
        .strip_prefix("oidc-provider/")
        .map(str::to_owned)
        .ok_or_else(not_found)
}

fn check_limits(record: &OidcProviderRecord) -> Result<(), IamError> {
    if record.thumbprints.len() > MAX_THUMBPRINTS {
        return Err(IamError::LimitExceeded(format!(
            "Cannot exceed quota for ThumbprintsPerOpenIdConnectProvider: {MAX_THUMBPRINTS}"
        )));
    }
    if record.client_ids.len() > MAX_CLIENT_IDS {
        return Err(IamError::LimitExceeded(format!(
            "Cannot exceed quota for ClientIdsPerOpenIdConnectProvider: {MAX_CLIENT_IDS}"
        )));
    }
    Ok(())
}

pub(crate) async fn create_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateOpenIDConnectProviderRequest,
) -> Result<CreateOpenIDConnectProviderResponse, IamError> {
    let scope = scope(ctx);
    let key = key_of(&input.url).to_owned();
    let mut client_ids: Vec<String> = Vec::new();
    for id in input.client_id_list.unwrap_or_default() {
        if !client_ids.contains(&id) {
            client_ids.push(id);
        }
    }
    let record = OidcProviderRecord {
        client_ids,
        thumbprints: input.thumbprint_list.unwrap_or_default(),
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        created: now(ctx),
    };
    check_limits(&record)?;
    let url = input.url;
    let tags = wire_tags(&record.tags);
    let stored_key = key.clone();
    iam.write(&ctx.account_id, move |tx| {
        if OIDC_PROVIDERS.get(tx, &stored_key)?.is_some() {
            return Err(IamError::EntityAlreadyExists(format!(
                "Provider with url {url} already exists."
            )));
        }
        OIDC_PROVIDERS.put(tx, stored_key, &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateOpenIDConnectProviderResponse {
        open_id_connect_provider_arn: Some(arn(&scope, &key)),
        tags,
    })
}

fn load(iam: &IamService, ctx: &RequestContext, provider_arn: &str) -> Result<OidcProviderRecord, IamError> {
    let key = key_from_arn(&scope(ctx), provider_arn)?;
    OIDC_PROVIDERS
        .get(&iam.reader(&ctx.account_id)?, &key)?
        .ok_or_else(|| IamError::NoSuchEntity(format!("OpenIDConnect Provider not found for arn {provider_arn}")))
}

pub(crate) async fn get_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetOpenIDConnectProviderRequest,
) -> Result<GetOpenIDConnectProviderResponse, IamError> {
    let record = load(iam, ctx, &input.open_id_connect_provider_arn)?;
    let key = key_from_arn(&scope(ctx), &input.open_id_connect_provider_arn)?;
    Ok(GetOpenIDConnectProviderResponse {
        url: Some(key),
        client_id_list: Some(record.client_ids),
        thumbprint_list: Some(record.thumbprints),
        create_date: Some(date(record.created)),
        tags: wire_tags(&record.tags),
    })
}

pub(crate) async fn list_open_id_connect_providers(
    iam: &IamService,
    ctx: &RequestContext,
    _input: ListOpenIDConnectProvidersRequest,
) -> Result<ListOpenIDConnectProvidersResponse, IamError> {
    let scope = scope(ctx);
    let providers = all(&iam.reader(&ctx.account_id)?, OIDC_PROVIDERS)?
        .into_iter()
        .map(|(key, _)| OpenIDConnectProviderListEntry {
            arn: Some(arn(&scope, &key)),
        })
        .collect();
    Ok(ListOpenIDConnectProvidersResponse {
        open_id_connect_provider_list: Some(providers),
    })
}

pub(crate) async fn delete_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteOpenIDConnectProviderRequest,
) -> Result<Unit, IamError> {
    let key = key_from_arn(&scope(ctx), &input.open_id_connect_provider_arn)?;
    iam.write(&ctx.account_id, move |tx| {
        if OIDC_PROVIDERS.get(tx, &key)?.is_none() {
            return Err(IamError::NoSuchEntity(format!(
                "OpenIDConnect Provider not found for arn {}",
                input.open_id_connect_provider_arn
            )));
        }
        OIDC_PROVIDERS.delete(tx, key);
        Ok(Unit {})
    })
    .await
}

/// Applies `change` to the provider `provider_arn` names, in one transaction.
async fn update<F>(iam: &IamService, ctx: &RequestContext, provider_arn: String, change: F) -> Result<Unit, IamError>
where
    F: FnOnce(&mut OidcProviderRecord) -> Result<(), IamError> + Send + 'static,
{
    let key = key_from_arn(&scope(ctx), &provider_arn)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut record = OIDC_PROVIDERS.get(tx, &key)?.ok_or_else(|| {
            IamError::NoSuchEntity(format!("OpenIDConnect Provider not found for arn {provider_arn}"))
        })?;
        change(&mut record)?;
        check_limits(&record)?;
        OIDC_PROVIDERS.put(tx, key, &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn add_client_id_to_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: AddClientIDToOpenIDConnectProviderRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.open_id_connect_provider_arn, move |p| {
        if !p.client_ids.contains(&input.client_id) {
            p.client_ids.push(input.client_id);
        }
        Ok(())
    })
    .await
}

pub(crate) async fn remove_client_id_from_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: RemoveClientIDFromOpenIDConnectProviderRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.open_id_connect_provider_arn, move |p| {
        p.client_ids.retain(|id| *id != input.client_id);
        Ok(())
    })
    .await
}

pub(crate) async fn update_open_id_connect_provider_thumbprint(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateOpenIDConnectProviderThumbprintRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.open_id_connect_provider_arn, move |p| {
        p.thumbprints = input.thumbprint_list;
        Ok(())
    })
    .await
}

pub(crate) async fn tag_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: TagOpenIDConnectProviderRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.open_id_connect_provider_arn, move |p| {
        p.tags = merged(&p.tags, input.tags)?;
        Ok(())
    })
    .await
}

pub(crate) async fn untag_open_id_connect_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagOpenIDConnectProviderRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.open_id_connect_provider_arn, move |p| {
        p.tags = without(&p.tags, &input.tag_keys);
        Ok(())
    })
    .await
}

pub(crate) async fn list_open_id_connect_provider_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListOpenIDConnectProviderTagsRequest,
) -> Result<ListOpenIDConnectProviderTagsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListOpenIDConnectProviderTags");
    let record = load(iam, ctx, &input.open_id_connect_provider_arn)?;
    let page = tag_page(LISTING, &record.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListOpenIDConnectProviderTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}
