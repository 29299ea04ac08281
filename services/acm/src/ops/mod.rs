//! The operations, one function each, by area, and what they share: finding the
//! certificate an ARN names and changing it in one transaction.

pub(crate) mod account;
pub(crate) mod certificates;
pub(crate) mod imports;
pub(crate) mod requests;
pub(crate) mod tags;

use stratus_core::arn::Arn;
use stratus_core::RequestContext;

use crate::certificate::CertificateRecord;
use crate::error::{invalid_arn, not_found, AcmError};
use crate::service::AcmService;
use crate::store::CERTIFICATES;

/// The id of the certificate `arn` names in the caller's account and region.
pub(crate) fn certificate_id(ctx: &RequestContext, arn: &str) -> Result<String, AcmError> {
    let parsed = Arn::parse(arn).map_err(|_| invalid_arn(arn))?;
    let id = parsed
        .resource
        .strip_prefix("certificate/")
        .filter(|id| !id.is_empty() && parsed.service == "acm")
        .ok_or_else(|| invalid_arn(arn))?;
    if !parsed.is_in("acm", &ctx.region, &ctx.account_id) {
        return Err(not_found(arn));
    }
    Ok(id.to_owned())
}

/// The certificate `arn` names.
pub(crate) fn load(acm: &AcmService, ctx: &RequestContext, arn: &str) -> Result<CertificateRecord, AcmError> {
    let id = certificate_id(ctx, arn)?;
    CERTIFICATES
        .get(&*acm.store(&ctx.account_id, &ctx.region)?, &id)?
        .ok_or_else(|| not_found(arn))
}

/// Changes the certificate `arn` names with `change` in one transaction, answering what
/// `change` answers.
pub(crate) async fn modify<R, F>(acm: &AcmService, ctx: &RequestContext, arn: &str, change: F) -> Result<R, AcmError>
where
    R: Send + 'static,
    F: FnOnce(&mut CertificateRecord) -> Result<R, AcmError> + Send + 'static,
{
    let id = certificate_id(ctx, arn)?;
    let arn = arn.to_owned();
    acm.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut record = CERTIFICATES.get(tx, &id)?.ok_or_else(|| not_found(&arn))?;
        let answer = change(&mut record)?;
        CERTIFICATES.put(tx, id, &record)?;
        Ok(answer)
    })
    .await
}

/// A new certificate's id and ARN in the caller's account and region.
pub(crate) fn new_arn(ctx: &RequestContext) -> (String, String) {
    let id = stratus_core::id::uuid();
    let arn = Arn::new("acm", &ctx.region, &ctx.account_id, &format!("certificate/{id}")).to_string();
    (id, arn)
}

/// Stores a new certificate under `id`, answering its ARN.
pub(crate) async fn insert(
    acm: &AcmService,
    ctx: &RequestContext,
    id: String,
    record: CertificateRecord,
) -> Result<String, AcmError> {
    let arn = record.arn.clone();
    acm.transact(&ctx.account_id, &ctx.region, move |tx| {
        CERTIFICATES.put(tx, id, &record)?;
        Ok(())
    })
    .await?;
    Ok(arn)
}
