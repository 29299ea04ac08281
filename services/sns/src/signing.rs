//! Message signatures. SNS signs the envelopes it sends to queues, functions and HTTP
//! endpoints with a key of its own and serves the key's certificate at `SigningCertURL`, so a
//! subscriber verifies a message as it would on AWS: `SignatureVersion` 1 is SHA1withRSA and
//! 2 is SHA256withRSA, over the message's canonical string (AWS's guide, "Verifying the
//! signatures of Amazon SNS messages").
//!
//! Each account and region has one 2048-bit RSA key, made when it first signs and kept in the
//! region's store, so messages signed before a restart still verify after it. Signing happens
//! as a delivery is made, off the path that acknowledges a publish.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use base64::Engine;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use stratus_core::AwsError;
use stratus_storage::Table;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::der::{Encode, EncodePem};
use x509_cert::ext::Extension;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{SubjectPublicKeyInfo, SubjectPublicKeyInfoRef};
use x509_cert::time::{Time, Validity};
use x509_cert::TbsCertificate;

use stratus_core::context::RequestContext;
use stratus_core::service::{BoxFuture, WebAnswer, WebEndpoints, WebRequest};
use stratus_outbox::Place;

use crate::delivery::Delivery;
use crate::error::SnsError;
use crate::service::SnsService;

/// The table holding the region's key, under [`KEY`].
const SIGNING_KEYS: Table<StoredKey> = Table::new("signing_keys");
const KEY: &str = "current";
/// Where the gateway routes certificate downloads to SNS.
pub(crate) const CERT_PATH: &str = "/_stratus/sns/";
/// How long a certificate is valid.
const VALIDITY: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// A region's signing key as stored: the private key (PKCS #8 DER) and its certificate.
#[derive(Serialize, Deserialize, Clone)]
struct StoredKey {
    private_key: Vec<u8>,
    certificate_pem: String,
}

/// A region's key, ready to sign.
pub(crate) struct RegionKey {
    key: rsa::PrivateKey,
    certificate_pem: String,
    /// The certificate's file name, `SimpleNotificationService-<digest>.pem` as AWS names it.
    file_name: String,
}

/// The keys signed with so far, by account and region.
#[derive(Default)]
pub(crate) struct Keys(Mutex<HashMap<(String, String), Arc<RegionKey>>>);

/// How a delivery is signed: the version the topic asks for, and the endpoint whose address
/// the certificate URL takes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) struct Signing {
    pub(crate) version: String,
    pub(crate) endpoint: String,
}

impl RegionKey {
    fn from_stored(stored: StoredKey) -> Option<RegionKey> {
        let key = rsa::PrivateKey::from_pkcs8_der(&stored.private_key).ok()?;
        let digest = Sha256::digest(stored.certificate_pem.as_bytes());
        let file_name = format!(
            "SimpleNotificationService-{}.pem",
            stratus_core::hex::encode(&digest[..16])
        );
        Some(RegionKey {
            key,
            certificate_pem: stored.certificate_pem,
            file_name,
        })
    }

    /// The URL of this key's certificate, on `endpoint`, for `account` and `region`.
    pub(crate) fn certificate_url(&self, endpoint: &str, account: &str, region: &str) -> String {
        format!("{endpoint}{CERT_PATH}{account}/{region}/{}", self.file_name)
    }

    /// The signature of `canonical` for `version` ("2": SHA256withRSA, else SHA1withRSA), base64.
    fn sign(&self, version: &str, canonical: &str) -> String {
        let signature = if version == "2" {
            self.key
                .sign(rsa::Pkcs1v15Sign::new::<Sha256>(), &Sha256::digest(canonical))
        } else {
            self.key
                .sign(rsa::Pkcs1v15Sign::new::<Sha1>(), &Sha1::digest(canonical))
        };
        // Signing with a well-formed private key does not fail.
        base64::engine::general_purpose::STANDARD.encode(signature.unwrap_or_default())
    }
}

