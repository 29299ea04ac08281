//! What IAM reads from the certificates it is given (server and signing certificates): PEM
//! blocks, and from their DER just enough, without a crypto crate, to answer as IAM does —
//! the certificate's `notAfter` (the `Expiration` IAM reports) and, for RSA, whether a
//! private key's modulus is the certificate's (IAM's `KeyPairMismatch`). Other key types
//! (EC) are taken as matching: checking them needs elliptic-curve arithmetic.

use aws_smithy_types::base64;

/// The DER of each PEM block labelled `label` in `text`, or `None` when `text` holds none or
/// one that is not well formed.
pub(crate) fn pem_blocks(text: &str, label: &str) -> Option<Vec<Vec<u8>>> {
    let (begin, end) = (format!("-----BEGIN {label}-----"), format!("-----END {label}-----"));
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(&begin) {
        let body = &rest[start + begin.len()..];
        let stop = body.find(&end)?;
        let b64: String = body[..stop].chars().filter(|c| !c.is_whitespace()).collect();
        let der = base64::decode(&b64).ok()?;
        if der.is_empty() {
            return None;
        }
        blocks.push(der);
        rest = &body[stop + end.len()..];
    }
    (!blocks.is_empty()).then_some(blocks)
}

/// The certificate of a PEM text holding exactly one (a certificate body), as DER.
pub(crate) fn single_certificate(text: &str) -> Option<Vec<u8>> {
    let mut blocks = pem_blocks(text, "CERTIFICATE")?;
    let der = blocks.pop()?;
    (blocks.is_empty() && Certificate::parse(&der).is_some()).then_some(der)
}

/// One DER element: its tag, its content, and what follows it.
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, input) = input.split_first()?;
    let (&first, mut input) = input.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || input.len() < n {
            return None;
        }
        let len = input[..n].iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        input = &input[n..];
        len
    };
    (input.len() >= len).then(|| (tag, &input[..len], &input[len..]))
}

/// The content of the element of `tag` at the start of `input`, and what follows.
fn expect(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (found, content, rest) = element(input)?;
    (found == tag).then_some((content, rest))
}

const SEQUENCE: u8 = 0x30;
const INTEGER: u8 = 0x02;
const BIT_STRING: u8 = 0x03;
const OCTET_STRING: u8 = 0x04;
const UTC_TIME: u8 = 0x17;
const GENERALIZED_TIME: u8 = 0x18;
/// rsaEncryption, 1.2.840.113549.1.1.1.
const RSA_ENCRYPTION: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/// What is read of an X.509 certificate.
#[derive(Debug, PartialEq)]
pub(crate) struct Certificate {
    /// `notBefore`, in seconds since the epoch.
    pub(crate) not_before: u64,
    /// `notAfter`, in seconds since the epoch.
    pub(crate) not_after: u64,
    /// The RSA modulus of its public key, when it is an RSA key.
    pub(crate) rsa_modulus: Option<Vec<u8>>,
}

impl Certificate {
    /// Reads a certificate's DER (RFC 5280 §4.1).
    pub(crate) fn parse(der: &[u8]) -> Option<Certificate> {
        let (certificate, _) = expect(der, SEQUENCE)?;
        let (tbs, _) = expect(certificate, SEQUENCE)?;
        let mut fields = tbs;
        // The explicit `[0]` version is absent in version 1 certificates.
        if let Some((0xa0, _, rest)) = element(fields) {
            fields = rest;
        }
        let (_serial, fields) = expect(fields, INTEGER)?;
        let (_signature, fields) = expect(fields, SEQUENCE)?;
        let (_issuer, fields) = expect(fields, SEQUENCE)?;
        let (validity, fields) = expect(fields, SEQUENCE)?;
        let (tag, not_before, validity) = element(validity)?;
        let not_before = time(tag, not_before)?;
        let (tag, not_after, _) = element(validity)?;
        let not_after = time(tag, not_after)?;
        let (_subject, fields) = expect(fields, SEQUENCE)?;
        let (key_info, _) = expect(fields, SEQUENCE)?;
        let (algorithm, key_info) = expect(key_info, SEQUENCE)?;
        let rsa_modulus = if is_rsa(algorithm) {
            let (bits, _) = expect(key_info, BIT_STRING)?;
            let (public_key, _) = expect(bits.get(1..)?, SEQUENCE)?;
            Some(unsigned(expect(public_key, INTEGER)?.0).to_vec())
        } else {
            None
        };
        Some(Certificate {
            not_before,
            not_after,
            rsa_modulus,
        })
    }
}

fn is_rsa(algorithm: &[u8]) -> bool {
    expect(algorithm, 0x06).is_some_and(|(oid, _)| oid == RSA_ENCRYPTION)
}

/// An INTEGER's magnitude, without the zero byte that keeps it positive.
fn unsigned(integer: &[u8]) -> &[u8] {
    match integer {
        [0, rest @ ..] if !rest.is_empty() => rest,
        _ => integer,
    }
}

