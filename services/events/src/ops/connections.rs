//! Connections and API destinations: stored and answered as AWS answers them (states, ARNs,
//! auth parameters with every secret left out); no HTTP call is made to a destination.

use stratus_core::arn::Arn;
use stratus_core::json::{self, KeyNames};
use stratus_core::paging::Token;
use stratus_core::{AwsError, FromValue, IntoValue, RequestContext};
use stratus_gen_eventbridge::schema::CONNECTION_HTTP_PARAMETERS;
use stratus_gen_eventbridge::*;
use stratus_storage::{Direction, KeyRange};

use super::buses::time;
use crate::error::{already_exists, not_found, EventsError, Result};
use crate::listing::page;
use crate::records::{ApiDestinationRecord, ConnectionAuth, ConnectionRecord, API_DESTINATIONS, CONNECTIONS};
use crate::service::EventsService;

const CONNECTION_LISTING: Token = Token::for_listing("events:ListConnections");
const DESTINATION_LISTING: Token = Token::for_listing("events:ListApiDestinations");

fn connection_arn(ctx: &RequestContext, c: &ConnectionRecord) -> String {
    Arn::new(
        "events",
        &ctx.region,
        &ctx.account_id,
        &format!("connection/{}/{}", c.name, c.id),
    )
    .to_string()
}

fn secret_arn(ctx: &RequestContext, c: &ConnectionRecord) -> String {
    Arn::new(
        "secretsmanager",
        &ctx.region,
        &ctx.account_id,
        &format!("secret:events!connection/{}/{}-{}", c.name, c.id, c.secret_suffix),
    )
    .to_string()
}

fn connection_missing(name: &str) -> EventsError {
    not_found(format!(
        "Failed to describe the connection(s). Connection '{name}' does not exist."
    ))
}

/// The HTTP parameters as answered: secret values left out.
fn public_http(p: ConnectionHttpParameters) -> ConnectionHttpParameters {
    fn hide(secret: bool, value: Option<String>) -> Option<String> {
        if secret {
            None
        } else {
            value
        }
    }
    ConnectionHttpParameters {
        header_parameters: p.header_parameters.map(|list| {
            list.into_iter()
                .map(|h| ConnectionHeaderParameter {
                    value: hide(h.is_value_secret, h.value),
                    ..h
                })
                .collect()
        }),
        query_string_parameters: p.query_string_parameters.map(|list| {
            list.into_iter()
                .map(|q| ConnectionQueryStringParameter {
                    value: hide(q.is_value_secret, q.value),
                    ..q
                })
                .collect()
        }),
        body_parameters: p.body_parameters.map(|list| {
            list.into_iter()
                .map(|b| ConnectionBodyParameter {
                    value: hide(b.is_value_secret, b.value),
                    ..b
                })
                .collect()
        }),
    }
}

fn stored_auth(p: CreateConnectionAuthRequestParameters) -> ConnectionAuth {
    let oauth = p.o_auth_parameters;
    ConnectionAuth {
        basic_username: p.basic_auth_parameters.map(|b| b.username),
        api_key_name: p.api_key_auth_parameters.map(|a| a.api_key_name),
        oauth_client_id: oauth.as_ref().map(|o| o.client_parameters.client_id.clone()),
        oauth_endpoint: oauth.as_ref().map(|o| o.authorization_endpoint.clone()),
        oauth_method: oauth.as_ref().map(|o| o.http_method.as_str().to_owned()),
        oauth_http: oauth.and_then(|o| o.o_auth_http_parameters).map(encode_http),
        invocation_http: p.invocation_http_parameters.map(encode_http),
    }
}

fn encode_http(p: ConnectionHttpParameters) -> String {
    json::encode(
        &CONNECTION_HTTP_PARAMETERS,
        &public_http(p).into_value(),
        KeyNames::Member,
    )
}

fn decode_http(text: &str) -> Option<ConnectionHttpParameters> {
    let value = json::decode(&CONNECTION_HTTP_PARAMETERS, text.as_bytes(), KeyNames::Member).ok()?;
    ConnectionHttpParameters::from_value(value).ok()
}

/// The auth parameters as AWS answers them: every secret left out.
fn answered(a: &ConnectionAuth) -> ConnectionAuthResponseParameters {
    ConnectionAuthResponseParameters {
        basic_auth_parameters: a
            .basic_username
            .clone()
            .map(|username| ConnectionBasicAuthResponseParameters {
                username: Some(username),
            }),
        o_auth_parameters: a
            .oauth_endpoint
            .clone()
            .map(|endpoint| ConnectionOAuthResponseParameters {
                client_parameters: Some(ConnectionOAuthClientResponseParameters {
                    client_id: a.oauth_client_id.clone(),
                }),
                authorization_endpoint: Some(endpoint),
                http_method: a.oauth_method.as_deref().map(ConnectionOAuthHttpMethod::from_wire),
                o_auth_http_parameters: a.oauth_http.as_deref().and_then(decode_http),
            }),
        api_key_auth_parameters: a
            .api_key_name
            .clone()
            .map(|name| ConnectionApiKeyAuthResponseParameters {
                api_key_name: Some(name),
            }),
        invocation_http_parameters: a.invocation_http.as_deref().and_then(decode_http),
        connectivity_parameters: None,
    }
}

