//! The service as the gateway calls it: the generated handler, except for the two operations
//! whose destination configurations Firehose keeps as the client wrote them —
//! CreateDeliveryStream and UpdateDestination take their input as JSON, read off the decoded
//! and validated value, since the model's configuration types go only one way (from the
//! wire) and a description is read off the configuration member by member
//! ([`crate::destination`]).

use serde_json::{Map, Value as Json};
use stratus_core::json::KeyNames;
use stratus_core::schema::{Operation, Service};
use stratus_core::service::{BoxFuture, ServiceHandler};
use stratus_core::{AwsError, IntoValue, OperationError, RequestContext, Value};
use stratus_gen_firehose::{CreateDeliveryStreamError, Handler, OperationName, UpdateDestinationError, SERVICE};

use crate::ops;
use crate::service::FirehoseService;

pub(crate) struct FirehoseHandler {
    firehose: FirehoseService,
    typed: Handler<FirehoseService>,
}

impl FirehoseHandler {
    pub(crate) fn new(firehose: FirehoseService) -> FirehoseHandler {
        FirehoseHandler {
            typed: Handler(firehose.clone()),
            firehose,
        }
    }
}

/// The input value as JSON keyed by member names, as the client sent it.
fn as_json(operation: &Operation, input: &Value) -> Map<String, Json> {
    match serde_json::from_str(&stratus_core::json::encode(operation.input, input, KeyNames::Member)) {
        Ok(Json::Object(members)) => members,
        _ => Map::new(),
    }
}

impl ServiceHandler for FirehoseHandler {
    fn schema(&self) -> &'static Service {
        &SERVICE
    }

    fn implemented(&self) -> bool {
        true
    }

    fn call<'a>(
        &'a self,
        ctx: &'a RequestContext,
        operation: &'static Operation,
        input: Value,
    ) -> BoxFuture<'a, Result<Value, OperationError>> {
        match OperationName::from_name(operation.name) {
            Some(OperationName::CreateDeliveryStream) => Box::pin(async move {
                ops::streams::create_delivery_stream(&self.firehose, ctx, as_json(operation, &input))
                    .await
                    .map(IntoValue::into_value)
                    .map_err(|e: AwsError| CreateDeliveryStreamError::from(e).into_operation_error())
            }),
            Some(OperationName::UpdateDestination) => Box::pin(async move {
                ops::update::update_destination(&self.firehose, ctx, as_json(operation, &input))
                    .await
                    .map(IntoValue::into_value)
                    .map_err(|e: AwsError| UpdateDestinationError::from(e).into_operation_error())
            }),
            _ => self.typed.call(ctx, operation, input),
        }
    }
}
