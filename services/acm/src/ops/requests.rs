//! Certificates the local CA issues: RequestCertificate, RenewCertificate and
//! ResendValidationEmail.

use stratus_core::{RequestContext, Unit};
use stratus_gen_acm::*;

use crate::authority::{Authority, Issued, LeafKey};
use crate::certificate::{CertificateRecord, Origin, VALIDATION_DELAY_MS};
use crate::error::{internal, invalid_parameter, invalid_state, validation, AcmError};
use crate::ops::tags::{check_tags, tag_pairs};
use crate::ops::{insert, load, modify, new_arn};
use crate::service::AcmService;
use crate::store::{AUTHORITIES, CERTIFICATES, ROOT};

/// How long an IdempotencyToken names the certificate it requested (the API reference:
/// one hour).
const IDEMPOTENCY_MS: i64 = 3_600_000;

pub(crate) async fn request_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: RequestCertificateRequest,
) -> Result<RequestCertificateResponse, AcmError> {
    if let Some(authority) = &input.certificate_authority_arn {
        // Stratus serves no private CA, so every private CA is one that does not exist.
        return Err(AcmError(stratus_core::AwsError::new(
            "ResourceNotFoundException",
            format!("Could not find certificate authority {authority}."),
            400,
        )));
    }
    let key_name = input
        .key_algorithm
        .as_ref()
        .map_or("RSA_2048", |k| k.as_str())
        .to_owned();
    let key = LeafKey::from_wire(&key_name).ok_or_else(|| {
        invalid_parameter(format!(
            "The key algorithm {key_name} is not supported for requested certificates; use RSA_2048, EC_prime256v1 or EC_secp384r1."
        ))
    })?;
    let names = names(&input.domain_name, input.subject_alternative_names.unwrap_or_default());
    let validation_domains: Vec<(String, String)> = input
        .domain_validation_options
        .unwrap_or_default()
        .into_iter()
        .map(|o| (o.domain_name, o.validation_domain))
        .collect();
    if let Some((stray, _)) = validation_domains.iter().find(|(d, _)| !names.contains(d)) {
        return Err(AcmError(stratus_core::AwsError::new(
            "InvalidDomainValidationOptionsException",
            format!("DomainValidationOption {stray} is not one of the certificate's domain names."),
            400,
        )));
    }
    let tags = tag_pairs(input.tags.unwrap_or_default());
    check_tags(&tags, None)?;
    let now = acm.now_ms();

    let store = acm.store(&ctx.account_id, &ctx.region)?;
    if let Some(token) = &input.idempotency_token {
        let earlier = CERTIFICATES.scan_prefix(&*store, "")?.into_iter().find(|(_, c)| {
            c.idempotency_token.as_deref() == Some(token.as_str())
                && c.domain_name == input.domain_name
                && now - c.created_ms < IDEMPOTENCY_MS
        });
        if let Some((_, earlier)) = earlier {
            return Ok(RequestCertificateResponse {
                certificate_arn: Some(earlier.arn),
            });
        }
    }

    let authority = local_authority(acm, ctx).await?;
    let issued_ms = now + VALIDATION_DELAY_MS;
    let issued = sign(&authority, names.clone(), key, issued_ms).await?;
    let (id, arn) = new_arn(ctx);
    let options = input.options.unwrap_or_default();
    let record = CertificateRecord {
        arn,
        origin: Origin::Requested,
        domain_name: input.domain_name,
        names,
        validation_method: Some(
            input
                .validation_method
                .as_ref()
                .map_or("EMAIL", |m| m.as_str())
                .to_owned(),
        ),
        validation_domains,
        key_algorithm: key_name,
        created_ms: now,
        imported_ms: None,
        issued_ms: Some(issued_ms),
        certificate_pem: issued.certificate_pem,
        chain_pem: Some(authority.chain_pem()),
        private_key: Some(issued.private_key),
        facts: issued.facts,
        transparency_logging: options
            .certificate_transparency_logging_preference
            .as_ref()
            .map_or("ENABLED", |p| p.as_str())
            .to_owned(),
        export: options.export.as_ref().map_or("DISABLED", |e| e.as_str()).to_owned(),
        exported: false,
        tags,
        idempotency_token: input.idempotency_token,
        revoked: None,
        renewed_ms: None,
    };
    Ok(RequestCertificateResponse {
        certificate_arn: Some(insert(acm, ctx, id, record).await?),
    })
}

