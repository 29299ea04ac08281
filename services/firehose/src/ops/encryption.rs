//! StartDeliveryStreamEncryption and StopDeliveryStreamEncryption: server-side encryption
//! with an AWS owned key or a customer managed one, `ENABLING` then `ENABLED`, `DISABLING`
//! then `DISABLED`, as DescribeDeliveryStream reports them. Records are kept as they came
//! either way; the state is what PutRecord's `Encrypted` reports.

use serde_json::Value;
use stratus_core::{AwsError, RequestContext};
use stratus_gen_firehose::{
    StartDeliveryStreamEncryptionInput, StartDeliveryStreamEncryptionOutput, StopDeliveryStreamEncryptionInput,
    StopDeliveryStreamEncryptionOutput,
};

use crate::error::{invalid_argument, FirehoseError};
use crate::records::{Encryption, STREAMS};
use crate::service::{load_stream, FirehoseService};

/// The encryption a `DeliveryStreamEncryptionConfigurationInput` asks for, checked.
pub(crate) fn requested(input: &Value, now_ms: i64) -> Result<Encryption, FirehoseError> {
    let key_type = input["KeyType"].as_str().unwrap_or("AWS_OWNED_CMK").to_owned();
    let key_arn = input["KeyARN"].as_str().map(str::to_owned);
    match (key_type.as_str(), &key_arn) {
        ("CUSTOMER_MANAGED_CMK", None) => Err(invalid_argument(
            "KeyARN must be specified when KeyType is CUSTOMER_MANAGED_CMK.",
        )),
        ("AWS_OWNED_CMK", Some(_)) => Err(invalid_argument(
            "KeyARN can only be specified when KeyType is CUSTOMER_MANAGED_CMK.",
        )),
        _ => Ok(Encryption {
            enabled: true,
            key_type,
            key_arn,
            changed_ms: now_ms,
        }),
    }
}

const KINESIS_SOURCED: &str = "This operation is not permitted on KinesisStreamAsSource delivery stream type.";

pub(crate) async fn start_delivery_stream_encryption(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: StartDeliveryStreamEncryptionInput,
) -> Result<StartDeliveryStreamEncryptionOutput, AwsError> {
    let (now, account) = (firehose.now_ms(), ctx.account_id.clone());
    let asked = match &input.delivery_stream_encryption_configuration_input {
        Some(config) => serde_json::json!({
            "KeyType": config.key_type.as_str(),
            "KeyARN": config.key_arn,
        }),
        None => serde_json::json!({}),
    };
    let encryption = requested(&asked, now)?;
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut stream = load_stream(tx, &input.delivery_stream_name, &account, now)?;
            if stream.kinesis.is_some() {
                return Err(invalid_argument(KINESIS_SOURCED));
            }
            let unchanged = stream
                .encryption
                .as_ref()
                .is_some_and(|e| e.enabled && e.key_type == encryption.key_type && e.key_arn == encryption.key_arn);
            if !unchanged {
                stream.encryption = Some(encryption);
                STREAMS.put(tx, stream.name.as_bytes(), &stream)?;
            }
            Ok(())
        })
        .await?;
    Ok(StartDeliveryStreamEncryptionOutput {})
}

pub(crate) async fn stop_delivery_stream_encryption(
    firehose: &FirehoseService,
    ctx: &RequestContext,
    input: StopDeliveryStreamEncryptionInput,
) -> Result<StopDeliveryStreamEncryptionOutput, AwsError> {
    let (now, account) = (firehose.now_ms(), ctx.account_id.clone());
    firehose
        .transact(&ctx.account_id, &ctx.region, move |tx| {
            let mut stream = load_stream(tx, &input.delivery_stream_name, &account, now)?;
            if stream.kinesis.is_some() {
                return Err(invalid_argument(KINESIS_SOURCED));
            }
            if let Some(e) = stream.encryption.as_mut().filter(|e| e.enabled) {
                e.enabled = false;
                e.changed_ms = now;
                STREAMS.put(tx, stream.name.as_bytes(), &stream)?;
            }
            Ok(())
        })
        .await?;
    Ok(StopDeliveryStreamEncryptionOutput {})
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn key_types_take_a_key_arn_only_when_customer_managed() {
        assert!(requested(&json!({}), 1).unwrap().key_arn.is_none());
        assert!(requested(&json!({"KeyType": "CUSTOMER_MANAGED_CMK"}), 1).is_err());
        assert!(requested(
            &json!({"KeyType": "AWS_OWNED_CMK", "KeyARN": "arn:aws:kms:us-east-1:1:key/k"}),
            1
        )
        .is_err());
        let managed = requested(&json!({"KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": "arn:k"}), 7).unwrap();
        assert_eq!((managed.key_arn.as_deref(), managed.changed_ms), (Some("arn:k"), 7));
    }
}
