//! Code packages: zips taken inline or from S3 ([`ObjectSource`]), checked as Lambda checks
//! them, kept as blobs of the store, and copied to a file when the host needs one.

use std::path::{Path, PathBuf};

use base64::Engine;
use sha2::{Digest, Sha256};
use stratus_core::service::Caller;
use stratus_core::AwsError;
use stratus_lambda_host::inspect_zip;

use crate::error::{invalid_parameter, TxError};
use crate::records::CodeRecord;
use crate::service::LambdaService;

/// Largest zip taken inline (`ZipFile`).
const MAX_ZIPPED: usize = 52_428_800;
/// Largest code once unpacked, layers included.
pub(crate) const MAX_UNZIPPED: u64 = 262_144_000;

/// Where a package comes from.
pub(crate) struct Source<'a> {
    pub(crate) zip_file: Option<Vec<u8>>,
    pub(crate) s3_bucket: Option<&'a str>,
    pub(crate) s3_key: Option<&'a str>,
    pub(crate) s3_object_version: Option<&'a str>,
}

/// The base64 SHA-256 Lambda reports as `CodeSha256`, and the hex form blobs are named by.
pub(crate) fn digests(bytes: &[u8]) -> (String, String) {
    let digest = Sha256::digest(bytes);
    let b64 = base64::engine::general_purpose::STANDARD.encode(digest);
    (b64, stratus_core::hex::encode(&digest))
}

impl LambdaService {
    /// Reads a zip from `source` (S3 through the `ObjectSource` capability), checks it and keeps
    /// it as a blob of the store of `account` and `region`; `prefix` names the blob's kind
    /// (`code`, `layer`).
    pub(crate) async fn take_zip(
        &self,
        caller: Caller<'_>,
        source: Source<'_>,
        prefix: &str,
    ) -> Result<CodeRecord, AwsError> {
        let zip = match (source.zip_file, source.s3_bucket, source.s3_key) {
            (Some(zip), _, _) => {
                if zip.len() > MAX_ZIPPED {
                    return Err(AwsError::new(
                        "RequestEntityTooLargeException",
                        format!("Zipped size must be smaller than {MAX_ZIPPED} bytes"),
                        413,
                    ));
                }
                zip
            }
            (None, Some(bucket), Some(key)) => self.s3_object(caller, bucket, key, source.s3_object_version).await?,
            _ => return Err(invalid_parameter("Please provide a source for function code.")),
        };
        let info = inspect_zip(&zip).map_err(|e| invalid_parameter(e.to_string()))?;
        if info.unzipped_size > MAX_UNZIPPED {
            return Err(invalid_parameter(format!(
                "Unzipped size must be smaller than {MAX_UNZIPPED} bytes"
            )));
        }
        let (sha256, hex) = digests(&zip);
        let blob = format!("{prefix}-{hex}");
        let store = self.store(caller.account_id, caller.region)?;
        let size = zip.len() as u64;
        let name = blob.clone();
        stratus_storage::run_blocking(move || store.put_blob(&name, &mut zip.as_slice()).map_err(TxError::from))
            .await
            .map_err(AwsError::from)?;
        Ok(CodeRecord {
            sha256,
            size,
            unzipped_size: info.unzipped_size,
            blob: Some(blob),
            image_uri: None,
            source_kms_key_arn: None,
        })
    }

    async fn s3_object(
        &self,
        caller: Caller<'_>,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> Result<Vec<u8>, AwsError> {
        let Some(objects) = &self.shared.objects else {
            return Err(invalid_parameter(
                "Error occurred while GetObject. S3 Error Code: NoSuchBucket. S3 Error Message: The specified bucket \
                 does not exist",
            ));
        };
        match objects.get_object(caller, bucket, key, version).await {
            Ok(object) => Ok(object.body),
            Err(e) => Err(invalid_parameter(format!(
                "Error occurred while GetObject. S3 Error Code: {}. S3 Error Message: {}",
                e.code, e.message
            ))),
        }
    }

    /// The zip of `blob` as a file the host can read: copied once from the store into the
    /// code directory (a zip's name is its digest, so a copy never goes stale).
    pub(crate) async fn code_file(&self, account: &str, region: &str, blob: &str) -> Result<PathBuf, AwsError> {
        let dir = self.code_dir();
        let path = dir.join(format!("{account}-{region}-{blob}.zip"));
        if path.exists() {
            return Ok(path);
        }
        let store = self.store(account, region)?;
        let blob = blob.to_owned();
        let target = path.clone();
        stratus_storage::run_blocking(move || -> Result<(), TxError> {
            let bytes = store
                .get_blob(&blob)?
                .ok_or_else(|| AwsError::new("ServiceException", format!("code {blob} is missing"), 500))?;
            write_atomically(&target, &bytes)
                .map_err(|e| AwsError::new("ServiceException", format!("writing {}: {e}", target.display()), 500))?;
            Ok(())
        })
        .await?;
        Ok(path)
    }

    /// Where zips are copied for the host: `<work dir>/zips`, or a directory of this process
    /// under the system's temporary directory with `--ephemeral`.
    fn code_dir(&self) -> PathBuf {
        match &self.shared.settings.work_dir {
            Some(dir) => dir.join("zips"),
            None => std::env::temp_dir().join(format!("stratus-lambda-zips-{}", std::process::id())),
        }
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = path.with_extension(format!("tmp{}", stratus_core::id::random_u64()));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_sha256_is_base64_of_the_digest() {
        let (b64, hex) = digests(b"");
        assert_eq!(b64, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
        assert_eq!(&hex[..8], "e3b0c442");
    }
}
