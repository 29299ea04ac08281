//! Invoke and the deprecated InvokeAsync.

use base64::Engine;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_lambda::operations::InvokeError;
use stratus_gen_lambda::types::*;

use super::function_ref;
use crate::invoke::{log_result, target, too_large, RunError, MAX_SYNC_PAYLOAD};
use crate::service::LambdaService;

pub(crate) async fn invoke(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: InvocationRequest,
) -> Result<InvocationResponse, InvokeError> {
    let f = function_ref(ctx, &input.function_name, input.qualifier.as_deref())?;
    let payload = input.payload.unwrap_or_default();
    let kind = input.invocation_type.as_ref().map_or("RequestResponse", |t| t.as_str());
    let empty = |status| InvocationResponse {
        status_code: status,
        ..InvocationResponse::default()
    };
    match kind {
        "DryRun" => {
            let record = lambda.function(&f, &f.latest_qualified_arn())?;
            target(&record, &f)?;
            Ok(empty(204))
        }
        "Event" => {
            lambda.enqueue(&f, payload, ctx.request_id.clone()).await?;
            Ok(empty(202))
        }
        _ => {
            if payload.len() > MAX_SYNC_PAYLOAD {
                return Err(too_large(MAX_SYNC_PAYLOAD).into());
            }
            let client_context = match input.client_context {
                Some(text) => Some(decode_client_context(&text)?),
                None => None,
            };
            let ran = lambda
                .run(&f, payload, client_context, &ctx.request_id)
                .await
                .map_err(|e| match e {
                    RunError::Throttled(reason) => InvokeError::TooManyRequestsException(TooManyRequestsException {
                        retry_after_seconds: None,
                        r#type: Some("User".into()),
                        message: Some("Rate Exceeded.".into()),
                        reason: Some(ThrottleReason::from_wire(reason)),
                    }),
                    RunError::Aws(e) => e.into(),
                })?;
            let tail = input.log_type.as_ref().is_some_and(|t| t.as_str() == "Tail");
            Ok(InvocationResponse {
                status_code: 200,
                function_error: ran.function_error,
                log_result: tail.then(|| log_result(&ran.log_tail)),
                payload: Some(ran.payload),
                executed_version: Some(ran.executed_version),
                durable_execution_arn: None,
            })
        }
    }
}

/// `X-Amz-Client-Context`: base64 of a JSON object, handed to the function decoded.
fn decode_client_context(text: &str) -> Result<String, AwsError> {
    let invalid = || {
        AwsError::new(
            "InvalidRequestContentException",
            "Client context must be a valid Base64-encoded JSON object.",
            400,
        )
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|_| invalid())?;
    let json: serde_json::Value = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    if !json.is_object() {
        return Err(invalid());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The deprecated InvokeAsync: an `Event` invocation answered with `Status: 202`.
pub(crate) async fn invoke_async(
    lambda: &LambdaService,
    ctx: &RequestContext,
    input: InvokeAsyncRequest,
) -> Result<InvokeAsyncResponse, AwsError> {
    let f = function_ref(ctx, &input.function_name, None)?;
    lambda.enqueue(&f, input.invoke_args, ctx.request_id.clone()).await?;
    Ok(InvokeAsyncResponse { status: 202 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_contexts_must_be_base64_json_objects() {
        let good = base64::engine::general_purpose::STANDARD.encode(r#"{"custom":{"a":"b"}}"#);
        assert_eq!(decode_client_context(&good).unwrap(), r#"{"custom":{"a":"b"}}"#);
        assert!(decode_client_context("not base64!").is_err());
        let array = base64::engine::general_purpose::STANDARD.encode("[1]");
        assert!(decode_client_context(&array).is_err());
    }
}
