//! A POST upload's form fields as S3 reads them (POST Object in the S3 API reference; "Creating
//! an HTML Form (Using AWS Signature Version 4)"): names match whatever their case, a field
//! sent twice has its values joined by commas, `${filename}` becomes the uploaded file's name,
//! and the fields PutObject takes as headers become its input.

use std::collections::BTreeMap;

use stratus_core::AwsError;
use stratus_gen_s3::{ChecksumAlgorithm, ObjectCannedACL, PutObjectRequest, StorageClass};

use super::multipart::Field;
use super::{policy, tagging};
use crate::error::S3Error;
use crate::listing;

/// The fields SigV4 and SigV2 sign a policy with, as S3 names them when one is missing.
const SIGV4: [&str; 4] = ["X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Signature"];
const SIGV2: [&str; 2] = ["AWSAccessKeyId", "Signature"];

/// How a form authenticates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Auth {
    /// No signature fields: anonymous, which only a publicly writable bucket accepts.
    Anonymous,
    /// A signed policy (the signature is not verified, as no Stratus signature is).
    Signed,
}

/// The fields of a form, before its file.
#[derive(Debug)]
pub(crate) struct Fields {
    /// Names as sent, values with `${filename}` expanded, one entry per name.
    fields: Vec<Field>,
    /// The bucket addressed, which a policy's `bucket` condition is about.
    bucket: String,
}

impl Fields {
    /// The fields `sent` to `bucket` with a file named `filename`: when the file part names
    /// a file, `${filename}` in any field becomes its name without a path; without a
    /// `filename` parameter the variable stays as sent (LocalStack's AWS-validated recording
    /// of a file part without one shows S3 keeping it).
    pub(crate) fn new(sent: Vec<Field>, bucket: &str, filename: Option<&str>) -> Fields {
        let base = filename.map(|name| name.rsplit(['/', '\\']).next().unwrap_or_default());
        let mut fields: Vec<Field> = Vec::with_capacity(sent.len());
        for field in sent {
            let value = match base {
                Some(base) => field.value.replace("${filename}", base),
                None => field.value,
            };
            // "If you have multiple fields with the same name, the values must be separated
            // by commas" (HTTPPOSTForms, Signature Version 2).
            match fields.iter_mut().find(|f| f.name.eq_ignore_ascii_case(&field.name)) {
                Some(earlier) => {
                    earlier.value.push(',');
                    earlier.value.push_str(&value);
                }
                None => fields.push(Field {
                    name: field.name,
                    value,
                }),
            }
        }
        Fields {
            fields,
            bucket: bucket.to_owned(),
        }
    }

