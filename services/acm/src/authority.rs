//! The local certificate authority: one RSA 2048 root per account and region, made when the
//! region first requests a certificate and kept in its store, which signs every certificate
//! RequestCertificate issues (SHA256WITHRSA, as Amazon's public CAs sign). GetCertificate
//! answers the root as the chain, so a client that trusts it verifies what it issued.

use std::time::{Duration, SystemTime};

use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::der::asn1::Ia5String;
use x509_cert::der::Encode;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages, SubjectAltName};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{SubjectPublicKeyInfo, SubjectPublicKeyInfoRef};
use x509_cert::time::{Time, Validity};
use x509_cert::{Certificate, TbsCertificate};

use crate::inspect;

/// The root's subject. Its organization is what DescribeCertificate shows as `Issuer`
/// ("Amazon", as for Amazon's public CAs); its common name says the root is local.
const ROOT_SUBJECT: &str = "CN=Stratus Local Root CA,O=Amazon,C=US";
const ROOT_VALIDITY: Duration = Duration::from_secs(20 * 365 * 24 * 3600);
/// Amazon-issued public certificates are valid for 395 days (ACM's user guide, "Managed
/// certificate renewal").
pub(crate) const LEAF_VALIDITY: Duration = Duration::from_secs(395 * 24 * 3600);

/// The root of one account and region, as stored.
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Authority {
    /// The root's private key, PKCS #8 DER.
    private_key: Vec<u8>,
    /// The root's certificate, DER.
    certificate: Vec<u8>,
}

/// The key types RequestCertificate issues (its `KeyAlgorithm`; the others are for imports).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LeafKey {
    Rsa2048,
    EcP256,
    EcP384,
}

impl LeafKey {
    pub(crate) fn from_wire(name: &str) -> Option<LeafKey> {
        match name {
            "RSA_2048" => Some(LeafKey::Rsa2048),
            "EC_prime256v1" => Some(LeafKey::EcP256),
            "EC_secp384r1" => Some(LeafKey::EcP384),
            _ => None,
        }
    }

    /// A fresh key: its PKCS #8 DER and its public key's SubjectPublicKeyInfo DER.
    fn generate(self) -> (Vec<u8>, Vec<u8>) {
        match self {
            LeafKey::Rsa2048 => {
                let key = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).expect("RSA key generation");
                let public = key
                    .to_public_key()
                    .to_public_key_der()
                    .expect("RSA public key encoding");
                (
                    key.to_pkcs8_der().expect("RSA key encoding").as_bytes().to_vec(),
                    public.into_vec(),
                )
            }
            LeafKey::EcP256 => {
                use p256::elliptic_curve::Generate;
                let key = p256::SecretKey::generate();
                let public = key.public_key().to_public_key_der().expect("EC public key encoding");
                (
                    key.to_pkcs8_der().expect("EC key encoding").as_bytes().to_vec(),
                    public.into_vec(),
                )
            }
            LeafKey::EcP384 => {
                use p384::elliptic_curve::Generate;
                let key = p384::SecretKey::generate();
                let public = key.public_key().to_public_key_der().expect("EC public key encoding");
                (
                    key.to_pkcs8_der().expect("EC key encoding").as_bytes().to_vec(),
                    public.into_vec(),
                )
            }
        }
    }
}

/// A certificate the authority issued, with its key.
#[derive(Clone)]
pub(crate) struct Issued {
    pub(crate) certificate_pem: String,
    /// The certificate's private key, PKCS #8 DER.
    pub(crate) private_key: Vec<u8>,
    pub(crate) facts: inspect::Facts,
}

impl Authority {
    /// A fresh root, valid from `now_ms`.
    pub(crate) fn new(now_ms: i64) -> Authority {
        let key = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).expect("RSA key generation");
        let public = key
            .to_public_key()
            .to_public_key_der()
            .expect("RSA public key encoding");
        let spki = SubjectPublicKeyInfo::try_from(public.as_bytes()).expect("a public key just encoded");
        let subject: Name = ROOT_SUBJECT.parse().expect("the root's name");
        let profile = Profile::Root { subject };
        let signer = SigningKey::<Sha256>::new(key.clone());
        let certificate = CertificateBuilder::new(profile, random_serial(), validity(now_ms, ROOT_VALIDITY), spki)
            .and_then(|builder| builder.build::<_, rsa::pkcs1v15::Signature>(&signer))
            .expect("the root certificate");
        Authority {
            private_key: key.to_pkcs8_der().expect("RSA key encoding").as_bytes().to_vec(),
            certificate: certificate.to_der().expect("DER encoding"),
        }
    }

    fn root(&self) -> Option<(rsa::PrivateKey, Certificate)> {
        let key = rsa::PrivateKey::from_pkcs8_der(&self.private_key).ok()?;
        Some((key, inspect::from_der(&self.certificate)?))
    }

    /// The root's certificate, PEM: the chain of everything the authority issues.
    pub(crate) fn chain_pem(&self) -> String {
        self.root().map(|(_, c)| inspect::to_pem(&c)).unwrap_or_default()
    }

    /// A certificate for `names` (the first is the subject's common name), valid from
    /// `not_before_ms`, with a fresh key of `key`'s type. `None` only if the stored root is
    /// unreadable.
    pub(crate) fn issue(&self, names: &[String], key: LeafKey, not_before_ms: i64) -> Option<Issued> {
        let (root_key, root) = self.root()?;
        let (private_key, public) = key.generate();
        let spki = SubjectPublicKeyInfo::try_from(public.as_slice()).ok()?;
        let subject: Name = format!("CN={}", names.first()?).parse().ok()?;
        let profile = Profile::Leaf {
            issuer: root.tbs_certificate().subject().clone(),
            subject,
            names: names.to_vec(),
            rsa: key == LeafKey::Rsa2048,
        };
        let signer = SigningKey::<Sha256>::new(root_key);
        let certificate =
            CertificateBuilder::new(profile, random_serial(), validity(not_before_ms, LEAF_VALIDITY), spki)
                .and_then(|builder| builder.build::<_, rsa::pkcs1v15::Signature>(&signer))
                .ok()?;
        Some(Issued {
            certificate_pem: inspect::to_pem(&certificate),
            private_key,
            facts: inspect::facts(&certificate).ok()?,
        })
    }
}

