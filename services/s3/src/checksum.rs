//! Additional checksums: CRC32, CRC32C, CRC64NVME, SHA1, SHA256, SHA512, MD5, XXHASH64,
//! XXHASH3 and XXHASH128.
//!
//! A write may carry one checksum, in an `x-amz-checksum-<algorithm>` header or in an
//! aws-chunked body's trailer (see [`crate::chunked`]) announced by `x-amz-trailer`; it is
//! checked against the body and stored with the object. An object written without one
//! gets CRC64NVME, as on AWS since December 2024. Values are base64 of the digest, CRCs and
//! xxHashes big-endian (as the SDKs compute them; the xxHashes with seed 0). Reads return the
//! stored checksum when asked with `x-amz-checksum-mode: ENABLED`.
//!
//! A multipart upload's checksum is either COMPOSITE — the algorithm over the concatenated
//! binary part checksums, a dash and the part count — or FULL_OBJECT, the checksum of the whole
//! object (CRC algorithms only; CRC64NVME is always full-object).
//!
//! What differs between algorithms — name, digest length, the multipart checksum types they
//! allow — is one table, [`Algorithm::properties`]; the `checksum_*` members of inputs and
//! outputs are read and written in [`Algorithm::ALL`]'s order by two macros.
//!
//! Messages are AWS's: `BadDigest` "The CRC32 you specified did not match the calculated
//! checksum." and the `InvalidRequest` wordings below (as recorded by S3-compatible servers'
//! parity tests: Ceph/OpenStack Swift s3api, Scality CloudServer, LocalStack).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use crc::{Crc, Table, CRC_32_ISCSI, CRC_32_ISO_HDLC, CRC_64_NVME};
use md5::Md5;
use serde::{Deserialize, Serialize};
use sha1::Sha1;
use sha2::digest::DynDigest;
use sha2::{Digest, Sha256, Sha512};
use stratus_core::AwsError;
use stratus_gen_s3::{ChecksumAlgorithm, ChecksumType};
use xxhash_rust::xxh3::Xxh3;
use xxhash_rust::xxh64::Xxh64;

use crate::error::S3Error;

static CRC32: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);
static CRC32C: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);
static CRC64NVME: Crc<u64, Table<16>> = Crc::<u64, Table<16>>::new(&CRC_64_NVME);

/// How many algorithms S3 knows.
pub(crate) const COUNT: usize = 10;

/// A checksum algorithm S3 verifies and stores.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Algorithm {
    Crc32,
    Crc32c,
    Crc64Nvme,
    Sha1,
    Sha256,
    Sha512,
    Md5,
    XxHash64,
    XxHash3,
    XxHash128,
}

/// What S3 says of an algorithm.
pub(crate) struct Properties {
    /// AWS's name: `CRC32`, `XXHASH64`.
    pub name: &'static str,
    /// The header (and trailer) that carries a value.
    pub header: &'static str,
    /// The length of the binary digest, in bytes.
    pub digest_len: usize,
    /// Whether a multipart upload may use it FULL_OBJECT (the CRCs, which combine over parts).
    pub full_object: bool,
    /// Whether a multipart upload may use it COMPOSITE (all but CRC64NVME).
    pub composite: bool,
}

impl Algorithm {
    /// In the order of the `x-amz-checksum-*` members of every input and output.
    pub(crate) const ALL: [Algorithm; COUNT] = [
        Algorithm::Crc32,
        Algorithm::Crc32c,
        Algorithm::Crc64Nvme,
        Algorithm::Sha1,
        Algorithm::Sha256,
        Algorithm::Sha512,
        Algorithm::Md5,
        Algorithm::XxHash64,
        Algorithm::XxHash3,
        Algorithm::XxHash128,
    ];

