//! SSE-C, server-side encryption with keys the client provides ("Using server-side encryption
//! with customer-provided keys" in the S3 user guide): a write names an AES-256 key in
//! `x-amz-server-side-encryption-customer-{algorithm,key,key-MD5}`, S3 keeps only the key's
//! MD5, and every read of the object must bring the same key. Bodies are not encrypted here:
//! what S3 checks and answers is kept, with AWS's refusals as its recordings show them.

use base64::Engine;
use md5::{Digest, Md5};
use stratus_core::AwsError;

/// The one algorithm SSE-C takes.
const ALGORITHM: &str = "AES256";
/// The error documents name every SSE-C header by this one.
const HEADER: &str = "x-amz-server-side-encryption";

/// The SSE-C headers of a request (or a copy's `x-amz-copy-source-…` ones).
#[derive(Clone, Copy, Default)]
pub(crate) struct Given<'a> {
    pub algorithm: Option<&'a str>,
    pub key: Option<&'a str>,
    pub key_md5: Option<&'a str>,
}

/// The SSE-C headers of a generated input (all name them alike): `given!(input)`, or a copy's
/// source key with `given!(copy_source input)`.
macro_rules! given {
    ($input:expr) => {
        $crate::customer_key::Given {
            algorithm: $input.sse_customer_algorithm.as_deref(),
            key: $input.sse_customer_key.as_deref(),
            key_md5: $input.sse_customer_key_md5.as_deref(),
        }
    };
    (copy_source $input:expr) => {
        $crate::customer_key::Given {
            algorithm: $input.copy_source_sse_customer_algorithm.as_deref(),
            key: $input.copy_source_sse_customer_key.as_deref(),
            key_md5: $input.copy_source_sse_customer_key_md5.as_deref(),
        }
    };
}
pub(crate) use given;

impl Given<'_> {
    fn is_empty(&self) -> bool {
        self.algorithm.is_none() && self.key.is_none() && self.key_md5.is_none()
    }
}

/// The key MD5 (base64) a write stores its object under, `None` without SSE-C headers.
/// `sse` is the request's `x-amz-server-side-encryption`, which SSE-C excludes.
pub(crate) fn for_write(given: Given<'_>, sse: Option<&str>) -> Result<Option<String>, AwsError> {
    if given.is_empty() {
        return Ok(None);
    }
    if let (Some(_), Some(sse)) = (given.algorithm, sse) {
        return Err(invalid_argument(
            "Server Side Encryption with Customer provided key is incompatible with the encryption method specified",
        )
        .with_detail("ArgumentValue", sse));
    }
    check_algorithm(given)?;
    if given.algorithm.is_none() {
        return Err(invalid_argument(
            "Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.",
        ));
    }
    let Some(key) = given.key else {
        return Err(invalid_argument(
            "Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.",
        ));
    };
    let Some(sent_md5) = given.key_md5 else {
        return Err(invalid_key());
    };
    let md5 = key_md5(key)?;
    if md5 != sent_md5 {
        return Err(invalid_argument(
            "The calculated MD5 hash of the key did not match the hash that was provided.",
        ));
    }
    Ok(Some(md5))
}

/// Whether a read that `given` describes may read an object `stored` under a key (its MD5),
/// or under none.
pub(crate) fn check_read(stored: Option<&str>, given: Given<'_>) -> Result<(), AwsError> {
    check_algorithm(given)?;
    let Some(stored) = stored else {
        return match given.is_empty() {
            true => Ok(()),
            false => Err(invalid_request(
                "The encryption parameters are not applicable to this object.",
            )),
        };
    };
    let Some(key) = given.key else {
        return Err(invalid_request(
            "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.",
        ));
    };
    // A read compares the key's MD5 only: a key of the wrong length is a wrong key (recorded).
    let md5 = base64::engine::general_purpose::STANDARD
        .decode(key)
        .map(|bytes| base64::engine::general_purpose::STANDARD.encode(Md5::digest(&bytes)))
        .map_err(|_| invalid_key())?;
    if given.key_md5.is_some_and(|sent| sent != md5) {
        return Err(invalid_argument(
            "The calculated MD5 hash of the key did not match the hash that was provided.",
        ));
    }
    // A read without the key's MD5 is answered as one with the wrong key (recorded).
    if given.key_md5.is_none() || md5 != stored {
        return Err(AwsError::new(
            "AccessDenied",
            "Requests specifying Server Side Encryption with Customer provided keys must provide the correct secret key.",
            403,
        ));
    }
    Ok(())
}

/// Whether a part's SSE-C key (`sent`, its MD5 as [`for_write`] read it) is the one its upload
/// was created with (`upload`), as UploadPart requires.
pub(crate) fn check_part(upload: Option<&str>, sent: Option<&str>) -> Result<(), AwsError> {
    match (upload, sent) {
        (None, None) => Ok(()),
        (Some(ours), Some(theirs)) if ours == theirs => Ok(()),
        (Some(_), Some(_)) => Err(invalid_request(
            "The provided encryption parameters did not match the ones used originally.",
        )),
        _ => Err(invalid_request(
            "The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.",
        )),
    }
}

