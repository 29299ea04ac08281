//! S3's refusals: AWS's code, HTTP status and message, answered as common errors (S3 writes
//! every error as the same `<Error>` document, modelled or not).

use std::io;

use stratus_core::AwsError;
use stratus_storage::StorageError;

/// Builds S3 errors with AWS's codes and statuses.
pub(crate) struct S3Error;

impl S3Error {
    /// `NoSuchBucket`, naming the bucket in `<BucketName>` as AWS's error document does.
    pub(crate) fn no_such_bucket(bucket: &str) -> AwsError {
        let error = AwsError::new("NoSuchBucket", "The specified bucket does not exist", 404);
        match bucket {
            "" => error,
            _ => error.with_detail("BucketName", bucket),
        }
    }

    /// `NoSuchKey`, naming the key in `<Key>` as AWS's error document does.
    pub(crate) fn no_such_key(key: &str) -> AwsError {
        AwsError::new("NoSuchKey", "The specified key does not exist.", 404).with_detail("Key", key)
    }

    pub(crate) fn invalid_bucket_name(bucket: &str) -> AwsError {
        AwsError::new("InvalidBucketName", "The specified bucket is not valid.", 400).with_detail("BucketName", bucket)
    }

    pub(crate) fn bucket_exists() -> AwsError {
        AwsError::new(
            "BucketAlreadyExists",
            "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.",
            409,
        )
    }

    pub(crate) fn bucket_owned(bucket: &str) -> AwsError {
        AwsError::new(
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.",
            409,
        )
        .with_detail("BucketName", bucket)
    }

