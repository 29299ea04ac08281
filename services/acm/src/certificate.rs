//! A certificate as stored, its status at a moment, and the two ways ACM shows it:
//! DescribeCertificate's detail and ListCertificates' summary.
//!
//! A requested certificate is signed when it is requested, and its validation completes
//! [`VALIDATION_DELAY_MS`] later: until then it is `PENDING_VALIDATION` and shows none of
//! the signed certificate's facts, as AWS shows nothing of it before issuance. The status is
//! worked out from the clock when read, so nothing runs while a certificate waits.

use serde::{Deserialize, Serialize};
use stratus_core::value::DateTime;
use stratus_gen_acm::*;

use crate::inspect::Facts;

/// How long DNS or email validation takes: the moment after a request at which the
/// certificate is `ISSUED` (AWS takes from seconds to minutes once the record is in DNS).
pub(crate) const VALIDATION_DELAY_MS: i64 = 5_000;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(crate) enum Origin {
    /// RequestCertificate: `AMAZON_ISSUED`.
    Requested,
    /// ImportCertificate: `IMPORTED`.
    Imported,
}

#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct CertificateRecord {
    pub(crate) arn: String,
    pub(crate) origin: Origin,
    /// The domain requested, or the imported certificate's.
    pub(crate) domain_name: String,
    /// Every name the certificate covers, the domain first.
    pub(crate) names: Vec<String>,
    /// Requested certificates: `DNS` or `EMAIL`.
    pub(crate) validation_method: Option<String>,
    /// Requested certificates: the validation domain asked for each name, if any.
    pub(crate) validation_domains: Vec<(String, String)>,
    /// `RSA_2048`, `EC_prime256v1`, … (ListCertificates' filter spelling).
    pub(crate) key_algorithm: String,
    pub(crate) created_ms: i64,
    pub(crate) imported_ms: Option<i64>,
    /// Requested certificates: when validation completes and the certificate is issued.
    pub(crate) issued_ms: Option<i64>,
    pub(crate) certificate_pem: String,
    pub(crate) chain_pem: Option<String>,
    /// Requested certificates: the private key, PKCS #8 DER, for ExportCertificate.
    pub(crate) private_key: Option<Vec<u8>>,
    pub(crate) facts: Facts,
    pub(crate) transparency_logging: String,
    pub(crate) export: String,
    pub(crate) exported: bool,
    pub(crate) tags: Vec<(String, Option<String>)>,
    pub(crate) idempotency_token: Option<String>,
    pub(crate) revoked: Option<(i64, String)>,
    /// The last renewal's moment.
    pub(crate) renewed_ms: Option<i64>,
}

impl CertificateRecord {
    /// The certificate's status at `now_ms`.
    pub(crate) fn status(&self, now_ms: i64) -> CertificateStatus {
        if self.revoked.is_some() {
            CertificateStatus::Revoked
        } else if !self.is_issued(now_ms) {
            CertificateStatus::PendingValidation
        } else if now_ms > self.facts.not_after_ms {
            CertificateStatus::Expired
        } else {
            CertificateStatus::Issued
        }
    }

    /// Whether the certificate exists as a signed certificate by `now_ms`.
    pub(crate) fn is_issued(&self, now_ms: i64) -> bool {
        self.issued_ms.is_none_or(|at| now_ms >= at)
    }

    fn kind(&self) -> CertificateType {
        match self.origin {
            Origin::Requested => CertificateType::AmazonIssued,
            Origin::Imported => CertificateType::Imported,
        }
    }

    /// `RSA-2048`, `EC-prime256v1`: the descriptions spell the key type with a hyphen,
    /// the filters with an underscore (AWS's recorded answers).
    fn shown_key_algorithm(&self) -> KeyAlgorithm {
        KeyAlgorithm::from_wire(&self.key_algorithm.replacen('_', "-", 1))
    }