/// A fresh key and its self-signed certificate, valid from `now_ms`.
fn new_key(now_ms: i64) -> StoredKey {
    let key = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).expect("RSA key generation");
    let public = key
        .to_public_key()
        .to_public_key_der()
        .expect("RSA public key encoding");
    let spki = SubjectPublicKeyInfo::try_from(public.as_bytes()).expect("a public key just encoded");
    let start = SystemTime::UNIX_EPOCH + Duration::from_millis(u64::try_from(now_ms).unwrap_or(0));
    let validity = Validity::new(
        Time::try_from(start).expect("a time after 1970"),
        Time::try_from(start + VALIDITY).expect("a time within X.509's range"),
    );
    // A positive serial number of 16 random bytes.
    let mut serial = [0u8; 16];
    getrandom::fill(&mut serial).expect("the system's random source");
    serial[0] &= 0x7f;
    let serial = SerialNumber::new(&serial).expect("a 16-byte serial number");
    let signer = SigningKey::<Sha256>::new(key.clone());
    let certificate = CertificateBuilder::new(SelfSigned::new(), serial, validity, spki)
        .and_then(|builder| builder.build::<_, rsa::pkcs1v15::Signature>(&signer))
        .expect("a self-signed certificate");
    let certificate_pem = certificate
        .to_pem(x509_cert::der::pem::LineEnding::LF)
        .expect("PEM encoding");
    debug_assert!(certificate.to_der().is_ok());
    StoredKey {
        private_key: key.to_pkcs8_der().expect("RSA key encoding").as_bytes().to_vec(),
        certificate_pem,
    }
}

/// A certificate for a signing key alone, issued by itself: no extensions.
struct SelfSigned {
    subject: Name,
}

impl SelfSigned {
    fn new() -> SelfSigned {
        SelfSigned {
            subject: "CN=sns.amazonaws.com".parse().expect("a distinguished name"),
        }
    }
}

impl BuilderProfile for SelfSigned {
    fn get_issuer(&self, subject: &Name) -> Name {
        subject.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        _spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        _tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        Ok(Vec::new())
    }
}

impl SnsService {
    /// The signing key of `account` and `region`, made and stored on first use.
    pub(crate) async fn region_key(&self, account: &str, region: &str) -> Result<Arc<RegionKey>, SnsError> {
        let id = (account.to_owned(), region.to_owned());
        if let Some(key) = self
            .shared
            .keys
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
        {
            return Ok(key.clone());
        }
        let stored = match SIGNING_KEYS.get(&*self.store(account, region)?, KEY)? {
            Some(stored) => stored,
            None => {
                let now = self.now_ms();
                let fresh = tokio::task::spawn_blocking(move || new_key(now))
                    .await
                    .map_err(|_| internal("signing key generation stopped"))?;
                // Another delivery may have stored a key meanwhile: the first one stored wins.
                self.transact(account, region, move |tx| match SIGNING_KEYS.get(tx, KEY)? {
                    Some(earlier) => Ok(earlier),
                    None => {
                        SIGNING_KEYS.put(tx, KEY, &fresh)?;
                        Ok(fresh)
                    }
                })
                .await?
            }
        };
        let key = Arc::new(RegionKey::from_stored(stored).ok_or_else(|| internal("corrupt signing key"))?);
        self.shared
            .keys
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, key.clone());
        Ok(key)
    }

    /// `d` with its bodies signed, as it is delivered.
    pub(crate) async fn signed(&self, to: &Place, d: &Delivery, signing: &Signing) -> Result<Delivery, SnsError> {
        let key = self.region_key(&to.account, &to.region).await?;
        let url = key.certificate_url(&signing.endpoint, &to.account, &to.region);
        let mut signed = d.clone();
        signed.body = sign_body(&d.body, &key, &signing.version, &url);
        if let Some((_, body)) = &mut signed.dead_letter {
            *body = sign_body(body, &key, &signing.version, &url);
        }
        Ok(signed)
    }

    /// The PEM certificate `file_name` of `account` and `region`, if it is theirs.
    pub(crate) fn certificate(&self, account: &str, region: &str, file_name: &str) -> Option<String> {
        let stored = SIGNING_KEYS.get(&*self.store(account, region).ok()?, KEY).ok()??;
        let key = RegionKey::from_stored(stored)?;
        (key.file_name == file_name).then_some(key.certificate_pem)
    }
}

/// The certificates, at `/_stratus/sns/ACCOUNT/REGION/SimpleNotificationService-….pem`.
impl WebEndpoints for SnsService {
    fn claims(&self, _host: &str, path: &str) -> bool {
        path.starts_with(CERT_PATH)
    }

