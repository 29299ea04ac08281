//! SAML identity providers: a name (`arn:aws:iam::ACCOUNT:saml-provider/NAME`) and the IdP's
//! metadata document, kept as given. Assertions are not verified against it (STS's
//! AssumeRoleWithSAML reads them unsigned), so assertion encryption keys are not taken:
//! `AddPrivateKey` answers `NotImplemented`.

use stratus_core::arn::Arn;
use stratus_core::id::uuid;
use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::error::IamError;
use crate::records::{date, wire_tags, SamlProviderRecord, Scope};
use crate::service::{now, scope, IamService};
use crate::store::{all, SAML_PROVIDERS};
use crate::tagging::{merged, tag_page, without};

fn arn(scope: &Scope, name: &str) -> String {
    Arn::global("iam", &scope.region, &scope.account, &format!("saml-provider/{name}")).to_string()
}

fn not_found(provider_arn: &str) -> IamError {
    IamError::NoSuchEntity(format!("SAMLProvider not found for arn {provider_arn}"))
}

/// The name of the provider `provider_arn` names in the account.
fn name_from_arn(scope: &Scope, provider_arn: &str) -> Result<String, IamError> {
    let parsed =
        Arn::parse(provider_arn).map_err(|_| IamError::Validation("Invalid ARN:  Could not be parsed!".into()))?;
    match parsed.resource.strip_prefix("saml-provider/") {
        Some(name) if parsed.account == scope.account && parsed.service == "iam" => Ok(name.to_owned()),
        _ => Err(not_found(provider_arn)),
    }
}

fn no_private_keys(key: &Option<String>) -> Result<(), IamError> {
    match key {
        Some(_) => Err(IamError::NotServed(
            "Stratus does not decrypt SAML assertions, so it takes no private keys".into(),
        )),
        None => Ok(()),
    }
}

pub(crate) async fn create_saml_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: CreateSAMLProviderRequest,
) -> Result<CreateSAMLProviderResponse, IamError> {
    no_private_keys(&input.add_private_key)?;
    let scope = scope(ctx);
    let record = SamlProviderRecord {
        uuid: uuid(),
        metadata: input.saml_metadata_document,
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
        created: now(ctx),
    };
    let tags = wire_tags(&record.tags);
    let name = input.name;
    let stored = name.clone();
    iam.write(&ctx.account_id, move |tx| {
        if SAML_PROVIDERS.get(tx, &stored)?.is_some() {
            return Err(IamError::EntityAlreadyExists(format!(
                "SAMLProvider {stored} already exists"
            )));
        }
        SAML_PROVIDERS.put(tx, stored, &record)?;
        Ok(())
    })
    .await?;
    Ok(CreateSAMLProviderResponse {
        saml_provider_arn: Some(arn(&scope, &name)),
        tags,
    })
}

fn load(iam: &IamService, ctx: &RequestContext, provider_arn: &str) -> Result<SamlProviderRecord, IamError> {
    let name = name_from_arn(&scope(ctx), provider_arn)?;
    SAML_PROVIDERS
        .get(&iam.reader(&ctx.account_id)?, &name)?
        .ok_or_else(|| not_found(provider_arn))
}

pub(crate) async fn get_saml_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetSAMLProviderRequest,
) -> Result<GetSAMLProviderResponse, IamError> {
    let record = load(iam, ctx, &input.saml_provider_arn)?;
    Ok(GetSAMLProviderResponse {
        saml_provider_uuid: Some(record.uuid),
        saml_metadata_document: Some(record.metadata),
        create_date: Some(date(record.created)),
        valid_until: None,
        tags: wire_tags(&record.tags),
        assertion_encryption_mode: None,
        private_key_list: None,
    })
}

pub(crate) async fn list_saml_providers(
    iam: &IamService,
    ctx: &RequestContext,
    _input: ListSAMLProvidersRequest,
) -> Result<ListSAMLProvidersResponse, IamError> {
    let scope = scope(ctx);
    let providers = all(&iam.reader(&ctx.account_id)?, SAML_PROVIDERS)?
        .into_iter()
        .map(|(name, p)| SAMLProviderListEntry {
            arn: Some(arn(&scope, &name)),
            valid_until: None,
            create_date: Some(date(p.created)),
        })
        .collect();
    Ok(ListSAMLProvidersResponse {
        saml_provider_list: Some(providers),
    })
}

/// Applies `change` to the provider `provider_arn` names, in one transaction.
async fn update<F>(iam: &IamService, ctx: &RequestContext, provider_arn: String, change: F) -> Result<(), IamError>
where
    F: FnOnce(&mut SamlProviderRecord) -> Result<(), IamError> + Send + 'static,
{
    let name = name_from_arn(&scope(ctx), &provider_arn)?;
    iam.write(&ctx.account_id, move |tx| {
        let mut record = SAML_PROVIDERS.get(tx, &name)?.ok_or_else(|| not_found(&provider_arn))?;
        change(&mut record)?;
        SAML_PROVIDERS.put(tx, name, &record)?;
        Ok(())
    })
    .await
}

pub(crate) async fn update_saml_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateSAMLProviderRequest,
) -> Result<UpdateSAMLProviderResponse, IamError> {
    no_private_keys(&input.add_private_key)?;
    let provider_arn = input.saml_provider_arn.clone();
    update(iam, ctx, input.saml_provider_arn, move |p| {
        if let Some(metadata) = input.saml_metadata_document {
            p.metadata = metadata;
        }
        Ok(())
    })
    .await?;
    Ok(UpdateSAMLProviderResponse {
        saml_provider_arn: Some(provider_arn),
    })
}

pub(crate) async fn delete_saml_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteSAMLProviderRequest,
) -> Result<Unit, IamError> {
    let name = name_from_arn(&scope(ctx), &input.saml_provider_arn)?;
    iam.write(&ctx.account_id, move |tx| {
        if SAML_PROVIDERS.get(tx, &name)?.is_none() {
            return Err(not_found(&input.saml_provider_arn));
        }
        SAML_PROVIDERS.delete(tx, name);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn tag_saml_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: TagSAMLProviderRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.saml_provider_arn, move |p| {
        p.tags = merged(&p.tags, input.tags)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn untag_saml_provider(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagSAMLProviderRequest,
) -> Result<Unit, IamError> {
    update(iam, ctx, input.saml_provider_arn, move |p| {
        p.tags = without(&p.tags, &input.tag_keys);
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_saml_provider_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListSAMLProviderTagsRequest,
) -> Result<ListSAMLProviderTagsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListSAMLProviderTags");
    let record = load(iam, ctx, &input.saml_provider_arn)?;
    let page = tag_page(LISTING, &record.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListSAMLProviderTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}
