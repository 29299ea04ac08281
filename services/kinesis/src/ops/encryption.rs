//! Server-side encryption: StartStreamEncryption and StopStreamEncryption. The key is checked
//! through KMS (the [`KeyService`](stratus_core::service::KeyService)) as AWS checks it, by
//! asking for a data key under it; records then report `EncryptionType: KMS`. Stratus keeps
//! them in its own store as written (docs/services/kinesis.md).

use stratus_core::service::capabilities::EncryptionContext;
use stratus_core::{AwsError, RequestContext, Unit};
use stratus_gen_kinesis::*;

use crate::error::invalid_argument;
use crate::ops::streams::update_stream;
use crate::service::{KinesisService, StreamAt};

/// KMS's refusal as Kinesis words it: its own `KMS…` exceptions (API reference,
/// StartStreamEncryption).
fn kms_refusal(e: AwsError) -> AwsError {
    let code = match e.code.as_str() {
        "NotFoundException" => "KMSNotFoundException",
        "DisabledException" => "KMSDisabledException",
        "KMSInvalidStateException" | "InvalidStateException" => "KMSInvalidStateException",
        "AccessDeniedException" => "KMSAccessDeniedException",
        "ThrottlingException" => "KMSThrottlingException",
        _ => return e,
    };
    AwsError::new(code, e.message, 400)
}

fn check_type(encryption: &EncryptionType) -> Result<(), AwsError> {
    match encryption {
        EncryptionType::Kms => Ok(()),
        other => Err(invalid_argument(format!(
            "EncryptionType {} is not supported; the only supported encryption type is KMS.",
            other.as_str()
        ))
        .into()),
    }
}

pub(crate) async fn start_stream_encryption(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: StartStreamEncryptionInput,
) -> Result<Unit, AwsError> {
    check_type(&input.encryption_type)?;
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    let Some(keys) = kinesis.shared.keys.as_ref() else {
        return Err(AwsError::new(
            "KMSNotFoundException",
            format!("Key '{}' does not exist (KMS is not served).", input.key_id),
            400,
        ));
    };
    let context = EncryptionContext::from([("aws:kinesis:arn".to_owned(), at.arn())]);
    keys.generate_data_key(at.caller(ctx), &input.key_id, 32, &context)
        .await
        .map_err(kms_refusal)?;
    let key = input.key_id;
    update_stream(kinesis, at, move |_, stream| {
        stream.key_id = Some(key);
        Ok(Unit {})
    })
    .await
}

pub(crate) async fn stop_stream_encryption(
    kinesis: &KinesisService,
    ctx: &RequestContext,
    input: StopStreamEncryptionInput,
) -> Result<Unit, AwsError> {
    check_type(&input.encryption_type)?;
    let at = StreamAt::named(ctx, input.stream_name.as_deref(), input.stream_arn.as_deref())?;
    update_stream(kinesis, at, move |_, stream| {
        stream.key_id = None;
        Ok(Unit {})
    })
    .await
}
