//! Lambda's error documents carry a `Type` beside the message (`User` for the caller's
//! faults, `Service` for Lambda's), which SDKs surface. The runtime's promotion of a common
//! error to its modelled one fills only the message, so this wrapper around the generated
//! handler fills `Type` in every modelled Lambda error that leaves it empty.

use stratus_core::schema::{Fault, Operation, Service, Shape};
use stratus_core::service::{BoxFuture, ServiceHandler};
use stratus_core::{OperationError, RequestContext, Value};

/// A service handler whose modelled errors carry Lambda's `Type`.
pub(crate) struct WithErrorTypes<H>(pub(crate) H);

impl<H: ServiceHandler> ServiceHandler for WithErrorTypes<H> {
    fn schema(&self) -> &'static Service {
        self.0.schema()
    }

    fn implemented(&self) -> bool {
        self.0.implemented()
    }

    fn call<'a>(
        &'a self,
        ctx: &'a RequestContext,
        operation: &'static Operation,
        input: Value,
    ) -> BoxFuture<'a, Result<Value, OperationError>> {
        Box::pin(async move {
            let answer = self.0.call(ctx, operation, input).await;
            // AWS leaves `Type` out of the refusals about code signing configurations themselves.
            if matches!(
                operation.name,
                "GetCodeSigningConfig"
                    | "UpdateCodeSigningConfig"
                    | "DeleteCodeSigningConfig"
                    | "ListFunctionsByCodeSigningConfig"
            ) {
                return answer;
            }
            answer.map_err(with_type)
        })
    }
}

/// The refusals AWS answers without a `Type` (its recorded answers), by how they begin.
const UNTYPED: &[&str] = &[
    "Specified ReservedConcurrentExecutions for function",
    "Specified ConcurrentExecutions for function",
    "$LATEST is not supported for an alias pointing to more than 1 version",
];

/// The message member of an error's value.
fn message_of<'v>(shape: &Shape, slots: &'v [Option<Value>]) -> Option<&'v str> {
    let i = shape
        .members
        .iter()
        .position(|m| m.name.eq_ignore_ascii_case("message"))?;
    match slots.get(i) {
        Some(Some(Value::String(m))) => Some(m),
        _ => None,
    }
}

/// `error` with its `Type` member set, when it is a modelled error that has one unset.
pub(crate) fn with_type(error: OperationError) -> OperationError {
    match error {
        OperationError::Modeled {
            shape,
            value: Value::Struct(mut slots),
        } => {
            let fault = shape.error.map_or(Fault::Client, |e| e.fault);
            if message_of(shape, &slots).is_some_and(|m| UNTYPED.iter().any(|prefix| m.starts_with(prefix))) {
                return OperationError::Modeled {
                    shape,
                    value: Value::Struct(slots),
                };
            }
            if let Some(i) = shape.members.iter().position(|m| m.name == "Type") {
                if let Some(slot @ None) = slots.get_mut(i) {
                    let kind = if fault == Fault::Server { "Service" } else { "User" };
                    *slot = Some(Value::String(kind.to_owned()));
                }
            }
            OperationError::Modeled {
                shape,
                value: Value::Struct(slots),
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use stratus_core::AwsError;
    use stratus_gen_lambda::schema;

    use super::*;

    #[test]
    fn promoted_errors_get_their_type() {
        let promoted = OperationError::promote(
            AwsError::new("ResourceNotFoundException", "Function not found: x", 404),
            &[&schema::RESOURCE_NOT_FOUND_EXCEPTION],
        );
        let OperationError::Modeled {
            shape,
            value: Value::Struct(slots),
        } = with_type(promoted)
        else {
            panic!("not promoted");
        };
        let i = shape.members.iter().position(|m| m.name == "Type").unwrap();
        assert_eq!(slots[i], Some(Value::String("User".into())));
        let common = with_type(OperationError::Aws(AwsError::new("X", "y", 400)));
        assert!(matches!(common, OperationError::Aws(_)));
    }
}
