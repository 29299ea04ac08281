//! What Secrets Manager provides other services: its secrets' resource policies, which the
//! gateway weighs under `--iam enforce`, and their values, which SSM reads for the parameters
//! under `/aws/reference/secretsmanager/`.

use stratus_core::arn::Arn;
use stratus_core::context::RequestContext;
use stratus_core::service::{BoxFuture, ResourcePolicies, ResourcePolicy, SecretSource, SecretValue};
use stratus_core::AwsError;

use crate::ops::load;
use crate::ops::values::read_value;

use crate::names::SecretRef;
use crate::secret::SecretRecord;
use crate::service::SecretsService;

impl SecretsService {
    /// The secret an ARN names (complete or partial), read inline.
    fn secret_of_arn(&self, arn: &str) -> Result<Option<SecretRecord>, AwsError> {
        let Ok(parsed) = Arn::parse(arn) else { return Ok(None) };
        let Some(id) = parsed.resource.strip_prefix("secret:") else {
            return Ok(None);
        };
        let at = SecretRef {
            account: parsed.account,
            region: parsed.region,
            id: id.to_owned(),
            from_arn: true,
        };
        let store = self.store(&at.account, &at.region).map_err(|e| e.0)?;
        at.find(&*store).map_err(|e| e.0)
    }
}

impl ResourcePolicies for SecretsService {
    fn arn_service(&self) -> &'static str {
        "secretsmanager"
    }

    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        Ok(self.secret_of_arn(arn)?.map(|secret| ResourcePolicy {
            owner_account: secret.account,
            document: secret.policy,
        }))
    }

    fn tags_of(&self, arn: &str) -> Result<Option<Vec<(String, String)>>, AwsError> {
        Ok(self.secret_of_arn(arn)?.map(|secret| secret.tags.unwrap_or_default()))
    }
}

impl SecretSource for SecretsService {
    fn secret_value<'a>(
        &'a self,
        ctx: &'a RequestContext,
        secret_id: &'a str,
        version: Option<&'a str>,
    ) -> BoxFuture<'a, Result<SecretValue, AwsError>> {
        Box::pin(async move {
            let (_, secret) = load(self, ctx, secret_id).map_err(|e| e.0)?;
            // Version ids are UUIDs; anything else names a staging label.
            let is_id = |v: &&str| v.len() == 36 && v.bytes().filter(|b| *b == b'-').count() == 4;
            let (id, stage) = (version.filter(is_id), version.filter(|v| !is_id(v)));
            let read = read_value(self, ctx, &secret, id, stage).await.map_err(|e| e.0)?;
            Ok(SecretValue {
                arn: read.arn.unwrap_or_default(),
                name: read.name.unwrap_or_default(),
                version_id: read.version_id.unwrap_or_default(),
                string: read.secret_string,
                binary: read.secret_binary,
                stages: read.version_stages.unwrap_or_default(),
                created_ms: read.created_date.and_then(|d| d.to_millis().ok()).unwrap_or(0),
            })
        })
    }
}
