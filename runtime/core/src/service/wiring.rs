//! Wiring a service's operations to its functions: the contract of every generated crate's
//! `operations!` macro, and the runtime half it expands through.
//!
//! Each generated crate `stratus-gen-<sdk-id>` exports `operations!`, which implements that
//! crate's service trait for a service type from a list of operations and the functions that
//! answer them. The model already says each operation's input, output and error types, so a
//! row names only the trait method and the function:
//!
//! ```ignore
//! stratus_gen_s3::operations! {
//!     S3Service;
//!     create_bucket => ops::bucket::create_bucket,
//!     get_object => ops::object::get_object,
//! }
//! ```
//!
//! A row takes one of two forms:
//!
//! - `method => path::to::function`: an async function of the service,
//!   `async fn function(service: &S3Service, ctx: &RequestContext, input: In) -> Result<Out, E>`;
//! - `method in runner => path::to::function`: a synchronous function run by the service's
//!   method `runner`, `fn function(scope: &Scope, input: In) -> Result<Out, E>`, called as
//!   `service.runner(ctx, move |scope| function(scope, input)).await`. The runner is any
//!   method of that shape (DynamoDB's `run` gives the body a transaction on a blocking
//!   thread); the macro does not care what `Scope` is.
//!
//! In both, `In` and `Out` are the operation's generated input and output types and `E` is
//! any error that converts into the operation's error enum (`E: Into<CreateBucketError>`):
//! the operation's own enum, `AwsError`, or a service error with a `From` impl.
//!
//! After the rows, an optional `; encoded { … }` block lists operations whose functions
//! return the output already as a [`Value`](crate::Value) (DynamoDB's Query and Scan hand
//! over items as JSON transcoded straight from storage, `Value::EncodedJson`, rather than
//! decoding them into typed outputs only for the encoder to write them out again). Its rows
//! take the same two forms with `Out` replaced by `Value`:
//!
//! ```ignore
//! stratus_gen_dynamodb::operations! {
//!     DynamoDbService;
//!     create_table in run => control::create_table,
//!     describe_limits => fixed_answers::describe_limits;
//!     encoded {
//!         query in run => query::query,
//!     }
//! }
//! ```
//!
//! The macro overrides the service trait's `encoded_answer` hook for them, which the
//! generated `dispatch` asks before the typed method ([`EncodedAnswer`]), so no code matches
//! operation names. Operations not listed keep the trait's default, AWS's `NotImplemented`;
//! a row naming no operation of the service fails to compile, saying so.
//!
//! `make models-diff` counts an operation as implemented by its row here.
//!
//! Each generated crate also has a hidden `__operation!` macro with one arm per operation,
//! which supplies the row's types to `__wire_operation!`, the expansion written once here
//! for every service.

use crate::error::OperationError;
use crate::service::BoxFuture;
use crate::value::Value;

/// What a service's `encoded_answer` hook does with an operation's input: answers it with an
/// output value already encoded, or hands the input back for the operation's typed method.
pub enum EncodedAnswer<'a> {
    /// The operation is answered here: the future yields its output, already a value.
    Answered(BoxFuture<'a, Result<Value, OperationError>>),
    /// The operation is not one of the encoded ones: its input, for the typed method.
    Typed(Value),
}

/// The trait method, or the `encoded_answer` statement, of one `operations!` row; invoked
/// by the generated `__operation!` with the operation's method name, `OperationName`
/// variant and types in brackets.
#[doc(hidden)]
#[macro_export]
macro_rules! __wire_operation {
    ([$method:ident $name:path, $input:ty, $output:ty, $error:ty] typed [$($runner:ident)?] $function:path) => {
        async fn $method(
            &self,
            ctx: &$crate::RequestContext,
            input: $input,
        ) -> ::core::result::Result<$output, $error> {
            $crate::__wire_operation!(@call [$($runner)?] $function, self, ctx, input)
                .await
                .map_err(::core::convert::Into::into)
        }
    };
    (
        [$method:ident $name:path, $input:ty, $output:ty, $error:ty] encoded [$($runner:ident)?] $function:path;
        $service:ident $ctx:ident $operation:ident $value:ident
    ) => {
        if $operation == $name {
            return $crate::service::EncodedAnswer::Answered(::std::boxed::Box::pin(async move {
                let input: $input = $crate::FromValue::from_value($value)?;
                $crate::__wire_operation!(@call [$($runner)?] $function, $service, $ctx, input)
                    .await
                    .map_err(|e| <$error>::into_operation_error(::core::convert::Into::into(e)))
            }));
        }
    };
    (@call [] $function:path, $service:ident, $ctx:ident, $input:ident) => {
        $function($service, $ctx, $input)
    };
    (@call [$runner:ident] $function:path, $service:ident, $ctx:ident, $input:ident) => {
        $service.$runner($ctx, move |scope| $function(scope, $input))
    };
}
