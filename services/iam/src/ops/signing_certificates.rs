//! Users' X.509 signing certificates (what the old SOAP APIs signed with): one PEM
//! certificate each, held by one user of the account, two per user, Active until made
//! Inactive. Without `UserName` the calling IAM user's.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::certificates::single_certificate;
use crate::error::IamError;
use crate::ids::signing_certificate_id;
use crate::listing::page;
use crate::ops::users::caller_user;
use crate::records::{date, key, status, SigningCertificateRecord, UserRecord};
use crate::service::{now, IamService};
use crate::store::{all, load, SIGNING_CERTIFICATES};

/// Signing certificates a user may have (IAM's quota; its refusal and the not-found wording
/// below are AWS's, from moto's AWS-verified test_iam_signing_certificates.py).
const PER_USER: usize = 2;

fn owned(r: &(impl Read + ?Sized), user: &UserRecord, id: &str) -> Result<SigningCertificateRecord, IamError> {
    SIGNING_CERTIFICATES
        .get(r, id)?
        .filter(|c| c.user == key(&user.name))
        .ok_or_else(|| IamError::NoSuchEntity(format!("The Certificate with id {id} cannot be found.")))
}

fn wire(user: &UserRecord, id: &str, record: &SigningCertificateRecord) -> SigningCertificate {
    SigningCertificate {
        user_name: user.name.clone(),
        certificate_id: id.to_owned(),
        certificate_body: record.body.clone(),
        status: status(record.active),
        upload_date: Some(date(record.uploaded)),
    }
}

pub(crate) async fn upload_signing_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: UploadSigningCertificateRequest,
) -> Result<UploadSigningCertificateResponse, IamError> {
    let user = caller_user(iam, ctx, input.user_name)?;
    let der = single_certificate(&input.certificate_body).ok_or_else(|| {
        // The code is AWS's (moto's AWS-verified test_upload_invalid_certificate); the words
        // are those of UploadServerCertificate's refusal.
        IamError::MalformedCertificate(
            "Unable to parse certificate. Please ensure the certificate is in PEM format.".into(),
        )
    })?;
    let id = signing_certificate_id();
    let record = SigningCertificateRecord {
        user: key(&user.name),
        body: input.certificate_body,
        active: true,
        uploaded: now(ctx),
    };
    let stored = (id.clone(), record.clone());
    iam.write(&ctx.account_id, move |tx| {
        let (id, record) = stored;
        let certificates = all(tx, SIGNING_CERTIFICATES)?;
        // A certificate may belong to one user of the account only (the model's description
        // of DuplicateCertificate, whose words the message is).
        if certificates
            .iter()
            .any(|(_, c)| single_certificate(&c.body).as_ref() == Some(&der))
        {
            return Err(IamError::DuplicateCertificate(
                "The request was rejected because the same certificate is associated with an IAM user in the account."
                    .into(),
            ));
        }
        if certificates.iter().filter(|(_, c)| c.user == record.user).count() >= PER_USER {
            return Err(IamError::LimitExceeded(format!(
                "Cannot exceed quota for CertificatesPerUser: {PER_USER}"
            )));
        }
        SIGNING_CERTIFICATES.put(tx, id.as_bytes(), &record)?;
        Ok(())
    })
    .await?;
    Ok(UploadSigningCertificateResponse {
        certificate: wire(&user, &id, &record),
    })
}

pub(crate) async fn list_signing_certificates(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListSigningCertificatesRequest,
) -> Result<ListSigningCertificatesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListSigningCertificates");
    let user = caller_user(iam, ctx, input.user_name)?;
    let user_key = key(&user.name);
    let certificates = all(&iam.reader(&ctx.account_id)?, SIGNING_CERTIFICATES)?
        .into_iter()
        .filter(|(_, c)| c.user == user_key)
        .map(|(id, c)| {
            let wired = wire(&user, &id, &c);
            (id, wired)
        })
        .collect();
    let page = page(LISTING, certificates, input.marker.as_deref(), input.max_items)?;
    Ok(ListSigningCertificatesResponse {
        certificates: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn update_signing_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateSigningCertificateRequest,
) -> Result<Unit, IamError> {
    let name = caller_user(iam, ctx, input.user_name)?.name;
    let active = input.status == StatusType::Active;
    iam.write(&ctx.account_id, move |tx| {
        let user: UserRecord = load(tx, &name)?;
        let mut record = owned(tx, &user, &input.certificate_id)?;
        record.active = active;
        SIGNING_CERTIFICATES.put(tx, input.certificate_id.as_bytes(), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_signing_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteSigningCertificateRequest,
) -> Result<Unit, IamError> {
    let name = caller_user(iam, ctx, input.user_name)?.name;
    iam.write(&ctx.account_id, move |tx| {
        let user: UserRecord = load(tx, &name)?;
        owned(tx, &user, &input.certificate_id)?;
        SIGNING_CERTIFICATES.delete(tx, input.certificate_id.as_bytes());
        Ok(Unit {})
    })
    .await
}