/// The algorithm and key MD5 an answer reports for an object under `md5`.
pub(crate) fn reported(md5: Option<&str>) -> (Option<String>, Option<String>) {
    match md5 {
        Some(md5) => (Some(ALGORITHM.to_owned()), Some(md5.to_owned())),
        None => (None, None),
    }
}

fn check_algorithm(given: Given<'_>) -> Result<(), AwsError> {
    match given.algorithm {
        Some(a) if a != ALGORITHM => Err(AwsError::new(
            "InvalidEncryptionAlgorithmError",
            "The Encryption request you specified is not valid. Supported value: AES256.",
            400,
        )
        .with_detail("ArgumentName", HEADER)
        .with_detail("ArgumentValue", a)),
        _ => Ok(()),
    }
}

/// The base64 MD5 of a base64 key, which must be 256 bits.
fn key_md5(key: &str) -> Result<String, AwsError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(key)
        .ok()
        .filter(|k| k.len() == 32)
        .ok_or_else(invalid_key)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(Md5::digest(&bytes)))
}

fn invalid_key() -> AwsError {
    invalid_argument("The secret key was invalid for the specified algorithm.")
}

fn invalid_argument(message: &str) -> AwsError {
    AwsError::new("InvalidArgument", message, 400).with_detail("ArgumentName", HEADER)
}

fn invalid_request(message: &str) -> AwsError {
    AwsError::new("InvalidRequest", message, 400)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "MTIzNDU2Nzg5MGFiY2RlZjEyMzQ1Njc4OTBhYmNkZWY="; // "1234567890abcdef" twice
    const KEY_MD5: &str = "JMwgiexXqwuPqIPjYFmIZQ==";

    fn given<'a>(algorithm: Option<&'a str>, key: Option<&'a str>, md5: Option<&'a str>) -> Given<'a> {
        Given {
            algorithm,
            key,
            key_md5: md5,
        }
    }

    fn message(e: AwsError) -> String {
        e.message
    }

    #[test]
    fn a_good_key_is_kept_by_its_md5() {
        assert_eq!(
            for_write(given(Some("AES256"), Some(KEY), Some(KEY_MD5)), None).unwrap(),
            Some(KEY_MD5.to_owned())
        );
        assert_eq!(for_write(Given::default(), Some("AES256")).unwrap(), None);
    }

    // The refusals AWS recorded for PutObject (LocalStack's test_put_object_validation_sse_c).
    #[test]
    fn bad_writes_are_refused_in_aws_order() {
        let both = for_write(given(Some("KMS"), Some(KEY), Some(KEY_MD5)), Some("AES256")).unwrap_err();
        assert!(message(both).contains("incompatible"));
        let algo = for_write(given(Some("KMS"), Some(KEY), Some(KEY_MD5)), None).unwrap_err();
        assert_eq!(algo.code, "InvalidEncryptionAlgorithmError");
        assert!(
            message(for_write(given(None, Some(KEY), Some(KEY_MD5)), None).unwrap_err())
                .contains("valid encryption algorithm")
        );
        assert!(
            message(for_write(given(Some("AES256"), None, Some(KEY_MD5)), None).unwrap_err())
                .contains("appropriate secret key")
        );
        assert!(
            message(for_write(given(Some("AES256"), Some(KEY), None), None).unwrap_err())
                .contains("secret key was invalid")
        );
        let short = base64::engine::general_purpose::STANDARD.encode(b"0123456789");
        assert!(
            message(for_write(given(Some("AES256"), Some(&short), Some(KEY_MD5)), None).unwrap_err())
                .contains("secret key was invalid")
        );
        let bad_md5 = for_write(given(Some("AES256"), Some(KEY), Some("a")), None).unwrap_err();
        assert!(message(bad_md5).contains("did not match the hash"));
    }

    #[test]
    fn reads_need_the_same_key() {
        let right = given(Some("AES256"), Some(KEY), Some(KEY_MD5));
        assert!(check_read(Some(KEY_MD5), right).is_ok());
        assert!(check_read(None, Given::default()).is_ok());
        assert_eq!(
            check_read(Some(KEY_MD5), Given::default()).unwrap_err().code,
            "InvalidRequest"
        );
        let other = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let other_md5 = key_md5(&other).unwrap();
        let wrong = given(Some("AES256"), Some(&other), Some(&other_md5));
        assert_eq!(check_read(Some(KEY_MD5), wrong).unwrap_err().http_status, 403);
        assert_eq!(
            check_read(Some(KEY_MD5), given(Some("AES256"), Some(KEY), None))
                .unwrap_err()
                .http_status,
            403
        );
        assert_eq!(check_read(None, right).unwrap_err().code, "InvalidRequest");
    }

    #[test]
    fn parts_follow_their_upload() {
        assert!(check_part(Some(KEY_MD5), Some(KEY_MD5)).is_ok());
        assert!(check_part(None, None).is_ok());
        assert!(message(check_part(Some(KEY_MD5), None).unwrap_err()).contains("must include"));
        assert!(message(check_part(None, Some(KEY_MD5)).unwrap_err()).contains("must include"));
        let other = key_md5(&base64::engine::general_purpose::STANDARD.encode([7u8; 32])).unwrap();
        assert!(message(check_part(Some(KEY_MD5), Some(&other)).unwrap_err()).contains("did not match the ones"));
    }
}
