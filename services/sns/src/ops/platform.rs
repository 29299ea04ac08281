//! Platform applications and endpoints (mobile push): stored and answered; nothing is pushed.

use std::collections::BTreeMap;

use stratus_core::arn::Arn;
use stratus_core::{id, RequestContext, Unit};
use stratus_gen_sns::*;
use stratus_storage::tuple::TupleKey;
use stratus_storage::{Direction, KeyRange};

use crate::error::{invalid_parameter, not_found, SnsError};
use crate::platform::{self, AppRecord, EndpointRecord};
use crate::service::SnsService;
use crate::store::{APPLICATIONS, ENDPOINTS};

fn app_not_found() -> SnsError {
    not_found("PlatformApplication does not exist")
}

fn endpoint_not_found() -> SnsError {
    not_found("Endpoint does not exist")
}

fn app_arn(ctx: &RequestContext, key: &str) -> String {
    Arn::new("sns", &ctx.region, &ctx.account_id, &format!("app/{key}")).to_string()
}

fn endpoint_arn(ctx: &RequestContext, app: &str, id: &str) -> String {
    endpoint_arn_in(&ctx.region, &ctx.account_id, app, id)
}

fn endpoint_arn_in(region: &str, account: &str, app: &str, id: &str) -> String {
    Arn::new("sns", region, account, &format!("endpoint/{app}/{id}")).to_string()
}

fn endpoint_row(app: &str, id: &str) -> Vec<u8> {
    TupleKey::new().str(app).str(id).into_bytes()
}

fn app_prefix(app: &str) -> Vec<u8> {
    TupleKey::new().str(app).into_bytes()
}

