//! Text messaging settings and opt-outs: stored and answered as AWS does; nothing is sent.

use stratus_core::RequestContext;
use stratus_gen_sns::*;

use crate::error::{invalid_parameter, invalid_parameter_raw, SnsError};
use crate::service::SnsService;
use crate::store::SETTINGS;
use crate::subscriptions::valid_e164;

const SMS_KEY: &str = "sms";

/// Checks one account-wide SMS attribute, in AWS's words.
fn check_sms_attribute(name: &str, value: &str) -> Result<(), SnsError> {
    match name {
        "DefaultSenderID" => {
            let valid = (1..=11).contains(&value.len())
                && value.bytes().all(|b| b.is_ascii_alphanumeric())
                && value.bytes().any(|b| b.is_ascii_alphabetic());
            if valid {
                Ok(())
            } else {
                Err(invalid_parameter_raw("DefaultSendID is not a valid attribute"))
            }
        }
        "DefaultSMSType" if !matches!(value, "Promotional" | "Transactional") => {
            Err(invalid_parameter_raw("DefaultSMSType is invalid"))
        }
        "DefaultSMSType"
        | "MonthlySpendLimit"
        | "DeliveryStatusIAMRole"
        | "DeliveryStatusSuccessSamplingRate"
        | "UsageReportS3Bucket" => Ok(()),
        _ => Err(invalid_parameter_raw(format!("{name} is not a valid attribute"))),
    }
}

pub(crate) async fn set_sms_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: SetSMSAttributesInput,
) -> Result<SetSMSAttributesResponse, SnsError> {
    for (name, value) in &input.attributes {
        check_sms_attribute(name, value)?;
    }
    sns.transact(&ctx.account_id, &ctx.region, move |tx| {
        let mut stored = SETTINGS.get(tx, SMS_KEY)?.unwrap_or_default();
        stored.extend(input.attributes);
        SETTINGS.put(tx, SMS_KEY, &stored)?;
        Ok(())
    })
    .await?;
    Ok(SetSMSAttributesResponse {})
}

pub(crate) async fn get_sms_attributes(
    sns: &SnsService,
    ctx: &RequestContext,
    input: GetSMSAttributesInput,
) -> Result<GetSMSAttributesResponse, SnsError> {
    let store = sns.store(&ctx.account_id, &ctx.region)?;
    let mut stored = SETTINGS.get(&*store, SMS_KEY)?.unwrap_or_default();
    if let Some(names) = input.attributes.filter(|n| !n.is_empty()) {
        stored.retain(|k, _| names.contains(k));
    }
    Ok(GetSMSAttributesResponse {
        attributes: Some(stored),
    })
}

fn check_number(number: &str) -> Result<(), SnsError> {
    if valid_e164(number) {
        Ok(())
    } else {
        Err(invalid_parameter("PhoneNumber Reason: input incorrectly formatted"))
    }
}

/// No number opts out of a local emulator's messages.
pub(crate) async fn check_if_phone_number_is_opted_out(
    _sns: &SnsService,
    _ctx: &RequestContext,
    input: CheckIfPhoneNumberIsOptedOutInput,
) -> Result<CheckIfPhoneNumberIsOptedOutResponse, SnsError> {
    check_number(&input.phone_number)?;
    Ok(CheckIfPhoneNumberIsOptedOutResponse { is_opted_out: false })
}

pub(crate) async fn opt_in_phone_number(
    _sns: &SnsService,
    _ctx: &RequestContext,
    input: OptInPhoneNumberInput,
) -> Result<OptInPhoneNumberResponse, SnsError> {
    check_number(&input.phone_number)?;
    Ok(OptInPhoneNumberResponse {})
}

pub(crate) async fn list_phone_numbers_opted_out(
    _sns: &SnsService,
    _ctx: &RequestContext,
    _input: ListPhoneNumbersOptedOutInput,
) -> Result<ListPhoneNumbersOptedOutResponse, SnsError> {
    Ok(ListPhoneNumbersOptedOutResponse {
        phone_numbers: Some(Vec::new()),
        next_token: None,
    })
}

/// The account is out of the SMS sandbox: nothing is sent, so nothing is limited.
pub(crate) async fn get_sms_sandbox_account_status(
    _sns: &SnsService,
    _ctx: &RequestContext,
    _input: GetSMSSandboxAccountStatusInput,
) -> Result<GetSMSSandboxAccountStatusResult, SnsError> {
    Ok(GetSMSSandboxAccountStatusResult { is_in_sandbox: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sms_attributes_are_refused_in_aws_words() {
        assert_eq!(
            check_sms_attribute("Nope", "x").unwrap_err().0.message,
            "Nope is not a valid attribute"
        );
        assert!(check_sms_attribute("DefaultSenderID", "123").is_err());
        assert!(check_sms_attribute("DefaultSenderID", "abcdefghijkl").is_err());
        assert!(check_sms_attribute("DefaultSenderID", "Stratus1").is_ok());
        assert!(check_sms_attribute("DefaultSMSType", "Loud").is_err());
    }
}
