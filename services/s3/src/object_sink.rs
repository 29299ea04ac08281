//! Objects written for other services ([`ObjectSink`]): Firehose's deliveries. The write is
//! PutObject's, made in the caller's account and region as its root — versioning, default
//! encryption and event notifications apply as they do to an upload — and so are its
//! refusals (`NoSuchBucket` above all), which the caller counts as a failed delivery.

use stratus_core::service::{BoxFuture, Caller, ObjectSink, ObjectToPut};
use stratus_core::{AwsError, RequestContext};
use stratus_gen_s3::{PutObjectRequest, S3};

use crate::S3Service;

impl ObjectSink for S3Service {
    fn put_object<'a>(&'a self, caller: Caller<'a>, object: ObjectToPut) -> BoxFuture<'a, Result<(), AwsError>> {
        Box::pin(async move {
            let ctx = RequestContext::unsigned(caller.account_id, caller.region, self.clock());
            let input = PutObjectRequest {
                bucket: object.bucket,
                key: object.key,
                body: object.body,
                content_type: object.content_type,
                content_encoding: object.content_encoding,
                ..PutObjectRequest::default()
            };
            match S3::put_object(self, &ctx, input).await {
                Ok(_) => Ok(()),
                Err(e) => {
                    let e = e.into_operation_error();
                    Err(AwsError::new(e.code(), e.message(), e.http_status()))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stratus_core::scheduler::Scheduler;
    use stratus_core::service::ObjectSource;
    use stratus_core::Clock;
    use stratus_gen_s3::CreateBucketRequest;
    use stratus_storage::{Storage, StorageConfig};

    use super::*;
    use crate::LifecycleTiming;

    #[test]
    fn objects_are_written_as_putobject_writes_them_and_refused_as_it_refuses() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let clock = Clock::manual_from_system_time();
        let s3 = S3Service::new(
            Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap()),
            Scheduler::new(clock.clone()),
            LifecycleTiming::default(),
        );
        let caller = Caller::service("firehose.amazonaws.com", "123456789012", "us-east-1");
        let object = ObjectToPut {
            bucket: "logs".into(),
            key: "2024/01/01/00/s-1".into(),
            body: b"records".to_vec(),
            content_type: Some("application/octet-stream".into()),
            content_encoding: None,
        };
        let missing = runtime.block_on(ObjectSink::put_object(&s3, caller, object.clone()));
        assert_eq!(missing.unwrap_err().code, "NoSuchBucket");
        let ctx = RequestContext::unsigned("123456789012", "us-east-1", clock);
        let create = CreateBucketRequest {
            bucket: "logs".into(),
            ..Default::default()
        };
        runtime.block_on(s3.create_bucket(&ctx, create)).unwrap();
        runtime.block_on(ObjectSink::put_object(&s3, caller, object)).unwrap();
        let read = runtime.block_on(ObjectSource::get_object(&s3, caller, "logs", "2024/01/01/00/s-1", None));
        assert_eq!(read.unwrap().body, b"records");
    }
}