    fn answer<'a>(&'a self, _ctx: &'a RequestContext, req: WebRequest<'a>) -> BoxFuture<'a, WebAnswer> {
        Box::pin(async move {
            let parts: Vec<&str> = req.path[CERT_PATH.len()..].split('/').collect();
            let found = match (req.method, parts.as_slice()) {
                ("GET" | "HEAD", [account, region, file]) => self.certificate(account, region, file),
                _ => None,
            };
            match found {
                Some(pem) => WebAnswer::new(200, "application/x-x509-ca-cert", pem),
                None => WebAnswer::new(404, "text/plain", "Not Found"),
            }
        })
    }
}

fn internal(message: &str) -> SnsError {
    SnsError(AwsError::new("InternalError", message, 500))
}

/// The string SNS signs for a message: each signed field as `Name\nValue\n`, in AWS's order.
/// A notification signs `Message`, `MessageId`, `Subject` (when present), `Timestamp`,
/// `TopicArn` and `Type`; a (un)subscription confirmation `Message`, `MessageId`,
/// `SubscribeURL`, `Timestamp`, `Token`, `TopicArn` and `Type`.
pub(crate) fn canonical_string(message: &Map<String, Value>) -> Option<String> {
    let fields: &[&str] = match message.get("Type")?.as_str()? {
        "Notification" => &["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
        "SubscriptionConfirmation" | "UnsubscribeConfirmation" => &[
            "Message",
            "MessageId",
            "SubscribeURL",
            "Timestamp",
            "Token",
            "TopicArn",
            "Type",
        ],
        _ => return None,
    };
    let mut canonical = String::new();
    for field in fields {
        match message.get(*field) {
            Some(Value::String(value)) => {
                canonical.push_str(field);
                canonical.push('\n');
                canonical.push_str(value);
                canonical.push('\n');
            }
            // Only a notification's subject may be missing (or null, in a function's event).
            None | Some(Value::Null) if *field == "Subject" => {}
            _ => return None,
        }
    }
    Some(canonical)
}

/// `body`, an envelope (or a function's event, whose `Records[0].Sns` is the envelope), with
/// `Signature` made for `version` and the certificate's URL written after `SignatureVersion`,
/// as AWS orders them. A body that is neither is answered unchanged.
pub(crate) fn sign_body(body: &str, key: &RegionKey, version: &str, certificate_url: &str) -> String {
    let Ok(Value::Object(mut root)) = serde_json::from_str::<Value>(body) else {
        return body.to_owned();
    };
    let in_event = !root.contains_key("Type");
    let message = if in_event {
        match root
            .get_mut("Records")
            .and_then(|r| r.get_mut(0))
            .and_then(|r| r.get_mut("Sns"))
        {
            Some(Value::Object(sns)) => sns,
            _ => return body.to_owned(),
        }
    } else {
        &mut root
    };
    let (Some(canonical), true) = (canonical_string(message), message.contains_key("SignatureVersion")) else {
        return body.to_owned();
    };
    let signature = key.sign(version, &canonical);
    // A function's event spells the URL's name in its own case.
    let url_name = if in_event { "SigningCertUrl" } else { "SigningCertURL" };
    let mut signed = Map::new();
    for (name, value) in std::mem::take(message) {
        let after_version = name == "SignatureVersion";
        signed.insert(name, value);
        if after_version {
            signed.insert("Signature".into(), Value::String(signature.clone()));
            signed.insert(url_name.into(), Value::String(certificate_url.to_owned()));
        }
    }
    *message = signed;
    Value::Object(root).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsa::traits::PublicKeyParts;
    use serde_json::json;

    /// One key for every test: an RSA key takes a while to make.
    fn stored() -> StoredKey {
        static STORED: std::sync::OnceLock<StoredKey> = std::sync::OnceLock::new();
        STORED.get_or_init(|| new_key(1_700_000_000_000)).clone()
    }

    fn key() -> RegionKey {
        RegionKey::from_stored(stored()).unwrap()
    }

    /// Whether `message`'s `Signature` is `key`'s, for `version`.
    fn verifies(key: &RegionKey, message: &Map<String, Value>, version: &str) -> bool {
        let signature = base64::engine::general_purpose::STANDARD
            .decode(message["Signature"].as_str().unwrap())
            .unwrap();
        assert_eq!(signature.len(), key.key.size());
        let canonical = canonical_string(message).unwrap();
        let public = key.key.to_public_key();
        match version {
            "2" => public.verify(
                rsa::Pkcs1v15Sign::new::<Sha256>(),
                &Sha256::digest(&canonical),
                &signature,
            ),
            _ => public.verify(rsa::Pkcs1v15Sign::new::<Sha1>(), &Sha1::digest(&canonical), &signature),
        }
        .is_ok()
    }

    #[test]
    fn canonical_strings_follow_aws_field_lists() {
        let note = json!({
            "Type": "Notification", "MessageId": "m", "TopicArn": "t", "Message": "hello",
            "Timestamp": "2024-01-01T00:00:00.000Z", "SignatureVersion": "1", "UnsubscribeURL": "u"
        });
        assert_eq!(
            canonical_string(note.as_object().unwrap()).unwrap(),
            "Message\nhello\nMessageId\nm\nTimestamp\n2024-01-01T00:00:00.000Z\nTopicArn\nt\nType\nNotification\n"
        );
        let mut with_subject = note.as_object().unwrap().clone();
        with_subject.insert("Subject".into(), json!("s"));
        assert!(canonical_string(&with_subject)
            .unwrap()
            .contains("MessageId\nm\nSubject\ns\nTimestamp"));
        let confirmation = json!({
            "Type": "SubscriptionConfirmation", "MessageId": "m", "Token": "tok", "TopicArn": "t",
            "Message": "msg", "SubscribeURL": "url", "Timestamp": "ts"
        });
        assert_eq!(
            canonical_string(confirmation.as_object().unwrap()).unwrap(),
            "Message\nmsg\nMessageId\nm\nSubscribeURL\nurl\nTimestamp\nts\nToken\ntok\nTopicArn\nt\nType\nSubscriptionConfirmation\n"
        );
        assert!(canonical_string(json!({"Type": "Other"}).as_object().unwrap()).is_none());
    }

    #[test]
    fn signed_envelopes_verify_and_keep_aws_order() {
        let key = key();
        let body = json!({
            "Type": "Notification", "MessageId": "m", "TopicArn": "t", "Message": "hello",
            "Timestamp": "ts", "SignatureVersion": "2", "UnsubscribeURL": "u"
        })
        .to_string();
        let signed: Map<String, Value> = serde_json::from_str(&sign_body(&body, &key, "2", "http://cert")).unwrap();
        assert_eq!(
            signed.keys().collect::<Vec<_>>(),
            [
                "Type",
                "MessageId",
                "TopicArn",
                "Message",
                "Timestamp",
                "SignatureVersion",
                "Signature",
                "SigningCertURL",
                "UnsubscribeURL"
            ]
        );
        assert!(verifies(&key, &signed, "2"));
    }

    #[test]
    fn a_function_event_is_signed_inside_and_names_the_url_in_its_case() {
        let key = key();
        let body = json!({"Records": [{"EventSource": "aws:sns", "Sns": {
            "Type": "Notification", "MessageId": "m", "TopicArn": "t", "Subject": null, "Message": "hi",
            "Timestamp": "ts", "SignatureVersion": "1", "UnsubscribeUrl": "u"
        }}]})
        .to_string();
        let signed: Value = serde_json::from_str(&sign_body(&body, &key, "2", "http://cert")).unwrap();
        let sns = &signed["Records"][0]["Sns"];
        assert_eq!(sns["SigningCertUrl"], "http://cert");
        // The event says version 1 while the topic's version 2 signed it, as on AWS.
        assert_eq!(sns["SignatureVersion"], "1");
        assert!(verifies(&key, sns.as_object().unwrap(), "2"));
        assert!(!verifies(&key, sns.as_object().unwrap(), "1"));
        let mut tampered = sns.as_object().unwrap().clone();
        tampered.insert("Message".into(), json!("not hi"));
        assert!(!verifies(&key, &tampered, "2"));
    }

    #[test]
    fn what_is_not_an_envelope_is_left_alone() {
        let key = key();
        for body in ["raw text", "[1]", r#"{"Type":"Notification"}"#] {
            assert_eq!(sign_body(body, &key, "1", "u"), body);
        }
    }

    #[test]
    fn a_stored_key_names_its_certificate_stably() {
        let a = key();
        let b = key();
        assert_eq!(a.file_name, b.file_name);
        assert!(a.file_name.starts_with("SimpleNotificationService-") && a.file_name.ends_with(".pem"));
        assert!(a.certificate_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert_eq!(
            a.certificate_url("http://localhost:4566", "000000000000", "us-east-1"),
            format!(
                "http://localhost:4566/_stratus/sns/000000000000/us-east-1/{}",
                a.file_name
            )
        );
    }
}