fn validity(from_ms: i64, length: Duration) -> Validity {
    let start = SystemTime::UNIX_EPOCH + Duration::from_millis(u64::try_from(from_ms).unwrap_or(0));
    Validity::new(
        Time::try_from(start).expect("a time after 1970"),
        Time::try_from(start + length).expect("a time within X.509's range"),
    )
}

/// A positive serial number of 16 random bytes.
fn random_serial() -> SerialNumber {
    let mut serial = [0u8; 16];
    getrandom::fill(&mut serial).expect("the system's random source");
    serial[0] &= 0x7f;
    serial[0] |= 0x01;
    SerialNumber::new(&serial).expect("a 16-byte serial number")
}

/// What the authority puts in the certificates it signs.
enum Profile {
    /// The self-signed root: a CA that signs certificates.
    Root { subject: Name },
    /// A server certificate, as Amazon issues them: the DNS names, TLS server and client
    /// authentication, and (RSA keys) key encipherment.
    Leaf {
        issuer: Name,
        subject: Name,
        names: Vec<String>,
        rsa: bool,
    },
}

impl BuilderProfile for Profile {
    fn get_issuer(&self, subject: &Name) -> Name {
        match self {
            Profile::Root { .. } => subject.clone(),
            Profile::Leaf { issuer, .. } => issuer.clone(),
        }
    }

    fn get_subject(&self) -> Name {
        match self {
            Profile::Root { subject } | Profile::Leaf { subject, .. } => subject.clone(),
        }
    }

    fn build_extensions(
        &self,
        _spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let mut extensions = Vec::new();
        match self {
            Profile::Root { .. } => {
                extensions.push(
                    BasicConstraints {
                        ca: true,
                        path_len_constraint: Some(0),
                    }
                    .to_extension(tbs.subject(), &extensions)?,
                );
                extensions.push(
                    KeyUsage(KeyUsages::KeyCertSign | KeyUsages::CRLSign | KeyUsages::DigitalSignature)
                        .to_extension(tbs.subject(), &extensions)?,
                );
            }
            Profile::Leaf { names, rsa, .. } => {
                let dns = names
                    .iter()
                    .map(|n| Ia5String::new(n).map(GeneralName::DnsName))
                    .collect::<Result<Vec<_>, _>>()?;
                extensions.push(SubjectAltName(dns).to_extension(tbs.subject(), &extensions)?);
                extensions.push(
                    BasicConstraints {
                        ca: false,
                        path_len_constraint: None,
                    }
                    .to_extension(tbs.subject(), &extensions)?,
                );
                let usage = if *rsa {
                    KeyUsages::DigitalSignature | KeyUsages::KeyEncipherment
                } else {
                    KeyUsages::DigitalSignature.into()
                };
                extensions.push(KeyUsage(usage).to_extension(tbs.subject(), &extensions)?);
                extensions.push(
                    ExtendedKeyUsage(vec![
                        x509_cert::der::oid::db::rfc5280::ID_KP_SERVER_AUTH,
                        x509_cert::der::oid::db::rfc5280::ID_KP_CLIENT_AUTH,
                    ])
                    .to_extension(tbs.subject(), &extensions)?,
                );
            }
        }
        Ok(extensions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_certificates_name_their_domains_and_chain_to_the_root() {
        let authority = Authority::new(1_700_000_000_000);
        let names = vec!["example.org".to_owned(), "*.example.org".to_owned()];
        let issued = authority
            .issue(&names, LeafKey::EcP256, 1_700_000_000_000)
            .expect("issued");
        assert_eq!(issued.facts.domain_name, "example.org");
        assert_eq!(issued.facts.alternative_names, names);
        assert_eq!(issued.facts.issuer, "Amazon");
        assert_eq!(issued.facts.key_algorithm, "EC_prime256v1");
        assert_eq!(issued.facts.signature_algorithm, "SHA256WITHRSA");
        assert_eq!(issued.facts.key_usages, ["DIGITAL_SIGNATURE"]);
        assert_eq!(issued.facts.extended_key_usages[0].0, "TLS_WEB_SERVER_AUTHENTICATION");
        let leaf = inspect::certificate(issued.certificate_pem.as_bytes()).expect("PEM");
        let root = inspect::certificate(authority.chain_pem().as_bytes()).expect("PEM");
        assert_eq!(leaf.tbs_certificate().issuer(), root.tbs_certificate().subject());
    }
}
