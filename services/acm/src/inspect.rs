//! Reading certificates, chains and private keys in PEM, and the facts DescribeCertificate
//! reports about a certificate: its names, serial, validity, algorithms and key usages, in
//! the spelling ACM uses (`SHA256WITHRSA`, `RSA_2048`, serials as colon-separated hex).

use serde::{Deserialize, Serialize};
use x509_cert::der::asn1::ObjectIdentifier;
use x509_cert::der::{Decode, DecodePem, Encode};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{ExtendedKeyUsage, KeyUsage, KeyUsages, SubjectAltName};
use x509_cert::name::Name;
use x509_cert::Certificate;

/// What ACM reports about one certificate.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Facts {
    /// The subject's common name, or the first DNS name when it has none.
    pub(crate) domain_name: String,
    /// The DNS names of the subject alternative names, in the certificate's order.
    pub(crate) alternative_names: Vec<String>,
    /// The subject, attributes in the certificate's order (`C=US,O=Example,CN=example.com`).
    pub(crate) subject: String,
    /// The issuer's organization, or its common name.
    pub(crate) issuer: String,
    /// The serial number as colon-separated lowercase hex bytes (`03:e9`).
    pub(crate) serial: String,
    pub(crate) not_before_ms: i64,
    pub(crate) not_after_ms: i64,
    /// `SHA256WITHRSA`, `SHA384WITHECDSA`, …
    pub(crate) signature_algorithm: String,
    /// The subject key's algorithm as ListCertificates filters it (`RSA_2048`, `EC_prime256v1`).
    pub(crate) key_algorithm: String,
    /// Key usage names (`DIGITAL_SIGNATURE`, …), in the extension's bit order.
    pub(crate) key_usages: Vec<String>,
    /// Extended key usages: name (`TLS_WEB_SERVER_AUTHENTICATION`, `CUSTOM`…) and OID.
    pub(crate) extended_key_usages: Vec<(String, String)>,
}

/// Why an import was refused, each in ACM's words (its ValidationException messages).
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum ImportProblem {
    #[error("Unable to parse certificate. Please ensure the certificate is in PEM format.")]
    Certificate,
    #[error(
        "The certificate field contains more than one certificate. You can specify only one certificate in this field."
    )]
    SeveralCertificates,
    #[error("Unable to parse certificate chain. Please ensure the chain is in PEM format.")]
    Chain,
    #[error("Unable to parse key; the key may be encrypted or in an unsupported format.")]
    PrivateKey,
    #[error("The private key is not supported.")]
    UnsupportedKey,
    #[error("The certificate's key algorithm is not supported.")]
    UnsupportedCertificateKey,
    #[error("The private key does not match the public key in the certificate.")]
    KeyMismatch,
}

const PEM_CERTIFICATE: &str = "-----BEGIN CERTIFICATE-----";

/// The one certificate of `pem`.
pub(crate) fn certificate(pem: &[u8]) -> Result<Certificate, ImportProblem> {
    let text = std::str::from_utf8(pem).map_err(|_| ImportProblem::Certificate)?;
    if text.matches(PEM_CERTIFICATE).count() > 1 {
        return Err(ImportProblem::SeveralCertificates);
    }
    Certificate::from_pem(text.trim().as_bytes()).map_err(|_| ImportProblem::Certificate)
}

/// The certificates of a chain, as PEM blocks one after another.
pub(crate) fn chain(pem: &[u8]) -> Result<Vec<Certificate>, ImportProblem> {
    let text = std::str::from_utf8(pem).map_err(|_| ImportProblem::Chain)?;
    let certificates = Certificate::load_pem_chain(text.trim().as_bytes()).map_err(|_| ImportProblem::Chain)?;
    if certificates.is_empty() {
        return Err(ImportProblem::Chain);
    }
    Ok(certificates)
}

