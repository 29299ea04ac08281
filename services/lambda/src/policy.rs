//! Resource policies of functions and layer versions: statements built from AddPermission
//! as Lambda writes them, the policy document around them, and the policies handed to the
//! gateway ([`ResourcePolicies`]) so that `--iam enforce` weighs them.

use serde_json::{json, Map, Value};
use stratus_core::service::{ResourcePolicies, ResourcePolicy};
use stratus_core::AwsError;
use stratus_gen_lambda::types::AddPermissionRequest;
use stratus_policy::{evaluate, Policy, PolicyKind, PolicySet, Principal, Request};

use crate::error::invalid_parameter;
use crate::names::FunctionRef;
use crate::records::{FunctionRecord, PolicyRecord};
use crate::service::{load_function, LambdaService};

/// The largest policy document Lambda keeps, in bytes.
pub(crate) const MAX_POLICY_BYTES: usize = 20_480;

/// The `Principal` of a statement as Lambda writes it: `*`, an account (its root), an IAM
/// ARN, or a service principal.
pub(crate) fn principal(text: &str) -> Result<Value, AwsError> {
    let invalid = || invalid_parameter("The provided principal was invalid. Please check the principal and try again.");
    if text == "*" {
        return Ok(json!("*"));
    }
    if stratus_core::arn::is_account_id(text) {
        return Ok(json!({ "AWS": format!("arn:aws:iam::{text}:root") }));
    }
    if text.starts_with("arn:") {
        let arn = stratus_core::arn::Arn::parse(text).map_err(|_| invalid())?;
        if arn.service != "iam" && arn.service != "sts" {
            return Err(invalid());
        }
        return Ok(json!({ "AWS": text }));
    }
    let is_service = text.ends_with(".amazonaws.com") || text.ends_with(".amazon.com") || text.ends_with(".on.aws");
    if is_service && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)) {
        return Ok(json!({ "Service": text }));
    }
    Err(invalid())
}

/// The statement AddPermission adds for `input`, on resource `resource`.
pub(crate) fn statement(input: &AddPermissionRequest, resource: &str) -> Result<Value, AwsError> {
    let mut statement = Map::new();
    statement.insert("Sid".into(), json!(input.statement_id));
    statement.insert("Effect".into(), json!("Allow"));
    statement.insert("Principal".into(), principal(&input.principal)?);
    let action = if input.action.contains(':') || input.action == "*" {
        input.action.clone()
    } else {
        format!("lambda:{}", input.action)
    };
    statement.insert("Action".into(), json!(action));
    statement.insert("Resource".into(), json!(resource));
    let mut string_equals = Map::new();
    if let Some(account) = &input.source_account {
        string_equals.insert("AWS:SourceAccount".into(), json!(account));
    }
    if let Some(org) = &input.principal_org_id {
        string_equals.insert("aws:PrincipalOrgID".into(), json!(org));
    }
    if let Some(token) = &input.event_source_token {
        string_equals.insert("lambda:EventSourceToken".into(), json!(token));
    }
    if let Some(auth) = &input.function_url_auth_type {
        string_equals.insert("lambda:FunctionUrlAuthType".into(), json!(auth.as_str()));
    }
    let mut condition = Map::new();
    if !string_equals.is_empty() {
        condition.insert("StringEquals".into(), Value::Object(string_equals));
    }
    if let Some(arn) = &input.source_arn {
        condition.insert("ArnLike".into(), json!({ "AWS:SourceArn": arn }));
    }
    if input.invoked_via_function_url == Some(true) {
        condition.insert("Bool".into(), json!({ "lambda:InvokedViaFunctionUrl": "true" }));
    }
    if !condition.is_empty() {
        statement.insert("Condition".into(), Value::Object(condition));
    }
    Ok(Value::Object(statement))
}

/// The policy document of `record`'s statements.
pub(crate) fn document(record: &PolicyRecord) -> String {
    json!({ "Version": "2012-10-17", "Id": "default", "Statement": record.statements }).to_string()
}

/// The `Sid` of a statement.
pub(crate) fn sid(statement: &Value) -> Option<&str> {
    statement.get("Sid").and_then(Value::as_str)
}

/// Whether `record`'s policy for the qualifier `f` names lets the AWS service `principal`
/// (`s3.amazonaws.com`) invoke it for `source_arn` from `f`'s account: what S3, Logs and
/// Secrets Manager check when they are configured to invoke a function. Only the function's
/// own policy can allow a service, as on AWS.
pub(crate) fn lets_service_invoke(
    record: &FunctionRecord,
    f: &FunctionRef,
    principal: &str,
    source_arn: Option<&str>,
) -> bool {
    let key = f.qualifier.clone().unwrap_or_default();
    let Some(stored) = record.policies.get(&key).filter(|p| !p.statements.is_empty()) else {
        return false;
    };
    let policy = match Policy::parse(&document(stored), PolicyKind::Resource) {
        Ok(policy) => policy,
        Err(error) => {
            tracing::warn!(function = %f.arn(), %error, "stored function policy does not parse; allows no one");
            return false;
        }
    };
    let set = PolicySet {
        resource: Some(&policy),
        resource_account: Some(&f.account),
        resource_must_allow: true,
        ..PolicySet::default()
    };
    // A service is also named by its regional principal (`logs.us-east-1.amazonaws.com`),
    // which AddPermission is often given instead.
    let regional = principal
        .strip_suffix(".amazonaws.com")
        .map(|service| format!("{service}.{}.amazonaws.com", f.region));
    [Some(principal.to_owned()), regional]
        .into_iter()
        .flatten()
        .any(|name| {
            let mut request = Request::new(Principal::Service(name), "lambda:InvokeFunction", [f.qualified_arn()])
                .with_context("aws:SourceAccount", [f.account.as_str()]);
            if let Some(source_arn) = source_arn {
                request = request.with_context("aws:SourceArn", [source_arn]);
            }
            evaluate(&request, &set).is_allowed()
        })
}

