//! `ExpectedBucketOwner` and `ExpectedSourceBucketOwner`: a request that names the account it
//! expects to own the bucket (or a copy's source bucket) is refused when another account owns
//! it, before the operation runs — S3's guard against writing to a bucket that changed hands.
//!
//! As recorded from AWS: a value that is not an account id is `InvalidBucketOwnerAWSAccountID`
//! (400) quoting it; another owner is a bare `AccessDenied` (403), which says nothing of the
//! bucket. A bucket that does not exist is left to the operation (`NoSuchBucket`).

use stratus_core::arn::is_account_id;
use stratus_core::schema::Operation;
use stratus_core::service::{BoxFuture, ServiceHandler};
use stratus_core::{AwsError, OperationError, RequestContext, Value};
use stratus_gen_s3::Handler;

use crate::config::ownership::access_denied;
use crate::error::S3Error;
use crate::object::copy_source;
use crate::{store, S3Service};

/// S3's generated handler with the owner checks in front of every operation (and, behind it,
/// the request's method named in a `MethodNotAllowed`, which operations do not know).
pub(crate) struct OwnerChecked(pub(crate) Handler<S3Service>);

impl ServiceHandler for OwnerChecked {
    fn schema(&self) -> &'static stratus_core::schema::Service {
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
        if let Err(refusal) = check(&self.0 .0, operation, &input) {
            return Box::pin(async move { Err(refusal.into()) });
        }
        let answer = self.0.call(ctx, operation, input);
        let method = operation.http.map_or("POST", |route| route.method);
        Box::pin(async move {
            answer.await.map_err(|e| match e {
                OperationError::Aws(e) => OperationError::Aws(S3Error::with_method(e, method)),
                other => other,
            })
        })
    }
}

fn check(s3: &S3Service, operation: &Operation, input: &Value) -> Result<(), AwsError> {
    if let Some(owner) = member(operation, input, "ExpectedBucketOwner") {
        if let Some(bucket) = member(operation, input, "Bucket") {
            owned_by(s3, bucket, owner)?;
        }
    }
    if let Some(owner) = member(operation, input, "ExpectedSourceBucketOwner") {
        // A copy source that does not parse is the operation's own refusal to make.
        if let Some((bucket, _, _)) = member(operation, input, "CopySource").and_then(|s| copy_source(s).ok()) {
            owned_by(s3, &bucket, owner)?;
        }
    }
    Ok(())
}

fn owned_by(s3: &S3Service, bucket: &str, expected: &str) -> Result<(), AwsError> {
    if !is_account_id(expected) {
        return Err(AwsError::new(
            "InvalidBucketOwnerAWSAccountID",
            format!("The value of the expected bucket owner parameter must be an AWS Account ID... [{expected}]"),
            400,
        ));
    }
    match s3.store().and_then(|db| store::bucket(&db, bucket)) {
        Ok(record) if record.owner != expected => Err(access_denied()),
        _ => Ok(()),
    }
}

/// The string member `name` of the operation's input, when it is set.
fn member<'v>(operation: &Operation, input: &'v Value, name: &str) -> Option<&'v str> {
    let index = operation.input.member_index(name)?;
    match input {
        Value::Struct(slots) => match slots.get(index)? {
            Some(Value::String(value)) => Some(value),
            _ => None,
        },
        _ => None,
    }
}
