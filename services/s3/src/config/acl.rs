//! ACLs: canned ACLs and grant headers as grants, what makes a grant public, and whether a
//! bucket's settings allow an ACL.

use stratus_core::AwsError;
use stratus_gen_s3::*;
use stratus_storage::Tx;

use crate::bucket::BucketRecord;
use crate::config::ownership::{access_denied, acls_not_supported, enforced};
use crate::config::{tx_ownership, tx_public_access_block};
use crate::error::S3Error;
use crate::owner;

pub(crate) const ALL_USERS: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
pub(crate) const AUTHENTICATED_USERS: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
pub(crate) const LOG_DELIVERY: &str = "http://acs.amazonaws.com/groups/s3/LogDelivery";

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
pub(crate) fn canned(acl: &str, account: &str, bucket_owner: &str) -> Result<Vec<Grant>, AwsError> {
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

/// The `x-amz-grant-*` header of each permission, for AWS's refusals that name it.
fn grant_header_name(permission: &Permission) -> &'static str {
    match permission {
        Permission::FullControl => "x-amz-grant-full-control",
        Permission::Read => "x-amz-grant-read",
        Permission::ReadAcp => "x-amz-grant-read-acp",
        Permission::Write => "x-amz-grant-write",
        Permission::WriteAcp => "x-amz-grant-write-acp",
        Permission::Unknown(_) => "x-amz-grant",
    }
}

/// A canonical user id as S3 issues them: 64 hexadecimal digits.
fn valid_canonical_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The groups a grant may name.
fn known_group(uri: &str) -> bool {
    [ALL_USERS, AUTHENTICATED_USERS, LOG_DELIVERY].contains(&uri)
}

/// AWS's `InvalidArgument` for a grantee it cannot grant to, naming what was wrong.
fn invalid_grantee(message: &str, name: &str, value: &str) -> AwsError {
    S3Error::invalid_argument(message)
        .with_detail("ArgumentName", name.to_owned())
        .with_detail("ArgumentValue", value)
}

/// A PutBucketAcl or PutObjectAcl that sets no ACL in any of the three ways.
pub(crate) fn missing_acl() -> AwsError {
    AwsError::new(
        "MissingSecurityHeader",
        "Your request was missing a required header",
        400,
    )
    .with_detail("MissingHeaderName", "x-amz-acl")
}

fn malformed_acl() -> AwsError {
    AwsError::new(
        "MalformedACLError",
        "The XML you provided was not well-formed or did not validate against our published schema",
        400,
    )
}

