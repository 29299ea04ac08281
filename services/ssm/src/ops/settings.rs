//! Service settings (GetServiceSetting, UpdateServiceSetting, ResetServiceSetting): the
//! account's Systems Manager settings that have a default and may be customized, kept in the
//! `settings` table. Parameter Store's default tier applies to parameters PutParameter
//! creates without a `Tier`.

use serde::{Deserialize, Serialize};
use stratus_core::{DateTime, RequestContext};
use stratus_gen_ssm::{
    GetServiceSettingRequest, GetServiceSettingResult, ResetServiceSettingRequest, ResetServiceSettingResult,
    ServiceSetting, UpdateServiceSettingRequest, UpdateServiceSettingResult,
};
use stratus_storage::{Read, Table};

use crate::error::{refuse, validation, SsmError};
use crate::ops::principal_arn;
use crate::service::SsmService;

/// Customized settings, by setting id (`/ssm/...`).
pub(crate) const SETTINGS: Table<SettingRecord> = Table::new("settings");

/// The tier of parameters created without one.
pub(crate) const DEFAULT_TIER: &str = "/ssm/parameter-store/default-parameter-tier";

#[derive(Serialize, Deserialize, Clone, Debug)]
pub(crate) struct SettingRecord {
    pub(crate) value: String,
    pub(crate) modified_ms: i64,
    pub(crate) modified_by: String,
}

/// Each setting, its default, and the values it takes (any, when empty).
const KNOWN: &[(&str, &str, &[&str])] = &[
    (
        DEFAULT_TIER,
        "Standard",
        &["Standard", "Advanced", "Intelligent-Tiering"],
    ),
    (
        "/ssm/parameter-store/high-throughput-enabled",
        "false",
        &["true", "false"],
    ),
    (
        "/ssm/managed-instance/activation-tier",
        "standard",
        &["standard", "advanced"],
    ),
    (
        "/ssm/automation/customer-script-log-destination",
        "None",
        &["None", "CloudWatch"],
    ),
    (
        "/ssm/automation/customer-script-log-group-name",
        "/aws/ssm/automation/executeScript",
        &[],
    ),
    (
        "/ssm/documents/console/public-sharing-permission",
        "Enable",
        &["Enable", "Disable"],
    ),
    ("/ssm/managed-instance/default-ec2-instance-management-role", "", &[]),
    ("/ssm/opsinsights/opscenter", "Disabled", &["Enabled", "Disabled"]),
];

/// The setting an id (a path, or a `servicesetting` ARN) names.
fn known(id: &str) -> Result<&'static (&'static str, &'static str, &'static [&'static str]), SsmError> {
    let path = match id.split_once(":servicesetting") {
        Some((_, path)) if id.starts_with("arn:") => path,
        _ => id,
    };
    KNOWN.iter().find(|(p, _, _)| *p == path).ok_or_else(|| {
        refuse(
            "ServiceSettingNotFound",
            format!("The service setting {id} was not found."),
        )
    })
}

/// A setting's value in `r`: the customized one, else the default.
pub(crate) fn value_of(r: &(impl Read + ?Sized), path: &str) -> Result<String, SsmError> {
    let default = known(path)?.1;
    Ok(SETTINGS.get(r, path)?.map_or_else(|| default.to_owned(), |s| s.value))
}

fn answer(ctx: &RequestContext, path: &str, default: &str, stored: Option<SettingRecord>) -> ServiceSetting {
    let arn = stratus_core::arn::Arn::new("ssm", &ctx.region, &ctx.account_id, &format!("servicesetting{path}"));
    let (value, status, modified_ms, user) = match stored {
        Some(s) => (s.value, "Customized", s.modified_ms, s.modified_by),
        None => (default.to_owned(), "Default", 0, "System".to_owned()),
    };
    ServiceSetting {
        setting_id: Some(path.to_owned()),
        setting_value: Some(value),
        last_modified_date: Some(DateTime::from_millis(modified_ms)),
        last_modified_user: Some(user),
        arn: Some(arn.to_string()),
        status: Some(status.to_owned()),
    }
}

pub(crate) async fn get_service_setting(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: GetServiceSettingRequest,
) -> Result<GetServiceSettingResult, SsmError> {
    let (path, default, _) = known(&input.setting_id)?;
    let stored = SETTINGS.get(&*ssm.store_of(ctx)?, path)?;
    Ok(GetServiceSettingResult {
        service_setting: Some(answer(ctx, path, default, stored)),
    })
}

pub(crate) async fn update_service_setting(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: UpdateServiceSettingRequest,
) -> Result<UpdateServiceSettingResult, SsmError> {
    let (path, _, values) = known(&input.setting_id)?;
    if !values.is_empty() && !values.contains(&input.setting_value.as_str()) {
        return Err(validation(format!(
            "The value {} is not valid for the setting {path}. Valid values: [{}].",
            input.setting_value,
            values.join(", ")
        )));
    }
    let record = SettingRecord {
        value: input.setting_value,
        modified_ms: ssm.now_ms(),
        modified_by: principal_arn(ctx),
    };
    ssm.transact(ctx, move |tx| Ok(SETTINGS.put(tx, *path, &record)?))
        .await?;
    Ok(UpdateServiceSettingResult {})
}

pub(crate) async fn reset_service_setting(
    ssm: &SsmService,
    ctx: &RequestContext,
    input: ResetServiceSettingRequest,
) -> Result<ResetServiceSettingResult, SsmError> {
    let (path, default, _) = known(&input.setting_id)?;
    ssm.transact(ctx, move |tx| {
        SETTINGS.delete(tx, *path);
        Ok(())
    })
    .await?;
    Ok(ResetServiceSettingResult {
        service_setting: Some(answer(ctx, path, default, None)),
    })
}

#[cfg(test)]
mod tests {
    use super::known;

    #[test]
    fn settings_are_named_by_path_or_arn() {
        let by_path = known("/ssm/parameter-store/default-parameter-tier").unwrap();
        let by_arn =
            known("arn:aws:ssm:us-east-1:111111111111:servicesetting/ssm/parameter-store/default-parameter-tier")
                .unwrap();
        assert_eq!(by_path.0, by_arn.0);
        assert_eq!(by_path.1, "Standard");
        assert_eq!(known("/ssm/none").unwrap_err().0.code, "ServiceSettingNotFound");
        assert!(known("arn:aws:ssm:us-east-1:111111111111:servicesetting").is_err());
    }
}
