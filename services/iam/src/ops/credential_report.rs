//! The credential report: one CSV line per user (and the root account) saying which
//! credentials each has, generated on request and good for four hours, as IAM's is.

use aws_smithy_types::date_time::Format;
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Read;

use crate::error::IamError;
use crate::records::{date, key, Scope};
use crate::service::{now, scope, IamService};
use crate::store::{all, load_account, ACCESS_KEYS, ACCOUNT, ACCOUNT_KEY, MFA_DEVICES, SIGNING_CERTIFICATES, USERS};

/// How long a report is served before a new one must be generated.
const REPORT_LIFETIME_SECS: u64 = 4 * 3600;

/// The report's columns (IAM User Guide, "Getting credential reports").
const HEADER: &str = "user,arn,user_creation_time,password_enabled,password_last_used,password_last_changed,password_next_rotation,mfa_active,access_key_1_active,access_key_1_last_rotated,access_key_1_last_used_date,access_key_1_last_used_region,access_key_1_last_used_service,access_key_2_active,access_key_2_last_rotated,access_key_2_last_used_date,access_key_2_last_used_region,access_key_2_last_used_service,cert_1_active,cert_1_last_rotated,cert_2_active,cert_2_last_rotated";

/// A time as the report writes it: ISO 8601 with `+00:00`.
fn time(secs: u64) -> String {
    let text = date(secs).fmt(Format::DateTime).unwrap_or_default();
    match text.strip_suffix('Z') {
        Some(rest) => format!("{rest}+00:00"),
        None => text,
    }
}

/// The report's CSV as the account stands.
fn build(r: &(impl Read + ?Sized), scope: &Scope) -> Result<String, IamError> {
    let keys = all(r, ACCESS_KEYS)?;
    let devices = all(r, MFA_DEVICES)?;
    let certificates = all(r, SIGNING_CERTIFICATES)?;
    let mut lines = vec![
        HEADER.to_owned(),
        format!(
            "<root_account>,arn:{}:iam::{}:root,N/A,not_supported,N/A,not_supported,not_supported,false,false,N/A,N/A,N/A,N/A,false,N/A,N/A,N/A,N/A,false,N/A,false,N/A",
            stratus_core::arn::partition_of(&scope.region),
            scope.account
        ),
    ];
    for (user_key, user) in all(r, USERS)? {
        let mut line = vec![
            user.name.clone(),
            scope.arn("user", &user.path, &user.name),
            time(user.created),
        ];
        match &user.login_profile {
            Some(profile) => line.extend([
                "true".into(),
                "no_information".into(),
                time(profile.password_changed.unwrap_or(profile.created)),
                "N/A".into(),
            ]),
            None => line.extend(["false", "N/A", "N/A", "N/A"].map(String::from)),
        }
        let mfa = devices
            .iter()
            .any(|(_, d)| d.assigned.as_ref().is_some_and(|(u, _)| *u == user_key));
        line.push(mfa.to_string());
        let mut user_keys: Vec<_> = keys.iter().filter(|(_, k)| k.user == key(&user.name)).collect();
        user_keys.sort_by_key(|(_, k)| k.created);
        for slot in 0..2 {
            match user_keys.get(slot) {
                Some((_, k)) => line.extend([k.active.to_string(), time(k.created)]),
                None => line.extend(["false", "N/A"].map(String::from)),
            }
            line.extend(["N/A", "N/A", "N/A"].map(String::from));
        }
        // A user's signing certificates fill cert_1 and cert_2 in upload order (the columns
        // moto's AWS-verified test_retrieve_cert_details_using_credentials_report reads).
        let mut user_certificates: Vec<_> = certificates.iter().filter(|(_, c)| c.user == user_key).collect();
        user_certificates.sort_by_key(|(_, c)| c.uploaded);
        for slot in 0..2 {
            match user_certificates.get(slot) {
                Some((_, c)) => line.extend([c.active.to_string(), time(c.uploaded)]),
                None => line.extend(["false", "N/A"].map(String::from)),
            }
        }
        lines.push(line.join(","));
    }
    Ok(lines.join("\n"))
}

pub(crate) async fn generate_credential_report(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<GenerateCredentialReportResponse, IamError> {
    let (scope, at) = (scope(ctx), now(ctx));
    iam.write(&ctx.account_id, move |tx| {
        let mut account = load_account(tx)?;
        if account
            .credential_report
            .as_ref()
            .is_some_and(|(generated, _)| at.saturating_sub(*generated) < REPORT_LIFETIME_SECS)
        {
            return Ok(GenerateCredentialReportResponse {
                state: Some(ReportStateType::Complete),
                description: None,
            });
        }
        account.credential_report = Some((at, build(tx, &scope)?));
        ACCOUNT.put(tx, ACCOUNT_KEY, &account)?;
        Ok(GenerateCredentialReportResponse {
            state: Some(ReportStateType::Started),
            description: Some("No report exists. Starting a new report generation task".into()),
        })
    })
    .await
}

pub(crate) async fn get_credential_report(
    iam: &IamService,
    ctx: &RequestContext,
    _input: Unit,
) -> Result<GetCredentialReportResponse, IamError> {
    let account = load_account(&iam.reader(&ctx.account_id)?)?;
    let (generated, content) = account
        .credential_report
        .ok_or_else(|| IamError::ReportNotPresent("Credential report not present".into()))?;
    if now(ctx).saturating_sub(generated) >= REPORT_LIFETIME_SECS {
        return Err(IamError::ReportExpired("Credential report has expired".into()));
    }
    Ok(GetCredentialReportResponse {
        content: Some(content.into_bytes()),
        report_format: Some(ReportFormatType::TextCsv),
        generated_time: Some(date(generated)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_with_an_explicit_utc_offset() {
        assert_eq!(time(1_423_247_986), "2015-02-06T18:39:46+00:00");
        assert_eq!(HEADER.split(',').count(), 22);
    }
}