/// The domain first, then the other names in the order given, each once.
fn names(domain: &str, alternatives: Vec<String>) -> Vec<String> {
    let mut names = vec![domain.to_owned()];
    for name in alternatives {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The local CA of the caller's account and region, made and stored on first use.
async fn local_authority(acm: &AcmService, ctx: &RequestContext) -> Result<Authority, AcmError> {
    if let Some(existing) = AUTHORITIES.get(&*acm.store(&ctx.account_id, &ctx.region)?, ROOT)? {
        return Ok(existing);
    }
    let now = acm.now_ms();
    let fresh = tokio::task::spawn_blocking(move || Authority::new(now))
        .await
        .map_err(|_| internal("the local CA's key generation stopped"))?;
    // Another request may have stored a root meanwhile: the first one stored wins.
    acm.transact(&ctx.account_id, &ctx.region, move |tx| {
        match AUTHORITIES.get(tx, ROOT)? {
            Some(earlier) => Ok(earlier),
            None => {
                AUTHORITIES.put(tx, ROOT, &fresh)?;
                Ok(fresh)
            }
        }
    })
    .await
}

/// A certificate for `names` signed by `authority`, off the request threads (RSA key
/// generation takes a while).
async fn sign(authority: &Authority, names: Vec<String>, key: LeafKey, from_ms: i64) -> Result<Issued, AcmError> {
    let authority = authority.clone();
    tokio::task::spawn_blocking(move || authority.issue(&names, key, from_ms))
        .await
        .map_err(|_| internal("certificate signing stopped"))?
        .ok_or_else(|| internal("the local CA's stored root is unreadable"))
}

/// Signs the certificate again with a fresh key and validity from now: what managed
/// renewal does for a certificate that is in use, on demand.
pub(crate) async fn renew_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: RenewCertificateRequest,
) -> Result<Unit, AcmError> {
    let arn = input.certificate_arn;
    let record = load(acm, ctx, &arn)?;
    let now = acm.now_ms();
    if record.origin == Origin::Imported {
        return Err(validation(format!(
            "Certificate {arn} is an imported certificate; import a new certificate to renew it."
        )));
    }
    if record.status(now) != CertificateStatus::Issued {
        return Err(invalid_state(format!(
            "Certificate {arn} can't be renewed because it is in the {} state.",
            record.status(now).as_str()
        )));
    }
    let key = LeafKey::from_wire(&record.key_algorithm).unwrap_or(LeafKey::Rsa2048);
    let authority = local_authority(acm, ctx).await?;
    let issued = sign(&authority, record.names.clone(), key, now).await?;
    modify(acm, ctx, &arn, move |c| {
        c.certificate_pem = issued.certificate_pem;
        c.private_key = Some(issued.private_key);
        c.facts = issued.facts;
        c.renewed_ms = Some(now);
        Ok(Unit)
    })
    .await
}

/// Stratus sends no mail: the validation completes by itself ([`VALIDATION_DELAY_MS`]),
/// so resending checks what AWS checks and does nothing more.
pub(crate) async fn resend_validation_email(
    acm: &AcmService,
    ctx: &RequestContext,
    input: ResendValidationEmailRequest,
) -> Result<Unit, AcmError> {
    let record = load(acm, ctx, &input.certificate_arn)?;
    if record.validation_method.as_deref() != Some("EMAIL")
        || record.status(acm.now_ms()) != CertificateStatus::PendingValidation
    {
        return Err(invalid_state(format!(
            "Certificate {} is not waiting for email validation.",
            input.certificate_arn
        )));
    }
    if !record.names.contains(&input.domain) {
        return Err(AcmError(stratus_core::AwsError::new(
            "InvalidDomainValidationOptionsException",
            format!("Domain {} is not one of the certificate's domain names.", input.domain),
            400,
        )));
    }
    Ok(Unit)
}