/// Function policies, for the gateway to authorize requests on functions.
impl ResourcePolicies for LambdaService {
    fn arn_service(&self) -> &'static str {
        "lambda"
    }

    fn policy_of(&self, arn: &str) -> Result<Option<ResourcePolicy>, AwsError> {
        let Ok(parsed) = stratus_core::arn::Arn::parse(arn) else {
            return Ok(None);
        };
        if !parsed.resource.starts_with("function:") {
            return Ok(None);
        }
        let Ok(f) = FunctionRef::parse(arn, None, &parsed.account, &parsed.region) else {
            return Ok(None);
        };
        let store = self.store(&f.account, &f.region)?;
        let Some(record) = load_function(&*store, &f.name)? else {
            return Ok(None);
        };
        let key = f.qualifier.clone().unwrap_or_default();
        Ok(Some(ResourcePolicy {
            owner_account: f.account,
            document: record
                .policies
                .get(&key)
                .filter(|p| !p.statements.is_empty())
                .map(document),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(principal: &str) -> AddPermissionRequest {
        AddPermissionRequest {
            function_name: "f".into(),
            statement_id: "s3".into(),
            action: "lambda:InvokeFunction".into(),
            principal: principal.into(),
            ..AddPermissionRequest::default()
        }
    }

    #[test]
    fn statements_are_written_as_lambda_writes_them() {
        let mut input = request("s3.amazonaws.com");
        input.source_arn = Some("arn:aws:s3:::b".into());
        input.source_account = Some("111111111111".into());
        let s = statement(&input, "arn:aws:lambda:us-east-1:000000000000:function:f").unwrap();
        assert_eq!(
            s.to_string(),
            r#"{"Sid":"s3","Effect":"Allow","Principal":{"Service":"s3.amazonaws.com"},"Action":"lambda:InvokeFunction","Resource":"arn:aws:lambda:us-east-1:000000000000:function:f","Condition":{"StringEquals":{"AWS:SourceAccount":"111111111111"},"ArnLike":{"AWS:SourceArn":"arn:aws:s3:::b"}}}"#
        );
    }

    fn function_allowing(input: &AddPermissionRequest) -> (FunctionRecord, FunctionRef) {
        let f = FunctionRef {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            name: "f".into(),
            qualifier: None,
        };
        let mut record = FunctionRecord::default();
        record.policies.insert(
            String::new(),
            PolicyRecord {
                statements: vec![statement(input, &f.arn()).unwrap()],
                revision_id: "r".into(),
            },
        );
        (record, f)
    }

    #[test]
    fn services_may_invoke_only_as_the_policy_says() {
        let mut input = request("s3.amazonaws.com");
        input.source_arn = Some("arn:aws:s3:::mine".into());
        let (record, f) = function_allowing(&input);
        let may = |principal: &str, source: Option<&str>| lets_service_invoke(&record, &f, principal, source);
        assert!(may("s3.amazonaws.com", Some("arn:aws:s3:::mine")));
        assert!(!may("s3.amazonaws.com", Some("arn:aws:s3:::other")));
        assert!(!may("s3.amazonaws.com", None));
        assert!(!may("logs.amazonaws.com", Some("arn:aws:s3:::mine")));
        let (regional, f) = function_allowing(&request("logs.us-east-1.amazonaws.com"));
        assert!(lets_service_invoke(&regional, &f, "logs.amazonaws.com", None));
        assert!(!lets_service_invoke(
            &FunctionRecord::default(),
            &f,
            "s3.amazonaws.com",
            None
        ));
        let (any_bucket, f) = function_allowing(&request("s3.amazonaws.com"));
        assert!(lets_service_invoke(
            &any_bucket,
            &f,
            "s3.amazonaws.com",
            Some("arn:aws:s3:::x")
        ));
    }

    #[test]
    fn principals_take_lambda_forms() {
        assert_eq!(principal("*").unwrap(), json!("*"));
        assert_eq!(
            principal("111111111111").unwrap(),
            json!({"AWS": "arn:aws:iam::111111111111:root"})
        );
        assert_eq!(
            principal("arn:aws:iam::111111111111:role/r").unwrap(),
            json!({"AWS": "arn:aws:iam::111111111111:role/r"})
        );
        assert!(principal("invalid principal").is_err());
        assert!(principal("").is_err());
    }
}
