//! Additional checksums: CRC32, CRC32C, CRC64NVME, SHA1 and SHA256.
//!
//! A write may carry one checksum, in an `x-amz-checksum-<algorithm>` header or in an
//! aws-chunked body's trailer (see [`crate::chunked`]) announced by `x-amz-trailer`; it is
//! checked against the body and stored with the object. An object written without one
//! gets CRC64NVME, as on AWS since December 2024. Values are base64 of the digest, CRCs
//! big-endian (as the SDKs compute them). Reads return the stored checksum when asked with
//! `x-amz-checksum-mode: ENABLED`.
//!
//! A multipart upload's checksum is either COMPOSITE — the algorithm over the concatenated
//! binary part checksums, a dash and the part count — or FULL_OBJECT, the checksum of the whole
//! object (CRC algorithms only; CRC64NVME is always full-object).
//!
//! Messages are AWS's: `BadDigest` "The CRC32 you specified did not match the calculated
//! checksum." and the `InvalidRequest` wordings below (as recorded by S3-compatible servers'
//! parity tests: Ceph/OpenStack Swift s3api, Scality CloudServer, LocalStack).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use crc::{Crc, Table, CRC_32_ISCSI, CRC_32_ISO_HDLC, CRC_64_NVME};
use serde::{Deserialize, Serialize};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use stratus_core::AwsError;
use stratus_gen_s3::{ChecksumAlgorithm, ChecksumType};

use crate::error::S3Error;

static CRC32: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);
static CRC32C: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);
static CRC64NVME: Crc<u64, Table<16>> = Crc::<u64, Table<16>>::new(&CRC_64_NVME);

/// A checksum algorithm S3 verifies and stores.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "UPPERCASE")]
pub enum Algorithm {
    Crc32,
    Crc32c,
    Crc64Nvme,
    Sha1,
    Sha256,
}

impl Algorithm {
    /// In the order of the `x-amz-checksum-*` members of every input and output.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Crc32,
        Algorithm::Crc32c,
        Algorithm::Crc64Nvme,
        Algorithm::Sha1,
        Algorithm::Sha256,
    ];

    /// AWS's name: `CRC32`, `CRC32C`, `CRC64NVME`, `SHA1`, `SHA256`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Crc32 => "CRC32",
            Algorithm::Crc32c => "CRC32C",
            Algorithm::Crc64Nvme => "CRC64NVME",
            Algorithm::Sha1 => "SHA1",
            Algorithm::Sha256 => "SHA256",
        }
    }

    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name().eq_ignore_ascii_case(name))
    }

    /// The header (and trailer) that carries a value: `x-amz-checksum-crc32`.
    pub fn header(self) -> String {
        format!("x-amz-checksum-{}", self.name().to_ascii_lowercase())
    }

    pub fn from_model(algorithm: &ChecksumAlgorithm) -> Option<Algorithm> {
        Algorithm::from_name(algorithm.as_str())
    }

    pub fn to_model(self) -> ChecksumAlgorithm {
        ChecksumAlgorithm::from_wire(self.name())
    }

    fn digest_len(self) -> usize {
        match self {
            Algorithm::Crc32 | Algorithm::Crc32c => 4,
            Algorithm::Crc64Nvme => 8,
            Algorithm::Sha1 => 20,
            Algorithm::Sha256 => 32,
        }
    }

    /// Whether a multipart upload may use it FULL_OBJECT (the CRCs) or COMPOSITE (all but
    /// CRC64NVME).
    pub fn allows(self, full_object: bool) -> bool {
        match self {
            Algorithm::Crc32 | Algorithm::Crc32c => true,
            Algorithm::Crc64Nvme => full_object,
            Algorithm::Sha1 | Algorithm::Sha256 => !full_object,
        }
    }

    pub fn hasher(self) -> Hasher {
        match self {
            Algorithm::Crc32 => Hasher::Crc32(CRC32.digest()),
            Algorithm::Crc32c => Hasher::Crc32(CRC32C.digest()),
            Algorithm::Crc64Nvme => Hasher::Crc64(CRC64NVME.digest()),
            Algorithm::Sha1 => Hasher::Sha1(Sha1::new()),
            Algorithm::Sha256 => Hasher::Sha256(Sha256::new()),
        }
    }

    /// The binary digest of `data`.
    #[cfg(test)]
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        let mut h = self.hasher();
        h.update(data);
        h.finish()
    }
}

