//! Server certificates (what load balancers and CloudFront took before ACM): a PEM X.509
//! certificate with its private key and optional chain, named and pathed like other IAM
//! entities, 20 per account. The body is read as `certificates` reads it: one PEM
//! certificate, its `notAfter` answered as `Expiration`, an RSA key checked against it.

use stratus_core::paging::Token;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;

use crate::certificates::{pem_blocks, private_key_modulus, single_certificate, Certificate};
use crate::error::IamError;
use crate::ids::{unique_id, IdKind};
use crate::listing::page;
use crate::records::{date, key, wire_tags, Scope, ServerCertificateRecord};
use crate::service::{now, scope, IamService};
use crate::store::{all, load_server_certificate, SERVER_CERTIFICATES};
use crate::tagging::{merged, tag_page, without};

/// Server certificates an account may hold (IAM's default quota, "IAM and AWS STS quotas";
/// the refusal's words as a Terraform user quoted AWS's).
const PER_ACCOUNT: usize = 20;

/// AWS's words (https://github.com/vmware-archive/terraforming-aws/issues/46).
fn malformed() -> IamError {
    IamError::MalformedCertificate(
        "Unable to parse certificate. Please ensure the certificate is in PEM format.".into(),
    )
}

/// The certificate `body` holds, checked with its key and chain as IAM checks them at `now`.
fn checked(body: &str, private_key: &str, chain: Option<&str>, now: u64) -> Result<Certificate, IamError> {
    let certificate = single_certificate(body)
        .and_then(|der| Certificate::parse(&der))
        .ok_or_else(malformed)?;
    // A certificate not valid yet is MalformedCertificate, IAM's team said, its message not
    // about time (https://github.com/aws/aws-sdk-go/issues/2586); so is an expired one (the
    // error's description: "malformed or expired"). The wording is not verified.
    if now < certificate.not_before || certificate.not_after < now {
        return Err(IamError::MalformedCertificate(
            "Unable to validate certificate. The certificate is not within its validity period.".into(),
        ));
    }
    let key_modulus = private_key_modulus(private_key).ok_or_else(|| {
        IamError::MalformedCertificate("Unable to parse private key. Please ensure the key is in PEM format.".into())
    })?;
    if let (Some(certificate), Some(key)) = (&certificate.rsa_modulus, &key_modulus) {
        if certificate != key {
            return Err(IamError::KeyPairMismatch(
                "The private key did not match the public key provided.".into(),
            ));
        }
    }
    if let Some(chain) = chain {
        let parsed = pem_blocks(chain, "CERTIFICATE")
            .is_some_and(|blocks| blocks.iter().all(|der| Certificate::parse(der).is_some()));
        if !parsed {
            // AWS's words for a chain it cannot validate
            // (https://github.com/aws/aws-cli/issues/715); the chain's order and signatures
            // are not checked here.
            return Err(IamError::MalformedCertificate(
                "Unable to validate certificate chain. The certificate chain must start with the immediate signing certificate, followed by any intermediaries in order.".into(),
            ));
        }
    }
    Ok(certificate)
}

fn metadata(scope: &Scope, record: &ServerCertificateRecord) -> ServerCertificateMetadata {
    ServerCertificateMetadata {
        path: record.path.clone(),
        server_certificate_name: record.name.clone(),
        server_certificate_id: record.id.clone(),
        arn: scope.arn("server-certificate", &record.path, &record.name),
        upload_date: Some(date(record.uploaded)),
        expiration: Some(date(record.expiration)),
    }
}

pub(crate) async fn upload_server_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: UploadServerCertificateRequest,
) -> Result<UploadServerCertificateResponse, IamError> {
    let certificate = checked(
        &input.certificate_body,
        &input.private_key,
        input.certificate_chain.as_deref(),
        now(ctx),
    )?;
    let record = ServerCertificateRecord {
        name: input.server_certificate_name,
        path: input.path.unwrap_or_else(|| "/".into()),
        id: unique_id(IdKind::ServerCertificate),
        uploaded: now(ctx),
        expiration: certificate.not_after,
        body: input.certificate_body,
        chain: input.certificate_chain,
        tags: merged(&Vec::new(), input.tags.unwrap_or_default())?,
    };
    let stored = record.clone();
    iam.write(&ctx.account_id, move |tx| {
        if SERVER_CERTIFICATES.get(tx, key(&stored.name))?.is_some() {
            return Err(IamError::EntityAlreadyExists(format!(
                "The Server Certificate with name {} already exists.",
                stored.name
            )));
        }
        if all(tx, SERVER_CERTIFICATES)?.len() >= PER_ACCOUNT {
            return Err(IamError::LimitExceeded(format!(
                "Cannot exceed quota for ServerCertificatesPerAccount: {PER_ACCOUNT}"
            )));
        }
        SERVER_CERTIFICATES.put(tx, key(&stored.name), &stored)?;
        Ok(())
    })
    .await?;
    Ok(UploadServerCertificateResponse {
        server_certificate_metadata: Some(metadata(&scope(ctx), &record)),
        tags: wire_tags(&record.tags),
    })
}