fn load_connection(svc: &EventsService, ctx: &RequestContext, name: &str) -> Result<ConnectionRecord> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    CONNECTIONS
        .get(&*store, name.as_bytes())?
        .ok_or_else(|| connection_missing(name))
}

pub(crate) async fn create_connection(
    svc: &EventsService,
    ctx: &RequestContext,
    input: CreateConnectionRequest,
) -> Result<CreateConnectionResponse, AwsError> {
    let now = svc.now_ms();
    let state = match input.authorization_type {
        ConnectionAuthorizationType::OauthClientCredentials => "AUTHORIZING",
        _ => "AUTHORIZED",
    };
    let record = ConnectionRecord {
        name: input.name.clone(),
        id: stratus_core::id::uuid(),
        description: input.description,
        authorization_type: input.authorization_type.as_str().to_owned(),
        auth: stored_auth(input.auth_parameters),
        state: state.to_owned(),
        secret_suffix: stratus_core::id::random_string(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 6),
        created_ms: now,
        modified_ms: now,
        authorized_ms: now,
    };
    let put = record.clone();
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        if CONNECTIONS.get(tx, put.name.as_bytes())?.is_some() {
            return Err(already_exists(format!("Connection {} already exists.", put.name)));
        }
        CONNECTIONS.put(tx, put.name.as_bytes(), &put)?;
        Ok(())
    })
    .await?;
    Ok(CreateConnectionResponse {
        connection_arn: Some(connection_arn(ctx, &record)),
        connection_state: Some(ConnectionState::from_wire(&record.state)),
        creation_time: Some(time(now)),
        last_modified_time: Some(time(now)),
    })
}

pub(crate) async fn describe_connection(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DescribeConnectionRequest,
) -> Result<DescribeConnectionResponse, AwsError> {
    let c = load_connection(svc, ctx, &input.name)?;
    Ok(DescribeConnectionResponse {
        connection_arn: Some(connection_arn(ctx, &c)),
        secret_arn: Some(secret_arn(ctx, &c)),
        name: Some(c.name.clone()),
        description: c.description.clone(),
        invocation_connectivity_parameters: None,
        connection_state: Some(ConnectionState::from_wire(&c.state)),
        state_reason: None,
        authorization_type: Some(ConnectionAuthorizationType::from_wire(&c.authorization_type)),
        kms_key_identifier: None,
        auth_parameters: Some(answered(&c.auth)),
        creation_time: Some(time(c.created_ms)),
        last_modified_time: Some(time(c.modified_ms)),
        last_authorized_time: Some(time(c.authorized_ms)),
    })
}

/// Applies `change` to connection `name` in one transaction and answers the record after.
async fn change_connection<F>(
    svc: &EventsService,
    ctx: &RequestContext,
    name: String,
    change: F,
) -> Result<ConnectionRecord, AwsError>
where
    F: FnOnce(&mut ConnectionRecord) + Send + 'static,
{
    let now = svc.now_ms();
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut c = CONNECTIONS
            .get(tx, name.as_bytes())?
            .ok_or_else(|| connection_missing(&name))?;
        change(&mut c);
        c.modified_ms = now;
        CONNECTIONS.put(tx, name.as_bytes(), &c)?;
        Ok(c)
    })
    .await
}

pub(crate) async fn update_connection(
    svc: &EventsService,
    ctx: &RequestContext,
    input: UpdateConnectionRequest,
) -> Result<UpdateConnectionResponse, AwsError> {
    let c = change_connection(svc, ctx, input.name, move |c| {
        if input.description.is_some() {
            c.description = input.description;
        }
        if let Some(kind) = input.authorization_type {
            c.authorization_type = kind.as_str().to_owned();
        }
        if let Some(auth) = input.auth_parameters {
            if let Some(username) = auth.basic_auth_parameters.and_then(|b| b.username) {
                c.auth.basic_username = Some(username);
            }
            if let Some(name) = auth.api_key_auth_parameters.and_then(|k| k.api_key_name) {
                c.auth.api_key_name = Some(name);
            }
            if let Some(http) = auth.invocation_http_parameters {
                c.auth.invocation_http = Some(encode_http(http));
            }
        }
    })
    .await?;
    Ok(UpdateConnectionResponse {
        connection_arn: Some(connection_arn(ctx, &c)),
        connection_state: Some(ConnectionState::from_wire(&c.state)),
        creation_time: Some(time(c.created_ms)),
        last_modified_time: Some(time(c.modified_ms)),
        last_authorized_time: Some(time(c.authorized_ms)),
    })
}