    fn domain_validations(&self, now_ms: i64, account_seed: &str) -> Vec<DomainValidation> {
        let Some(method) = &self.validation_method else {
            // An imported certificate names its domains and nothing else.
            return self
                .names
                .iter()
                .map(|name| DomainValidation {
                    domain_name: name.clone(),
                    ..DomainValidation::default()
                })
                .collect();
        };
        let status = if self.is_issued(now_ms) {
            DomainStatus::Success
        } else {
            DomainStatus::PendingValidation
        };
        self.names
            .iter()
            .map(|name| {
                let validation_domain = self
                    .validation_domains
                    .iter()
                    .find(|(domain, _)| domain == name)
                    .map_or_else(|| name.clone(), |(_, v)| v.clone());
                let dns = method == "DNS";
                DomainValidation {
                    domain_name: name.clone(),
                    validation_emails: (!dns).then(Vec::new),
                    validation_domain: Some(validation_domain),
                    validation_status: Some(status.clone()),
                    resource_record: dns.then(|| crate::validation::record(account_seed, name)),
                    http_redirect: None,
                    validation_method: Some(ValidationMethod::from_wire(method)),
                }
            })
            .collect()
    }

    /// DescribeCertificate's view at `now_ms`.
    pub(crate) fn detail(&self, now_ms: i64, account: &str) -> CertificateDetail {
        let issued = self.is_issued(now_ms);
        let moment = |ms| issued.then(|| DateTime::from_millis(ms));
        CertificateDetail {
            certificate_arn: Some(self.arn.clone()),
            domain_name: Some(self.domain_name.clone()),
            subject_alternative_names: Some(self.names.clone()),
            managed_by: None,
            domain_validation_options: Some(self.domain_validations(now_ms, account)),
            serial: issued.then(|| self.facts.serial.clone()),
            subject: Some(if issued {
                self.facts.subject.clone()
            } else {
                format!("CN={}", self.domain_name)
            }),
            issuer: Some(self.facts.issuer.clone()),
            created_at: Some(DateTime::from_millis(self.created_ms)),
            issued_at: self
                .issued_ms
                .filter(|_| issued)
                .map(|at| DateTime::from_millis(self.renewed_ms.unwrap_or(at))),
            imported_at: self.imported_ms.map(DateTime::from_millis),
            status: Some(self.status(now_ms)),
            revoked_at: self.revoked.as_ref().map(|(at, _)| DateTime::from_millis(*at)),
            revocation_reason: self.revoked.as_ref().map(|(_, why)| RevocationReason::from_wire(why)),
            not_before: moment(self.facts.not_before_ms),
            not_after: moment(self.facts.not_after_ms),
            key_algorithm: Some(self.shown_key_algorithm()),
            signature_algorithm: Some(self.facts.signature_algorithm.clone()),
            in_use_by: Some(Vec::new()),
            failure_reason: None,
            r#type: Some(self.kind()),
            renewal_summary: self.renewed_ms.map(|at| RenewalSummary {
                renewal_status: RenewalStatus::Success,
                domain_validation_options: self.domain_validations(now_ms, account),
                renewal_status_reason: None,
                updated_at: DateTime::from_millis(at),
            }),
            key_usages: Some(if issued { self.key_usages() } else { Vec::new() }),
            extended_key_usages: Some(if issued { self.extended_key_usages() } else { Vec::new() }),
            certificate_authority_arn: None,
            renewal_eligibility: Some(self.renewal_eligibility()),
            options: Some(CertificateOptions {
                certificate_transparency_logging_preference: Some(CertificateTransparencyLoggingPreference::from_wire(
                    &self.transparency_logging,
                )),
                export: Some(CertificateExport::from_wire(&self.export)),
            }),
        }
    }