    /// The table of algorithms. That the new ones (SHA512, MD5, the xxHashes) are COMPOSITE
    /// only follows the model's part members, which each say "present if the multipart upload
    /// request was created with the … checksum algorithm", and that only CRCs combine.
    pub(crate) const fn properties(self) -> Properties {
        const fn row(
            name: &'static str,
            header: &'static str,
            digest_len: usize,
            full_object: bool,
            composite: bool,
        ) -> Properties {
            Properties {
                name,
                header,
                digest_len,
                full_object,
                composite,
            }
        }
        match self {
            Algorithm::Crc32 => row("CRC32", "x-amz-checksum-crc32", 4, true, true),
            Algorithm::Crc32c => row("CRC32C", "x-amz-checksum-crc32c", 4, true, true),
            Algorithm::Crc64Nvme => row("CRC64NVME", "x-amz-checksum-crc64nvme", 8, true, false),
            Algorithm::Sha1 => row("SHA1", "x-amz-checksum-sha1", 20, false, true),
            Algorithm::Sha256 => row("SHA256", "x-amz-checksum-sha256", 32, false, true),
            Algorithm::Sha512 => row("SHA512", "x-amz-checksum-sha512", 64, false, true),
            Algorithm::Md5 => row("MD5", "x-amz-checksum-md5", 16, false, true),
            Algorithm::XxHash64 => row("XXHASH64", "x-amz-checksum-xxhash64", 8, false, true),
            Algorithm::XxHash3 => row("XXHASH3", "x-amz-checksum-xxhash3", 8, false, true),
            Algorithm::XxHash128 => row("XXHASH128", "x-amz-checksum-xxhash128", 16, false, true),
        }
    }

    /// AWS's name: `CRC32`, `CRC32C`, `CRC64NVME`, `SHA1`, …
    pub(crate) fn name(self) -> &'static str {
        self.properties().name
    }

    pub(crate) fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name().eq_ignore_ascii_case(name))
    }

    /// The header (and trailer) that carries a value: `x-amz-checksum-crc32`.
    pub(crate) fn header(self) -> &'static str {
        self.properties().header
    }

    pub(crate) fn from_model(algorithm: &ChecksumAlgorithm) -> Option<Algorithm> {
        Algorithm::from_name(algorithm.as_str())
    }

    pub(crate) fn to_model(self) -> ChecksumAlgorithm {
        ChecksumAlgorithm::from_wire(self.name())
    }

    fn digest_len(self) -> usize {
        self.properties().digest_len
    }

    /// Whether a multipart upload may use it FULL_OBJECT or COMPOSITE.
    pub(crate) fn allows(self, full_object: bool) -> bool {
        let p = self.properties();
        if full_object {
            p.full_object
        } else {
            p.composite
        }
    }

    pub(crate) fn hasher(self) -> Hasher {
        match self {
            Algorithm::Crc32 => Hasher::Crc32(CRC32.digest()),
            Algorithm::Crc32c => Hasher::Crc32(CRC32C.digest()),
            Algorithm::Crc64Nvme => Hasher::Crc64(CRC64NVME.digest()),
            Algorithm::Sha1 => Hasher::Cryptographic(Box::new(Sha1::new())),
            Algorithm::Sha256 => Hasher::Cryptographic(Box::new(Sha256::new())),
            Algorithm::Sha512 => Hasher::Cryptographic(Box::new(Sha512::new())),
            Algorithm::Md5 => Hasher::Cryptographic(Box::new(Md5::new())),
            Algorithm::XxHash64 => Hasher::XxHash64(Xxh64::new(0)),
            Algorithm::XxHash3 | Algorithm::XxHash128 => Hasher::XxHash3 {
                state: Box::new(Xxh3::new()),
                wide: self == Algorithm::XxHash128,
            },
        }
    }

    /// The binary digest of `data`.
    #[cfg(test)]
    pub(crate) fn digest(self, data: &[u8]) -> Vec<u8> {
        let mut h = self.hasher();
        h.update(data);
        h.finish()
    }
}

/// A running checksum.
pub(crate) enum Hasher {
    Crc32(crc::Digest<'static, u32, Table<16>>),
    Crc64(crc::Digest<'static, u64, Table<16>>),
    /// SHA1, SHA256, SHA512 and MD5, which share the `digest` crate's interface.
    Cryptographic(Box<dyn DynDigest + Send>),
    XxHash64(Xxh64),
    /// XXHASH3 (64 bits) or, `wide`, XXHASH128: one state computes either.
    XxHash3 {
        state: Box<Xxh3>,
        wide: bool,
    },
}

impl Hasher {
    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Crc32(d) => d.update(data),
            Hasher::Crc64(d) => d.update(data),
            Hasher::Cryptographic(d) => d.update(data),
            Hasher::XxHash64(d) => d.update(data),
            Hasher::XxHash3 { state, .. } => state.update(data),
        }
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Crc32(d) => d.finalize().to_be_bytes().to_vec(),
            Hasher::Crc64(d) => d.finalize().to_be_bytes().to_vec(),
            Hasher::Cryptographic(d) => d.finalize().into_vec(),
            Hasher::XxHash64(d) => d.digest().to_be_bytes().to_vec(),
            Hasher::XxHash3 { state, wide: false } => state.digest().to_be_bytes().to_vec(),
            Hasher::XxHash3 { state, wide: true } => state.digest128().to_be_bytes().to_vec(),
        }
    }
}

