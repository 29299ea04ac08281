//! Reading and changing certificates: DescribeCertificate, GetCertificate,
//! ExportCertificate, ListCertificates, DeleteCertificate, RevokeCertificate and
//! UpdateCertificateOptions.

use stratus_core::paging::{take_page, PageSize, Token};
use stratus_core::{RequestContext, Unit};
use stratus_gen_acm::*;

use crate::certificate::{CertificateRecord, Origin};
use crate::error::{in_progress, invalid_state, validation, AcmError};
use crate::export::encrypted_private_key_pem;
use crate::ops::{certificate_id, load, modify};
use crate::service::AcmService;
use crate::store::CERTIFICATES;

const CERTIFICATE_LISTING: Token = Token::for_listing("acm:ListCertificates");
const LIST_PAGE: PageSize = PageSize {
    min: 1,
    max: 1000,
    default: 1000,
};

pub(crate) async fn describe_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: DescribeCertificateRequest,
) -> Result<DescribeCertificateResponse, AcmError> {
    let record = load(acm, ctx, &input.certificate_arn)?;
    Ok(DescribeCertificateResponse {
        certificate: Some(record.detail(acm.now_ms(), &ctx.account_id)),
    })
}

pub(crate) async fn get_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: GetCertificateRequest,
) -> Result<GetCertificateResponse, AcmError> {
    let record = load(acm, ctx, &input.certificate_arn)?;
    if !record.is_issued(acm.now_ms()) {
        return Err(in_progress(&input.certificate_arn));
    }
    Ok(GetCertificateResponse {
        certificate: Some(record.certificate_pem),
        certificate_chain: record.chain_pem,
    })
}

/// Only certificates requested with `Export: ENABLED` have a key to hand out (ACM's
/// exportable public certificates); the key leaves encrypted under the passphrase.
pub(crate) async fn export_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: ExportCertificateRequest,
) -> Result<ExportCertificateResponse, AcmError> {
    let arn = input.certificate_arn;
    let record = load(acm, ctx, &arn)?;
    let key = match (&record.origin, record.export.as_str(), &record.private_key) {
        (Origin::Requested, "ENABLED", Some(key)) => key.clone(),
        _ => return Err(validation(format!("Certificate {arn} is not exportable."))),
    };
    if !record.is_issued(acm.now_ms()) {
        return Err(in_progress(&arn));
    }
    let passphrase = input.passphrase;
    let private_key = tokio::task::spawn_blocking(move || encrypted_private_key_pem(&key, &passphrase))
        .await
        .map_err(|_| crate::error::internal("the key's encryption stopped"))?;
    if !record.exported {
        modify(acm, ctx, &arn, |c| {
            c.exported = true;
            Ok(())
        })
        .await?;
    }
    Ok(ExportCertificateResponse {
        certificate: Some(record.certificate_pem),
        certificate_chain: record.chain_pem,
        private_key: Some(private_key),
    })
}

pub(crate) async fn list_certificates(
    acm: &AcmService,
    ctx: &RequestContext,
    input: ListCertificatesRequest,
) -> Result<ListCertificatesResponse, AcmError> {
    let size = LIST_PAGE.clamp(input.max_items);
    let after = match &input.next_token {
        Some(token) => Some(
            CERTIFICATE_LISTING
                .decode_str(token)
                .map_err(|_| validation("The nextToken is not valid."))?,
        ),
        None => None,
    };
    let now = acm.now_ms();
    let mut certificates: Vec<CertificateRecord> = CERTIFICATES
        .scan_prefix(&*acm.store(&ctx.account_id, &ctx.region)?, "")?
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| matches(c, &input, now))
        .collect();
    certificates.sort_by(|a, b| (a.created_ms, &a.arn).cmp(&(b.created_ms, &b.arn)));
    if input.sort_order == Some(SortOrder::Descending) {
        certificates.reverse();
    }
    let start = match &after {
        Some(arn) => certificates.iter().position(|c| &c.arn == arn).map_or(0, |i| i + 1),
        None => 0,
    };
    let (page, more) = take_page(certificates.into_iter().skip(start), size);
    let next_token = more
        .then(|| page.last().map(|c| CERTIFICATE_LISTING.encode_str(&c.arn)))
        .flatten();
    Ok(ListCertificatesResponse {
        next_token,
        certificate_summary_list: Some(page.iter().map(|c| c.summary(now)).collect()),
    })
}

