//! Asynchronous invocation configuration: retries, event age and destinations, per
//! qualifier.

use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_lambda::types::*;

use super::{function_ref, qualifier_exists};
use crate::error::{invalid_parameter, not_found};
use crate::names::{FunctionRef, LATEST};
use crate::records::{EventInvokeRecord, FunctionRecord};
use crate::service::{load_function, LambdaService};

/// The key of `f`'s configuration: its qualifier, `$LATEST` when unqualified.
const LISTING: stratus_core::paging::Token =
    stratus_core::paging::Token::for_listing("lambda:ListFunctionEventInvokeConfigs");

fn key(f: &FunctionRef) -> String {
    f.qualifier.clone().unwrap_or_else(|| LATEST.to_owned())
}

fn missing_config(f: &FunctionRef) -> AwsError {
    not_found(format!(
        "The function {} doesn't have an EventInvokeConfig",
        f.latest_qualified_arn()
    ))
}

fn view(f: &FunctionRef, r: &EventInvokeRecord) -> FunctionEventInvokeConfig {
    FunctionEventInvokeConfig {
        last_modified: Some(DateTime::from_secs_f64(r.last_modified)),
        function_arn: Some(f.latest_qualified_arn()),
        maximum_retry_attempts: r.maximum_retry_attempts,
        maximum_event_age_in_seconds: r.maximum_event_age_in_seconds,
        destination_config: Some(DestinationConfig {
            on_success: Some(OnSuccess {
                destination: r.on_success.clone(),
            }),
            on_failure: Some(OnFailure {
                destination: r.on_failure.clone(),
            }),
        }),
    }
}

/// Checks a destination as Lambda does: a queue, topic, bus or another existing function.
fn check_destination(
    lambda: &LambdaService,
    f: &FunctionRef,
    destination: &str,
    config: &DestinationConfig,
) -> Result<(), AwsError> {
    let service = destination.split(':').nth(2).unwrap_or_default();
    match service {
        "sqs" | "sns" | "events" | "s3" => Ok(()),
        "lambda" => {
            let target = FunctionRef::parse(destination, None, &f.account, &f.region)
                .map_err(|_| invalid_parameter(format!("The destination ARN {destination} is invalid.")))?;
            if target.name == f.name && target.account == f.account {
                return Err(invalid_parameter(
                    "You can't specify the function as a destination for itself.",
                ));
            }
            let store = lambda.store(&target.account, &target.region)?;
            if load_function(&*store, &target.name)?.is_none() {
                return Err(invalid_parameter(format!(
                    "The destination ARN {destination} is invalid."
                )));
            }
            Ok(())
        }
        _ => {
            let side = |d: Option<&str>, name: &str| match d {
                Some(d) => format!("{name}(destination={d})"),
                None => "null".to_owned(),
            };
            let on_success = side(
                config.on_success.as_ref().and_then(|s| s.destination.as_deref()),
                "OnSuccess",
            );
            let on_failure = side(
                config.on_failure.as_ref().and_then(|s| s.destination.as_deref()),
                "OnFailure",
            );
            Err(invalid_parameter(format!(
                "The provided destination config DestinationConfig(onSuccess={on_success}, onFailure={on_failure}) is \
                 invalid."
            )))
        }
    }
}

fn check_all(lambda: &LambdaService, f: &FunctionRef, config: &Option<DestinationConfig>) -> Result<(), AwsError> {
    let Some(config) = config else { return Ok(()) };
    for d in [
        config.on_success.as_ref().and_then(|s| s.destination.as_deref()),
        config.on_failure.as_ref().and_then(|s| s.destination.as_deref()),
    ]
    .into_iter()
    .flatten()
    {
        check_destination(lambda, f, d, config)?;
    }
    Ok(())
}

fn check_qualifier(record: &FunctionRecord, f: &FunctionRef) -> Result<(), AwsError> {
    match &f.qualifier {
        Some(q) if !qualifier_exists(record, q) => Err(not_found("The function doesn't exist.")),
        _ => Ok(()),
    }
}

