//! Multipart uploads: create, upload parts (or copy them), complete, abort, list.
//!
//! An upload is an [`UploadRecord`] in the `uploads` table (by bucket, a zero byte and upload
//! id) and its parts [`PartRecord`]s in `parts` (by bucket, upload id and part number,
//! big-endian), each part's body a blob of its own. Completing streams the parts' blobs, in
//! order, into the object's blob (memory does not grow with the object) and computes AWS's
//! ETag: the MD5 of the parts' binary MD5s, a dash, and the number of parts.
//!
//! An upload created with a checksum algorithm gives every part a checksum of it (verified
//! when the part carries one) and the object a COMPOSITE or FULL_OBJECT checksum (see
//! [`crate::checksum`]); one created without gets the default CRC64NVME of the whole object,
//! computed while the parts are streamed together.

use std::io::Read;

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use stratus_core::{hex, id, AwsError, DateTime};
use stratus_gen_s3::*;
use stratus_storage::{Table, Tx};

use crate::body::{self, Source};
use crate::checksum::{self, Algorithm, Checksum, Sent};
use crate::customer_key::given;
use crate::error::S3Error;
use crate::lock;
use crate::object::{self, ContentHeaders, ObjectRecord, StoredPart};
use crate::store::{self, object_key};
use crate::{config, initiator, owner, versioning, S3Service};

const UPLOADS: Table<UploadRecord> = Table::new("uploads");
const PARTS: Table<PartRecord> = Table::new("parts");
/// AWS's smallest part, except the last.
const MIN_PART_SIZE: u64 = 5 * 1024 * 1024;
const MAX_PART_NUMBER: i32 = 10_000;

/// An upload in progress.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct UploadRecord {
    pub key: String,
    pub upload_id: String,
    pub initiated_ms: i64,
    pub owner: String,
    pub headers: ContentHeaders,
    pub metadata: std::collections::BTreeMap<String, String>,
    pub tags: std::collections::BTreeMap<String, String>,
    pub storage_class: Option<String>,
    /// The ACL the upload's object gets (JSON of the model's `Grants`), when one was set.
    #[serde(default)]
    pub acl: Option<String>,
    /// The checksum algorithm the upload was created with.
    #[serde(default)]
    pub checksum_algorithm: Option<Algorithm>,
    /// Whether that checksum is FULL_OBJECT (else COMPOSITE).
    #[serde(default)]
    pub full_object: bool,
    /// The Object Lock settings the object gets on completion.
    #[serde(default)]
    pub lock: lock::Requested,
    /// The MD5 of the SSE-C key the upload was created with, which each part must bring
    /// and the object is stored under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_key_md5: Option<String>,
    /// The SSE-KMS key the object is stored under (see [`crate::encryption`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kms: Option<crate::encryption::KmsEncryption>,
}

/// What a part is checked against before it is stored: the request's `Content-MD5`, the
/// checksum it sent, and the MD5 of its SSE-C key, which must be its upload's.
#[derive(Default)]
pub(crate) struct PartChecks {
    pub content_md5: Option<Vec<u8>>,
    pub sent: Option<Sent>,
    pub customer_key: Option<String>,
}

/// One uploaded part.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct PartRecord {
    pub number: i32,
    pub etag: String,
    pub size: u64,
    pub blob: String,
    pub last_modified_ms: i64,
    /// The part's checksum: in the upload's algorithm, or the one the part was sent with.
    #[serde(default)]
    pub checksum: Option<Checksum>,
}

/// Every upload in progress in `bucket`.
pub(crate) fn uploads_of(
    r: &(impl stratus_storage::Read + ?Sized),
    bucket: &str,
) -> Result<Vec<UploadRecord>, AwsError> {
    Ok(UPLOADS
        .scan_prefix(r, object_key(bucket, ""))
        .map_err(S3Error::storage)?
        .into_iter()
        .map(|(_, upload)| upload)
        .collect())
}

fn upload_key(bucket: &str, upload_id: &str) -> Vec<u8> {
    object_key(bucket, upload_id)
}

fn parts_prefix(bucket: &str, upload_id: &str) -> Vec<u8> {
    let mut k = upload_key(bucket, upload_id);
    k.push(0);
    k
}