pub(crate) async fn deauthorize_connection(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DeauthorizeConnectionRequest,
) -> Result<DeauthorizeConnectionResponse, AwsError> {
    let c = change_connection(svc, ctx, input.name, |c| c.state = "DEAUTHORIZED".to_owned()).await?;
    Ok(DeauthorizeConnectionResponse {
        connection_arn: Some(connection_arn(ctx, &c)),
        connection_state: Some(ConnectionState::Deauthorizing),
        creation_time: Some(time(c.created_ms)),
        last_modified_time: Some(time(c.modified_ms)),
        last_authorized_time: Some(time(c.authorized_ms)),
    })
}

pub(crate) async fn delete_connection(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DeleteConnectionRequest,
) -> Result<DeleteConnectionResponse, AwsError> {
    let name = input.name;
    let c = svc
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let c = CONNECTIONS
                .get(tx, name.as_bytes())?
                .ok_or_else(|| connection_missing(&name))?;
            CONNECTIONS.delete(tx, name.as_bytes().to_vec());
            Ok(c)
        })
        .await?;
    Ok(DeleteConnectionResponse {
        connection_arn: Some(connection_arn(ctx, &c)),
        connection_state: Some(ConnectionState::Deleting),
        creation_time: Some(time(c.created_ms)),
        last_modified_time: Some(time(c.modified_ms)),
        last_authorized_time: Some(time(c.authorized_ms)),
    })
}

pub(crate) async fn list_connections(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListConnectionsRequest,
) -> Result<ListConnectionsResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let prefix = input.name_prefix.unwrap_or_default();
    let all = CONNECTIONS
        .scan(&*store, &KeyRange::all(), Direction::Forward, None)
        .map_err(EventsError::from)?;
    let listed = all
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| c.name.starts_with(&prefix))
        .filter(|c| input.connection_state.as_ref().is_none_or(|s| s.as_str() == c.state));
    let (page, next_token) = page(
        &CONNECTION_LISTING,
        listed,
        |c| &c.name,
        input.next_token.as_deref(),
        input.limit,
    )?;
    Ok(ListConnectionsResponse {
        connections: Some(
            page.iter()
                .map(|c| Connection {
                    connection_arn: Some(connection_arn(ctx, c)),
                    name: Some(c.name.clone()),
                    connection_state: Some(ConnectionState::from_wire(&c.state)),
                    state_reason: None,
                    authorization_type: Some(ConnectionAuthorizationType::from_wire(&c.authorization_type)),
                    creation_time: Some(time(c.created_ms)),
                    last_modified_time: Some(time(c.modified_ms)),
                    last_authorized_time: Some(time(c.authorized_ms)),
                })
                .collect(),
        ),
        next_token,
    })
}

fn destination_arn(ctx: &RequestContext, d: &ApiDestinationRecord) -> String {
    Arn::new(
        "events",
        &ctx.region,
        &ctx.account_id,
        &format!("api-destination/{}/{}", d.name, d.id),
    )
    .to_string()
}

fn destination_missing(name: &str) -> EventsError {
    not_found(format!(
        "Failed to describe the api-destination(s). An api-destination '{name}' does not exist."
    ))
}

fn destination_of(ctx: &RequestContext, d: &ApiDestinationRecord) -> ApiDestination {
    ApiDestination {
        api_destination_arn: Some(destination_arn(ctx, d)),
        name: Some(d.name.clone()),
        api_destination_state: Some(ApiDestinationState::Active),
        connection_arn: Some(d.connection_arn.clone()),
        invocation_endpoint: Some(d.endpoint.clone()),
        http_method: Some(ApiDestinationHttpMethod::from_wire(&d.http_method)),
        invocation_rate_limit_per_second: Some(d.rate_limit),
        creation_time: Some(time(d.created_ms)),
        last_modified_time: Some(time(d.modified_ms)),
    }
}

