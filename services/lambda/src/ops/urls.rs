//! Function URL configurations, stored and answered as AWS does; the URLs themselves are
//! served by `crate::function_urls`.

use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, qualifier_exists};
use crate::error::{conflict, not_found};
use crate::function_urls;
use crate::names::FunctionRef;
use crate::records::{CorsRecord, UrlRecord};
use crate::service::LambdaService;

const LISTING: stratus_core::paging::Token = stratus_core::paging::Token::for_listing("lambda:ListFunctionUrlConfigs");

fn resource_missing() -> AwsError {
    not_found("The resource you requested does not exist.")
}

/// A time as function URLs write it: `2024-05-01T12:00:00.123456Z`.
fn url_time(epoch_ms: i64) -> String {
    let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(epoch_ms.div_euclid(1000));
    format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:06}Z",
        epoch_ms.rem_euclid(1000) * 1000
    )
}

fn cors_record(c: Cors) -> CorsRecord {
    CorsRecord {
        allow_credentials: c.allow_credentials,
        allow_headers: c.allow_headers,
        allow_methods: c.allow_methods,
        allow_origins: c.allow_origins,
        expose_headers: c.expose_headers,
        max_age: c.max_age,
    }
}

fn cors(c: &CorsRecord) -> Cors {
    Cors {
        allow_credentials: c.allow_credentials,
        allow_headers: c.allow_headers.clone(),
        allow_methods: c.allow_methods.clone(),
        allow_origins: c.allow_origins.clone(),
        expose_headers: c.expose_headers.clone(),
        max_age: c.max_age,
    }
}

fn url(lambda: &LambdaService, f: &FunctionRef, r: &UrlRecord) -> String {
    function_urls::public_url(&lambda.endpoint_url(), &r.url_id, &f.region)
}

fn key(f: &FunctionRef) -> String {
    f.qualifier.clone().unwrap_or_default()
}

pub(crate) async fn create_function_url_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: CreateFunctionUrlConfigRequest,
) -> Result<CreateFunctionUrlConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let now = url_time(lambda.now_ms());
    let (endpoint, region) = (lambda.endpoint_url(), f.region.clone());
    let public_url = move |r: &UrlRecord| function_urls::public_url(&endpoint, &r.url_id, &region);
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, tx| {
            let f = f2;
            if f.qualifier.as_deref().is_some_and(|q| !qualifier_exists(record, q)) {
                return Err(not_found("Function does not exist"));
            }
            if record.urls.contains_key(&key(&f)) {
                return Err(conflict(format!(
                    "Failed to create function url config for [functionArn = {}]. Error message:  FunctionUrlConfig \
                     exists for this Lambda function",
                    f.qualified_arn()
                )));
            }
            let r = UrlRecord {
                url_id: function_urls::new_url_id(&f.account),
                auth_type: input.auth_type.as_str().to_owned(),
                invoke_mode: input.invoke_mode.as_ref().map_or("BUFFERED", |m| m.as_str()).to_owned(),
                cors: input.cors.map(cors_record),
                creation_time: now.clone(),
                last_modified_time: now,
            };
            function_urls::remember(tx, &r.url_id, &f.name, &key(&f))?;
            let answer = CreateFunctionUrlConfigResponse {
                function_url: public_url(&r),
                function_arn: f.qualified_arn(),
                auth_type: input.auth_type,
                cors: r.cors.as_ref().map(cors),
                creation_time: r.creation_time.clone(),
                invoke_mode: input.invoke_mode,
            };
            record.urls.insert(key(&f), r);
            Ok(answer)
        })
        .await
        .map_err(|e| {
            if e.message.starts_with("Function not found") {
                not_found("Function does not exist")
            } else {
                e
            }
        })
}

pub(crate) async fn get_function_url_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionUrlConfigRequest,
) -> Result<GetFunctionUrlConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let record = lambda.function(&f, &f.arn()).map_err(|_| resource_missing())?;
    let r = record.urls.get(&key(&f)).ok_or_else(resource_missing)?;
    Ok(GetFunctionUrlConfigResponse {
        function_url: url(lambda, &f, r),
        function_arn: f.qualified_arn(),
        auth_type: FunctionUrlAuthType::from_wire(&r.auth_type),
        cors: r.cors.as_ref().map(cors),
        creation_time: r.creation_time.clone(),
        last_modified_time: r.last_modified_time.clone(),
        invoke_mode: Some(InvokeMode::from_wire(&r.invoke_mode)),
    })
}

pub(crate) async fn update_function_url_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateFunctionUrlConfigRequest,
) -> Result<UpdateFunctionUrlConfigResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let now = url_time(lambda.now_ms());
    let (endpoint, region) = (lambda.endpoint_url(), f.region.clone());
    let public_url = move |r: &UrlRecord| function_urls::public_url(&endpoint, &r.url_id, &region);
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, _| {
            let f = f2;
            if f.qualifier.as_deref().is_some_and(|q| !qualifier_exists(record, q)) {
                return Err(not_found("Function does not exist"));
            }
            let r = record.urls.get_mut(&key(&f)).ok_or_else(resource_missing)?;
            if let Some(a) = &input.auth_type {
                r.auth_type = a.as_str().to_owned();
            }
            if let Some(c) = input.cors {
                r.cors = Some(cors_record(c));
            }
            if let Some(m) = &input.invoke_mode {
                r.invoke_mode = m.as_str().to_owned();
            }
            r.last_modified_time = now;
            Ok(UpdateFunctionUrlConfigResponse {
                function_url: public_url(r),
                function_arn: f.qualified_arn(),
                auth_type: FunctionUrlAuthType::from_wire(&r.auth_type),
                cors: r.cors.as_ref().map(cors),
                creation_time: r.creation_time.clone(),
                last_modified_time: r.last_modified_time.clone(),
                invoke_mode: input.invoke_mode,
            })
        })
        .await
        .map_err(|e| {
            if e.message.starts_with("Function not found") {
                not_found("Function does not exist")
            } else {
                e
            }
        })
}

pub(crate) async fn delete_function_url_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteFunctionUrlConfigRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let f2 = f.clone();
    lambda
        .update(&f, f.arn(), move |record, tx| {
            let removed = record.urls.remove(&key(&f2)).ok_or_else(resource_missing)?;
            function_urls::forget(tx, [&removed]);
            Ok(stratus_core::Unit)
        })
        .await
        .map_err(|e| {
            if e.message.starts_with("Function not found") {
                resource_missing()
            } else {
                e
            }
        })
}

pub(crate) async fn list_function_url_configs(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListFunctionUrlConfigsRequest,
) -> Result<ListFunctionUrlConfigsResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    let record = lambda
        .function(&f, &f.arn())
        .map_err(|_| not_found("Function does not exist"))?;
    let configs = record.urls.iter().map(|(q, r)| {
        let fq = FunctionRef {
            qualifier: (!q.is_empty()).then(|| q.clone()),
            ..f.clone()
        };
        let config = FunctionUrlConfig {
            function_url: url(lambda, &fq, r),
            function_arn: fq.qualified_arn(),
            creation_time: r.creation_time.clone(),
            last_modified_time: r.last_modified_time.clone(),
            cors: r.cors.as_ref().map(cors),
            auth_type: FunctionUrlAuthType::from_wire(&r.auth_type),
            invoke_mode: Some(InvokeMode::from_wire(&r.invoke_mode)),
        };
        (q.clone(), config)
    });
    let (configs, next_marker) = super::page(&LISTING, input.marker.as_deref(), input.max_items, configs)?;
    Ok(ListFunctionUrlConfigsResponse {
        function_url_configs: configs,
        next_marker,
    })
}