    /// The value of field `name`, whatever the case of either.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(name))
            .map(|f| f.value.as_str())
    }

    /// The object key: the `key` field, which must be sent before the file and not be empty.
    pub(crate) fn key(&self) -> Result<&str, AwsError> {
        self.get("key").filter(|k| !k.is_empty()).ok_or_else(|| missing("key"))
    }

    /// How the form authenticates: signed when it carries any signature field, in which case
    /// it must carry all of them and the policy (LocalStack's AWS-validated recordings of
    /// forms missing signature fields: the first missing field is named, the algorithm before
    /// the credential).
    pub(crate) fn auth(&self) -> Result<Auth, AwsError> {
        let complete = |names: &[&'static str]| match names.iter().find(|n| self.get(n).is_none()) {
            Some(name) => Err(missing(name)),
            None => self
                .get("policy")
                .map(|_| Auth::Signed)
                .ok_or_else(|| missing("Policy")),
        };
        if SIGV4.iter().any(|n| self.get(n).is_some()) {
            complete(&SIGV4)
        } else if SIGV2.iter().any(|n| self.get(n).is_some()) {
            complete(&SIGV2)
        } else {
            Ok(Auth::Anonymous)
        }
    }

    /// The success redirect: `success_action_redirect` (or the deprecated `redirect`), when it
    /// is an absolute URL ("If Amazon S3 cannot interpret the URL, it acts as if the field is
    /// not present"; a relative one got 204 in LocalStack's AWS-validated recording).
    pub(crate) fn redirect(&self) -> Option<&str> {
        self.get("success_action_redirect")
            .or_else(|| self.get("redirect"))
            .filter(|url| url.starts_with("http://") || url.starts_with("https://"))
    }

    /// PutObject's input for the upload of `key` to the bucket: the fields PutObject takes as
    /// headers, and `tagging`'s XML as its tag header.
    pub(crate) fn put_request(&self, key: &str) -> Result<PutObjectRequest, AwsError> {
        let text = |name: &str| self.get(name).map(str::to_owned);
        let metadata: BTreeMap<String, String> = self
            .fields
            .iter()
            .filter_map(|f| {
                let name = f.name.to_ascii_lowercase();
                let meta = name.strip_prefix("x-amz-meta-")?.to_owned();
                Some((meta, f.value.clone()))
            })
            .collect();
        let tagging = match self.get("tagging") {
            Some(document) => Some(tag_header(document)?),
            None => None,
        };
        Ok(PutObjectRequest {
            bucket: self.bucket.clone(),
            key: key.to_owned(),
            acl: self.get("acl").map(ObjectCannedACL::from_wire),
            cache_control: text("Cache-Control"),
            content_type: text("Content-Type"),
            content_disposition: text("Content-Disposition"),
            content_encoding: text("Content-Encoding"),
            content_md5: text("Content-MD5"),
            expires: text("Expires"),
            metadata: (!metadata.is_empty()).then_some(metadata),
            storage_class: self.get("x-amz-storage-class").map(StorageClass::from_wire),
            tagging,
            checksum_algorithm: self.get("x-amz-checksum-algorithm").map(ChecksumAlgorithm::from_wire),
            checksum_crc32: text("x-amz-checksum-crc32"),
            checksum_crc32_c: text("x-amz-checksum-crc32c"),
            checksum_crc64_nvme: text("x-amz-checksum-crc64nvme"),
            checksum_sha1: text("x-amz-checksum-sha1"),
            checksum_sha256: text("x-amz-checksum-sha256"),
            checksum_sha512: text("x-amz-checksum-sha512"),
            checksum_md5: text("x-amz-checksum-md5"),
            checksum_xxhash64: text("x-amz-checksum-xxhash64"),
            checksum_xxhash3: text("x-amz-checksum-xxhash3"),
            checksum_xxhash128: text("x-amz-checksum-xxhash128"),
            ..PutObjectRequest::default()
        })
    }
}

impl policy::Form for Fields {
    fn value(&self, name: &str) -> Option<&str> {
        match name {
            "bucket" => Some(&self.bucket),
            _ => self.get(name),
        }
    }

    /// Every field but those the policy pages exempt: "except x-amz-signature, file, policy,
    /// and field names that have an x-ignore- prefix" (SigV4), "AWSAccessKeyId, signature"
    /// (SigV2).
    fn covered_names(&self) -> Vec<&str> {
        const EXEMPT: [&str; 5] = ["x-amz-signature", "file", "policy", "awsaccesskeyid", "signature"];
        self.fields
            .iter()
            .map(|f| f.name.as_str())
            .filter(|name| {
                let lower = name.to_ascii_lowercase();
                !EXEMPT.contains(&lower.as_str()) && !lower.starts_with("x-ignore-")
            })
            .collect()
    }
}

/// S3's answer to a form without field `name` (issue threads from 2014 to 2020 quote it, two
/// spaces and all, with `ArgumentName` and an empty `ArgumentValue`).
pub(crate) fn missing(name: &str) -> AwsError {
    S3Error::invalid_argument(format!(
        "Bucket POST must contain a field named '{name}'.  If it is specified, please check the order of the fields."
    ))
    .with_detail("ArgumentName", name)
    .with_detail("ArgumentValue", "")
}

/// The `tagging` document as PutObject's `x-amz-tagging` header (URL-encoded `k=v&k2=v2`).
fn tag_header(document: &str) -> Result<String, AwsError> {
    let tags = tagging::parse(document).ok_or_else(S3Error::malformed_xml)?;
    let pairs: Vec<String> = tags
        .iter()
        .map(|(k, v)| format!("{}={}", listing::url_encode(k), listing::url_encode(v)))
        .collect();
    Ok(pairs.join("&"))
}