/// The DER SubjectPublicKeyInfo of the unencrypted private key in `pem` (PKCS #8, PKCS #1
/// RSA or SEC1 EC), to compare with a certificate's.
pub(crate) fn private_key_public_info(pem: &[u8]) -> Result<Vec<u8>, ImportProblem> {
    let (label, der) = x509_cert::der::pem::decode_vec(pem.trim_ascii()).map_err(|_| ImportProblem::PrivateKey)?;
    match label {
        "PRIVATE KEY" => pkcs8_public_info(&der),
        "RSA PRIVATE KEY" => {
            use rsa::pkcs1::DecodeRsaPrivateKey;
            let key = rsa::PrivateKey::from_pkcs1_der(&der).map_err(|_| ImportProblem::PrivateKey)?;
            rsa_public_info(&key)
        }
        "EC PRIVATE KEY" => sec1_public_info(&der),
        _ => Err(ImportProblem::PrivateKey),
    }
}

fn rsa_public_info(key: &rsa::PrivateKey) -> Result<Vec<u8>, ImportProblem> {
    use rsa::pkcs8::EncodePublicKey;
    let public = key
        .to_public_key()
        .to_public_key_der()
        .map_err(|_| ImportProblem::UnsupportedKey)?;
    Ok(public.into_vec())
}

fn pkcs8_public_info(der: &[u8]) -> Result<Vec<u8>, ImportProblem> {
    use rsa::pkcs8::DecodePrivateKey;
    if let Ok(key) = rsa::PrivateKey::from_pkcs8_der(der) {
        return rsa_public_info(&key);
    }
    macro_rules! curves {
        ($($krate:ident)*) => {$(
            if let Ok(key) = $krate::SecretKey::from_pkcs8_der(der) {
                use $krate::pkcs8::EncodePublicKey;
                return key.public_key().to_public_key_der().map(|d| d.into_vec()).map_err(|_| ImportProblem::UnsupportedKey);
            }
        )*};
    }
    curves!(p256 p384 p521);
    Err(ImportProblem::UnsupportedKey)
}

fn sec1_public_info(der: &[u8]) -> Result<Vec<u8>, ImportProblem> {
    macro_rules! curves {
        ($($krate:ident)*) => {$(
            if let Ok(key) = $krate::SecretKey::from_sec1_der(der) {
                use $krate::pkcs8::EncodePublicKey;
                return key.public_key().to_public_key_der().map(|d| d.into_vec()).map_err(|_| ImportProblem::UnsupportedKey);
            }
        )*};
    }
    curves!(p256 p384 p521);
    Err(ImportProblem::UnsupportedKey)
}

/// Checks that `key_pem` is the private key of `certificate`.
pub(crate) fn check_key_matches(certificate: &Certificate, key_pem: &[u8]) -> Result<(), ImportProblem> {
    let from_key = private_key_public_info(key_pem)?;
    let in_certificate = certificate
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()
        .map_err(|_| ImportProblem::Certificate)?;
    if from_key == in_certificate {
        Ok(())
    } else {
        Err(ImportProblem::KeyMismatch)
    }
}

