//! ImportCertificate: a certificate, its private key and its chain, checked as ACM checks
//! them (ACM's user guide, "Prerequisites for importing certificates"): PEM, one
//! certificate, an unencrypted key that is the certificate's, a supported key type, and a
//! validity that includes now. Importing again to an ARN replaces the certificate there.

use stratus_core::RequestContext;
use stratus_gen_acm::*;

use crate::certificate::{CertificateRecord, Origin};
use crate::error::{validation, AcmError};
use crate::inspect::{self, ImportProblem};
use crate::ops::tags::{check_tags, tag_pairs};
use crate::ops::{insert, modify, new_arn};
use crate::service::AcmService;

pub(crate) async fn import_certificate(
    acm: &AcmService,
    ctx: &RequestContext,
    input: ImportCertificateRequest,
) -> Result<ImportCertificateResponse, AcmError> {
    let refused = |problem: ImportProblem| validation(problem.to_string());
    let certificate = inspect::certificate(&input.certificate).map_err(refused)?;
    inspect::check_key_matches(&certificate, &input.private_key).map_err(refused)?;
    let chain_pem = match &input.certificate_chain {
        Some(chain) => Some(
            inspect::chain(chain)
                .map_err(refused)?
                .iter()
                .map(inspect::to_pem)
                .collect::<String>(),
        ),
        None => None,
    };
    let facts = inspect::facts(&certificate).map_err(refused)?;
    let now = acm.now_ms();
    if now < facts.not_before_ms || now > facts.not_after_ms {
        return Err(validation(
            "The certificate is not valid at this time: it is expired or not yet valid.",
        ));
    }
    let names = if facts.alternative_names.is_empty() {
        vec![facts.domain_name.clone()]
    } else {
        facts.alternative_names.clone()
    };
    let tags = tag_pairs(input.tags.unwrap_or_default());
    let certificate_pem = inspect::to_pem(&certificate);

    if let Some(arn) = input.certificate_arn {
        if !tags.is_empty() {
            return Err(validation("You can't specify tags when you reimport a certificate."));
        }
        let replaced = arn.clone();
        modify(acm, ctx, &arn, move |c| {
            if c.origin != Origin::Imported {
                return Err(validation(format!(
                    "Certificate {replaced} was not imported, so a certificate can't be reimported to it."
                )));
            }
            c.domain_name = facts.domain_name.clone();
            c.names = names;
            c.key_algorithm = facts.key_algorithm.clone();
            c.imported_ms = Some(now);
            c.certificate_pem = certificate_pem;
            c.chain_pem = chain_pem;
            c.facts = facts;
            Ok(())
        })
        .await?;
        return Ok(ImportCertificateResponse {
            certificate_arn: Some(arn),
        });
    }

    check_tags(&tags, None)?;
    let (id, arn) = new_arn(ctx);
    let record = CertificateRecord {
        arn,
        origin: Origin::Imported,
        domain_name: facts.domain_name.clone(),
        names,
        validation_method: None,
        validation_domains: Vec::new(),
        key_algorithm: facts.key_algorithm.clone(),
        created_ms: now,
        imported_ms: Some(now),
        issued_ms: None,
        certificate_pem,
        chain_pem,
        private_key: None,
        facts,
        // Imported certificates are not logged (AWS's recorded answers show DISABLED).
        transparency_logging: "DISABLED".to_owned(),
        export: "DISABLED".to_owned(),
        exported: false,
        tags,
        idempotency_token: None,
        revoked: None,
        renewed_ms: None,
    };
    Ok(ImportCertificateResponse {
        certificate_arn: Some(insert(acm, ctx, id, record).await?),
    })
}