/// The RSA modulus of a private key in PEM (PKCS #1 `RSA PRIVATE KEY` or PKCS #8
/// `PRIVATE KEY`): `Some(None)` for a well-formed key of another type, `None` when the text
/// holds no private key.
pub(crate) fn private_key_modulus(text: &str) -> Option<Option<Vec<u8>>> {
    if let Some(der) = pem_blocks(text, "RSA PRIVATE KEY").and_then(|mut b| b.pop()) {
        return rsa_private_key(&der).map(Some);
    }
    if let Some(der) = pem_blocks(text, "PRIVATE KEY").and_then(|mut b| b.pop()) {
        let (info, _) = expect(&der, SEQUENCE)?;
        let (_version, info) = expect(info, INTEGER)?;
        let (algorithm, info) = expect(info, SEQUENCE)?;
        if !is_rsa(algorithm) {
            return Some(None);
        }
        let (key, _) = expect(info, OCTET_STRING)?;
        return rsa_private_key(key).map(Some);
    }
    pem_blocks(text, "EC PRIVATE KEY").map(|_| None)
}

/// The modulus of a PKCS #1 RSAPrivateKey (RFC 8017 A.1.2).
fn rsa_private_key(der: &[u8]) -> Option<Vec<u8>> {
    let (key, _) = expect(der, SEQUENCE)?;
    let (_version, key) = expect(key, INTEGER)?;
    Some(unsigned(expect(key, INTEGER)?.0).to_vec())
}

/// A UTCTime (`YYMMDDHHMMSSZ`, years 1950–2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`), in
/// seconds since the epoch.
fn time(tag: u8, text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?.strip_suffix('Z')?;
    let (year, rest) = match tag {
        UTC_TIME => {
            let yy: u64 = text.get(..2)?.parse().ok()?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, text.get(2..)?)
        }
        GENERALIZED_TIME => (text.get(..4)?.parse().ok()?, text.get(4..)?),
        _ => return None,
    };
    if rest.len() != 10 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |i: usize| rest[i..i + 2].parse::<u64>().ok();
    let (month, day, hour, minute, second) = (field(0)?, field(2)?, field(4)?, field(6)?, field(8)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day)? * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
/// `days_from_civil`), for dates from 1970 on.
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    let y = if month <= 2 { year.checked_sub(1)? } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERTIFICATE: &str = include_str!("../testdata/server.crt");
    const KEY: &str = include_str!("../testdata/server.key");
    const KEY_PKCS1: &str = include_str!("../testdata/server-pkcs1.key");
    const OTHER_KEY: &str = include_str!("../testdata/other.key");

    #[test]
    fn a_certificate_gives_its_not_after() {
        let der = single_certificate(CERTIFICATE).unwrap();
        let certificate = Certificate::parse(&der).unwrap();
        // `openssl x509 -dates`: Dec 1 18:43:16 2026 GMT to Nov 28 18:43:16 2036 GMT.
        assert_eq!(certificate.not_before, 2_111_510_596 - 3650 * 86_400);
        assert_eq!(certificate.not_after, 2_111_510_596);
        assert!(certificate.rsa_modulus.is_some());
    }

    #[test]
    fn a_key_matches_its_certificate_and_no_other() {
        let certificate = Certificate::parse(&single_certificate(CERTIFICATE).unwrap()).unwrap();
        assert_eq!(private_key_modulus(KEY), Some(certificate.rsa_modulus.clone()));
        assert_eq!(private_key_modulus(KEY_PKCS1), Some(certificate.rsa_modulus.clone()));
        assert_ne!(private_key_modulus(OTHER_KEY), Some(certificate.rsa_modulus));
    }

    #[test]
    fn other_key_types_are_read_but_not_matched() {
        let der = single_certificate(include_str!("../testdata/ec.crt")).unwrap();
        assert_eq!(Certificate::parse(&der).unwrap().rsa_modulus, None);
        assert_eq!(private_key_modulus(include_str!("../testdata/ec.key")), Some(None));
    }

    #[test]
    fn what_is_not_a_pem_certificate_is_refused() {
        for text in [
            "",
            "hello",
            "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----",
            "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----",
            "-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----",
            KEY,
        ] {
            assert_eq!(single_certificate(text), None, "{text}");
        }
        assert_eq!(single_certificate(&format!("{CERTIFICATE}{CERTIFICATE}")), None);
        assert_eq!(private_key_modulus(CERTIFICATE), None);
    }

    #[test]
    fn times_are_read_in_both_encodings() {
        assert_eq!(time(UTC_TIME, b"700101000000Z"), Some(0));
        assert_eq!(time(GENERALIZED_TIME, b"20000301000000Z"), Some(951_868_800));
        assert_eq!(time(UTC_TIME, b"701301000000Z"), None);
    }
}