    pub(crate) fn bucket_not_empty(bucket: &str) -> AwsError {
        AwsError::new("BucketNotEmpty", "The bucket you tried to delete is not empty", 409)
            .with_detail("BucketName", bucket)
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> AwsError {
        AwsError::new("InvalidArgument", message, 400)
    }

    pub(crate) fn invalid_request(message: impl Into<String>) -> AwsError {
        AwsError::new("InvalidRequest", message, 400)
    }

    pub(crate) fn precondition_failed() -> AwsError {
        AwsError::new(
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold",
            412,
        )
    }

    /// A 412 naming the header whose condition did not hold, as AWS's `<Condition>` does.
    pub(crate) fn condition_failed(header: &str) -> AwsError {
        S3Error::precondition_failed().with_detail("Condition", header)
    }

    pub(crate) fn not_modified() -> AwsError {
        AwsError::new("NotModified", "Not Modified", 304)
    }

    /// A `Range` no byte of the object satisfies, with the header and the size as AWS names them.
    pub(crate) fn invalid_range(requested: &str, size: u64) -> AwsError {
        AwsError::new("InvalidRange", "The requested range is not satisfiable", 416)
            .with_detail("ActualObjectSize", size.to_string())
            .with_detail("RangeRequested", requested)
    }

    pub(crate) fn bad_digest() -> AwsError {
        AwsError::new(
            "BadDigest",
            "The Content-MD5 you specified did not match what we received.",
            400,
        )
    }

    pub(crate) fn entity_too_large() -> AwsError {
        AwsError::new(
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
            400,
        )
    }

    /// A body shorter or longer than its headers said (or cut off).
    pub(crate) fn body_length_mismatch() -> AwsError {
        AwsError::new(
            "IncompleteBody",
            "You did not provide the number of bytes specified by the Content-Length HTTP header",
            400,
        )
    }

    pub(crate) fn entity_too_small() -> AwsError {
        AwsError::new(
            "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed size",
            400,
        )
    }

    pub(crate) fn missing_content_length() -> AwsError {
        AwsError::new(
            "MissingContentLength",
            "You must provide the Content-Length HTTP header.",
            411,
        )
    }

    pub(crate) fn malformed_trailer() -> AwsError {
        AwsError::new(
            "MalformedTrailerError",
            "The request contained trailing data that was not well-formed or did not conform to our published schema.",
            400,
        )
    }

    /// A refusal raised inside a reader, carried through `std::io` to whoever reads it.
    pub(crate) fn in_io(e: AwsError) -> io::Error {
        io::Error::other(e)
    }

    /// The refusal an I/O error carries, if a reader raised one ([`S3Error::in_io`]).
    pub(crate) fn from_io(e: &io::Error) -> Option<AwsError> {
        e.get_ref()?.downcast_ref::<AwsError>().cloned()
    }

    pub(crate) fn invalid_digest() -> AwsError {
        AwsError::new("InvalidDigest", "The Content-MD5 you specified was invalid.", 400)
    }

    pub(crate) fn no_such_version() -> AwsError {
        AwsError::new("NoSuchVersion", "The specified version does not exist.", 404)
    }

    /// A GET or HEAD of delete marker `version_id` by its version id: AWS's 405 says what it
    /// hit and that only DELETE applies.
    pub(crate) fn method_not_allowed(version_id: &str) -> AwsError {
        S3Error::delete_marker_not_allowed()
            .with_header("x-amz-delete-marker", "true")
            .with_header("x-amz-version-id", version_id)
            .with_header("allow", "DELETE")
    }

    /// A request on a delete marker that only DELETE may make. AWS's document names the
    /// resource type and the request's method, which [`S3Error::with_method`] adds once the
    /// operation is known.
    pub(crate) fn delete_marker_not_allowed() -> AwsError {
        AwsError::new(
            "MethodNotAllowed",
            "The specified method is not allowed against this resource.",
            405,
        )
        .with_detail("ResourceType", "DeleteMarker")
    }

    /// `e` naming `method` in `<Method>` when it is a `MethodNotAllowed` that does not yet.
    pub(crate) fn with_method(e: AwsError, method: &str) -> AwsError {
        match e.code.as_str() {
            "MethodNotAllowed" if !e.details.iter().any(|(name, _)| *name == "Method") => {
                e.with_detail("Method", method)
            }
            _ => e,
        }
    }

    /// A GET or HEAD of a key whose current version is delete marker `version_id`.
    pub(crate) fn deleted_key(key: &str, version_id: &str) -> AwsError {
        S3Error::no_such_key(key)
            .with_header("x-amz-delete-marker", "true")
            .with_header("x-amz-version-id", version_id)
    }

    pub(crate) fn invalid_bucket_acl_with_ownership() -> AwsError {
        AwsError::new(
            "InvalidBucketAclWithObjectOwnership",
            "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting",
            400,
        )
    }

    /// A request that MFA delete protects, sent without `x-amz-mfa`.
    pub(crate) fn mfa_required() -> AwsError {
        AwsError::new("AccessDenied", "Mfa Authentication must be used for this request", 403)
    }

    /// A bucket without tags.
    pub(crate) fn no_such_tag_set(bucket: &str) -> AwsError {
        AwsError::new("NoSuchTagSet", "The TagSet does not exist", 404).with_detail("BucketName", bucket)
    }

    pub(crate) fn invalid_tag(message: impl Into<String>) -> AwsError {
        AwsError::new("InvalidTag", message, 400)
    }

    pub(crate) fn malformed_xml() -> AwsError {
        AwsError::new(
            "MalformedXML",
            "The XML you provided was not well-formed or did not validate against our published schema",
            400,
        )
    }

    /// A HEAD request's refusal: a missing bucket or key is a bodiless `404 NotFound`.
    pub(crate) fn head(e: AwsError) -> AwsError {
        let bare = match e.code.as_str() {
            "NoSuchBucket" | "NoSuchKey" | "NoSuchVersion" => AwsError::new("NotFound", "Not Found", 404),
            "MethodNotAllowed" => AwsError::new("MethodNotAllowed", "Method Not Allowed", 405),
            _ => return e,
        };
        AwsError {
            headers: e.headers,
            ..bare
        }
    }

    pub(crate) fn storage(e: StorageError) -> AwsError {
        AwsError::internal(format!("object store: {e}"))
    }
}
