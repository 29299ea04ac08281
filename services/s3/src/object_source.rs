//! Objects read for other services ([`ObjectSource`]): Lambda's code and layers named by
//! `S3Bucket`/`S3Key`, CloudFormation's templates. The read is GetObject's — the current
//! version or the one named, its body opened as GetObject opens it — and so are its errors
//! (`NoSuchBucket`, `NoSuchKey`, `NoSuchVersion`, `MethodNotAllowed` for a delete marker
//! named by id). The caller's permission to read is the gateway's to check on the request
//! that asked for the read; S3 does not check it again here.

use stratus_core::service::{BoxFuture, Caller, ObjectSource, StoredObject};
use stratus_core::AwsError;

use crate::{body, S3Service};

impl ObjectSource for S3Service {
    fn get_object<'a>(
        &'a self,
        _caller: Caller<'a>,
        bucket: &'a str,
        key: &'a str,
        version_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<StoredObject, AwsError>> {
        Box::pin(async move {
            let (record, blob) = self.open_object(|| self.object_version(bucket, key, version_id))?;
            let body = self.read_all(body::reader(blob, None)?, record.size).await?;
            Ok(StoredObject {
                body,
                version_id: record.version_header(),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use stratus_core::scheduler::Scheduler;
    use stratus_core::{Clock, RequestContext};
    use stratus_gen_s3::*;
    use stratus_storage::{Storage, StorageConfig};

    use super::*;
    use crate::LifecycleTiming;

    struct Fixture {
        runtime: tokio::runtime::Runtime,
        s3: S3Service,
        ctx: RequestContext,
    }

    impl Fixture {
        fn new() -> Fixture {
            let clock = Clock::manual_from_system_time();
            let s3 = S3Service::new(
                Arc::new(Storage::open(StorageConfig::Ephemeral).unwrap()),
                Scheduler::new(clock.clone()),
                LifecycleTiming::default(),
            );
            Fixture {
                runtime: tokio::runtime::Builder::new_current_thread().build().unwrap(),
                s3,
                ctx: RequestContext::unsigned("123456789012", "us-east-1", clock),
            }
        }

        fn put(&self, bucket: &str, key: &str, body: &[u8]) -> Option<String> {
            let input = PutObjectRequest {
                bucket: bucket.into(),
                key: key.into(),
                body: body.to_vec(),
                ..Default::default()
            };
            self.runtime
                .block_on(self.s3.put_object(&self.ctx, input))
                .unwrap()
                .version_id
        }

        fn get(&self, bucket: &str, key: &str, version: Option<&str>) -> Result<StoredObject, AwsError> {
            let caller = Caller::service("lambda.amazonaws.com", "123456789012", "us-east-1");
            self.runtime
                .block_on(ObjectSource::get_object(&self.s3, caller, bucket, key, version))
        }
    }

    #[test]
    fn objects_and_their_versions_are_read_as_getobject_reads_them() {
        let f = Fixture::new();
        let create = CreateBucketRequest {
            bucket: "code".into(),
            ..Default::default()
        };
        f.runtime.block_on(f.s3.create_bucket(&f.ctx, create)).unwrap();
        assert_eq!(f.put("code", "fn.zip", b"first"), None);
        assert_eq!(
            f.get("code", "fn.zip", None).unwrap(),
            StoredObject {
                body: b"first".to_vec(),
                version_id: None
            }
        );
        let versioning = PutBucketVersioningRequest {
            bucket: "code".into(),
            versioning_configuration: VersioningConfiguration {
                status: Some(BucketVersioningStatus::Enabled),
                ..Default::default()
            },
            ..Default::default()
        };
        f.runtime
            .block_on(f.s3.put_bucket_versioning(&f.ctx, versioning))
            .unwrap();
        let v2 = f.put("code", "fn.zip", b"second").expect("versioned");
        let v3 = f.put("code", "fn.zip", b"third").expect("versioned");
        assert_eq!(f.get("code", "fn.zip", Some(&v2)).unwrap().body, b"second");
        let current = f.get("code", "fn.zip", None).unwrap();
        assert_eq!((current.body.as_slice(), current.version_id), (&b"third"[..], Some(v3)));
    }

    #[test]
    fn refusals_are_s3s_own() {
        let f = Fixture::new();
        assert_eq!(f.get("missing", "k", None).unwrap_err().code, "NoSuchBucket");
        let create = CreateBucketRequest {
            bucket: "code".into(),
            ..Default::default()
        };
        f.runtime.block_on(f.s3.create_bucket(&f.ctx, create)).unwrap();
        assert_eq!(f.get("code", "k", None).unwrap_err().code, "NoSuchKey");
        f.put("code", "k", b"x");
        let version = "3sL4kqtJlcpXroDTDmJ_rmSpXd3dIbrH";
        assert_eq!(f.get("code", "k", Some(version)).unwrap_err().code, "NoSuchVersion");
    }
}