/// A running checksum.
pub enum Hasher {
    Crc32(crc::Digest<'static, u32, Table<16>>),
    Crc64(crc::Digest<'static, u64, Table<16>>),
    Sha1(Sha1),
    Sha256(Sha256),
}

impl Hasher {
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Crc32(d) => d.update(data),
            Hasher::Crc64(d) => d.update(data),
            Hasher::Sha1(d) => d.update(data),
            Hasher::Sha256(d) => d.update(data),
        }
    }

    pub fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Crc32(d) => d.finalize().to_be_bytes().to_vec(),
            Hasher::Crc64(d) => d.finalize().to_be_bytes().to_vec(),
            Hasher::Sha1(d) => d.finalize().to_vec(),
            Hasher::Sha256(d) => d.finalize().to_vec(),
        }
    }
}

pub fn encode(digest: &[u8]) -> String {
    STANDARD.encode(digest)
}

/// A stored checksum: its algorithm, its value as AWS answers it (base64, with `-N` for a
/// composite one) and whether it covers the whole object.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Checksum {
    pub algorithm: Algorithm,
    pub value: String,
    #[serde(default)]
    pub composite: bool,
}

impl Checksum {
    /// The full-object checksum of `data`.
    #[cfg(test)]
    pub fn of(algorithm: Algorithm, data: &[u8]) -> Checksum {
        Checksum {
            algorithm,
            value: encode(&algorithm.digest(data)),
            composite: false,
        }
    }

    pub fn checksum_type(&self) -> ChecksumType {
        if self.composite {
            ChecksumType::Composite
        } else {
            ChecksumType::FullObject
        }
    }
}

/// The value of each algorithm's member, for an output (only `checksum`'s is set).
#[derive(Default)]
pub struct Members {
    pub crc32: Option<String>,
    pub crc32c: Option<String>,
    pub crc64nvme: Option<String>,
    pub sha1: Option<String>,
    pub sha256: Option<String>,
}

impl Members {
    pub fn of(checksum: Option<&Checksum>) -> Members {
        let mut m = Members::default();
        if let Some(c) = checksum {
            let slot = match c.algorithm {
                Algorithm::Crc32 => &mut m.crc32,
                Algorithm::Crc32c => &mut m.crc32c,
                Algorithm::Crc64Nvme => &mut m.crc64nvme,
                Algorithm::Sha1 => &mut m.sha1,
                Algorithm::Sha256 => &mut m.sha256,
            };
            *slot = Some(c.value.clone());
        }
        m
    }
}

/// Sets the `checksum_*` members of an output struct to `$checksum` (an `Option<&Checksum>`).
macro_rules! set_checksum_members {
    ($target:expr, $checksum:expr) => {{
        let m = $crate::checksum::Members::of($checksum);
        $target.checksum_crc32 = m.crc32;
        $target.checksum_crc32_c = m.crc32c;
        $target.checksum_crc64_nvme = m.crc64nvme;
        $target.checksum_sha1 = m.sha1;
        $target.checksum_sha256 = m.sha256;
    }};
}
pub(crate) use set_checksum_members;

/// The `checksum_*` members of an input, in [`Algorithm::ALL`]'s order.
macro_rules! checksum_members {
    ($input:expr) => {
        [
            $input.checksum_crc32.as_deref(),
            $input.checksum_crc32_c.as_deref(),
            $input.checksum_crc64_nvme.as_deref(),
            $input.checksum_sha1.as_deref(),
            $input.checksum_sha256.as_deref(),
        ]
    };
}
pub(crate) use checksum_members;

fn invalid_request(message: impl Into<String>) -> AwsError {
    AwsError::new("InvalidRequest", message, 400)
}

pub fn bad_digest(algorithm: Algorithm) -> AwsError {
    AwsError::new(
        "BadDigest",
        format!(
            "The {} you specified did not match the calculated checksum.",
            algorithm.name()
        ),
        400,
    )
}

/// The binary digest a base64 value names, if it is one of `algorithm`'s length.
fn decode_value(algorithm: Algorithm, value: &str) -> Option<Vec<u8>> {
    STANDARD
        .decode(value.trim())
        .ok()
        .filter(|d| d.len() == algorithm.digest_len())
}

/// The algorithm `x-amz-sdk-checksum-algorithm` names, refusing one S3 does not know.
pub fn sdk_algorithm(given: Option<&ChecksumAlgorithm>) -> Result<Option<Algorithm>, AwsError> {
    match given {
        None => Ok(None),
        Some(a) => Algorithm::from_model(a).map(Some).ok_or_else(|| {
            invalid_request(
                "Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]",
            )
        }),
    }
}