pub(crate) fn encode(digest: &[u8]) -> String {
    STANDARD.encode(digest)
}

/// A stored checksum: its algorithm, its value as AWS answers it (base64, with `-N` for a
/// composite one) and whether it covers the whole object.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct Checksum {
    pub algorithm: Algorithm,
    pub value: String,
    #[serde(default)]
    pub composite: bool,
}

impl Checksum {
    /// The full-object checksum of `data`.
    #[cfg(test)]
    pub(crate) fn of(algorithm: Algorithm, data: &[u8]) -> Checksum {
        Checksum {
            algorithm,
            value: encode(&algorithm.digest(data)),
            composite: false,
        }
    }

    pub(crate) fn checksum_type(&self) -> ChecksumType {
        if self.composite {
            ChecksumType::Composite
        } else {
            ChecksumType::FullObject
        }
    }
}

/// The value of each algorithm's member for an output, in [`Algorithm::ALL`]'s order: only
/// `checksum`'s is set.
pub(crate) fn members(checksum: Option<&Checksum>) -> [Option<String>; COUNT] {
    Algorithm::ALL.map(|a| checksum.filter(|c| c.algorithm == a).map(|c| c.value.clone()))
}

/// Sets the `checksum_*` members of an output struct to `$checksum` (an `Option<&Checksum>`).
macro_rules! set_checksum_members {
    ($target:expr, $checksum:expr) => {{
        let [crc32, crc32c, crc64nvme, sha1, sha256, sha512, md5, xxhash64, xxhash3, xxhash128] =
            $crate::checksum::members($checksum);
        $target.checksum_crc32 = crc32;
        $target.checksum_crc32_c = crc32c;
        $target.checksum_crc64_nvme = crc64nvme;
        $target.checksum_sha1 = sha1;
        $target.checksum_sha256 = sha256;
        $target.checksum_sha512 = sha512;
        $target.checksum_md5 = md5;
        $target.checksum_xxhash64 = xxhash64;
        $target.checksum_xxhash3 = xxhash3;
        $target.checksum_xxhash128 = xxhash128;
    }};
}
pub(crate) use set_checksum_members;

/// The `checksum_*` members of an input (or output), in [`Algorithm::ALL`]'s order.
macro_rules! checksum_members {
    ($input:expr) => {
        [
            $input.checksum_crc32.as_deref(),
            $input.checksum_crc32_c.as_deref(),
            $input.checksum_crc64_nvme.as_deref(),
            $input.checksum_sha1.as_deref(),
            $input.checksum_sha256.as_deref(),
            $input.checksum_sha512.as_deref(),
            $input.checksum_md5.as_deref(),
            $input.checksum_xxhash64.as_deref(),
            $input.checksum_xxhash3.as_deref(),
            $input.checksum_xxhash128.as_deref(),
        ]
    };
}
pub(crate) use checksum_members;

fn invalid_request(message: impl Into<String>) -> AwsError {
    AwsError::new("InvalidRequest", message, 400)
}

