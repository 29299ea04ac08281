//! What Secrets Manager provides other services: its secrets' resource policies, which the
//! gateway weighs under `--iam enforce`.

use stratus_core::arn::Arn;
use stratus_core::service::{ResourcePolicies, ResourcePolicy};
use stratus_core::AwsError;

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
