//! Encryption at rest with a KMS key: the key a table's `SSESpecification` puts it under,
//! resolved through KMS's [`KeyService`] as DynamoDB does when it makes the table's key (a
//! data key generated under the KMS key, with DynamoDB's encryption context). Tables that do
//! not ask for KMS use an AWS owned key, which is not described.

use stratus_core::service::capabilities::EncryptionContext;
use stratus_core::service::{Caller, KeyService};
use stratus_core::RequestContext;
use stratus_gen_dynamodb::{SSEDescription, SSESpecification, SSEStatus, SSEType};

use crate::error::DdbError;

/// The AWS managed key of tables that ask for KMS without naming a key.
const DEFAULT_KEY: &str = "alias/aws/dynamodb";

/// The ARN of the KMS key `spec` puts table `table` under; `None` for the AWS owned key.
pub(crate) async fn key_for(
    keys: Option<&dyn KeyService>,
    ctx: &RequestContext,
    table: &str,
    spec: &SSESpecification,
) -> Result<Option<String>, DdbError> {
    if spec.enabled != Some(true) {
        return Ok(None);
    }
    let key_id = spec.kms_master_key_id.as_deref().unwrap_or(DEFAULT_KEY);
    let Some(keys) = keys else {
        return Err(DdbError::validation(format!(
            "KMS key {key_id} cannot be used: KMS is not served"
        )));
    };
    // DynamoDB's encryption context (Developer Guide, "DynamoDB encryption context").
    let context = EncryptionContext::from([
        ("aws:dynamodb:tableName".to_owned(), table.to_owned()),
        ("aws:dynamodb:subscriberId".to_owned(), ctx.account_id.clone()),
    ]);
    let caller = Caller::service("dynamodb.amazonaws.com", &ctx.account_id, &ctx.region);
    let table_key = keys
        .generate_data_key(caller, key_id, 32, &context)
        .await
        .map_err(|e| DdbError::validation(format!("KMS key {key_id} cannot be used: {}", e.message)))?;
    Ok(Some(table_key.key_arn))
}

/// How a table under KMS key `key_arn` describes its encryption.
pub(crate) fn description(key_arn: &str, status: SSEStatus) -> SSEDescription {
    SSEDescription {
        status: Some(status),
        sse_type: Some(SSEType::Kms),
        kms_master_key_arn: Some(key_arn.to_owned()),
        inaccessible_encryption_date_time: None,
    }
}