/// Refuses a second checksum value for one body.
pub fn multiple_values() -> AwsError {
    invalid_request("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
}

fn invalid_value(algorithm: Algorithm) -> AwsError {
    invalid_request(format!("Value for {} header is invalid.", algorithm.header()))
}

/// The checksum a request sends for its body.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// In an `x-amz-checksum-*` header: the expected binary digest.
    Header(Algorithm, Vec<u8>),
    /// In the aws-chunked trailer `x-amz-trailer` announces, which comes after the body.
    Trailer(Algorithm),
}

impl Sent {
    pub fn algorithm(&self) -> Algorithm {
        match self {
            Sent::Header(a, _) | Sent::Trailer(a) => *a,
        }
    }

    /// The expected binary digest, given the checksum the body's trailer carried (see
    /// [`crate::chunked::Decoder::into_checksum`]).
    pub fn digest(&self, trailer: Option<&(Algorithm, String)>) -> Result<Vec<u8>, AwsError> {
        match (self, trailer) {
            (Sent::Header(_, digest), _) => Ok(digest.clone()),
            (Sent::Trailer(algorithm), Some((carried, value))) if carried == algorithm => {
                decode_value(*algorithm, value).ok_or_else(|| invalid_value(*algorithm))
            }
            (Sent::Trailer(_), _) => Err(S3Error::malformed_trailer()),
        }
    }
}

/// The checksum a request sends for its body: at most one, in a header or in the trailer
/// `x-amz-trailer` announces (`trailer`), a header's well-formed, and of the algorithm
/// `x-amz-sdk-checksum-algorithm` names.
pub fn requested(
    sdk: Option<&ChecksumAlgorithm>,
    headers: [Option<&str>; 5],
    trailer: Option<Algorithm>,
) -> Result<Option<Sent>, AwsError> {
    let sdk = sdk_algorithm(sdk)?;
    let mut given = Algorithm::ALL
        .into_iter()
        .zip(headers)
        .filter_map(|(a, v)| v.map(|v| (a, Some(v))))
        .chain(trailer.map(|a| (a, None)));
    let Some((algorithm, value)) = given.next() else {
        return match sdk {
            Some(_) => Err(invalid_request(
                "x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.",
            )),
            None => Ok(None),
        };
    };
    if given.next().is_some() {
        return Err(multiple_values());
    }
    let sent = match value {
        Some(value) => Sent::Header(
            algorithm,
            decode_value(algorithm, value).ok_or_else(|| invalid_value(algorithm))?,
        ),
        None => Sent::Trailer(algorithm),
    };
    if sdk.is_some_and(|s| s != algorithm) {
        return Err(invalid_request(
            "Value for x-amz-sdk-checksum-algorithm header is invalid.",
        ));
    }
    Ok(Some(sent))
}

/// A multipart upload's composite checksum: `algorithm` over the concatenated binary part
/// checksums (each given base64), base64, a dash and the number of parts.
pub fn composite(algorithm: Algorithm, parts: &[&str]) -> Result<String, AwsError> {
    let mut h = algorithm.hasher();
    for part in parts {
        let digest = decode_value(algorithm, part)
            .ok_or_else(|| AwsError::internal(format!("stored part checksum {part} is not a {}", algorithm.name())))?;
        h.update(&digest);
    }
    Ok(format!("{}-{}", encode(&h.finish()), parts.len()))
}

/// The checksum type a multipart upload asks for, checked against its algorithm.
pub fn upload_type(algorithm: Option<Algorithm>, given: Option<&ChecksumType>) -> Result<Option<bool>, AwsError> {
    let full_object = match given {
        None => None,
        Some(ChecksumType::FullObject) => Some(true),
        Some(ChecksumType::Composite) => Some(false),
        Some(ChecksumType::Unknown(v)) => {
            return Err(invalid_request(format!(
                "Value for x-amz-checksum-type header is invalid: {v}"
            )))
        }
    };
    match (algorithm, full_object) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(invalid_request(
            "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.",
        )),
        (Some(a), None) => Ok(Some(a == Algorithm::Crc64Nvme)),
        (Some(a), Some(full)) if a.allows(full) => Ok(Some(full)),
        (Some(a), Some(full)) => Err(invalid_request(format!(
            "The {} checksum type cannot be used with the {} checksum algorithm.",
            if full { "FULL_OBJECT" } else { "COMPOSITE" },
            a.name().to_ascii_lowercase()
        ))),
    }
}