#[cfg(test)]
impl Fields {
    /// The fields of a form that sent `pairs`, for tests.
    pub(crate) fn of_pairs(pairs: &[(&str, &str)], bucket: &str, filename: Option<&str>) -> Fields {
        let sent = pairs
            .iter()
            .map(|(n, v)| Field {
                name: n.to_string(),
                value: v.to_string(),
            })
            .collect();
        Fields::new(sent, bucket, filename)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::parse_tagging_header;
    use crate::post::policy::Form;

    fn fields(pairs: &[(&str, &str)], filename: Option<&str>) -> Fields {
        Fields::of_pairs(pairs, "bucket", filename)
    }

    #[test]
    fn names_match_in_any_case_and_filenames_expand() {
        let f = fields(
            &[
                ("KEY", "uploads/${filename}"),
                ("x-amz-meta-Tag", "a"),
                ("X-AMZ-META-TAG", "b"),
            ],
            Some("C:\\Users\\me/photo.jpg"),
        );
        assert_eq!(f.key().unwrap(), "uploads/photo.jpg");
        assert_eq!(f.get("x-amz-meta-tag"), Some("a,b"));
        let literal = fields(&[("key", "k-${filename}")], None);
        assert_eq!(literal.key().unwrap(), "k-${filename}");
        assert_eq!(f.value("bucket"), Some("bucket"));
    }

    #[test]
    fn missing_fields_are_named() {
        let error = fields(&[("key", "")], None).key().unwrap_err();
        assert_eq!(
            error.message,
            "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields."
        );
        assert_eq!(error.details[0], ("ArgumentName", "key".to_string()));
        let sigv4 = [("x-amz-credential", "c"), ("x-amz-date", "d"), ("policy", "p")];
        assert!(fields(&sigv4, None)
            .auth()
            .unwrap_err()
            .message
            .contains("'X-Amz-Algorithm'"));
        let all = [
            ("X-Amz-Algorithm", "a"),
            ("x-amz-credential", "c"),
            ("x-amz-date", "d"),
            ("Policy", "p"),
        ];
        assert!(fields(&all, None)
            .auth()
            .unwrap_err()
            .message
            .contains("'X-Amz-Signature'"));
        let signed = [&all[..], &[("x-amz-signature", "s")][..]].concat();
        assert_eq!(fields(&signed, None).auth().unwrap(), Auth::Signed);
        assert!(fields(&[("awsaccesskeyid", "a"), ("policy", "p")], None)
            .auth()
            .unwrap_err()
            .message
            .contains("'Signature'"));
        assert_eq!(
            fields(&[("key", "k"), ("policy", "p")], None).auth().unwrap(),
            Auth::Anonymous
        );
    }

    #[test]
    fn exempt_fields_need_no_condition() {
        let f = fields(
            &[
                ("key", "k"),
                ("Policy", "p"),
                ("X-Amz-Signature", "s"),
                ("x-ignore-me", "1"),
                ("Bucket", "b"),
            ],
            None,
        );
        assert_eq!(f.covered_names(), vec!["key", "Bucket"]);
    }

    #[test]
    fn fields_become_put_object_headers() {
        let f = fields(
            &[
                ("Content-Type", "text/plain"),
                ("x-amz-meta-Colour", "blue"),
                ("x-amz-storage-class", "STANDARD_IA"),
                (
                    "tagging",
                    "<Tagging><TagSet><Tag><Key>a b&amp;c</Key><Value>1=2</Value></Tag></TagSet></Tagging>",
                ),
            ],
            None,
        );
        let input = f.put_request("k").unwrap();
        assert_eq!(input.content_type.as_deref(), Some("text/plain"));
        assert_eq!(input.metadata.unwrap()["colour"], "blue");
        assert_eq!(input.storage_class, Some(StorageClass::StandardIa));
        let tags = parse_tagging_header(&input.tagging.unwrap()).unwrap();
        assert_eq!(tags["a b&c"], "1=2");
        let bad = fields(&[("tagging", "not-xml")], None).put_request("k").unwrap_err();
        assert_eq!(bad.code, "MalformedXML");
    }

    #[test]
    fn redirects_must_be_absolute() {
        assert_eq!(
            fields(&[("redirect", "https://a/b")], None).redirect(),
            Some("https://a/b")
        );
        assert_eq!(
            fields(&[("success_action_redirect", "/relative")], None).redirect(),
            None
        );
    }
}