    /// ListCertificates' view at `now_ms`.
    pub(crate) fn summary(&self, now_ms: i64) -> CertificateSummary {
        let issued = self.is_issued(now_ms);
        let moment = |ms| issued.then(|| DateTime::from_millis(ms));
        let imported = self.origin == Origin::Imported;
        CertificateSummary {
            certificate_arn: Some(self.arn.clone()),
            domain_name: Some(self.domain_name.clone()),
            subject_alternative_name_summaries: Some(self.names.clone()),
            has_additional_subject_alternative_names: Some(false),
            status: Some(self.status(now_ms)),
            r#type: Some(self.kind()),
            key_algorithm: Some(self.shown_key_algorithm()),
            key_usages: Some(if issued {
                self.facts
                    .key_usages
                    .iter()
                    .map(|n| KeyUsageName::from_wire(n))
                    .collect()
            } else {
                Vec::new()
            }),
            extended_key_usages: Some(if issued {
                self.facts
                    .extended_key_usages
                    .iter()
                    .map(|(n, _)| ExtendedKeyUsageName::from_wire(n))
                    .collect()
            } else {
                Vec::new()
            }),
            // AWS's recorded summaries show the export option of imported certificates and
            // whether a requested one was exported.
            export_option: (imported || self.export == "ENABLED").then(|| CertificateExport::from_wire(&self.export)),
            in_use: Some(false),
            exported: (!imported).then_some(self.exported),
            renewal_eligibility: Some(self.renewal_eligibility()),
            not_before: moment(self.facts.not_before_ms),
            not_after: moment(self.facts.not_after_ms),
            created_at: Some(DateTime::from_millis(self.created_ms)),
            issued_at: self.issued_ms.filter(|_| issued).map(DateTime::from_millis),
            imported_at: self.imported_ms.map(DateTime::from_millis),
            revoked_at: self.revoked.as_ref().map(|(at, _)| DateTime::from_millis(*at)),
            managed_by: None,
        }
    }

    fn key_usages(&self) -> Vec<KeyUsage> {
        self.facts
            .key_usages
            .iter()
            .map(|n| KeyUsage {
                name: Some(KeyUsageName::from_wire(n)),
            })
            .collect()
    }

    fn extended_key_usages(&self) -> Vec<ExtendedKeyUsage> {
        self.facts
            .extended_key_usages
            .iter()
            .map(|(name, oid)| ExtendedKeyUsage {
                name: Some(ExtendedKeyUsageName::from_wire(name)),
                oid: Some(oid.clone()),
            })
            .collect()
    }

    /// Only certificates in use renew by themselves, and nothing uses a Stratus certificate
    /// (`InUseBy` is always empty), so ACM would not renew any: `INELIGIBLE`.
    fn renewal_eligibility(&self) -> RenewalEligibility {
        RenewalEligibility::Ineligible
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authority::{Authority, LeafKey};

    fn requested(now: i64) -> CertificateRecord {
        let authority = Authority::new(now);
        let names = vec!["example.org".to_owned()];
        let issued = authority
            .issue(&names, LeafKey::Rsa2048, now + VALIDATION_DELAY_MS)
            .expect("issued");
        CertificateRecord {
            arn: "arn:aws:acm:us-east-1:111111111111:certificate/x".to_owned(),
            origin: Origin::Requested,
            domain_name: names[0].clone(),
            names,
            validation_method: Some("DNS".to_owned()),
            validation_domains: Vec::new(),
            key_algorithm: "RSA_2048".to_owned(),
            created_ms: now,
            imported_ms: None,
            issued_ms: Some(now + VALIDATION_DELAY_MS),
            certificate_pem: issued.certificate_pem,
            chain_pem: None,
            private_key: Some(issued.private_key),
            facts: issued.facts,
            transparency_logging: "ENABLED".to_owned(),
            export: "DISABLED".to_owned(),
            exported: false,
            tags: Vec::new(),
            idempotency_token: None,
            revoked: None,
            renewed_ms: None,
        }
    }

    #[test]
    fn a_request_is_pending_then_issued_then_expired() {
        let now = 1_700_000_000_000;
        let mut record = requested(now);
        assert_eq!(record.status(now), CertificateStatus::PendingValidation);
        let pending = record.detail(now, "111111111111");
        assert_eq!(pending.serial, None);
        assert_eq!(pending.key_usages, Some(Vec::new()));
        assert_eq!(pending.subject.as_deref(), Some("CN=example.org"));
        let issued_at = now + VALIDATION_DELAY_MS;
        assert_eq!(record.status(issued_at), CertificateStatus::Issued);
        assert!(record.detail(issued_at, "111111111111").serial.is_some());
        assert_eq!(record.status(record.facts.not_after_ms + 1), CertificateStatus::Expired);
        record.revoked = Some((issued_at, "KEY_COMPROMISE".to_owned()));
        assert_eq!(record.status(issued_at), CertificateStatus::Revoked);
    }

    #[test]
    fn key_types_are_shown_with_a_hyphen_and_filtered_with_an_underscore() {
        let record = requested(1_700_000_000_000);
        assert_eq!(record.shown_key_algorithm().as_str(), "RSA-2048");
        assert_eq!(record.key_algorithm, "RSA_2048");
    }
}