pub(crate) async fn create_platform_application(
    sns: &SnsService,
    ctx: &RequestContext,
    input: CreatePlatformApplicationInput,
) -> Result<CreatePlatformApplicationResponse, SnsError> {
    platform::check_application(&input.name, &input.platform)?;
    platform::check_credentials(&input.attributes)?;
    let key = format!("{}/{}", input.platform, input.name);
    let record = AppRecord {
        platform: input.platform,
        name: input.name,
        attributes: input.attributes,
    };
    let k = key.clone();
    sns.transact(&ctx.account_id, &ctx.region, move |tx| {
        APPLICATIONS.put(tx, k.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(CreatePlatformApplicationResponse {
        platform_application_arn: Some(app_arn(ctx, &key)),
    })
}

pub(crate) async fn get_platform_application_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: GetPlatformApplicationAttributesInput,
) -> Result<GetPlatformApplicationAttributesResponse, SnsError> {
    let key = platform::application_key(ctx, &input.platform_application_arn)?;
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    let record = APPLICATIONS.get(&*store, &key)?.ok_or_else(app_not_found)?;
    Ok(GetPlatformApplicationAttributesResponse {
        attributes: Some(platform::shown_application_attributes(&record)),
    })
}

pub(crate) async fn set_platform_application_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: SetPlatformApplicationAttributesInput,
) -> Result<Unit, SnsError> {
    let key = platform::application_key(ctx, &input.platform_application_arn)?;
    sns.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut record = APPLICATIONS.get(tx, &key)?.ok_or_else(app_not_found)?;
        platform::check_credentials(&input.attributes)?;
        record.attributes.extend(input.attributes);
        APPLICATIONS.put(tx, key.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn delete_platform_application(
    sns: &SnsService,
    ctx: &RequestContext,
    input: DeletePlatformApplicationInput,
) -> Result<Unit, SnsError> {
    let key = platform::application_key(ctx, &input.platform_application_arn)?;
    sns.transact(&ctx.account_id, &ctx.region, move |tx| {
        for (row, _) in ENDPOINTS.scan_prefix(tx, app_prefix(&key))? {
            ENDPOINTS.delete(tx, row);
        }
        APPLICATIONS.delete(tx, key.into_bytes());
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_platform_applications(
    sns: &SnsService,
    ctx: &RequestContext,
    _input: ListPlatformApplicationsInput,
) -> Result<ListPlatformApplicationsResponse, SnsError> {
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    let apps = APPLICATIONS
        .scan(&*store, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(_, record)| PlatformApplication {
            platform_application_arn: Some(app_arn(ctx, &format!("{}/{}", record.platform, record.name))),
            attributes: Some(platform::shown_application_attributes(&record)),
        })
        .collect();
    Ok(ListPlatformApplicationsResponse {
        platform_applications: Some(apps),
        next_token: None,
    })
}

pub(crate) async fn create_platform_endpoint(
    sns: &SnsService,
    ctx: &RequestContext,
    input: CreatePlatformEndpointInput,
) -> Result<CreateEndpointResponse, SnsError> {
    let app = platform::application_key(ctx, &input.platform_application_arn)?;
    let mut attributes = input.attributes.unwrap_or_default();
    platform::check_endpoint_attributes(&attributes)?;
    // CustomUserData may come both ways; the parameter wins.
    if let Some(data) = input.custom_user_data {
        platform::check_endpoint_attributes(&BTreeMap::from([("CustomUserData".to_owned(), data.clone())]))?;
        attributes.insert("CustomUserData".into(), data);
    }
    attributes.insert("Token".into(), input.token.clone());
    attributes.entry("Enabled".into()).or_insert_with(|| "true".into());
    let (region, account) = (ctx.region.clone(), ctx.account_id.clone());
    let arn = sns
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            APPLICATIONS.get(tx, &app)?.ok_or_else(app_not_found)?;
            for (_, existing) in ENDPOINTS.scan_prefix(tx, app_prefix(&app))? {
                if existing.attributes.get("Token") == Some(&input.token) {
                    let arn = endpoint_arn_in(&region, &account, &app, &existing.id);
                    if existing.attributes != attributes {
                        return Err(invalid_parameter(format!(
                            "Token Reason: Endpoint {arn} already exists with the same Token, but different attributes."
                        )));
                    }
                    return Ok(arn);
                }
            }
            let record = EndpointRecord {
                id: id::uuid(),
                attributes,
            };
            ENDPOINTS.put(tx, endpoint_row(&app, &record.id), &record)?;
            Ok(endpoint_arn_in(&region, &account, &app, &record.id))
        })
        .await?;
    Ok(CreateEndpointResponse {
        endpoint_arn: Some(arn),
    })
}

pub(crate) async fn get_endpoint_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: GetEndpointAttributesInput,
) -> Result<GetEndpointAttributesResponse, SnsError> {
    let (app, id) = platform::endpoint_key(ctx, &input.endpoint_arn)?;
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    let record = ENDPOINTS
        .get(&*store, endpoint_row(&app, &id))?
        .ok_or_else(endpoint_not_found)?;
    Ok(GetEndpointAttributesResponse {
        attributes: Some(record.attributes),
    })
}

pub(crate) async fn set_endpoint_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: SetEndpointAttributesInput,
) -> Result<Unit, SnsError> {
    let (app, id) = platform::endpoint_key(ctx, &input.endpoint_arn)?;
    sns.transact(&ctx.account_id, &ctx.region, move |tx| {
        let row = endpoint_row(&app, &id);
        let mut record = ENDPOINTS.get(tx, &row)?.ok_or_else(endpoint_not_found)?;
        platform::check_endpoint_attributes(&input.attributes)?;
        record.attributes.extend(input.attributes);
        ENDPOINTS.put(tx, row, &record)?;
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

/// Deleting an endpoint leaves the subscriptions to it, as AWS does.
pub(crate) async fn delete_endpoint(
    sns: &SnsService,
    ctx: &RequestContext,
    input: DeleteEndpointInput,
) -> Result<Unit, SnsError> {
    let (app, id) = platform::endpoint_key(ctx, &input.endpoint_arn)?;
    sns.transact(&ctx.account_id, &ctx.region, move |tx| {
        ENDPOINTS.delete(tx, endpoint_row(&app, &id));
        Ok(())
    })
    .await?;
    Ok(Unit {})
}

pub(crate) async fn list_endpoints_by_platform_application(
    sns: &SnsService,
    ctx: &RequestContext,
    input: ListEndpointsByPlatformApplicationInput,
) -> Result<ListEndpointsByPlatformApplicationResponse, SnsError> {
    let app = platform::application_key(ctx, &input.platform_application_arn)?;
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    APPLICATIONS.get(&*store, &app)?.ok_or_else(app_not_found)?;
    let endpoints = ENDPOINTS
        .scan_prefix(&*store, app_prefix(&app))?
        .into_iter()
        .map(|(_, record)| Endpoint {
            endpoint_arn: Some(endpoint_arn(ctx, &app, &record.id)),
            attributes: Some(record.attributes),
        })
        .collect();
    Ok(ListEndpointsByPlatformApplicationResponse {
        endpoints: Some(endpoints),
        next_token: None,
    })
}

/// Whether the endpoint `arn` names exists (a Publish to it is accepted, and not pushed).
pub(crate) fn endpoint_exists(sns: &SnsService, ctx: &RequestContext, arn: &str) -> Result<bool, SnsError> {
    let Ok((app, id)) = platform::endpoint_key(ctx, arn) else {
        return Ok(false);
    };
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    Ok(ENDPOINTS.get(&*store, endpoint_row(&app, &id))?.is_some())
}
