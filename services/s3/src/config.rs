//! Bucket configuration subresources: CORS, policy, default encryption, ownership controls,
//! public access block, website, lifecycle, ACLs, accelerate, request payment, logging,
//! notifications, replication and ABAC.
//!
//! Each document lives in the `configs` table under bucket name, zero byte and the
//! subresource's name, as JSON written by `stratus_core::json` against the model's own shape
//! (so a stored document is exactly what the model can say, and decodes back to the typed
//! value). Ownership controls and the public access block have AWS's defaults for new buckets
//! (since April 2023: `BucketOwnerEnforced`, every block on) while no document is stored;
//! deleting one stores an empty value, meaning "none".
//!
//! What is stored is checked as AWS checks it, and the settings that refuse requests are
//! enforced: ACLs on a `BucketOwnerEnforced` bucket (`AccessControlListNotSupported`), public
//! ACLs under `BlockPublicAcls` and public policies under `BlockPublicPolicy`
//! (`AccessDenied`); CORS rules are evaluated by [`crate::cors`]. Lifecycle expiration is
//! applied by [`crate::sweeper`]; lifecycle transitions, website hosting, access logs,
//! replication itself and ABAC's tag conditions are not emulated yet.

use std::collections::HashSet;

use stratus_core::arn::Arn;
use stratus_core::json::{self, KeyNames};
use stratus_core::schema::Shape;
use stratus_core::{AwsError, FromValue, IntoValue, Value};
use stratus_gen_s3::*;
use stratus_storage::{Direction, KeyRange, Tx};

use crate::bucket::BucketRecord;
use crate::error::S3Error;
use crate::{load_bucket, object_key, owner, S3Service};

pub const CONFIGS: &str = "configs";

pub const CORS: &str = "cors";
pub const POLICY: &str = "policy";
pub const ENCRYPTION: &str = "encryption";
pub const OWNERSHIP: &str = "ownership";
pub const PUBLIC_ACCESS_BLOCK: &str = "public-access-block";
pub const WEBSITE: &str = "website";
pub const LIFECYCLE: &str = "lifecycle";
/// The lifecycle configuration's `x-amz-transition-default-minimum-object-size`.
pub const LIFECYCLE_SIZE: &str = "lifecycle-size";
pub const ACL: &str = "acl";
pub const ACCELERATE: &str = "accelerate";
pub const REQUEST_PAYMENT: &str = "request-payment";
pub const LOGGING: &str = "logging";
pub const NOTIFICATION: &str = "notification";
pub const REPLICATION: &str = "replication";
/// Whether tags authorize requests (ABAC): `Enabled` or `Disabled`.
pub const ABAC: &str = "abac";

pub fn config_key(bucket: &str, name: &str) -> Vec<u8> {
    object_key(bucket, name)
}

/// A typed value as stored: JSON of `shape`.
pub fn encode<T: IntoValue>(shape: &'static Shape, value: T) -> Vec<u8> {
    json::encode(shape, &value.into_value(), KeyNames::Member).into_bytes()
}

pub fn decode<T: FromValue>(shape: &'static Shape, bytes: &[u8]) -> Result<T, AwsError> {
    let value = json::decode(shape, bytes, KeyNames::Member)
        .map_err(|e| AwsError::internal(format!("corrupt bucket configuration: {e}")))?;
    T::from_value(value).map_err(|e| AwsError::internal(format!("corrupt bucket configuration: {e}")))
}

pub fn not_found(code: &str, message: &str) -> AwsError {
    AwsError::new(code, message, 404)
}

// ---------------------------------------------------------------------------------------
// CORS