/// Grants from `x-amz-grant-*` headers: comma-separated `id="…"`, `uri="…"` or
/// `emailAddress="…"`.
pub(crate) fn header_grants(headers: &[(Permission, Option<&String>)]) -> Result<Vec<Grant>, AwsError> {
    let mut grants = Vec::new();
    for (permission, header) in headers {
        let Some(header) = header else { continue };
        for item in header.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let unrecognised =
                || invalid_grantee("Argument format not recognized", grant_header_name(permission), item);
            let (kind, value) = item.split_once('=').ok_or_else(unrecognised)?;
            let value = value.trim().trim_matches('"').to_owned();
            let grantee = match kind.trim().to_ascii_lowercase().as_str() {
                "id" if !valid_canonical_id(&value) => return Err(invalid_grantee("Invalid id", "id", &value)),
                "id" => Grantee {
                    id: Some(value),
                    ..grantee(Type::CanonicalUser)
                },
                "uri" if !known_group(&value) => return Err(invalid_grantee("Invalid group uri", "uri", &value)),
                "uri" => Grantee {
                    uri: Some(value),
                    ..grantee(Type::Group)
                },
                "emailaddress" => Grantee {
                    email_address: Some(value),
                    ..grantee(Type::AmazonCustomerByEmail)
                },
                _ => return Err(unrecognised()),
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
pub(crate) fn public_grants(grants: &[Grant]) -> bool {
    grants.iter().any(|g| {
        g.grantee
            .as_ref()
            .and_then(|e| e.uri.as_deref())
            .is_some_and(|u| u == ALL_USERS || u == AUTHENTICATED_USERS)
    })
}

/// Whether `grants` give the owner full control and nothing to anyone else (the only ACL a
/// `BucketOwnerEnforced` bucket accepts).
pub(crate) fn owner_only(grants: &[Grant], account: &str) -> bool {
    let id = owner(account).id;
    grants
        .iter()
        .all(|g| g.grantee.as_ref().is_some_and(|e| e.id == id) && g.permission == Some(Permission::FullControl))
}

/// The ACL a request sets: a canned ACL, grant headers, or a policy document (one way at a
/// time, as AWS requires). `None` when the request sets none.
pub(crate) fn requested_acl(
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
        // AWS's refusal of an unknown canned ACL has no message, only the header and value.
        return canned(acl, account, bucket_owner).map(Some).map_err(|_| {
            AwsError::new("InvalidArgument", "", 400)
                .with_detail("ArgumentName", "x-amz-acl")
                .with_detail("ArgumentValue", acl)
        });
    }
    if has_headers {
        let mut grants = header_grants(headers)?;
        // The owner keeps full control only if a header grants it.
        grants.dedup();
        return Ok(Some(grants));
    }
    match policy {
        Some(p) => policy_grants(p).map(Some),
        None => Ok(None),
    }
}

/// The grants of an `AccessControlPolicy` document, checked as AWS checks them: the document
/// names its owner and well-formed grants (`MalformedACLError`), then real canonical ids and
/// known groups (`InvalidArgument`).
fn policy_grants(policy: AccessControlPolicy) -> Result<Vec<Grant>, AwsError> {
    let owner = policy.owner.ok_or_else(malformed_acl)?;
    let mut grants = policy.grants.unwrap_or_default();
    for g in &mut grants {
        // Names are not kept: AWS answers grantees by id.
        if let Some(grantee) = g.grantee.as_mut() {
            grantee.display_name = None;
        }
        let well_formed = g.grantee.as_ref().is_some_and(|e| match e.r#type {
            Type::CanonicalUser => e.id.is_some(),
            Type::Group => e.uri.is_some(),
            Type::AmazonCustomerByEmail => e.email_address.is_some(),
            Type::Unknown(_) => false,
        });
        if !well_formed
            || g.permission
                .as_ref()
                .is_none_or(|p| matches!(p, Permission::Unknown(_)))
        {
            return Err(malformed_acl());
        }
    }
    if let Some(id) = owner.id.as_deref().filter(|id| !valid_canonical_id(id)) {
        return Err(invalid_grantee("Invalid id", "CanonicalUser/ID", id));
    }
    for grantee in grants.iter().filter_map(|g| g.grantee.as_ref()) {
        if let Some(id) = grantee.id.as_deref().filter(|id| !valid_canonical_id(id)) {
            return Err(invalid_grantee("Invalid id", "CanonicalUser/ID", id));
        }
        if let Some(uri) = grantee.uri.as_deref().filter(|uri| !known_group(uri)) {
            return Err(invalid_grantee("Invalid group uri", "Group/URI", uri));
        }
    }
    Ok(grants)
}

/// Refuses an ACL the bucket's settings do not allow: any but the owner's full control on a
/// `BucketOwnerEnforced` bucket, a public one under `BlockPublicAcls`.
pub(crate) fn check_acl_allowed(
    tx: &Tx<'_>,
    bucket: &BucketRecord,
    grants: &[Grant],
    account: &str,
) -> Result<(), AwsError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canned_acls() {
        let grants = canned("public-read", "1", "1").unwrap();
        assert_eq!(grants.len(), 2);
        assert!(public_grants(&grants));
        assert!(owner_only(&canned("private", "1", "1").unwrap(), "1"));
        assert!(owner_only(&canned("bucket-owner-full-control", "1", "1").unwrap(), "1"));
        assert!(canned("bogus", "1", "1").is_err());
    }
}