pub(crate) async fn get_server_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: GetServerCertificateRequest,
) -> Result<GetServerCertificateResponse, IamError> {
    let record = load_server_certificate(&iam.reader(&ctx.account_id)?, &input.server_certificate_name)?;
    Ok(GetServerCertificateResponse {
        server_certificate: ServerCertificate {
            server_certificate_metadata: metadata(&scope(ctx), &record),
            certificate_body: record.body.clone(),
            certificate_chain: record.chain.clone(),
            tags: wire_tags(&record.tags),
        },
    })
}

pub(crate) async fn list_server_certificates(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListServerCertificatesRequest,
) -> Result<ListServerCertificatesResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListServerCertificates");
    let scope = scope(ctx);
    let prefix = input.path_prefix.unwrap_or_else(|| "/".into());
    let listed = all(&iam.reader(&ctx.account_id)?, SERVER_CERTIFICATES)?
        .into_iter()
        .filter(|(_, c)| c.path.starts_with(&prefix))
        .map(|(name, c)| (name, metadata(&scope, &c)))
        .collect();
    let page = page(LISTING, listed, input.marker.as_deref(), input.max_items)?;
    Ok(ListServerCertificatesResponse {
        server_certificate_metadata_list: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

pub(crate) async fn update_server_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: UpdateServerCertificateRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let mut record = load_server_certificate(tx, &input.server_certificate_name)?;
        let old = key(&record.name);
        if let Some(name) = input.new_server_certificate_name {
            if key(&name) != old && SERVER_CERTIFICATES.get(tx, key(&name))?.is_some() {
                return Err(IamError::EntityAlreadyExists(format!(
                    "The Server Certificate with name {name} already exists."
                )));
            }
            record.name = name;
        }
        if let Some(path) = input.new_path {
            record.path = path;
        }
        SERVER_CERTIFICATES.delete(tx, old);
        SERVER_CERTIFICATES.put(tx, key(&record.name), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn delete_server_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: DeleteServerCertificateRequest,
) -> Result<Unit, IamError> {
    iam.write(&ctx.account_id, move |tx| {
        let record = load_server_certificate(tx, &input.server_certificate_name)?;
        SERVER_CERTIFICATES.delete(tx, key(&record.name));
        Ok(Unit {})
    })
    .await
}

/// Applies `change` to the named certificate's tags, in one transaction.
async fn retag<F>(iam: &IamService, ctx: &RequestContext, name: String, change: F) -> Result<Unit, IamError>
where
    F: FnOnce(&mut ServerCertificateRecord) -> Result<(), IamError> + Send + 'static,
{
    iam.write(&ctx.account_id, move |tx| {
        let mut record = load_server_certificate(tx, &name)?;
        change(&mut record)?;
        SERVER_CERTIFICATES.put(tx, key(&record.name), &record)?;
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn tag_server_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: TagServerCertificateRequest,
) -> Result<Unit, IamError> {
    retag(iam, ctx, input.server_certificate_name, move |c| {
        c.tags = merged(&c.tags, input.tags)?;
        Ok(())
    })
    .await
}

pub(crate) async fn untag_server_certificate(
    iam: &IamService,
    ctx: &RequestContext,
    input: UntagServerCertificateRequest,
) -> Result<Unit, IamError> {
    retag(iam, ctx, input.server_certificate_name, move |c| {
        c.tags = without(&c.tags, &input.tag_keys);
        Ok(())
    })
    .await
}

pub(crate) async fn list_server_certificate_tags(
    iam: &IamService,
    ctx: &RequestContext,
    input: ListServerCertificateTagsRequest,
) -> Result<ListServerCertificateTagsResponse, IamError> {
    const LISTING: Token = Token::for_listing("iam:ListServerCertificateTags");
    let record = load_server_certificate(&iam.reader(&ctx.account_id)?, &input.server_certificate_name)?;
    let page = tag_page(LISTING, &record.tags, input.marker.as_deref(), input.max_items)?;
    Ok(ListServerCertificateTagsResponse {
        tags: page.items,
        is_truncated: page.is_truncated,
        marker: page.marker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERTIFICATE: &str = include_str!("../../testdata/server.crt");
    const KEY: &str = include_str!("../../testdata/server.key");
    const OTHER_KEY: &str = include_str!("../../testdata/other.key");

    /// A time within the test certificate's validity (2026-12-01 to 2036-11-28).
    const VALID: u64 = 2_000_000_000;

    #[test]
    fn a_certificate_with_its_own_key_is_accepted() {
        assert!(checked(CERTIFICATE, KEY, None, VALID).is_ok());
        assert!(checked(CERTIFICATE, KEY, Some(CERTIFICATE), VALID).is_ok());
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let refused = |body, key, chain, at| checked(body, key, chain, at).unwrap_err();
        assert!(matches!(
            refused(CERTIFICATE, OTHER_KEY, None, VALID),
            IamError::KeyPairMismatch(_)
        ));
        for error in [
            refused("nope", KEY, None, VALID),
            refused(CERTIFICATE, "nope", None, VALID),
            refused(CERTIFICATE, KEY, Some("nope"), VALID),
            refused(CERTIFICATE, KEY, None, 1_700_000_000),
            refused(CERTIFICATE, KEY, None, 2_200_000_000),
        ] {
            assert!(matches!(error, IamError::MalformedCertificate(_)), "{error:?}");
        }
    }
}