async fn write(
    lambda: &LambdaService,
    f: FunctionRef,
    merge: bool,
    retries: Option<i32>,
    age: Option<i32>,
    destinations: Option<DestinationConfig>,
) -> Result<FunctionEventInvokeConfig, AwsError> {
    if retries.is_none() && age.is_none() && destinations.is_none() {
        return Err(invalid_parameter(
            "You must specify at least one of error handling or destination setting.",
        ));
    }
    check_all(lambda, &f, &destinations)?;
    let now = lambda.shared.scheduler.clock().epoch_secs_f64();
    let f2 = f.clone();
    lambda
        .update(&f, f.latest_qualified_arn(), move |record, _| {
            check_qualifier(record, &f2)?;
            let k = key(&f2);
            let mut r = if merge {
                record
                    .event_invoke
                    .get(&k)
                    .cloned()
                    .ok_or_else(|| missing_config(&f2))?
            } else {
                EventInvokeRecord::default()
            };
            if retries.is_some() || !merge {
                r.maximum_retry_attempts = retries.or(if merge { r.maximum_retry_attempts } else { None });
            }
            if age.is_some() || !merge {
                r.maximum_event_age_in_seconds = age.or(if merge { r.maximum_event_age_in_seconds } else { None });
            }
            if let Some(d) = destinations {
                r.on_success = d.on_success.and_then(|s| s.destination);
                r.on_failure = d.on_failure.and_then(|s| s.destination);
            }
            r.last_modified = now;
            let answer = view(&f2, &r);
            record.event_invoke.insert(k, r);
            Ok(answer)
        })
        .await
        .map_err(|e| {
            if e.message.starts_with("Function not found") {
                not_found("The function doesn't exist.")
            } else {
                e
            }
        })
}

pub(crate) async fn put_function_event_invoke_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: PutFunctionEventInvokeConfigRequest,
) -> Result<FunctionEventInvokeConfig, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    write(
        lambda,
        f,
        false,
        input.maximum_retry_attempts,
        input.maximum_event_age_in_seconds,
        input.destination_config,
    )
    .await
}

pub(crate) async fn update_function_event_invoke_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: UpdateFunctionEventInvokeConfigRequest,
) -> Result<FunctionEventInvokeConfig, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    write(
        lambda,
        f,
        true,
        input.maximum_retry_attempts,
        input.maximum_event_age_in_seconds,
        input.destination_config,
    )
    .await
}

pub(crate) async fn get_function_event_invoke_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: GetFunctionEventInvokeConfigRequest,
) -> Result<FunctionEventInvokeConfig, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let record = lambda.function(&f, &f.arn()).map_err(|_| missing_config(&f))?;
    let r = record.event_invoke.get(&key(&f)).ok_or_else(|| missing_config(&f))?;
    Ok(view(&f, r))
}

pub(crate) async fn delete_function_event_invoke_config(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: DeleteFunctionEventInvokeConfigRequest,
) -> Result<stratus_core::Unit, AwsError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let f2 = f.clone();
    lambda
        .update(&f, f.latest_qualified_arn(), move |record, _| {
            record
                .event_invoke
                .remove(&key(&f2))
                .ok_or_else(|| missing_config(&f2))?;
            Ok(stratus_core::Unit)
        })
        .await
        .map_err(|e| {
            if e.message.starts_with("Function not found") {
                missing_config(&f)
            } else {
                e
            }
        })
}

pub(crate) async fn list_function_event_invoke_configs(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: ListFunctionEventInvokeConfigsRequest,
) -> Result<ListFunctionEventInvokeConfigsResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    let record = lambda
        .function(&f, &f.arn())
        .map_err(|_| not_found("The function doesn't exist."))?;
    let items = record.event_invoke.iter().map(|(q, r)| {
        let fq = FunctionRef {
            qualifier: Some(q.clone()),
            ..f.clone()
        };
        (q.clone(), view(&fq, r))
    });
    let (items, next_marker) = super::page(&LISTING, input.marker.as_deref(), input.max_items, items)?;
    Ok(ListFunctionEventInvokeConfigsResponse {
        function_event_invoke_configs: Some(items),
        next_marker,
    })
}