/// Whether `c` passes ListCertificates' filters. Without `Includes.keyTypes` only RSA_2048
/// certificates are listed (the API reference: "Default filtering returns only RSA_2048
/// certificates"); each other filter keeps a certificate with any of the values asked.
fn matches(c: &CertificateRecord, input: &ListCertificatesRequest, now: i64) -> bool {
    if let Some(statuses) = &input.certificate_statuses {
        if !statuses.is_empty() && !statuses.contains(&c.status(now)) {
            return false;
        }
    }
    let includes = input.includes.clone().unwrap_or_default();
    let key_types = includes.key_types.unwrap_or_else(|| vec![KeyAlgorithm::Rsa2048]);
    if !key_types.iter().any(|k| k.as_str() == c.key_algorithm) {
        return false;
    }
    let issued = c.is_issued(now);
    if let Some(wanted) = includes.key_usage.filter(|w| !w.is_empty()) {
        let has = |name: &str| issued && c.facts.key_usages.iter().any(|u| u == name);
        if !wanted.iter().any(|w| w.as_str() == "ANY" || has(w.as_str())) {
            return false;
        }
    }
    if let Some(wanted) = includes.extended_key_usage.filter(|w| !w.is_empty()) {
        let usages: Vec<&str> = if issued {
            c.facts.extended_key_usages.iter().map(|(n, _)| n.as_str()).collect()
        } else {
            Vec::new()
        };
        let has = |name: &str| match name {
            "ANY" => true,
            "NONE" => usages.is_empty(),
            other => usages.contains(&other),
        };
        if !wanted.iter().any(|w| has(w.as_str())) {
            return false;
        }
    }
    if let Some(export) = includes.export_option {
        if export.as_str() != c.export {
            return false;
        }
    }
    // Stratus manages no certificate for CloudFront.
    includes.managed_by.is_none()
}

pub(crate) async fn delete_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: DeleteCertificateRequest,
) -> Result<Unit, AcmError> {
    let arn = input.certificate_arn;
    let id = certificate_id(ctx, &arn)?;
    acm.transact(&ctx.account_id, &ctx.region, move |tx| {
        if CERTIFICATES.get(tx, &id)?.is_none() {
            return Err(crate::error::not_found(&arn));
        }
        CERTIFICATES.delete(tx, id);
        Ok(Unit)
    })
    .await
}

/// Only exportable certificates can be revoked (ACM's user guide, "Revoke a public
/// certificate"): their keys may have left ACM.
pub(crate) async fn revoke_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: RevokeCertificateRequest,
) -> Result<RevokeCertificateResponse, AcmError> {
    let arn = input.certificate_arn;
    let now = acm.now_ms();
    let reason = input.revocation_reason.as_str().to_owned();
    let revoked = arn.clone();
    modify(acm, ctx, &arn, move |c| {
        if c.origin != Origin::Requested || c.export != "ENABLED" {
            return Err(validation(format!(
                "Certificate {revoked} can't be revoked: only exportable certificates can be revoked."
            )));
        }
        if c.status(now) != CertificateStatus::Issued {
            return Err(invalid_state(format!(
                "Certificate {revoked} can't be revoked because it is in the {} state.",
                c.status(now).as_str()
            )));
        }
        c.revoked = Some((now, reason));
        Ok(())
    })
    .await?;
    Ok(RevokeCertificateResponse {
        certificate_arn: Some(arn),
    })
}

/// Changes the transparency logging preference; whether a certificate is exportable is
/// decided when it is requested and stays.
pub(crate) async fn update_certificate_options(
    acm: &AcmService,
    ctx: &RequestContext,
    input: UpdateCertificateOptionsRequest,
) -> Result<Unit, AcmError> {
    let arn = input.certificate_arn;
    let options = input.options;
    let changed = arn.clone();
    modify(acm, ctx, &arn, move |c| {
        if let Some(export) = &options.export {
            if export.as_str() != c.export {
                return Err(validation(format!(
                    "The export option of certificate {changed} can't be changed after it is requested."
                )));
            }
        }
        if let Some(preference) = &options.certificate_transparency_logging_preference {
            c.transparency_logging = preference.as_str().to_owned();
        }
        Ok(Unit)
    })
    .await
}
