//! Browser-based POST uploads ("Browser-Based Uploads Using POST (AWS Signature Version 4)" and
//! POST Object in the S3 API reference), which the S3 model has no operation for: the gateway
//! hands them over through its `FormUpload` hook, and [`crate::ops::post`] reads the form
//! ([`multipart`], [`fields`]), checks its policy ([`policy`]), streams the file into the
//! object through PutObject's write, and answers ([`answer`]).
//!
//! Here too: S3's refusals of forms, and the reader that checks the file on its way to the
//! blob.

pub(crate) mod answer;
pub(crate) mod fields;
pub(crate) mod multipart;
pub(crate) mod policy;
mod tagging;

use std::io::{self, Read};

use stratus_core::schema::Service;
use stratus_core::service::{BoxFuture, FormAnswer, FormPost, FormUpload};
use stratus_core::{AwsError, OperationError, RequestContext};
use stratus_gen_s3::schema;

use crate::error::S3Error;
use crate::S3Service;
use multipart::FormError;

impl FormUpload for S3Service {
    fn service(&self) -> &'static Service {
        &schema::SERVICE
    }

    fn accepts(&self, path: &str) -> bool {
        bucket_of(path).is_some()
    }

    fn upload<'a>(
        &'a self,
        ctx: &'a RequestContext,
        form: FormPost<'a>,
    ) -> BoxFuture<'a, Result<FormAnswer, OperationError>> {
        Box::pin(crate::ops::post::post_object(self, ctx, form))
    }
}

/// The bucket a POST to the path-style `path` uploads into: `/bucket` or `/bucket/` (a form's
/// action "must be set to the URL of the bucket").
pub(crate) fn bucket_of(path: &str) -> Option<&str> {
    let bucket = path.strip_prefix('/')?;
    let bucket = bucket.strip_suffix('/').unwrap_or(bucket);
    (!bucket.is_empty() && !bucket.contains('/')).then_some(bucket)
}

/// A POST that is not a form: S3's 412, as LocalStack's AWS-validated `TestS3PresignedPost`
/// recording of a `text/html` upload shows it (not the documented
/// `RequestIsNotMultiPartContent`).
pub(crate) fn not_multipart() -> AwsError {
    S3Error::condition_failed("Bucket POST must be of the enclosure-type multipart/form-data")
}

/// A form without its file (S3's answer as issue threads quote it, not the documented
/// `IncorrectNumberOfFilesInPostRequest`).
pub(crate) fn no_file() -> AwsError {
    S3Error::invalid_argument("POST requires exactly one file upload per request.")
        .with_detail("ArgumentName", "file")
        .with_detail("ArgumentValue", "0")
}

/// S3's answer to a form it cannot read.
pub(crate) fn form_error(e: &FormError) -> AwsError {
    match e {
        FormError::Malformed => AwsError::new(
            "MalformedPOSTRequest",
            "The body of your POST request is not well-formed multipart/form-data.",
            400,
        ),
        // S3's code, message (sic) and element, as issue threads quote them.
        FormError::TooLarge => AwsError::new(
            "MaxPostPreDataLengthExceeded",
            "Your POST request fields preceeding the upload file was too large.",
            400,
        )
        .with_detail("MaxPostPreDataLengthBytes", multipart::MAX_PRE_DATA.to_string()),
        FormError::Read(_) => S3Error::body_length_mismatch(),
    }
}

pub(crate) fn invalid_policy(e: policy::InvalidPolicy) -> AwsError {
    AwsError::new("InvalidPolicyDocument", e.to_string(), 400)
}

pub(crate) fn refused(refusal: policy::Refusal) -> AwsError {
    AwsError::new("AccessDenied", refusal.to_string(), 403)
}

/// The file's content on its way to the blob: a form that ends before its closing delimiter
/// is S3's `MalformedPOSTRequest`, and a policy's size range is enforced — `EntityTooLarge`
/// and `EntityTooSmall` with `ProposedSize` and the bound, as LocalStack's AWS-validated
/// `TestS3PresignedPost` recordings of a `content-length-range` record them. The refusal travels inside the
/// I/O error, for the body writer to answer with.
pub(crate) struct Checked<R> {
    inner: R,
    size: u64,
    range: Option<(u64, u64)>,
}

impl<R: Read> Checked<R> {
    pub(crate) fn new(inner: R, range: Option<(u64, u64)>) -> Checked<R> {
        Checked { inner, size: 0, range }
    }
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).map_err(answerable)?;
        self.size += n as u64;
        let Some((min, max)) = self.range else {
            return Ok(n);
        };
        if self.size > max {
            // The rest is read (and dropped) to learn the size proposed.
            self.size += io::copy(&mut self.inner, &mut io::sink()).map_err(answerable)?;
            let error = S3Error::entity_too_large()
                .with_detail("ProposedSize", self.size.to_string())
                .with_detail("MaxSizeAllowed", max.to_string());
            return Err(S3Error::in_io(error));
        }
        if n == 0 && !buf.is_empty() && self.size < min {
            let error = S3Error::entity_too_small()
                .with_detail("ProposedSize", self.size.to_string())
                .with_detail("MinSizeAllowed", min.to_string());
            return Err(S3Error::in_io(error));
        }
        Ok(n)
    }
}

/// A read error, with a form's own fault turned into S3's answer to it.
fn answerable(e: io::Error) -> io::Error {
    match e.get_ref().and_then(|inner| inner.downcast_ref::<FormError>()) {
        Some(form) => S3Error::in_io(form_error(form)),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(e: io::Error) -> AwsError {
        S3Error::from_io(&e).unwrap()
    }

    #[test]
    fn posts_go_to_buckets() {
        assert_eq!(bucket_of("/b"), Some("b"));
        assert_eq!(bucket_of("/b/"), Some("b"));
        assert_eq!(bucket_of("/"), None);
        assert_eq!(bucket_of("/b/key"), None);
    }

    #[test]
    fn sizes_are_checked_as_the_file_is_read() {
        let read = |content: &'static [u8], range| {
            let mut out = Vec::new();
            Checked::new(content, range).read_to_end(&mut out).map(|_| out)
        };
        assert_eq!(read(b"12345", Some((5, 10))).unwrap(), b"12345");
        assert_eq!(read(b"", None).unwrap(), b"");
        let large = refusal(read(b"123456789012", Some((5, 10))).unwrap_err());
        assert_eq!(large.code, "EntityTooLarge");
        assert_eq!(large.details[0], ("ProposedSize", "12".to_string()));
        assert_eq!(large.details[1], ("MaxSizeAllowed", "10".to_string()));
        let small = refusal(read(b"1", Some((5, 10))).unwrap_err());
        assert_eq!(small.code, "EntityTooSmall");
        assert_eq!(small.details[1], ("MinSizeAllowed", "5".to_string()));
    }

    #[test]
    fn a_form_cut_short_is_malformed() {
        struct Cut;
        impl Read for Cut {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other(FormError::Malformed))
            }
        }
        let e = Checked::new(Cut, None).read(&mut [0; 4]).unwrap_err();
        assert_eq!(refusal(e).code, "MalformedPOSTRequest");
    }
}