/// AWS's CORS rules: 1 to 100 rules, methods GET, PUT, POST, DELETE and HEAD, at most one
/// wildcard in an origin.
pub fn check_cors(rules: &[CORSRule]) -> Result<(), AwsError> {
    if rules.is_empty() || rules.len() > 100 {
        return Err(S3Error::malformed_xml());
    }
    for rule in rules {
        for method in &rule.allowed_methods {
            if !["GET", "PUT", "POST", "DELETE", "HEAD"].contains(&method.as_str()) {
                return Err(S3Error::invalid_request(format!(
                    "Found unsupported HTTP method in CORS config. Unsupported method is {method}"
                )));
            }
        }
        for origin in &rule.allowed_origins {
            if origin.matches('*').count() > 1 {
                return Err(S3Error::invalid_request(format!(
                    "AllowedOrigin \"{origin}\" can not have more than one wildcard."
                )));
            }
        }
        for header in rule.allowed_headers.iter().flatten() {
            if header.matches('*').count() > 1 {
                return Err(S3Error::invalid_request(format!(
                    "AllowedHeader \"{header}\" can not have more than one wildcard."
                )));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Policy

fn malformed_policy(message: &str) -> AwsError {
    AwsError::new("MalformedPolicy", message, 400)
}

/// Checks a bucket policy as S3 does before storing it; returns whether it is public (an
/// unconditional `Allow` to every principal).
pub fn check_policy(bucket: &str, region: &str, text: &str) -> Result<bool, AwsError> {
    // Bucket policies are limited to 20 KB.
    if text.len() > 20 * 1024 {
        return Err(malformed_policy("Policy exceeds the maximum allowed document size."));
    }
    let doc: serde_json::Value = serde_json::from_str(text)
        .ok()
        .filter(serde_json::Value::is_object)
        .ok_or_else(|| malformed_policy("Policies must be valid JSON and the first byte must be '{'"))?;
    let statements = match doc.get("Statement") {
        Some(serde_json::Value::Array(s)) if !s.is_empty() => s.clone(),
        Some(s @ serde_json::Value::Object(_)) => vec![s.clone()],
        _ => return Err(malformed_policy("Missing required field Statement")),
    };
    let mut public = false;
    for statement in &statements {
        let effect = statement.get("Effect").and_then(|e| e.as_str());
        match effect {
            Some("Allow" | "Deny") => {}
            Some(other) => return Err(malformed_policy(&format!("Invalid effect: {other}"))),
            None => return Err(malformed_policy("Missing required field Effect")),
        }
        let principal = statement.get("Principal").or_else(|| statement.get("NotPrincipal"));
        let Some(principal) = principal else {
            return Err(malformed_policy("Missing required field Principal"));
        };
        let Some(actions) = statement.get("Action").or_else(|| statement.get("NotAction")) else {
            return Err(malformed_policy("Missing required field Action"));
        };
        for action in strings(actions) {
            let lower = action.to_ascii_lowercase();
            if lower != "*" && !lower.starts_with("s3:") {
                return Err(malformed_policy("Policy has invalid action"));
            }
        }
        let Some(resources) = statement.get("Resource").or_else(|| statement.get("NotResource")) else {
            return Err(malformed_policy("Missing required field Resource"));
        };
        let arn = Arn::global("s3", region, "", bucket).to_string();
        for resource in strings(resources) {
            let ok = resource == arn
                || resource
                    .strip_prefix(&arn)
                    .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('*'));
            if !ok {
                return Err(malformed_policy("Policy has invalid resource"));
            }
        }
        let everyone = match principal {
            serde_json::Value::String(s) => s == "*",
            serde_json::Value::Object(m) => m.get("AWS").is_some_and(|aws| strings(aws).contains(&"*")),
            _ => false,
        };
        if effect == Some("Allow")
            && statement.get("Principal").is_some()
            && everyone
            && statement.get("Condition").is_none()
        {
            public = true;
        }
    }
    Ok(public)
}

fn strings(value: &serde_json::Value) -> Vec<&str> {
    match value {
        serde_json::Value::String(s) => vec![s.as_str()],
        serde_json::Value::Array(items) => items.iter().filter_map(|i| i.as_str()).collect(),
        _ => Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------
// Encryption

/// The default encryption every bucket has had since January 2023: SSE-S3.
pub fn default_encryption() -> ServerSideEncryptionConfiguration {
    ServerSideEncryptionConfiguration {
        rules: vec![ServerSideEncryptionRule {
            apply_server_side_encryption_by_default: Some(ServerSideEncryptionByDefault {
                sse_algorithm: ServerSideEncryption::Aes256,
                kms_master_key_id: None,
            }),
            bucket_key_enabled: Some(false),
            blocked_encryption_types: None,
        }],
    }
}

pub fn check_encryption(config: &ServerSideEncryptionConfiguration) -> Result<(), AwsError> {
    if config.rules.len() != 1 {
        return Err(S3Error::malformed_xml());
    }
    for rule in &config.rules {
        let Some(default) = &rule.apply_server_side_encryption_by_default else {
            continue;
        };
        let kms = match &default.sse_algorithm {
            ServerSideEncryption::Aes256 => false,
            ServerSideEncryption::AwsKms | ServerSideEncryption::AwsKmsDsse => true,
            _ => return Err(S3Error::malformed_xml()),
        };
        if !kms && default.kms_master_key_id.is_some() {
            return Err(S3Error::invalid_argument(
                "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse",
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Ownership and public access block

/// The object ownership of a bucket with no stored controls: AWS's default since April 2023.
pub fn default_ownership() -> OwnershipControls {
    OwnershipControls {
        rules: vec![OwnershipControlsRule {
            object_ownership: ObjectOwnership::BucketOwnerEnforced,
        }],
    }
}

pub fn check_ownership(controls: &OwnershipControls) -> Result<(), AwsError> {
    match controls.rules.as_slice() {
        [rule] if !matches!(rule.object_ownership, ObjectOwnership::Unknown(_)) => Ok(()),
        _ => Err(S3Error::malformed_xml()),
    }
}

pub fn enforced(controls: Option<&OwnershipControls>) -> bool {
    controls.is_some_and(|c| {
        c.rules
            .iter()
            .any(|r| r.object_ownership == ObjectOwnership::BucketOwnerEnforced)
    })
}

/// Every block on: AWS's default for new buckets since April 2023.
pub fn default_public_access_block() -> PublicAccessBlockConfiguration {
    PublicAccessBlockConfiguration {
        block_public_acls: Some(true),
        ignore_public_acls: Some(true),
        block_public_policy: Some(true),
        restrict_public_buckets: Some(true),
    }
}

pub fn acls_not_supported() -> AwsError {
    AwsError::new("AccessControlListNotSupported", "The bucket does not allow ACLs", 400)
}

pub fn access_denied() -> AwsError {
    AwsError::new("AccessDenied", "Access Denied", 403)
}

// ---------------------------------------------------------------------------------------
// ACLs

pub const ALL_USERS: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
pub const AUTHENTICATED_USERS: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
pub const LOG_DELIVERY: &str = "http://acs.amazonaws.com/groups/s3/LogDelivery";

fn grantee(kind: Type) -> Grantee {
    Grantee {
        display_name: None,
        email_address: None,
        id: None,
        uri: None,
        r#type: kind,
    }
}

fn user_grant(account: &str, permission: Permission) -> Grant {
    let o = owner(account);
    Grant {
        grantee: Some(Grantee {
            display_name: o.display_name,
            id: o.id,
            ..grantee(Type::CanonicalUser)
        }),
        permission: Some(permission),
    }
}

fn group_grant(uri: &str, permission: Permission) -> Grant {
    Grant {
        grantee: Some(Grantee {
            uri: Some(uri.to_owned()),
            ..grantee(Type::Group)
        }),
        permission: Some(permission),
    }
}

/// The grants of a canned ACL for a resource owned by `account` (`bucket_owner` for the
/// object ACLs that name the bucket's owner).
pub fn canned(acl: &str, account: &str, bucket_owner: &str) -> Result<Vec<Grant>, AwsError> {
    let mut grants = vec![user_grant(account, Permission::FullControl)];
    match acl {
        "private" => {}
        "public-read" => grants.push(group_grant(ALL_USERS, Permission::Read)),
        "public-read-write" => {
            grants.push(group_grant(ALL_USERS, Permission::Read));
            grants.push(group_grant(ALL_USERS, Permission::Write));
        }
        "authenticated-read" => grants.push(group_grant(AUTHENTICATED_USERS, Permission::Read)),
        "log-delivery-write" => {
            grants.push(group_grant(LOG_DELIVERY, Permission::Write));
            grants.push(group_grant(LOG_DELIVERY, Permission::ReadAcp));
        }
        // EC2's canonical user ("za-team"), as ceph's s3-tests record AWS's answer.
        "aws-exec-read" => grants.push(Grant {
            grantee: Some(Grantee {
                display_name: Some("za-team".into()),
                id: Some("6aa5a366c34c1cbe25dc49211496e913e0351eb0e8c37aa3477e40942ec6b97c".into()),
                ..grantee(Type::CanonicalUser)
            }),
            permission: Some(Permission::Read),
        }),
        "bucket-owner-read" if account != bucket_owner => grants.push(user_grant(bucket_owner, Permission::Read)),
        "bucket-owner-full-control" if account != bucket_owner => {
            grants.push(user_grant(bucket_owner, Permission::FullControl))
        }
        "bucket-owner-read" | "bucket-owner-full-control" => {}
        _ => return Err(S3Error::invalid_argument("")),
    }
    Ok(grants)
}

/// Grants from `x-amz-grant-*` headers: comma-separated `id="…"`, `uri="…"` or
/// `emailAddress="…"`.
pub fn header_grants(headers: &[(Permission, Option<&String>)]) -> Result<Vec<Grant>, AwsError> {
    let mut grants = Vec::new();
    for (permission, header) in headers {
        let Some(header) = header else { continue };
        for item in header.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (kind, value) = item
                .split_once('=')
                .ok_or_else(|| S3Error::invalid_argument("Invalid grant header"))?;
            let value = value.trim().trim_matches('"').to_owned();
            let grantee = match kind.trim().to_ascii_lowercase().as_str() {
                "id" => Grantee {
                    id: Some(value),
                    ..grantee(Type::CanonicalUser)
                },
                "uri" => Grantee {
                    uri: Some(value),
                    ..grantee(Type::Group)
                },
                "emailaddress" => Grantee {
                    email_address: Some(value),
                    ..grantee(Type::AmazonCustomerByEmail)
                },
                _ => return Err(S3Error::invalid_argument("Invalid grant header")),
            };
            grants.push(Grant {
                grantee: Some(grantee),
                permission: Some(permission.clone()),
            });
        }
    }
    Ok(grants)
}

/// Whether `grants` give anything to everyone or to every AWS user.
pub fn public_grants(grants: &[Grant]) -> bool {
    grants.iter().any(|g| {
        g.grantee
            .as_ref()
            .and_then(|e| e.uri.as_deref())
            .is_some_and(|u| u == ALL_USERS || u == AUTHENTICATED_USERS)
    })
}

/// Whether `grants` give the owner full control and nothing to anyone else (the only ACL a
/// `BucketOwnerEnforced` bucket accepts).
pub fn owner_only(grants: &[Grant], account: &str) -> bool {
    let id = owner(account).id;
    grants
        .iter()
        .all(|g| g.grantee.as_ref().is_some_and(|e| e.id == id) && g.permission == Some(Permission::FullControl))
}

/// The ACL a request sets: a canned ACL, grant headers, or a policy document (one way at a
/// time, as AWS requires). `None` when the request sets none.
pub fn requested_acl(
    canned_acl: Option<&str>,
    headers: &[(Permission, Option<&String>)],
    policy: Option<AccessControlPolicy>,
    account: &str,
    bucket_owner: &str,
) -> Result<Option<Vec<Grant>>, AwsError> {
    let has_headers = headers.iter().any(|(_, h)| h.is_some());
    if canned_acl.is_some() && has_headers {
        return Err(S3Error::invalid_request(
            "Specifying both Canned ACLs and Header Grants is not allowed",
        ));
    }
    if policy.is_some() && (canned_acl.is_some() || has_headers) {
        return Err(AwsError::new(
            "UnexpectedContent",
            "This request does not support content",
            400,
        ));
    }
    if let Some(acl) = canned_acl {
        return canned(acl, account, bucket_owner)
            .map(Some)
            .map_err(|_| S3Error::malformed_xml());
    }
    if has_headers {
        let mut grants = header_grants(headers)?;
        // The owner keeps full control only if a header grants it.
        grants.dedup();
        return Ok(Some(grants));
    }
    match policy {
        Some(p) => {
            let grants = p.grants.unwrap_or_default();
            for g in &grants {
                let ok = g.grantee.as_ref().is_some_and(|e| match e.r#type {
                    Type::CanonicalUser => e.id.is_some(),
                    Type::Group => e.uri.is_some(),
                    Type::AmazonCustomerByEmail => e.email_address.is_some(),
                    Type::Unknown(_) => false,
                });
                if !ok
                    || g.permission
                        .as_ref()
                        .is_none_or(|p| matches!(p, Permission::Unknown(_)))
                {
                    return Err(S3Error::malformed_xml());
                }
            }
            Ok(Some(grants))
        }
        None => Ok(None),
    }
}

// ---------------------------------------------------------------------------------------
// Website

pub fn check_website(config: &WebsiteConfiguration) -> Result<(), AwsError> {
    if config.redirect_all_requests_to.is_some() {
        if config.index_document.is_some() || config.error_document.is_some() || config.routing_rules.is_some() {
            return Err(S3Error::invalid_request(
                "RedirectAllRequestsTo cannot be provided in conjunction with other Routing/Redirect configurations.",
            ));
        }
        return Ok(());
    }
    let Some(index) = &config.index_document else {
        return Err(S3Error::invalid_argument(
            "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty",
        ));
    };
    if index.suffix.is_empty() || index.suffix.contains('/') {
        return Err(S3Error::invalid_argument("The IndexDocument Suffix is not well formed"));
    }
    Ok(())
}

/// A stored website configuration (kept as GetBucketWebsite's output, whose members are
/// the configuration's).
pub fn website(bytes: &[u8]) -> Result<GetBucketWebsiteOutput, AwsError> {
    let shape = &schema::GET_BUCKET_WEBSITE_OUTPUT;
    let corrupt = |e: String| AwsError::internal(format!("corrupt bucket configuration: {e}"));
    let value = json::decode(shape, bytes, KeyNames::Member).map_err(|e| corrupt(e.to_string()))?;
    let Value::Struct(mut slots) = value else {
        return Err(corrupt("not a structure".into()));
    };
    let mut take = |name: &str| {
        shape
            .member_index(name)
            .and_then(|i| slots.get_mut(i))
            .and_then(Option::take)
    };
    fn typed<T: FromValue>(v: Option<Value>) -> Result<Option<T>, AwsError> {
        v.map(T::from_value)
            .transpose()
            .map_err(|e| AwsError::internal(format!("corrupt bucket configuration: {e}")))
    }
    Ok(GetBucketWebsiteOutput {
        redirect_all_requests_to: typed(take("RedirectAllRequestsTo"))?,
        index_document: typed(take("IndexDocument"))?,
        error_document: typed(take("ErrorDocument"))?,
        routing_rules: typed(take("RoutingRules"))?,
    })
}

// ---------------------------------------------------------------------------------------
// Lifecycle

/// AWS's checks on a lifecycle configuration's rules.
pub fn check_lifecycle(rules: &[LifecycleRule]) -> Result<(), AwsError> {
    if rules.is_empty() || rules.len() > 1000 {
        return Err(S3Error::malformed_xml());
    }
    let mut ids = HashSet::new();
    for rule in rules {
        if let Some(id) = &rule.id {
            if id.chars().count() > 255 {
                return Err(S3Error::invalid_argument(
                    "ID length should not exceed allowed limit of 255",
                ));
            }
            if !ids.insert(id.as_str()) {
                return Err(S3Error::invalid_argument(
                    "Rule ID must be unique. Found same ID for more than one rule",
                ));
            }
        }
        if rule.filter.is_some() == rule.prefix.is_some() {
            return Err(S3Error::malformed_xml());
        }
        if matches!(rule.status, ExpirationStatus::Unknown(_)) {
            return Err(S3Error::malformed_xml());
        }
        let has_action = rule.expiration.is_some()
            || rule.transitions.as_ref().is_some_and(|t| !t.is_empty())
            || rule.noncurrent_version_expiration.is_some()
            || rule
                .noncurrent_version_transitions
                .as_ref()
                .is_some_and(|t| !t.is_empty())
            || rule.abort_incomplete_multipart_upload.is_some();
        if !has_action {
            return Err(S3Error::invalid_request(
                "At least one action needs to be specified in a rule",
            ));
        }
        if let Some(exp) = &rule.expiration {
            let set = [
                exp.days.is_some(),
                exp.date.is_some(),
                exp.expired_object_delete_marker.is_some(),
            ];
            if set.iter().filter(|s| **s).count() != 1 {
                return Err(S3Error::malformed_xml());
            }
            if exp.days.is_some_and(|d| d <= 0) {
                return Err(S3Error::invalid_argument(
                    "'Days' for Expiration action must be a positive integer",
                ));
            }
            if exp.date.as_ref().is_some_and(|d| d.secs() % 86_400 != 0) {
                return Err(S3Error::invalid_argument("'Date' must be at midnight GMT"));
            }
        }
        if let Some(n) = &rule.noncurrent_version_expiration {
            if n.noncurrent_days.is_some_and(|d| d <= 0) {
                return Err(S3Error::invalid_argument(
                    "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
                ));
            }
        }
        if let Some(a) = &rule.abort_incomplete_multipart_upload {
            if a.days_after_initiation.is_some_and(|d| d <= 0) {
                return Err(S3Error::invalid_argument(
                    "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Replication

/// The "Cross Region Replication configuration schema" refusal for an element the rules'
/// schema version (V2 when any rule has a `Filter`) requires or forbids.
fn replication_schema(element: &str, required: bool) -> AwsError {
    let rule = if required {
        "must be specified"
    } else {
        "cannot be used"
    };
    S3Error::invalid_request(format!(
        "{element} {rule} for this version of Cross Region Replication configuration schema. Please refer to S3 Developer Guide for more information."
    ))
}

/// AWS's checks on the rules of bucket `source`'s replication configuration that need no
/// other bucket; gives rules without an ID one. Returns the destination buckets' names.
pub fn check_replication(source: &str, config: &mut ReplicationConfiguration) -> Result<Vec<String>, AwsError> {
    if config.role.is_empty() {
        return Err(S3Error::invalid_argument(
            "Invalid Role specified in replication configuration",
        ));
    }
    if config.rules.is_empty() || config.rules.len() > 1000 {
        return Err(S3Error::malformed_xml());
    }
    // Rules with a Filter are the V2 schema: every rule then needs a Priority (unique) and
    // DeleteMarkerReplication; the V1 schema allows neither, and one destination.
    let v2 = config.rules.iter().any(|r| r.filter.is_some());
    let (mut ids, mut priorities, mut destinations) = (HashSet::new(), HashSet::new(), Vec::new());
    for rule in &mut config.rules {
        if rule.filter.is_some() == rule.prefix.is_some() || matches!(rule.status, ReplicationRuleStatus::Unknown(_)) {
            return Err(S3Error::malformed_xml());
        }
        let id = rule.id.get_or_insert_with(stratus_core::id::uuid);
        if id.chars().count() > 255 {
            return Err(S3Error::invalid_argument("Rule Id cannot be greater than 255"));
        }
        if !ids.insert(id.clone()) {
            return Err(S3Error::invalid_argument("Rule Id must be unique"));
        }
        match (v2, rule.priority) {
            (true, None) => return Err(replication_schema("Priority", true)),
            (true, Some(p)) if !priorities.insert(p) => {
                return Err(S3Error::invalid_request(format!("Found duplicate priority {p}.")))
            }
            (false, Some(_)) => return Err(replication_schema("Priority", false)),
            _ => {}
        }
        match (v2, rule.delete_marker_replication.is_some()) {
            (true, false) => return Err(replication_schema("DeleteMarkerReplication", true)),
            (false, true) => return Err(replication_schema("DeleteMarkerReplication", false)),
            _ => {}
        }
        let destination = Arn::parse(&rule.destination.bucket)
            .ok()
            .filter(|a| a.service == "s3" && a.region.is_empty() && a.account.is_empty())
            .map(|a| a.resource)
            .filter(|name| crate::bucket::valid_name(name))
            .ok_or_else(|| S3Error::invalid_argument("Invalid bucket ARN"))?;
        if destination == source {
            return Err(S3Error::invalid_request(
                "Destination bucket cannot be the same as the source bucket.",
            ));
        }
        if !destinations.contains(&destination) {
            destinations.push(destination);
        }
    }
    if !v2 && destinations.len() > 1 {
        return Err(S3Error::invalid_request(
            "Number of distinct destination bucket ARNs cannot exceed 1",
        ));
    }
    Ok(destinations)
}

// ---------------------------------------------------------------------------------------
// The operations.

/// What a configuration write does to the stored document.
pub enum Change {
    Set(Vec<u8>),
    /// Remove the document (the bucket falls back to AWS's default, if there is one).
    Remove,
    /// Store "none", overriding a default.
    Clear,
}

impl S3Service {
    /// The stored document `name` of `bucket` (`Some(empty)` is an explicit "none").
    pub(crate) fn load_config(&self, bucket: &str, name: &str) -> Result<Option<Vec<u8>>, AwsError> {
        self.bucket(bucket)?;
        self.store()?
            .get(CONFIGS, &config_key(bucket, name))
            .map_err(S3Error::storage)
    }

    /// Document `name` of `bucket` as text: the one-word settings (accelerate, request
    /// payment, ABAC).
    pub(crate) fn load_text_config(&self, bucket: &str, name: &str) -> Result<Option<String>, AwsError> {
        Ok(self.load_config(bucket, name)?.and_then(|b| String::from_utf8(b).ok()))
    }

    /// Changes document `name` of `bucket`, after `check` (run in the same transaction with
    /// the bucket's record) allows it.
    pub(crate) async fn change_config(
        &self,
        bucket: String,
        name: &'static str,
        change: Change,
        check: impl FnOnce(&Tx<'_>, &BucketRecord) -> Result<(), AwsError> + Send + 'static,
    ) -> Result<(), AwsError> {
        self.write(move |tx| {
            let record = load_bucket(tx, &bucket)?;
            check(tx, &record)?;
            let key = config_key(&bucket, name);
            match change {
                Change::Set(bytes) => tx.put(CONFIGS, key, bytes),
                Change::Remove => tx.delete(CONFIGS, key),
                Change::Clear => tx.put(CONFIGS, key, Vec::new()),
            }
            Ok(())
        })
        .await
    }

    /// The bucket's policy text, or `NoSuchBucketPolicy`.
    pub(crate) fn policy(&self, bucket: &str) -> Result<String, AwsError> {
        self.load_config(bucket, POLICY)?
            .filter(|b| !b.is_empty())
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| not_found("NoSuchBucketPolicy", "The bucket policy does not exist"))
    }

    /// A typed document, `Ok(None)` when there is none.
    pub(crate) fn typed_config<T: FromValue>(
        &self,
        bucket: &str,
        name: &str,
        shape: &'static Shape,
    ) -> Result<Option<T>, AwsError> {
        match self.load_config(bucket, name)? {
            Some(bytes) if !bytes.is_empty() => decode(shape, &bytes).map(Some),
            _ => Ok(None),
        }
    }
}

/// Reads a typed document inside a transaction; `default` stands in while none is stored.
pub fn tx_config<T: FromValue>(
    tx: &Tx<'_>,
    bucket: &str,
    name: &str,
    shape: &'static Shape,
    default: impl FnOnce() -> Option<T>,
) -> Result<Option<T>, AwsError> {
    match tx.get(CONFIGS, &config_key(bucket, name)).map_err(S3Error::storage)? {
        None => Ok(default()),
        Some(bytes) if bytes.is_empty() => Ok(None),
        Some(bytes) => decode(shape, &bytes).map(Some),
    }
}

/// The bucket's ownership controls, inside a transaction.
pub fn tx_ownership(tx: &Tx<'_>, bucket: &str) -> Result<Option<OwnershipControls>, AwsError> {
    tx_config(tx, bucket, OWNERSHIP, &schema::OWNERSHIP_CONTROLS, || {
        Some(default_ownership())
    })
}

/// The bucket's public access block, inside a transaction.
pub fn tx_public_access_block(tx: &Tx<'_>, bucket: &str) -> Result<Option<PublicAccessBlockConfiguration>, AwsError> {
    tx_config(
        tx,
        bucket,
        PUBLIC_ACCESS_BLOCK,
        &schema::PUBLIC_ACCESS_BLOCK_CONFIGURATION,
        || Some(default_public_access_block()),
    )
}

/// Refuses an ACL the bucket's settings do not allow: any but the owner's full control on a
/// `BucketOwnerEnforced` bucket, a public one under `BlockPublicAcls`.
pub fn check_acl_allowed(tx: &Tx<'_>, bucket: &BucketRecord, grants: &[Grant], account: &str) -> Result<(), AwsError> {
    if enforced(tx_ownership(tx, &bucket.name)?.as_ref())
        && !owner_only(grants, &bucket.owner)
        && !owner_only(grants, account)
    {
        return Err(acls_not_supported());
    }
    let block = tx_public_access_block(tx, &bucket.name)?;
    if public_grants(grants) && block.is_some_and(|b| b.block_public_acls == Some(true)) {
        return Err(access_denied());
    }
    Ok(())
}

/// Removes every configuration document of `bucket` (when the bucket is deleted).
pub fn remove_all(tx: &mut Tx<'_>, bucket: &str) -> Result<(), AwsError> {
    let keys: Vec<Vec<u8>> = tx
        .scan(
            CONFIGS,
            &KeyRange::prefix(&object_key(bucket, "")),
            Direction::Forward,
            None,
        )
        .map_err(S3Error::storage)?
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for k in keys {
        tx.delete(CONFIGS, k);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Messages as S3's PutBucketPolicy answers them (MalformedPolicy).
    #[test]
    fn policies() {
        let allow_all = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}"#;
        assert!(check_policy("b", "us-east-1", allow_all).unwrap());
        let account = r#"{"Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::1:root"},"Action":["s3:*"],"Resource":"arn:aws:s3:::b"}}"#;
        assert!(!check_policy("b", "us-east-1", account).unwrap());
        let msg = |text: &str| check_policy("b", "us-east-1", text).unwrap_err().message;
        assert_eq!(
            msg("nope"),
            "Policies must be valid JSON and the first byte must be '{'"
        );
        assert_eq!(msg("{}"), "Missing required field Statement");
        assert_eq!(
            msg(&allow_all.replace("arn:aws:s3:::b/*", "arn:aws:s3:::other/*")),
            "Policy has invalid resource"
        );
        assert_eq!(
            msg(&allow_all.replace("s3:GetObject", "sqs:SendMessage")),
            "Policy has invalid action"
        );
        assert_eq!(
            msg(&allow_all.replace("\"Principal\":\"*\",", "")),
            "Missing required field Principal"
        );
    }

    #[test]
    fn canned_acls() {
        let grants = canned("public-read", "1", "1").unwrap();
        assert_eq!(grants.len(), 2);
        assert!(public_grants(&grants));
        assert!(owner_only(&canned("private", "1", "1").unwrap(), "1"));
        assert!(owner_only(&canned("bucket-owner-full-control", "1", "1").unwrap(), "1"));
        assert!(canned("bogus", "1", "1").is_err());
    }

    fn replication(rules: Vec<ReplicationRule>) -> ReplicationConfiguration {
        ReplicationConfiguration {
            role: "arn:aws:iam::000000000000:role/r".into(),
            rules,
        }
    }

    fn rule(destination: &str, filter: Option<ReplicationRuleFilter>) -> ReplicationRule {
        ReplicationRule {
            id: None,
            priority: None,
            prefix: filter.is_none().then(String::new),
            filter,
            status: ReplicationRuleStatus::Enabled,
            source_selection_criteria: None,
            existing_object_replication: None,
            destination: Destination {
                bucket: format!("arn:aws:s3:::{destination}"),
                ..Destination::default()
            },
            delete_marker_replication: None,
        }
    }

    #[test]
    fn replication_rules_follow_their_schema_version() {
        let mut v1 = replication(vec![rule("dest", None)]);
        assert_eq!(check_replication("src", &mut v1).unwrap(), ["dest"]);
        assert!(v1.rules[0].id.is_some(), "a rule without an ID gets one");
        let message = |mut config: ReplicationConfiguration| check_replication("src", &mut config).unwrap_err().message;
        assert_eq!(
            message(replication(vec![rule("dest", None), rule("other", None)])),
            "Number of distinct destination bucket ARNs cannot exceed 1"
        );
        assert_eq!(
            message(replication(vec![rule("src", None)])),
            "Destination bucket cannot be the same as the source bucket."
        );
        let mut named = rule("dest", None);
        named.destination.bucket = "dest".into();
        assert_eq!(message(replication(vec![named])), "Invalid bucket ARN");
        let v2 = |priority: Option<i32>| ReplicationRule {
            priority,
            delete_marker_replication: Some(DeleteMarkerReplication::default()),
            ..rule("dest", Some(ReplicationRuleFilter::default()))
        };
        assert!(message(replication(vec![v2(None)])).starts_with("Priority must be specified for this version"));
        assert_eq!(
            message(replication(vec![v2(Some(1)), v2(Some(1))])),
            "Found duplicate priority 1."
        );
        let mut two = replication(vec![
            v2(Some(1)),
            ReplicationRule {
                id: Some("b".into()),
                ..v2(Some(2))
            },
        ]);
        two.rules[1].destination.bucket = "arn:aws:s3:::other".into();
        assert_eq!(check_replication("src", &mut two).unwrap(), ["dest", "other"]);
        let mut v1_with_priority = rule("dest", None);
        v1_with_priority.priority = Some(1);
        assert!(message(replication(vec![v1_with_priority])).starts_with("Priority cannot be used for this version"));
    }

    #[test]
    fn stored_documents_round_trip() {
        let rules = vec![CORSRule {
            allowed_methods: vec!["GET".into()],
            allowed_origins: vec!["*".into()],
            max_age_seconds: Some(30),
            ..CORSRule::default()
        }];
        let bytes = encode(&stratus_gen_s3::schema::CORS_RULES, rules.clone());
        let back: Vec<CORSRule> = decode(&stratus_gen_s3::schema::CORS_RULES, &bytes).unwrap();
        assert_eq!(back, rules);
    }
}