/// The facts of `certificate`.
pub(crate) fn facts(certificate: &Certificate) -> Result<Facts, ImportProblem> {
    let tbs = certificate.tbs_certificate();
    let alternative_names = match tbs.get_extension::<SubjectAltName>() {
        Ok(Some((_, names))) => names
            .0
            .iter()
            .filter_map(|name| match name {
                GeneralName::DnsName(dns) => Some(dns.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let common_name = tbs.subject().common_name().ok().flatten().map(String::from);
    let domain_name = common_name
        .or_else(|| alternative_names.first().cloned())
        .unwrap_or_default();
    let issuer = tbs
        .issuer()
        .organization()
        .ok()
        .flatten()
        .map(String::from)
        .or_else(|| tbs.issuer().common_name().ok().flatten().map(String::from))
        .unwrap_or_default();
    let key_usages = match tbs.get_extension::<KeyUsage>() {
        Ok(Some((_, usage))) => key_usage_names(usage),
        _ => Vec::new(),
    };
    let extended_key_usages = match tbs.get_extension::<ExtendedKeyUsage>() {
        Ok(Some((_, usage))) => usage
            .0
            .iter()
            .map(|oid| (extended_key_usage_name(oid).to_owned(), oid.to_string()))
            .collect(),
        _ => Vec::new(),
    };
    Ok(Facts {
        domain_name,
        alternative_names,
        subject: distinguished_name(tbs.subject()),
        issuer,
        serial: serial(tbs.serial_number().as_bytes()),
        not_before_ms: millis(tbs.validity().not_before.to_unix_duration()),
        not_after_ms: millis(tbs.validity().not_after.to_unix_duration()),
        signature_algorithm: signature_algorithm(&certificate.signature_algorithm().oid),
        key_algorithm: key_algorithm(certificate)?,
        key_usages,
        extended_key_usages,
    })
}

fn millis(since_epoch: std::time::Duration) -> i64 {
    i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX)
}

/// A name's attributes in the order the certificate holds them, as ACM shows a subject.
fn distinguished_name(name: &Name) -> String {
    name.iter()
        .map(|attribute| attribute.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Colon-separated lowercase hex, without the sign byte DER adds before a high bit.
pub(crate) fn serial(bytes: &[u8]) -> String {
    let bytes = match bytes {
        [0, rest @ ..] if !rest.is_empty() => rest,
        all => all,
    };
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

fn key_usage_names(usage: KeyUsage) -> Vec<String> {
    const NAMES: &[(KeyUsages, &str)] = &[
        (KeyUsages::DigitalSignature, "DIGITAL_SIGNATURE"),
        (KeyUsages::NonRepudiation, "NON_REPUDIATION"),
        (KeyUsages::KeyEncipherment, "KEY_ENCIPHERMENT"),
        (KeyUsages::DataEncipherment, "DATA_ENCIPHERMENT"),
        (KeyUsages::KeyAgreement, "KEY_AGREEMENT"),
        (KeyUsages::KeyCertSign, "CERTIFICATE_SIGNING"),
        (KeyUsages::CRLSign, "CRL_SIGNING"),
        (KeyUsages::EncipherOnly, "ENCIPHER_ONLY"),
        (KeyUsages::DecipherOnly, "DECIPHER_ONLY"),
    ];
    NAMES
        .iter()
        .filter(|(flag, _)| usage.0.contains(*flag))
        .map(|(_, name)| (*name).to_owned())
        .collect()
}

/// The extended key usage OIDs ACM names (RFC 5280, 4.2.1.12); others are `CUSTOM`.
fn extended_key_usage_name(oid: &ObjectIdentifier) -> &'static str {
    match oid.to_string().as_str() {
        "1.3.6.1.5.5.7.3.1" => "TLS_WEB_SERVER_AUTHENTICATION",
        "1.3.6.1.5.5.7.3.2" => "TLS_WEB_CLIENT_AUTHENTICATION",
        "1.3.6.1.5.5.7.3.3" => "CODE_SIGNING",
        "1.3.6.1.5.5.7.3.4" => "EMAIL_PROTECTION",
        "1.3.6.1.5.5.7.3.5" => "IPSEC_END_SYSTEM",
        "1.3.6.1.5.5.7.3.6" => "IPSEC_TUNNEL",
        "1.3.6.1.5.5.7.3.7" => "IPSEC_USER",
        "1.3.6.1.5.5.7.3.8" => "TIME_STAMPING",
        "1.3.6.1.5.5.7.3.9" => "OCSP_SIGNING",
        "2.5.29.37.0" => "ANY",
        _ => "CUSTOM",
    }
}

fn signature_algorithm(oid: &ObjectIdentifier) -> String {
    match oid.to_string().as_str() {
        "1.2.840.113549.1.1.4" => "MD5WITHRSA".to_owned(),
        "1.2.840.113549.1.1.5" => "SHA1WITHRSA".to_owned(),
        "1.2.840.113549.1.1.11" => "SHA256WITHRSA".to_owned(),
        "1.2.840.113549.1.1.12" => "SHA384WITHRSA".to_owned(),
        "1.2.840.113549.1.1.13" => "SHA512WITHRSA".to_owned(),
        "1.2.840.10045.4.1" => "SHA1WITHECDSA".to_owned(),
        "1.2.840.10045.4.3.2" => "SHA256WITHECDSA".to_owned(),
        "1.2.840.10045.4.3.3" => "SHA384WITHECDSA".to_owned(),
        "1.2.840.10045.4.3.4" => "SHA512WITHECDSA".to_owned(),
        other => other.to_owned(),
    }
}

/// The subject key's algorithm: RSA of 1024 to 4096 bits, or one of the three NIST curves
/// (the key types ImportCertificate accepts).
fn key_algorithm(certificate: &Certificate) -> Result<String, ImportProblem> {
    let spki = certificate.tbs_certificate().subject_public_key_info();
    match spki.algorithm.oid.to_string().as_str() {
        "1.2.840.113549.1.1.1" => {
            use rsa::pkcs1::DecodeRsaPublicKey;
            let bits = spki.subject_public_key.raw_bytes();
            let key = rsa::PublicKey::from_pkcs1_der(bits).map_err(|_| ImportProblem::UnsupportedCertificateKey)?;
            use rsa::traits::PublicKeyParts;
            match key.size() * 8 {
                1024 => Ok("RSA_1024".to_owned()),
                2048 => Ok("RSA_2048".to_owned()),
                3072 => Ok("RSA_3072".to_owned()),
                4096 => Ok("RSA_4096".to_owned()),
                _ => Err(ImportProblem::UnsupportedCertificateKey),
            }
        }
        "1.2.840.10045.2.1" => {
            let curve = spki
                .algorithm
                .parameters
                .as_ref()
                .and_then(|p| p.decode_as::<ObjectIdentifier>().ok())
                .map(|oid| oid.to_string());
            match curve.as_deref() {
                Some("1.2.840.10045.3.1.7") => Ok("EC_prime256v1".to_owned()),
                Some("1.3.132.0.34") => Ok("EC_secp384r1".to_owned()),
                Some("1.3.132.0.35") => Ok("EC_secp521r1".to_owned()),
                _ => Err(ImportProblem::UnsupportedCertificateKey),
            }
        }
        _ => Err(ImportProblem::UnsupportedCertificateKey),
    }
}

/// The DER of a certificate, for chains kept as PEM.
pub(crate) fn to_pem(certificate: &Certificate) -> String {
    use x509_cert::der::EncodePem;
    certificate
        .to_pem(x509_cert::der::pem::LineEnding::LF)
        .unwrap_or_default()
}

/// Decodes one DER certificate (the local CA's, as stored).
pub(crate) fn from_der(der: &[u8]) -> Option<Certificate> {
    Certificate::from_der(der).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_test_support::{mutate, Rng};

    #[test]
    fn serials_drop_the_sign_byte_and_keep_the_rest() {
        assert_eq!(serial(&[0x03, 0xe9]), "03:e9");
        assert_eq!(serial(&[0x00, 0x9a, 0x01]), "9a:01");
        assert_eq!(serial(&[0x00]), "00");
    }

    #[test]
    fn text_that_is_not_a_certificate_is_refused_as_acm_words_it() {
        assert_eq!(certificate(b"CERT123").unwrap_err(), ImportProblem::Certificate);
        assert_eq!(
            private_key_public_info(b"KEY123").unwrap_err(),
            ImportProblem::PrivateKey
        );
    }

    /// Property: random bytes and mutations of PEM never panic the readers (seeded).
    #[test]
    fn readers_never_panic_on_mutated_pem() {
        let seed = b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ0\n-----END CERTIFICATE-----\n";
        let tokens: &[&[u8]] = &[
            b"-----",
            b"BEGIN ",
            b"END ",
            b"PRIVATE KEY",
            b"\n",
            b"=",
            b"\xff",
            b"MII",
        ];
        let mut rng = Rng(0x6163_6d5f_7065_6d00);
        for _ in 0..5_000 {
            let bytes = if rng.below(2) == 0 {
                mutate(&mut rng, seed, tokens)
            } else {
                (0..rng.below(200)).map(|_| rng.next_u64() as u8).collect()
            };
            if let Ok(c) = certificate(&bytes) {
                let _ = facts(&c);
            }
            let _ = chain(&bytes);
            let _ = private_key_public_info(&bytes);
        }
    }
}