fn part_key(bucket: &str, upload_id: &str, number: i32) -> Vec<u8> {
    let mut k = parts_prefix(bucket, upload_id);
    k.extend_from_slice(&number.to_be_bytes());
    k
}

fn no_such_upload(upload_id: &str) -> AwsError {
    AwsError::new(
        "NoSuchUpload",
        "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
        404,
    )
    .with_detail("UploadId", upload_id)
}

/// A part CompleteMultipartUpload names that was not uploaded (or not with that ETag or
/// checksum): AWS names the part as it was asked for.
fn invalid_part(upload_id: &str, number: i32, etag: &str) -> AwsError {
    AwsError::new(
        "InvalidPart",
        "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        400,
    )
    .with_detail("UploadId", upload_id)
    .with_detail("PartNumber", number.to_string())
    .with_detail("ETag", etag.trim_matches('"'))
}

fn load_upload(tx: &Tx<'_>, bucket: &str, upload_id: &str, key: &str) -> Result<UploadRecord, AwsError> {
    store::bucket(tx, bucket)?;
    let upload = UPLOADS
        .get(tx, upload_key(bucket, upload_id))
        .map_err(S3Error::storage)?
        .ok_or_else(|| no_such_upload(upload_id))?;
    if upload.key != key {
        return Err(no_such_upload(upload_id));
    }
    Ok(upload)
}

fn load_parts(tx: &Tx<'_>, bucket: &str, upload_id: &str) -> Result<Vec<PartRecord>, AwsError> {
    Ok(PARTS
        .scan_prefix(tx, parts_prefix(bucket, upload_id))
        .map_err(S3Error::storage)?
        .into_iter()
        .map(|(_, part)| part)
        .collect())
}

/// Removes an upload and its parts, returning the parts' blobs.
fn remove_upload(tx: &mut Tx<'_>, bucket: &str, upload_id: &str) -> Result<Vec<String>, AwsError> {
    let mut blobs = Vec::new();
    for part in load_parts(tx, bucket, upload_id)? {
        PARTS.delete(tx, part_key(bucket, upload_id, part.number));
        blobs.push(part.blob);
    }
    UPLOADS.delete(tx, upload_key(bucket, upload_id));
    Ok(blobs)
}

fn check_part_number(n: i32) -> Result<(), AwsError> {
    if (1..=MAX_PART_NUMBER).contains(&n) {
        Ok(())
    } else {
        Err(
            S3Error::invalid_argument("Part number must be an integer between 1 and 10000, inclusive")
                .with_detail("ArgumentName", "partNumber")
                .with_detail("ArgumentValue", n.to_string()),
        )
    }
}

/// AWS's ETag of a multipart object: the MD5 of the parts' MD5s, `-`, the part count.
pub(crate) fn multipart_etag(part_etags: &[&str]) -> Result<String, AwsError> {
    let mut digests = Md5::new();
    for etag in part_etags {
        let digest = hex::decode(etag.trim_matches('"'))
            .ok_or_else(|| AwsError::internal(format!("part ETag {etag} is not hex")))?;
        digests.update(digest);
    }
    Ok(format!("\"{}-{}\"", hex::encode(&digests.finalize()), part_etags.len()))
}

/// The parts a CompleteMultipartUpload names, checked against those uploaded: ascending,
/// present with matching ETags, all but the last at least 5 MiB.
pub(crate) fn chosen_parts(
    upload_id: &str,
    requested: &[(i32, String)],
    uploaded: &[PartRecord],
) -> Result<Vec<PartRecord>, AwsError> {
    if requested.is_empty() {
        return Err(S3Error::malformed_xml());
    }
    if requested.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(AwsError::new(
            "InvalidPartOrder",
            "The list of parts was not in ascending order. Parts must be ordered by part number.",
            400,
        )
        .with_detail("UploadId", upload_id));
    }
    let mut chosen = Vec::with_capacity(requested.len());
    for (number, etag) in requested {
        let part = uploaded
            .iter()
            .find(|p| p.number == *number && object::etag_matches(etag, &p.etag))
            .ok_or_else(|| invalid_part(upload_id, *number, etag))?;
        chosen.push(part.clone());
    }
    if let Some(small) = chosen[..chosen.len() - 1].iter().find(|p| p.size < MIN_PART_SIZE) {
        return Err(S3Error::entity_too_small()
            .with_detail("ETag", small.etag.trim_matches('"'))
            .with_detail("MinSizeAllowed", MIN_PART_SIZE.to_string())
            .with_detail("PartNumber", small.number.to_string())
            .with_detail("ProposedSize", small.size.to_string()));
    }
    Ok(chosen)
}

