//! Parameters under `/aws/reference/secretsmanager/`: Secrets Manager's secrets read through
//! Parameter Store (AWS's user guide, "Referencing AWS Secrets Manager secrets from Parameter
//! Store parameters"), through the `SecretSource` Secrets Manager provides. Such a parameter
//! is a `SecureString` of version 0 whose `Value` is the secret's and whose `SourceResult` is
//! the secret's GetSecretValue answer as AWS writes it there: JSON with Java-bean member names
//! (`ARN`, `name`, `versionId`, `secretString`, `versionStages`, `createdDate`) and the date in
//! Java's medium style (`Nov 10, 2020, 10:05:44 PM`), as localstack/localstack#3496 records.

use base64::Engine;
use serde_json::{json, Map, Value};
use stratus_core::service::SecretValue;
use stratus_core::{DateTime, RequestContext};
use stratus_gen_ssm::{Parameter, ParameterType};

use crate::error::{refuse, validation, SsmError};
use crate::names::{Reference, Selector};
use crate::service::SsmService;

/// Where Parameter Store reads Secrets Manager's secrets from.
pub(crate) const PREFIX: &str = "/aws/reference/secretsmanager/";

impl SsmService {
    /// The parameter `reference` (whose key `key` is under [`PREFIX`]) names: a secret.
    pub(crate) async fn read_secret(
        &self,
        ctx: &RequestContext,
        reference: &Reference,
        key: &str,
        decrypt: bool,
    ) -> Result<Parameter, SsmError> {
        if !decrypt {
            return Err(validation(
                "WithDecryption flag must be True for retrieving a Secret Manager secret.",
            ));
        }
        let not_found = || {
            refuse(
                "ParameterNotFound",
                format!("Secret {} not found.", key.trim_start_matches('/')),
            )
        };
        let Some(secrets) = &self.shared.secrets else {
            return Err(not_found());
        };
        let version = reference.selector.as_ref().map(|selector| match selector {
            Selector::Version(v) => v.to_string(),
            Selector::Label(label) => label.clone(),
        });
        let secret = match secrets
            .secret_value(ctx, &key[PREFIX.len()..], version.as_deref())
            .await
        {
            Ok(secret) => secret,
            Err(e) if e.http_status < 500 => return Err(not_found()),
            Err(e) => return Err(SsmError(e)),
        };
        Ok(Parameter {
            name: Some(reference.name.clone()),
            r#type: Some(ParameterType::SecureString),
            value: Some(match (&secret.string, &secret.binary) {
                (Some(text), _) => text.clone(),
                (None, Some(bytes)) => base64::engine::general_purpose::STANDARD.encode(bytes),
                (None, None) => String::new(),
            }),
            version: 0,
            selector: reference.selector.as_ref().map(Selector::text),
            source_result: Some(source_result(&secret)),
            last_modified_date: Some(DateTime::from_millis(secret.created_ms)),
            arn: Some(secret.arn.clone()),
            data_type: Some("text".into()),
        })
    }
}

/// The secret as `SourceResult` describes it.
fn source_result(secret: &SecretValue) -> String {
    let mut m = Map::new();
    m.insert("ARN".into(), json!(secret.arn));
    m.insert("name".into(), json!(secret.name));
    m.insert("versionId".into(), json!(secret.version_id));
    if let Some(text) = &secret.string {
        m.insert("secretString".into(), json!(text));
    }
    if let Some(bytes) = &secret.binary {
        m.insert(
            "secretBinary".into(),
            json!(base64::engine::general_purpose::STANDARD.encode(bytes)),
        );
    }
    m.insert("versionStages".into(), json!(secret.stages));
    m.insert("createdDate".into(), json!(java_medium_date(secret.created_ms)));
    Value::Object(m).to_string()
}

/// A time as Java's medium date-time style writes it, in UTC: `Nov 10, 2020, 10:05:44 PM`.
fn java_medium_date(epoch_ms: i64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(epoch_ms.div_euclid(1000));
    let month = MONTHS[usize::try_from(mo - 1).unwrap_or(0) % 12];
    let (hour, half) = match h {
        0 => (12, "AM"),
        1..=11 => (h, "AM"),
        12 => (12, "PM"),
        _ => (h - 12, "PM"),
    };
    format!("{month} {d}, {y}, {hour}:{mi:02}:{s:02} {half}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_in_javas_medium_style() {
        // 2020-11-10T22:05:44Z, the moment localstack/localstack#3496's answer shows.
        assert_eq!(java_medium_date(1_605_045_944_000), "Nov 10, 2020, 10:05:44 PM");
        assert_eq!(java_medium_date(0), "Jan 1, 1970, 12:00:00 AM");
        assert_eq!(java_medium_date(43_200_000), "Jan 1, 1970, 12:00:00 PM");
    }

    #[test]
    fn the_source_result_names_members_as_aws_does() {
        let secret = SecretValue {
            arn: "arn:aws:secretsmanager:us-east-1:000000000000:secret:db-AbCdEf".into(),
            name: "db".into(),
            version_id: "v".into(),
            string: Some("pw".into()),
            binary: None,
            stages: vec!["AWSCURRENT".into()],
            created_ms: 0,
        };
        let v: Map<String, Value> = serde_json::from_str(&source_result(&secret)).unwrap();
        assert_eq!(
            v.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "ARN",
                "name",
                "versionId",
                "secretString",
                "versionStages",
                "createdDate"
            ]
        );
        assert_eq!(v["name"], "db");
    }
}