/// A part's checksum under an upload created with `expected` (if any): the one it was sent
/// with must be that algorithm's.
pub fn part_mismatch(expected: Algorithm, sent: Algorithm) -> AwsError {
    invalid_request(format!(
        "Checksum Type mismatch occurred, expected checksum Type: {}, actual checksum Type: {}",
        expected.name().to_ascii_lowercase(),
        sent.name().to_ascii_lowercase()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values for b"hello world": CRC32 from zlib, CRC32C and CRC64NVME from bitwise
    // reference implementations (reflected polynomials 0x82F63B78, 0x9A6C9329AC4BC9B5),
    // SHA1/SHA256 from hashlib, each big-endian and base64 as the SDKs send them.
    #[test]
    fn known_values() {
        let of = |a: Algorithm| Checksum::of(a, b"hello world").value;
        assert_eq!(of(Algorithm::Crc32), "DUoRhQ==");
        assert_eq!(of(Algorithm::Crc32c), "yZRlqg==");
        assert_eq!(of(Algorithm::Crc64Nvme), "jSnVw/bqjr4=");
        assert_eq!(of(Algorithm::Sha1), "Kq5sNclPz7QV2+lfQIuc6R7oRu0=");
        assert_eq!(of(Algorithm::Sha256), "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=");
    }

    #[test]
    fn requests_are_checked() {
        let crc = Checksum::of(Algorithm::Crc32, b"abc").value;
        let none = [None; 5];
        let code = |r: Result<Option<Sent>, AwsError>| r.unwrap_err().code;
        let header = Sent::Header(Algorithm::Crc32, Algorithm::Crc32.digest(b"abc"));
        assert_eq!(
            requested(None, [Some(&crc), None, None, None, None], None).unwrap(),
            Some(header.clone())
        );
        assert_eq!(
            code(requested(None, [Some("xx"), None, None, None, None], None)),
            "InvalidRequest"
        );
        assert_eq!(
            code(requested(Some(&ChecksumAlgorithm::Crc32), none, None)),
            "InvalidRequest"
        );
        assert_eq!(
            code(requested(None, [Some(&crc), Some(&crc), None, None, None], None)),
            "InvalidRequest"
        );
        assert_eq!(
            code(requested(
                None,
                [Some(&crc), None, None, None, None],
                Some(Algorithm::Crc32)
            )),
            "InvalidRequest"
        );
        assert_eq!(
            code(requested(Some(&ChecksumAlgorithm::Sha1), none, Some(Algorithm::Crc32))),
            "InvalidRequest"
        );
        let trailer = requested(Some(&ChecksumAlgorithm::Crc32), none, Some(Algorithm::Crc32))
            .unwrap()
            .unwrap();
        assert_eq!(trailer, Sent::Trailer(Algorithm::Crc32));
        assert_eq!(requested(None, none, None).unwrap(), None);

        // The digest: a header's, or the trailer's once the body has been read.
        let digest = Algorithm::Crc32.digest(b"abc");
        assert_eq!(header.digest(None).unwrap(), digest);
        assert_eq!(trailer.digest(Some(&(Algorithm::Crc32, crc.clone()))).unwrap(), digest);
        let error = |carried: Option<(Algorithm, String)>| trailer.digest(carried.as_ref()).unwrap_err().code;
        assert_eq!(error(Some((Algorithm::Crc32, "xx".into()))), "InvalidRequest");
        assert_eq!(error(Some((Algorithm::Sha1, crc.clone()))), "MalformedTrailerError");
        assert_eq!(error(None), "MalformedTrailerError");
    }

    // The composite checksum as the AWS user guide describes it ("Checking object integrity":
    // the checksum of the concatenated part checksums, then -N).
    #[test]
    fn composite_checksum() {
        let a = Checksum::of(Algorithm::Sha256, b"part one").value;
        let b = Checksum::of(Algorithm::Sha256, b"part two").value;
        let mut joined = Sha256::digest(b"part one").to_vec();
        joined.extend_from_slice(&Sha256::digest(b"part two"));
        let expected = format!("{}-2", encode(&Sha256::digest(&joined)));
        assert_eq!(composite(Algorithm::Sha256, &[&a, &b]).unwrap(), expected);
        assert!(composite(Algorithm::Sha256, &["AAAA"]).is_err());
    }

    #[test]
    fn upload_types() {
        assert_eq!(upload_type(Some(Algorithm::Crc64Nvme), None).unwrap(), Some(true));
        assert_eq!(upload_type(Some(Algorithm::Sha1), None).unwrap(), Some(false));
        assert!(upload_type(Some(Algorithm::Sha1), Some(&ChecksumType::FullObject)).is_err());
        assert!(upload_type(Some(Algorithm::Crc64Nvme), Some(&ChecksumType::Composite)).is_err());
        assert!(upload_type(None, Some(&ChecksumType::Composite)).is_err());
        assert_eq!(upload_type(None, None).unwrap(), None);
    }
}