/// Reads several readers one after the other.
struct Concat<R> {
    readers: std::collections::VecDeque<R>,
}

impl<R: Read> Read for Concat<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(current) = self.readers.front_mut() {
            let n = current.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            self.readers.pop_front();
        }
        Ok(0)
    }
}

/// The checksum type a CompleteMultipartUpload names must be the upload's (an upload created
/// without a checksum algorithm has none, the "null" mode of AWS's message).
fn check_checksum_mode(upload: &UploadRecord, asked: Option<&ChecksumType>) -> Result<(), AwsError> {
    let Some(asked) = asked else {
        return Ok(());
    };
    let created = upload.checksum_algorithm.map(|_| upload_checksum_type(upload));
    if created.as_ref() == Some(asked) {
        return Ok(());
    }
    let mode = created.as_ref().map_or("null", ChecksumType::as_str);
    Err(S3Error::invalid_request(format!(
        "The upload was created using the {mode} checksum mode. The complete request must use the same checksum mode."
    )))
}

/// The part checksums a CompleteMultipartUpload lists: an upload with a COMPOSITE checksum
/// needs each part's, one in another algorithm is `BadDigest`, and any given must be the
/// part's as uploaded (`InvalidPart`).
fn check_part_checksums(
    upload: &UploadRecord,
    completed: &[CompletedPart],
    chosen: &[PartRecord],
) -> Result<(), AwsError> {
    for (given, part) in completed.iter().zip(chosen) {
        let sent = checksum::checksum_members!(given);
        let mut values = Algorithm::ALL
            .into_iter()
            .zip(sent)
            .filter_map(|(a, v)| v.map(|v| (a, v)));
        match (values.next(), upload.checksum_algorithm) {
            (None, Some(a)) if !upload.full_object => {
                return Err(AwsError::new(
                    "InvalidRequest",
                    format!(
                        "The upload was created using a {} checksum. The complete request must include the checksum for each part. It was missing for part {} in the request.",
                        a.name().to_ascii_lowercase(),
                        part.number
                    ),
                    400,
                ))
            }
            // An upload created without a checksum algorithm takes no part checksums at all.
            (Some(_), None) => return Err(invalid_part(&upload.upload_id, part.number, &part.etag)),
            // A checksum of another algorithm than the upload's cannot be the part's.
            (Some((a, _)), Some(ours)) if a != ours => {
                return Err(AwsError::new(
                    "BadDigest",
                    format!(
                        "The {} you specified for part {} did not match what we received.",
                        a.name().to_ascii_lowercase(),
                        part.number
                    ),
                    400,
                ))
            }
            (Some((a, v)), _) if part.checksum.as_ref().is_none_or(|c| c.algorithm != a || c.value != v) => {
                return Err(invalid_part(&upload.upload_id, part.number, &part.etag))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The whole-object checksum a CompleteMultipartUpload may carry must be the object's (a
/// composite one compared without its part count).
/// An upload created without an algorithm ignores a composite (`…-N`) value; a FULL_OBJECT
/// upload takes its whole-object checksum only with `x-amz-checksum-type: FULL_OBJECT`, and
/// names its own algorithm in the refusal — as the recordings show AWS answering.
fn check_object_checksum(
    input: &CompleteMultipartUploadRequest,
    stored: Option<&Checksum>,
    upload_algorithm: Option<Algorithm>,
    full_object: bool,
) -> Result<(), AwsError> {
    let sent = checksum::checksum_members!(input);
    let typed = input.checksum_type.as_ref() == Some(&ChecksumType::FullObject);
    for (a, v) in Algorithm::ALL.into_iter().zip(sent) {
        let Some(v) = v else { continue };
        if upload_algorithm.is_none() && v.contains('-') {
            continue;
        }
        let untyped_full = upload_algorithm.is_some() && full_object && !typed;
        let matches = !untyped_full
            && stored.is_some_and(|c| {
                c.algorithm == a && c.value.split('-').next() == Some(v.split('-').next().unwrap_or(v))
            });
        if !matches {
            // CompleteMultipartUpload writes the algorithm in lower case.
            let named = if full_object { upload_algorithm.unwrap_or(a) } else { a };
            return Err(AwsError::new(
                "BadDigest",
                format!(
                    "The {} you specified did not match the calculated checksum.",
                    named.name().to_ascii_lowercase()
                ),
                400,
            ));
        }
    }
    Ok(())
}

/// The checksum type of an upload created with a checksum algorithm.
fn upload_checksum_type(upload: &UploadRecord) -> ChecksumType {
    if upload.full_object {
        ChecksumType::FullObject
    } else {
        ChecksumType::Composite
    }
}

/// Passes reads through, computing a checksum of what was read.
struct Hashing<R> {
    inner: R,
    hasher: checksum::Hasher,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

impl S3Service {
    /// Starts an upload for `ctx_account`, its object to be stored under `kms` (SSE-KMS) if
    /// given.
    pub(crate) async fn create_upload(
        &self,
        ctx_account: String,
        input: CreateMultipartUploadRequest,
        kms: Option<crate::encryption::KmsEncryption>,
    ) -> Result<CreateMultipartUploadOutput, AwsError> {
        crate::storage_class::check_storage_class(input.storage_class.as_ref())?;
        let tags = match &input.tagging {
            Some(header) => object::parse_tagging_header(header)?,
            None => Default::default(),
        };
        let customer_key = crate::customer_key::for_write(
            given!(input),
            input.server_side_encryption.as_ref().map(ServerSideEncryption::as_str),
        )?;
        let algorithm = checksum::sdk_algorithm(input.checksum_algorithm.as_ref())?;
        let full_object = checksum::upload_type(algorithm, input.checksum_type.as_ref())?;
        let acl = self.object_acl_headers(
            &input.bucket,
            &ctx_account,
            input.acl.as_ref(),
            [
                input.grant_full_control.as_ref(),
                input.grant_read.as_ref(),
                input.grant_read_acp.as_ref(),
                input.grant_write_acp.as_ref(),
            ],
        )?;
        let upload = UploadRecord {
            key: input.key.clone(),
            upload_id: id::uuid().replace('-', ""),
            initiated_ms: self.now_ms(),
            owner: ctx_account,
            headers: ContentHeaders {
                content_type: Some(input.content_type.unwrap_or_else(|| "binary/octet-stream".into())),
                cache_control: input.cache_control,
                content_disposition: input.content_disposition,
                content_encoding: input.content_encoding,
                content_language: input.content_language,
                expires: input.expires,
            },
            metadata: crate::rfc2047::decode_all(input.metadata.unwrap_or_default()),
            tags,
            storage_class: crate::storage_class::kept_storage_class(input.storage_class),
            acl,
            checksum_algorithm: algorithm,
            full_object: full_object.unwrap_or(false),
            lock: lock::Requested::from_headers(
                input.object_lock_mode.as_ref(),
                input.object_lock_retain_until_date.as_ref(),
                input.object_lock_legal_hold_status.as_ref(),
                self.now_ms(),
            )?,
            kms: kms.filter(|_| customer_key.is_none()),
            customer_key_md5: customer_key,
        };
        let checksum_type = algorithm.map(|_| upload_checksum_type(&upload));
        let sse = crate::encryption::Reported::for_keys(upload.kms.as_ref(), upload.customer_key_md5.as_deref());
        let bucket = input.bucket.clone();
        let upload_id = upload.upload_id.clone();
        self.write(move |tx| {
            let b = store::bucket(tx, &bucket)?;
            if !b.object_lock && upload.lock != lock::Requested::default() {
                return Err(lock::missing_configuration());
            }
            // An ACL the bucket refuses is refused when the upload starts.
            if let Some(doc) = &upload.acl {
                let grants: Vec<Grant> = config::decode(&schema::GRANTS, doc.as_bytes())?;
                config::acl::check_acl_allowed(tx, &b, &grants, &b.owner)?;
            }
            UPLOADS
                .put(tx, upload_key(&bucket, &upload.upload_id), &upload)
                .map_err(S3Error::storage)
        })
        .await?;
        Ok(CreateMultipartUploadOutput {
            bucket: Some(input.bucket),
            key: Some(input.key),
            upload_id: Some(upload_id),
            checksum_algorithm: algorithm.map(Algorithm::to_model),
            checksum_type,
            // Every new object is SSE-S3 (crate::encryption), or SSE-C when asked.
            server_side_encryption: sse.server_side_encryption,
            sse_customer_algorithm: sse.customer_algorithm,
            sse_customer_key_md5: sse.customer_key_md5,
            ssekms_key_id: sse.kms_key_id,
            bucket_key_enabled: sse.bucket_key_enabled,
            ..CreateMultipartUploadOutput::default()
        })
    }

    /// Stores `source` as part `number` of the upload, replacing an earlier part of that
    /// number, after `checks`.
    pub(crate) async fn store_part(
        &self,
        bucket: String,
        key: String,
        upload_id: String,
        number: i32,
        source: Source,
        checks: PartChecks,
    ) -> Result<(PartRecord, Option<crate::encryption::KmsEncryption>), AwsError> {
        let PartChecks {
            content_md5,
            sent,
            customer_key,
        } = checks;
        check_part_number(number)?;
        let (b, k, u) = (bucket.clone(), key.clone(), upload_id.clone());
        let upload = self.write(move |tx| load_upload(tx, &b, &u, &k)).await?;
        crate::customer_key::check_part(upload.customer_key_md5.as_deref(), customer_key.as_deref())?;
        if let (Some(expected), Some(sent)) = (upload.checksum_algorithm, &sent) {
            if sent.algorithm() != expected {
                return Err(checksum::part_mismatch(expected, sent.algorithm()));
            }
        }
        let algorithm = sent.as_ref().map(Sent::algorithm).or(upload.checksum_algorithm);
        let (blob, written) = self
            .write_body("part", source, algorithm, body::MAX_SINGLE_UPLOAD)
            .await?;
        self.verify_body(
            &blob,
            &written,
            content_md5.as_deref(),
            sent.as_ref(),
            body::DigestText::Base64,
        )
        .await?;
        let checksum = algorithm
            .zip(written.checksum.as_ref())
            .map(|(algorithm, digest)| Checksum {
                algorithm,
                value: checksum::encode(digest),
                composite: false,
            });
        let part = PartRecord {
            number,
            etag: written.etag(),
            size: written.size,
            blob,
            last_modified_ms: self.now_ms(),
            checksum,
        };
        let stored = part.clone();
        self.commit_blob(part.blob.clone(), move |tx| {
            load_upload(tx, &bucket, &upload_id, &key)?;
            let k = part_key(&bucket, &upload_id, number);
            let previous = PARTS.get(tx, &k).map_err(S3Error::storage)?;
            PARTS.put(tx, k, &part).map_err(S3Error::storage)?;
            Ok(((), previous.map(|p| p.blob).into_iter().collect()))
        })
        .await?;
        Ok((stored, upload.kms))
    }

    pub(crate) async fn complete_upload(
        &self,
        input: CompleteMultipartUploadRequest,
    ) -> Result<CompleteMultipartUploadOutput, AwsError> {
        let completed = input.multipart_upload.clone().and_then(|m| m.parts).unwrap_or_default();
        let requested: Vec<(i32, String)> = completed
            .iter()
            .map(|p| (p.part_number.unwrap_or(0), p.e_tag.clone().unwrap_or_default()))
            .collect();
        let (bucket, key, upload_id) = (input.bucket.clone(), input.key.clone(), input.upload_id.clone());
        let (b, k, u) = (bucket.clone(), key.clone(), upload_id.clone());
        let (upload, parts) = self
            .write(move |tx| Ok((load_upload(tx, &b, &u, &k)?, load_parts(tx, &b, &u)?)))
            .await?;
        if input.multipart_upload.is_none() {
            return Err(S3Error::invalid_request("You must specify at least one part"));
        }
        check_checksum_mode(&upload, input.checksum_type.as_ref())?;
        let (upload_algorithm, upload_full_object) = (upload.checksum_algorithm, upload.full_object);
        let chosen = chosen_parts(&upload_id, &requested, &parts)?;
        check_part_checksums(&upload, &completed, &chosen)?;
        let size: u64 = chosen.iter().map(|p| p.size).sum();
        if let Some(declared) = input.mpu_object_size.filter(|d| u64::try_from(*d).ok() != Some(size)) {
            return Err(S3Error::invalid_request(format!(
                "The provided 'x-amz-mp-object-size' header value {declared} does not match what was computed: {size}"
            )));
        }
        let etags: Vec<&str> = chosen.iter().map(|p| p.etag.as_str()).collect();
        let etag = multipart_etag(&etags)?;
        // A composite checksum comes from the parts'; a full-object one (the default CRC64NVME
        // too) from the bytes, while they are streamed together below.
        let composite = match upload.checksum_algorithm {
            Some(a) if !upload.full_object => {
                let values: Vec<&str> = chosen
                    .iter()
                    .map(|p| p.checksum.as_ref().map_or("", |c| c.value.as_str()))
                    .collect();
                Some(Checksum {
                    algorithm: a,
                    value: checksum::composite(a, &values)?,
                    composite: true,
                })
            }
            _ => None,
        };
        let full_algorithm = upload.checksum_algorithm.unwrap_or(Algorithm::Crc64Nvme);
        let stored_parts: Vec<StoredPart> = chosen
            .iter()
            .map(|p| StoredPart {
                number: p.number,
                size: p.size,
                checksum: p
                    .checksum
                    .as_ref()
                    .filter(|c| Some(c.algorithm) == upload.checksum_algorithm)
                    .map(|c| c.value.clone()),
            })
            .collect();
        let record = ObjectRecord {
            key: key.clone(),
            size,
            etag: etag.clone(),
            last_modified_ms: self.now_ms(),
            blob: format!("obj-{}", id::uuid()),
            headers: upload.headers,
            metadata: upload.metadata,
            tags: upload.tags,
            storage_class: upload.storage_class,
            version_id: None,
            delete_marker: false,
            seq: 0,
            acl: upload.acl,
            checksum: composite.clone(),
            parts: stored_parts,
            customer_key_md5: upload.customer_key_md5,
            kms: upload.kms,
            ..ObjectRecord::default()
        };
        let upload_lock = upload.lock;
        let blobs: Vec<String> = chosen.iter().map(|p| p.blob.clone()).collect();
        let target = record.blob.clone();
        let digest = self
            .blocking(move |store| {
                let readers = blobs
                    .iter()
                    .map(|b| {
                        store
                            .open_blob(b)
                            .map_err(S3Error::storage)?
                            .ok_or_else(|| AwsError::internal(format!("part body {b} is missing")))
                    })
                    .collect::<Result<_, AwsError>>()?;
                let mut reader = Hashing {
                    inner: Concat { readers },
                    hasher: full_algorithm.hasher(),
                };
                store.put_blob(&target, &mut reader).map_err(S3Error::storage)?;
                Ok(reader.hasher.finish())
            })
            .await?;
        let mut record = record;
        let full = Checksum {
            algorithm: full_algorithm,
            value: checksum::encode(&digest),
            composite: false,
        };
        record.checksum = Some(composite.unwrap_or(full));
        if let Err(e) = check_object_checksum(&input, record.checksum.as_ref(), upload_algorithm, upload_full_object) {
            self.delete_blobs(vec![record.blob.clone()]).await?;
            return Err(e);
        }
        let (if_match, if_none_match) = (input.if_match, input.if_none_match);
        let new_blob = record.blob.clone();
        let now = self.now_ms();
        let stored = self
            .commit_blob(new_blob, move |tx| {
                load_upload(tx, &bucket, &upload_id, &key)?;
                let b = store::bucket(tx, &bucket)?;
                let previous = store::current(tx, &bucket, &key)?;
                crate::conditional_write(&key, previous.as_ref(), if_match.as_deref(), if_none_match.as_deref())?;
                let mut orphans = remove_upload(tx, &bucket, &upload_id)?;
                let mut record = record;
                upload_lock.apply(tx, &b, &mut record, now)?;
                let (stored, replaced) = versioning::put_version(tx, &b, record)?;
                orphans.extend(replaced);
                Ok((stored, orphans))
            })
            .await?;
        let mut output = CompleteMultipartUploadOutput {
            expiration: self.expiration(&input.bucket, &stored),
            location: Some(format!("/{}/{}", input.bucket, input.key)),
            bucket: Some(input.bucket),
            key: Some(input.key),
            e_tag: Some(etag),
            version_id: stored.version_header(),
            checksum_type: stored.checksum.as_ref().map(Checksum::checksum_type),
            server_side_encryption: crate::encryption::Reported::of(&stored).server_side_encryption,
            ..CompleteMultipartUploadOutput::default()
        };
        checksum::set_checksum_members!(output, stored.checksum.as_ref());
        Ok(output)
    }

    pub(crate) async fn abort_upload(&self, bucket: String, key: String, upload_id: String) -> Result<(), AwsError> {
        let orphans = self
            .write(move |tx| {
                load_upload(tx, &bucket, &upload_id, &key)?;
                remove_upload(tx, &bucket, &upload_id)
            })
            .await?;
        self.delete_blobs(orphans).await
    }

    pub(crate) async fn list_parts_of(&self, input: ListPartsRequest) -> Result<ListPartsOutput, AwsError> {
        let max = match input.max_parts {
            None => 1000,
            Some(n) if n < 0 => {
                return Err(S3Error::invalid_argument(
                    "Argument max-parts must be an integer between 0 and 2147483647",
                ))
            }
            Some(n) => (n as usize).min(1000),
        };
        let marker: i32 = match input.part_number_marker.as_deref() {
            None | Some("") => 0,
            Some(m) => m.parse().map_err(|_| {
                S3Error::invalid_argument("Argument part-number-marker must be an integer between 0 and 2147483647")
            })?,
        };
        let (b, k, u) = (input.bucket.clone(), input.key.clone(), input.upload_id.clone());
        let (upload, parts) = self
            .write(move |tx| Ok((load_upload(tx, &b, &u, &k)?, load_parts(tx, &b, &u)?)))
            .await?;
        let after: Vec<&PartRecord> = parts.iter().filter(|p| p.number > marker).collect();
        let truncated = after.len() > max;
        let page = &after[..after.len().min(max)];
        Ok(ListPartsOutput {
            bucket: Some(input.bucket),
            key: Some(input.key),
            upload_id: Some(input.upload_id),
            part_number_marker: Some(marker.to_string()),
            // 0 before any part, as AWS answers.
            next_part_number_marker: Some(page.last().map_or(0, |p| p.number).to_string()),
            max_parts: Some(max as i32),
            is_truncated: Some(truncated),
            parts: Some(
                page.iter()
                    .map(|p| {
                        let mut part = Part {
                            part_number: Some(p.number),
                            last_modified: Some(DateTime::from_secs(p.last_modified_ms.div_euclid(1000))),
                            e_tag: Some(p.etag.clone()),
                            size: Some(p.size as i64),
                            ..Part::default()
                        };
                        // A part's checksum is listed only in its upload's algorithm.
                        let checksum = p
                            .checksum
                            .as_ref()
                            .filter(|c| Some(c.algorithm) == upload.checksum_algorithm);
                        checksum::set_checksum_members!(part, checksum);
                        part
                    })
                    .collect(),
            ),
            initiator: Some(initiator(&upload.owner)),
            owner: Some(owner(&upload.owner)),
            storage_class: Some(StorageClass::from_wire(
                upload.storage_class.as_deref().unwrap_or("STANDARD"),
            )),
            checksum_algorithm: upload.checksum_algorithm.map(Algorithm::to_model),
            checksum_type: upload.checksum_algorithm.map(|_| upload_checksum_type(&upload)),
            ..ListPartsOutput::default()
        })
    }

    pub(crate) fn list_uploads_of(
        &self,
        input: ListMultipartUploadsRequest,
    ) -> Result<ListMultipartUploadsOutput, AwsError> {
        let max = match input.max_uploads {
            None => 1000,
            Some(n) if n < 0 => {
                return Err(S3Error::invalid_argument(
                    "Argument max-uploads must be an integer between 0 and 2147483647",
                ))
            }
            Some(n) => (n as usize).min(1000),
        };
        let db = self.store()?;
        store::bucket(&db, &input.bucket)?;
        let prefix = input.prefix.clone().unwrap_or_default();
        let mut uploads = uploads_of(&db, &input.bucket)?;
        uploads.retain(|u| u.key.starts_with(&prefix));
        uploads.sort_by(|a, b| (&a.key, a.initiated_ms).cmp(&(&b.key, b.initiated_ms)));
        if let Some(marker) = input.key_marker.as_deref().filter(|m| !m.is_empty()) {
            let upload_marker = input.upload_id_marker.as_deref().filter(|m| !m.is_empty());
            uploads.retain(|u| match upload_marker {
                Some(id) => u.key.as_str() > marker || (u.key == marker && u.upload_id.as_str() > id),
                None => u.key.as_str() > marker,
            });
        }
        let truncated = uploads.len() > max;
        uploads.truncate(max);
        Ok(ListMultipartUploadsOutput {
            bucket: Some(input.bucket),
            key_marker: Some(input.key_marker.unwrap_or_default()),
            upload_id_marker: Some(input.upload_id_marker.unwrap_or_default()),
            // Empty rather than absent when nothing is listed; the prefix only when one was given.
            next_key_marker: Some(uploads.last().map(|u| u.key.clone()).unwrap_or_default()),
            next_upload_id_marker: Some(uploads.last().map(|u| u.upload_id.clone()).unwrap_or_default()),
            prefix: input.prefix.clone(),
            delimiter: input.delimiter,
            max_uploads: Some(max as i32),
            is_truncated: Some(truncated),
            uploads: (!uploads.is_empty()).then(|| {
                uploads
                    .iter()
                    .map(|u| MultipartUpload {
                        upload_id: Some(u.upload_id.clone()),
                        key: Some(u.key.clone()),
                        initiated: Some(DateTime::from_secs(u.initiated_ms.div_euclid(1000))),
                        storage_class: Some(StorageClass::from_wire(
                            u.storage_class.as_deref().unwrap_or("STANDARD"),
                        )),
                        owner: Some(owner(&u.owner)),
                        initiator: Some(initiator(&u.owner)),
                        checksum_algorithm: u.checksum_algorithm.map(Algorithm::to_model),
                        checksum_type: u.checksum_algorithm.map(|_| upload_checksum_type(u)),
                    })
                    .collect()
            }),
            encoding_type: input.encoding_type,
            ..ListMultipartUploadsOutput::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(number: i32, etag: &str, size: u64) -> PartRecord {
        PartRecord {
            number,
            etag: etag.into(),
            size,
            blob: String::new(),
            last_modified_ms: 0,
            checksum: None,
        }
    }

    // The composite ETag as AWS computes it (MD5 of the concatenated binary part MD5s).
    #[test]
    fn composite_etag() {
        let a = object::etag(b"a");
        let b = object::etag(b"b");
        let mut joined = Md5::digest(b"a").to_vec();
        joined.extend_from_slice(&Md5::digest(b"b"));
        let expected = hex::encode(&Md5::digest(&joined));
        assert_eq!(multipart_etag(&[&a, &b]).unwrap(), format!("\"{expected}-2\""));
    }

    #[test]
    fn completion_rules() {
        let big = MIN_PART_SIZE;
        let uploaded = [part(1, "\"aa\"", big), part(2, "\"bb\"", 1), part(3, "\"cc\"", 1)];
        assert!(chosen_parts("u", &[(1, "aa".into()), (2, "\"bb\"".into())], &uploaded).is_ok());
        let code = |r: Result<Vec<PartRecord>, AwsError>| r.unwrap_err().code;
        assert_eq!(
            code(chosen_parts("u", &[(2, "bb".into()), (1, "aa".into())], &uploaded)),
            "InvalidPartOrder"
        );
        assert_eq!(code(chosen_parts("u", &[(1, "zz".into())], &uploaded)), "InvalidPart");
        assert_eq!(
            code(chosen_parts("u", &[(2, "bb".into()), (3, "cc".into())], &uploaded)),
            "EntityTooSmall"
        );
        assert_eq!(code(chosen_parts("u", &[], &uploaded)), "MalformedXML");
    }

    #[test]
    fn concat_reads_in_order() {
        let mut all = String::new();
        Concat {
            readers: [&b"ab"[..], &b""[..], &b"cd"[..]].into_iter().collect(),
        }
        .read_to_string(&mut all)
        .unwrap();
        assert_eq!(all, "abcd");
    }
}