pub(crate) fn bad_digest(algorithm: Algorithm) -> AwsError {
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
pub(crate) fn sdk_algorithm(given: Option<&ChecksumAlgorithm>) -> Result<Option<Algorithm>, AwsError> {
    match given {
        None => Ok(None),
        // AWS's message lists the five algorithms it had first, whatever it takes since.
        Some(a) => Algorithm::from_model(a).map(Some).ok_or_else(|| {
            invalid_request(
                "Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]",
            )
        }),
    }
}

/// Refuses a second checksum value for one body.
pub(crate) fn multiple_values() -> AwsError {
    invalid_request("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
}

fn invalid_value(algorithm: Algorithm) -> AwsError {
    invalid_request(format!("Value for {} header is invalid.", algorithm.header()))
}

/// The checksum a request sends for its body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sent {
    /// In an `x-amz-checksum-*` header: the expected binary digest.
    Header(Algorithm, Vec<u8>),
    /// In the aws-chunked trailer `x-amz-trailer` announces, which comes after the body.
    Trailer(Algorithm),
}

impl Sent {
    pub(crate) fn algorithm(&self) -> Algorithm {
        match self {
            Sent::Header(a, _) | Sent::Trailer(a) => *a,
        }
    }

    /// The expected binary digest, given the checksum the body's trailer carried (see
    /// [`crate::chunked::Decoder::into_checksum`]).
    pub(crate) fn digest(&self, trailer: Option<&(Algorithm, String)>) -> Result<Vec<u8>, AwsError> {
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
pub(crate) fn requested(
    sdk: Option<&ChecksumAlgorithm>,
    headers: [Option<&str>; COUNT],
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
pub(crate) fn composite(algorithm: Algorithm, parts: &[&str]) -> Result<String, AwsError> {
    let mut h = algorithm.hasher();
    for part in parts {
        let digest = decode_value(algorithm, part)
            .ok_or_else(|| AwsError::internal(format!("stored part checksum {part} is not a {}", algorithm.name())))?;
        h.update(&digest);
    }
    Ok(format!("{}-{}", encode(&h.finish()), parts.len()))
}

/// The checksum type a multipart upload asks for, checked against its algorithm.
pub(crate) fn upload_type(
    algorithm: Option<Algorithm>,
    given: Option<&ChecksumType>,
) -> Result<Option<bool>, AwsError> {
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
pub(crate) fn part_mismatch(expected: Algorithm, sent: Algorithm) -> AwsError {
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
        assert_eq!(
            of(Algorithm::Sha512),
            "MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw=="
        );
        assert_eq!(of(Algorithm::Md5), "XrY7u+Ae7tCTyyK7j1rNww==");
    }

    // xxHash reference values for b"hello world" with seed 0, from the reference C library
    // (libxxhash 0.8: XXH64, XXH3_64bits, XXH3_128bits), big-endian: XXH64 is 45ab6734b21e6968.
    #[test]
    fn xxhash_values() {
        let of = |a: Algorithm| Checksum::of(a, b"hello world").value;
        assert_eq!(of(Algorithm::XxHash64), "RatnNLIeaWg=");
        assert_eq!(of(Algorithm::XxHash3), "1Eex6kDmmIs=");
        assert_eq!(of(Algorithm::XxHash128), "340J6T+HSQCpm4d1zBW2xw==");
    }

    // Each algorithm's digest is as long as its table row says, and its name round-trips
    // through the model's enum and the stored form.
    #[test]
    fn table_is_consistent() {
        for a in Algorithm::ALL {
            assert_eq!(a.digest(b"x").len(), a.digest_len(), "{}", a.name());
            assert_eq!(Algorithm::from_model(&a.to_model()), Some(a));
            assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{}\"", a.name()));
            assert_eq!(a.header(), format!("x-amz-checksum-{}", a.name().to_ascii_lowercase()));
        }
    }

    #[test]
    fn requests_are_checked() {
        fn crc32_header(value: &str) -> [Option<&str>; COUNT] {
            let mut headers = [None; COUNT];
            headers[0] = Some(value);
            headers
        }
        let crc = Checksum::of(Algorithm::Crc32, b"abc").value;
        let none = [None; COUNT];
        let code = |r: Result<Option<Sent>, AwsError>| r.unwrap_err().code;
        let header = Sent::Header(Algorithm::Crc32, Algorithm::Crc32.digest(b"abc"));
        assert_eq!(requested(None, crc32_header(&crc), None).unwrap(), Some(header.clone()));
        assert_eq!(code(requested(None, crc32_header("xx"), None)), "InvalidRequest");
        assert_eq!(
            code(requested(Some(&ChecksumAlgorithm::Crc32), none, None)),
            "InvalidRequest"
        );
        assert_eq!(
            code(requested(
                None,
                {
                    let mut two = crc32_header(&crc);
                    two[1] = Some(&crc);
                    two
                },
                None
            )),
            "InvalidRequest"
        );
        assert_eq!(
            code(requested(None, crc32_header(&crc), Some(Algorithm::Crc32))),
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
        assert_eq!(upload_type(Some(Algorithm::XxHash64), None).unwrap(), Some(false));
        assert!(upload_type(Some(Algorithm::Md5), Some(&ChecksumType::FullObject)).is_err());
        assert_eq!(upload_type(None, None).unwrap(), None);
    }
}