pub(crate) async fn create_api_destination(
    svc: &EventsService,
    ctx: &RequestContext,
    input: CreateApiDestinationRequest,
) -> Result<CreateApiDestinationResponse, AwsError> {
    let now = svc.now_ms();
    let record = ApiDestinationRecord {
        name: input.name.clone(),
        id: stratus_core::id::uuid(),
        description: input.description,
        connection_arn: input.connection_arn,
        endpoint: input.invocation_endpoint,
        http_method: input.http_method.as_str().to_owned(),
        rate_limit: input.invocation_rate_limit_per_second.unwrap_or(300),
        created_ms: now,
        modified_ms: now,
    };
    let put = record.clone();
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        if API_DESTINATIONS.get(tx, put.name.as_bytes())?.is_some() {
            return Err(already_exists(format!(
                "An api-destination '{}' already exists.",
                put.name
            )));
        }
        API_DESTINATIONS.put(tx, put.name.as_bytes(), &put)?;
        Ok(())
    })
    .await?;
    Ok(CreateApiDestinationResponse {
        api_destination_arn: Some(destination_arn(ctx, &record)),
        api_destination_state: Some(ApiDestinationState::Active),
        creation_time: Some(time(now)),
        last_modified_time: Some(time(now)),
    })
}

pub(crate) async fn describe_api_destination(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DescribeApiDestinationRequest,
) -> Result<DescribeApiDestinationResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let d = API_DESTINATIONS
        .get(&*store, input.name.as_bytes())
        .map_err(EventsError::from)?
        .ok_or_else(|| destination_missing(&input.name))?;
    let listed = destination_of(ctx, &d);
    Ok(DescribeApiDestinationResponse {
        api_destination_arn: listed.api_destination_arn,
        name: listed.name,
        description: d.description,
        api_destination_state: listed.api_destination_state,
        connection_arn: listed.connection_arn,
        invocation_endpoint: listed.invocation_endpoint,
        http_method: listed.http_method,
        invocation_rate_limit_per_second: listed.invocation_rate_limit_per_second,
        creation_time: listed.creation_time,
        last_modified_time: listed.last_modified_time,
    })
}

pub(crate) async fn update_api_destination(
    svc: &EventsService,
    ctx: &RequestContext,
    input: UpdateApiDestinationRequest,
) -> Result<UpdateApiDestinationResponse, AwsError> {
    let now = svc.now_ms();
    let name = input.name.clone();
    let d = svc
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut d = API_DESTINATIONS
                .get(tx, name.as_bytes())?
                .ok_or_else(|| destination_missing(&name))?;
            if input.description.is_some() {
                d.description = input.description;
            }
            if let Some(arn) = input.connection_arn {
                d.connection_arn = arn;
            }
            if let Some(endpoint) = input.invocation_endpoint {
                d.endpoint = endpoint;
            }
            if let Some(method) = input.http_method {
                d.http_method = method.as_str().to_owned();
            }
            if let Some(rate) = input.invocation_rate_limit_per_second {
                d.rate_limit = rate;
            }
            d.modified_ms = now;
            API_DESTINATIONS.put(tx, name.as_bytes(), &d)?;
            Ok(d)
        })
        .await?;
    Ok(UpdateApiDestinationResponse {
        api_destination_arn: Some(destination_arn(ctx, &d)),
        api_destination_state: Some(ApiDestinationState::Active),
        creation_time: Some(time(d.created_ms)),
        last_modified_time: Some(time(d.modified_ms)),
    })
}

pub(crate) async fn delete_api_destination(
    svc: &EventsService,
    ctx: &RequestContext,
    input: DeleteApiDestinationRequest,
) -> Result<DeleteApiDestinationResponse, AwsError> {
    let name = input.name;
    svc.transact(&ctx.account_id, &ctx.region, move |tx| {
        API_DESTINATIONS
            .get(tx, name.as_bytes())?
            .ok_or_else(|| destination_missing(&name))?;
        API_DESTINATIONS.delete(tx, name.as_bytes().to_vec());
        Ok(())
    })
    .await?;
    Ok(DeleteApiDestinationResponse {})
}

pub(crate) async fn list_api_destinations(
    svc: &EventsService,
    ctx: &RequestContext,
    input: ListApiDestinationsRequest,
) -> Result<ListApiDestinationsResponse, AwsError> {
    let store = svc.store(&ctx.account_id, &ctx.region)?;
    let prefix = input.name_prefix.unwrap_or_default();
    let all = API_DESTINATIONS
        .scan(&*store, &KeyRange::all(), Direction::Forward, None)
        .map_err(EventsError::from)?;
    let listed = all
        .into_iter()
        .map(|(_, d)| d)
        .filter(|d| d.name.starts_with(&prefix))
        .filter(|d| input.connection_arn.as_ref().is_none_or(|c| &d.connection_arn == c));
    let (page, next_token) = page(
        &DESTINATION_LISTING,
        listed,
        |d| &d.name,
        input.next_token.as_deref(),
        input.limit,
    )?;
    Ok(ListApiDestinationsResponse {
        api_destinations: Some(page.iter().map(|d| destination_of(ctx, d)).collect()),
        next_token,
    })
}
